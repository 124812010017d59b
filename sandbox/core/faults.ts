import type { ServerResponse } from 'node:http';

import { HttpError } from './http';
import { currentTime } from './clock';

/**
 * Request faults: the next N matching API requests (or every one until cleared) are answered
 * the way a broken server or a broken path to it answers. Kinds:
 *
 * - `status`: an error status (or any status) with a body and headers, e.g. 500, 429 with
 *   `Retry-After`, or a persistent 401 while a credential is refused;
 * - `hang`: the request is read and never answered, until the client goes away or the sandbox
 *   is reset or closed;
 * - `trickle`: headers, then one byte of an endless JSON-like text every `intervalMs`, never
 *   finishing;
 * - `huge`: a 2xx body of `bytes` bytes (a valid JSON document), streamed in chunks with
 *   back-pressure, never held in memory; `declareLength` sends its Content-Length first;
 * - `nonJson`: a 2xx answer whose body is an HTML page (a proxy's or a login page);
 * - `empty`: a 2xx answer with an empty body, where the contract shows one.
 *
 * A fault matches on the API (module name), the method and a path prefix in which `*` stands
 * for one path segment (`/api/v1/customers/* /calls`, without the space). Every fault counts
 * the requests it answered (`hits`).
 */

export const FAULT_KINDS = ['status', 'hang', 'trickle', 'huge', 'nonJson', 'empty'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
	kind?: FaultKind;
	/** Which module's requests it applies to (`pbx`, `convai`, ...); any when absent. */
	api?: string;
	method?: string;
	/** A path prefix (the full path, API prefix included); `*` matches one segment. */
	pathPrefix?: string;
	/** How many requests get it (default 1); ignored when `persist`. */
	count?: number;
	/** Every matching request until the fault is cleared. */
	persist?: boolean;
	/** The answer's status: required for `status`, 200 for the other kinds. */
	status?: number;
	/** `status`: the JSON (or text) body; `nonJson`: the page to send instead of the default. */
	body?: unknown;
	headers?: Record<string, string>;
	/** `huge`: the body's size in bytes (default 200 MiB). */
	bytes?: number;
	/** `huge`: send Content-Length (default false: chunked, so the client must count). */
	declareLength?: boolean;
	/** `trickle`: the pause between bytes (default 1000 ms). */
	intervalMs?: number;
	/** The Content-Type to send (each kind has its own default). */
	contentType?: string;
	/** A name for a group of faults (the modules' credential refusals use it), to list and clear them together. */
	label?: string;
}

export interface StatusFault extends FaultSpec {
	id: number;
	kind: FaultKind;
	status: number;
	/** Requests still to answer; null while persistent. */
	remaining: number | null;
	/** Requests answered so far. */
	hits: number;
	createdAt: string;
}

export const DEFAULT_HUGE_BYTES = 200 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const HUGE_HEAD = '{"items":[';
const HUGE_TAIL = '{}]}';
const HUGE_ROW = '{"id":1234567,"name":"a row of a huge answer","value":"0123456789abcdef"},';
const TRICKLE_TEXT = '{"items":[{"id":1,"name":"slow"},{"id":2,"name":"slower"},';

/** A proxy's error page, as a load balancer in front of an API answers when its upstream is down. */
export const HTML_PAGE = [
	'<!DOCTYPE html>',
	'<html lang="en"><head><meta charset="utf-8"><title>Service Unavailable</title></head>',
	'<body><h1>We\'ll be right back</h1><p>The service is undergoing maintenance. Please try again later.</p>',
	'<hr><address>edge-proxy</address></body></html>',
	'',
].join('\n');

/** One 64 KiB block of whole rows, reused for every chunk of every huge answer. */
const HUGE_BLOCK = Buffer.from(HUGE_ROW.repeat(Math.floor(CHUNK_BYTES / HUGE_ROW.length)));

function patternMatcher(pathPrefix: string | undefined): (path: string) => boolean {
	if (!pathPrefix) return () => true;
	if (!pathPrefix.includes('*')) return (path) => path.startsWith(pathPrefix);
	const pattern = new RegExp(`^${pathPrefix.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}`);
	return (path) => pattern.test(path);
}

