import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { wholesaleVoiceApi } from '../shared/apis';
import type {
	ApiPath,
	ApiResponse,
	HttpMethod,
	OperationSpec,
	OutputItem,
	Params,
	RequestEnvironment,
	ValidationIssue,
} from '../shared/operation';
import { findRecords } from '../shared/pagination';
import { UnexpectedAnswer, isRecord } from '../shared/responseShape';
import { describeValue, isBlank } from '../shared/validation';
import { phoneDigits, trunkPrefixIssue } from '../shared/phoneNumbers';
import { textField } from '../shared/fields';
import { createClient } from '../shared/transport/client';

export const ACCOUNT_PATH = '/v3/accounts/{ACCOUNT}';
export const VOICE_PATH = '/v3/voice/{ACCOUNT}';
export const NUMBERS_PATH = '/v3/numbers/{ACCOUNT}';

/** The `data` of a `{success, data}` envelope; any other body as it is. */
export function unwrap(body: unknown): unknown {
	return isRecord(body) && 'success' in body && 'data' in body ? body.data : body;
}

/** Items from a wholesale answer: a list one item per element, an object one item; an answer the contract lets be empty says its status. */
export function wholesaleItems(response: ApiResponse): OutputItem[] {
	const body = unwrap(response.body);
	if (Array.isArray(body))
		return body.map((entry) =>
			entry && typeof entry === 'object' ? (entry as IDataObject) : { value: entry as string },
		);
	if (body === undefined || body === null || body === '') {
		return [
			response.body && typeof response.body === 'object'
				? (response.body as IDataObject)
				: { success: true, statusCode: response.status },
		];
	}
	return typeof body === 'object' ? [body as IDataObject] : [{ value: body as string }];
}

/** The first item of a wholesale answer, for outputs that add fields to it. */
export const firstItem = (response: ApiResponse) => wholesaleItems(response)[0] as IDataObject;

/**
 * The records of a list whose shape the spec shows in part (CDRs) or not at all (rejected calls): an
 * object holding no list is kept whole, never dropped for its shape; text, a number or null is an error.
 */
export function wholesaleList(
	operation: string,
	expected: string,
): (response: ApiResponse) => IDataObject[] {
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
	return Object.entries(map as IDataObject).map(([key, value]) => ({
		[keyName]: key,
		...((value ?? {}) as IDataObject),
	}));
}

/** A number as the API wants it in paths: E.164 digits without the plus (a national `(0)` after the country code dropped). */
export function e164Digits(value: unknown): string {
	return phoneDigits(value).replace(/^\+/, '');
}

export function numberIssue(field: string, value: unknown): ValidationIssue[] {
	if (isBlank(value))
		return [
			{
				field,
				problem: 'it is empty',
				rule: 'an E.164 number without the plus, e.g. 441632960000',
			},
		];
	const trunk = trunkPrefixIssue(field, value);
	if (trunk) return [trunk];
	// E.164 allows at most 15 digits; the shortest numbers in use (Niue, Saint Helena) have 7 with the country code.
	return /^[1-9]\d{6,14}$/.test(e164Digits(value))
		? []
		: [
				{
					field,
					problem: `${describeValue(value)} is not an E.164 number`,
					rule: 'an E.164 number: country code and number, 7 to 15 digits, e.g. 441632960000',
				},
			];
}

export const numberIssues = (p: Params) => numberIssue('Number', p.number);

export const numberField = textField(
	'Number',
	'number',
	'The number in E.164 form; a leading + and spaces are removed',
	{ required: true, placeholder: 'e.g. 441632960000' },
);

export function numberPath(params: Params, rest = ''): ApiPath {
	return {
		path: `${NUMBERS_PATH}/allocated/{number}${rest}`,
		pathParams: { number: e164Digits(params.number) },
	};
}

/** `{name}` in a path stands for the parameter of that name (upper-case ones, such as ACCOUNT, are the transport's). */
export function pathWith(path: string, params: Params): ApiPath {
	const names = Array.from(path.matchAll(/\{([a-z]\w*)\}/g), (match) => match[1]);
	return names.length
		? { path, pathParams: Object.fromEntries(names.map((name) => [name, params[name]])) }
		: { path };
}

interface CallOptions extends Omit<OperationSpec, 'request'> {
	method?: HttpMethod;
	/** A path whose `{name}`s are parameters (see pathWith), or one computed. */
	path: string | ((params: Params, environment: RequestEnvironment) => ApiPath);
	query?: (params: Params) => IDataObject;
	body?: (params: Params, environment: RequestEnvironment) => IDataObject | undefined;
	/** The contract lets the answer have no body. */
	emptyBody?: true;
}

