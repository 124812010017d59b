import type { IDataObject } from 'n8n-workflow';

import { createdAt, recordsAfter } from '../../../nodes/HostedPbx/polling';
import { MAX_RETURN_ALL_RECORDS } from '../../../nodes/shared/pagination';
import { scripted } from '../../harness/scriptedClient';

/** A call history of `total` calls a second apart, ending a day ago, filtered and paged as the spec says. */
function history(total: number) {
	const first = Date.now() - 86_400_000 - total * 1000;
	const calls = Array.from({ length: total }, (_v, i) => ({ id: String(i + 1), created: new Date(first + i * 1000).toISOString() }));
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
		return { items: calls.slice(start, Math.min(start + size, to)), nextPage: start + size < to ? 'https://pbx.test/next' : undefined };
	}, 10_000);
	return { calls, client, requests, first };
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

describe('the SMS list (no date filter) against a server that lies about its size', () => {
	const sms = { collection: 'sms' as const, query: {}, matches: () => true };
	/** Newest first, every page a full page of messages newer than any floor. */
	const endless = (totalItems: unknown) =>
		scripted((req) => {
			const page = Number((req.qs as IDataObject).page);
			const items = Array.from({ length: 200 }, (_v, i) => ({ id: `${page}-${i}`, created: new Date(Date.now() - (page * 200 + i) * 10).toISOString() }));
			return { totalItems, items };
		}, 2_000);

	test('a huge totalItems is paged up to Return All’s cap, then a clear error: no endless paging, no RangeError', async () => {
		const { client, requests } = endless(1e15);
		await expect(recordsAfter(client, 'me', sms, Date.now() - 86_400_000)).rejects.toThrow(/^The SMS history has more than 100,000 messages newer than .*, so reading it stopped after 500 requests$/);
		expect(requests).toHaveLength(MAX_RETURN_ALL_RECORDS / 200);
	});

	test('a totalItems that is not a count is ignored: the first page is the list', async () => {
		for (const totalItems of ['many', -5, null, { n: 1 }]) {
			const { client, requests } = endless(totalItems);
			expect(await recordsAfter(client, 'me', sms, 0)).toHaveLength(200);
			expect(requests).toHaveLength(1);
		}
	});
});
