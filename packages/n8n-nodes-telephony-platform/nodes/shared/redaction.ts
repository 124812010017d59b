/**
 * Secrets masked in text we did not write: a server may echo one in any encoding (an HTML page, JSON, a form,
 * base64 inside base64). Errors and logs mask any run of SECRET_RUN units of a form, output items any run of
 * OUTPUT_RUN units (shorter runs are too likely ordinary data there), in one pass (answers may be megabytes).
 */

const MIN_SECRET_LENGTH = 4;
/** Any run this long of a secret form is redacted in errors and logs: a secret cut at a message's edge, or partly echoed. */
export const SECRET_RUN = 8;
/** Any run this long of a secret form is masked in output items. */
export const OUTPUT_RUN = 12;
/** What a masked secret becomes. */
export const MASK = '***';
/** The field an output item gets, beside its data, when a value in it was masked. */
export const REDACTED_FIELD = 'redacted';

/** One encoding of a secret as units: a character, or the several that encode one (`&#120;`, `\u0078`, two hex digits). */
type Form = string[];

const chars = (text: string): Form => [...text];
const codeUnits = (text: string): number[] =>
	Array.from({ length: text.length }, (_, at) => text.charCodeAt(at));
const hex2 = (byte: number) => byte.toString(16).padStart(2, '0');
const hex4 = (unit: number) => unit.toString(16).padStart(4, '0');

/** The base64 of `secret` after `offset` (0, 1 or 2) unknown bytes, cut to the characters that depend on the secret alone. */
function shiftedBase64(bytes: Buffer, offset: number): string {
	const text = Buffer.concat([Buffer.alloc(offset), bytes])
		.toString('base64')
		.replace(/=+$/, '');
	const total = offset + bytes.length;
	const rest = total % 3;
	// A trailing partial group's last character mixes in whatever byte follows the secret.
	const end = Math.floor(total / 3) * 4 + (rest === 0 ? 0 : rest === 1 ? 1 : 2);
	// A leading partial group's first characters mix in the unknown bytes before it.
	return text.slice([0, 2, 3][offset], end);
}

const HTML_MINIMAL: Record<string, string> = {
	'&': '&amp;',
	'<': '&lt;',
	'>': '&gt;',
	'"': '&quot;',
};

/** Each encoding a server may echo a secret in. */
function encodings(secret: string): Form[] {
	const bytes = Buffer.from(secret);
	const units = codeUnits(secret);
	const points = [...secret];
	const urlEncoded = encodeURIComponent(secret);
	const formEncoded = new URLSearchParams([['', secret]]).toString().slice(1);
	const forms: Form[] = [
		chars(secret),
		chars(urlEncoded),
		chars(urlEncoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())),
		chars(encodeURI(secret)),
		chars(formEncoded),
		chars(formEncoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())),
		// JSON text: quotes, backslashes and control characters escaped, slashes perhaps too.
		[...secret].map((char) => JSON.stringify(char).slice(1, -1)),
		[...secret].map((char) => (char === '/' ? '\\/' : JSON.stringify(char).slice(1, -1))),
		// HTML: the few characters every template escapes, or every character as a numeric entity.
		...['&#39;', '&#x27;', '&apos;'].map((apostrophe) =>
			points.map((char) => (char === "'" ? apostrophe : (HTML_MINIMAL[char] ?? char))),
		),
		points.map((char) => `&#${char.codePointAt(0)};`),
		points.map((char) => `&#x${char.codePointAt(0)!.toString(16)};`),
		points.map((char) => `&#x${char.codePointAt(0)!.toString(16).toUpperCase()};`),
		// Hex of the UTF-8 bytes, and JavaScript or JSON \u escapes of every character.
		[...bytes].map(hex2),
		[...bytes].map((byte) => hex2(byte).toUpperCase()),
		units.map((unit) => `\\u${hex4(unit)}`),
		units.map((unit) => `\\u${hex4(unit).toUpperCase()}`),
	];
	// Base64 at any offset: a secret after 0, 1 or 2 other bytes gives three different texts; and each of those
	// encoded again (an Authorization header echoed inside an encoded payload; outer base64url is left out: rare, and costly).
	const base64 = (text: Buffer) => [0, 1, 2].map((offset) => shiftedBase64(text, offset));
	const once = base64(bytes).flatMap((text) => [
		text,
		text.replace(/\+/g, '-').replace(/\//g, '_'),
	]);
	for (const text of [...once, ...once.flatMap((inner) => base64(Buffer.from(inner)))])
		forms.push(chars(text));
	const padded = bytes.toString('base64');
	forms.push(chars(padded), chars(encodeURIComponent(padded)));
	return forms;
}

