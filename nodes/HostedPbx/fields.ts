import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
	INodeProperties,
} from 'n8n-workflow';

import { hostedPbxApi } from '../shared/apis';
import { binaryPropertyField } from '../shared/describe';
import { truncate } from '../shared/errors';
import type { ApiPath, ApiResponse, BodyStream, OperationSpec, Params } from '../shared/operation';
import { FileOutput } from '../shared/operation';
import { idFromUri, withArticle } from '../shared/params';
import { UnexpectedAnswer, isRecord } from '../shared/responseShape';
import { createClient, parseJsonText } from '../shared/transport';
import { isBlank } from '../shared/validation';

/**
 * Every record with an `id` taken from its `uri`, so workflows can map it straight into the next call.
 * Anything that is not a record (a `null` in a list) is passed on unchanged for the executor to wrap.
 */
export function withId(record: IDataObject): IDataObject {
	if (!isRecord(record)) return record;
	return record.id === undefined && typeof record.uri === 'string' ? { id: idFromUri(record.uri), ...record } : record;
}

/**
 * What an answer must be: `record` (one representation), `optional` (a call whose answer the
 * contract does not show: anything but a record gives no records, and the operation says what it
 * did instead), or `any` (the list wrapper, or one representation: real list answers from the
 * public docs show both).
 */
export type PbxAnswer = 'record' | 'optional' | 'any';

/**
 * PBX records: the items of a list wrapper, or the one representation answered. An answer
 * without a body (let through only where the contract promises none) gives no records; any other
 * answer that is neither a record nor a list (text, null, a number) is an error naming `operation`,
 * never an empty result. Non-record elements of a list are passed on unchanged.
 */
export function pbxRecords(response: ApiResponse, operation = 'A Hosted PBX request', expected: PbxAnswer = 'any'): IDataObject[] {
	const { body } = response;
	if (body === undefined || body === '') return [];
	const unexpected = (what: string) =>
		new UnexpectedAnswer(hostedPbxApi.label, operation, body, what, { sent: !/^(get|search|list)\b/i.test(operation) });
	if (Array.isArray(body)) {
		if (expected === 'optional') return [];
		if (expected === 'record') throw unexpected('a record');
		return (body as IDataObject[]).map(withId);
	}
	if (isRecord(body)) {
		const record = body as IDataObject;
		if (Array.isArray(record.items)) return (record.items as IDataObject[]).map(withId);
		return [withId(record)];
	}
	if (expected === 'optional') return [];
	throw unexpected(expected === 'any' ? 'a record or a list' : 'a record');
}

/**
 * The answer of a write whose body the contract does not show (Make a Call, Set Do Not Disturb),
 * requested as text: any 2xx is success, since failing here would invite a retry of something that
 * already happened (a charged call). A JSON record is the output; anything else (empty, `null`,
 * `OK`, XML) gives `done`, with text that is not JSON kept as `responseText`.
 */
export function unshownAnswer(response: ApiResponse, operation: string, done: IDataObject): IDataObject[] {
	const text = typeof response.body === 'string' ? response.body : '';
	let body: unknown;
	try {
		body = parseJsonText(text);
	} catch {
		return [{ ...done, responseText: truncate(text, 1000) }];
	}
	const records = pbxRecords({ ...response, body }, operation, 'optional');
	return records.length ? records : [done];
}

/**
 * A whole number the check accepted, as the decimal digits the API reads (`1e3`, ` 12 `, `1.0` and
 * `0x10` are 1000, 12, 1 and 16); a lenient server would read the text as typed differently. Blank
 * stays undefined so the parameter is not sent.
 */
export function wholeNumberText(value: unknown): string | undefined {
	return isBlank(value) ? undefined : String(Number(typeof value === 'string' ? value.trim() : value));
}

