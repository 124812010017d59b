import type { IDataObject } from 'n8n-workflow';

import { appendAll } from '../../shared/lists';
import { isRecord } from '../../shared/responseShape';
import { keyedToList } from '../fields';

/**
 * What the platform pushes, read as it sends it and turned into flat items; pure: bytes and a content type in, items out.
 * Webhooks are JSON as `text/json` (n8n's parser leaves it alone) with PHP's escaping; report callbacks and SMS reports
 * a form field `payload` holding the JSON; inbound SMS a form (`http`) or JSON (`http_json`), not shown in the spec.
 */

export const REPORT_APP = 'reports';
export const SMS_STATUS_APP = 'sms_send_status';
/** Inbound SMS carries no `app` (not a webhook in the spec); its items are marked with this one. */
export const INBOUND_SMS_APP = 'sms_inbound';
/** What the legacy `http` mode names an inbound SMS (real payloads): the same event as Inbound SMS. */
export const LEGACY_INBOUND_SMS_APP = 'mvno_inbound_sms';
/** The filter value of any `app` the spec does not list (e.g. the announced trunk events). */
export const OTHER_APPS = 'other';
/** The `app` of an item reporting a body that could not be read (when the user asks for such items). */
export const UNPARSEABLE_APP = 'unparseable';
/** The public docs' name of a received fax (legacy mode: a `hash`, no `id`) and of an outbound fax's status report; chosen under Other Apps. */
export const FAX_APP = 'fax_inbound';

export const EVENT_CHOICES: Array<{ name: string; action: string; value: string; description: string }> = [
	{ name: 'Call Inbound', action: 'On inbound call', value: 'call_inbound', description: 'An inbound call at each stage (ringing, answered, hangup)' },
	{ name: 'Call Outbound', action: 'On outbound call', value: 'call_outbound', description: 'An outbound call at each stage' },
	{ name: 'Call Blocked', action: 'On blocked call', value: 'call_blocked', description: 'A call blocked by an account or trunk limit or a fraud setting' },
	{ name: 'Call Warning', action: 'On call warning', value: 'call_warning', description: 'A call with invalid signalling (invalid CLI or destination)' },
	{ name: 'Calls in Progress Summary', action: 'On calls-in-progress summary', value: 'inprogress_summary', description: 'Sent periodically: totals, balance, calls per destination (or each call)' },
	{ name: 'CDR (Finished Call)', action: 'On CDR of a finished call', value: 'cdr', description: 'A completed call, or shortly after when rated' },
	{ name: 'Rate Update', action: 'On rate update', value: 'rate_update', description: 'A new rate card is available' },
	{ name: '999 Call Without Address Data', action: 'On 999 call without address data', value: 'eha_missing_data', description: 'An emergency call made from a number without valid address data' },
	{ name: 'Porting', action: 'On porting status change', value: 'porting', description: 'A status change of a UK GNP or NGNP port' },
	{ name: 'Number Export', action: 'On number export status change', value: 'export', description: 'A status change of a number export' },
	{ name: 'Report Ready', action: 'On report ready', value: REPORT_APP, description: 'A report requested with this URL as its callback is ready' },
	{ name: 'SMS Delivery Report', action: 'On SMS delivery report', value: SMS_STATUS_APP, description: 'A status of an outgoing SMS sent with this URL as its report URL' },
	{ name: 'Inbound SMS', action: 'On inbound SMS', value: INBOUND_SMS_APP, description: "An SMS to a number whose SMS endpoint is this URL (mode http or http_json)" },
	{ name: 'Other Apps', action: "On another app's event", value: OTHER_APPS, description: 'Any app the spec does not list yet (e.g. trunk changes), emitted as it arrives' },
];

export const ALL_EVENTS: string[] = EVENT_CHOICES.map((c) => c.value);

