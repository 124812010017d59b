import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { filtersField } from '../../shared/describe';
import { validationError } from '../../shared/errors';
import type { ResourceSpec } from '../../shared/operation';
import { compact } from '../../shared/params';
import { integerInRange, isBlank, issues, matches, required } from '../../shared/validation';
import { VOICE_PATH, asDisplayed, dateField, getOperation, keyedToList, plainDate, plainDateTime, unwrap, wholesaleItems, wholesaleList } from '../fields';
import { validateChannelHistoryInterval, validateChannelLimits, validateCdrPeriod, validateReportDate } from '../validation/account';

const callIdField: INodeProperties = {
	displayName: 'Call ID',
	name: 'callId',
	type: 'string',
	required: true,
	default: '',
	description: 'The call_id of the call, as call events and calls in progress give it',
};

const callIdIssues = (value: unknown) => issues(required('Call ID', value), matches('Call ID', String(value ?? '').trim(), /^[^\s/]+$/, 'no spaces or slashes'));

const CDR_FILTER_KEYS = ['from', 'to', 'toISO', 'trunk', 'tag'];

/** The spec sets no maximum for a channel limit (the allocation bounds it): this bounds absurd values only. */
const MAX_CHANNELS = 100_000;

/** Calls in progress with `calls` and `countries` (objects keyed by id) as lists a workflow can map. */
export function callsInProgress(record: IDataObject): IDataObject {
	return {
		...record,
		calls: keyedToList(record.calls, 'dest_id'),
		countries: keyedToList(record.countries, 'country_code'),
	};
}

