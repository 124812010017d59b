import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../../shared/responseShape';

/**
 * What the platform pushes, read as it sends it; pure: bytes and a content type in, documents out.
 * Webhooks are JSON as `text/json` (n8n's parser leaves it alone) with PHP's escaping; report callbacks and SMS reports
 * a form field `payload` holding the JSON; inbound SMS a form (`http`) or JSON (`http_json`), not shown in the spec.
 */

export type ParsedBody =
	| { ok: true; documents: unknown[]; encoding: 'json' | 'form' | 'payload' | 'empty' }
	| { ok: false; reason: string };

const mediaType = (contentType: string | undefined) =>
	(contentType ?? '').split(';')[0].trim().toLowerCase();
const charsetOf = (contentType: string | undefined) =>
	/;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();

const LATIN1 = new Set([
	'iso-8859-1',
	'latin1',
	'latin-1',
	'windows-1252',
	'cp1252',
	'us-ascii',
	'ascii',
]);

/** Bytes as text: UTF-8 unless the type says Latin-1; bytes that are not UTF-8 are read as Latin-1. */
export function decodeBytes(bytes: Uint8Array, charset?: string): string {
	let text: string;
	if (charset && LATIN1.has(charset)) text = Buffer.from(bytes).toString('latin1');
	else {
		try {
			text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
		} catch {
			// The legacy `http` mode has no Unicode: a Latin-1 body is the likely reading.
			text = Buffer.from(bytes).toString('latin1');
		}
	}
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** One form component: `+` is a space, `%XX` are bytes (UTF-8, or Latin-1 when they are not UTF-8). */
function formComponent(text: string): string {
	const plain = text.replace(/\+/g, ' ');
	if (!plain.includes('%')) return plain;
	try {
		// The usual case, natively; it throws on bytes that are not UTF-8 or a stray %, read byte by byte below.
		return decodeURIComponent(plain);
	} catch {
		// Read below.
	}
	const bytes: number[] = [];
	for (let i = 0; i < plain.length; i++) {
		const ch = plain[i];
		if (ch === '%' && /^[0-9a-fA-F]{2}$/.test(plain.slice(i + 1, i + 3))) {
			bytes.push(parseInt(plain.slice(i + 1, i + 3), 16));
			i += 2;
		} else {
			bytes.push(...Buffer.from(ch, 'utf8'));
		}
	}
	return decodeBytes(Uint8Array.from(bytes));
}

/** A key that, assigned, sets an object's prototype rather than a field: dropped wherever a delivery's fields are copied. */
export const PROTOTYPE_KEY = '__proto__';

/** Whether a form key's path part is a list index that keeps the list dense (at most its length). */
function listIndex(list: unknown[], part: string): number {
	if (part === '') return list.length;
	return /^\d{1,9}$/.test(part) && Number(part) <= list.length ? Number(part) : -1;
}

/**
 * Sets `a[b][]`-style keys as PHP's `parse_str` does (nested objects, `[]` appends); a prototype key is dropped; an index
 * past a list's end makes it an object (PHP arrays are maps), so `a[]=1&a[20000000]=x` makes no list of twenty million.
 */
function setPhpKey(target: IDataObject, key: string, value: string): void {
	const match = /^([^[\]]+)((?:\[[^[\]]*\])+)$/.exec(key);
	const path = match
		? [match[1], ...Array.from(match[2].matchAll(/\[([^[\]]*)\]/g), (m) => m[1])]
		: [key];
	if (path.includes(PROTOTYPE_KEY)) return;
	let parent: IDataObject | unknown[] | undefined;
	let parentKey: string | number = '';
	let node: IDataObject | unknown[] = target;
	for (let i = 0; i < path.length; i++) {
		const part = path[i];
		let slot: string | number = part;
		if (Array.isArray(node)) {
			const index = listIndex(node, part);
			if (index >= 0) slot = index;
			else {
				const asObject: IDataObject = { ...(node as unknown as IDataObject) };
				(parent as IDataObject)[parentKey] = asObject;
				node = asObject;
			}
		}
		const container = node as IDataObject & unknown[];
		if (i === path.length - 1) {
			container[slot as number] = value;
			return;
		}
		// Only the container's own fields: an inherited one (`constructor`, `toString`) is not a field.
		const existing = Object.prototype.hasOwnProperty.call(container, slot)
			? container[slot as number]
			: undefined;
		if (existing === null || typeof existing !== 'object')
			container[slot as number] = path[i + 1] === '' ? [] : {};
		parent = container;
		parentKey = slot;
		node = container[slot as number] as IDataObject | unknown[];
	}
}

/** A form body as fields, PHP-style (`data[status]=11` gives `{data: {status: "11"}}`). */
export function parseForm(text: string): IDataObject {
	const fields: IDataObject = {};
	for (const pair of text.split('&')) {
		if (pair === '') continue;
		const at = pair.indexOf('=');
		const key = formComponent(at < 0 ? pair : pair.slice(0, at));
		const value = at < 0 ? '' : formComponent(pair.slice(at + 1));
		if (key !== '') setPhpKey(fields, key, value);
	}
	return fields;
}

/** JSON text as documents, or why it cannot be read. */
function jsonDocuments(text: string, what: string, encoding: 'json' | 'payload'): ParsedBody {
	try {
		return { ok: true, documents: documentsOf(JSON.parse(text) as unknown), encoding };
	} catch (error) {
		return {
			ok: false,
			reason: `${what} is not valid JSON (${(error as Error).message.slice(0, 80)})`,
		};
	}
}

const looksLikeJson = (text: string) => /^\s*[[{"]/.test(text);

/** Documents from a parsed JSON value: an array is several, a JSON string holding JSON is unwrapped once. */
function documentsOf(value: unknown): unknown[] {
	if (typeof value === 'string' && looksLikeJson(value)) {
		try {
			return documentsOf(JSON.parse(value) as unknown);
		} catch {
			return [value];
		}
	}
	return Array.isArray(value) ? value : [value];
}

/** Whether a Content-Type is one the platform sends (JSON, a form or multipart form, plain text, none); anything else (XML…) is answered 415. */
export function supportedDeliveryType(contentType: string | undefined): boolean {
	return /^(|text\/json|application\/json|application\/[\w.+-]+\+json|application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)$/.test(
		mediaType(contentType),
	);
}

/** n8n reads a multipart form itself (the raw body is gone): its fields under `data`, its files under `files`. */
export function isMultipart(contentType: string | undefined): boolean {
	return mediaType(contentType) === 'multipart/form-data';
}

/**
 * A delivery's body as documents: JSON whatever the declared type when it looks like JSON, else a form, whose `payload`
 * field holds the JSON document. An empty body gives none (an SMS report may carry everything in the query string).
 */
export function parseBody(raw: Uint8Array | string | undefined, contentType?: string): ParsedBody {
	const text =
		typeof raw === 'string'
			? raw
			: raw && raw.length
				? decodeBytes(raw, charsetOf(contentType))
				: '';
	if (text.trim() === '') return { ok: true, documents: [], encoding: 'empty' };
	const type = mediaType(contentType);
	const declaredJson = /json/.test(type);
	const asJson = () => jsonDocuments(text.trim(), 'the body', 'json');
	if (looksLikeJson(text)) return asJson();
	if (!text.includes('='))
		return declaredJson
			? asJson()
			: { ok: false, reason: `the body is neither JSON nor a form (${type || 'no content type'})` };
	const fields = parseForm(text.trim());
	if (typeof fields.payload === 'string')
		return jsonDocuments(fields.payload, 'the payload field', 'payload');
	// Declared JSON but form-like without a payload: broken JSON, not an inbound SMS.
	if (declaredJson) return asJson();
	return { ok: true, documents: [fields], encoding: 'form' };
}

/** A body n8n already parsed (no raw bytes kept): a JSON object or array, form fields (the document in `payload`), or text. */
export function parseParsedBody(body: unknown, contentType?: string): ParsedBody {
	if (isMultipart(contentType)) {
		// Files are not read: the platform posts one variable, `payload`.
		const fields = body && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
		return parseParsedBody(fields, 'application/x-www-form-urlencoded');
	}
	if (typeof body === 'string' || Buffer.isBuffer(body)) return parseBody(body, contentType);
	if (body === undefined || body === null || (isRecord(body) && Object.keys(body).length === 0))
		return { ok: true, documents: [], encoding: 'empty' };
	const record = body as IDataObject;
	if (!Array.isArray(body) && typeof record.payload === 'string' && record.app === undefined)
		return jsonDocuments(record.payload, 'the payload field', 'payload');
	return {
		ok: true,
		documents: Array.isArray(body) ? body : [body],
		encoding: /json/.test(mediaType(contentType)) ? 'json' : 'form',
	};
}
