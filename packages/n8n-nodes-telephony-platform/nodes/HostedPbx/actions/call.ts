import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { binaryPropertyField } from '../../shared/describe';
import type { OutputShape, Params, ResourceSpec } from '../../shared/operation';
import { plain, utcTime } from '../../shared/outputShape';
import { FileOutput } from '../../shared/operation';
import { csvRecords, parseCsv, afterHeaderRow } from '../../shared/csv';
import {
	booleanField,
	dateField,
	filtersField,
	optionsField,
	textField,
} from '../../shared/fields';
import { PBX_MAX_PAGE_SIZE } from '../../shared/pagination';
import { compact, formatDate, isoUtc } from '../../shared/params';
import { MAX_DOWNLOAD_BYTES, MAX_DOWNLOAD_MIB } from '../../shared/transport/body';
import { describeValue, integerInRange, isBlank, issues, required } from '../../shared/validation';
import {
	countryCodeIssue,
	defaultCountryCodeField,
	dialledNumber,
	nationalIssue,
	phoneDigits,
	trunkPrefixIssue,
} from '../../shared/phoneNumbers';
import { customerField, customerPath, endpointField } from '../fields';
import { getManyOperation } from './collection';
import { parseParty, unshownAnswer, wholeNumberText } from '../records';
import { clock } from '../../shared/timers';

/** Every call history filter of the API. */
export const callFilters: INodeProperties = filtersField([
	dateField('createdAfter', 'Created After', 'Only records created after this time'),
	dateField('createdBefore', 'Created Before', 'Only records created before this time'),
	optionsField('Direction', 'direction', 'in', [
		['Inbound', 'in'],
		['Outbound', 'out'],
	]),
	textField('Endpoint ID', 'endpointId', 'Only calls involving this endpoint (a whole number)', {
		placeholder: 'e.g. 205',
	}),
	textField('From', 'from', 'Exact calling number, no wildcards'),
	booleanField(
		'Include Internal Calls',
		'includeLocal',
		'Whether to include calls between two endpoints of the account (only their outbound record is listed)',
	),
	dateField('startedAfter', 'Started After', 'Only calls that started after this time'),
	dateField('startedBefore', 'Started Before', 'Only calls that started before this time'),
	textField('To', 'to', 'Exact called number, no wildcards'),
]);

const DATE_FILTERS = ['createdAfter', 'createdBefore', 'startedAfter', 'startedBefore'];

export function historyQuery(filters: IDataObject | undefined): IDataObject {
	const f = filters ?? {};
	const query: IDataObject = {};
	for (const name of DATE_FILTERS) query[name] = isoUtc(f[name]);
	return compact({
		...query,
		direction: f.direction,
		from: f.from,
		to: f.to,
		includeLocal: f.includeLocal === true ? 'true' : undefined,
		endpointId: wholeNumberText(f.endpointId),
	});
}

// The dates are checked with every date field (parameterChecks.ts): real days only.
function historyIssues(p: Params) {
	const f = (p.filters as IDataObject | undefined) ?? {};
	// Bounded so that the digits sent are never an exponent (1e+21).
	return issues(integerInRange('Filters > Endpoint ID', f.endpointId, 0, Number.MAX_SAFE_INTEGER));
}

/**
 * A call record as Simplified shows it: direction, the numbers (the display names are left out:
 * with them a call history costs more than a third of Raw), start, duration (seconds), outcome, cost.
 */
export const callShape: OutputShape = {
	fields: [
		'callId',
		'callStarted',
		'cost',
		'created',
		'direction',
		'duration',
		'from',
		'linkedId',
		'links',
		'outcome',
		'scope',
		'to',
		'type',
		'uri',
	],
	simplify: (r) =>
		plain({
			direction: r.direction,
			from: parseParty(r.from).number,
			to: parseParty(r.to).number,
			started: utcTime(r.callStarted),
			duration: r.duration,
			outcome: r.outcome,
			cost: r.cost,
		}),
};

