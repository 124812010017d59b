import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { validationError } from '../../shared/errors';
import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { flat, joined, plain, shapeOf, utcTime, withKnown } from '../../shared/outputShape';
import { compact, formatDate } from '../../shared/params';
import { integerInRange, isBlank, issues, matches, required } from '../../shared/validation';
import {
	dateField,
	filtersField,
	numericField,
	optionsField,
	shownFor,
	textField,
} from '../../shared/fields';
import {
	VOICE_PATH,
	asDisplayed,
	firstItem,
	keyedToList,
	operation,
	plainDate,
	plainDateTime,
	unwrap,
	wholesaleItems,
	wholesaleList,
} from '../fields';
import {
	validateChannelHistoryInterval,
	validateChannelLimits,
	validateCdrPeriod,
	validateReportDate,
} from '../validation/account';
import { clock } from '../../shared/timers';

const callIdField = textField(
	'Call ID',
	'callId',
	'The call_id of the call, as call events and calls in progress give it',
	{ required: true },
);
const callIdIssues = (value: unknown) =>
	issues(
		required('Call ID', value),
		matches('Call ID', String(value ?? '').trim(), /^[^\s/]+$/, 'no spaces or slashes'),
	);
const ofCall = {
	fields: [callIdField],
	validate: (p: IDataObject) => callIdIssues(p.callId),
	path: `${VOICE_PATH}/inprogress/{callId}`,
};

const CDR_FILTER_KEYS = ['from', 'to', 'toISO', 'trunk', 'tag'];

/** The spec sets no maximum for a channel limit (the allocation bounds it): this bounds absurd values only. */
const MAX_CHANNELS = 100_000;

const channelsField = (displayName: string, name: string) =>
	numericField(
		displayName,
		name,
		0,
		{ minValue: 0, maxValue: MAX_CHANNELS, numberPrecision: 0 },
		{ required: true },
	);

const CDR_FIELDS = [
	'call_id',
	'cdr_id',
	'calldate',
	'direction',
	'nts_source',
	'trunk',
	'tag',
	'from',
	'to',
	'dest_id',
	'todesc',
	'iso',
	'secs_call',
	'secs_billed',
	'chg_total',
	'currency',
];
/** A CDR (its fields are the CDR event's) as Simplified shows it: the cdr_id as the id, direction, numbers, destination, start, duration, cost. */
const cdrShape = shapeOf(
	CDR_FIELDS,
	[
		'direction',
		'from',
		'to',
		['destination', 'todesc'],
		['started', (r) => utcTime(r.calldate)],
		['duration', 'secs_call'],
		['cost', 'chg_total'],
		'currency',
	],
	'cdr_id',
);

const IN_PROGRESS = [
	'callcount',
	'answeredcount',
	'total',
	'currency',
	'balance_available',
	'approx_seconds_remaining',
	'datetime',
	'location',
];
const perDestination = (calls: unknown) =>
	joined(
		keyedToList(calls, 'dest_id').map(
			(d) => `${d.location}: ${d.callcount} (${d.answeredcount} answered)`,
		),
		', ',
	);
/**
 * Calls in progress as Simplified shows them: the totals and the destinations on one line, or (one item per destination) a
 * destination's counts, total and currency, its location (which names the country) and no more, to stay smaller than Raw.
 */
const inProgressShape = shapeOf(
	[
		...IN_PROGRESS,
		'account',
		'balance',
		'balance_locked',
		'calls',
		'countries',
		'percent_available',
		'dest_id',
		'country',
	],
	[...IN_PROGRESS, ['destinations', (r) => perDestination(r.calls)]],
	'dest_id',
);

const LIMITS = [
	'limit_concurrent_in',
	'limit_concurrent_out',
	'channel_allocation',
	'channel_allocation_adjustable',
	'channel_allocation_global_numbers',
];
/** The limits as Simplified shows them: the named ones, and the dynamic block flat (`dynamic_active`, …). */
const namedLimits = shapeOf(LIMITS, LIMITS);
const limitsShape: OutputShape = {
	fields: [...LIMITS, 'dynamic'],
	simplify: (r) => ({ ...namedLimits.simplify(r), ...plain(flat('dynamic', r.dynamic)) }),
};