/** The secrets of one credential, prepared once per request for masking its errors and answers. */
export class SecretForms {
	/** Every run of SECRET_RUN units of each form (the whole form if shorter): masked in errors and logs. */
	private readonly errorRuns: Runs;
	/** Every run of OUTPUT_RUN units of each form (the whole form if shorter): masked in output items. */
	private readonly outputRuns: Runs;

	constructor(forms: Form[]) {
		this.errorRuns = new Runs(forms, SECRET_RUN);
		this.outputRuns = new Runs(forms, OUTPUT_RUN);
	}

	/** Whether there is anything to mask at all (no secret, or all too short). */
	get empty(): boolean {
		return this.errorRuns.empty;
	}

	/** Every run of SECRET_RUN units masked: for errors and logs, before anything is cut or formatted. */
	redact(text: string): string {
		return this.errorRuns.mask(text);
	}

	/** Whether text may hold a run of OUTPUT_RUN units, as it is or inside a JSON string: one pass, for answers of any size. */
	mayHoldSecret(text: string): boolean {
		return this.outputRuns.found(text);
	}

	/** Every run of OUTPUT_RUN units masked: for output items, where a shorter run may be ordinary data. */
	maskOutput(text: string): string {
		return this.outputRuns.mask(text);
	}
}

/**
 * The runs of `run` units of each form, found in one pass over a text: a rolling hash of each position's next
 * few characters (as many as the shortest run has) is looked up in a bit table, and only a hit is compared, so
 * the time is linear in the text whatever the number of runs.
 */
class Runs {
	/** The runs by their first `anchor` characters, as they are and as they read inside a JSON string. */
	private readonly byAnchor = new Map<string, string[]>();
	/** The anchors' hashes, one bit each. */
	private readonly hashes = new Uint32Array(HASH_BITS / 32);
	private readonly anchor: number;
	/** HASH_BASE to the power anchor - 1: the weight of the character that leaves the hashed window. */
	private readonly lead: number;

	constructor(forms: Form[], run: number) {
		const runs = new Set<string>();
		for (const form of forms) {
			const text = form.join('');
			// A form of one character per unit (plain, base64) is cut as text, without joining units again.
			const cut =
				text.length === form.length
					? (at: number, end: number) => text.slice(at, end)
					: (at: number, end: number) => form.slice(at, end).join('');
			if (form.length <= run) runs.add(text);
			else for (let at = 0; at + run <= form.length; at++) runs.add(cut(at, at + run));
		}
		runs.delete('');
		// As a JSON text (the raw answer, scanned before parsing) shows a run with a quote, backslash or control character.
		for (const text of [...runs]) {
			const escaped = JSON.stringify(text).slice(1, -1);
			if (escaped !== text) runs.add(escaped);
		}
		this.anchor = runs.size ? Math.min(...[...runs].map((text) => text.length)) : 0;
		this.lead = 1;
		for (let i = 1; i < this.anchor; i++) this.lead = Math.imul(this.lead, HASH_BASE);
		for (const text of runs) {
			const key = text.slice(0, this.anchor);
			const list = this.byAnchor.get(key);
			if (list) list.push(text);
			else this.byAnchor.set(key, [text]);
			const hash = rollingHash(key, 0, this.anchor);
			this.hashes[(hash & HASH_MASK) >>> 5] |= 1 << (hash & 31);
		}
	}

	get empty(): boolean {
		return this.byAnchor.size === 0;
	}

	/** Whether the text holds a run. */
	found(text: string): boolean {
		return this.hide(text, true) !== undefined;
	}

	mask(text: string): string {
		const hidden = this.hide(text, false);
		return hidden ? maskRuns(text, hidden) : text;
	}

	/** The characters covered by runs (undefined when none), or, when `first`, a sign at the first run found. */
	private hide(text: string, first: boolean): Uint8Array | undefined {
		const anchor = this.anchor;
		if (this.empty || text.length < anchor) return undefined;
		let hidden: Uint8Array | undefined;
		// Covered up to here already: overlapping runs (a whole secret) fill each character once.
		let covered = 0;
		let hash = rollingHash(text, 0, anchor);
		for (let at = 0; ; at++) {
			if (this.hashes[(hash & HASH_MASK) >>> 5] & (1 << (hash & 31))) {
				for (const candidate of this.byAnchor.get(text.slice(at, at + anchor)) ?? []) {
					if (!text.startsWith(candidate, at)) continue;
					hidden ??= new Uint8Array(text.length);
					if (first) return hidden;
					const end = at + candidate.length;
					if (end > covered) hidden.fill(1, Math.max(at, covered), end);
					covered = Math.max(covered, end);
				}
			}
			if (at + anchor >= text.length) return hidden;
			hash =
				(Math.imul(hash - Math.imul(text.charCodeAt(at), this.lead), HASH_BASE) +
					text.charCodeAt(at + anchor)) |
				0;
		}
	}
}

