import { Trigger, resetTriggers } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/triggers/lifecycle';
import { RecentIds, forgetUnlessAcknowledged } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/triggers/recentIds';
import { fakeClockForFile } from '../../harness/clock';

const time = fakeClockForFile();
beforeEach(() => resetTriggers());

describe('recent ids', () => {
	test('a key is new once within the window, and new again after it', () => {
		const ids = new RecentIds(100, 1000);
		expect(ids.firstSeen('a', 0)).toBe(true);
		expect(ids.firstSeen('a', 500)).toBe(false);
		expect(ids.firstSeen('a', 999)).toBe(false);
		expect(ids.firstSeen('a', 1000)).toBe(true);
	});

	test('bounded: the oldest are forgotten first, expired ones are dropped as new ones come', () => {
		const ids = new RecentIds(3, 60_000);
		for (const key of ['a', 'b', 'c', 'd']) expect(ids.firstSeen(key, 0)).toBe(true);
		expect(ids.size).toBe(3);
		expect(ids.firstSeen('b', 1)).toBe(false);
		expect(ids.firstSeen('a', 1)).toBe(true);
		const shortLived = new RecentIds(1000, 10);
		for (let i = 0; i < 500; i++) shortLived.firstSeen(`k${i}`, i);
		expect(shortLived.size).toBeLessThanOrEqual(11);
	});

	test('a million keys stay within the bound', () => {
		const ids = new RecentIds(10_000, 86_400_000);
		for (let i = 0; i < 1_000_000; i++) ids.firstSeen(`call_inbound\n${i.toString(16)}`, i);
		expect(ids.size).toBe(10_000);
		expect(ids.firstSeen(`call_inbound\n${(999_999).toString(16)}`, 1_000_001)).toBe(false);
		expect(ids.firstSeen('call_inbound\n0', 1_000_001)).toBe(true);
	});

	test('a shortened window: what it expires is forgotten, and the bookkeeping stays as small as the memory', () => {
		const ids = new RecentIds(10, 1_000_000);
		expect(ids.firstSeen('old', 0)).toBe(true);
		ids.configure(10, 10);
		for (let now = 1; now < 100_000; now++) ids.firstSeen(`k${now % 5}`, now);
		expect(ids.size).toBeLessThanOrEqual(6);
		expect(ids.firstSeen('k1', 100_000)).toBe(false);
		expect((ids as unknown as { order: unknown[] }).order.length).toBeLessThan(2_100);
		expect(ids.firstSeen('old', 1_000_001)).toBe(true);
	});

	test('long ids are kept as their hash: a repeat is still found, ids that differ only at the end stay apart, and the memory stays small', () => {
		const ids = new RecentIds(1000, 60_000);
		// Ten thousand characters, far past the 128 kept as they are (a megabyte each made the test hash a gigabyte).
		const long = (tail: number) => `${'x'.repeat(10_000)}${tail}`;
		for (let i = 0; i < 1000; i++) expect(ids.firstSeen(long(i), 0)).toBe(true);
		expect(ids.firstSeen(long(999), 1)).toBe(false);
		expect(ids.firstSeen(long(1000), 1)).toBe(true);
		// 1,000 such ids would hold 10 MB if kept as they came (a megabyte each, a gigabyte).
		const kept = [...(ids as unknown as { seen: Map<string, number> }).seen.keys()];
		expect(kept).toHaveLength(1000);
		expect(Math.max(...kept.map((key) => key.length))).toBeLessThanOrEqual(129);
		// A short id that looks like a kept hash is not taken for one.
		expect(ids.firstSeen(`h${'A'.repeat(43)}=`, 2)).toBe(true);
	});

	test('ids are given back when n8n answers anything but a 2xx (no run), kept on a 2xx (the run exists); the first answer decides', () => {
		const answered = (status: number, ids: RecentIds, keys: string[]) => {
			const heads: number[] = [];
			const response = { writeHead: (code: number) => heads.push(code) };
			for (const key of keys) ids.firstSeen(key, 0);
			forgetUnlessAcknowledged(response, ids, keys);
			response.writeHead(status);
			response.writeHead(500);
			return heads;
		};
		const ids = new RecentIds(100, 60_000);
		expect(answered(200, ids, ['ok'])).toEqual([200, 500]);
		expect(answered(204, ids, ['no-content'])).toEqual([204, 500]);
		expect(answered(500, ids, ['failed-1', 'failed-2'])).toEqual([500, 500]);
		expect(answered(503, ids, ['busy'])).toEqual([503, 500]);
		expect(['ok', 'no-content', 'failed-1', 'failed-2', 'busy'].map((key) => ids.firstSeen(key, 1))).toEqual([false, false, true, true, true]);
	});

	test('one memory per trigger and scope; changed limits apply to it', () => {
		const a = new Trigger('wf|node').recentIds('trigger', 10, 1000);
		expect(new Trigger('wf|node').recentIds('trigger', 2, 1000)).toBe(a);
		expect(new Trigger('wf|node').recentIds('manual', 10, 1000)).not.toBe(a);
		expect(new Trigger('wf|other').recentIds('trigger', 10, 1000)).not.toBe(a);
		for (const key of ['x', 'y', 'z']) a.firstSeen(key);
		expect(a.size).toBe(2);
	});
});

describe('warnings', () => {
	test('one per trigger, kind and minute; the held-back ones are counted on the next', async () => {
		const trigger = new Trigger('wf|node');
		expect(trigger.warningDue('k')).toEqual({ write: true, held: 0 });
		await time.clock.advance(1000);
		expect(trigger.warningDue('k')).toEqual({ write: false, held: 1 });
		await time.clock.advance(1000);
		expect(trigger.warningDue('k')).toEqual({ write: false, held: 2 });
		expect(trigger.warningDue('other')).toEqual({ write: true, held: 0 });
		expect(new Trigger('wf|another node').warningDue('k')).toEqual({ write: true, held: 0 });
		await time.clock.advance(59_000);
		expect(trigger.warningDue('k')).toEqual({ write: true, held: 2 });
		await time.clock.advance(1000);
		expect(trigger.warningDue('k')).toEqual({ write: false, held: 1 });
	});
});
