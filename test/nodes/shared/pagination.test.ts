import type { IDataObject } from 'n8n-workflow';

import type { ApiClient, ApiRequest } from '../../../nodes/shared/operation';
import { PBX_MAX_PAGE_SIZE, collectList, pagesNeeded, recordsOf } from '../../../nodes/shared/pagination';

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
			const items = Array.from({ length: total }, (_v, i) => ({ n: i + 1 })).slice((page - 1) * pageSize, page * pageSize);
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
		const requests: ApiRequest[] = [];
		const client: ApiClient = {
			stream: async () => {
				throw new Error('no streams in paging');
			},
			environment: async () => ({ absoluteUrl: (p) => p, variables: {}, redact: (text) => text }),
			request: async <T>(req: ApiRequest) => {
				requests.push(req);
				return { status: 200, headers: {}, body: { items: [], nextPage: 'https://pbx.test/again' } as T };
			},
		};
		expect(await collectList(client, 'pbx', LIST, undefined)).toEqual([]);
		expect(requests).toHaveLength(1);
	});
});

describe('offset paging', () => {
	function offsetList(total: number) {
		const requests: ApiRequest[] = [];
		const client: ApiClient = {
			stream: async () => {
				throw new Error('no streams in paging');
			},
			environment: async () => ({ absoluteUrl: (p) => p, variables: {}, redact: (text) => text }),
			request: async <T>(req: ApiRequest) => {
				requests.push(req);
				const window = (req.method === 'GET' ? req.qs : req.body) as IDataObject;
				const start = Number(window.start);
				const limit = Number(window.limit);
				const rows = Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_v, i) => ({ row: start + i }));
				return { status: 200, headers: {}, body: { success: true, data: rows } as T };
			},
		};
		return { client, requests };
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
});

test('client-side Limit slices a whole list', async () => {
	const client: ApiClient = {
		stream: async () => {
			throw new Error('no streams in paging');
		},
		environment: async () => ({ absoluteUrl: (p) => p, variables: {}, redact: (text) => text }),
		request: async <T>() => ({ status: 200, headers: {}, body: [1, 2, 3, 4].map((n) => ({ n })) as T }),
	};
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
