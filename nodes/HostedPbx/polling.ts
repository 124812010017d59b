import type { IDataObject } from 'n8n-workflow';

import type { ApiClient } from '../shared/operation';
import { appendAll } from '../shared/lists';
import { collectList, isReturnAllCap, MAX_RETURN_ALL_RECORDS, pagingError, PBX_MAX_PAGE_SIZE } from '../shared/pagination';
import { CUSTOMER, customerPath, pbxRecords } from './fields';

/**
 * New-record polling for what the live stream does not carry (call records, SMS). The cursor
 * remembers the newest `created` seen and the ids seen within a look-back window, and every poll
 * re-reads that window: records that share a timestamp, or that appear up to the window late,
 * are emitted exactly once.
 */
export interface PollCursor {
	/** Newest `created` seen, ISO 8601. */
	since: string;
	/** Ids of records created within the look-back window before `since`. */
	seen: string[];
	/** What the cursor was made for; a changed configuration starts afresh. */
	key: string;
}

export interface PollSource {
	/** Collection below the customer: `calls` or `sms`. */
	collection: 'calls' | 'sms';
	/** Server-side filters (call history has them; SMS has none). */
	query: IDataObject;
	matches: (record: IDataObject) => boolean;
}

export const MAX_SEEN_IDS = 10_000;

/** Both timestamp forms of the platform (`Z`, or milliseconds and `+0000`) as epoch milliseconds. */
export function createdAt(record: IDataObject): number {
	const value = String(record.created ?? '');
	const parsed = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
	return Number.isNaN(parsed) ? 0 : parsed;
}

export function byCreated(a: IDataObject, b: IDataObject): number {
	return createdAt(a) - createdAt(b) || String(a.id).localeCompare(String(b.id), 'en', { numeric: true });
}

/**
 * Reads every record created after `floor`. Call history filters on the server; the SMS list
 * has no date filter, so it is read from whichever end holds the newest records.
 */
export async function recordsAfter(
	client: ApiClient,
	customer: string,
	source: PollSource,
	floor: number,
): Promise<IDataObject[]> {
	const path = customerPath({ [CUSTOMER]: customer }, `/${source.collection}`);
	if (source.collection === 'calls') {
		const read = async (before?: number) => {
			const window = { createdAfter: new Date(floor).toISOString(), ...(before === undefined ? {} : { createdBefore: new Date(before).toISOString() }) };
			return await collectList(client, 'pbx', { method: 'GET', ...path, qs: { ...source.query, ...window } }, undefined, pbxRecords);
		};
		// More calls since the floor than Return All collects (a long outage of a busy PBX): the
		// oldest part first, halving the window until it fits; the next poll goes on from there.
		// Any other failure goes on as it came (the transport's errors are n8n's already).
		for (let before: number | undefined; ; ) {
			const attempt = await read(before).then(
				(records) => ({ records }),
				(failure: unknown) => ({ failure }),
			);
			if ('records' in attempt) return attempt.records;
			const end = before ?? Date.now();
			if (!isReturnAllCap(attempt.failure) || end - floor <= 1000) throw attempt.failure;
			before = floor + Math.floor((end - floor) / 2);
		}
	}
	const page = async (number: number) =>
		await client.request<IDataObject>({ method: 'GET', ...path, qs: { ...source.query, pageSize: PBX_MAX_PAGE_SIZE, page: number } });
	const first = await page(1);
	const records = pbxRecords(first);
	// The server's count decides how many pages there are; one that is not a count is ignored, and
	// a huge one is bounded by Return All's cap below.
	const claimed = Number(first.body.totalItems);
	const total = Number.isFinite(claimed) && claimed > 0 ? claimed : records.length;
	const lastPage = Math.max(1, Math.ceil(total / PBX_MAX_PAGE_SIZE));
	if (lastPage === 1 || records.length === 0) return records.filter((r) => createdAt(r) > floor);
	const newestFirst = createdAt(records[0]) >= createdAt(records[records.length - 1]);
	const collected = [...records];
	// Walk from the newest end until a page reaches back past the floor.
	if (!(newestFirst && oldest(records) <= floor)) {
		for (let step = 1; step < lastPage; step++) {
			if (collected.length >= MAX_RETURN_ALL_RECORDS) throw tooManyMessages(floor, step);
			const more = pbxRecords(await page(newestFirst ? step + 1 : lastPage - step + 1));
			appendAll(collected, more);
			if (more.length === 0 || oldest(more) <= floor) break;
		}
	}
	return collected.filter((r) => createdAt(r) > floor);
}

