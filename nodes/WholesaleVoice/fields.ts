import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions, INodeProperties } from 'n8n-workflow';

import { wholesaleVoiceApi } from '../shared/apis';
import type { ApiPath, ApiResponse, OperationSpec, OutputItem, Params, ValidationIssue } from '../shared/operation';
import { findRecords } from '../shared/pagination';
import { UnexpectedAnswer, isRecord } from '../shared/responseShape';
import { describeValue, isBlank, phoneDigits, trunkPrefixIssue } from '../shared/validation';
import { createClient } from '../shared/transport/client';

export const ACCOUNT_PATH = '/v3/accounts/{ACCOUNT}';
export const VOICE_PATH = '/v3/voice/{ACCOUNT}';
export const NUMBERS_PATH = '/v3/numbers/{ACCOUNT}';

/** The `data` of a `{success, data}` envelope; any other body as it is. */
export function unwrap(body: unknown): unknown {
	if (body && typeof body === 'object' && !Array.isArray(body) && 'success' in body && 'data' in body) {
		return (body as IDataObject).data;
	}
	return body;
}

/** Items from a wholesale answer: a list one item per element, an object one item; an answer the contract lets be empty says its status. */
export function wholesaleItems(response: ApiResponse): OutputItem[] {
	const body = unwrap(response.body);
	if (Array.isArray(body)) return body.map((entry) => (entry && typeof entry === 'object' ? (entry as IDataObject) : { value: entry as string }));
	if (body === undefined || body === null || body === '') {
		return [response.body && typeof response.body === 'object' ? (response.body as IDataObject) : { success: true, statusCode: response.status }];
	}
	return typeof body === 'object' ? [body as IDataObject] : [{ value: body as string }];
}

/**
 * The records of a list answer, for lists whose shape the spec shows only in part (CDRs) or not at
 * all (rejected calls): a list, or the list inside its envelope, gives one item per record, and
 * an empty one none. An object holding no list the node recognises (say one keyed by day or by
 * reason) is kept whole as one item, its envelope removed: data is never dropped for its shape.
 * Text, a number or null is an unexpected answer, an error.
 */
export function wholesaleList(operation: string, expected: string): (response: ApiResponse) => IDataObject[] {
	return (response) => {
		const records = findRecords(response.body);
		if (records) return records;
		const body = unwrap(response.body);
		if (isRecord(body)) return [body];
		throw new UnexpectedAnswer(wholesaleVoiceApi.label, operation, body, expected);
	};
}

/** A map keyed by id (`{"44": {...}}`) as a list, the key kept under `keyName`. */
export function keyedToList(map: unknown, keyName: string): IDataObject[] {
	if (Array.isArray(map)) return map as IDataObject[];
	if (!map || typeof map !== 'object') return [];
	return Object.entries(map as IDataObject).map(([key, value]) => ({ [keyName]: key, ...((value ?? {}) as IDataObject) }));
}

/** A number as the API wants it in paths: E.164 digits without the plus (a national `(0)` after the country code dropped). */
export function e164Digits(value: unknown): string {
	return phoneDigits(value).replace(/^\+/, '');
}

export function numberIssue(field: string, value: unknown): ValidationIssue[] {
	if (isBlank(value)) return [{ field, problem: 'it is empty', rule: 'an E.164 number without the plus, e.g. 441632960000' }];
	const trunk = trunkPrefixIssue(field, value);
	if (trunk) return [trunk];
	// E.164 allows at most 15 digits; the shortest numbers in use (Niue, Saint Helena) have 7 with the country code.
	return /^[1-9]\d{6,14}$/.test(e164Digits(value))
		? []
		: [{ field, problem: `${describeValue(value)} is not an E.164 number`, rule: 'an E.164 number: country code and number, 7 to 15 digits, e.g. 441632960000' }];
}

export const numberField: INodeProperties = {
	displayName: 'Number',
	name: 'number',
	type: 'string',
	required: true,
	default: '',
	placeholder: '441632960000',
	description: 'The number in E.164 form; a leading + and spaces are removed',
};

export function numberPath(params: Params, rest = ''): ApiPath {
	return { path: `${NUMBERS_PATH}/allocated/{number}${rest}`, pathParams: { number: e164Digits(params.number) } };
}

/** An ISO date or date-time without a zone: `2025-06-10`, `2025-06-10T09:30`, `2025-06-10 09:30:00.000`. */
const WALL_CLOCK = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;
/** A zone written out: `Z`, `+02:00`, `-0500`, `GMT+0200`, `UTC`. */
const WRITTEN_ZONE = /(?:\d(?:Z|[+-]\d{2}(?::?\d{2})?)$)|\b(?:GMT|UTC)\b/i;

/**
 * A date-time from an n8n date picker or text as the API writes it: `YYYY-MM-DD hh:mm:ss` in
 * GMT. The picker gives a wall-clock time without a zone (`2025-06-10T00:00:00`): it is the GMT
 * time as written, never read in the time zone of the machine n8n runs on. A value with a zone
 * (`Z`, an offset, a Date or Luxon DateTime from an expression) is that instant, converted to GMT.
 * Anything else is kept as typed, for the validators to refuse with the form they expect.
 */
