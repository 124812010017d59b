import { MAX_TIMER_MS, Watchdog, deadline, useClock, wait } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/timers';
import { fakeClockForFile } from '../../harness/clock';

const time = fakeClockForFile();

describe("on the package's clock", () => {
	test('the watchdog fires once, only after silence', async () => {
		let fired = 0;
		const watchdog = new Watchdog(50_000, () => fired++);
		watchdog.alive();
		for (let i = 0; i < 5; i++) {
			await time.clock.advance(20_000);
			watchdog.alive();
		}
		expect(fired).toBe(0);
		await time.clock.advance(60_000);
		expect(fired).toBe(1);
		watchdog.alive();
		await time.clock.advance(60_000);
		expect(fired).toBe(1);
	});

	test('a stopped watchdog never fires, and leaves no timer behind', async () => {
		let fired = 0;
		const watchdog = new Watchdog(30_000, () => fired++);
		watchdog.alive();
		watchdog.stop();
		await time.clock.advance(100_000);
		expect([fired, time.clock.pending]).toEqual([0, 0]);
	});

	test('an aborted wait ends at once, not at its end', async () => {
		const abort = new AbortController();
		let done = false;
		const pause = wait(60_000, abort.signal).then(() => (done = true));
		await time.clock.advance(1000);
		expect(done).toBe(false);
		abort.abort();
		await pause;
		expect(time.clock.pending).toBe(0);
	});

	test('a wait without a signal waits its time', async () => {
		let done = false;
		const pause = wait(50_000).then(() => (done = true));
		await time.clock.advance(49_999);
		expect(done).toBe(false);
		await time.clock.advance(1);
		await pause;
	});

	test('a watchdog refuses a window that is no positive, finite number (NaN made its checks spin without sleeping)', () => {
		for (const windowMs of [NaN, 0, -5, Infinity]) expect(() => new Watchdog(windowMs, () => undefined)).toThrow(RangeError);
	});
});

describe('in real time', () => {
	test('a deadline aborts with its reason unless done first (request timeouts bound I/O, which runs in real time)', async () => {
		const late = deadline(1, () => new Error('too late'));
		await new Promise((resolve) => late.signal.addEventListener('abort', resolve));
		expect((late.signal.reason as Error).message).toBe('too late');
		const early = deadline(1, () => new Error('too late'));
		early.done();
		// A later deadline has fired: the one done first never will.
		const after = deadline(20, () => new Error('later'));
		await new Promise((resolve) => after.signal.addEventListener('abort', resolve));
		expect(early.signal.aborted).toBe(false);
	});

	test('a wait longer than a Node.js timer holds is never one timer (it would fire after 1 ms)', () => {
		const delays: number[] = [];
		const spy = jest.spyOn(global, 'setTimeout').mockImplementation(((_callback: () => void, ms?: number) => {
			delays.push(Number(ms));
			return 0 as unknown as NodeJS.Timeout;
		}) as typeof setTimeout);
		useClock(undefined);
		try {
			void wait(MAX_TIMER_MS * 3);
			void wait(Number.MAX_SAFE_INTEGER);
		} finally {
			spy.mockRestore();
			useClock(time.clock);
		}
		expect(delays).toHaveLength(2);
		for (const ms of delays) expect(ms).toBeLessThanOrEqual(MAX_TIMER_MS);
	});
});
