/**
 * What the Wholesale Voice Trigger remembers between deliveries, in the memory of the process
 * that answers webhooks, bounded in size and time: the message ids it emitted recently (to drop
 * the platform's retries) and when it last wrote each kind of warning (so that a flood of bad
 * deliveries cannot flood n8n's log).
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

/** Forgets every trigger's ids and warning times (tests, and the benchmark between rounds). */
export function forgetEverything(): void {
	memories.clear();
	deliveryWarnings.clear();
}

/**
 * At most one warning per key and interval; the ones held back are counted and reported with
 * the next warning written, so nothing disappears without a trace.
 */
export class WarningThrottle {
	private readonly last = new Map<string, { at: number; held: number }>();

	constructor(
		private readonly intervalMs = 60_000,
		private readonly maxKeys = 1000,
	) {}

	/** Whether to write now, and how many warnings of this key were held back since the last one. */
	take(key: string, now = Date.now()): { write: boolean; held: number } {
		const entry = this.last.get(key);
		if (entry && now - entry.at < this.intervalMs) {
			entry.held++;
			return { write: false, held: entry.held };
		}
		const held = entry?.held ?? 0;
		this.last.delete(key);
		if (this.last.size >= this.maxKeys) this.last.delete(this.last.keys().next().value as string);
		this.last.set(key, { at: now, held: 0 });
		return { write: true, held };
	}

	clear(): void {
		this.last.clear();
	}
}

/** The trigger's warnings about refused and unreadable deliveries, one a minute per workflow, node and kind. */
export const deliveryWarnings = new WarningThrottle();
