import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** Thrown by handlers to answer with a status and a JSON body. */
export class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly body: unknown,
		readonly headers: Record<string, string> = {},
	) {
		super(typeof body === 'string' ? body : JSON.stringify(body));
	}
}

export type Query = Record<string, string | string[]>;

export interface SandboxRequest {
	/** The effective method, after `_method` overrides a module allows. */
	method: string;
	rawMethod: string;
	/** Path below the module's prefix, without query string, percent-decoded per segment. */
	path: string;
	fullPath: string;
	query: Query;
	headers: IncomingHttpHeaders;
	body: Buffer;
	params: Record<string, string>;
	/** Who the module authenticated (for the request log), never a secret. */
	principal?: string;
	raw: IncomingMessage;
}

export function queryValue(query: Query, name: string): string | undefined {
	const value = query[name];
	return Array.isArray(value) ? value[value.length - 1] : value;
}

export function parseQuery(search: string): Query {
	const out: Query = {};
	for (const [key, value] of new URLSearchParams(search)) {
		const existing = out[key];
		if (existing === undefined) out[key] = value;
		else out[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
	}
	return out;
}

export function readBody(req: IncomingMessage, limit = 20 * 1024 * 1024): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) {
				reject(new HttpError(413, { message: 'body too large' }));
				req.destroy();
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

/** The body as JSON (any content type that parses), or undefined when empty. */
export function jsonBody<T = unknown>(req: SandboxRequest): T | undefined {
	const text = req.body.toString('utf8');
	if (text.trim() === '') return undefined;
	try {
		return JSON.parse(text) as T;
	} catch {
		throw new HttpError(400, { message: 'The request body is not valid JSON' });
	}
}

export function isJsonRequest(req: SandboxRequest): boolean {
	const type = String(req.headers['content-type'] ?? '');
	if (/json/i.test(type)) return true;
	const first = req.body.toString('utf8').trimStart()[0];
	return !/x-www-form-urlencoded/i.test(type) && (first === '{' || first === '[');
}

export function send(
	res: ServerResponse,
	status: number,
	body?: unknown,
	headers: Record<string, string | number> = {},
): void {
	if (res.headersSent) return;
	let payload: Buffer | undefined;
	const out: Record<string, string | number> = { ...headers };
	if (Buffer.isBuffer(body)) {
		payload = body;
	} else if (typeof body === 'string') {
		payload = Buffer.from(body);
		out['Content-Type'] ??= 'text/plain; charset=utf-8';
	} else if (body !== undefined) {
		payload = Buffer.from(JSON.stringify(body));
		out['Content-Type'] ??= 'application/json';
	}
	if (payload) out['Content-Length'] = payload.length;
	res.writeHead(status, out);
	res.end(payload);
}

export type Handler = (req: SandboxRequest, res: ServerResponse) => unknown;

interface Route {
	method: string;
	pattern: RegExp;
	names: string[];
	handler: Handler;
}

/** Path templates such as `/customers/:customerId/sms/:smsId`; `*` as a method matches any. */
export class Router {
	private readonly routes: Route[] = [];

	add(method: string, template: string, handler: Handler): this {
		const names: string[] = [];
		const source = template
			.split('/')
			.map((part) => {
				if (part.startsWith(':')) {
					names.push(part.slice(1));
					return '([^/]+)';
				}
				return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
			})
			.join('/');
		this.routes.push({ method, pattern: new RegExp(`^${source}/?$`), names, handler });
		return this;
	}

	/** The handler for a path, or which methods the path allows (for 405). */
	match(
		method: string,
		path: string,
	): { handler: Handler; params: Record<string, string> } | { allowed: string[] } | undefined {
		const allowed: string[] = [];
		for (const route of this.routes) {
			const found = route.pattern.exec(path);
			if (!found) continue;
			if (route.method !== '*' && route.method !== method) {
				allowed.push(route.method);
				continue;
			}
			const params: Record<string, string> = {};
			route.names.forEach((name, index) => (params[name] = decodeURIComponent(found[index + 1])));
			return { handler: route.handler, params };
		}
		return allowed.length ? { allowed } : undefined;
	}
}