export const voice: ResourceSpec = {
	value: 'voice',
	name: 'Voice',
	description: 'Channel limits, channels, calls in progress, CDRs and rejected calls',
	operations: [
		operation({
			value: 'getCallsInProgress',
			name: 'Get Calls in Progress',
			action: 'Get the calls in progress',
			description:
				'Get the calls in progress: totals, balance, and the calls per destination and country',
			fields: [
				optionsField('Items', 'view', 'summary', [
					['One Item (Totals With Lists)', 'summary'],
					['One Item per Destination', 'destinations'],
				]),
			],
			path: `${VOICE_PATH}/inprogress/current`,
			shape: inProgressShape,
			// The record as answered (`calls` and `countries` are maps); per destination, the map's entries with their key, the
			// record's currency beside each for Simplified.
			output: (response, p) => {
				const record = (unwrap(response.body) ?? {}) as IDataObject;
				if (p.view !== 'destinations') return record;
				return keyedToList(record.calls, 'dest_id').map((destination) =>
					withKnown(destination, { currency: record.currency }),
				);
			},
		}),
		operation({
			value: 'getCallInProgress',
			name: 'Get Call in Progress',
			action: 'Get a call in progress',
			description: 'Get one call in progress by its call ID',
			...ofCall,
		}),
		operation({
			value: 'getCdrs',
			name: 'Get CDRs',
			action: 'Get call detail records',
			description:
				'List finished calls (CDRs) of the last 90 days, by day or time range, filtered by number, trunk or tag',
			paging: 'offset',
			fields: [
				optionsField('Period', 'period', 'range', [
					['Time Range', 'range'],
					['One Day', 'day'],
				]),
				dateField('day', 'Day', 'The day (within the last 90 days)', shownFor('period', 'day')),
				dateField(
					'dateStart',
					'Date Start',
					'From this time, GMT (default start of today; within the last 90 days)',
					shownFor('period', 'range'),
				),
				dateField(
					'dateEnd',
					'Date End',
					'Until this time, GMT (default now)',
					shownFor('period', 'range'),
				),
				filtersField([
					textField('From', 'from', 'Calling number'),
					textField('Tag', 'tag', 'The X-Platform-Tag of the call'),
					textField('To', 'to', 'Called number'),
					textField('To Country (ISO)', 'toISO', undefined, { placeholder: 'e.g. GB' }),
					textField('Trunk', 'trunk'),
				]),
			],
			validate: (p) =>
				p.period === 'day'
					? validateReportDate('Day', plainDate(p.day))
					: asDisplayed(validateCdrPeriod(plainDateTime(p.dateStart), plainDateTime(p.dateEnd)), {
							date_start: 'Date Start',
							date_end: 'Date End',
						}),
			// `filter` is accepted only in a JSON body, so the query goes as a POST.
			method: 'POST',
			path: (p) =>
				p.period === 'day'
					? {
							path: `${VOICE_PATH}/cdr/{day}`,
							pathParams: { day: plainDate(p.day) ?? formatDate(clock.now()) },
						}
					: { path: `${VOICE_PATH}/cdr` },
			body: (p) => {
				const found = compact(
					Object.fromEntries(
						CDR_FILTER_KEYS.map((key) => [key, (p.filters as IDataObject | undefined)?.[key]]),
					),
				);
				const filter = Object.keys(found).length ? found : undefined;
				return p.period === 'day'
					? compact({ filter })
					: compact({
							date_start: plainDateTime(p.dateStart),
							date_end: plainDateTime(p.dateEnd),
							filter,
						});
			},
			output: wholesaleList('Get call detail records', 'a list of CDRs'),
			shape: cdrShape,
		}),
		{
			value: 'getCdr',
			name: 'Get CDR',
			action: 'Get a call detail record by reference',
			description:
				'Get one finished call by its day and reference (the API marks it temporarily unavailable)',
			fields: [
				dateField('day', 'Day', 'The day of the call (within the last 90 days)', {
					required: true,
				}),
				textField('Reference', 'reference', "The reference of the call (a CDR's reference field)", {
					required: true,
				}),
			],
			validate: (p) => [
				...validateReportDate('Day', plainDate(p.day)),
				...issues(required('Reference', p.reference)),
			],
			shape: cdrShape,
			run: async (context, p) => {
				const request = {
					method: 'GET' as const,
					path: `${VOICE_PATH}/cdr/{day}/{reference}`,
					pathParams: { day: plainDate(p.day), reference: String(p.reference).trim() },
				};
				const response = await context.client
					.request(request)
					.catch(async (error: NodeApiError) => {
						const status = Number(error.httpCode);
						if (!(status === 404 || status >= 500)) return await Promise.reject(error);
						// The contract: "call detail by reference; temporarily unavailable as of v3.10.5".
						throw new NodeApiError(
							context.node.getNode(),
							{ httpCode: String(status) },
							{
								httpCode: String(status),
								itemIndex: context.itemIndex,
								message: `Call detail by reference is temporarily unavailable at the Wholesale Voice API; it answered ${status}: ${error.message}`,
								description:
									'Use Voice > Get CDRs with Period "One Day" (and a filter) to find the call instead.',
							},
						);
					});
				return wholesaleItems(response);
			},
		},
		operation({
			value: 'getChannelHistory',
			name: 'Get Channel History',
			action: 'Get the channel history',
			description:
				'Get about 24 hours of peak channel counts per interval (1 minute, 5 minutes or 1 hour)',
			fields: [
				optionsField('Interval', 'interval', '5m', [
					['1 Minute', '1m'],
					['5 Minutes', '5m'],
					['1 Hour', '1h'],
				]),
			],
			paging: 'client',
			validate: (p) => validateChannelHistoryInterval('Interval', p.interval),
			path: `${VOICE_PATH}/channels/history`,
			query: (p) => ({ interval: p.interval }),
		}),
		operation({
			value: 'getCurrentChannels',
			name: 'Get Current Channels',
			action: 'Get the channels in use',
			description: 'Get the channels in use now',
			path: `${VOICE_PATH}/channels/current`,
		}),
		operation({
			value: 'getLimits',
			name: 'Get Limits',
			action: 'Get the channel limits',
			description:
				'Get the concurrent channel limits in effect, the channel allocation and any dynamic limits',
			path: `${VOICE_PATH}/limits`,
			shape: limitsShape,
		}),
		operation({
			value: 'getRejectedCalls',
			name: 'Get Rejected Calls',
			action: 'Get rejected calls',
			description:
				'List calls rejected today and yesterday (channel limit, invalid CLI, blacklist...), all or for one reason',
			paging: 'client',
			fields: [
				textField('Reason', 'reason', 'Only this reason (e.g. maxcost, cli); all when empty', {
					placeholder: 'e.g. maxcost',
				}),
			],
			validate: (p) =>
				issues(
					matches(
						'Reason',
						String(p.reason ?? '').trim(),
						/^[A-Za-z0-9_-]*$/,
						'letters, digits, - and _ only',
					),
				),
			path: (p) =>
				isBlank(p.reason)
					? { path: `${VOICE_PATH}/rejected` }
					: { path: `${VOICE_PATH}/rejected/{reason}`, pathParams: { reason: p.reason } },
			// The spec does not show this answer's shape: one it does not recognise is output whole, never as nothing.
			output: wholesaleList('Get rejected calls', 'a list of rejected calls'),
		}),
		operation({
			value: 'hangUp',
			name: 'Hang Up Call',
			action: 'Hang up a call in progress',
			description: 'End a call in progress now',
			...ofCall,
			method: 'DELETE',
			output: (response, p) => [{ ...firstItem(response), callId: String(p.callId).trim() }],
		}),
		{
			value: 'setLimits',
			name: 'Set Limits',
			action: 'Set the channel limits',
			description:
				'Split a dedicated channel allocation between inbound and outbound; the two must add up to the allocation (checked before sending)',
			fields: [
				channelsField('Inbound Channels', 'limitIn'),
				channelsField('Outbound Channels', 'limitOut'),
			],
			validate: (p) =>
				issues(
					integerInRange('Inbound Channels', p.limitIn, 0, MAX_CHANNELS),
					integerInRange('Outbound Channels', p.limitOut, 0, MAX_CHANNELS),
				),
			// The allocation to match is only known from the account: read it, check, then write.
			run: async ({ client, node, itemIndex }, p) => {
				const limits = (unwrap(
					(await client.request({ method: 'GET', path: `${VOICE_PATH}/limits` })).body,
				) ?? {}) as IDataObject;
				if (limits.channel_allocation_adjustable === false) {
					throw new NodeOperationError(
						node.getNode(),
						'This account has no dedicated, self-managed channel allocation to split',
						{
							itemIndex,
							description:
								'Channel limits can be set only for dedicated allocations; ask the supplier for higher limits. Nothing was sent.',
						},
					);
				}
				const found = asDisplayed(
					validateChannelLimits(p.limitIn, p.limitOut, limits.channel_allocation),
					{ limit_concurrent_in: 'Inbound Channels', limit_concurrent_out: 'Outbound Channels' },
				);
				if (found.length) throw validationError(node.getNode(), found, itemIndex);
				const body = {
					limit_concurrent_in: Number(p.limitIn),
					limit_concurrent_out: Number(p.limitOut),
				};
				return wholesaleItems(
					await client.request({ method: 'PUT', path: `${VOICE_PATH}/limits`, body }),
				);
			},
		},
	],
};
