/**
 * Ids a trigger emitted recently, in the memory of the process that receives them, bounded in
 * size and time: the platforms repeat a delivery (a webhook retried after a lost or late 200, an
 * event replayed after a reconnection) and a repeat must not start a second run.
 *
 * Nothing here survives a restart, and in queue mode each webhook process has its own memory:
 * a retry that reaches another process, or arrives after a restart, is emitted again. That is
 * the honest limit of a duplicate filter that costs nothing per delivery; a workflow that must
 * never see an id twice adds n8n's Remove Duplicates node (kept in n8n's database) behind it.
 */

export const DEFAULT_REMEMBER_IDS = 10_000;
export const DEFAULT_REMEMBER_MINUTES = 24 * 60;
export const MAX_REMEMBER_IDS = 1_000_000;

/** Message ids seen recently: at most `maxEntries`, each for `ttlMs`; the oldest go first. */
export class RecentIds {
	/** Key to the time it is forgotten; a Map keeps insertion order, so the oldest come first. */
	private readonly seen = new Map<string, number>();

	constructor(
		private maxEntries: number,
		private ttlMs: number,
	) {}

	get size(): number {
		return this.seen.size;
	}

	/** Applies changed limits (the user edited the node) without losing what is remembered. */
	configure(maxEntries: number, ttlMs: number): void {
		this.maxEntries = maxEntries;
		this.ttlMs = ttlMs;
	}

	/** True the first time a key is seen within the window (and remembers it), false for a repeat. */
	firstSeen(key: string, now = Date.now()): boolean {
		const forgetAt = this.seen.get(key);
		if (forgetAt !== undefined && forgetAt > now) return false;
		if (forgetAt !== undefined) this.seen.delete(key);
		this.seen.set(key, now + this.ttlMs);
		this.prune(now);
		return true;
	}

	/** Drops expired keys from the front, then the oldest beyond the size bound. */
	private prune(now: number): void {
		for (const [key, forgetAt] of this.seen) {
			if (forgetAt > now && this.seen.size <= this.maxEntries) break;
			this.seen.delete(key);
		}
	}
}

/** One memory per trigger node (workflow, node, test or production), and a bound on how many. */
const memories = new Map<string, RecentIds>();
const MAX_MEMORIES = 1000;

export function recentIdsFor(scope: string, maxEntries: number, ttlMs: number): RecentIds {
	let memory = memories.get(scope);
	if (memory) {
		memory.configure(maxEntries, ttlMs);
		return memory;
	}
	if (memories.size >= MAX_MEMORIES) memories.delete(memories.keys().next().value as string);
	memory = new RecentIds(maxEntries, ttlMs);
	memories.set(scope, memory);
	return memory;
}

/** Forgets every trigger's ids (tests, and the benchmarks between rounds). */
export function forgetRecentIds(): void {
	memories.clear();
}
