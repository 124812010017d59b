/**
 * How a server may echo a secret back, written here independently of the package's redaction: each
 * encoding as a function of the text echoed, and a leak finder that looks for any run of a secret
 * in each of them (base64 at any offset included).
 */

/** Encodings that write each character of the secret on its own: a run of the secret is a run of the echo. */
export const CHARACTER_ENCODINGS: Array<[string, (text: string) => string]> = [
	['plain', (t) => t],
	['URL-encoded', (t) => encodeURIComponent(t)],
	['URL-encoded, lower-case hex', (t) => encodeURIComponent(t).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())],
	['form-encoded', (t) => new URLSearchParams({ v: t }).toString().slice(2)],
	['HTML-escaped', (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')],
	['decimal HTML entities', (t) => [...t].map((c) => `&#${c.codePointAt(0)};`).join('')],
	['hex HTML entities', (t) => [...t].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join('')],
	['hex', (t) => Buffer.from(t).toString('hex')],
	['upper-case hex', (t) => Buffer.from(t).toString('hex').toUpperCase()],
	['\\u escapes', (t) => [...t].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
	['JSON string', (t) => JSON.stringify(t).slice(1, -1)],
];

const BASE64_ALPHABETS: Array<[string, (bytes: Buffer) => string]> = [
	['base64', (b) => b.toString('base64')],
	['base64url', (b) => b.toString('base64url')],
];

/** Base64 after 0, 1 or 2 other bytes (`eENBTkFSWS9…` is base64 of "x" + the secret). */
export const BASE64_ENCODINGS: Array<[string, (text: string) => string]> = BASE64_ALPHABETS.flatMap(([name, encode]) =>
	[0, 1, 2].map((offset): [string, (text: string) => string] => [`${name} after ${offset} byte(s)`, (t) => encode(Buffer.concat([Buffer.from('xy'.slice(0, offset)), Buffer.from(t)]))]),
);

/** Base64 of base64, an echoed Authorization header inside an encoded payload: inner and outer after 0, 1 or 2 other bytes. */
export const NESTED_BASE64_ENCODINGS: Array<[string, (text: string) => string]> = [0, 1, 2].map((offset): [string, (text: string) => string] => [
	`base64 of base64 after ${offset} byte(s)`,
	(t) => Buffer.from(`${'x'.repeat(offset)}Basic ${Buffer.from('xy'.slice(0, offset) + t).toString('base64')}`).toString('base64'),
]);

export const ENCODINGS = [...CHARACTER_ENCODINGS, ...BASE64_ENCODINGS, ...NESTED_BASE64_ENCODINGS];

/**
 * The characters of a base64 echo that depend on the secret alone: where two encodings with
 * different bytes around the secret agree. Any run of `run` of them is a leak.
 */
function base64Interiors(secret: string): string[] {
	const interiors: string[] = [];
	for (const [, encode] of BASE64_ALPHABETS) {
		for (const offset of [0, 1, 2]) {
			const a = encode(Buffer.concat([Buffer.alloc(offset, 0x00), Buffer.from(secret), Buffer.from([0x00, 0x00])]));
			const b = encode(Buffer.concat([Buffer.alloc(offset, 0xff), Buffer.from(secret), Buffer.from([0xff, 0xff])]));
			let interior = '';
			for (let at = 0; at < a.length; at++) {
				if (a[at] === b[at]) interior += a[at];
				else if (interior) break;
			}
			interiors.push(interior);
		}
	}
	return interiors;
}

/** The interiors of base64 and of base64 of those interiors (see base64Interiors). */
function nestedBase64Interiors(secret: string): string[] {
	const once = base64Interiors(secret);
	return [...once, ...once.flatMap(base64Interiors)];
}

/** Every run of `run` characters of a secret (or of its base64, once or twice) that the text holds, in any encoding, named. */
export function leaks(text: string, secrets: string[], run = 8): string[] {
	const found = new Set<string>();
	for (const secret of secrets) {
		for (const [name, encode] of CHARACTER_ENCODINGS) {
			for (let at = 0; at + run <= secret.length; at++) {
				const window = encode(secret.slice(at, at + run));
				if (text.includes(window)) found.add(`${name}: ${window}`);
			}
		}
		for (const interior of nestedBase64Interiors(secret)) {
			for (let at = 0; at + run <= interior.length; at++) {
				const window = interior.slice(at, at + run);
				if (text.includes(window)) found.add(`base64: ${window}`);
			}
		}
	}
	return [...found];
}

/** Any 12 characters of a secret in any encoding that the text holds (for output items). */
export function outputLeaks(text: string, secrets: string[]): string[] {
	return leaks(text, secrets, 12);
}

/** An HTML error page carrying `echoed`, as a careless server's 401 does. */
export function htmlPage(echoed: string): string {
	return `<!DOCTYPE html><html><head><title>401 Unauthorized</title></head><body><h1>Unauthorized</h1><p>Credentials received: <code>${echoed}</code></p></body></html>`;
}
