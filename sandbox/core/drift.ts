import type { ServerResponse } from 'node:http';

import { HttpError } from './http';

/**
 * Answer drift: the JSON answers of matching API requests come back as a platform that changed
 * would send them, so that a check of the client against the platform (`npm run check-live`) can be
 * tested. Unlike a fault, a drift lets the module answer and then changes the answer, for every
 * matching request until cleared. What it changes, in each record of the answer (the body, the
 * items of a list wrapper, or what a `data` envelope holds):
 *
 * - `rename`: `{from: to}` renames a field;
 * - `asText`: fields whose number is sent as text (`12.5` becomes `"12.5"`);
 * - `add`: fields added with these values;
 * - `dropPaging`: the list wrapper loses its paging links (`nextPage`, `prevPage`);
 * - `status`: the request is answered with this status and a message instead (an endpoint that moved).
 *
 * A drift matches on the API (module name) and a path prefix (the full path, API prefix included)
 * in which `*` stands for one path segment; only GET requests drift.
 */
export interface DriftSpec {
	api?: string;
	pathPrefix: string;
	rename?: Record<string, string>;
	asText?: string[];
	add?: Record<string, unknown>;
	dropPaging?: boolean;
	status?: number;
}

export interface Drift extends DriftSpec {
	id: number;
	/** Answers changed so far. */
	hits: number;
}

const invalid = (message: string) => new HttpError(400, { message });

function textMap(value: unknown, name: string): Record<string, string> | undefined {
	if (value === undefined) return undefined;
	if (!value || typeof value !== 'object' || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string')) throw invalid(`${name} must be an object of texts`);
	return value as Record<string, string>;
}

/** Checks an admin request for a drift. */
export function driftFromSpec(input: unknown, id: number): Drift {
	if (!input || typeof input !== 'object' || Array.isArray(input)) throw invalid('A drift is a JSON object');
	const spec = input as DriftSpec;
	if (typeof spec.pathPrefix !== 'string' || !spec.pathPrefix.startsWith('/')) throw invalid('pathPrefix is required: the full path, starting with /');
	if (spec.api !== undefined && typeof spec.api !== 'string') throw invalid('api must be text');
	textMap(spec.rename, 'rename');
	if (spec.asText !== undefined && !(Array.isArray(spec.asText) && spec.asText.every((v) => typeof v === 'string'))) throw invalid('asText must be a list of field names');
	if (spec.add !== undefined && (!spec.add || typeof spec.add !== 'object' || Array.isArray(spec.add))) throw invalid('add must be an object');
	if (spec.dropPaging !== undefined && typeof spec.dropPaging !== 'boolean') throw invalid('dropPaging must be true or false');
	if (spec.status !== undefined && !(Number.isInteger(spec.status) && spec.status >= 100 && spec.status <= 599)) throw invalid('status must be an HTTP status (100-599)');
	if (!spec.rename && !spec.asText && !spec.add && !spec.dropPaging && spec.status === undefined) throw invalid('A drift changes something: rename, asText, add, dropPaging or status');
	return { ...spec, id, hits: 0 };
}

function matcher(pathPrefix: string): (path: string) => boolean {
	const pattern = new RegExp(`^${pathPrefix.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}`);
	return (path) => pattern.test(path);
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);

/** The records of an answer: a list wrapper's items, what a `data` envelope holds, an array's objects, or the body. */
function recordsOf(body: unknown): Json[] {
	if (Array.isArray(body)) return body.filter(isObject);
	if (!isObject(body)) return [];
	if (Array.isArray(body.items)) return body.items.filter(isObject);
	if ('data' in body && (isObject(body.data) || Array.isArray(body.data))) return recordsOf(body.data);
	return [body];
}

/** The answer as the drift changes it (a new value; the module's own objects stay as they were). */
export function drifted(drift: DriftSpec, body: unknown): unknown {
	const copy = JSON.parse(JSON.stringify(body)) as unknown;
	if (drift.dropPaging && isObject(copy)) {
		delete copy.nextPage;
		delete copy.prevPage;
	}
	for (const record of recordsOf(copy)) {
		for (const [from, to] of Object.entries(drift.rename ?? {})) {
			if (!(from in record)) continue;
			record[to] = record[from];
			delete record[from];
		}
		for (const field of drift.asText ?? []) {
			if (typeof record[field] === 'number') record[field] = String(record[field]);
		}
		Object.assign(record, drift.add ?? {});
	}
	return copy;
}

/** The drifts in force, and the answers they change. */
export class DriftTable {
	private drifts: Array<{ drift: Drift; matches: (path: string) => boolean }> = [];
	private nextId = 1;

	add(spec: unknown): Drift {
		const drift = driftFromSpec(spec, this.nextId++);
		this.drifts.push({ drift, matches: matcher(drift.pathPrefix) });
		return drift;
	}

	list(): Drift[] {
		return this.drifts.map(({ drift }) => drift);
	}

	clear(): void {
		this.drifts = [];
	}

	/** The first drift of a request, counted; undefined when none applies. */
	take(api: string, method: string, path: string): Drift | undefined {
		if (method !== 'GET') return undefined;
		const found = this.drifts.find(({ drift, matches }) => (drift.api === undefined || drift.api === api) && matches(path))?.drift;
		if (found) found.hits++;
		return found;
	}

	/**
	 * Makes `res` send its JSON answer drifted: the head is held until the body is known, then sent
	 * with the changed body's length. An answer that is not one JSON body (audio, a stream) passes unchanged.
	 */
	apply(drift: Drift, res: ServerResponse): void {
		const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, string | number>) => ServerResponse;
		const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
		const write = res.write.bind(res) as (chunk: unknown) => boolean;
		let held: { status: number; headers: Record<string, string | number> } | undefined;
		const flush = () => {
			if (held) writeHead(held.status, held.headers);
			held = undefined;
		};
		Object.assign(res, {
			writeHead: (status: number, headers: Record<string, string | number> = {}) => {
				held = { status, headers };
				return res;
			},
			write: (chunk: unknown) => {
				flush();
				return write(chunk);
			},
			end: (chunk?: unknown) => {
				const type = String(Object.entries(held?.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '');
				if (!held || !Buffer.isBuffer(chunk) || !/json/i.test(type)) {
					flush();
					return end(chunk);
				}
				let payload: Buffer;
				try {
					payload = Buffer.from(JSON.stringify(drifted(drift, JSON.parse(chunk.toString('utf8')))));
				} catch {
					payload = chunk;
				}
				const headers = Object.fromEntries(Object.entries(held.headers).filter(([name]) => name.toLowerCase() !== 'content-length'));
				writeHead(held.status, { ...headers, 'Content-Length': payload.length });
				held = undefined;
				return end(payload);
			},
		});
	}
}