/** Reading the SMS list stopped at Return All's cap before it reached back to `floor`. */
function tooManyMessages(floor: number, requests: number): Error {
	const cap = MAX_RETURN_ALL_RECORDS.toLocaleString('en-US');
	return pagingError(
		undefined,
		`The SMS history has more than ${cap} messages newer than ${new Date(floor).toISOString()}, so reading it stopped after ${requests} requests`,
		`Rule: the SMS list has no date filter, so it is read from its newest end, at most ${cap} messages (MAX_RETURN_ALL_RECORDS): a huge list or a wrong totalItems cannot exhaust n8n's memory or keep requesting.`,
	);
}

/** The earliest `created` of some records (a loop: spreading a huge page into Math.min overflows the stack). */
function oldest(records: IDataObject[]): number {
	let earliest = Infinity;
	for (const record of records) earliest = Math.min(earliest, createdAt(record));
	return earliest;
}

export interface PollResult {
	fresh: IDataObject[];
	cursor: PollCursor;
}

/** One poll: the records not emitted before, oldest first, and the cursor to keep. */
export async function pollNewRecords(
	client: ApiClient,
	customer: string,
	source: PollSource,
	cursor: PollCursor,
	lookbackMs: number,
): Promise<PollResult> {
	const floor = Date.parse(cursor.since) - lookbackMs;
	const records = (await recordsAfter(client, customer, source, floor)).sort(byCreated);
	const seen = new Set(cursor.seen);
	const fresh = records.filter((r) => !seen.has(String(r.id)) && source.matches(r));
	return { fresh, cursor: advance(cursor, records, lookbackMs) };
}

/** Records created within the look-back window of the newest one are re-read by the next poll: remember them. */
function advance(cursor: PollCursor, records: IDataObject[], lookbackMs: number): PollCursor {
	// A loop, not Math.max(...records): a catch-up of some 100,000 records would overflow the call stack.
	let newest = Date.parse(cursor.since);
	for (const record of records) newest = Math.max(newest, createdAt(record));
	const floor = newest - lookbackMs;
	const seen = records
		.filter((r) => createdAt(r) > floor)
		.map((r) => String(r.id))
		.slice(-MAX_SEEN_IDS);
	return { since: new Date(newest).toISOString(), seen, key: cursor.key };
}

/**
 * The first activation marks what exists at activation time as seen, so history is not
 * replayed; a record created while activating is still emitted by the first poll.
 */
export async function primeCursor(
	client: ApiClient,
	customer: string,
	source: PollSource,
	key: string,
	lookbackMs: number,
): Promise<PollCursor> {
	const activatedAt = Date.now();
	const records = await recordsAfter(client, customer, source, activatedAt - lookbackMs);
	// Timestamps may have whole seconds only: a record of the activation second may be new, so it is emitted.
	const activationSecond = Math.floor(activatedAt / 1000) * 1000;
	const seen = records.filter((r) => createdAt(r) < activationSecond).map((r) => String(r.id));
	return { since: new Date(activatedAt).toISOString(), seen: seen.slice(-MAX_SEEN_IDS), key };
}

/**
 * The cursors each polling node reached last in this process, by node. n8n may hand a trigger an
 * older copy of its static data than the one it saved: n8n 2.40 schedules the same node twice,
 * each schedule with its own copy, and n8n 1.x reactivates a trigger after an error with the
 * workflow data of its first activation. Polls start from the freshest of the two.
 */
const latestCursors = new Map<string, Record<string, PollCursor>>();

/** Per event, the freshest of the stored cursors and those this process reached last for the node. */
export function freshestCursors(node: string, stored: Record<string, PollCursor> | undefined): Record<string, PollCursor> {
	const result: Record<string, PollCursor> = {};
	for (const set of [stored, latestCursors.get(node)]) {
		for (const [event, cursor] of Object.entries(set ?? {})) {
			const current = result[event];
			if (!current || current.key !== cursor.key || Date.parse(cursor.since) >= Date.parse(current.since)) result[event] = cursor;
		}
	}
	return result;
}

/** Remembers the cursors a node's poll reached. */
export function rememberCursors(node: string, cursors: Record<string, PollCursor>): void {
	latestCursors.set(node, cursors);
}

/** `"Reception" <201>` or `+447700900123` as a name and a number, for mapping the caller into the next node. */
export function parseParty(value: unknown): { name: string; number: string } {
	const text = String(value ?? '').trim();
	const match = /^(?:"?([^"<]*?)"?\s*)?<([^>]+)>$/.exec(text);
	if (match) return { name: (match[1] ?? '').trim(), number: match[2].trim() };
	return { name: '', number: text };
}
