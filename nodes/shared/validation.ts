import type { ValidationIssue } from './operation';

/**
 * Small pure checks shared by every API. Each returns an issue naming the field, what is
 * wrong with the value and the rule, or undefined when the value is fine. `issues()` gathers them.
 */
export type Check = ValidationIssue | undefined;

export function issues(...checks: Array<Check | Check[]>): ValidationIssue[] {
	return checks.flat().filter((check): check is ValidationIssue => check !== undefined);
}

export function isBlank(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

export function describeValue(value: unknown): string {
	if (isBlank(value)) return 'it is empty';
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	return `"${text.length > 60 ? `${text.slice(0, 60)}…` : text}"`;
}

export function required(field: string, value: unknown, rule = 'it is required'): Check {
	return isBlank(value) ? { field, problem: 'it is empty', rule } : undefined;
}

export function maxLength(field: string, value: unknown, max: number): Check {
	if (isBlank(value)) return undefined;
	const length = String(value).length;
	return length > max
		? { field, problem: `it is ${length} characters long`, rule: `at most ${max} characters` }
		: undefined;
}

export function integerInRange(field: string, value: unknown, min: number, max?: number): Check {
	if (isBlank(value)) return undefined;
	const number = Number(value);
	const rule = max === undefined ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
	if (!Number.isInteger(number)) return { field, problem: `${describeValue(value)} is not a whole number`, rule };
	if (number < min || (max !== undefined && number > max)) {
		return { field, problem: `${number} is out of range`, rule };
	}
	return undefined;
}

export function oneOf(field: string, value: unknown, allowed: readonly string[]): Check {
	if (isBlank(value)) return undefined;
	return allowed.includes(String(value))
		? undefined
		: { field, problem: `${describeValue(value)} is not allowed`, rule: `one of ${allowed.join(', ')}` };
}

export function matches(field: string, value: unknown, pattern: RegExp, rule: string): Check {
	if (isBlank(value)) return undefined;
	return pattern.test(String(value)) ? undefined : { field, problem: `${describeValue(value)} does not match`, rule };
}

/** A phone number as people type it: digits, an optional leading +, spaces, dashes, dots or brackets. */
export function phoneNumber(field: string, value: unknown): Check {
	if (isBlank(value)) return undefined;
	const digits = String(value).replace(/[\s().-]/g, '');
	return /^\+?\d{3,15}$/.test(digits)
		? undefined
		: {
				field,
				problem: `${describeValue(value)} is not a phone number`,
				rule: 'digits with an optional leading +, 3 to 15 digits (spaces, dashes and brackets are ignored)',
			};
}

/** E.164 with or without the plus: 8 to 15 digits, no leading zero. */
export function e164(field: string, value: unknown, rule = 'an E.164 number: country code and number, 8 to 15 digits, e.g. 447700900123'): Check {
	return matches(field, String(value ?? '').replace(/^\+/, ''), /^[1-9]\d{7,14}$/, rule);
}

export function email(field: string, value: unknown): Check {
	return matches(field, value, /^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'an e-mail address such as ops@example.com');
}

export function httpUrl(field: string, value: unknown): Check {
	return matches(field, value, /^https?:\/\/[^\s/]+/i, 'an http:// or https:// URL');
}

/** A date-time from a date picker or an expression: anything `Date` can read. */
export function dateTime(field: string, value: unknown): Check {
	if (isBlank(value) || typeof value !== 'string') return undefined;
	return Number.isNaN(Date.parse(value))
		? { field, problem: `${describeValue(value)} is not a date-time`, rule: 'an ISO 8601 date-time such as 2026-11-22T09:00:00Z' }
		: undefined;
}