export const call: ResourceSpec = {
	value: 'call',
	name: 'Call',
	description: 'Call history and click-to-call',
	operations: [
		{
			value: 'exportCsv',
			name: 'Export History as CSV',
			action: 'Export call history as a CSV file',
			description: 'Download the call history matching the filters as one CSV file',
			fields: [customerField, callFilters, binaryPropertyField],
			validate: historyIssues,
			// The CSV is paged like every list (default 20 rows): every page is read and joined under one
			// header. The contract does not say whether later pages repeat the header (dropped only if
			// they do), and a service that ignores paging sends everything at once (more rows than asked
			// for, or page 2 the same as page 1): then nothing more is read.
			run: async ({ client }, p) => {
				let csv = '';
				let header = '';
				let previous = '';
				let rows = 0;
				for (let page = 1; ; page++) {
					const response = await client.request<Buffer>({
						method: 'GET',
						...customerPath(p, '/calls'),
						qs: { ...historyQuery(p.filters), pageSize: PBX_MAX_PAGE_SIZE, page },
						accept: 'text/csv',
						responseType: 'binary',
						// A service that builds the header from the rows sends nothing when none match.
						emptyBody: 'allowed',
					});
					const text = response.body.toString('utf8');
					// An empty page is the end: no rows (page 1), or none past an exact multiple of the page size.
					if (text.trim() === '') break;
					if (page > 1 && text === previous) break;
					previous = text;
					const headerEnd = afterHeaderRow(text);
					if (page === 1) header = text.slice(0, headerEnd).trim();
					const withHeader = page === 1 || text.slice(0, headerEnd).trim() === header;
					const pageRows = csvRecords(parseCsv(withHeader ? text : `${header}\r\n${text}`)).length;
					csv += page > 1 && withHeader ? text.slice(headerEnd) : text;
					if (csv && !/\n$/.test(csv)) csv += '\r\n';
					rows += pageRows;
					// A short page is the last; a longer one means the service ignores paging.
					if (pageRows !== PBX_MAX_PAGE_SIZE) break;
					if (csv.length > MAX_DOWNLOAD_BYTES) {
						throw new Error(
							`The call history export is larger than ${MAX_DOWNLOAD_MIB} MiB, the download limit, after ${page} pages; narrow the date filters`,
						);
					}
				}
				const data = Buffer.from(csv);
				const fileName = `call-history-${String(p.customerId).trim()}-${formatDate(clock.now())}.csv`;
				return new FileOutput(
					{ fileName, mimeType: 'text/csv', rows, fileSize: data.length },
					data,
					fileName,
					'text/csv',
				);
			},
		},
		getManyOperation({
			collection: 'calls',
			id: 'callId',
			singular: 'call record',
			plural: 'call records',
			shape: callShape,
			description:
				'List call records with the history filters: dates, direction, numbers, endpoint, internal calls',
			fields: [callFilters],
			validate: historyIssues,
			query: (p) => historyQuery(p.filters),
		}),
		{
			value: 'originate',
			name: 'Make a Call',
			action: 'Make a charged click-to-call',
			description:
				'Ring a local endpoint first, then dial the destination and connect both (click-to-call). Outbound calls are charged.',
			fields: [
				customerField,
				{ ...endpointField, description: 'The local endpoint that rings first' },
				textField(
					'Destination',
					'to',
					'The number or extension to dial once the endpoint answers; a number in international form with + (a national number needs Default Country Code)',
					{
						required: true,
						placeholder: 'e.g. +447700900999 or 205',
					},
				),
				defaultCountryCodeField,
			],
			validate: (p) =>
				issues(
					required('Endpoint', p.endpointId),
					required('Destination', p.to),
					trunkPrefixIssue('Destination', p.to, p.defaultCountryCode) ??
						(/^\+?[\d*#]{2,20}$/.test(phoneDigits(p.to)) || isBlank(p.to)
							? undefined
							: {
									field: 'Destination',
									problem: `${describeValue(p.to)} is not dialable`,
									rule: 'a number or extension: digits, *, # and an optional leading + (spaces, dashes and brackets are ignored)',
								}),
					countryCodeIssue('Default Country Code', p.defaultCountryCode),
					nationalIssue('Destination', p.to, p.defaultCountryCode),
				),
			request: (p, env) => {
				const endpoint = String(p.endpointId).trim();
				return {
					method: 'POST',
					...customerPath(p, '/calls'),
					body: {
						type: 'call',
						endpoint: /^https?:\/\//i.test(endpoint)
							? endpoint
							: env.absoluteUrl(customerPath(p, '/endpoints/{endpointId}').path, {
									customerId: p.customerId,
									endpointId: endpoint,
								}),
						to: dialledNumber(p.to, p.defaultCountryCode),
					},
					// The contract shows no body for this answer: empty or not JSON, a 200 is the call placed.
					emptyBody: 'allowed',
					responseType: 'text',
				};
			},
			output: (response, p) =>
				unshownAnswer(response, 'Make a charged click-to-call', {
					success: true,
					endpointId: String(p.endpointId),
					to: dialledNumber(p.to, p.defaultCountryCode),
				}),
		},
	],
};