export const voice: ResourceSpec = {
	value: 'voice',
	name: 'Voice',
	description: 'Channel limits, channels, calls in progress, CDRs and rejected calls',
	operations: [
		{
			value: 'getCallsInProgress',
			name: 'Get Calls in Progress',
			action: 'Get the calls in progress',
			description: 'Get the calls in progress: totals, balance, and the calls per destination and country',
			fields: [
				{
					displayName: 'Output',
					name: 'output',
					type: 'options',
					default: 'summary',
					options: [
						{ name: 'One Item (Totals With Lists)', value: 'summary' },
						{ name: 'One Item per Destination', value: 'destinations' },
					],
				},
			],
			request: () => ({ method: 'GET', path: `${VOICE_PATH}/inprogress/current` }),
			output: (response, p) => {
				const record = callsInProgress((unwrap(response.body) ?? {}) as IDataObject);
				if (p.output !== 'destinations') return record;
				return (record.calls as IDataObject[]).map((destination) => ({
					...destination,
					account: record.account,
					datetime: record.datetime,
					currency: record.currency,
				}));
			},
		},
		getOperation({
			value: 'getCallInProgress',
			name: 'Get Call in Progress',
			action: 'Get a call in progress',
			description: 'Get one call in progress by its call ID',
			fields: [callIdField],
			validate: (p) => callIdIssues(p.callId),
			path: (p) => ({ path: `${VOICE_PATH}/inprogress/{callId}`, pathParams: { callId: p.callId } }),
		}),
		{
			value: 'getCdrs',
			name: 'Get CDRs',
			action: 'Get call detail records',
			description: 'List finished calls (CDRs) of the last 90 days, by day or time range, filtered by number, trunk or tag',
			paging: 'offset',
			fields: [
				{
					displayName: 'Period',
					name: 'period',
					type: 'options',
					default: 'range',
					options: [
						{ name: 'Time Range', value: 'range' },
						{ name: 'One Day', value: 'day' },
					],
				},
				{ ...dateField('day', 'Day', 'The day (within the last 90 days)'), displayOptions: { show: { period: ['day'] } } },
				{ ...dateField('dateStart', 'Date Start', 'From this time, GMT (default start of today; within the last 90 days)'), displayOptions: { show: { period: ['range'] } } },
				{ ...dateField('dateEnd', 'Date End', 'Until this time, GMT (default now)'), displayOptions: { show: { period: ['range'] } } },
				filtersField([
					{ displayName: 'From', name: 'from', type: 'string', default: '', description: 'Calling number' },
					{ displayName: 'Tag', name: 'tag', type: 'string', default: '', description: 'The X-Platform-Tag of the call' },
					{ displayName: 'To', name: 'to', type: 'string', default: '', description: 'Called number' },
					{ displayName: 'To Country (ISO)', name: 'toISO', type: 'string', default: '', placeholder: 'GB' },
					{ displayName: 'Trunk', name: 'trunk', type: 'string', default: '' },
				]),
			],
			validate: (p) =>
				p.period === 'day'
					? validateReportDate('Day', plainDate(p.day))
					: asDisplayed(validateCdrPeriod(plainDateTime(p.dateStart), plainDateTime(p.dateEnd)), { date_start: 'Date Start', date_end: 'Date End' }),
			// `filter` is accepted only in a JSON body, so the query goes as a POST.
			request: (p) => {
				const filter = compact(Object.fromEntries(CDR_FILTER_KEYS.map((key) => [key, (p.filters as IDataObject | undefined)?.[key]])));
				return p.period === 'day'
					? { method: 'POST', path: `${VOICE_PATH}/cdr/{day}`, pathParams: { day: plainDate(p.day) ?? new Date().toISOString().slice(0, 10) }, body: compact({ filter: Object.keys(filter).length ? filter : undefined }) }
					: {
							method: 'POST',
							path: `${VOICE_PATH}/cdr`,
							body: compact({ date_start: plainDateTime(p.dateStart), date_end: plainDateTime(p.dateEnd), filter: Object.keys(filter).length ? filter : undefined }),
						};
			},
			output: wholesaleList('Get call detail records', 'a list of CDRs'),
		},
		{
			value: 'getCdr',
			name: 'Get CDR',
			action: 'Get a call detail record by reference',
			description: 'Get one finished call by its day and reference (the API marks this temporarily unavailable since v3.10.5)',
			fields: [
				{ ...dateField('day', 'Day', 'The day of the call (within the last 90 days)'), required: true },
				{ displayName: 'Reference', name: 'reference', type: 'string', required: true, default: '', description: 'The reference of the call (a CDR\'s reference field)' },
			],
			validate: (p) => [...validateReportDate('Day', plainDate(p.day)), ...issues(required('Reference', p.reference))],
			run: async (context, p) => {
				const request = { method: 'GET' as const, path: `${VOICE_PATH}/cdr/{day}/{reference}`, pathParams: { day: plainDate(p.day), reference: String(p.reference).trim() } };
				const response = await context.client.request(request).catch(async (error: NodeApiError) => {
					const status = Number(error.httpCode);
					if (!(status === 404 || status >= 500)) return await Promise.reject(error);
					// The contract: "call detail by reference; temporarily unavailable as of v3.10.5".
					throw new NodeApiError(context.node.getNode(), { httpCode: String(status) }, {
						httpCode: String(status),
						itemIndex: context.itemIndex,
						message: `Call detail by reference is temporarily unavailable at the Wholesale Voice API (since v3.10.5); it answered ${status}: ${error.message}`,
						description: 'Use Voice > Get CDRs with Period "One Day" (and a filter) to find the call instead.',
					});
				});
				return wholesaleItems(response);
			},
		},
		getOperation({
			value: 'getChannelHistory',
			name: 'Get Channel History',
			action: 'Get the channel history',
			description: 'Get about 24 hours of peak channel counts per interval (1 minute, 5 minutes or 1 hour)',
			fields: [
				{
					displayName: 'Interval',
					name: 'interval',
					type: 'options',
					default: '5m',
					options: [
						{ name: '1 Minute', value: '1m' },
						{ name: '5 Minutes', value: '5m' },
						{ name: '1 Hour', value: '1h' },
					],
				},
			],
			paging: 'client',
			validate: (p) => validateChannelHistoryInterval('Interval', p.interval),
			path: `${VOICE_PATH}/channels/history`,
			query: (p) => ({ interval: p.interval }),
		}),
		getOperation({ value: 'getCurrentChannels', name: 'Get Current Channels', action: 'Get the channels in use', description: 'Get the channels in use now', path: `${VOICE_PATH}/channels/current` }),
		getOperation({
			value: 'getLimits',
			name: 'Get Limits',
			action: 'Get the channel limits',
			description: 'Get the concurrent channel limits in effect, the channel allocation and any dynamic limits',
			path: `${VOICE_PATH}/limits`,
		}),
		{
			value: 'getRejectedCalls',
			name: 'Get Rejected Calls',
			action: 'Get rejected calls',
			description: 'List calls rejected today and yesterday (channel limit, invalid CLI, blacklist...), all or for one reason',
			paging: 'client',
			fields: [{ displayName: 'Reason', name: 'reason', type: 'string', default: '', placeholder: 'maxcost', description: 'Only this reason (e.g. maxcost, cli); all when empty' }],
			validate: (p) => issues(matches('Reason', String(p.reason ?? '').trim(), /^[A-Za-z0-9_-]*$/, 'letters, digits, - and _ only')),
			request: (p) =>
				isBlank(p.reason)
					? { method: 'GET', path: `${VOICE_PATH}/rejected` }
					: { method: 'GET', path: `${VOICE_PATH}/rejected/{reason}`, pathParams: { reason: p.reason } },
			// The spec does not show this answer's shape: one it does not recognise is output whole, never as nothing.
			output: wholesaleList('Get rejected calls', 'a list of rejected calls'),
		},
		{
			value: 'hangUp',
			name: 'Hang Up Call',
			action: 'Hang up a call in progress',
			description: 'End a call in progress now',
			fields: [callIdField],
			validate: (p) => callIdIssues(p.callId),
			request: (p) => ({ method: 'DELETE', path: `${VOICE_PATH}/inprogress/{callId}`, pathParams: { callId: p.callId } }),
			output: (response, p) => [{ ...(wholesaleItems(response)[0] as object), callId: String(p.callId).trim() }],
		},
		{
			value: 'setLimits',
			name: 'Set Limits',
			action: 'Set the channel limits',
			description:
				'Split a dedicated channel allocation between inbound and outbound; the two must add up to the allocation (checked before sending)',
			fields: [
				{ displayName: 'Inbound Channels', name: 'limitIn', type: 'number', typeOptions: { minValue: 0, maxValue: MAX_CHANNELS, numberPrecision: 0 }, default: 0, required: true },
				{ displayName: 'Outbound Channels', name: 'limitOut', type: 'number', typeOptions: { minValue: 0, maxValue: MAX_CHANNELS, numberPrecision: 0 }, default: 0, required: true },
			],
			validate: (p) => issues(integerInRange('Inbound Channels', p.limitIn, 0, MAX_CHANNELS), integerInRange('Outbound Channels', p.limitOut, 0, MAX_CHANNELS)),
			// The allocation to match is only known from the account: read it, check, then write.
			run: async ({ client, node, itemIndex }, p) => {
				const limits = (unwrap((await client.request({ method: 'GET', path: `${VOICE_PATH}/limits` })).body) ?? {}) as IDataObject;
				if (limits.channel_allocation_adjustable === false) {
					throw new NodeOperationError(node.getNode(), 'This account has no dedicated, self-managed channel allocation to split', {
						itemIndex,
						description: 'Channel limits can be set only for dedicated allocations; ask the supplier for higher limits. Nothing was sent.',
					});
				}
				const found = asDisplayed(validateChannelLimits(p.limitIn, p.limitOut, limits.channel_allocation), {
					limit_concurrent_in: 'Inbound Channels',
					limit_concurrent_out: 'Outbound Channels',
				});
				if (found.length) throw validationError(node.getNode(), found, itemIndex);
				const response = await client.request({
					method: 'PUT',
					path: `${VOICE_PATH}/limits`,
					body: { limit_concurrent_in: Number(p.limitIn), limit_concurrent_out: Number(p.limitOut) },
				});
				return wholesaleItems(response);
			},
		},
	],
};
