import type { IDataObject } from 'n8n-workflow';

import type { ApiClient, ApiResponse } from '../../shared/operation';
import {
	collectList,
	isReturnAllCap,
	MAX_RETURN_ALL_RECORDS,
	pagingError,
	PBX_MAX_PAGE_SIZE,
} from '../../shared/pagination';
import { checkWindowMs, clock } from '../../shared/timers';
import { CUSTOMER, customerPath } from '../fields';
import { byCreated, createdAt, pbxRecords } from '../records';

/**
 * A polled list's cursor: the newest `created` seen (ISO 8601) and the ids seen within the look-back window
 * before it, which every poll re-reads, so records that share a timestamp or come late are emitted once.
 */
export interface PollCursor {
	since: string;
	seen: string[];
	/** What the cursor was made for; a changed configuration starts afresh. */
	key: string;
}

export interface PollSource {
	collection: 'calls' | 'sms' | 'recordings';
	/** Server-side filters (call history and recordings have them; SMS has none). */
	query: IDataObject;
}

export const MAX_SEEN_IDS = 10_000;

/** Every record created after `floor`: filtered on the server, but for SMS (see `smsAfter`). */
export async function recordsAfter(
	client: ApiClient,
	customer: string,
	source: PollSource,
	floor: number,
): Promise<IDataObject[]> {
	const path = customerPath({ [CUSTOMER]: customer }, `/${source.collection}`);
	if (source.collection !== 'sms') {
		const read = async (before?: number) => {
			const window = {
				createdAfter: new Date(floor).toISOString(),
				...(before === undefined ? {} : { createdBefore: new Date(before).toISOString() }),
			};
			return await collectList(
				client,
				'pbx',
				{ method: 'GET', ...path, qs: { ...source.query, ...window } },
				undefined,
				pbxRecords,
			);
		};
		// More records since the floor than Return All collects (a long outage of a busy PBX): the oldest part
		// first, halving the window until it fits; the next poll goes on from there.
		for (let before: number | undefined; ; ) {
			const attempt = await read(before).then(
				(records) => ({ records }),
				(failure: unknown) => ({ failure }),
			);
			if ('records' in attempt) return attempt.records;
			const end = before ?? clock.now();
			if (!isReturnAllCap(attempt.failure) || end - floor <= 1000) throw attempt.failure;
			before = floor + Math.floor((end - floor) / 2);
		}
	}
	return await smsAfter(client, path, source, floor);
}

/** Pages the SMS read takes from the newest end before it looks for `floor` by halving. */
const SMS_FIRST_PAGES = 4;
/** Pages left for messages that arrive during a catch-up and push older ones onto later pages (5,000 messages). */
const SMS_SHIFT_PAGES = 25;

/**
 * The SMS list has no date filter: pages are ranked from the newest end, whatever the server's order, and
 * read towards the older end (a new message then pushes one already read onto the next page, never one
 * unread past the reader) until one reaches `floor`. After a few pages the page holding `floor` is found by
 * halving; more messages than Return All's cap give the oldest part, and the next poll goes on from there.
 */
async function smsAfter(
	client: ApiClient,
	path: ReturnType<typeof customerPath>,
	source: PollSource,
	floor: number,
): Promise<IDataObject[]> {
	const read = async (number: number) =>
		await client.request<IDataObject>({
			method: 'GET',
			...path,
			qs: { ...source.query, pageSize: PBX_MAX_PAGE_SIZE, page: number },
		});
	const first = await read(1);
	const firstRecords = pbxRecords(first);
	// A huge count costs only the halving's requests (about 45 for 10^15).
	const claimed = Number(first.body.totalItems);
	// A server with a smaller maximum page says so in `pageSize`.
	const served = Number(first.body.pageSize);
	const pageSize =
		Number.isInteger(served) && served > 0 && served < PBX_MAX_PAGE_SIZE
			? served
			: PBX_MAX_PAGE_SIZE;
	const lastPage =
		Number.isFinite(claimed) && claimed > 0
			? Math.max(1, Math.ceil(claimed / pageSize))
			: first.body.nextPage
				? await lastPageByLinks(read)
				: 1;
	if (lastPage === 1 || firstRecords.length === 0)
		return new NewerThan(floor).add(firstRecords).records;
	const newestFirst =
		createdAt(firstRecords[0]) >= createdAt(firstRecords[firstRecords.length - 1]);
	const pageAt = async (rank: number) =>
		rank === (newestFirst ? 1 : lastPage)
			? firstRecords
			: pbxRecords(await read(newestFirst ? rank : lastPage - rank + 1));
	const reachesFloor = (records: IDataObject[]) => records.length === 0 || oldest(records) <= floor;
	// At most `pages` pages from `rank`, done at `floor` or the oldest end (past the first count while new messages come first).
	const readFrom = async (rank: number, pages: number) => {
		const kept = new NewerThan(floor);
		for (let at = rank; at < rank + pages; at++) {
			const records = await pageAt(at);
			kept.add(records);
			const oldestEnd = at >= lastPage && (!newestFirst || records.length < pageSize);
			if (reachesFloor(records) || oldestEnd) return { records: kept.records, done: true };
		}
		return { records: kept.records, done: false };
	};
	const newest = await readFrom(1, SMS_FIRST_PAGES);
	if (newest.done) return newest.records;
	let low = SMS_FIRST_PAGES + 1;
	let high = lastPage;
	while (low < high) {
		const middle = low + Math.floor((high - low) / 2);
		if (reachesFloor(await pageAt(middle))) high = middle;
		else low = middle + 1;
	}
	// Return All's cap, in requests too (smaller pages bring fewer messages per catch-up).
	const capPages = Math.floor(MAX_RETURN_ALL_RECORDS / PBX_MAX_PAGE_SIZE);
	const start = Math.max(1, low - (capPages - SMS_SHIFT_PAGES) + 1);
	const part = await readFrom(start, capPages);
	if (!part.done) throw tooManyMessages(floor, capPages);
	return part.records;
}

