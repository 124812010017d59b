import type { ValidationIssue } from './operation';

/** One check's finding: an issue naming the field, the problem and the rule, or undefined when the value is fine. */
export type Check = ValidationIssue | undefined;

export function issues(...checks: Array<Check | Check[]>): ValidationIssue[] {
	return checks.flat().filter((check): check is ValidationIssue => check !== undefined);
}

export function isBlank(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

export function describeValue(value: unknown): string {
	if (isBlank(value)) return 'it is empty';
	let text: string;
	try {
		// A number as written: JSON would show Infinity and NaN as null.
		text =
			typeof value === 'string'
				? value
				: typeof value === 'number'
					? String(value)
					: (JSON.stringify(value) ?? String(value));
	} catch {
		text = String(value);
	}
	// Escaped, so a message never carries a line break, a terminal code, a reordering of its own text or an invisible mark.
	let shown = '';
	for (const char of text.slice(0, 60)) {
		const code = char.codePointAt(0)!;
		shown +=
			isControl(code) || isBidiControl(code) || isInvisible(code)
				? `\\u${code <= 0xffff ? code.toString(16).padStart(4, '0') : `{${code.toString(16)}}`}`
				: char;
	}
	return `"${shown}${text.length > 60 ? '…' : ''}"`;
}

/** C0 controls, DEL and C1 controls (U+0080 to U+009F). */
function isControl(code: number): boolean {
	return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** Bidirectional overrides and isolates (U+202A to U+202E, U+2066 to U+2069): they make text read differently from what it is. */
function isBidiControl(code: number): boolean {
	return (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/**
 * Characters that show nothing but change what a name or id is (`Bank\u200F` is not `Bank`): direction marks
 * (U+200E, U+200F, U+061C), zero-width spaces (U+200B, U+2060, U+FEFF), tag characters (U+E0000 to U+E007F),
 * line and paragraph separators (U+2028, U+2029). A message keeps them (right-to-left text, flag emoji);
 * the zero-width joiner of an emoji (U+200D) is text everywhere.
 */
function isInvisible(code: number): boolean {
	return (
		[0x061c, 0x200b, 0x200e, 0x200f, 0x2028, 0x2029, 0x2060, 0xfeff].includes(code) ||
		(code >= 0xe0000 && code <= 0xe007f)
	);
}

/** Whether text holds a control character (U+0000 to U+001F, DEL, or U+0080 to U+009F): a line break, a tab, a NUL. */
export function hasControlCharacter(text: string): boolean {
	for (let at = 0; at < text.length; at++) {
		if (isControl(text.charCodeAt(at))) return true;
	}
	return false;
}

export const TEXT_RULE =
	'text without control characters (line breaks and tabs allowed) or bidirectional overrides and isolates (U+202A to U+202E, U+2066 to U+2069)';
export const LINE_RULE =
	'one line of text without control characters (no line breaks or tabs), bidirectional overrides and isolates (U+202A to U+202E, U+2066 to U+2069), direction marks (U+200E, U+200F, U+061C), zero-width spaces (U+200B, U+2060, U+FEFF), tag characters (U+E0000 to U+E007F) or line and paragraph separators (U+2028, U+2029)';

/** The first character of text the rule refuses, named: tabs and line breaks pass where `lines` (a message), and so do invisible marks. */
function unsafeCharacter(text: string, lines: boolean): string | undefined {
	for (const char of text) {
		const code = char.codePointAt(0)!;
		if (lines && (code === 0x09 || code === 0x0a || code === 0x0d)) continue;
		const name = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
		if (isBidiControl(code))
			return `${name}, a bidirectional ${code <= 0x202e ? 'override' : 'isolate'}`;
		if (code === 0x0a || code === 0x0d) return `${name}, a line break`;
		if (isControl(code)) return `${name}, a control character`;
		if (!lines && isInvisible(code)) return `${name}, ${invisibleKind(code)}`;
	}
	return undefined;
}

function invisibleKind(code: number): string {
	if (code >= 0xe0000) return 'a tag character';
	if (code === 0x2028 || code === 0x2029)
		return `a ${code === 0x2028 ? 'line' : 'paragraph'} separator`;
	return [0x061c, 0x200e, 0x200f].includes(code) ? 'a direction mark' : 'a zero-width space';
}

/** Whether one line of text holds a character that is not what it shows: a control, a bidirectional control or an invisible mark (a name or ID in JSON, a URL). */
export function hasHiddenCharacter(text: string): boolean {
	return unsafeCharacter(text, false) !== undefined;
}

/** Text with a character `unsafeCharacter` refuses, as an issue naming the field and the character; a secret's value is not quoted. */
export function textIssue(field: string, value: unknown, lines = false, secret = false): Check {
	if (typeof value !== 'string') return undefined;
	const bad = unsafeCharacter(value, lines);
	return bad
		? {
				field,
				problem: `${secret ? 'the value (not shown)' : describeValue(value)} contains ${bad}`,
				rule: lines ? TEXT_RULE : LINE_RULE,
			}
		: undefined;
}

/** RFC 9110 token characters: all a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Bounds on what a webhook sends with every delivery: headers are for a shared secret or two, not a payload. */
export const HEADER_MAX_COUNT = 20;
const HEADER_VALUE_MAX_LENGTH = 1024;
export const HEADER_NAME_RULE =
	"a header name: letters, digits and ! # $ % & ' * + - . ^ _ ` | ~ only (no spaces or colons), not empty, each name once";
export const HEADER_VALUE_RULE = `a header value: printable Latin-1 characters and spaces, no control characters (no line breaks or tabs), at most ${HEADER_VALUE_MAX_LENGTH} characters`;

/**
 * Headers sent verbatim (a webhook's request headers): a bad name is refused or split by the receiver,
 * an empty one drops the header and its secret, a line break injects another header. Values are never quoted.
 */
export function headerIssues(
	field: string,
	pairs: Array<{ name?: unknown; value?: unknown }>,
): ValidationIssue[] {
	if (pairs.length > HEADER_MAX_COUNT)
		return [
			{
				field,
				problem: `there are ${pairs.length} headers`,
				rule: `at most ${HEADER_MAX_COUNT} headers`,
			},
		];
	const found: ValidationIssue[] = [];
	const seen = new Set<string>();
	pairs.forEach(({ name, value }, index) => {
		const which = `header ${index + 1}`;
		const text = typeof name === 'string' ? name : '';
		if (text.trim() === '') {
			found.push({
				field: `${field} > Name`,
				problem: `${which} has no name (it would be dropped, its value with it)`,
				rule: HEADER_NAME_RULE,
			});
		} else if (!HEADER_NAME.test(text)) {
			found.push({
				field: `${field} > Name`,
				problem: `${which}: ${describeValue(text)} is not a header name`,
				rule: HEADER_NAME_RULE,
			});
		} else if (seen.has(text.toLowerCase())) {
			found.push({
				field: `${field} > Name`,
				problem: `${which}: ${describeValue(text)} is given twice (header names ignore case)`,
				rule: HEADER_NAME_RULE,
			});
		}
		seen.add(text.toLowerCase());
		const content =
			typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
		// Visible ASCII, space, and Latin-1 above the C1 controls: what an HTTP header can carry as is.
		const bad = [...content].find((char) => !/[\x20-\x7e\xa0-\xff]/.test(char));
		if (bad !== undefined || content.length > HEADER_VALUE_MAX_LENGTH) {
			const problem =
				bad !== undefined
					? `contains U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
					: `is ${content.length} characters long`;
			found.push({
				field: `${field} > Value`,
				problem: `the value of ${which}${HEADER_NAME.test(text) ? ` (${text})` : ''} ${problem}`,
				rule: HEADER_VALUE_RULE,
			});
		}
	});
	return found;
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

/** Why a value cannot be one URL path segment: it would reach another resource (`..`, `a/b`), the collection (empty) or a query (`?`, `#`). */
export function pathSegmentIssue(field: string, value: unknown): Check {
	const issue = (problem: string): Check => ({ field, problem, rule: PATH_SEGMENT_RULE });
	if (value === undefined || value === null) return issue('it is empty');
	if (typeof value === 'number')
		return Number.isFinite(value) ? undefined : issue(`${value} is not a finite number`);
	if (typeof value !== 'string') return issue(`it is ${kindOf(value)}, not text`);
	// Control characters anywhere (a tab or line break at the edge too); spaces at the edges are trimmed.
	if (hasControlCharacter(value))
		return issue(`${describeValue(value)} contains a control character`);
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
	const rule =
		max === undefined
			? `a whole number of at least ${min}`
			: `a whole number from ${min} to ${max}`;
	if (!Number.isInteger(number))
		return { field, problem: `${describeValue(value)} is not a whole number`, rule };
	return number < min || (max !== undefined && number > max)
		? { field, problem: `${number} is out of range`, rule }
		: undefined;
}

export function oneOf(field: string, value: unknown, allowed: readonly string[]): Check {
	if (isBlank(value) || allowed.includes(String(value))) return undefined;
	return {
		field,
		problem: `${describeValue(value)} is not allowed`,
		rule: `one of ${allowed.join(', ')}`,
	};
}

export function matches(field: string, value: unknown, pattern: RegExp, rule: string): Check {
	if (isBlank(value)) return undefined;
	return pattern.test(String(value))
		? undefined
		: { field, problem: `${describeValue(value)} does not match`, rule };
}

/** RFC 5321 caps an address that can be delivered to at 254 characters. */
export const EMAIL_MAX_LENGTH = 254;

export function email(field: string, value: unknown): Check {
	const rule = `an e-mail address such as ops@example.com, at most ${EMAIL_MAX_LENGTH} characters`;
	const long = maxLength(field, value, EMAIL_MAX_LENGTH);
	return long ? { ...long, rule } : matches(field, value, /^[^\s@]+@[^\s@]+\.[^\s@]+$/, rule);
}

/** Longer than any webhook address a service keeps; a longer one is an expression's runaway text. */
export const URL_MAX_LENGTH = 2048;
export const HTTP_URL_RULE = `an absolute http:// or https:// URL with a host, such as https://n8n.example.com/webhook/…, at most ${URL_MAX_LENGTH} characters`;
export const URL_TARGET_RULE =
	'a host the service can deliver to: a name or a dotted IPv4 or IPv6 address, no user name or password before the host, no link-local (169.254.0.0/16, fe80::/10) or cloud metadata address (169.254.169.254, metadata.google.internal, fd00:ec2::254, 100.100.100.200), no IPv4 written as one number or in hex or octal';
export const WEBHOOK_TARGET_RULE = `${URL_TARGET_RULE}, and for a webhook no loopback address (localhost, 127.0.0.0/8, ::1, 0.0.0.0): the service would deliver to itself`;

const METADATA_HOSTS = [
	'metadata.google.internal',
	'metadata',
	'metadata.azure.internal',
	'[fd00:ec2::254]',
	'100.100.100.200',
];

/** Why a parsed URL's host is no target: a numeric form, link-local, metadata, or loopback where `webhook`. WHATWG `URL` has already turned 2130706433 and 0x7f.0.0.1 into 127.0.0.1. */
function targetProblem(typed: string, url: URL, webhook: boolean): string | undefined {
	if (url.username || url.password || /^[a-z]+:\/\/[^/?#]*@/i.test(typed))
		return 'has a user name or password before the host';
	const host = url.hostname.toLowerCase().replace(/\.$/, '');
	// The host as typed: a number, hex or octal where an IPv4 address was meant.
	const typedHost = /^[a-z]+:\/\/([^/?#:]*)/i.exec(typed)?.[1] ?? '';
	if (
		/^\d+\.\d+\.\d+\.\d+$/.test(host) &&
		!/^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(
			typedHost,
		)
	) {
		return `names the IPv4 address ${host} in another form (${typedHost})`;
	}
	if (METADATA_HOSTS.includes(host) || host === '169.254.169.254')
		return 'points at a cloud metadata address';
	if (/^169\.254\./.test(host) || /^\[fe[89ab][0-9a-f]:/.test(host))
		return 'points at a link-local address';
	if (!webhook) return undefined;
	const loopback =
		host === 'localhost' ||
		host.endsWith('.localhost') ||
		/^127\./.test(host) ||
		host === '0.0.0.0' ||
		host === '[::1]' ||
		host === '[::]' ||
		/^\[::ffff:(7f|127\.)/.test(host);
	return loopback ? 'points at a loopback address' : undefined;
}

/**
 * An absolute http(s) URL with a host: what a platform can deliver to (not ftp:, javascript:, a path or words), no
 * longer than URL_MAX_LENGTH, never at a link-local or metadata address or with userinfo. `webhook` (an address the user
 * types for the service to post to) also refuses loopback; a report's callback to the user's own n8n keeps it (the demo's n8n listens on it).
 */
export function httpUrl(field: string, value: unknown, { webhook = false } = {}): Check {
	if (isBlank(value)) return undefined;
	const rule = `${HTTP_URL_RULE}; ${webhook ? WEBHOOK_TARGET_RULE : URL_TARGET_RULE}`;
	if (typeof value !== 'string')
		return { field, problem: `it is ${kindOf(value)}, not a URL`, rule };
	const text = value.trim();
	if (text.length > URL_MAX_LENGTH)
		return { field, problem: `it is ${text.length} characters long`, rule };
	const refused = { field, problem: `${describeValue(value)} is not an http(s) URL`, rule };
	if (!/^https?:\/\/[^/?#\s]/i.test(text) || /\s/.test(text) || hasHiddenCharacter(text))
		return refused;
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return refused;
	}
	if (!url.hostname) return refused;
	const problem = targetProblem(text, url, webhook);
	return problem ? { field, problem: `${describeValue(value)} ${problem}`, rule } : undefined;
}

export const IDENTIFIER_RULE =
	'an ID as the service gives it: no spaces, slashes, ? # %, control characters or invisible marks, not . or .., at most 256 characters';

/** An ID sent in a body or a query (an agent ID): the contract gives no form, so only what cannot be an ID is refused. */
export function identifierIssue(field: string, value: unknown): Check {
	if (isBlank(value)) return undefined;
	if (typeof value !== 'string' && typeof value !== 'number')
		return { field, problem: `it is ${kindOf(value)}, not an ID`, rule: IDENTIFIER_RULE };
	const text = String(value).trim();
	if (
		text === '.' ||
		text === '..' ||
		text.length > 256 ||
		/[\s/\\?#%]/.test(text) ||
		hasHiddenCharacter(text)
	) {
		return { field, problem: `${describeValue(value)} cannot be an ID`, rule: IDENTIFIER_RULE };
	}
	return undefined;
}

/** ISO 8601 as n8n's date picker and expressions write it: a date, or a date and time with an optional zone. */
const ISO_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-](\d{2})(?::?(\d{2}))?)?)?$/i;

export const DATE_TIME_RULE =
	'a date that exists, as ISO 8601 such as 2026-11-22 or 2026-11-22T09:00:00Z (or a Date or DateTime from an expression)';

/**
 * The instant a picker, text or expression names: ISO 8601 whose date exists (not 2026-02-30, nor `12`, which
 * `Date` would read as another day), a valid Date or Luxon DateTime. Without a zone, read as `Date` reads it.
 */
export function parseDateTime(value: unknown): Date | undefined {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
	if (value !== null && typeof value === 'object') {
		const candidate = value as {
			isValid?: unknown;
			toISO?: () => unknown;
			toISOString?: () => unknown;
		};
		if (candidate.isValid === false) return undefined;
		const text =
			typeof candidate.toISO === 'function'
				? candidate.toISO()
				: typeof candidate.toISOString === 'function'
					? candidate.toISOString()
					: undefined;
		return typeof text === 'string' ? parseDateTime(text) : undefined;
	}
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	const parts = ISO_DATE_TIME.exec(text);
	if (!parts) return undefined;
	const [year, month, day, hour, minute, second] = parts
		.slice(1, 7)
		.map((part) => Number(part ?? 0));
	const [zone, offsetHours, offsetMinutes] = [
		parts[8],
		Number(parts[9] ?? 0),
		Number(parts[10] ?? 0),
	];
	if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59)
		return undefined;
	// Date.UTC rolls 2025-02-29 over to March; a round trip shows whether the day exists.
	const calendar = new Date(Date.UTC(year, month - 1, day));
	if (
		calendar.getUTCFullYear() !== year ||
		calendar.getUTCMonth() !== month - 1 ||
		calendar.getUTCDate() !== day
	)
		return undefined;
	if (parts[4] === undefined) return calendar;
	const fraction = parts[7] ? `.${parts[7].slice(0, 3).padEnd(3, '0')}` : '';
	const offset =
		zone === undefined
			? ''
			: /^z$/i.test(zone)
				? 'Z'
				: `${zone[0]}${parts[9]}:${parts[10] ?? '00'}`;
	const date = new Date(
		`${parts.slice(1, 4).join('-')}T${parts[4]}:${parts[5]}:${parts[6] ?? '00'}${fraction}${offset}`,
	);
	return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A date-time from a date picker or an expression that names a real instant (see `parseDateTime`); blank is left to `required`. */
export function dateTime(field: string, value: unknown): Check {
	if (isBlank(value) || parseDateTime(value) !== undefined) return undefined;
	if (typeof value === 'string') {
		return {
			field,
			problem: `${describeValue(value)} ${ISO_DATE_TIME.test(value.trim()) ? 'is not a date that exists' : 'is not a date-time'}`,
			rule: DATE_TIME_RULE,
		};
	}
	const candidate = value as { toISO?: unknown; toISOString?: unknown };
	const isDate =
		value instanceof Date ||
		typeof candidate.toISO === 'function' ||
		typeof candidate.toISOString === 'function';
	return {
		field,
		problem: isDate
			? 'it is an invalid date (an expression that made a date of something that is none?)'
			: `it is ${kindOf(value)}, not a date-time`,
		rule: DATE_TIME_RULE,
	};
}