function invalid(message: string): HttpError {
	return new HttpError(400, { message });
}

/** Checks an admin request for a fault and fills in its defaults. */
export function faultFromSpec(input: unknown, id: number): StatusFault {
	if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid('A fault is a JSON object');
	const spec = input as FaultSpec & Record<string, unknown>;
	const kind = spec.kind ?? 'status';
	if (!(FAULT_KINDS as readonly string[]).includes(kind)) throw invalid(`kind must be one of ${FAULT_KINDS.join(', ')}`);
	const status = spec.status ?? (kind === 'status' ? undefined : 200);
	if (status === undefined || !Number.isInteger(status) || status < 100 || status > 599) {
		throw invalid(kind === 'status' ? 'status is required (100-599)' : 'status must be an HTTP status (100-599)');
	}
	const count = spec.count ?? 1;
	if (!Number.isInteger(count) || count < 1) throw invalid('count must be a whole number of 1 or more (or persist: true)');
	if (spec.persist !== undefined && typeof spec.persist !== 'boolean') throw invalid('persist must be true or false');
	if (spec.bytes !== undefined && (!Number.isInteger(spec.bytes) || spec.bytes < HUGE_HEAD.length + HUGE_TAIL.length)) {
		throw invalid(`bytes must be a whole number of at least ${HUGE_HEAD.length + HUGE_TAIL.length}`);
	}
	if (spec.intervalMs !== undefined && (typeof spec.intervalMs !== 'number' || !(spec.intervalMs >= 1))) throw invalid('intervalMs must be 1 or more');
	for (const key of ['api', 'method', 'pathPrefix', 'contentType', 'label'] as const) {
		if (spec[key] !== undefined && typeof spec[key] !== 'string') throw invalid(`${key} must be text`);
	}
	return {
		...spec,
		id,
		kind,
		status,
		count,
		remaining: spec.persist ? null : count,
		hits: 0,
		createdAt: new Date(currentTime()).toISOString(),
	};
}

interface Playing {
	res: ServerResponse;
	timer?: NodeJS.Timeout;
}

/** The queued faults, and the answers still being played (hanging, trickling, streaming). */
export class FaultQueue {
	private faults: StatusFault[] = [];
	private matchers = new Map<number, (path: string) => boolean>();
	private playing = new Set<Playing>();
	private nextId = 1;

	add(spec: FaultSpec): StatusFault {
		const fault = faultFromSpec(spec, this.nextId++);
		this.faults.push(fault);
		this.matchers.set(fault.id, patternMatcher(fault.pathPrefix));
		return fault;
	}

	/** The first fault that matches the request, counted as used; undefined when none does. */
	take(api: string, method: string, path: string): StatusFault | undefined {
		const fault = this.faults.find(
			(f) =>
				(!f.api || f.api === api) &&
				(!f.method || f.method.toUpperCase() === method) &&
				(this.matchers.get(f.id) ?? (() => true))(path),
		);
		if (!fault) return undefined;
		fault.hits += 1;
		if (fault.remaining !== null) {
			fault.remaining -= 1;
			if (fault.remaining <= 0) this.remove(fault.id);
		}
		return fault;
	}

	list(): StatusFault[] {
		return this.faults.map((fault) => ({ ...fault }));
	}

	get(id: number): StatusFault | undefined {
		return this.faults.find((fault) => fault.id === id);
	}

	remove(id: number): boolean {
		const before = this.faults.length;
		this.faults = this.faults.filter((fault) => fault.id !== id);
		this.matchers.delete(id);
		return this.faults.length < before;
	}

	/** Removes the faults a predicate picks; answers how many. */
	removeMatching(picked: (fault: StatusFault) => boolean): number {
		const removed = this.faults.filter(picked);
		for (const fault of removed) this.remove(fault.id);
		return removed.length;
	}

	/** Removes every fault and ends every answer still being played. */
	clear(): void {
		this.faults = [];
		this.matchers.clear();
		this.endAll();
	}

