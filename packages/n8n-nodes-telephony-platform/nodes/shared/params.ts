import type { IDataObject } from 'n8n-workflow';

import { isBlank, parseDateTime } from './validation';

/** A user value as one URL path segment. */
export function segment(value: unknown): string {
	return encodeURIComponent(String(value ?? '').trim());
}

/** "a phone book entry", "an SMS message", "an outgoing caller ID": the article as the word sounds. */
export function withArticle(noun: string): string {
	// Initialisms go by the letter's name ("an SMS", "a UK number"); words by the first sound ("a unit", "an update").
	const vowelSound = /^[A-Z][A-Z0-9]/.test(noun)
		? /^[AEFHILMNORSX]/.test(noun)
		: /^([aeio]|u(?!s|ni|ti))/i.test(noun);
	return `${vowelSound ? 'an' : 'a'} ${noun}`;
}

/** Drops empty values so that optional fields left blank are not sent at all. */
export function compact<T extends IDataObject>(object: T): Partial<T> {
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(object)) {
		if (!isBlank(value)) out[key] = value;
	}
	return out as Partial<T>;
}

/** The last path segment of a URI or an id as typed: `.../phonebook/42` and `42` both give `42`. */
export function idFromUri(value: unknown): string {
	// Index arithmetic, not split/replace: a Return All applies it to every record.
	const text = String(value ?? '').trim();
	let end = text.length;
	while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
	const start = text.lastIndexOf('/', end - 1) + 1;
	const query = text.indexOf('?', start);
	return text.slice(start, query >= 0 && query < end ? query : end);
}

/** The UTC date of a time, `YYYY-MM-DD`. */
export const formatDate = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * A date-time from an n8n date picker or an expression (string, Date, Luxon DateTime) as
 * ISO 8601 in UTC with a `Z`; undefined when blank. Only a real instant is converted (see
 * `parseDateTime`): anything else is kept as given, for the checks to refuse, never read as some
 * other day.
 */
export function isoUtc(value: unknown): string | undefined {
	if (isBlank(value)) return undefined;
	const date = parseDateTime(value);
	return date ? date.toISOString().replace(/\.000Z$/, 'Z') : String(value);
}

/** A header's value whatever the case of its name: text, or a repeated header's list (which no check accepts). */
export function headerValue(headers: unknown, name: string): unknown {
	const wanted = name.toLowerCase();
	return Object.entries((headers as IDataObject | undefined) ?? {}).find(
		([key]) => key.toLowerCase() === wanted,
	)?.[1];
}

/** Key/value pairs from a fixedCollection (`{ pairs: [{ name, value }] }`) as a plain object. */
export function pairsToObject(collection: unknown, listName = 'pairs'): Record<string, string> {
	const list = ((collection as IDataObject | undefined)?.[listName] ?? []) as Array<{
		name?: string;
		value?: string;
	}>;
	const out: Record<string, string> = {};
	for (const { name, value } of list) {
		// Defined, not assigned: a name `__proto__` is kept as a field, never taken as the prototype (nor dropped).
		if (name)
			Object.defineProperty(out, String(name), {
				value: value ?? '',
				enumerable: true,
				writable: true,
				configurable: true,
			});
	}
	return out;
}
