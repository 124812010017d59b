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
	let text: string;
	try {
		text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
	} catch {
		text = String(value);
	}
	// Control characters shown escaped, so a message never carries a line break or a terminal code.
	let shown = '';
	for (const char of text.slice(0, 60)) shown += isControl(char.charCodeAt(0)) ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : char;
	return `"${shown}${text.length > 60 ? '…' : ''}"`;
}

function isControl(code: number): boolean {
	return code < 0x20 || code === 0x7f;
}

/** Whether text holds a control character (U+0000 to U+001F, or DEL): a line break, a tab, a NUL. */
export function hasControlCharacter(text: string): boolean {
	for (let at = 0; at < text.length; at++) {
		if (isControl(text.charCodeAt(at))) return true;
	}
	return false;
}

/** What kind of value arrived, for messages about values of the wrong type (an expression's object). */
export function kindOf(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (value === null) return 'null';
	if (value instanceof Date) return 'a date';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export const PATH_SEGMENT_RULE =
	'one path segment: not empty, not . or .., no / ? # % \\ or control characters, text or a number (not an object or list), at most 256 characters';

/**
 * Why a value cannot be one URL path segment, or undefined when it can. The transport checks
 * every user-supplied segment with this, so no value can reach another resource (`..`, `a/b`),
 * the collection itself (empty) or a different query (`?`, `#`).
 */
export function pathSegmentIssue(field: string, value: unknown): Check {
	const issue = (problem: string): Check => ({ field, problem, rule: PATH_SEGMENT_RULE });
	if (value === undefined || value === null) return issue('it is empty');
	if (typeof value === 'number') return Number.isFinite(value) ? undefined : issue(`${value} is not a finite number`);
	if (typeof value !== 'string') return issue(`it is ${kindOf(value)}, not text`);
	// Control characters anywhere (a tab or line break at the edge too); spaces at the edges are trimmed.
	if (hasControlCharacter(value)) return issue(`${describeValue(value)} contains a control character`);
	const text = value.trim();
	if (text === '') return issue('it is empty');
	if (text === '.' || text === '..') return issue(`"${text}" would address another resource`);
	if (text.length > 256) return issue(`it is ${text.length} characters long`);
	const bad = /[/?#%\\]/.exec(text);
	return bad ? issue(`${describeValue(text)} contains "${bad[0]}"`) : undefined;
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

/** E.164 with or without the plus: 7 to 15 digits (the shortest in use, such as Niue's, have 7 with the country code), no leading zero. */
export function e164(field: string, value: unknown, rule = 'an E.164 number: country code and number, 7 to 15 digits, e.g. 447700900123'): Check {
	return matches(field, String(value ?? '').replace(/^\+/, ''), /^[1-9]\d{6,14}$/, rule);
}

export function email(field: string, value: unknown): Check {
	return matches(field, value, /^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'an e-mail address such as ops@example.com');
}

export const HTTP_URL_RULE = 'an absolute http:// or https:// URL with a host, such as https://n8n.example.com/webhook/…';

/** An absolute http(s) URL with a host: what a platform can deliver to (not ftp:, javascript:, a path or words). */
export function httpUrl(field: string, value: unknown): Check {
	if (isBlank(value)) return undefined;
	if (typeof value !== 'string') return { field, problem: `it is ${kindOf(value)}, not a URL`, rule: HTTP_URL_RULE };
	const text = value.trim();
	const refused = { field, problem: `${describeValue(value)} is not an http(s) URL`, rule: HTTP_URL_RULE };
	if (!/^https?:\/\/[^/?#\s]/i.test(text) || /\s/.test(text) || hasControlCharacter(text)) return refused;
	try {
		return new URL(text).hostname ? undefined : refused;
	} catch {
		return refused;
	}
}

export const IDENTIFIER_RULE = 'an ID as the service gives it: no spaces, slashes, ? # % or control characters, not . or .., at most 256 characters';

/**
 * An identifier that travels in a body or a query (an agent ID): where the contract gives no
 * form, only what cannot be an identifier is refused.
 */
export function identifierIssue(field: string, value: unknown): Check {
	if (isBlank(value)) return undefined;
	if (typeof value !== 'string' && typeof value !== 'number') return { field, problem: `it is ${kindOf(value)}, not an ID`, rule: IDENTIFIER_RULE };
	const text = String(value).trim();
	if (text === '.' || text === '..' || text.length > 256 || /[\s/\\?#%]/.test(text) || hasControlCharacter(text)) {
		return { field, problem: `${describeValue(value)} cannot be an ID`, rule: IDENTIFIER_RULE };
	}
	return undefined;
}

/** A date-time from a date picker or an expression: anything `Date` can read. */
export function dateTime(field: string, value: unknown): Check {
	if (isBlank(value) || typeof value !== 'string') return undefined;
	return Number.isNaN(Date.parse(value))
		? { field, problem: `${describeValue(value)} is not a date-time`, rule: 'an ISO 8601 date-time such as 2026-11-22T09:00:00Z' }
		: undefined;
}