/** The SMS delivery statuses (DLR) of the spec, with whether the message can still change state. */
export const SMS_STATUSES: Record<number, { name: string; description: string; final: boolean }> = {
	1: { name: 'Received', description: 'Committed to a queue', final: false },
	2: { name: 'Submitted', description: 'Left the service', final: false },
	11: { name: 'Delivered', description: 'Handset confirmed', final: true },
	12: { name: 'Rejected', description: 'Not delivered, not retried', final: true },
	13: { name: 'Error', description: 'Syntax error, usually an invalid destination or a disallowed source', final: true },
	14: { name: 'Queued', description: 'Buffered in transit (phone off or out of coverage)', final: false },
	18: { name: 'SMSCa', description: 'Accepted by the SMS centre', final: false },
	26: { name: 'SMSCr', description: 'Rejected by the SMS centre, not retried', final: true },
};

export type ParsedBody =
	| { ok: true; documents: unknown[]; encoding: 'json' | 'form' | 'payload' | 'empty' }
	| { ok: false; reason: string };

const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase();
const charsetOf = (contentType: string | undefined) => /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();

const LATIN1 = new Set(['iso-8859-1', 'latin1', 'latin-1', 'windows-1252', 'cp1252', 'us-ascii', 'ascii']);

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
const PROTOTYPE_KEY = '__proto__';

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
	const path = match ? [match[1], ...Array.from(match[2].matchAll(/\[([^[\]]*)\]/g), (m) => m[1])] : [key];
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
		const existing = Object.prototype.hasOwnProperty.call(container, slot) ? container[slot as number] : undefined;
		if (existing === null || typeof existing !== 'object') container[slot as number] = path[i + 1] === '' ? [] : {};
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
		return { ok: false, reason: `${what} is not valid JSON (${(error as Error).message.slice(0, 80)})` };
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
	return /^(|text\/json|application\/json|application\/[\w.+-]+\+json|application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)$/.test(mediaType(contentType));
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
	const text = typeof raw === 'string' ? raw : raw && raw.length ? decodeBytes(raw, charsetOf(contentType)) : '';
	if (text.trim() === '') return { ok: true, documents: [], encoding: 'empty' };
	const type = mediaType(contentType);
	const declaredJson = /json/.test(type);
	const asJson = () => jsonDocuments(text.trim(), 'the body', 'json');
	if (looksLikeJson(text)) return asJson();
	if (!text.includes('=')) return declaredJson ? asJson() : { ok: false, reason: `the body is neither JSON nor a form (${type || 'no content type'})` };
	const fields = parseForm(text.trim());
	if (typeof fields.payload === 'string') return jsonDocuments(fields.payload, 'the payload field', 'payload');
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
	if (body === undefined || body === null || (isRecord(body) && Object.keys(body).length === 0)) return { ok: true, documents: [], encoding: 'empty' };
	const record = body as IDataObject;
	if (!Array.isArray(body) && typeof record.payload === 'string' && record.app === undefined) return jsonDocuments(record.payload, 'the payload field', 'payload');
	return { ok: true, documents: Array.isArray(body) ? body : [body], encoding: /json/.test(mediaType(contentType)) ? 'json' : 'form' };
}

const PLAIN_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?$/;
const ZONED_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** 01:00 UTC on the last Sunday of a month: when UK clocks change (the EU rule, in force since 1996). */
function lastSundayOneAm(year: number, month: number): number {
	const lastDay = new Date(Date.UTC(year, month + 1, 0, 1));
	return lastDay.getTime() - lastDay.getUTCDay() * 86_400_000;
}

/** The offset of UK local time from UTC at an instant, in minutes: 60 (BST) from late March to late October, else 0 (GMT). */
export function londonOffsetMinutes(utcMs: number): number {
	const year = new Date(utcMs).getUTCFullYear();
	return utcMs >= lastSundayOneAm(year, 2) && utcMs < lastSundayOneAm(year, 9) ? 60 : 0;
}

/** ISO 8601 UTC, without milliseconds when there are none. */
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/**
 * A platform date-time (zoned, epoch seconds or milliseconds, or plain `YYYY-MM-DD hh:mm:ss` in UTC or UK time) as ISO 8601
 * UTC; in UK time an hour that occurs twice is read as BST, one skipped as GMT. Undefined when it is not a date-time.
 */