/** Exactly one record from an answer that must be one (a read before a write): anything else is an error. */
export function pbxRecord(response: ApiResponse, operation: string): IDataObject {
	const body = response.body;
	if (isRecord(body) && !Array.isArray(body.items)) return withId(body);
	const answered = isRecord(body) ? body.items : body;
	throw new UnexpectedAnswer(hostedPbxApi.label, operation, answered, 'a record');
}

/** An operation's output: the records of its answer, which must be what `expected` says. */
export function pbxOutput(operation: string, expected: PbxAnswer) {
	return (response: ApiResponse): IDataObject[] => pbxRecords(response, operation, expected);
}

export const CUSTOMER = 'customerId';

/** The customer every sub-resource hangs off: from the list, `me`, an ID or a URL. */
export const customerField: INodeProperties = {
	displayName: 'Customer',
	name: CUSTOMER,
	type: 'resourceLocator',
	default: { mode: 'id', value: 'me' },
	required: true,
	description:
		'The customer (company PBX). "me" is your own account for company admins and extension users; resellers pick a customer.',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchCustomers', searchable: true },
		},
		{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'me or 1001' },
		{
			displayName: 'By URL',
			name: 'url',
			type: 'string',
			placeholder: 'https://pbx.example.com/api/v1/customers/1001',
			extractValue: { type: 'regex', regex: '/customers/([^/?#]+)' },
		},
	],
};

/**
 * `/customers/{customerId}` for the chosen customer. An empty customer is refused by the transport,
 * never turned into `me`: "me" is a value the user chooses (it is the field's default).
 */
export function customerPath(params: Params, rest = ''): ApiPath {
	return { path: `/customers/{${CUSTOMER}}${rest}`, pathParams: { [CUSTOMER]: params[CUSTOMER] } };
}

/**
 * A sub-resource picked from a searchable list of the chosen customer, by ID, or by its URI.
 * The list search is `search<Collection>` (see `listSearchMethods`).
 */
export function subResourceField(
	name: string,
	displayName: string,
	collection: string,
	description: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: searchMethodName(collection), searchable: true },
			},
			{ displayName: 'By ID', name: 'id', type: 'string', placeholder: '42' },
			{
				displayName: 'By URL',
				name: 'url',
				type: 'string',
				placeholder: `https://pbx.example.com/api/v1/customers/1001/${collection}/42`,
				extractValue: { type: 'regex', regex: `/${collection}/([^/?#.]+)` },
			},
		],
	};
}

function searchMethodName(collection: string): string {
	return `search${collection[0].toUpperCase()}${collection.slice(1)}`;
}

/** What a list search shows for each record of a collection. */
const SEARCHABLE: Record<string, (record: IDataObject) => string> = {
	phonebook: (r) => `${r.name} (${r.phoneNumber})`,
	sounds: (r) => `${r.name} (${r.type})`,
	recordings: (r) => `${r.started} ${r.direction} ${r.partyId}`,
	phonenumbers: (r) => `${r.number}${r.identifier ? ` (${r.identifier})` : ''}`,
	outgoingcallerids: (r) => String(r.number),
	callbundles: (r) => `${r.name} (${r.status})`,
	sms: (r) => `${r.created} ${r.direction} ${r.from} → ${r.to}`,
};

const SEARCH_PAGE_SIZE = 200;

async function searchCollection(
	context: ILoadOptionsFunctions,
	path: ApiPath,
	label: (record: IDataObject) => string,
	filter: string | undefined,
	paginationToken: string | undefined,
): Promise<INodeListSearchResult> {
	const client = createClient(context, hostedPbxApi);
	const response = await client.request({
		method: 'GET',
		...path,
		url: paginationToken,
		qs: paginationToken ? undefined : { pageSize: SEARCH_PAGE_SIZE },
	});
	const needle = (filter ?? '').toLowerCase();
	const results: INodeListSearchItems[] = pbxRecords(response, 'Search the list')
		.filter(isRecord)
		.map((record) => ({ name: label(record), value: String(record.id), url: String(record.uri ?? '') }))
		.filter((item) => !needle || item.name.toLowerCase().includes(needle) || item.value === needle);
	return { results, paginationToken: (response.body as IDataObject)?.nextPage as string | undefined };
}