export function plainDateTime(value: unknown): string | undefined {
	if (isBlank(value)) return undefined;
	const instant = value as { toISO?: () => string | null; toISOString?: () => string };
	const text =
		typeof instant.toISO === 'function' ? String(instant.toISO()) : typeof instant.toISOString === 'function' ? instant.toISOString() : String(value).trim();
	const wall = WALL_CLOCK.exec(text);
	if (wall) return `${wall[1]} ${wall[2] ?? '00'}:${wall[3] ?? '00'}:${wall[4] ?? '00'}`;
	if (!WRITTEN_ZONE.test(text)) return text;
	const date = new Date(text);
	if (Number.isNaN(date.getTime())) return text;
	return date.toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * A date from a picker or text as `YYYY-MM-DD`: the calendar date as written. The picker gives a
 * local date-time without a zone (`2025-06-10T00:00:00`), and an expression may give one with an
 * offset; converting either to UTC would move it to the day before wherever n8n runs ahead of UTC.
 */
export function plainDate(value: unknown): string | undefined {
	if (isBlank(value)) return undefined;
	const text = String(value).trim();
	const written = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/.exec(text);
	if (written) return written[1];
	const date = new Date(text);
	return Number.isNaN(date.getTime()) ? text : date.toISOString().slice(0, 10);
}

export function dateField(name: string, displayName: string, description: string): INodeProperties {
	return { displayName, name, type: 'dateTime', default: '', description };
}

/** One operation that is a single GET, its answer unwrapped into items. */
export function getOperation(options: {
	value: string;
	name: string;
	action: string;
	description: string;
	path: string | ((params: Params) => ApiPath);
	query?: (params: Params) => IDataObject;
	fields?: INodeProperties[];
	validate?: OperationSpec['validate'];
	output?: OperationSpec['output'];
	paging?: OperationSpec['paging'];
}): OperationSpec {
	return {
		value: options.value,
		name: options.name,
		action: options.action,
		description: options.description,
		fields: options.fields,
		paging: options.paging,
		validate: options.validate,
		request: (p) => ({
			method: 'GET',
			...(typeof options.path === 'string' ? { path: options.path } : options.path(p)),
			qs: options.query?.(p),
		}),
		output: options.output ?? wholesaleItems,
	};
}

/** The tariffs of the account, for the rate card deck dropdown. */
export async function getRateDecks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const client = createClient(this, wholesaleVoiceApi);
	const response = await client.request({ method: 'GET', path: `${ACCOUNT_PATH}/rates/tariffs` });
	const tariffs = (unwrap(response.body) as IDataObject[] | undefined) ?? [];
	const decks: INodePropertyOptions[] = [{ name: 'Default', value: 'default', description: 'The default rate deck' }];
	for (const tariff of Array.isArray(tariffs) ? tariffs : []) {
		const deck = String(tariff.url ?? '').split('/').filter(Boolean).pop();
		if (!deck || deck === 'default') continue;
		decks.push({ name: String(tariff.description ?? deck), value: deck, description: `Service level ${tariff.servicelevel ?? '?'}, ${tariff.quality ?? ''}`.trim() });
	}
	return decks;
}

/** The losing providers of a GNP port, for the LCP dropdown. */
export async function getLosingProviders(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const client = createClient(this, wholesaleVoiceApi);
	const response = await client.request<IDataObject>({ method: 'GET', path: '/v3/porting/{ACCOUNT}/lcps' });
	const providers = (response.body.cps ?? unwrap(response.body) ?? []) as IDataObject[];
	return (Array.isArray(providers) ? providers : []).map((cp) => ({
		name: `${cp.cpName} (${cp.cupid})`,
		value: `${cp.cupid}|${cp.cpName}`,
	}));
}

/** Issues of the shared validators name API fields (`date_start`); the node shows its own names. */
export function asDisplayed(found: ValidationIssue[], names: Record<string, string>): ValidationIssue[] {
	return found.map((issue) => {
		const [head, ...rest] = issue.field.split(/(?=[.[])/);
		return head in names ? { ...issue, field: [names[head], ...rest].join('') } : issue;
	});
}

/** The notification types available on the account, for the type dropdown. */
export async function getNotificationTypes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const client = createClient(this, wholesaleVoiceApi);
	const response = await client.request({ method: 'GET', path: `${ACCOUNT_PATH}/notifications/available` });
	const body = unwrap(response.body);
	const names = Array.isArray(body)
		? body.map((entry) => (entry && typeof entry === 'object' ? String((entry as IDataObject).type ?? (entry as IDataObject).name ?? '') : String(entry)))
		: body && typeof body === 'object'
			? Object.keys(body as IDataObject)
			: [];
	return names.filter(Boolean).map((name) => ({ name, value: name }));
}
