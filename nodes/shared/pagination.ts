import type { IDataObject } from 'n8n-workflow';

import type { ApiClient, ApiRequest, ApiResponse, Paging } from './operation';

/** Largest page the Hosted PBX serves. */
export const PBX_MAX_PAGE_SIZE = 200;
/** Page size for offset paging (the wholesale inline CDR default). */
export const OFFSET_PAGE_SIZE = 500;

export type RecordExtractor = (response: ApiResponse) => IDataObject[];

interface PbxList {
	items?: IDataObject[];
	nextPage?: string;
}

const LIST_KEYS = ['data', 'items', 'records', 'results', 'rows', 'cdrs'];

/**
 * The records of a list answer: an array, or the array inside an envelope (`data`, `items`,
 * `records`, `results`, `rows`, `cdrs`, also one level down as in `{data: {cdrs: [...]}}`), or
 * the only array an object holds. Answers whose list is not found give no records.
 */
export function recordsOf(body: unknown, depth = 0): IDataObject[] {
	if (Array.isArray(body)) return body as IDataObject[];
	if (!body || typeof body !== 'object' || depth > 1) return [];
	const record = body as IDataObject;
	for (const key of LIST_KEYS) {
		if (Array.isArray(record[key])) return record[key] as IDataObject[];
	}
	if (record.data && typeof record.data === 'object') return recordsOf(record.data, depth + 1);
	const arrays = Object.values(record).filter(Array.isArray);
	return arrays.length === 1 ? (arrays[0] as IDataObject[]) : [];
}

/** Requests needed for N records at the given page size (for docs and benchmarks). */
export function pagesNeeded(records: number, pageSize: number): number {
	return Math.max(1, Math.ceil(records / pageSize));
}

/**
 * Pages the Hosted PBX list wrapper: `pageSize` is the limit (at most 200); while the answer has
 * a `nextPage` link, the next page is asked for with the request's own query and the next page
 * number. The link itself is not followed: the real API's link drops the request's filters
 * (`createdAfter`), so it would page through unfiltered records, and it names a host of its own.
 */
async function pbxPages(
	client: ApiClient,
	request: ApiRequest,
	limit: number | undefined,
	extract: RecordExtractor,
): Promise<IDataObject[]> {
	const pageSize = limit === undefined ? PBX_MAX_PAGE_SIZE : Math.min(limit, PBX_MAX_PAGE_SIZE);
	const records: IDataObject[] = [];
	for (let pageNumber = 1; ; pageNumber++) {
		const response: ApiResponse = await client.request({ ...request, qs: { ...request.qs, pageSize, page: pageNumber } });
		const page = extract(response);
		records.push(...page);
		if (limit !== undefined && records.length >= limit) return records.slice(0, limit);
		// An empty page with a next link would loop forever on a faulty server: stop there.
		if (!(response.body as PbxList | undefined)?.nextPage || page.length === 0) return records;
	}
}

/** `start`/`limit` offsets, sent where the request keeps its other parameters. */
async function offsetPages(
	client: ApiClient,
	request: ApiRequest,
	limit: number | undefined,
	extract: RecordExtractor,
): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	const inBody = request.method !== 'GET';
	let start = Number((inBody ? (request.body as IDataObject | undefined)?.start : request.qs?.start) ?? 0);
	for (;;) {
		const size = limit === undefined ? OFFSET_PAGE_SIZE : Math.min(OFFSET_PAGE_SIZE, limit - records.length);
		const window = { start, limit: size };
		const page = extract(
			await client.request(
				inBody
					? { ...request, body: { ...(request.body as IDataObject), ...window } }
					: { ...request, qs: { ...request.qs, ...window } },
			),
		);
		records.push(...page);
		if (page.length < size || (limit !== undefined && records.length >= limit)) {
			return limit === undefined ? records : records.slice(0, limit);
		}
		start += page.length;
	}
}

export async function collectList(
	client: ApiClient,
	paging: Paging,
	request: ApiRequest,
	limit: number | undefined,
	extract?: RecordExtractor,
): Promise<IDataObject[]> {
	if (paging === 'pbx') {
		return await pbxPages(client, request, limit, extract ?? ((r) => (r.body as PbxList)?.items ?? []));
	}
	const fromBody = extract ?? ((r: ApiResponse) => recordsOf(r.body));
	if (paging === 'offset') return await offsetPages(client, request, limit, fromBody);
	const all = fromBody(await client.request(request));
	return limit === undefined ? all : all.slice(0, limit);
}