/** The customer chosen in the panel while a list loads: an ID, `me`, or the ID inside a URL. */
function currentCustomer(context: ILoadOptionsFunctions): string {
	const raw = context.getCurrentNodeParameter(CUSTOMER) as { value?: unknown } | string | undefined;
	const value = String((typeof raw === 'object' ? raw?.value : raw) ?? '').trim();
	return /\/customers\/([^/?#]+)/.exec(value)?.[1] ?? (value || 'me');
}

/**
 * Endpoints have no list resource in the API; the phone numbers name the endpoints they ring
 * (`destination`, `routingRules[].destination`), so the list is built from those.
 */
async function searchEndpoints(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const client = createClient(this, hostedPbxApi);
	const response = await client.request({
		method: 'GET',
		...customerPath({ [CUSTOMER]: currentCustomer(this) }, '/phonenumbers'),
		qs: { pageSize: SEARCH_PAGE_SIZE },
	});
	const seen = new Map<string, string>();
	for (const number of pbxRecords(response, 'Search endpoints').filter(isRecord)) {
		const rules = Array.isArray(number.routingRules) ? (number.routingRules as unknown[]) : [];
		const destinations = [number.destination, ...rules.map((rule) => (isRecord(rule) ? rule.destination : undefined))];
		for (const destination of destinations) {
			if (typeof destination !== 'string' || !destination.includes('/endpoints/')) continue;
			const id = idFromUri(destination);
			const label = `Endpoint ${id} (rings for ${number.number})`;
			if (!seen.has(id)) seen.set(id, label);
		}
	}
	const needle = (filter ?? '').toLowerCase();
	return {
		results: [...seen]
			.filter(([id, label]) => !needle || label.toLowerCase().includes(needle) || id === needle)
			.map(([id, label]) => ({ name: label, value: id })),
	};
}

export const listSearchMethods = {
	async searchCustomers(
		this: ILoadOptionsFunctions,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult> {
		const found = await searchCollection(
			this,
			{ path: '/customers' },
			(r) => `${r.company} (${r.id})`,
			filter,
			paginationToken,
		);
		// Company admins and extension users may also use their own account as "me".
		if (!paginationToken && (!filter || 'me'.includes(filter.toLowerCase()))) {
			found.results.unshift({ name: 'Me (my own account)', value: 'me' });
		}
		return found;
	},
	searchEndpoints,
	/** Who may send SMS: approved caller IDs with SMS allowed, and the customer's SMS-enabled numbers. */
	async searchSmsSenders(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
		const client = createClient(this, hostedPbxApi);
		const customer = { [CUSTOMER]: currentCustomer(this) };
		const [callerIds, numbers] = await Promise.all(
			['outgoingcallerids', 'phonenumbers'].map(async (collection) =>
				pbxRecords(
					await client.request({ method: 'GET', ...customerPath(customer, `/${collection}`), qs: { pageSize: SEARCH_PAGE_SIZE } }),
					'Search SMS senders',
				).filter(isRecord),
			),
		);
		const senders = [
			...callerIds.filter((c) => c.allowSms).map((c) => ({ name: `${c.number} (approved caller ID)`, value: String(c.number) })),
			...numbers.filter((n) => n.smsEnabled).map((n) => ({ name: `${n.number} (SMS-enabled number)`, value: String(n.number) })),
		];
		const needle = (filter ?? '').toLowerCase();
		return { results: senders.filter((s) => !needle || s.name.toLowerCase().includes(needle)) };
	},
	...Object.fromEntries(
		Object.entries(SEARCHABLE).map(([collection, label]) => [
			searchMethodName(collection),
			async function (this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) {
				return await searchCollection(
					this,
					customerPath({ [CUSTOMER]: currentCustomer(this) }, `/${collection}`),
					label,
					filter,
					paginationToken,
				);
			},
		]),
	),
};

export const endpointField: INodeProperties = {
	...subResourceField('endpointId', 'Endpoint', 'endpoints', 'The endpoint (extension or device group)'),
	placeholder: '201',
};

export interface CollectionOptions {
	/** Path segment below the customer (`phonebook`). */
	collection: string;
	/** The parameter that holds a record's id (`entryId`); stored in workflows, so never renamed. */
	id: string;
	/** Words for descriptions: `phone book entry`, `phone book entries`. */
	singular: string;
	plural: string;
}

/** Get Many of a customer's collection: Return All / Limit over the PBX list wrapper, with optional filters. */
export function getManyOperation(
	options: CollectionOptions & {
		fields?: INodeProperties[];
		query?: (params: Params) => IDataObject;
		validate?: OperationSpec['validate'];
		description?: string;
	},
): OperationSpec {
	return {
		value: 'getAll',
		name: 'Get Many',
		action: `Get many ${options.plural}`,
		description: options.description ?? `List the customer's ${options.plural}, newest pages followed as needed`,
		fields: [customerField, ...(options.fields ?? [])],
		paging: 'pbx',
		validate: options.validate,
		request: (p) => ({ method: 'GET', ...customerPath(p, `/${options.collection}`), qs: options.query?.(p) }),
		output: pbxOutput(`Get many ${options.plural}`, 'any'),
	};
}

export function idFieldOf(options: CollectionOptions): INodeProperties {
	return subResourceField(
		options.id,
		options.singular.replace(/(^|\s)\w/g, (c) => c.toUpperCase()),
		options.collection,
		`The ${options.singular}`,
	);
}

/** The path of one record of a collection: `/customers/me/phonebook/42`. */
export function recordPath(options: CollectionOptions, params: Params): ApiPath {
	const customer = customerPath(params, `/${options.collection}/{${options.id}}`);
	return { path: customer.path, pathParams: { ...customer.pathParams, [options.id]: params[options.id] } };
}

export function getOneOperation(options: CollectionOptions): OperationSpec {
	return {
		value: 'get',
		name: 'Get',
		action: `Get ${withArticle(options.singular)}`,
		description: `Get one ${options.singular} by its ID`,
		fields: [customerField, idFieldOf(options)],
		request: (p) => ({ method: 'GET', ...recordPath(options, p) }),
		output: pbxOutput(`Get ${withArticle(options.singular)}`, 'record'),
	};
}

/** Download Audio of a sound or recording: the WAV file as binary data named after the record. */
export function downloadAudioOperation(options: CollectionOptions): OperationSpec {
	return {
		value: 'download',
		name: 'Download Audio',
		action: `Download the audio of ${withArticle(options.singular)}`,
		description: `Download ${withArticle(options.singular)} as a WAV file (binary data)`,
		fields: [customerField, idFieldOf(options), binaryPropertyField],
		request: (p) => ({ method: 'GET', ...recordPath(options, p), accept: 'audio/wav', responseType: 'stream' }),
		output: (response, p) => {
			const data = response.body as BodyStream;
			const type = response.headers['content-type'] ?? '';
			const id = String(p[options.id]).trim();
			if (/json|text\//i.test(type)) {
				(data as { destroy?: () => void }).destroy?.();
				throw new Error(`The Hosted PBX API answered with ${type} instead of audio for ${options.singular} ${id}`);
			}
			const fileName = `${options.singular.replace(/\s+/g, '-')}-${id}.wav`;
			const mimeType = /^audio\//i.test(type) ? type.split(';')[0].trim() : 'audio/wav';
			return new FileOutput({ id, fileName, mimeType }, data, fileName, mimeType);
		},
	};
}
