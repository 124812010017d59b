/**
 * Secrets masked in text we did not write: a server may echo one in any encoding (an HTML page, JSON, a form).
 * Errors and logs mask any run of SECRET_RUN units of a form; output items mask whole forms and prefixes of
 * OUTPUT_PREFIX units, after a cheap scan (answers may be megabytes), and say so (`redacted: true`).
 */

const MIN_SECRET_LENGTH = 4;
/** Any run this long of a secret form is redacted in errors and logs: a secret cut at a message's edge, or partly echoed. */
export const SECRET_RUN = 8;
/** In output items, a secret's start this long (in any of its forms) is masked: shorter ones are too likely ordinary text. */
export const OUTPUT_PREFIX = 12;
/** What a masked secret becomes. */
export const MASK = '***';
/** The field an output object gets when a value in it (or below it) was masked. */
export const REDACTED_FIELD = 'redacted';

/** One encoding of a secret as units: a character, or the several that encode one (`&#120;`, `\u0078`, two hex digits). */
type Form = string[];

const chars = (text: string): Form => [...text];
const codeUnits = (text: string): number[] => Array.from({ length: text.length }, (_, at) => text.charCodeAt(at));
const hex2 = (byte: number) => byte.toString(16).padStart(2, '0');
const hex4 = (unit: number) => unit.toString(16).padStart(4, '0');

/** The base64 of `secret` after `offset` (0, 1 or 2) unknown bytes, cut to the characters that depend on the secret alone. */
function shiftedBase64(bytes: Buffer, offset: number): string {
	const text = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64').replace(/=+$/, '');
	const total = offset + bytes.length;
	const rest = total % 3;
	// A trailing partial group's last character mixes in whatever byte follows the secret.
	const end = Math.floor(total / 3) * 4 + (rest === 0 ? 0 : rest === 1 ? 1 : 2);
	// A leading partial group's first characters mix in the unknown bytes before it.
	return text.slice([0, 2, 3][offset], end);
}