export function normaliseTime(value: unknown, zone: 'utc' | 'uk' = 'utc'): string | undefined {
	if (typeof value === 'number' && Number.isFinite(value) && value > 0) return iso(value > 1e11 ? value : value * 1000);
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (/^\d{9,13}$/.test(text)) return normaliseTime(Number(text), zone);
	const plain = PLAIN_TIME.exec(text);
	if (plain) {
		const [, y, mo, d, h, mi, s = '0', fraction = ''] = plain;
		const asUtc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Math.round(Number(`0${fraction || '.0'}`) * 1000));
		const check = new Date(asUtc);
		if (Number.isNaN(asUtc) || check.getUTCFullYear() !== Number(y) || check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
		if (zone === 'utc') return iso(asUtc);
		for (const offset of [60, 0]) {
			const candidate = asUtc - offset * 60_000;
			if (londonOffsetMinutes(candidate) === offset) return iso(candidate);
		}
		return iso(asUtc);
	}
	if (ZONED_TIME.test(text)) {
		const ms = Date.parse(text.replace(' ', 'T').replace(/\s+(?=[Zz+-]\d*)/, ''));
		return Number.isNaN(ms) ? undefined : iso(ms);
	}
	return undefined;
}

/** The category an `app` is chosen under in the node: the app itself, or Other Apps. */
export function categoryOf(app: string): string {
	const event = app === LEGACY_INBOUND_SMS_APP ? INBOUND_SMS_APP : app;
	return ALL_EVENTS.includes(event) && event !== OTHER_APPS ? event : OTHER_APPS;
}

/** Names the trigger itself gives; a `data` field of the same name is kept as `data_<name>`. */
const WRAPPER_FIELDS = new Set(['app', 'id', 'timestamp', 'eventTime', 'eventTimeSource', 'receivedAt', 'query', 'dataIndex']);

export interface EventOptions {
	/** `inprogress_summary`: one item per call (destination, in the summary form) instead of one per summary. */
	splitCalls: boolean;
	receivedAt: Date;
	/** The URL's query parameters, the secret removed (SMS reports may carry `%id%`/`%status%` there). */
	query: IDataObject;
}

export interface DeliveryDocument {
	app: string;
	/** The node's filter value for this app. */
	category: string;
	/** Same key, same message: `app` and `id` (and the status, for SMS reports: one message has several). */
	dedupeKey?: string;
	items: IDataObject[];
}

function text(value: unknown): string | undefined {
	const trimmed = value === undefined || value === null ? '' : String(value).trim();
	return trimmed === '' ? undefined : trimmed;
}

/** A query value that the platform substituted (not an unreplaced `%id%`). */
function queryValue(query: IDataObject, name: string): string | undefined {
	const value = text(Array.isArray(query[name]) ? (query[name] as unknown[])[0] : query[name]);
	return value === undefined || /^%\w+%$/.test(value) ? undefined : value;
}

/** The time of the event, when the wrapper has no `timestamp`: the first of the app's own fields that holds one, or none. */
const OWN_TIME: Record<string, { fields: string[]; zone: 'utc' | 'uk' }> = {
	[SMS_STATUS_APP]: { fields: ['dtime'], zone: 'utc' }, // "generated or received by the service"; the spec's date-times are GMT
	inprogress_summary: { fields: ['datetime'], zone: 'uk' }, // the spec: UK local time
	[INBOUND_SMS_APP]: { fields: ['time', 'received'], zone: 'utc' }, // real payloads' `time`, the sandbox's `received`
	[FAX_APP]: { fields: ['time', 'dtime'], zone: 'utc' }, // the public docs: a received fax's `time`, a fax report's `dtime`
};

/** Fields of an inbound SMS (the public docs' and the sandbox's; the spec shows none): any one makes a document without `app` one. */
const INBOUND_SMS_FIELDS = ['message', 'originator', 'destination', 'length', 'time', 'from', 'to', 'received'];

