/** Capped, jittered backoff: retry n waits between half and all of min(max, base·2^n), so clients do not return in step. */
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
