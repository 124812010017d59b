import type { IDataObject } from 'n8n-workflow';

import { createdAt } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/records';
import { recordsAfter } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/trigger/history';
import { MAX_RETURN_ALL_RECORDS } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/pagination';
import { scripted } from '../../harness/scriptedClient';

/** A call history of `total` calls a second apart, ending a day ago, filtered and paged as the spec says. */
function history(total: number) {
	const first = Date.now() - 86_400_000 - total * 1000;
	// A call is made only when a page serves it.
	const call = (index: number) => ({ id: String(index + 1), created: new Date(first + index * 1000).toISOString() });
	/** Index of the first call created after `time` (or at it, when `inclusive`). */
	const firstAfter = (time: number, inclusive = false) => {
		let low = 0;
		let high = total;
		while (low < high) {
			const middle = (low + high) >> 1;
			const at = first + middle * 1000;
			if (at > time || (inclusive && at === time)) high = middle;
			else low = middle + 1;
		}
		return low;
	};
	const { client, requests } = scripted((req) => {
		const qs = req.qs as IDataObject;
		const from = firstAfter(Date.parse(String(qs.createdAfter)));
		const to = qs.createdBefore === undefined ? total : firstAfter(Date.parse(String(qs.createdBefore)), true);
		const size = Number(qs.pageSize);
		const start = from + (Number(qs.page) - 1) * size;
		const items = Array.from({ length: Math.max(0, Math.min(start + size, to) - start) }, (_v, i) => call(start + i));
		return { items, nextPage: start + size < to ? 'https://pbx.test/next' : undefined };
	}, 10_000);
	return { client, requests, first };
}

test('a catch-up of more calls than Return All collects reads the oldest part first, and the next poll the rest: every call once', async () => {
	const total = MAX_RETURN_ALL_RECORDS + 50_000;
	const { client, first } = history(total);
	const source = { collection: 'calls' as const, query: { direction: 'in' }, matches: () => true };
	const floor = first - 1000;
	const part = await recordsAfter(client, 'me', source, floor);
	expect(part.length).toBeGreaterThan(0);
	expect(part.length).toBeLessThanOrEqual(MAX_RETURN_ALL_RECORDS);
	const newest = part.reduce((latest, call) => Math.max(latest, createdAt(call)), floor);
	const rest = await recordsAfter(client, 'me', source, newest);
	const ids = [...part, ...rest].map((call) => Number(call.id));
	expect(ids).toHaveLength(total);
	expect(new Set(ids).size).toBe(total);
});

/**
 * The same ids, in any order. Tens of thousands of them: compared as sorted lists by hand, and only
 * the first difference shown (Jest's deep equality took seconds on them).
 */
function expectSameIds(actual: unknown[], expected: string[]): void {
	const got = actual.map(String).sort();
	const want = [...expected].sort();
	const at = got.findIndex((id, index) => id !== want[index]);
	const first = at >= 0 ? at : got.length === want.length ? -1 : Math.min(got.length, want.length);
	expect(first < 0 ? 'the same ids' : { count: [got.length, want.length], firstDifference: { at: first, got: got[first], want: want[first] } }).toBe('the same ids');
}

/**
 * An SMS list as the spec pages it (no date filter, `totalItems`), newest first or oldest first:
 * `older` messages at or before `floor`, then `newer` ones after it. `arriving` new messages are
 * added at the newest end before each request after the first.
 */
function smsHistory(options: { older: number; newer: number; newestFirst: boolean; arriving?: number; maxPageSize?: number; uncounted?: boolean }) {
	const floor = Date.now() - 86_400_000;
	// Each message's creation time, oldest first (its id is its place, from 1); a message is made
	// only when a page serves it: a million arrive in one test, a small part of them is read.
	const created: number[] = [];
	const message = (index: number): IDataObject => ({ id: String(index + 1), created: new Date(created[index]).toISOString() });
	for (let i = options.older; i > 0; i--) created.push(floor - i * 10);
	for (let i = 1; i <= options.newer; i++) created.push(floor + i * 10);
	let newest = floor + options.newer * 10;
	const { client, requests } = scripted((req, count) => {
		for (let i = 0; count > 1 && i < (options.arriving ?? 0); i++) created.push((newest += 10));
		const qs = req.qs as IDataObject;
		const size = Math.min(Number(qs.pageSize), options.maxPageSize ?? 200);
		const start = (Number(qs.page) - 1) * size;
		// The page of the list in the server's order.
		const total = created.length;
		const items = Array.from({ length: Math.max(0, Math.min(start + size, total) - start) }, (_v, i) => message(options.newestFirst ? total - 1 - start - i : start + i));
		// Without a count, the next page is known only from its link (present only if it exists).
		if (options.uncounted) return { pageSize: size, page: Number(qs.page), items, ...(start + size < total && { nextPage: 'https://pbx.test/next' }) };
		return { totalItems: total, pageSize: size, page: Number(qs.page), items };
	}, 5_000);
	const newerIds = () => created.flatMap((time, index) => (time > floor ? [String(index + 1)] : []));
	return { client, requests, floor, newerIds };
}

