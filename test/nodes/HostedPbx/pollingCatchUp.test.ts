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
