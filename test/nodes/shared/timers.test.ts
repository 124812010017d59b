import { MAX_TIMER_MS, WAIT_SLICE_MS, Watchdog, cancellableWait, deadline, wait } from '../../../nodes/shared/timers';

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

test('the watchdog fires once, only after silence', async () => {
	let fired = 0;
	const watchdog = new Watchdog(50, () => fired++);
	watchdog.alive();
	for (let i = 0; i < 5; i++) {
		await sleep(20);
		watchdog.alive();
	}
	expect(fired).toBe(0);
	await sleep(120);
	expect(fired).toBe(1);
	watchdog.alive();
	await sleep(120);
	expect(fired).toBe(1);
});

test('a stopped watchdog never fires', async () => {
	let fired = 0;
	const watchdog = new Watchdog(30, () => fired++);
	watchdog.alive();
	watchdog.stop();
	await sleep(100);
	expect(fired).toBe(0);
});

test('a cancelled wait ends within one slice, not at its end', async () => {
	const started = Date.now();
	const pause = cancellableWait(60_000);
	setTimeout(() => pause.cancel(), 20);
	await pause.promise;
	expect(Date.now() - started).toBeLessThan(WAIT_SLICE_MS + 500);
});

test('a wait without a signal waits its time', async () => {
	const started = Date.now();
	await wait(50);
	expect(Date.now() - started).toBeGreaterThanOrEqual(45);
});

test('a deadline aborts with its reason unless done first', async () => {
	const late = deadline(30, () => new Error('too late'));
	await sleep(80);
	expect(late.signal.aborted).toBe(true);
	expect((late.signal.reason as Error).message).toBe('too late');
	const early = deadline(30, () => new Error('too late'));
	early.done();
	await sleep(80);
	expect(early.signal.aborted).toBe(false);
});

test('a watchdog refuses a window that is no positive, finite number (NaN made its checks spin without sleeping)', () => {
	for (const windowMs of [NaN, 0, -5, Infinity]) {
		expect(() => new Watchdog(windowMs, () => undefined)).toThrow(RangeError);
	}
});

test('a wait longer than a Node.js timer holds is never one timer (it would fire after 1 ms)', () => {
	const delays: number[] = [];
	const spy = jest.spyOn(global, 'setTimeout').mockImplementation(((_callback: () => void, ms?: number) => {
		delays.push(Number(ms));
		return 0 as unknown as NodeJS.Timeout;
	}) as typeof setTimeout);
	try {
		void wait(MAX_TIMER_MS * 3);
		void wait(Number.MAX_SAFE_INTEGER);
	} finally {
		spy.mockRestore();
	}
	expect(delays).toHaveLength(2);
	for (const ms of delays) expect(ms).toBeLessThanOrEqual(MAX_TIMER_MS);
});