describe('the SMS list (no date filter)', () => {
	const sms = { collection: 'sms' as const, query: {}, matches: () => true };
	const newest = (records: IDataObject[], floor: number) => records.reduce((latest, r) => Math.max(latest, createdAt(r)), floor);

	test.each([true, false])('more new messages than Return All collects (newest first: %s): the oldest part first, the next poll the rest, each once', async (newestFirst) => {
		const { client, requests, floor, newerIds } = smsHistory({ older: 1_000, newer: MAX_RETURN_ALL_RECORDS + 30_000, newestFirst });
		const part = await recordsAfter(client, 'me', sms, floor);
		expect(part.length).toBeGreaterThan(MAX_RETURN_ALL_RECORDS * 0.9);
		expect(part.length).toBeLessThanOrEqual(MAX_RETURN_ALL_RECORDS);
		// The oldest part: every message from the floor up to the newest one read.
		const upTo = newest(part, floor);
		expectSameIds(part.map((m) => m.id), newerIds().filter((id) => Number(id) <= 1_000 + (upTo - floor) / 10));
		expect(requests.length).toBeLessThan(4 + 20 + MAX_RETURN_ALL_RECORDS / 200);
		const rest = await recordsAfter(client, 'me', sms, upTo);
		const ids = [...part, ...rest].map((m) => m.id);
		expect(new Set(ids).size).toBe(ids.length);
		expectSameIds(ids, newerIds());
	});

	test('messages that arrive while the pages are read are never skipped, and one read twice is kept once', async () => {
		for (const newer of [1_500, MAX_RETURN_ALL_RECORDS + 2_000]) {
			const { client, floor, newerIds } = smsHistory({ older: 300, newer, newestFirst: true, arriving: 3 });
			const part = await recordsAfter(client, 'me', sms, floor);
			const ids = part.map((m) => m.id);
			expect(new Set(ids).size).toBe(ids.length);
			const upTo = newest(part, floor);
			// Every message from the floor to the newest one read, whatever arrived in between.
			expectSameIds(ids, newerIds().filter((id) => Number(id) <= 300 + (upTo - floor) / 10));
		}
	});

	test.each([true, false])('a server with smaller pages, which says so in pageSize (newest first: %s): every new message, once', async (newestFirst) => {
		const { client, floor, newerIds } = smsHistory({ older: 700, newer: 1_234, newestFirst, maxPageSize: 50 });
		const ids = (await recordsAfter(client, 'me', sms, floor)).map((m) => m.id);
		expect(new Set(ids).size).toBe(ids.length);
		expectSameIds(ids, newerIds());
	});

	test.each([true, false])('a server that gives no totalItems, only nextPage links (newest first: %s): every new message, once, in a few requests', async (newestFirst) => {
		for (const newer of [150, 1_234, 33_333]) {
			const { client, requests, floor, newerIds } = smsHistory({ older: 700, newer, newestFirst, uncounted: true });
			const ids = (await recordsAfter(client, 'me', sms, floor)).map((m) => m.id);
			expect(new Set(ids).size).toBe(ids.length);
			expectSameIds(ids, newerIds());
			// Finding the last page costs about twice its log2 in requests, on top of what a count saves.
			const counted = smsHistory({ older: 700, newer, newestFirst });
			await recordsAfter(counted.client, 'me', sms, counted.floor);
			const pages = Math.ceil((700 + newer) / 200);
			expect(requests.length).toBeLessThanOrEqual(counted.requests.length + 2 * Math.ceil(Math.log2(pages)));
		}
	});

	test('messages without an id or uri are each kept, not taken for one another', async () => {
		const floor = Date.now() - 60_000;
		const items = Array.from({ length: 3 }, (_v, i) => ({ type: 'smsmessage', created: new Date(floor + (i + 1) * 1000).toISOString(), body: `text ${i}` }));
		const { client } = scripted(() => ({ totalItems: 3, pageSize: 200, page: 1, items }));
		expect((await recordsAfter(client, 'me', sms, floor)).map((m) => m.body)).toEqual(['text 0', 'text 1', 'text 2']);
	});

	test('a few new messages cost the pages that hold them, as before', async () => {
		const { client, requests, floor } = smsHistory({ older: 5_000, newer: 450, newestFirst: true });
		expect(await recordsAfter(client, 'me', sms, floor)).toHaveLength(450);
		expect(requests).toHaveLength(3);
	});
});

describe('the SMS list against a server that lies about its size', () => {
	const sms = { collection: 'sms' as const, query: {}, matches: () => true };
	/** Newest first, every page a full page of messages newer than any floor. */
	const endless = (totalItems: unknown) =>
		scripted((req) => {
			const page = Number((req.qs as IDataObject).page);
			const items = Array.from({ length: 200 }, (_v, i) => ({ id: `${page}-${i}`, created: new Date(Date.now() - (page * 200 + i) * 10).toISOString() }));
			return { totalItems, items };
		}, 2_000);

	test('a huge totalItems costs the halving’s requests and at most Return All’s cap: no endless paging, no RangeError', async () => {
		const { client, requests } = endless(1e15);
		const records = await recordsAfter(client, 'me', sms, Date.now() - 86_400_000);
		expect(records.length).toBeLessThanOrEqual(MAX_RETURN_ALL_RECORDS);
		expect(requests.length).toBeLessThanOrEqual(4 + 45 + MAX_RETURN_ALL_RECORDS / 200);
	});

	test('pages that never reach back to the floor end in a clear error, within the cap', async () => {
		// Every page claims messages newer than the floor, and the list keeps growing: 2,000 a request.
		const { client, requests, floor } = smsHistory({ older: 0, newer: MAX_RETURN_ALL_RECORDS + 20_000, newestFirst: true, arriving: 2_000 });
		await expect(recordsAfter(client, 'me', sms, floor - 1)).rejects.toThrow(/^Reading the SMS history back to .* did not reach it within 500 pages: messages arrived faster than they could be read/);
		expect(requests.length).toBeLessThanOrEqual(4 + 20 + MAX_RETURN_ALL_RECORDS / 200);
	});

	test('a totalItems that is not a count is ignored: the first page is the list', async () => {
		for (const totalItems of ['many', -5, null, { n: 1 }]) {
			const { client, requests } = endless(totalItems);
			expect(await recordsAfter(client, 'me', sms, 0)).toHaveLength(200);
			expect(requests).toHaveLength(1);
		}
	});
});
