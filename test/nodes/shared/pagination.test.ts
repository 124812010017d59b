import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ApiClient, ApiRequest } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import {
	MAX_RETURN_ALL_RECORDS,
	OFFSET_PAGE_SIZE,
	PBX_MAX_PAGE_SIZE,
	collectList,
	recordsOf,
} from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/pagination';
import { scripted } from '../../harness/scriptedClient';

/** Requests needed for N records at the given page size. */
const pagesNeeded = (records: number, pageSize: number) => Math.max(1, Math.ceil(records / pageSize));

const NODE: INode = { id: 'n', name: 'Node', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} };


async function failureOf(promise: Promise<unknown>) {
	try {
		await promise;
	} catch (error) {
		return error as NodeOperationError;
	}
	throw new Error('expected a failure');
}

/** A fake PBX list of `total` records that pages the way the spec says, recording each request. */
function pbxList(total: number) {
	const requests: ApiRequest[] = [];
	const client: ApiClient = {
		stream: async () => {
			throw new Error('no streams in paging');
		},
		environment: async () => ({ absoluteUrl: (p) => `https://pbx.test${p}`, variables: {}, redact: (text) => text }),
		request: async <T>(req: ApiRequest) => {
			requests.push(req);
			const query = req.url ? Object.fromEntries(new URL(req.url).searchParams) : (req.qs as IDataObject);
			const pageSize = Math.min(PBX_MAX_PAGE_SIZE, Number(query.pageSize ?? 20));
			const page = Number(query.page ?? 1);
			const first = (page - 1) * pageSize;
			const items = Array.from({ length: Math.max(0, Math.min(pageSize, total - first)) }, (_v, i) => ({ n: first + i + 1 }));
			const nextPage = page * pageSize < total ? `https://pbx.test/list?pageSize=${pageSize}&page=${page + 1}` : undefined;
			return { status: 200, headers: {}, body: { totalItems: total, pageSize, page, items, ...(nextPage ? { nextPage } : {}) } as T };
		},
	};
	return { client, requests };
}

const LIST: ApiRequest = { method: 'GET', path: '/customers/me/phonebook' };

