/** Calls for the Wholesale Voice sandbox tests: Basic auth per demo account, JSON or form bodies, raw bytes kept. */
import type { Sandbox } from '../../sandbox/index';

export const A = { id: '123456', username: 'api123456', password: 'wv-demo-123456' };
export const B = { id: '654321', username: 'api654321', password: 'wv-demo-654321' };

export interface WsAnswer {
	status: number;
	headers: Headers;
	text: string;
	bytes: Buffer;
	/** The body parsed as JSON, or undefined when it is not JSON. */
	json: unknown;
	/** The JSON body as a record (empty when it is not an object). */
	body: Record<string, unknown>;
}

export interface WsOptions {
	/** Credentials: an account (default A), null for none, or [user, password]. */
	as?: typeof A | null | [string, string];
	json?: unknown;
	/** A form-encoded body, given as the exact text. */
	form?: string;
	headers?: Record<string, string>;
}

export function basic(user: string, password: string): string {
	return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export function wholesaleClient(sandbox: () => Sandbox) {
	const call = async (method: string, path: string, options: WsOptions = {}): Promise<WsAnswer> => {
		const headers: Record<string, string> = { ...(options.headers ?? {}) };
		const as = options.as === undefined ? A : options.as;
		if (as !== null) headers.Authorization = Array.isArray(as) ? basic(as[0], as[1]) : basic(as.username, as.password);
		let body: string | undefined;
		if (options.json !== undefined) {
			headers['Content-Type'] ??= 'application/json';
			body = JSON.stringify(options.json);
		} else if (options.form !== undefined) {
			headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
			body = options.form;
		}
		const response = await fetch(`${sandbox().url}${path}`, { method, headers, body });
		const bytes = Buffer.from(await response.arrayBuffer());
		const text = bytes.toString('utf8');
		let json: unknown;
		try {
			json = text ? (JSON.parse(text) as unknown) : undefined;
		} catch {
			json = undefined;
		}
		const body_ = json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
		return { status: response.status, headers: response.headers, text, bytes, json, body: body_ };
	};
	const admin = async (method: string, path: string, body?: unknown): Promise<WsAnswer> =>
		call(method, `/_sandbox/wholesale${path}`, { as: null, json: body });
	return { call, admin };
}

/** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks. */
export function parseCsv(text: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let field = '';
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const ch = text[i];
		if (quoted) {
			if (ch === '"' && text[i + 1] === '"') {
				field += '"';
				i++;
			} else if (ch === '"') quoted = false;
			else field += ch;
		} else if (ch === '"') quoted = true;
		else if (ch === ',') {
			row.push(field);
			field = '';
		} else if (ch === '\n' || ch === '\r') {
			if (ch === '\r' && text[i + 1] === '\n') i++;
			row.push(field);
			rows.push(row);
			row = [];
			field = '';
		} else field += ch;
	}
	if (field !== '' || row.length) {
		row.push(field);
		rows.push(row);
	}
	return rows;
}

/** `YYYY-MM-DD hh:mm:ss` (GMT) of a time. */
export function gmtText(time: number): string {
	return new Date(time).toISOString().replace('T', ' ').slice(0, 19);
}

export const DAY = 86_400_000;

export function startOfUtcDay(time = Date.now()): number {
	return Math.floor(time / DAY) * DAY;
}

/** Decodes a form body as PHP would for flat fields (payload=…). */
export function formFields(text: string): Record<string, string> {
	return Object.fromEntries(new URLSearchParams(text));
}
