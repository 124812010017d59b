/**
 * What the Wholesale Voice Trigger remembers between deliveries, in the memory of the process
 * that answers webhooks: the message ids it emitted recently (`../../shared/triggers/recentIds`, to drop the
 * platform's retries) and when it last wrote each kind of warning (so that a flood of bad
 * deliveries cannot flood n8n's log).
 */

import { forgetRecentIds } from '../../shared/triggers/recentIds';

/** Forgets every trigger's ids and warning times (tests, and the benchmark between rounds). */
export function forgetEverything(): void {
	forgetRecentIds();
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
