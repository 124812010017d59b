import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiError } from './errors';
import { appendAll } from './lists';
import type { ApiClient, ApiRequest, ApiResponse, Paging } from './operation';

/** Largest page the Hosted PBX serves. */
export const PBX_MAX_PAGE_SIZE = 200;
/** Page size for offset paging (the wholesale inline CDR default). */
export const OFFSET_PAGE_SIZE = 500;
/** Most records Return All collects over pages: more is an error naming this cap, never an endless walk (a Limit is the user's own bound). */
export const MAX_RETURN_ALL_RECORDS = 100_000;
/** Pages up to this many records are compared whole with the previous page; larger ones by length, first and last record. */
const FULL_COMPARE_RECORDS = 1_000;

export type RecordExtractor = (response: ApiResponse) => IDataObject[];

interface PbxList {
	items?: IDataObject[];
	nextPage?: string;
}

const LIST_KEYS = ['data', 'items', 'records', 'results', 'rows', 'cdrs'];

/** The records of a list answer (see `findRecords`); none when its list is not found. */
export function recordsOf(body: unknown): IDataObject[] {
	return findRecords(body) ?? [];
}

/**
 * The list of an answer: an array, the array of a known envelope key (also inside `data`), or the only
 * array an object holds; undefined when none is recognised, so a caller can keep an unknown shape.
 */
export function findRecords(body: unknown, depth = 0): IDataObject[] | undefined {
	if (Array.isArray(body)) return body as IDataObject[];
	if (!body || typeof body !== 'object' || depth > 1) return undefined;
	const record = body as IDataObject;
	for (const key of LIST_KEYS) {
		if (Array.isArray(record[key])) return record[key] as IDataObject[];
	}
	if (record.data && typeof record.data === 'object') return findRecords(record.data, depth + 1);
	const arrays = Object.values(record).filter(Array.isArray);
	return arrays.length === 1 ? (arrays[0] as IDataObject[]) : undefined;
}

/** Where paging errors are reported: the node and input item they belong to. */
export interface PagingScope {
	node: INode;
	itemIndex?: number;
}

/** An error of the node's own (with a node to name) or a plain one with a description, which the executor and n8n wrap. */
export function pagingError(
	scope: PagingScope | undefined,
	message: string,
	description: string,
): Error {
	if (scope)
		return new NodeOperationError(scope.node, message, { description, itemIndex: scope.itemIndex });
	return Object.assign(new Error(message), { description });
}

/** A cheap fingerprint of a page, to tell a server that answers the same page again. */
function pageSignature(page: IDataObject[]): string {
	if (page.length <= FULL_COMPARE_RECORDS) return JSON.stringify(page);
	return `${page.length}|${JSON.stringify(page[0]) ?? ''}|${JSON.stringify(page[page.length - 1]) ?? ''}`;
}

/** Fails when a page repeats the previous one: a server that ignores the page number or `start` would be asked for ever. */
function repeatGuard(scope: PagingScope | undefined, parameter: string) {
	let previous: string | undefined;
	let requests = 0;
	return (page: IDataObject[], status: number) => {
		requests++;
		if (page.length === 0) return;
		const signature = pageSignature(page);
		if (signature !== previous) {
			previous = signature;
			return;
		}
		const message = `The API answered the same page again: request ${requests} brought the same ${page.length} records as request ${requests - 1}, so it ignores \`${parameter}\`; paging stopped`;
		const description =
			`Rule: each page must bring the next records; this answer repeated the previous one, so every later page would too. Nothing more was requested. ` +
			`Turn off Return All and set a Limit no larger than one page, or narrow the date range or filters so that the list fits one page.`;
		if (!scope) throw pagingError(scope, message, description);
		const error = apiError(scope.node, status, { message, description }, scope.itemIndex, {
			cause: 'configuration-invalid',
		});
		error.context.code = 'PAGE_REPEATED';
		throw error;
	};
}

/** The error for a Return All that would collect more than MAX_RETURN_ALL_RECORDS. */
function capError(scope: PagingScope | undefined, requests: number): Error {
	const cap = MAX_RETURN_ALL_RECORDS.toLocaleString('en-US');
	const error = pagingError(
		scope,
		`Return All: the list has more than ${cap} records, so paging stopped after ${requests} requests`,
		`Rule: Return All collects at most ${cap} records (MAX_RETURN_ALL_RECORDS), so that a long list or a server that never ends a list cannot exhaust n8n's memory. ` +
			`Turn off Return All and set a Limit, or narrow the date range or filters and run the parts separately.`,
	);
	if (error instanceof NodeOperationError)
		Object.assign(error.context, { field: 'Return All', code: RETURN_ALL_CAP });
	else Object.assign(error, { code: RETURN_ALL_CAP });
	return error;
}

const RETURN_ALL_CAP = 'RETURN_ALL_CAP';

