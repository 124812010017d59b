/**
 * Timers from n8n-workflow only (n8n Cloud forbids the timer globals). Where it has no `sleepWithAbort`
 * (2.x), an abortable wait sleeps in slices of a second, so an abort is noticed within one.
 */
import * as workflow from 'n8n-workflow';

const WAIT_SLICE_MS = 1000;

const sleepWithAbort = (
	workflow as unknown as { sleepWithAbort?: (ms: number, signal?: AbortSignal) => Promise<void> }
).sleepWithAbort;

/** The longest delay a Node.js timer keeps: a longer one fires after 1 ms instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Waits `ms`, or less if `signal` aborts. Never rejects. */
async function realWait(ms: number, signal?: AbortSignal): Promise<void> {
	if (signal?.aborted || !(ms > 0)) return;
	const end = Date.now() + ms;
	// Never one timer longer than MAX_TIMER_MS: Node.js would fire it at once (a wait of weeks would storm).
	for (let left = ms; left > 0 && !signal?.aborted; left = end - Date.now()) {
		const slice = Math.min(left, MAX_TIMER_MS);
		if (sleepWithAbort && signal) {
			try {
				await sleepWithAbort(slice, signal);
			} catch {
				return; // aborted: the wait is over
			}
		} else {
			await workflow.sleep(Math.min(slice, signal ? WAIT_SLICE_MS : slice));
		}
	}
}

/** Time as the package sees it: real by default; tests put a fake clock in its place (`useClock`). */
export interface Clock {
	now(): number;
	/** Resolves after `ms` of this clock, or when `signal` aborts. Never rejects. */
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: Clock = { now: () => Date.now(), sleep: realWait };
let current: Clock = realClock;

/** The clock every timer, watchdog and gate of the package reads. */
export const clock: Clock = {
	now: () => current.now(),
	sleep: async (ms, signal) => await current.sleep(ms, signal),
};

/** Puts a clock in place of real time (tests); `undefined` restores real time. */
export function useClock(replacement: Clock | undefined): void {
	current = replacement ?? realClock;
}

/** Waits `ms` on the package's clock, or less if `signal` aborts. Never rejects. */
export async function wait(ms: number, signal?: AbortSignal): Promise<void> {
	if (signal?.aborted || !(ms > 0)) return;
	await current.sleep(ms, signal);
}

/** Refuses a window that is not a positive, finite number of ms: with NaN a watchdog would spin, with 0 never fire. */
export function checkWindowMs(ms: number, what: string): number {
	if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
		throw new RangeError(
			`${what} must be a positive, finite number of milliseconds, not ${String(ms)}`,
		);
	}
	return ms;
}

/** Fires `onSilence` once nothing was heard for `windowMs`; `alive()` only notes the time (cheap per chunk). */
export class Watchdog {
	private lastSign = clock.now();
	private readonly stopped = new AbortController();
	private running = false;

	constructor(
		private readonly windowMs: number,
		private readonly onSilence: () => void,
	) {
		checkWindowMs(windowMs, 'A watchdog window');
	}

	alive(): void {
		this.lastSign = clock.now();
		if (this.running || this.stopped.signal.aborted) return;
		this.running = true;
		void this.watch();
	}

	/** Nothing is awaited now (the reader holds the data): silence counts again from the next alive(). */
	pause(): void {
		this.lastSign = Number.POSITIVE_INFINITY;
	}

	stop(): void {
		this.stopped.abort();
	}

	private async watch(): Promise<void> {
		const check = Math.max(10, Math.min(WAIT_SLICE_MS, Math.floor(this.windowMs / 4)));
		while (!this.stopped.signal.aborted) {
			await wait(check, this.stopped.signal);
			if (this.stopped.signal.aborted) return;
			if (clock.now() - this.lastSign >= this.windowMs) {
				this.stopped.abort();
				this.onSilence();
				return;
			}
		}
	}
}

/** A signal that aborts with `reason()` after `ms` of real time unless `done()` comes first: I/O runs in real time even under a test's clock. */
export function deadline(
	ms: number,
	reason: () => Error,
): { signal: AbortSignal; done: () => void } {
	const controller = new AbortController();
	const finished = new AbortController();
	void realWait(ms, finished.signal).then(() => {
		if (!finished.signal.aborted) controller.abort(reason());
	});
	return { signal: controller.signal, done: () => finished.abort() };
}
