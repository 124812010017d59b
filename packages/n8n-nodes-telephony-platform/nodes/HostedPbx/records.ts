import type { IDataObject } from 'n8n-workflow';

import { hostedPbxApi } from '../shared/apis';
import { truncate } from '../shared/errors';
import type { ApiResponse } from '../shared/operation';
import { withKnown } from '../shared/outputShape';
import { idFromUri } from '../shared/params';
import { UnexpectedAnswer, isRecord } from '../shared/responseShape';
import { parseJsonText } from '../shared/transport/body';
import { isBlank } from '../shared/validation';

/** How the Hosted PBX's answers become records: the list wrapper, one representation, parties and times. */

/**
 * Every record with an `id` taken from its `uri`, so workflows can map it straight into the next call.
 * Anything that is not a record (a `null` in a list) is passed on unchanged for the executor to wrap.
 */
export function withId(record: IDataObject): IDataObject {
	if (!isRecord(record)) return record;
	return record.id === undefined && typeof record.uri === 'string'
		? { id: idFromUri(record.uri), ...record }
		: record;
}

/** A read's record as answered, for Raw; the `id` its `uri` names goes beside it, for Simplified and Selected Fields. */
export function withIdBeside(record: IDataObject): IDataObject {
	if (!isRecord(record) || record.id !== undefined || typeof record.uri !== 'string') return record;
	return withKnown(record, { id: idFromUri(record.uri) });
}

/** How each record of an answer gets its id: `withId` (writes, triggers), `withIdBeside` (reads), or none. */
export type Identify = (record: IDataObject) => IDataObject;

/** A record that has no id to take (the credit status: its URI ends in a word), as answered. */
export const asAnswered: Identify = (record) => record;

/**
 * What an answer must be: `record` (one representation), `optional` (a call whose answer the
 * contract does not show: anything but a record gives no records, and the operation says what it
 * did instead), or `any` (the list wrapper, or one representation: real list answers from the
 * public docs show both).
 */
export type PbxAnswer = 'record' | 'optional' | 'any';

/**
 * PBX records: the items of a list wrapper, or the one representation answered. An answer
 * without a body (let through only where the contract promises none) gives no records; any other
 * answer that is neither a record nor a list (text, null, a number) is an error naming `operation`,
 * never an empty result. Non-record elements of a list are passed on unchanged.
 */
export function pbxRecords(
	response: ApiResponse,
	operation = 'A Hosted PBX request',
	expected: PbxAnswer = 'any',
	identify: Identify = withId,
): IDataObject[] {
	const { body } = response;
	if (body === undefined || body === '') return [];
	const unexpected = (what: string) =>
		new UnexpectedAnswer(hostedPbxApi.label, operation, body, what, {
			sent: !/^(get|search|list)\b/i.test(operation),
		});
	if (Array.isArray(body)) {
		if (expected === 'optional') return [];
		if (expected === 'record') throw unexpected('a record');
		return (body as IDataObject[]).map(identify);
	}
	if (isRecord(body)) {
		const record = body as IDataObject;
		if (Array.isArray(record.items)) return (record.items as IDataObject[]).map(identify);
		return [identify(record)];
	}
	if (expected === 'optional') return [];
	throw unexpected(expected === 'any' ? 'a record or a list' : 'a record');
}

/**
 * The answer of a write whose body the contract does not show (Make a Call, Set Do Not Disturb),
 * requested as text: any 2xx is success, since failing here would invite a retry of something that
 * already happened (a charged call). A JSON record is the output; anything else (empty, `null`,
 * `OK`, XML) gives `done`, with text that is not JSON kept as `responseText`.
 */
export function unshownAnswer(
	response: ApiResponse,
	operation: string,
	done: IDataObject,
): IDataObject[] {
	const text = typeof response.body === 'string' ? response.body : '';
	let body: unknown;
	try {
		body = parseJsonText(text);
	} catch {
		return [{ ...done, responseText: truncate(text, 1000) }];
	}
	const records = pbxRecords({ ...response, body }, operation, 'optional');
	return records.length ? records : [done];
}

/**
 * A whole number the check accepted, as the decimal digits the API reads (`1e3`, ` 12 `, `1.0` and
 * `0x10` are 1000, 12, 1 and 16); a lenient server would read the text as typed differently. Blank
 * stays undefined so the parameter is not sent.
 */
export function wholeNumberText(value: unknown): string | undefined {
	return isBlank(value)
		? undefined
		: String(Number(typeof value === 'string' ? value.trim() : value));
}

/** Exactly one record from an answer that must be one (a read before a write): anything else is an error. */
export function pbxRecord(response: ApiResponse, operation: string): IDataObject {
	const body = response.body;
	if (isRecord(body) && !Array.isArray(body.items)) return withId(body);
	const answered = isRecord(body) ? body.items : body;
	throw new UnexpectedAnswer(hostedPbxApi.label, operation, answered, 'a record');
}

/** An operation's output: the records of its answer, which must be what `expected` says. */
export function pbxOutput(operation: string, expected: PbxAnswer, identify: Identify = withId) {
	return (response: ApiResponse): IDataObject[] =>
		pbxRecords(response, operation, expected, identify);
}

/** `"Reception" <201>` or `+447700900123` as a name and a number, for mapping the caller into the next node. */
export function parseParty(value: unknown): { name: string; number: string } {
	const text = String(value ?? '').trim();
	const match = /^(?:"?([^"<]*?)"?\s*)?<([^>]+)>$/.exec(text);
	if (match) return { name: (match[1] ?? '').trim(), number: match[2].trim() };
	return { name: '', number: text };
}

/** Both timestamp forms of the platform (`Z`, or milliseconds and `+0000`) as epoch milliseconds; 0 when unreadable. */
export function createdAt(record: IDataObject): number {
	const value = String(record.created ?? '');
	const parsed = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
	return Number.isNaN(parsed) ? 0 : parsed;
}

/** Oldest first; records of one time by id. */
export function byCreated(a: IDataObject, b: IDataObject): number {
	return (
		createdAt(a) - createdAt(b) || String(a.id).localeCompare(String(b.id), 'en', { numeric: true })
	);
}