/** Whether an error is Return All's cap: the list is longer than MAX_RETURN_ALL_RECORDS. */
export function isReturnAllCap(error: unknown): boolean {
	const { code, context } = (error ?? {}) as { code?: unknown; context?: { code?: unknown } };
	return code === RETURN_ALL_CAP || context?.code === RETURN_ALL_CAP;
}

/** What names a PBX record: its `uri` (every representation has one), else its `id`. */
function identityOf(record: IDataObject): string | undefined {
	if (!record || typeof record !== 'object') return undefined;
	if (typeof record.uri === 'string' && record.uri !== '') return `uri ${record.uri}`;
	return record.id === undefined || record.id === null || record.id === ''
		? undefined
		: `id ${String(record.id)}`;
}

/** Keeps each record once over one walk: newest first, a record created meanwhile pushes one already read onto the next page. */
function onceEach(): (page: IDataObject[]) => IDataObject[] {
	const seen = new Set<string>();
	return (page) =>
		page.filter((record) => {
			const identity = identityOf(record);
			if (identity === undefined) return true;
			if (seen.has(identity)) return false;
			seen.add(identity);
			return true;
		});
}

/**
 * Pages the Hosted PBX list wrapper while an answer has a `nextPage` link, by page number with the request's
 * own query: the link itself drops the filters (`createdAfter`) and names a host of its own.
 */
async function pbxPages(
	client: ApiClient,
	request: ApiRequest,
	limit: number | undefined,
	extract: RecordExtractor,
	scope?: PagingScope,
): Promise<IDataObject[]> {
	const pageSize = limit === undefined ? PBX_MAX_PAGE_SIZE : Math.min(limit, PBX_MAX_PAGE_SIZE);
	const records: IDataObject[] = [];
	const checkRepeat = repeatGuard(scope, 'page');
	const keepNew = onceEach();
	for (let pageNumber = 1; ; pageNumber++) {
		const response: ApiResponse = await client.request({
			...request,
			qs: { ...request.qs, pageSize, page: pageNumber },
		});
		const page = extract(response);
		checkRepeat(page, response.status);
		appendAll(records, keepNew(page));
		if (limit !== undefined && records.length >= limit) return records.slice(0, limit);
		// An empty page with a next link would loop forever on a faulty server: stop there.
		const last = !(response.body as PbxList | undefined)?.nextPage || page.length === 0;
		// Return All: past the cap, or at it with more to come, is an error rather than one more request.
		if (
			limit === undefined &&
			(records.length > MAX_RETURN_ALL_RECORDS ||
				(!last && records.length >= MAX_RETURN_ALL_RECORDS))
		) {
			throw capError(scope, pageNumber);
		}
		if (last) return records;
	}
}

/** `start`/`limit` offsets, sent where the request keeps its other parameters. */
async function offsetPages(
	client: ApiClient,
	request: ApiRequest,
	limit: number | undefined,
	extract: RecordExtractor,
	scope?: PagingScope,
): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	const inBody = request.method !== 'GET';
	let start = Number(
		(inBody ? (request.body as IDataObject | undefined)?.start : request.qs?.start) ?? 0,
	);
	// Return All asks for one record past the cap at most: a list of exactly the cap ends with an empty answer.
	const wanted = limit ?? MAX_RETURN_ALL_RECORDS + 1;
	const checkRepeat = repeatGuard(scope, 'start');
	for (let requests = 1; ; requests++) {
		const size = Math.min(OFFSET_PAGE_SIZE, wanted - records.length);
		const window = { start, limit: size };
		const response: ApiResponse = await client.request(
			inBody
				? { ...request, body: { ...(request.body as IDataObject), ...window } }
				: { ...request, qs: { ...request.qs, ...window } },
		);
		const page = extract(response);
		checkRepeat(page, response.status);
		appendAll(records, page);
		if (limit === undefined && records.length > MAX_RETURN_ALL_RECORDS)
			throw capError(scope, requests);
		if (page.length < size || records.length >= wanted)
			return limit === undefined ? records : records.slice(0, limit);
		start += page.length;
	}
}

export async function collectList(
	client: ApiClient,
	paging: Paging,
	request: ApiRequest,
	limit: number | undefined,
	extract?: RecordExtractor,
	scope?: PagingScope,
): Promise<IDataObject[]> {
	if (paging === 'pbx')
		return await pbxPages(
			client,
			request,
			limit,
			extract ?? ((r) => (r.body as PbxList)?.items ?? []),
			scope,
		);
	const fromBody = extract ?? ((r: ApiResponse) => recordsOf(r.body));
	if (paging === 'offset') return await offsetPages(client, request, limit, fromBody, scope);
	const all = fromBody(await client.request(request));
	return limit === undefined ? all : all.slice(0, limit);
}