function carriesSmsField(document: IDataObject): boolean {
	const data = isRecord(document.data) ? document.data : {};
	return INBOUND_SMS_FIELDS.some((field) => Object.hasOwn(document, field) || Object.hasOwn(data, field));
}

/** `base` (a fresh object) with the fields added; one named like a wrapper field (or `hash`, when the wrapper gave one) as `data_<name>`. */
function merge(base: IDataObject, fields: IDataObject): IDataObject {
	const taken = (key: string) => WRAPPER_FIELDS.has(key) || (key === 'hash' && base.hash !== undefined);
	let clash = false;
	for (const key of Object.keys(fields)) if (taken(key) || key === PROTOTYPE_KEY) clash = true;
	// Object.assign, not two spreads: those take a slow path in V8 (tens of microseconds a CDR), and this runs for every delivery.
	if (!clash) return Object.assign(base, fields);
	for (const [key, value] of Object.entries(fields)) if (key !== PROTOTYPE_KEY) base[taken(key) ? `data_${key}` : key] = value;
	return base;
}

function smsStatusFields(status: unknown): IDataObject {
	const code = typeof status === 'number' ? status : /^\d+$/.test(String(status ?? '').trim()) ? Number(String(status).trim()) : undefined;
	const known = code === undefined ? undefined : SMS_STATUSES[code];
	const value = code ?? (status === undefined ? null : (status as string));
	return { status: value, statusName: known?.name ?? null, statusDescription: known?.description ?? null, final: known ? known.final : null };
}

/** `inprogress_summary`: `calls` and `countries` as lists (keyed objects in the summary form), as the action node gives them. */
function callsInProgressFields(data: IDataObject): IDataObject {
	const out: IDataObject = { ...data };
	if (data.calls !== undefined) out.calls = keyedToList(data.calls, 'dest_id');
	if (data.countries !== undefined) out.countries = keyedToList(data.countries, 'country_code');
	const utc = normaliseTime(data.datetime, 'uk');
	if (utc) out.datetimeUtc = utc;
	return out;
}

/** One document as items: `data` as an object one item, as an array one per element (with `dataIndex`), null or absent the wrapper alone. */
export function documentEvents(document: unknown, options: EventOptions): DeliveryDocument | { reason: string } {
	if (!isRecord(document)) return { reason: `a document is ${Array.isArray(document) ? 'an array' : typeof document}, not an object` };
	const declared = text(document.app);
	if (declared === undefined && !carriesSmsField(document)) return { reason: 'a document has no app and no field of an inbound SMS' };
	const app = declared ?? INBOUND_SMS_APP;
	// A received fax in the legacy mode has no id: its hash (the key to fetch it) identifies it.
	const hash = declared === undefined ? undefined : text(document.hash);
	let id = text(document.id) ?? hash;
	let fieldsList = declared === undefined ? [messageFields(document)] : dataFields(document.data);
	if (app === SMS_STATUS_APP) {
		id ??= queryValue(options.query, 'id');
		fieldsList = fieldsList.map((fields) => {
			const status = fields.status ?? queryValue(options.query, 'status');
			// A spread copies a `__proto__` field as a field (merge drops it); the status fields are ours.
			return Object.assign({ ...fields }, smsStatusFields(status));
		});
	}
	if (app === 'inprogress_summary') fieldsList = fieldsList.map(callsInProgressFields);

	const timestamp = document.timestamp === undefined ? null : (document.timestamp as string);
	const receivedAt = iso(options.receivedAt.getTime());
	const items: IDataObject[] = [];
	fieldsList.forEach((fields, index) => {
		const [eventTime, eventTimeSource] = eventTimeOf(app, timestamp, fields) ?? [receivedAt, 'receivedAt'];
		const base: IDataObject = { app, id: id ?? null, timestamp, eventTime, eventTimeSource, receivedAt };
		if (app === REPORT_APP) base.hash = id ?? null;
		else if (hash !== undefined) base.hash = hash;
		const item = merge(base, fields);
		if (Object.keys(options.query).length) item.query = options.query;
		if (fieldsList.length > 1) item.dataIndex = index;
		if (app === 'inprogress_summary' && options.splitCalls) appendAll(items, perCall(item));
		else items.push(item);
	});

	// One SMS or outbound fax has several status reports under one id: each status is its own event.
	const withStatus = app === SMS_STATUS_APP || (app === FAX_APP && items[0]?.status !== undefined);
	return {
		app,
		category: categoryOf(app),
		// Report callbacks are never dropped: a report requested again may carry the same hash, and a dropped callback loses its file.
		dedupeKey: id === undefined || app === REPORT_APP ? undefined : `${app}\n${id}${withStatus ? `\n${String(items[0]?.status ?? '')}` : ''}`,
		items,
	};
}

