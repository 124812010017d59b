// n8n's own date library: n8n-workflow depends on it and n8n loads it; n8n's lint and scan allow it in community nodes.
import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { appendAll } from '../../shared/lists';
import { isRecord } from '../../shared/responseShape';
import { keyedToList } from '../fields';
import { PROTOTYPE_KEY } from './deliveryBody';
import {
	FAX_APP,
	INBOUND_SMS_APP,
	REPORT_APP,
	SMS_STATUSES,
	SMS_STATUS_APP,
	categoryOf,
} from './events';

/**
 * A delivery's documents (as deliveryBody reads them) turned into flat items, their times
 * normalised to ISO 8601 UTC; pure.
 */

const PLAIN_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?$/;
const ZONED_TIME =
	/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** The offset of UK local time from UTC at an instant, in minutes (60 in BST, 0 in GMT), from the time zone database. */
export function londonOffsetMinutes(utcMs: number): number {
	return DateTime.fromMillis(utcMs, { zone: 'Europe/London' }).offset;
}

/** ISO 8601 UTC, without milliseconds when there are none. */
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/**
 * A platform date-time (zoned, epoch seconds or milliseconds, or plain `YYYY-MM-DD hh:mm:ss` in UTC or UK time) as ISO 8601
 * UTC; in UK time an hour that occurs twice is read as BST, one skipped as GMT. Undefined when it is not a date-time.
 */
export function normaliseTime(value: unknown, zone: 'utc' | 'uk' = 'utc'): string | undefined {
	if (typeof value === 'number' && Number.isFinite(value) && value > 0)
		return iso(value > 1e11 ? value : value * 1000);
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (/^\d{9,13}$/.test(text)) return normaliseTime(Number(text), zone);
	const plain = PLAIN_TIME.exec(text);
	if (plain) {
		const [, y, mo, d, h, mi, s = '0', fraction = ''] = plain;
		const asUtc = Date.UTC(
			Number(y),
			Number(mo) - 1,
			Number(d),
			Number(h),
			Number(mi),
			Number(s),
			Math.round(Number(`0${fraction || '.0'}`) * 1000),
		);
		const check = new Date(asUtc);
		if (
			Number.isNaN(asUtc) ||
			check.getUTCFullYear() !== Number(y) ||
			check.getUTCMonth() !== Number(mo) - 1 ||
			check.getUTCDate() !== Number(d) ||
			Number(h) > 23 ||
			Number(mi) > 59 ||
			Number(s) > 59
		)
			return undefined;
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

/** Names the trigger itself gives; a `data` field of the same name is kept as `data_<name>`. */
const WRAPPER_FIELDS = new Set([
	'app',
	'id',
	'timestamp',
	'eventTime',
	'eventTimeSource',
	'receivedAt',
	'query',
	'dataIndex',
]);

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
const INBOUND_SMS_FIELDS = [
	'message',
	'originator',
	'destination',
	'length',
	'time',
	'from',
	'to',
	'received',
];

function carriesSmsField(document: IDataObject): boolean {
	const data = isRecord(document.data) ? document.data : {};
	return INBOUND_SMS_FIELDS.some(
		(field) => Object.hasOwn(document, field) || Object.hasOwn(data, field),
	);
}

/** `base` (a fresh object) with the fields added; one named like a wrapper field (or `hash`, when the wrapper gave one) as `data_<name>`. */
function merge(base: IDataObject, fields: IDataObject): IDataObject {
	const taken = (key: string) =>
		WRAPPER_FIELDS.has(key) || (key === 'hash' && base.hash !== undefined);
	let clash = false;
	for (const key of Object.keys(fields)) if (taken(key) || key === PROTOTYPE_KEY) clash = true;
	// Object.assign, not two spreads: those take a slow path in V8 (tens of microseconds a CDR), and this runs for every delivery.
	if (!clash) return Object.assign(base, fields);
	for (const [key, value] of Object.entries(fields))
		if (key !== PROTOTYPE_KEY) base[taken(key) ? `data_${key}` : key] = value;
	return base;
}

function smsStatusFields(status: unknown): IDataObject {
	const code =
		typeof status === 'number'
			? status
			: /^\d+$/.test(String(status ?? '').trim())
				? Number(String(status).trim())
				: undefined;
	const known = code === undefined ? undefined : SMS_STATUSES[code];
	const value = code ?? (status === undefined ? null : (status as string));
	return {
		status: value,
		statusName: known?.name ?? null,
		statusDescription: known?.description ?? null,
		final: known ? known.final : null,
	};
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
export function documentEvents(
	document: unknown,
	options: EventOptions,
): DeliveryDocument | { reason: string } {
	if (!isRecord(document))
		return {
			reason: `a document is ${Array.isArray(document) ? 'an array' : typeof document}, not an object`,
		};
	const declared = text(document.app);
	if (declared === undefined && !carriesSmsField(document))
		return { reason: 'a document has no app and no field of an inbound SMS' };
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
		const [eventTime, eventTimeSource] = eventTimeOf(app, timestamp, fields) ?? [
			receivedAt,
			'receivedAt',
		];
		const base: IDataObject = {
			app,
			id: id ?? null,
			timestamp,
			eventTime,
			eventTimeSource,
			receivedAt,
		};
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
		dedupeKey:
			id === undefined || app === REPORT_APP
				? undefined
				: `${app}\n${id}${withStatus ? `\n${String(items[0]?.status ?? '')}` : ''}`,
		items,
	};
}

/** Inbound SMS: the document is the message itself, less the wrapper's fields. */
function messageFields(document: IDataObject): IDataObject {
	const rest: IDataObject = {};
	for (const [key, value] of Object.entries(document))
		if (key !== 'id' && key !== 'timestamp' && key !== 'app' && key !== PROTOTYPE_KEY)
			rest[key] = value;
	return rest;
}

function dataFields(data: unknown): IDataObject[] {
	if (Array.isArray(data))
		return data.length
			? data.map((entry) => (isRecord(entry) ? entry : { value: entry as string }))
			: [{}];
	if (isRecord(data)) return [data];
	return [data === undefined || data === null ? {} : { data: data as string }];
}

/** The time of the event and where it came from: the wrapper's `timestamp`, else the first of the app's own time fields that holds one. */
function eventTimeOf(
	app: string,
	timestamp: unknown,
	fields: IDataObject,
): [string, string] | undefined {
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
	for (const key of [...WRAPPER_FIELDS, 'account', 'datetime', 'datetimeUtc', 'currency']) {
		if (summary[key] !== undefined) shared[key] = summary[key];
	}
	return calls.map((call, callIndex) =>
		merge(
			Object.assign({}, shared, { callIndex, callCount: calls.length }),
			isRecord(call) ? call : { value: call as string },
		),
	);
}

/** Every document of a delivery; an empty body is an SMS delivery report when the query carries its `status` (`%status%`), else an error. */
export function deliveryEvents(
	documents: unknown[],
	options: EventOptions,
): { ok: true; documents: DeliveryDocument[] } | { ok: false; reason: string } {
	let list = documents;
	if (list.length === 0) {
		if (queryValue(options.query, 'status') === undefined)
			return { ok: false, reason: 'the body is empty' };
		list = [{ app: SMS_STATUS_APP }];
	}
	const out: DeliveryDocument[] = [];
	for (const document of list) {
		const unwrapped =
			isRecord(document) && document.app === undefined && document.payload !== undefined
				? unwrapPayload(document.payload)
				: document;
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