const HTML_MINIMAL: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

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
		...["&#39;", '&#x27;', '&apos;'].map((apostrophe) => points.map((char) => (char === "'" ? apostrophe : (HTML_MINIMAL[char] ?? char)))),
		points.map((char) => `&#${char.codePointAt(0)};`),
		points.map((char) => `&#x${char.codePointAt(0)!.toString(16)};`),
		points.map((char) => `&#x${char.codePointAt(0)!.toString(16).toUpperCase()};`),
		// Hex of the UTF-8 bytes, and JavaScript or JSON \u escapes of every character.
		[...bytes].map(hex2),
		[...bytes].map((byte) => hex2(byte).toUpperCase()),
		units.map((unit) => `\\u${hex4(unit)}`),
		units.map((unit) => `\\u${hex4(unit).toUpperCase()}`),
	];
	// Base64 at any offset: a secret after 0, 1 or 2 other bytes gives three different texts.
	for (const offset of [0, 1, 2]) {
		const text = shiftedBase64(bytes, offset);
		forms.push(chars(text), chars(text.replace(/\+/g, '-').replace(/\//g, '_')));
	}
	const padded = bytes.toString('base64');
	forms.push(chars(padded), chars(encodeURIComponent(padded)));
	return forms;
}

/** The secrets of one credential, prepared once per request for masking its errors and answers. */
export class SecretForms {
	/** Whole forms, longest first, each replaced wherever it occurs. */
	private readonly wholes: string[];
	/** Windows of SECRET_RUN units, by their length in characters. */
	private readonly windows = new Map<number, Set<string>>();
	/** The characters a window of a length may start with: most positions are skipped at once. */
	private readonly windowStarts = new Map<number, Set<string>>();
	/** Each form's first OUTPUT_PREFIX units (the whole form if shorter), with the form. */
	private readonly prefixes: Array<{ needle: string; form: Form }> = [];
	/** What the cheap scan looks for: each prefix, and as it reads inside a JSON string (a `\\` doubled). */
	private readonly scanned = new Set<string>();

	constructor(forms: Form[]) {
		const unique = new Map<string, Form>();
		for (const form of forms) if (form.length) unique.set(form.join(''), form);
		this.wholes = [...unique.keys()].sort((a, b) => b.length - a.length);
		const seen = new Set<string>();
		for (const form of unique.values()) {
			const needle = form.slice(0, OUTPUT_PREFIX).join('');
			if (!seen.has(needle)) this.prefixes.push({ needle, form });
			seen.add(needle);
			this.scanned.add(needle).add(JSON.stringify(needle).slice(1, -1));
			for (let at = 0; at + SECRET_RUN <= form.length; at++) {
				const window = form.slice(at, at + SECRET_RUN).join('');
				if (!this.windows.has(window.length)) {
					this.windows.set(window.length, new Set());
					this.windowStarts.set(window.length, new Set());
				}
				this.windows.get(window.length)!.add(window);
				this.windowStarts.get(window.length)!.add(window[0]);
			}
		}
	}

	/** Whether there is anything to mask at all (no secret, or all too short). */
	get empty(): boolean {
		return this.wholes.length === 0;
	}

	/** Whole forms, then every run of SECRET_RUN units, masked: for errors and logs, before anything is cut or formatted. */
	redact(text: string): string {
		if (this.empty) return text;
		let out = text;
		for (const form of this.wholes) if (out.includes(form)) out = out.split(form).join(MASK);
		const hidden = new Uint8Array(out.length);
		let found = false;
		for (let at = 0; at < out.length; at++) {
			for (const [length, starts] of this.windowStarts) {
				if (!starts.has(out[at]) || at + length > out.length) continue;
				if (!this.windows.get(length)!.has(out.slice(at, at + length))) continue;
				hidden.fill(1, at, at + length);
				found = true;
			}
		}
		return found ? maskRuns(out, hidden) : out;
	}

	/** Whether text may hold a secret's start in any form: one native search per form, for answers of any size. */
	mayHoldSecret(text: string): boolean {
		for (const needle of this.scanned) if (text.includes(needle)) return true;
		return false;
	}

	/** Whole forms and starts of OUTPUT_PREFIX units masked: for output items, where a short run may be ordinary data. */
	maskOutput(text: string): string {
		if (!this.mayHoldSecret(text)) return text;
		const hidden = new Uint8Array(text.length);
		for (const { needle, form } of this.prefixes) {
			for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
				let end = at + needle.length;
				for (let unit = Math.min(OUTPUT_PREFIX, form.length); unit < form.length && text.startsWith(form[unit], end); unit++) end += form[unit].length;
				hidden.fill(1, at, end);
			}
		}
		return maskRuns(text, hidden);
	}
}

/** Text with each run of hidden characters replaced by one MASK. */
function maskRuns(text: string, hidden: Uint8Array): string {
	let out = '';
	for (let at = 0; at < text.length; at++) {
		if (!hidden[at]) out += text[at];
		else if (at === 0 || !hidden[at - 1]) out += MASK;
	}
	return out;
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
export function basicSecretForms(user: string | undefined, password: string | undefined): SecretForms {
	const pair = Buffer.from(`${user ?? ''}:${password ?? ''}`).toString('base64');
	return secretForms([password], [pair, encodeURIComponent(pair)]);
}

/** Text with the secrets masked (any run of SECRET_RUN of a form): see `SecretForms.redact`. */
export function redact(text: string, forms: SecretForms): string {
	return forms.redact(text);
}

/** A parsed answer masked in place in every text and key; each object that held a masked value, or above one, gets `redacted: true`. */
export function maskAnswer(value: unknown, forms: SecretForms): { value: unknown; masked: boolean } {
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
	const record = value as Record<string, unknown>;
	for (const key of Object.keys(record)) {
		const entry = maskAnswer(record[key], forms);
		const maskedKey = forms.maskOutput(key);
		if (maskedKey !== key) delete record[key];
		// Defined, not assigned: a key `__proto__` stays a field.
		Object.defineProperty(record, maskedKey, { value: entry.value, enumerable: true, writable: true, configurable: true });
		masked ||= entry.masked || maskedKey !== key;
	}
	if (masked) record[REDACTED_FIELD] = true;
	return { value, masked };
}
