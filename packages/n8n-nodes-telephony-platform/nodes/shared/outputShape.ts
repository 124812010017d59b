import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { OperationSpec, OutputItem, OutputShape, Params } from './operation';
import { FileOutput } from './operation';
import { isoUtc } from './params';
import { REDACTED_FIELD } from './redaction';
import { isRecord } from './responseShape';
import { isBlank, parseDateTime } from './validation';

/** The parameters of the output choice (the names n8n's own nodes use for it). */
export const OUTPUT = 'output';
export const SELECTED_FIELDS = 'fields';

/**
 * Output and Fields for an operation with a shape. An operation whose own fields already use
 * either name is refused here, when the node is described: two parameters of one name would
 * read each other's values.
 */
export function shapeFields(operation: OperationSpec): INodeProperties[] {
	const { shape } = operation;
	if (!shape) return [];
	const clash = (operation.fields ?? []).find(
		(field) => field.name === OUTPUT || field.name === SELECTED_FIELDS,
	);
	if (clash) {
		throw new Error(
			`Operation "${operation.value}" has its own "${clash.name}" parameter and an output shape: rename its parameter`,
		);
	}
	return [
		{
			displayName: 'Output',
			name: OUTPUT,
			type: 'options',
			default: 'simple',
			options: [
				{
					name: 'Simplified',
					value: 'simple',
					description: 'The fields a person or an AI model needs, flat and plainly named',
				},
				{ name: 'Raw', value: 'raw', description: 'The records as the service answered them' },
				{
					name: 'Selected Fields',
					value: 'fields',
					description: 'The ID and the fields you choose',
				},
			],
		},
		{
			displayName: 'Fields',
			name: SELECTED_FIELDS,
			type: 'multiOptions',
			default: [],
			description: 'The fields of the record to return besides its ID, as the service names them',
			options: [...shape.fields].sort().map((field) => ({ name: field, value: field })),
			displayOptions: { show: { [OUTPUT]: ['fields'] } },
		},
	];
}

/**
 * What the node knows of a record besides the answer (the reference it was asked for, the envelope's
 * currency), kept beside it rather than in it: Raw shows the record exactly as answered, Simplified
 * and Selected Fields read these too. Weak, so nothing outlives the record.
 */
const besides = new WeakMap<object, IDataObject>();

/** The record as answered, with `known` beside it for Simplified and Selected Fields (the answer's own fields win). */
export function withKnown<T extends IDataObject>(record: T, known: IDataObject): T {
	if (isRecord(record)) besides.set(record, known);
	return record;
}

/**
 * The items as the output choice asks: Raw leaves them as they are; Simplified and Selected Fields
 * give each record its `id` first, then its simplified or chosen fields, and keep the mark of a
 * masked secret. Files, and anything that is no record, pass unchanged.
 */
export function shapeItems(
	shape: OutputShape | undefined,
	params: Params,
	items: OutputItem[],
): OutputItem[] {
	const choice = params[OUTPUT] ?? 'simple';
	if (!shape || choice === 'raw') return items;
	const chosen = choice === 'fields' ? selectedFields(params[SELECTED_FIELDS]) : undefined;
	return items.map((answered) => {
		if (answered instanceof FileOutput || !isRecord(answered)) return answered;
		const item = { ...besides.get(answered), ...answered };
		const id =
			item.id ?? (typeof shape.id === 'function' ? shape.id(item) : shape.id && item[shape.id]);
		const body = chosen ? pick(item, chosen) : shape.simplify(item);
		// An answer the simplifier finds nothing in (`{success: true}`, no record) is shown as it came.
		if (!chosen && isBlank(id) && Object.keys(body).length === 0) return answered;
		const shaped: IDataObject = isBlank(id) ? { ...body } : Object.assign({ id }, body, { id });
		if (item[REDACTED_FIELD] === true) shaped[REDACTED_FIELD] = true;
		return shaped;
	});
}

/**
 * A shape written as data: the record's fields from the contract (for Selected Fields), what Simplified keeps
 * (a field, or `[name, its field]` renamed, or `[name, value of the record]`), and where its id is when it has no `id`.
 */
export function shapeOf(
	fields: readonly string[],
	simple: Array<string | [string, string | ((record: IDataObject) => unknown)]>,
	id?: OutputShape['id'],
): OutputShape {
	const value = (r: IDataObject, from: string | ((record: IDataObject) => unknown)) =>
		typeof from === 'string' ? r[from] : from(r);
	return {
		fields,
		id,
		simplify: (r) =>
			plain(
				Object.fromEntries(
					simple.map((s) => (typeof s === 'string' ? [s, r[s]] : [s[0], value(r, s[1])])),
				) as IDataObject,
			),
	};
}

/** The plain values of a nested object as `<prefix>_<name>` (its own nested values are left to Raw). */
export function flat(prefix: string, value: unknown): IDataObject {
	const entries = isRecord(value)
		? Object.entries(value).filter(([, v]) => v === null || typeof v !== 'object')
		: [];
	return Object.fromEntries(entries.map(([name, v]) => [`${prefix}_${name}`, v]));
}

function selectedFields(value: unknown): string[] {
	return (Array.isArray(value) ? value : []).map(String).filter((field) => field !== 'id');
}

/** The chosen fields the record has (one it lacks is left out, never made up). */
function pick(record: IDataObject, fields: string[]): IDataObject {
	const out: IDataObject = {};
	for (const field of fields) {
		if (Object.prototype.hasOwnProperty.call(record, field)) out[field] = record[field];
	}
	return out;
}

/** A simplified record without the fields that have no value (absent, null or empty text). */
export function plain(values: IDataObject): IDataObject {
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(values)) {
		if (!isBlank(value)) out[key] = value;
	}
	return out;
}

/**
 * A platform time (`Z`, milliseconds and `+0000`, or wholesale's `YYYY-MM-DD hh:mm:ss` GMT) as ISO 8601 UTC
 * to the second, with a `Z`. The contracts give UTC times, so one without a zone is read as UTC; text
 * that is no time is kept as given.
 */
export function utcTime(value: unknown): string | undefined {
	if (isBlank(value)) return undefined;
	const text = String(value).trim();
	const zoned = /[T ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?$/i.test(text) ? `${text}Z` : text;
	return parseDateTime(zoned) ? isoUtc(zoned)?.replace(/\.\d+Z$/, 'Z') : text;
}

/** Words joined by `separator`, the empty ones left out; undefined when none is left. */
export function joined(parts: unknown[], separator = ' '): string | undefined {
	const words = parts.filter((part) => !isBlank(part)).map((part) => String(part).trim());
	return words.length ? words.join(separator) : undefined;
}
