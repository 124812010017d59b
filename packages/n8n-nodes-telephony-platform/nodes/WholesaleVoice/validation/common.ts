import type { ValidationIssue } from '../../shared/operation';
import { describeValue, isBlank, maxLength, type Check } from '../../shared/validation';

import { ruleText, type RuleId } from './rules';

/** An issue for a catalogue rule: the rule text always comes from the catalogue. */
export function violation(ruleId: RuleId, field: string, problem: string): ValidationIssue {
	return { field, problem, rule: ruleText(ruleId), ruleId };
}

/** A shared check (`maxLength`, `oneOf`, `e164`…) under a catalogue rule: its problem kept, its rule text the catalogue's. */
export function asRule(ruleId: RuleId, check: Check): Check {
	return check === undefined ? undefined : violation(ruleId, check.field, check.problem);
}

/** What a value is, for problems such as "it is an array, not an object". */
export function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	if (typeof value === 'object') return 'an object';
	return ['string', 'number', 'boolean'].includes(typeof value)
		? `a ${typeof value}`
		: typeof value;
}

/** An issue for a value of the wrong kind: "it is an array, not an object". */
export function wrongKind(
	ruleId: RuleId,
	field: string,
	value: unknown,
	wanted = 'an object',
): ValidationIssue {
	return violation(ruleId, field, `it is ${kindOf(value)}, not ${wanted}`);
}

/** The problem of a whole value that is no object: empty, or of another kind. */
export function notObject(value: unknown, empty = isBlank(value)): string {
	return empty ? 'it is empty' : `it is ${kindOf(value)}, not an object`;
}

/** `routing` + `default` -> `routing.default`; a root of '' gives the key alone; indexes become `[n]`; other keys are quoted in brackets. */
export function childPath(parent: string, key: string | number): string {
	if (typeof key === 'number') return `${parent}[${key}]`;
	if (!/^[A-Za-z0-9_-]+$/.test(key)) return `${parent}[${JSON.stringify(key)}]`;
	return parent === '' ? key : `${parent}.${key}`;
}

/** Text fields accept strings and numbers (a house number typed as 12); anything else is refused. */
export function isText(value: unknown): value is string | number {
	return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** A non-text value that is not blank (objects, arrays, booleans) in a field that takes text. */
export function notText(value: unknown): boolean {
	return !isBlank(value) && !isText(value);
}

/** The fields of a length table (999 data, a port's customer): each text, present when mandatory, within its length. */
export function lengthTableIssues(
	data: Record<string, unknown>,
	lengths: Record<string, number>,
	mandatory: readonly string[],
	rules: { text: RuleId; mandatory: RuleId; lengths: 'uk999' | 'port.customer' },
	parent = '',
): Check[] {
	return Object.entries(lengths).map(([key, max]) => {
		const field = childPath(parent, key);
		if (notText(data[key])) return wrongKind(rules.text, field, data[key], 'text');
		if (mandatory.includes(key) && isBlank(data[key]))
			return violation(rules.mandatory, field, 'it is empty');
		return asRule(`${rules.lengths}.${key}.max-length` as RuleId, maxLength(field, data[key], max));
	});
}

/** A whole number as a JSON number or a string of digits (expressions often yield strings); `true` is no number. */
export function wholeNumber(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
	if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number(value);
	return undefined;
}

/** An amount such as a maximum cost: a JSON number or a decimal string. */
export function amount(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
	if (typeof value === 'string' && /^\s*-?(\d+(\.\d*)?|\.\d+)\s*$/.test(value))
		return Number(value);
	return undefined;
}

/** A whole-number check with a catalogue rule: blank values are left to the required rules. */
export function wholeNumberAtLeast(
	ruleId: RuleId,
	field: string,
	value: unknown,
	min: number,
	max = Number.MAX_SAFE_INTEGER,
): Check {
	if (isBlank(value)) return undefined;
	const number = wholeNumber(value);
	if (number === undefined)
		return violation(ruleId, field, `${describeValue(value)} is not a whole number`);
	if (number < min) return violation(ruleId, field, `${number} is less than ${min}`);
	if (number > max) return violation(ruleId, field, `${number} is more than ${max}`);
	return undefined;
}

/** A UK postcode's shape (not that it exists): out-code, exactly one space, in-code, in capitals. */
const UK_POSTCODE = /^[A-Z]{1,2}[0-9][A-Z0-9]? [0-9][A-Z]{2}$/;

export function ukPostcode(ruleId: RuleId, field: string, value: unknown): Check {
	if (isBlank(value) || !isText(value) || UK_POSTCODE.test(String(value))) return undefined;
	// Say what to change: the common mistakes are lower case and a missing or doubled space.
	const compact = String(value).toUpperCase().replace(/\s+/g, '');
	const suggestion = `${compact.slice(0, -3)} ${compact.slice(-3)}`;
	return violation(
		ruleId,
		field,
		`${describeValue(value)}: ${UK_POSTCODE.test(suggestion) ? `write it as ${suggestion}` : 'it is not a UK postcode'}`,
	);
}

/** `YYYY-MM-DD` as a UTC timestamp at midnight, or undefined when the text is not a real date. */
export function parseDate(text: string): number | undefined {
	const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
	return match ? realDateTime([...match.slice(1).map(Number), 0, 0, 0]) : undefined;
}

/** `YYYY-MM-DD hh:mm:ss` as a UTC timestamp, or undefined when the text is not a real date and time. */
export function parseDateTime(text: string): number | undefined {
	const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
	return match ? realDateTime(match.slice(1).map(Number)) : undefined;
}

/** Date.UTC rolls 2025-02-30 over to March; a round trip shows whether the parts were real. */
function realDateTime([year, month, day, hour, minute, second]: number[]): number | undefined {
	if (hour > 23 || minute > 59 || second > 59) return undefined;
	const time = Date.UTC(year, month - 1, day, hour, minute, second);
	const date = new Date(time);
	return date.getUTCFullYear() === year &&
		date.getUTCMonth() === month - 1 &&
		date.getUTCDate() === day
		? time
		: undefined;
}

export const startOfUtcDay = (now: Date) =>
	Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());

/** Midnight UTC of the day `days` before `now`'s UTC day: the earliest moment of a "last N days" window. */
export function windowStart(now: Date, days: number): number {
	return startOfUtcDay(now) - days * 24 * 60 * 60 * 1000;
}