/** Inbound SMS: the document is the message itself, less the wrapper's fields. */
function messageFields(document: IDataObject): IDataObject {
	const rest: IDataObject = {};
	for (const [key, value] of Object.entries(document)) if (key !== 'id' && key !== 'timestamp' && key !== 'app' && key !== PROTOTYPE_KEY) rest[key] = value;
	return rest;
}

function dataFields(data: unknown): IDataObject[] {
	if (Array.isArray(data)) return data.length ? data.map((entry) => (isRecord(entry) ? entry : { value: entry as string })) : [{}];
	if (isRecord(data)) return [data];
	return [data === undefined || data === null ? {} : { data: data as string }];
}

/** The time of the event and where it came from: the wrapper's `timestamp`, else the first of the app's own time fields that holds one. */
function eventTimeOf(app: string, timestamp: unknown, fields: IDataObject): [string, string] | undefined {
	const stamped = normaliseTime(timestamp, 'utc');
	if (stamped) return [stamped, 'timestamp'];
	// Own fields (never a prototype's): an app may be named anything.
	const own = OWN_TIME[Object.hasOwn(OWN_TIME, app) ? app : categoryOf(app)];
	for (const field of own?.fields ?? []) {
		const time = normaliseTime(fields[field], own.zone);
		if (time) return [time, field];
	}
	return undefined;
}

/** One item per call of a calls-in-progress summary: the call's fields with the summary's account, times and currency. */
function perCall(summary: IDataObject): IDataObject[] {
	const calls = Array.isArray(summary.calls) ? (summary.calls as IDataObject[]) : [];
	const shared: IDataObject = {};
	for (const key of ['app', 'id', 'timestamp', 'eventTime', 'eventTimeSource', 'receivedAt', 'account', 'datetime', 'datetimeUtc', 'currency', 'query', 'dataIndex']) {
		if (summary[key] !== undefined) shared[key] = summary[key];
	}
	return calls.map((call, callIndex) => merge(Object.assign({}, shared, { callIndex, callCount: calls.length }), isRecord(call) ? call : { value: call as string }));
}

/** Every document of a delivery; an empty body is an SMS delivery report when the query carries its `status` (`%status%`), else an error. */
export function deliveryEvents(documents: unknown[], options: EventOptions): { ok: true; documents: DeliveryDocument[] } | { ok: false; reason: string } {
	let list = documents;
	if (list.length === 0) {
		if (queryValue(options.query, 'status') === undefined) return { ok: false, reason: 'the body is empty' };
		list = [{ app: SMS_STATUS_APP }];
	}
	const out: DeliveryDocument[] = [];
	for (const document of list) {
		const unwrapped = isRecord(document) && document.app === undefined && document.payload !== undefined ? unwrapPayload(document.payload) : document;
		const result = documentEvents(unwrapped, options);
		if ('reason' in result) return { ok: false, reason: result.reason };
		out.push(result);
	}
	return { ok: true, documents: out };
}

/** A JSON body `{"payload": "<json>"}` or `{"payload": {...}}`: the document inside. */
function unwrapPayload(payload: unknown): unknown {
	if (typeof payload !== 'string') return payload;
	try {
		return JSON.parse(payload) as unknown;
	} catch {
		return { payload };
	}
}
