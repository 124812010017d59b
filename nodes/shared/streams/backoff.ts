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

/** A timer that fires when nothing was heard for `windowMs`; every sign of life restarts it. */
export class Watchdog {
	private timer?: NodeJS.Timeout;

	constructor(
		private readonly windowMs: number,
		private readonly onSilence: () => void,
	) {}

	alive(): void {
		this.stop();
		if (this.windowMs <= 0) return;
		this.timer = setTimeout(this.onSilence, this.windowMs);
	}

	stop(): void {
		if (this.timer) clearTimeout(this.timer);
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
