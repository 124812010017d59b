/**
 * Capped exponential backoff with jitter, for reconnecting long-running triggers: the n-th
 * retry waits a random time between half and all of min(max, base * 2^n), so many clients
 * that lost the same server do not come back in step.
 */
export interface BackoffOptions {
	baseMs: number;
	maxMs: number;
	random?: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1000, maxMs: 60_000 };

export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
	const cap = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt));
	const random = options.random ?? Math.random;
	return Math.round(cap / 2 + (random() * cap) / 2);
}

/**
 * Fires when nothing was heard for `windowMs`. Every sign of life only records the time (cheap
 * enough to call per event); a timer checks at a fraction of the window.
 */
export class Watchdog {
	private timer?: NodeJS.Timeout;
	private lastSign = 0;

	constructor(
		private readonly windowMs: number,
		private readonly onSilence: () => void,
	) {}

	alive(): void {
		this.lastSign = Date.now();
		if (this.timer || this.windowMs <= 0) return;
		const check = Math.max(10, Math.min(1000, Math.floor(this.windowMs / 4)));
		this.timer = setInterval(() => {
			if (Date.now() - this.lastSign < this.windowMs) return;
			this.stop();
			this.onSilence();
		}, check);
	}

	stop(): void {
		if (this.timer) clearInterval(this.timer);
		this.timer = undefined;
	}
}

/** A sleep that `cancel()` ends early, so closing a trigger never waits out a backoff. */
export function cancellableSleep(ms: number): { promise: Promise<void>; cancel: () => void } {
	let timer: NodeJS.Timeout | undefined;
	let finish: () => void = () => {};
	const promise = new Promise<void>((resolve) => {
		finish = resolve;
		timer = setTimeout(resolve, ms);
	});
	return {
		promise,
		cancel: () => {
			if (timer) clearTimeout(timer);
			finish();
		},
	};
}