	/** How many answers are still open (hanging, trickling or streaming). */
	openAnswers(): number {
		return this.playing.size;
	}

	/** Ends the answers being played: their sockets are destroyed, their timers cleared. */
	endAll(): void {
		for (const entry of [...this.playing]) {
			if (entry.timer) clearInterval(entry.timer);
			entry.res.socket?.destroy();
			entry.res.destroy();
			this.playing.delete(entry);
		}
	}

	/** Answers a request as the fault says. */
	play(fault: StatusFault, res: ServerResponse, send: (res: ServerResponse, status: number, body?: unknown, headers?: Record<string, string>) => void): void {
		const headers = fault.headers ?? {};
		switch (fault.kind) {
			case 'status':
				send(res, fault.status, fault.body ?? { message: `injected fault ${fault.status}` }, headers);
				return;
			case 'empty':
				res.writeHead(fault.status, { 'Content-Type': fault.contentType ?? 'application/json', 'Content-Length': '0', ...headers });
				res.end();
				return;
			case 'nonJson': {
				const page = Buffer.from(typeof fault.body === 'string' ? fault.body : HTML_PAGE);
				res.writeHead(fault.status, { 'Content-Type': fault.contentType ?? 'text/html; charset=utf-8', 'Content-Length': String(page.length), ...headers });
				res.end(page);
				return;
			}
			case 'hang':
				this.track(res);
				return;
			case 'trickle':
				this.trickle(fault, res, headers);
				return;
			case 'huge':
				void this.huge(fault, res, headers);
				return;
		}
	}

	private track(res: ServerResponse, timer?: NodeJS.Timeout): Playing {
		const entry: Playing = { res, timer };
		this.playing.add(entry);
		res.on('close', () => {
			if (entry.timer) clearInterval(entry.timer);
			this.playing.delete(entry);
		});
		return entry;
	}

	private trickle(fault: StatusFault, res: ServerResponse, headers: Record<string, string>): void {
		res.writeHead(fault.status, { 'Content-Type': fault.contentType ?? 'application/json', ...headers });
		res.flushHeaders();
		let next = 0;
		const entry = this.track(res);
		entry.timer = setInterval(() => {
			res.write(TRICKLE_TEXT[next % TRICKLE_TEXT.length]);
			next += 1;
		}, fault.intervalMs ?? 1000);
		entry.timer.unref();
	}

	/**
	 * `{"items":[` + rows + spaces + `{}]}`, exactly `bytes` long: a JSON document a client can
	 * only reject by its size. Written one reused 64 KiB block at a time, waiting for the socket
	 * to drain, so the sandbox holds one block whatever the size.
	 */
	private async huge(fault: StatusFault, res: ServerResponse, headers: Record<string, string>): Promise<void> {
		const total = fault.bytes ?? DEFAULT_HUGE_BYTES;
		res.writeHead(fault.status, {
			'Content-Type': fault.contentType ?? 'application/json',
			...(fault.declareLength ? { 'Content-Length': String(total) } : {}),
			...headers,
		});
		const entry = this.track(res);
		let closed = false;
		res.on('close', () => (closed = true));
		const write = async (chunk: Buffer | string): Promise<void> => {
			if (closed || res.write(chunk)) return;
			await new Promise<void>((resolve) => {
				const done = () => {
					res.off('drain', done);
					res.off('close', done);
					resolve();
				};
				res.on('drain', done);
				res.on('close', done);
			});
		};
		let rows = total - HUGE_HEAD.length - HUGE_TAIL.length;
		await write(HUGE_HEAD);
		while (rows >= HUGE_BLOCK.length && !closed) {
			await write(HUGE_BLOCK);
			rows -= HUGE_BLOCK.length;
		}
		const wholeRows = Math.floor(rows / HUGE_ROW.length) * HUGE_ROW.length;
		if (!closed && wholeRows > 0) await write(HUGE_BLOCK.subarray(0, wholeRows));
		if (closed) return;
		// Whitespace between elements pads the document to the exact size.
		res.end(`${' '.repeat(rows - wholeRows)}${HUGE_TAIL}`);
		this.playing.delete(entry);
	}
}
