import type { IDataObject } from 'n8n-workflow';

import type { ApiClient } from '../../shared/operation';
import { byCreated, createdAt, parseParty } from '../records';
import { EVENTS, isLive, recoveredItem } from './events';
import { recordsAfter } from './history';

/**
 * Events the live stream missed (it has no replay), read back from the history: an incoming call is an IN
 * call record, a received SMS an IN message; a delivery receipt leaves no record with its time. What was
 * emitted is remembered (a live event by number and time, for an hour; a recovered one by id), so nothing
 * comes twice; an event still gathering in a batch is not, so a restart reads it back.
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
const RECOVERED_FROM = new Map(
	EVENTS.filter(isLive).flatMap((event) =>
		event.recoveredFrom ? [[event.value, event.recoveredFrom] as const] : [],
	),
);

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
	/** The earliest time of an event read back but not emitted when the state was saved (a batch still gathering): a restart reads back from it. */
	unemittedSince?: number;
}

function digits(value: unknown): string {
	return String(value ?? '').replace(/\D/g, '');
}

/** Whether the history can bring an event back (an incoming call, a received SMS). */
export function isRecoverable(item: IDataObject): boolean {
	return RECOVERED_FROM.has(String(item.event));
}

/** The key a live event is remembered by: its kind and number. */
function liveKey(item: IDataObject): string {
	const kind = String(item.event);
	return `${kind}|${digits(kind === 'incomingcall' ? item.callerIdNumber : item.from)}`;
}

/** The id a recovered event's record is remembered by. */
function recordKey(item: IDataObject): string {
	return `${RECOVERED_FROM.get(String(item.event))}:${String(item.recordId)}`;
}

/** When an event happened: a recovered one when its record was created, a live one when it arrived. */
export function eventTime(item: IDataObject): number {
	return item.recovered === true
		? createdAt({ created: item.recordCreated })
		: Date.parse(String(item.receivedAt));
}

/** Remembers events handed to n8n (emitted): only these count as seen, so a read-back never brings them again. */
export function rememberEmitted(state: RecoveryState, items: IDataObject[]): void {
	for (const item of items) {
		if (!isRecoverable(item)) continue;
		if (item.recovered === true)
			state.recovered = [...(state.recovered ?? []), recordKey(item)].slice(-REMEMBER_IDS);
		else rememberLive(state, item, eventTime(item));
	}
}

/** Remembers a live event, so its record is not recovered: constant work, bounded memory (keys in insertion order, oldest first). */
function rememberLive(state: RecoveryState, item: IDataObject, at: number): void {
	const key = liveKey(item);
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
function arrivedLive(
	live: Map<string, number[]>,
	kind: string,
	number: string,
	created: number,
): boolean {
	const times = live.get(`${kind}|${number}`);
	const match = times?.findIndex((at) => Math.abs(at - created) <= SAME_EVENT_WINDOW_MS) ?? -1;
	if (match < 0) return false;
	times!.splice(match, 1);
	return true;
}

/**
 * The chosen events the stream missed between `since` and `until`, oldest first, each once. `pending` are
 * events not emitted yet (a batch gathering): their records are not read back, nor remembered.
 */
export async function recoverGap(
	client: ApiClient,
	customer: string,
	events: string[],
	state: RecoveryState,
	since: number,
	until: number,
	pending: IDataObject[] = [],
): Promise<IDataObject[]> {
	// A little before the gap: a missed event's record, or a live event's, which it must use up. Nothing from
	// before the user published the workflow is emitted; timestamps may have whole seconds only.
	const from = Math.max(since, until - MAX_GAP_MS) - SAME_EVENT_WINDOW_MS;
	const published = Math.floor((state.listeningSince ?? 0) / 1000) * 1000;
	// Copied: matches are used up within this read-back only.
	const live = new Map(Object.entries(state.live ?? {}).map(([key, times]) => [key, [...times]]));
	const gathering = new Map<string, number[]>();
	for (const item of pending.filter((event) => event.recovered !== true && isRecoverable(event)))
		gathering.set(liveKey(item), [...(gathering.get(liveKey(item)) ?? []), eventTime(item)]);
	const gatheringIds = new Set(pending.filter((event) => event.recovered === true).map(recordKey));
	const found: Array<[created: number, event: IDataObject]> = [];
	for (const { value: kind, recoveredFrom: collection } of EVENTS.filter(isLive)) {
		if (!collection || !events.includes(kind)) continue;
		const source = {
			collection,
			query: collection === 'calls' ? { direction: 'in' } : {},
			matches: () => true,
		};
		const records = (await recordsAfter(client, customer, source, from)).sort(byCreated);
		for (const record of records) {
			const created = createdAt(record);
			const id = `${collection}:${String(record.id)}`;
			if (
				record.direction !== 'IN' ||
				created > until ||
				gatheringIds.has(id) ||
				(state.recovered ?? []).includes(id)
			)
				continue;
			const number = digits(kind === 'incomingcall' ? parseParty(record.from).number : record.from);
			if (arrivedLive(gathering, kind, number, created)) continue;
			// A record another event stands for is remembered, so a later read-back over the same time neither repeats nor re-matches it; one emitted when its batch is.
			if (arrivedLive(live, kind, number, created) || created < published) {
				state.recovered = [...(state.recovered ?? []), id].slice(-REMEMBER_IDS);
				continue;
			}
			found.push([created, recoveredItem(kind, record)]);
		}
	}
	return found
		.sort(([a], [b]) => a - b)
		.slice(0, MAX_RECOVERED)
		.map(([, event]) => event);
}
