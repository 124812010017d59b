import type { IDataObject } from 'n8n-workflow';

import type { ApiClient } from '../../shared/operation';
import { byCreated, createdAt, parseParty, recordsAfter } from './polling';

/**
 * Events the live stream missed, read back from the history. The stream has no replay: while it
 * was down (a drop, a stall, a restart of n8n, a refused credential) its events are gone. Two of
 * its three kinds leave a record: an incoming call is a call record (direction IN) and a received
 * SMS an SMS message (direction IN). An SMS delivery receipt leaves none the contract shows (the
 * outgoing message's deliveryStatus says that a receipt came, not when), so it cannot be recovered.
 *
 * What arrived live is remembered (number and time, for an hour), so a record of an event that did
 * arrive is never emitted again; what was recovered is remembered by record id.
 */

export const RECOVERABLE_EVENTS = ['incomingcall', 'smsreceived'] as const;
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

/** What the trigger keeps in workflow static data for recovery. */
export interface RecoveryState {
	/** When the stream last received anything (epoch ms), kept across restarts. */
	lastSeenAt?: number;
	/** When a user last published the workflow (epoch ms): nothing older is read back. */
	listeningSince?: number;
	/** Live events of the last hour: the times they arrived, by kind and the number that identifies them (`incomingcall|447700900123`). */
	live?: Record<string, number[]>;
	/** How many numbers `live` holds (counted, not recounted per event). */
	liveNumbers?: number;
	/** Ids of records already recovered. */
	recovered?: string[];
}

function digits(value: unknown): string {
	return String(value ?? '').replace(/\D/g, '');
}

/**
 * Remembers a live event, so its record is not recovered later. Constant work per event and
 * bounded memory: a few times per number, a bounded number of numbers (an object keeps its keys in
 * insertion order, so the first key is the one heard from longest ago).
 */
export function rememberLive(state: RecoveryState, object: Record<string, unknown>, at = Date.now()): void {
	const values = (object.values ?? {}) as IDataObject;
	const kind = String(object.event);
	if (!(RECOVERABLE_EVENTS as readonly string[]).includes(kind)) return;
	const key = `${kind}|${digits(kind === 'incomingcall' ? values.callerIdNumber : values.from)}`;
	const live = state.live && !Array.isArray(state.live) ? state.live : (state.live = {});
	const times = live[key];
	if (times) {
		delete live[key];
	} else {
		state.liveNumbers = (state.liveNumbers ?? 0) + 1;
	}
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

/**
 * Whether a record is the record of an event that arrived live: a live event of its kind and number
 * close enough in time, not already taken by another record of this read-back (a caller who rings
 * twice, once live and once in the gap, is two records and one live event).
 */
function arrivedLive(live: Map<string, number[]>, kind: string, number: string, created: number): boolean {
	const times = live.get(`${kind}|${number}`);
	const match = times?.findIndex((at) => Math.abs(at - created) <= SAME_EVENT_WINDOW_MS) ?? -1;
	if (match < 0) return false;
	times!.splice(match, 1);
	return true;
}

/** A history record as the live event it stands for, marked as recovered. */
export function recoveredEvent(kind: string, record: IDataObject): IDataObject {
	const from = parseParty(record.from);
	const base = { recovered: true, recordId: String(record.id ?? ''), recordCreated: record.created ?? null, location: null };
	if (kind === 'incomingcall') {
		return { event: kind, callerIdNumber: from.number, callerIdName: from.name, endpoint: null, endpointId: null, callId: record.callId ?? null, ...base };
	}
	return { event: kind, to: record.to ?? null, from: record.from ?? null, excerpt: String(record.body ?? ''), body: record.body ?? null, ...base };
}

/**
 * The events of the selected kinds that the stream missed between `since` and `until`, oldest
 * first, each once; `state` remembers them.
 */
export async function recoverGap(
	client: ApiClient,
	customer: string,
	events: string[],
	state: RecoveryState,
	since: number,
	until: number,
): Promise<IDataObject[]> {
	// A record a little older than the gap may be one the stream missed (times differ by a few
	// seconds); none from before the user published the workflow (the time it was off is no gap).
	const from = Math.max(Math.max(since, until - MAX_GAP_MS) - SAME_EVENT_WINDOW_MS, state.listeningSince ?? 0);
	// Copied: matches are used up within this read-back only. (An older version kept a list here: not used.)
	const live = new Map(Object.entries(state.live && !Array.isArray(state.live) ? state.live : {}).map(([key, times]) => [key, [...times]]));
	const found: Array<[created: number, event: IDataObject]> = [];
	const kinds: Array<[string, 'calls' | 'sms']> = [
		['incomingcall', 'calls'],
		['smsreceived', 'sms'],
	];
	for (const [kind, collection] of kinds) {
		if (!events.includes(kind)) continue;
		const source = { collection, query: collection === 'calls' ? { direction: 'in' } : {}, matches: () => true };
		const records = (await recordsAfter(client, customer, source, from)).sort(byCreated);
		for (const record of records) {
			const created = createdAt(record);
			const id = `${collection}:${String(record.id)}`;
			if (record.direction !== 'IN' || created > until || (state.recovered ?? []).includes(id)) continue;
			const number = digits(kind === 'incomingcall' ? parseParty(record.from).number : record.from);
			// Remembered either way, so a later read-back over the same time neither repeats nor re-matches it.
			state.recovered = [...(state.recovered ?? []), id].slice(-REMEMBER_IDS);
			if (arrivedLive(live, kind, number, created)) continue;
			found.push([created, recoveredEvent(kind, record)]);
		}
	}
	return found
		.sort(([a], [b]) => a - b)
		.slice(0, MAX_RECOVERED)
		.map(([, event]) => event);
}
