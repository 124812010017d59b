import type { IDataObject } from 'n8n-workflow';

import type { ApiClient } from '../shared/operation';
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
const REMEMBER_IDS = 2000;

/** What the trigger keeps in workflow static data for recovery. */
export interface RecoveryState {
	/** When the stream last received anything (epoch ms), kept across restarts. */
	lastSeenAt?: number;
	/** Live events of the last hour: kind, the number that identifies them, when. */
	live?: Array<[kind: string, number: string, at: number]>;
	/** Ids of records already recovered. */
	recovered?: string[];
}

function digits(value: unknown): string {
	return String(value ?? '').replace(/\D/g, '');
}

/** Remembers a live event, so its record is not recovered later. */
export function rememberLive(state: RecoveryState, object: Record<string, unknown>, at = Date.now()): void {
	const values = (object.values ?? {}) as IDataObject;
	const kind = String(object.event);
	if (!(RECOVERABLE_EVENTS as readonly string[]).includes(kind)) return;
	const number = digits(kind === 'incomingcall' ? values.callerIdNumber : values.from);
	state.live = [...(state.live ?? []).filter(([, , seen]) => at - seen < REMEMBER_LIVE_MS), [kind, number, at]];
}

function arrivedLive(state: RecoveryState, kind: string, number: string, created: number): boolean {
	return (state.live ?? []).some(([seenKind, seenNumber, at]) => seenKind === kind && seenNumber === number && Math.abs(at - created) <= SAME_EVENT_WINDOW_MS);
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
	const from = Math.max(since, until - MAX_GAP_MS) - SAME_EVENT_WINDOW_MS;
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
			if (arrivedLive(state, kind, number, created)) continue;
			found.push([created, recoveredEvent(kind, record)]);
			state.recovered = [...(state.recovered ?? []), id].slice(-REMEMBER_IDS);
		}
	}
	return found
		.sort(([a], [b]) => a - b)
		.slice(0, MAX_RECOVERED)
		.map(([, event]) => event);
}