describe('Hosted PBX paging', () => {
	test.each([
		[0, 1],
		[1, 1],
		[200, 1],
		[201, 2],
		[450, 3],
		[10_000, 50],
	])('Return All over %i records costs %i requests of pageSize 200', async (total, requestCount) => {
		const { client, requests } = pbxList(total);
		const records = await collectList(client, 'pbx', LIST, undefined);
		expect(records).toHaveLength(total);
		expect(records.at(-1)).toEqual(total ? { n: total } : undefined);
		expect(requests).toHaveLength(requestCount);
		expect(requests[0].qs).toEqual({ pageSize: 200, page: 1 });
		expect(requestCount).toBe(pagesNeeded(total, PBX_MAX_PAGE_SIZE));
	});

	test('Limit asks for pageSize=limit and stops at once', async () => {
		const { client, requests } = pbxList(1000);
		expect(await collectList(client, 'pbx', LIST, 5)).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
		expect(requests).toHaveLength(1);
		expect(requests[0].qs).toEqual({ pageSize: 5, page: 1 });
	});

	test('a Limit above 200 pages at 200 and stops when it has enough', async () => {
		const { client, requests } = pbxList(1000);
		const records = await collectList(client, 'pbx', LIST, 250);
		expect(records).toHaveLength(250);
		expect(requests).toHaveLength(2);
		expect(requests[1]).toMatchObject({ path: '/customers/me/phonebook', qs: { pageSize: 200, page: 2 } });
		expect(requests[1].url).toBeUndefined();
	});

	test('the next page keeps the request\'s own filters: the real API\'s nextPage link drops them, and is not followed', async () => {
		const { client, requests } = pbxList(450);
		const filtered: ApiRequest = { method: 'GET', path: '/customers/me/calls', qs: { createdAfter: '2014-03-10T13:30:00Z' } };
		expect(await collectList(client, 'pbx', filtered, undefined)).toHaveLength(450);
		expect(requests.map((r) => [r.url, r.qs])).toEqual([1, 2, 3].map((page) => [undefined, { createdAfter: '2014-03-10T13:30:00Z', pageSize: 200, page }]));
	});

	test('a Limit above the total ends where nextPage is absent', async () => {
		const { client, requests } = pbxList(30);
		expect(await collectList(client, 'pbx', LIST, 100)).toHaveLength(30);
		expect(requests).toHaveLength(1);
	});

	test('an empty page with a next link stops instead of looping', async () => {
		const { client, requests } = scripted(() => ({ items: [], nextPage: 'https://pbx.test/again' }));
		expect(await collectList(client, 'pbx', LIST, undefined)).toEqual([]);
		expect(requests).toHaveLength(1);
	});

	test('Return All against a server that always answers a full page with nextPage stops at the cap with an error, after 500 requests', async () => {
		const { client, requests } = scripted((req) => {
			const page = Number(req.qs?.page);
			return { items: Array.from({ length: PBX_MAX_PAGE_SIZE }, (_v, i) => ({ n: (page - 1) * PBX_MAX_PAGE_SIZE + i })), nextPage: `https://pbx.test/list?page=${page + 1}` };
		});
		const error = await failureOf(collectList(client, 'pbx', LIST, undefined, undefined, { node: NODE, itemIndex: 0 }));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/^Return All: the list has more than 100,000 records/);
		expect(error.description).toMatch(/at most 100,000 records/);
		expect(error.description).toMatch(/set a Limit, or narrow the date range or filters/);
		expect(error.context.field).toBe('Return All');
		expect(requests).toHaveLength(MAX_RETURN_ALL_RECORDS / PBX_MAX_PAGE_SIZE);
	});

	test('a PBX list of exactly the cap is returned whole', async () => {
		const { client, requests } = pbxList(MAX_RETURN_ALL_RECORDS);
		expect(await collectList(client, 'pbx', LIST, undefined)).toHaveLength(MAX_RETURN_ALL_RECORDS);
		expect(requests).toHaveLength(MAX_RETURN_ALL_RECORDS / PBX_MAX_PAGE_SIZE);
	});

	test('a PBX server that ignores page stops after the repeated page with a clear error: 2 requests', async () => {
		const { client, requests } = scripted(() => ({ items: Array.from({ length: PBX_MAX_PAGE_SIZE }, (_v, n) => ({ n })), nextPage: 'https://pbx.test/list?page=2' }));
		const error = await failureOf(collectList(client, 'pbx', LIST, undefined, undefined, { node: NODE }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/^The API answered the same page again: request 2 brought the same 200 records as request 1, so it ignores `page`/);
		expect(error.description).toMatch(/Nothing more was requested/);
		expect(requests).toHaveLength(2);
	});

	/** A list ordered newest first, as SMS and call lists are, where `arriving` records are created before each page after the first. */
	function newestFirst(total: number, arriving: number) {
		let created = total;
		const requests: IDataObject[] = [];
		const record = (n: number) => ({ uri: `https://pbx.test/api/v1/customers/1/sms/${n}`, body: `message ${n}` });
		const { client } = scripted((req) => {
			const { page, pageSize } = req.qs as { page: number; pageSize: number };
			if (page > 1) created += arriving;
			requests.push({ page, created });
			const first = created - (page - 1) * pageSize;
			const items = Array.from({ length: Math.max(0, Math.min(pageSize, first)) }, (_v, i) => record(first - i));
			return { totalItems: created, pageSize, page, items, ...(page * pageSize < created ? { nextPage: 'https://pbx.test/next' } : {}) };
		});
		return { client, requests };
	}

	test('records created while a newest-first list is paged push read ones onto the next page: each is returned once', async () => {
		const { client, requests } = newestFirst(1000, 7);
		const records = await collectList(client, 'pbx', LIST, undefined);
		const numbers = records.map((r) => Number(String(r.uri).split('/').pop()));
		expect(new Set(numbers).size).toBe(numbers.length);
		expect(numbers).toEqual(Array.from({ length: 1000 }, (_v, i) => 1000 - i));
		// The list grew by 35 while it was read: a sixth page holds the last of the original thousand.
		expect(requests).toHaveLength(6);
	});

	test('a Limit counts each record once too', async () => {
		const { client } = newestFirst(1000, 50);
		const records = await collectList(client, 'pbx', LIST, 450);
		const numbers = records.map((r) => Number(String(r.uri).split('/').pop()));
		expect(numbers).toEqual(Array.from({ length: 450 }, (_v, i) => 1000 - i));
	});

	test('records are told apart by uri, else id; records with neither are kept as they come', async () => {
		const pages = [
			[{ id: 1 }, { id: '2' }, { name: 'no identity' }, { uri: 'https://pbx.test/a', id: 9 }],
			[{ id: 1 }, { id: 2 }, { name: 'no identity' }, { uri: 'https://pbx.test/b', id: 9 }, { id: '' }, { id: '' }],
		];
		const { client } = scripted((req) => {
			const page = (req.qs as { page: number }).page;
			return { items: pages[page - 1], ...(page < pages.length ? { nextPage: 'https://pbx.test/next' } : {}) };
		});
		expect(await collectList(client, 'pbx', LIST, undefined)).toEqual([
			{ id: 1 },
			{ id: '2' },
			{ name: 'no identity' },
			{ uri: 'https://pbx.test/a', id: 9 },
			{ name: 'no identity' },
			{ uri: 'https://pbx.test/b', id: 9 },
			{ id: '' },
			{ id: '' },
		]);
	});

	test('a page of 250,000 records is collected without overflowing the call stack', async () => {
		const items = Array.from({ length: 250_000 }, (_v, n) => ({ n }));
		const { client } = scripted(() => ({ items }));
		const records = await collectList(client, 'pbx', LIST, 250_000);
		expect(records).toHaveLength(250_000);
		expect(records.at(-1)).toEqual({ n: 249_999 });
	});
});

