/**
 * Ids a trigger emitted recently, bounded in size and time, so a repeated delivery starts no second run.
 * Process memory only: after a restart, or in another queue-mode process, a repeat is emitted again
 * (a workflow that must never see an id twice adds n8n's Remove Duplicates node).
 * Not n8n's `helpers.checkProcessedAndRecord`: n8n gives it to execute contexts only, not to the trigger and webhook contexts that must stop a repeat.
 */

import { createHash } from 'node:crypto';

import { clock } from '../timers';

export const DEFAULT_REMEMBER_IDS = 10_000;
export const DEFAULT_REMEMBER_MINUTES = 24 * 60;
export const MAX_REMEMBER_IDS = 1_000_000;
/** Keys longer than this are kept as their SHA-256, so a full memory stays small whatever the ids are. */
const LONGEST_KEPT_KEY = 128;

/** The key as kept: itself when short, else its hash (marked apart, so no short key can equal a hash). */
function keptKey(key: string): string {
	return key.length <= LONGEST_KEPT_KEY
		? `k${key}`
		: `h${createHash('sha256').update(key).digest('base64')}`;
}

/** Message ids seen recently: at most `maxEntries`, each for `ttlMs`; the oldest go first. */
export class RecentIds {
	/** Kept key to the time it is forgotten. */
	private readonly seen = new Map<string, number>();
	/** Keys in the order remembered, oldest at `head` (iterating the Map would walk its deletions' holes each call). */
	private order: Array<{ key: string; forgetAt: number }> = [];
	private head = 0;

	constructor(
		private maxEntries: number,
		private ttlMs: number,
	) {}

	get size(): number {
		return this.seen.size;
	}

	/** Forgets an id, so its next delivery counts as the first (one that was not acknowledged). */
	forget(id: string): void {
		this.seen.delete(keptKey(id));
	}

	/** Applies changed limits (the user edited the node) without losing what is remembered. */
	configure(maxEntries: number, ttlMs: number): void {
		this.maxEntries = maxEntries;
		this.ttlMs = ttlMs;
	}

	/** True the first time an id is seen within the window (and remembers it), false for a repeat. */
	firstSeen(id: string, now = clock.now()): boolean {
		const key = keptKey(id);
		const known = this.seen.get(key);
		if (known !== undefined && known > now) return false;
		const forgetAt = now + this.ttlMs;
		this.seen.set(key, forgetAt);
		this.order.push({ key, forgetAt });
		this.prune(now);
		return true;
	}

	/** Forgets from the oldest end: expired keys, then the oldest beyond the size bound. */
	private prune(now: number): void {
		const order = this.order;
		while (this.head < order.length) {
			const oldest = order[this.head];
			// An entry of a key remembered again since is stale: only the newest entry counts.
			if (this.seen.get(oldest.key) === oldest.forgetAt) {
				if (oldest.forgetAt > now && this.seen.size <= this.maxEntries) break;
				this.seen.delete(oldest.key);
			}
			this.head++;
		}
		if (this.head >= 1024 && this.head * 2 >= order.length) {
			this.order = order.slice(this.head);
			this.head = 0;
		} else if (order.length - this.head > 2 * this.seen.size + 1024) {
			// Stale entries piled up behind a live one (the window was shortened, or the clock went
			// back): rebuilt from the live keys, so the order stays as small as the memory.
			this.order = [...this.seen]
				.map(([key, forgetAt]) => ({ key, forgetAt }))
				.sort((a, b) => a.forgetAt - b.forgetAt);
			this.head = 0;
		}
	}
}

/** The HTTP response n8n answers a webhook delivery with (an Express response: a ServerResponse). */
export interface WebhookAnswer {
	writeHead(statusCode: number, ...rest: never[]): unknown;
}

/**
 * Gives `ids` back to `memory` unless n8n answers the delivery 2xx: n8n 2.x stores the run before it
 * answers, so anything else means no run, and the retry is no repeat. (Every answer passes `writeHead`.)
 */
export function forgetUnlessAcknowledged(
	response: WebhookAnswer,
	memory: RecentIds,
	ids: string[],
): void {
	if (ids.length === 0) return;
	const writeHead = response.writeHead;
	response.writeHead = function (this: unknown, statusCode: number, ...rest: never[]) {
		response.writeHead = writeHead;
		if (!(statusCode >= 200 && statusCode < 300)) for (const id of ids) memory.forget(id);
		return writeHead.call(this, statusCode, ...rest);
	};
}
