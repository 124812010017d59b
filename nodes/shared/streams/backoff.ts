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
