import type { INodeProperties, INodePropertyCollection } from 'n8n-workflow';

import type { Params, ValidationIssue } from './operation';
import { describeValue, kindOf } from './validation';

/**
 * Checks every parameter an operation read against its own declaration, before any spec
 * validator runs: values arrive from expressions and other systems, so a text field may hold an
 * object, a number field NaN or 1.5, an options field a value that is not an option. One place for
 * every operation of every node; the issues name the field as the node shows it.
 */
export function parameterIssues(fields: INodeProperties[], params: Params): ValidationIssue[] {
	const found: ValidationIssue[] = [];
	for (const field of fields) {
		if (params[field.name] !== undefined) check(field, params[field.name], found);
	}
	return found;
}

/** What `String(object)` gives: text that can only have come from an object by mistake. */
const STRINGIFIED_OBJECT = /\[object (Object|Array)\]/;

function hasConversion(value: unknown): boolean {
	const candidate = value as { toISO?: unknown; toISOString?: unknown };
	return typeof candidate.toISO === 'function' || typeof candidate.toISOString === 'function';
}

function numberRule(field: INodeProperties): string {
	const { minValue, maxValue, numberPrecision } = field.typeOptions ?? {};
	const kind = numberPrecision === 0 ? 'a whole number' : 'a number';
	if (minValue !== undefined && maxValue !== undefined) return `${kind} from ${minValue} to ${maxValue}`;
	if (minValue !== undefined) return `${kind} of at least ${minValue}`;
	if (maxValue !== undefined) return `${kind} of at most ${maxValue}`;
	return kind;
}

function optionValues(field: INodeProperties): Array<string | number | boolean> | undefined {
	const dynamic = field.typeOptions?.loadOptionsMethod !== undefined || field.typeOptions?.loadOptions !== undefined;
	if (dynamic || !Array.isArray(field.options)) return undefined;
	return (field.options as Array<{ value?: string | number | boolean }>).map((option) => option.value as string | number | boolean);
}

function check(field: INodeProperties, value: unknown, found: ValidationIssue[]): void {
	const name = field.displayName;
	const push = (problem: string, rule: string): void => {
		found.push({ field: name, problem, rule });
	};
	switch (field.type) {
		case 'string':
		case 'resourceLocator':
		case 'color':
			if (value === null) return;
			if (typeof value === 'object') return push(`it is ${kindOf(value)}, not text (an expression that returned ${kindOf(value)}?)`, 'text');
			if (typeof value === 'string' && STRINGIFIED_OBJECT.test(value)) {
				return push(`${describeValue(value)} is an object turned into text`, 'text; map a field of the object, or use JSON.stringify() in the expression');
			}
			return;
		case 'dateTime':
			if (value === null || value === '' || typeof value === 'string' || hasConversion(value)) return;
			return push(`it is ${kindOf(value)}, not a date-time`, 'an ISO 8601 date-time such as 2026-11-22T09:00:00Z');
		case 'number': {
			if (value === null || value === '') return;
			const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
			const rule = numberRule(field);
			if (!Number.isFinite(number)) return push(`${typeof value === 'object' ? `it is ${kindOf(value)}` : `${describeValue(value)} is not a finite number`}`, rule);
			const { minValue, maxValue, numberPrecision } = field.typeOptions ?? {};
			if (numberPrecision === 0 && !Number.isInteger(number)) return push(`${number} is not a whole number`, rule);
			if ((minValue !== undefined && number < minValue) || (maxValue !== undefined && number > maxValue)) {
				return push(`${number} is out of range`, rule);
			}
			return;
		}
		case 'boolean':
			if (typeof value !== 'boolean') push(`${typeof value === 'object' ? `it is ${kindOf(value)}` : describeValue(value)} is not true or false`, 'true or false');
			return;
		case 'options': {
			const allowed = optionValues(field);
			if (typeof value === 'object' && value !== null) return push(`it is ${kindOf(value)}, not one of the options`, allowed ? `one of ${allowed.join(', ')}` : 'one of the options');
			if (allowed && !allowed.includes(value as string)) return push(`${describeValue(value)} is not one of the options`, `one of ${allowed.join(', ')}`);
			return;
		}
		case 'multiOptions': {
			const allowed = optionValues(field);
			if (!Array.isArray(value)) return push(`it is ${kindOf(value)}, not a list of options`, allowed ? `a list of: ${allowed.join(', ')}` : 'a list of options');
			const wrong = allowed ? value.filter((entry) => !allowed.includes(entry as string)) : value.filter((entry) => typeof entry === 'object');
			if (wrong.length) push(`${describeValue(wrong[0])} is not one of the options`, allowed ? `each one of ${allowed.join(', ')}` : 'options by name');
			return;
		}
		case 'collection':
			if (!isPlainObject(value)) return push(`it is ${kindOf(value)}, not a set of fields`, 'a set of fields');
			for (const [key, entry] of Object.entries(value)) {
				const option = (field.options as INodeProperties[] | undefined)?.find((o) => o.name === key);
				if (option && entry !== undefined) check(option, entry, found);
			}
			return;
		case 'fixedCollection':
			if (!isPlainObject(value)) return push(`it is ${kindOf(value)}, not a set of fields`, 'a set of fields');
			for (const [key, entry] of Object.entries(value)) {
				const group = (field.options as INodePropertyCollection[] | undefined)?.find((o) => o.name === key);
				if (!group) continue;
				const rows = Array.isArray(entry) ? entry : [entry];
				if (!field.typeOptions?.multipleValues && Array.isArray(entry)) push(`${group.displayName} is a list`, 'one set of fields');
				for (const row of rows) {
					if (!isPlainObject(row)) {
						push(`${group.displayName} is ${kindOf(row)}, not a set of fields`, 'a set of fields');
						continue;
					}
					for (const property of group.values) {
						if (row[property.name] !== undefined) check(property, row[property.name], found);
					}
				}
			}
			return;
		default:
			return;
	}
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}
