import { createHash } from 'node:crypto';

/**
 * What makes the Wholesale Voice sandbox look like the PHP service it stands in for:
 * `json_encode` output (escaped slashes, `\u00e9`-style escapes outside ASCII, 4-space
 * `JSON_PRETTY_PRINT`), `parse_str` form bodies (`a[]=x`, `a[0]=x`, `filter[to]=…`), and the
 * `YYYY-MM-DD hh:mm:ss` date-times of the reports and filters.
 */

/** `json_encode($value)` with the default flags, or with `JSON_PRETTY_PRINT`. */
export function phpJson(value: unknown, pretty = false): string {
	const text = JSON.stringify(value, null, pretty ? 4 : undefined) ?? 'null';
	// Slashes and non-ASCII only occur inside strings in JSON text, so a global pass is safe.
	// Characters outside the BMP are already two UTF-16 code units here: PHP writes them as a
	// surrogate pair of escapes too.
	return text.replace(/[/\u0080-\uffff]/g, (ch) =>
		ch === '/' ? '\\/' : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
}

/** A PHP array while it is being built: ordered keys and the next free integer index. */
class PhpArray {
	readonly entries = new Map<string, PhpValue>();
	next = 0;

	set(key: string | undefined, value: PhpValue): void {
		const name = key === undefined ? String(this.next) : key;
		if (/^(0|-?[1-9]\d*)$/.test(name)) this.next = Math.max(this.next, Number(name) + 1);
		this.entries.set(name, value);
	}

	child(key: string | undefined): PhpArray {
		if (key !== undefined) {
			const existing = this.entries.get(key);
			if (existing instanceof PhpArray) return existing;
		}
		const created = new PhpArray();
		this.set(key, created);
		return created;
	}

	/** A list when the keys are 0..n-1 in order (as json_encode decides), an object otherwise. */
	toJs(): unknown {
		const keys = [...this.entries.keys()];
		const values = [...this.entries.values()].map((v) => (v instanceof PhpArray ? v.toJs() : v));
		if (keys.every((key, index) => key === String(index))) return values;
		const out: Record<string, unknown> = {};
		keys.forEach((key, index) => (out[key] = values[index]));
		return out;
	}
}

type PhpValue = string | PhpArray;

function decodeComponent(text: string): string {
	const spaced = text.replace(/\+/g, ' ');
	try {
		return decodeURIComponent(spaced);
	} catch {
		// PHP leaves a malformed escape as it is
		return spaced.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
	}
}

/**
 * `parse_str`: `a=1&b[]=x&b[]=y&c[0]=z&filter[to]=44&d.e=1` gives
 * `{a:'1', b:['x','y'], c:['z'], filter:{to:'44'}, d_e:'1'}`. Values stay strings, a later
 * value replaces an earlier one, and dots and spaces in the base name become underscores.
 */
export function parsePhpForm(text: string): Record<string, unknown> {
	const root = new PhpArray();
	for (const pair of text.split('&')) {
		if (pair === '') continue;
		const eq = pair.indexOf('=');
		const rawKey = decodeComponent(eq < 0 ? pair : pair.slice(0, eq));
		const value = eq < 0 ? '' : decodeComponent(pair.slice(eq + 1));
		const open = rawKey.indexOf('[');
		let base = open > 0 ? rawKey.slice(0, open) : rawKey;
		const segments: string[] = [];
		if (open > 0) {
			let rest = rawKey.slice(open);
			let match: RegExpExecArray | null;
			while ((match = /^\[([^\]]*)\]/.exec(rest))) {
				segments.push(match[1]);
				rest = rest.slice(match[0].length);
			}
			// `a[b` (no closing bracket) is a plain name in PHP, with the bracket turned into _
			if (segments.length === 0) base = rawKey;
		}
		base = base.replace(/[. []/g, '_');
		if (base === '') continue;
		if (segments.length === 0) {
			root.set(base, value);
			continue;
		}
		let node = root.child(base);
		segments.forEach((segment, index) => {
			const key = segment === '' ? undefined : segment;
			if (index === segments.length - 1) node.set(key, value);
			else node = node.child(key);
		});
	}
	const out = root.toJs();
	return Array.isArray(out) ? Object.fromEntries(out.map((v, i) => [String(i), v])) : (out as Record<string, unknown>);
}

/** Form-encodes a flat record (what the platform posts: `payload=…`, inbound SMS fields). */
export function formEncode(fields: Record<string, string>): string {
	return Object.entries(fields)
		.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value).replace(/%20/g, '+')}`)
		.join('&');
}

export function md5(text: string): string {
	return createHash('md5').update(text).digest('hex');
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `YYYY-MM-DD hh:mm:ss` in GMT, the date-time form of reports, CDRs and filters. */
export function gmt(time: number | Date): string {
	const d = new Date(time);
	return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** `YYYY-MM-DD` (UTC). */
export function ymd(time: number | Date): string {
	return gmt(time).slice(0, 10);
}

/** `YYYY-MM-DD hh:mm:ss` in UK local time (the inprogress_summary `datetime`). */
export function ukLocal(time: number | Date): string {
	const parts = new Intl.DateTimeFormat('en-GB', {
		timeZone: 'Europe/London',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
		hourCycle: 'h23',
	}).formatToParts(new Date(time));
	const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
	return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`;
}

/** PHP `date('c')` in UTC: `2026-03-01T10:00:00+00:00`. */
export function isoOffset(time: number | Date): string {
	return new Date(time).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** ISO 8601 UTC with `Z` and whole seconds. */
export function isoZ(time: number | Date): string {
	return new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** PHP `date('r')` in GMT: `Sun, 01 Mar 2026 10:00:00 +0000`. */
export function rfc2822(time: number | Date): string {
	return new Date(time).toUTCString().replace('GMT', '+0000');
}

/** `YYYY-MM-DD hh:mm:ss` (or `YYYY-MM-DD`, as midnight) read as GMT; NaN when malformed or not a real date. */
export function parseGmt(text: string): number {
	const match = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/.exec(text.trim());
	if (!match) return Number.NaN;
	const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
	if (hour > 23 || minute > 59 || second > 59) return Number.NaN;
	const time = Date.UTC(year, month - 1, day, hour, minute, second);
	const check = new Date(time);
	return check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === day ? time : Number.NaN;
}

export const DAY_MS = 86_400_000;

export function startOfDay(time: number): number {
	return Math.floor(time / DAY_MS) * DAY_MS;
}

/** A small seeded generator (mulberry32), so the seeded data is the same on every start. */
export function prng(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export function seedOf(text: string): number {
	return parseInt(md5(text).slice(0, 8), 16);
}

export type Random = () => number;

export function pick<T>(random: Random, items: readonly T[]): T {
	return items[Math.floor(random() * items.length)];
}

const HEX_DIGITS = '0123456789abcdef';

export function digits(random: Random, count: number): string {
	let out = '';
	for (let i = 0; i < count; i++) out += HEX_DIGITS[Math.floor(random() * 10)];
	return out;
}

export function hexOf(random: Random, count: number): string {
	let out = '';
	for (let i = 0; i < count; i++) out += HEX_DIGITS[Math.floor(random() * 16)];
	return out;
}

/** Money and rates as decimal text, the way the service writes them. */
export function decimal(value: number, places: number): string {
	return (Math.round(value * 10 ** places) / 10 ** places).toFixed(places);
}

export function round(value: number, places: number): number {
	return Math.round(value * 10 ** places) / 10 ** places;
}