describe('offset paging', () => {
	function offsetList(total: number) {
		return scripted((req) => {
			const window = (req.method === 'GET' ? req.qs : req.body) as IDataObject;
			const start = Number(window.start);
			const limit = Number(window.limit);
			return { success: true, data: Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_v, i) => ({ row: start + i })) };
		});
	}

	test('Return All walks start/limit in the body of a POST until a short page', async () => {
		const { client, requests } = offsetList(1200);
		const rows = await collectList(client, 'offset', { method: 'POST', path: '/v3/voice/{ACCOUNT}/cdr', body: { filter: { trunk: 'x' } } }, undefined);
		expect(rows).toHaveLength(1200);
		expect(requests.map((r) => r.body)).toEqual([
			{ filter: { trunk: 'x' }, start: 0, limit: 500 },
			{ filter: { trunk: 'x' }, start: 500, limit: 500 },
			{ filter: { trunk: 'x' }, start: 1000, limit: 500 },
		]);
	});

	test('Limit asks for no more than it needs, in the query of a GET', async () => {
		const { client, requests } = offsetList(1200);
		expect(await collectList(client, 'offset', { method: 'GET', path: '/cdr' }, 30)).toHaveLength(30);
		expect(requests.map((r) => r.qs)).toEqual([{ start: 0, limit: 30 }]);
	});

	test('a server that ignores start stops after the repeated page with a clear error: 2 requests', async () => {
		const { client, requests } = scripted(() => ({ success: true, data: Array.from({ length: OFFSET_PAGE_SIZE }, (_v, row) => ({ row })) }));
		const error = await failureOf(collectList(client, 'offset', { method: 'POST', path: '/cdr', body: {} }, undefined, undefined, { node: NODE, itemIndex: 3 }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/^The API answered the same page again: request 2 brought the same 500 records as request 1, so it ignores `start`; paging stopped/);
		expect(error.description).toMatch(/Turn off Return All and set a Limit/);
		expect(error.context.itemIndex).toBe(3);
		expect(requests).toHaveLength(2);
	});

	test('without a node to name, the repeated page is still an error with its description', async () => {
		const { client, requests } = scripted(() => ({ data: Array.from({ length: OFFSET_PAGE_SIZE }, (_v, row) => ({ row })) }));
		const error = await failureOf(collectList(client, 'offset', { method: 'GET', path: '/cdr' }, undefined));
		expect(error.message).toMatch(/same page again/);
		expect(error.description).toMatch(/Nothing more was requested/);
		expect(requests).toHaveLength(2);
	});

	test('Return All over a server that never answers a short page stops at the cap: 201 requests, the last asking for one record', async () => {
		const { client, requests } = scripted((req) => {
			const { start, limit } = req.body as { start: number; limit: number };
			return { success: true, data: Array.from({ length: limit }, (_v, i) => ({ row: start + i })) };
		});
		const error = await failureOf(collectList(client, 'offset', { method: 'POST', path: '/cdr', body: {} }, undefined, undefined, { node: NODE }));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/more than 100,000 records, so paging stopped after 201 requests/);
		expect(requests).toHaveLength(MAX_RETURN_ALL_RECORDS / OFFSET_PAGE_SIZE + 1);
		expect(requests.at(-1)?.body).toEqual({ start: MAX_RETURN_ALL_RECORDS, limit: 1 });
	});

	test('a list of exactly the cap is returned whole', async () => {
		const { client, requests } = offsetList(MAX_RETURN_ALL_RECORDS);
		expect(await collectList(client, 'offset', { method: 'GET', path: '/cdr' }, undefined)).toHaveLength(MAX_RETURN_ALL_RECORDS);
		expect(requests).toHaveLength(MAX_RETURN_ALL_RECORDS / OFFSET_PAGE_SIZE + 1);
	});

	test('a page of 250,000 records from a server that ignores limit is collected without overflowing the call stack', async () => {
		const rows = Array.from({ length: 250_000 }, (_v, row) => ({ row }));
		const { client, requests } = scripted((req) => ({ data: Number(req.qs?.start) === 0 ? rows : [] }));
		expect(await collectList(client, 'offset', { method: 'GET', path: '/cdr' }, 300_000)).toHaveLength(250_000);
		expect(requests).toHaveLength(2);
	});
});

test('client-side Limit slices a whole list', async () => {
	const { client } = scripted(() => [1, 2, 3, 4].map((n) => ({ n })));
	expect(await collectList(client, 'client', LIST, 2)).toEqual([{ n: 1 }, { n: 2 }]);
	expect(await collectList(client, 'client', LIST, undefined)).toHaveLength(4);
});

describe('records of a list answer', () => {
	test.each([
		['a bare array', [{ a: 1 }]],
		['{data: [...]}', { success: true, data: [{ a: 1 }] }],
		['{items: [...]}', { items: [{ a: 1 }] }],
		['{data: {cdrs: [...]}}', { success: true, data: { cdrs: [{ a: 1 }], total: 1 } }],
		['the only array of an object', { total: 1, calls: [{ a: 1 }] }],
	])('%s', (_name, body) => {
		expect(recordsOf(body)).toEqual([{ a: 1 }]);
	});

	test('no list found gives no records', () => {
		expect(recordsOf({ a: [1], b: [2] })).toEqual([]);
		expect(recordsOf('text')).toEqual([]);
	});
});