/** Pages probed at most when a list has no count: 2^20 pages of 200 is more than any PBX keeps. */
const MAX_PROBED_PAGE = 2 ** 20;

/** The last page of a list with a `nextPage` link but no count: pages 2, 4, 8, … until one ends it, then halving. */
async function lastPageByLinks(
	read: (page: number) => Promise<ApiResponse<IDataObject>>,
): Promise<number> {
	let full = 1;
	let past = 0;
	for (
		let page = 2;
		past === 0 && full < MAX_PROBED_PAGE;
		page = Math.min(page * 2, MAX_PROBED_PAGE)
	) {
		const response = await read(page);
		if (pbxRecords(response).length === 0) past = page;
		else if (!response.body.nextPage) return page;
		else full = page;
	}
	if (past === 0) return full;
	while (past - full > 1) {
		const middle = full + Math.floor((past - full) / 2);
		const response = await read(middle);
		if (pbxRecords(response).length === 0) past = middle;
		else if (!response.body.nextPage) return middle;
		else full = middle;
	}
	return full;
}

/** The records newer than a floor, each id once (a record without an id or `uri` is kept as it comes). */
class NewerThan {
	readonly records: IDataObject[] = [];
	private readonly ids = new Set<string>();

	constructor(private readonly floor: number) {}

	add(records: IDataObject[]): this {
		for (const record of records) {
			if (createdAt(record) <= this.floor) continue;
			if (record.id !== undefined && record.id !== null && record.id !== '') {
				const id = String(record.id);
				if (this.ids.has(id)) continue;
				this.ids.add(id);
			}
			this.records.push(record);
		}
		return this;
	}
}

/** Reading the SMS list towards `floor` did not reach it within Return All's cap. */
function tooManyMessages(floor: number, pages: number): Error {
	const cap = MAX_RETURN_ALL_RECORDS.toLocaleString('en-US');
	return pagingError(
		undefined,
		`Reading the SMS history back to ${new Date(floor).toISOString()} did not reach it within ${pages} pages: messages arrived faster than they could be read, or the pages are not in date order`,
		`Rule: the SMS list has no date filter, so it is read by pages, at most ${cap} messages (MAX_RETURN_ALL_RECORDS) a poll; the next poll tries again.`,
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

/** Where a poll reads from: the look-back window before the newest record seen, or before now for a first poll. */
export function cursorFloor(
	cursor: PollCursor | undefined,
	lookbackMs: number,
	now: number,
): number {
	// NaN would compare false with every record: no id kept as seen, the whole history replayed each poll.
	checkWindowMs(lookbackMs, 'The look-back window');
	return (cursor ? Date.parse(cursor.since) : now) - lookbackMs;
}

/** The records of a read not emitted before, oldest first, and the cursor to keep. */
export function advanceCursor(
	cursor: PollCursor,
	read: IDataObject[],
	lookbackMs: number,
): PollResult {
	const floor = cursorFloor(cursor, lookbackMs, 0);
	const records = read.filter((r) => createdAt(r) > floor).sort(byCreated);
	const seen = new Set(cursor.seen);
	const fresh = records.filter((r) => !seen.has(String(r.id)));
	// A loop, not Math.max(...records): a catch-up of some 100,000 records would overflow the call stack.
	let newest = Date.parse(cursor.since);
	for (const record of records) newest = Math.max(newest, createdAt(record));
	// Records created within the look-back window of the newest one are read again by the next poll: remember them.
	const kept = records.filter((r) => createdAt(r) > newest - lookbackMs).map((r) => String(r.id));
	return {
		fresh,
		cursor: {
			since: new Date(newest).toISOString(),
			seen: kept.slice(-MAX_SEEN_IDS),
			key: cursor.key,
		},
	};
}

/** The first poll's cursor: what exists is seen (no replay), but for the activation's second (timestamps may lack fractions). */
export function primedCursor(read: IDataObject[], key: string, activatedAt: number): PollCursor {
	const activationSecond = Math.floor(activatedAt / 1000) * 1000;
	const seen = read.filter((r) => createdAt(r) < activationSecond).map((r) => String(r.id));
	return { since: new Date(activatedAt).toISOString(), seen: seen.slice(-MAX_SEEN_IDS), key };
}