const HASH_BITS = 1 << 18;
const HASH_MASK = HASH_BITS - 1;
const HASH_BASE = 0x01000193;

/** A polynomial hash of `length` characters from `at`, as `Runs.hide` rolls it (32-bit). */
function rollingHash(text: string, at: number, length: number): number {
	let hash = 0;
	for (let i = at; i < at + length; i++)
		hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(i)) | 0;
	return hash;
}

/** Text with each run of hidden characters replaced by one MASK. */
function maskRuns(text: string, hidden: Uint8Array): string {
	const parts: string[] = [];
	let at = 0;
	while (at < text.length) {
		const start = hidden.indexOf(1, at);
		if (start < 0) break;
		const end = hidden.indexOf(0, start);
		parts.push(text.slice(at, start), MASK);
		at = end < 0 ? text.length : end;
	}
	parts.push(text.slice(at));
	return parts.join('');
}

/** Every form in which the secrets could appear in text we did not write ourselves. */
export function secretForms(secrets: Array<string | undefined>, extra: string[] = []): SecretForms {
	const forms: Form[] = extra.map(chars);
	for (const secret of secrets) {
		if (secret && secret.length >= MIN_SECRET_LENGTH) forms.push(...encodings(secret));
	}
	return new SecretForms(forms);
}

/** Basic credentials: the password, and `user:password` in base64 as it travels in the Authorization header. */
export function basicSecretForms(
	user: string | undefined,
	password: string | undefined,
): SecretForms {
	const pair = Buffer.from(`${user ?? ''}:${password ?? ''}`).toString('base64');
	return secretForms([password], [pair, encodeURIComponent(pair)]);
}

/** Text with the secrets masked (any run of SECRET_RUN of a form): see `SecretForms.redact`. */
export function redact(text: string, forms: SecretForms): string {
	return forms.redact(text);
}

/**
 * Marks each object of an answer that held a masked value, or is above one: a symbol, which copies of the object
 * (spread, Object.assign) keep and JSON leaves out, so the data keeps the API's shape. `markedItems` turns it into
 * REDACTED_FIELD beside the item's data.
 */
const MASKED = Symbol('masked');

/** A parsed answer masked in place in every text and key; each object that held a masked value, or is above one, is marked (MASKED). */
export function maskAnswer(
	value: unknown,
	forms: SecretForms,
): { value: unknown; masked: boolean } {
	if (typeof value === 'string') {
		const masked = forms.maskOutput(value);
		return { value: masked, masked: masked !== value };
	}
	if (value === null || typeof value !== 'object') return { value, masked: false };
	let masked = false;
	if (Array.isArray(value)) {
		for (let at = 0; at < value.length; at++) {
			const entry = maskAnswer(value[at], forms);
			value[at] = entry.value;
			masked ||= entry.masked;
		}
		return { value, masked };
	}
	const record = value as Record<string | symbol, unknown>;
	for (const key of Object.keys(record)) {
		const entry = maskAnswer(record[key], forms);
		const maskedKey = forms.maskOutput(key);
		if (maskedKey !== key) delete record[key];
		// Defined, not assigned: a key `__proto__` stays a field.
		Object.defineProperty(record, maskedKey, {
			value: entry.value,
			enumerable: true,
			writable: true,
			configurable: true,
		});
		masked ||= entry.masked || maskedKey !== key;
	}
	if (masked)
		Object.defineProperty(record, MASKED, { value: true, enumerable: true, configurable: true });
	return { value, masked };
}

/** Output items with `redacted: true` beside the data of each that held a masked value (nothing is added inside it). */
export function markedItems<T>(items: T[]): T[] {
	const marked = items.map(
		(item) =>
			item !== null &&
			typeof item === 'object' &&
			(item as Record<symbol, unknown>)[MASKED] === true,
	);
	// In place, not copied: an item stays the record that Simplified's known fields are kept beside (`withKnown`).
	items.forEach((item, at) => {
		if (!marked[at]) return;
		(item as Record<string, unknown>)[REDACTED_FIELD] = true;
		unmark(item);
	});
	return items;
}

/** A value without the marks of masking, at any depth: they have served once the item says so. */
function unmark(value: unknown): void {
	if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return;
	delete (value as Record<symbol, unknown>)[MASKED];
	for (const entry of Object.values(value)) unmark(entry);
}
