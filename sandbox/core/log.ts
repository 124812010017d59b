import type { SandboxRequest } from './http';
import { currentTime } from './clock';
import { multipartType, parseMultipart, sniffBoundary } from './multipart';

export interface LoggedRequest {
	seq: number;
	time: string;
	api: string;
	method: string;
	/** The method on the wire, when `_method` or leniency changed it. */
	rawMethod: string;
	path: string;
	query: Record<string, string | string[]>;
	headers: Record<string, string>;
	body: unknown;
	principal?: string;
	status?: number;
	/** The injected fault that answered it (`hang#3`), if one did. */
	fault?: string;
}

export interface LogFilter {
	api?: string;
	method?: string;
	pathPrefix?: string;
	since?: number;
}

function redactHeaders(headers: SandboxRequest['headers']): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(headers)) {
		if (value === undefined) continue;
		const text = Array.isArray(value) ? value.join(', ') : value;
		out[key] = key === 'authorization' ? text.replace(/^(\w+)\s+.*$/, '$1 ***') : text;
	}
	return out;
}

/** A form's text fields, and its files by name, type and size (not their bytes). */
function multipartSummary(type: string, body: Buffer): Record<string, unknown> | undefined {
	const { multipart, boundary } = multipartType(type);
	if (!multipart) return undefined;
	try {
		const parts = parseMultipart(body, boundary ?? sniffBoundary(body) ?? '', { maxBytes: Number.MAX_SAFE_INTEGER, maxParts: 1000 });
		return {
			fields: Object.fromEntries(parts.filter((p) => p.filename === undefined).map((p) => [p.name, p.data.toString('utf8').slice(0, 10_000)])),
			files: parts.filter((p) => p.filename !== undefined).map((p) => ({ name: p.name, filename: p.filename, contentType: p.contentType ?? null, bytes: p.data.length })),
		};
	} catch {
		return undefined;
	}
}

function bodyForLog(req: SandboxRequest): unknown {
	if (req.body.length === 0) return undefined;
	const text = req.body.toString('utf8');
	const type = String(req.headers['content-type'] ?? '');
	try {
		if (/json/i.test(type) || /^\s*[[{]/.test(text)) return JSON.parse(text);
	} catch {
		// not JSON after all: logged as text below
	}
	if (/x-www-form-urlencoded/i.test(type)) return Object.fromEntries(new URLSearchParams(text));
	const multipart = multipartSummary(type, req.body);
	if (multipart) return multipart;
	return text.length > 10_000 ? `${text.slice(0, 10_000)}…` : text;
}

/** Every request the sandbox received (admin calls excepted), credentials redacted. */
export class RequestLog {
	private entries: LoggedRequest[] = [];
	private seq = 0;

	record(api: string, req: SandboxRequest): LoggedRequest {
		const entry: LoggedRequest = {
			seq: ++this.seq,
			time: new Date(currentTime()).toISOString(),
			api,
			method: req.method,
			rawMethod: req.rawMethod,
			path: req.fullPath,
			query: req.query,
			headers: redactHeaders(req.headers),
			body: bodyForLog(req),
		};
		this.entries.push(entry);
		if (this.entries.length > 50_000) this.entries.splice(0, 10_000);
		return entry;
	}

	list(filter: LogFilter = {}): LoggedRequest[] {
		return this.entries.filter(
			(e) =>
				(!filter.api || e.api === filter.api) &&
				(!filter.method || e.method === filter.method.toUpperCase()) &&
				(!filter.pathPrefix || e.path.startsWith(filter.pathPrefix)) &&
				(!filter.since || e.seq > filter.since),
		);
	}

	get lastSeq(): number {
		return this.seq;
	}

	clear(): void {
		this.entries = [];
	}
}
