import type { INodeProperties, INodePropertyCollection } from 'n8n-workflow';

import type { Params, ValidationIssue } from './operation';
import { isRecord } from './responseShape';
import { dateTime, describeValue, kindOf, textIssue } from './validation';

/**
 * Checks every parameter an operation read against its own declaration, before any spec validator
 * runs: an expression may give a text field an object, a number field NaN or 1.5, an options field
 * no option, a date field a day that does not exist, any field `undefined`. With `undefinedRead`
 * (the executor's reading: hidden fields left out), `undefined` is an expression that returned
 * nothing: refused in required, yes/no, number and options fields (it would be sent as false, 0 or
 * nothing the user chose). Without it (a trigger's options) `undefined` is a value not set.
 */
export function parameterIssues(
	fields: INodeProperties[],
	params: Params,
	{ undefinedRead = false } = {},
): ValidationIssue[] {
	const found: ValidationIssue[] = [];
	for (const field of fields) {
		if (params[field.name] !== undefined || (undefinedRead && field.name in params))
			check(field, params[field.name], found, true);
	}
	return found;
}

/** What `String(object)` gives: text that can only have come from an object by mistake. */
const STRINGIFIED_OBJECT = /\[object (Object|Array)\]/;

/** Larger than any count, amount or duration an API takes: where a field declares no maximum, this one holds. */
const ABSURD = Number.MAX_SAFE_INTEGER;

type Push = (problem: string, rule: string) => void;

function numberRule(field: INodeProperties): string {
	const { minValue, maxValue, numberPrecision } = field.typeOptions ?? {};
	const kind = numberPrecision === 0 ? 'a whole number' : 'a number';
	if (minValue !== undefined && maxValue !== undefined)
		return `${kind} from ${minValue} to ${maxValue}`;
	if (minValue !== undefined) return `${kind} from ${minValue} to ${ABSURD}`;
	if (maxValue !== undefined) return `${kind} of at most ${maxValue}`;
	return `${kind} from -${ABSURD} to ${ABSURD}`;
}

/** The rule of a field of this type. */
function ruleOf(field: INodeProperties): string {
	const allowed = optionValues(field);
	switch (field.type) {
		case 'boolean':
			return 'true or false';
		case 'number':
			return numberRule(field);
		case 'options':
			return allowed ? `one of ${allowed.join(', ')}` : 'one of the options';
		case 'multiOptions':
			return allowed ? `a list of: ${allowed.join(', ')}` : 'a list of options';
		case 'dateTime':
			return 'a date-time; it is required';
		default:
			return 'a value; it is required';
	}
}

function optionValues(field: INodeProperties): Array<string | number | boolean> | undefined {
	const dynamic =
		field.typeOptions?.loadOptionsMethod !== undefined ||
		field.typeOptions?.loadOptions !== undefined;
	if (dynamic || !Array.isArray(field.options)) return undefined;
	return (field.options as Array<{ value?: string | number | boolean }>).map(
		(option) => option.value as string | number | boolean,
	);
}

function check(
	field: INodeProperties,
	value: unknown,
	found: ValidationIssue[],
	topLevel = false,
): void {
	const name = field.displayName;
	const push: Push = (problem, rule) => void found.push({ field: name, problem, rule });
	const add = (issue: ValidationIssue | undefined) => issue && found.push(issue);
	if (value === undefined) {
		const typed = ['boolean', 'number', 'options', 'multiOptions'].includes(field.type);
		if (field.required || (topLevel && typed))
			push('it is undefined (an expression that returned nothing?)', ruleOf(field));
		return;
	}
	switch (field.type) {
		case 'string':
		case 'resourceLocator':
		case 'color':
			return checkText(field, value, push, add);
		case 'json':
			add(textIssue(name, value, true));
			return;
		case 'dateTime':
			if (value !== null) add(dateTime(name, value));
			return;
		case 'number':
			return checkNumber(field, value, push);
		case 'boolean':
			if (typeof value !== 'boolean')
				push(
					typeof value === 'object'
						? `it is ${kindOf(value)}, not true or false`
						: `${describeValue(value)} is not true or false`,
					'true or false',
				);
			return;
		case 'options':
			return checkOption(field, value, push);
		case 'multiOptions':
			return checkOptionList(field, value, push);
		case 'collection':
			return checkCollection(field, value, push, found);
		case 'fixedCollection':
			return checkFixedCollection(field, value, push, found);
	}
}