/** An operation that is one request (a GET unless `method` says otherwise), its answer as wholesale items unless `output` says otherwise. */
export function operation({
	method = 'GET',
	path,
	query,
	body,
	emptyBody,
	...spec
}: CallOptions): OperationSpec {
	return {
		output: wholesaleItems,
		...spec,
		request: (p, env) => ({
			method,
			...(typeof path === 'string' ? pathWith(path, p) : path(p, env)),
			...(query ? { qs: query(p) } : {}),
			...(body ? { body: body(p, env) } : {}),
			...(emptyBody ? { emptyBody: 'allowed' as const } : {}),
		}),
	};
}

/** An ISO date or date-time without a zone: `2025-06-10`, `2025-06-10T09:30`, `2025-06-10 09:30:00.000`. */
const WALL_CLOCK = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;
/** A zone written out: `Z`, `+02:00`, `-0500`, `GMT+0200`, `UTC`. */
const WRITTEN_ZONE = /(?:\d(?:Z|[+-]\d{2}(?::?\d{2})?)$)|\b(?:GMT|UTC)\b/i;

/**
 * A date-time as the API writes it, `YYYY-MM-DD hh:mm:ss` GMT: a picker's wall-clock time is that GMT time (never
 * the server's zone), a value with a zone is converted; anything else is kept as typed for the validators.
 */
export function plainDateTime(value: unknown): string | undefined {
	if (isBlank(value)) return undefined;
	const instant = value as { toISO?: () => string | null; toISOString?: () => string };
	const text =
		typeof instant.toISO === 'function'
			? String(instant.toISO())
			: typeof instant.toISOString === 'function'
				? instant.toISOString()
				: String(value).trim();
	const wall = WALL_CLOCK.exec(text);
	if (wall) return `${wall[1]} ${wall[2] ?? '00'}:${wall[3] ?? '00'}:${wall[4] ?? '00'}`;
	if (!WRITTEN_ZONE.test(text)) return text;
	const date = new Date(text);
	if (Number.isNaN(date.getTime())) return text;
	return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** A date as `YYYY-MM-DD`, the calendar date as written: converting to UTC would move it a day wherever n8n runs ahead of UTC. */
export function plainDate(value: unknown): string | undefined {
	if (isBlank(value)) return undefined;
	const text = String(value).trim();
	const written = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/.exec(text);
	if (written) return written[1];
	const date = new Date(text);
	return Number.isNaN(date.getTime()) ? text : date.toISOString().slice(0, 10);
}

/** Issues of the shared validators name API fields (`date_start`); the node shows its own names. */
export function asDisplayed(
	found: ValidationIssue[],
	names: Record<string, string>,
): ValidationIssue[] {
	return found.map((issue) => {
		const [head, ...rest] = issue.field.split(/(?=[.[])/);
		return head in names ? { ...issue, field: [names[head], ...rest].join('') } : issue;
	});
}

/** The unwrapped answer of one GET, for the dropdowns. */
async function listOf(context: ILoadOptionsFunctions, path: string): Promise<unknown> {
	return (await createClient(context, wholesaleVoiceApi).request({ method: 'GET', path })).body;
}

/** The tariffs of the account, for the rate card deck dropdown. */
export async function getRateDecks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const tariffs = unwrap(await listOf(this, `${ACCOUNT_PATH}/rates/tariffs`));
	const decks: INodePropertyOptions[] = [
		{ name: 'Default', value: 'default', description: 'The default rate deck' },
	];
	for (const tariff of (Array.isArray(tariffs) ? tariffs : []) as IDataObject[]) {
		const deck = String(tariff.url ?? '')
			.split('/')
			.filter(Boolean)
			.pop();
		if (!deck || deck === 'default') continue;
		decks.push({
			name: String(tariff.description ?? deck),
			value: deck,
			description: `Service level ${tariff.servicelevel ?? '?'}, ${tariff.quality ?? ''}`.trim(),
		});
	}
	return decks;
}

/** The losing providers of a GNP port, for the LCP dropdown. */
export async function getLosingProviders(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const body = (await listOf(this, '/v3/porting/{ACCOUNT}/lcps')) as IDataObject;
	const providers = (body.cps ?? unwrap(body) ?? []) as IDataObject[];
	return (Array.isArray(providers) ? providers : []).map((cp) => ({
		name: `${cp.cpName} (${cp.cupid})`,
		value: `${cp.cupid}|${cp.cpName}`,
	}));
}

/** The notification types available on the account, for the type dropdown. */
export async function getNotificationTypes(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const body = unwrap(await listOf(this, `${ACCOUNT_PATH}/notifications/available`));
	const name = (entry: unknown) =>
		entry && typeof entry === 'object'
			? String((entry as IDataObject).type ?? (entry as IDataObject).name ?? '')
			: String(entry);
	const names = Array.isArray(body)
		? body.map(name)
		: body && typeof body === 'object'
			? Object.keys(body)
			: [];
	return names.filter(Boolean).map((name) => ({ name, value: name }));
}
