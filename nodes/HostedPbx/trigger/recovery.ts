import type { IDataObject } from 'n8n-workflow';

import type { ApiClient } from '../../shared/operation';
import { byCreated, createdAt, parseParty } from '../records';
import { EVENTS, isLive, recoveredItem } from './events';
import { recordsAfter } from './history';

/**
 * Events the live stream missed (it has no replay), read back from the history: an incoming call is an IN
 * call record, a received SMS an IN message; a delivery receipt leaves no record with its time. What arrived
 * live is remembered (number and time, for an hour) and what was recovered by id, so nothing comes twice.
 */

/** A live event and its record are the same call or message if their numbers match and their times are this close. */
export const SAME_EVENT_WINDOW_MS = 2 * 60_000;
/** Gaps are read back at most this far: a trigger stopped for days does not replay days. */
export const MAX_GAP_MS = 24 * 60 * 60_000;
/** History records read back per gap. */
export const MAX_RECOVERED = 1000;
const REMEMBER_LIVE_MS = 60 * 60_000;
/** Numbers remembered at most (the oldest forgotten first), and times per number. */
const REMEMBER_NUMBERS = 2000;
const TIMES_PER_NUMBER = 20;
const REMEMBER_IDS = 2000;
/** The live events whose history record can stand in for them. */
const RECOVERABLE = new Set(EVENTS.filter((event) => isLive(event) && event.recoveredFrom).map((event) => event.value));

/** What the trigger keeps in workflow static data for recovery (times in epoch ms). */
export interface RecoveryState {
	/** When the stream last received anything. */
	lastSeenAt?: number;
	/** When a user last published the workflow: nothing older is read back. */
	listeningSince?: number;
	/** Arrival times of the last hour's live events by kind and number (`incomingcall|447700900123`). */
	live?: Record<string, number[]>;
	/** How many numbers `live` holds (counted, not recounted per event). */
	liveNumbers?: number;
	recovered?: string[];
}

function digits(value: unknown): string {
	return String(value ?? '').replace(/\D/g, '');
}

/** Remembers a live event, so its record is not recovered: constant work, bounded memory (keys in insertion order, oldest first). */
export function rememberLive(state: RecoveryState, item: IDataObject, at: number): void {
	const kind = String(item.event);
	if (!RECOVERABLE.has(kind)) return;
	const key = `${kind}|${digits(kind === 'incomingcall' ? item.callerIdNumber : item.from)}`;
	const live = (state.live ??= {});
	const times = live[key];
	if (times) delete live[key];
	else state.liveNumbers = (state.liveNumbers ?? 0) + 1;
	const kept = times ?? [];
	kept.push(at);
	while (kept.length > TIMES_PER_NUMBER || at - kept[0] > REMEMBER_LIVE_MS) kept.shift();
	live[key] = kept;
	// Pruned in batches, so the work per event stays constant.
	if ((state.liveNumbers ?? 0) > REMEMBER_NUMBERS * 1.5) {
		const keys = Object.keys(live);
		for (const oldest of keys.slice(0, keys.length - REMEMBER_NUMBERS)) delete live[oldest];
		state.liveNumbers = REMEMBER_NUMBERS;
	}
}

/** Whether a record stands for a live event of its kind and number close in time, not taken by another record of this read-back. */
function arrivedLive(live: Map<string, number[]>, kind: string, number: string, created: number): boolean {
	const times = live.get(`${kind}|${number}`);
	const match = times?.findIndex((at) => Math.abs(at - created) <= SAME_EVENT_WINDOW_MS) ?? -1;
	if (match < 0) return false;
	times!.splice(match, 1);
	return true;
}

/** The chosen events the stream missed between `since` and `until`, oldest first, each once; `state` remembers them. */
export async function recoverGap(client: ApiClient, customer: string, events: string[], state: RecoveryState, since: number, until: number): Promise<IDataObject[]> {
	// A little before the gap: a missed event's record, or a live event's, which it must use up. Nothing from
	// before the user published the workflow is emitted; timestamps may have whole seconds only.
	const from = Math.max(since, until - MAX_GAP_MS) - SAME_EVENT_WINDOW_MS;
	const published = Math.floor((state.listeningSince ?? 0) / 1000) * 1000;
	// Copied: matches are used up within this read-back only.
	const live = new Map(Object.entries(state.live ?? {}).map(([key, times]) => [key, [...times]]));
	const found: Array<[created: number, event: IDataObject]> = [];
	for (const { value: kind, recoveredFrom: collection } of EVENTS.filter(isLive)) {
		if (!collection || !events.includes(kind)) continue;
		const source = { collection, query: collection === 'calls' ? { direction: 'in' } : {}, matches: () => true };
		const records = (await recordsAfter(client, customer, source, from)).sort(byCreated);
		for (const record of records) {
			const created = createdAt(record);
			const id = `${collection}:${String(record.id)}`;
			if (record.direction !== 'IN' || created > until || (state.recovered ?? []).includes(id)) continue;
			const number = digits(kind === 'incomingcall' ? parseParty(record.from).number : record.from);
			// Remembered either way, so a later read-back over the same time neither repeats nor re-matches it.
			state.recovered = [...(state.recovered ?? []), id].slice(-REMEMBER_IDS);
			if (arrivedLive(live, kind, number, created) || created < published) continue;
			found.push([created, recoveredItem(kind, record)]);
		}
	}
	return found.sort(([a], [b]) => a - b).slice(0, MAX_RECOVERED).map(([, event]) => event);
}