function checkText(
	field: INodeProperties,
	value: unknown,
	push: Push,
	add: (issue: ValidationIssue | undefined) => unknown,
): void {
	const password = field.typeOptions?.password === true;
	if (value === null) return;
	if (typeof value === 'object')
		return push(
			`it is ${kindOf(value)}, not text (an expression that returned ${kindOf(value)}?)`,
			'text',
		);
	// An expression's true or NaN would be sent as the text "true" or "NaN".
	if (typeof value === 'boolean')
		return push(
			`it is ${kindOf(value)} (${value}), not text (an expression that returned ${value}?)`,
			'text',
		);
	if (typeof value === 'number' && !Number.isFinite(value))
		return push(`${value} is not a finite number, nor text`, 'text');
	// A BigInt, a function or a symbol would be sent as whatever String() makes of it, unchecked (700 digits of BigInt(10) ** 700n).
	if (typeof value !== 'string' && typeof value !== 'number')
		return push(
			`it is ${kindOf(value)}, not text (an expression that returned ${kindOf(value)}?)`,
			'text',
		);
	if (typeof value === 'string' && STRINGIFIED_OBJECT.test(value)) {
		return push(
			`${password ? 'the value' : describeValue(value)} is an object turned into text`,
			'text; map a field of the object, or use JSON.stringify() in the expression',
		);
	}
	// Line breaks and tabs only where the field is written on several lines (a message).
	add(textIssue(field.displayName, value, field.typeOptions?.rows !== undefined, password));
}

function checkNumber(field: INodeProperties, value: unknown, push: Push): void {
	if (value === null || value === '') return;
	const number =
		typeof value === 'number'
			? value
			: typeof value === 'string' && value.trim() !== ''
				? Number(value)
				: NaN;
	const rule = numberRule(field);
	if (typeof value === 'boolean')
		return push(`it is ${kindOf(value)} (${value}), not a number`, rule);
	if (!Number.isFinite(number))
		return push(
			typeof value === 'object'
				? `it is ${kindOf(value)}`
				: `${describeValue(value)} is not a finite number`,
			rule,
		);
	const { minValue = -ABSURD, maxValue = ABSURD, numberPrecision } = field.typeOptions ?? {};
	if (numberPrecision === 0 && !Number.isInteger(number))
		return push(`${number} is not a whole number`, rule);
	if (number < minValue || number > maxValue) push(`${number} is out of range`, rule);
}

function checkOption(field: INodeProperties, value: unknown, push: Push): void {
	const allowed = optionValues(field);
	if (typeof value === 'object' && value !== null)
		return push(`it is ${kindOf(value)}, not one of the options`, ruleOf(field));
	if (allowed && !allowed.includes(value as string))
		push(`${describeValue(value)} is not one of the options`, ruleOf(field));
}

function checkOptionList(field: INodeProperties, value: unknown, push: Push): void {
	const allowed = optionValues(field);
	if (!Array.isArray(value))
		return push(`it is ${kindOf(value)}, not a list of options`, ruleOf(field));
	const wrong = allowed
		? value.filter((entry) => !allowed.includes(entry as string))
		: value.filter((entry) => typeof entry === 'object');
	if (wrong.length)
		push(
			`${describeValue(wrong[0])} is not one of the options`,
			allowed ? `each one of ${allowed.join(', ')}` : 'options by name',
		);
}

function checkCollection(
	field: INodeProperties,
	value: unknown,
	push: Push,
	found: ValidationIssue[],
): void {
	if (!isRecord(value))
		return push(`it is ${kindOf(value)}, not a set of fields`, 'a set of fields');
	for (const [key, entry] of Object.entries(value)) {
		const option = (field.options as INodeProperties[] | undefined)?.find((o) => o.name === key);
		if (option && entry !== undefined) check(option, entry, found);
	}
}

function checkFixedCollection(
	field: INodeProperties,
	value: unknown,
	push: Push,
	found: ValidationIssue[],
): void {
	if (!isRecord(value))
		return push(`it is ${kindOf(value)}, not a set of fields`, 'a set of fields');
	for (const [key, entry] of Object.entries(value)) {
		const group = (field.options as INodePropertyCollection[] | undefined)?.find(
			(o) => o.name === key,
		);
		if (!group) continue;
		if (!field.typeOptions?.multipleValues && Array.isArray(entry))
			push(`${group.displayName} is a list`, 'one set of fields');
		for (const row of Array.isArray(entry) ? entry : [entry]) {
			if (!isRecord(row)) {
				push(`${group.displayName} is ${kindOf(row)}, not a set of fields`, 'a set of fields');
				continue;
			}
			for (const property of group.values) {
				if (row[property.name] !== undefined) check(property, row[property.name], found);
			}
		}
	}
}
