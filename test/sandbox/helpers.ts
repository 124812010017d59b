/** Small tools for the sandbox tests: a local HTTP receiver, a raw SSE reader, a raw stream reader. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	body: string;
	json: unknown;
	at: number;
}

export interface Receiver {
	url: string;
	requests: ReceivedRequest[];
	/** Replaces how the receiver answers (the default answers 200 with an empty body). */
	respond: (handler: (req: ReceivedRequest, res: ServerResponse) => void | Promise<void>) => void;
	close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 that records every request it gets. */
export async function startReceiver(
	handler: (req: ReceivedRequest, res: ServerResponse) => void | Promise<void> = (_req, res) => {
		res.end();
	},
): Promise<Receiver> {
	let current = handler;
	const requests: ReceivedRequest[] = [];
	const server = createServer((raw: IncomingMessage, res) => {
		const chunks: Buffer[] = [];
		raw.on('data', (chunk: Buffer) => chunks.push(chunk));
		raw.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			let json: unknown;
			try {
				json = body ? JSON.parse(body) : undefined;
			} catch {
				json = undefined;
			}
			const received: ReceivedRequest = { method: raw.method ?? '', path: raw.url ?? '', headers: raw.headers, body, json, at: Date.now() };
			requests.push(received);
			void Promise.resolve(current(received, res)).catch(() => res.destroy());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		requests,
		respond: (next) => {
			current = next;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

export function sendJson(res: ServerResponse, status: number, body?: unknown): void {
	const text = body === undefined ? '' : JSON.stringify(body);
	res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
	res.end(text);
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A delay that does not keep the process alive (for slow receivers that may be abandoned). */
export const unrefDelay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5000, what = 'condition'): Promise<T> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined && value !== false) return value;
		if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
		await delay(10);
	}
}

/** One dispatched SSE message, parsed as the EventSource algorithm does. */
export interface SseMessage {
	id: string | undefined;
	event: string | undefined;
	data: string;
}

/**
 * A raw Server-Sent Events reader over node:http: keeps the exact bytes, the dispatched
 * messages, the comment lines, and whether the server ended or dropped the response.
 */
export class SseReader {
	raw = '';
	messages: SseMessage[] = [];
	comments: string[] = [];
	retry: number | undefined;
	status = 0;
	headers: IncomingHttpHeaders = {};
	body = '';
	ended = false;
	aborted = false;
	private buffer = '';
	private pending: { id?: string; event?: string; data: string[] } = { data: [] };
	private req?: ReturnType<typeof request>;
	private finished!: Promise<void>;

	static async open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
		const reader = new SseReader();
		await reader.connect(url, headers);
		return reader;
	}

	private connect(url: string, headers: Record<string, string>): Promise<void> {
		return new Promise((resolveOpen, rejectOpen) => {
			let resolveDone!: () => void;
			this.finished = new Promise<void>((resolve) => (resolveDone = resolve));
			this.req = request(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
				this.status = res.statusCode ?? 0;
				this.headers = res.headers;
				res.setEncoding('utf8');
				res.on('data', (chunk: string) => {
					this.raw += chunk;
					if (this.status === 200) this.feed(chunk);
					else this.body += chunk;
				});
				res.on('end', () => {
					this.ended = true;
					resolveDone();
				});
				res.on('aborted', () => {
					this.aborted = true;
				});
				res.on('close', () => {
					if (!this.ended) this.aborted = true;
					resolveDone();
				});
				resolveOpen();
			});
			this.req.on('error', (error) => {
				this.aborted = true;
				resolveDone();
				rejectOpen(error);
			});
			this.req.end();
		});
	}

	private feed(chunk: string): void {
		this.buffer += chunk;
		const lines = this.buffer.split(/\r\n|\r|\n/);
		this.buffer = lines.pop() ?? '';
		for (const line of lines) {
			if (line === '') {
				if (this.pending.data.length) {
					this.messages.push({ id: this.pending.id, event: this.pending.event, data: this.pending.data.join('\n') });
				}
				this.pending = { data: [] };
				continue;
			}
			if (line.startsWith(':')) {
				this.comments.push(line.slice(1).trim());
				continue;
			}
			const colon = line.indexOf(':');
			const field = colon < 0 ? line : line.slice(0, colon);
			const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
			if (field === 'data') this.pending.data.push(value);
			else if (field === 'id') this.pending.id = value;
			else if (field === 'event') this.pending.event = value;
			else if (field === 'retry') this.retry = Number(value);
		}
	}

	/** The JSON events received so far (messages whose data parse). */
	get events(): Array<Record<string, unknown>> {
		const out: Array<Record<string, unknown>> = [];
		for (const message of this.messages) {
			try {
				out.push(JSON.parse(message.data) as Record<string, unknown>);
			} catch {
				// malformed message: left out here, visible in `messages`
			}
		}
		return out;
	}

	get json(): unknown {
		return this.body ? (JSON.parse(this.body) as unknown) : undefined;
	}

	/** Resolves when the server ends or drops the response; rejects after `timeoutMs`. */
	async done(timeoutMs = 5000): Promise<void> {
		let timer: NodeJS.Timeout | undefined;
		await Promise.race([
			this.finished,
			new Promise<never>((_resolve, reject) => {
				timer = setTimeout(() => reject(new Error('stream did not end')), timeoutMs);
			}),
		]).finally(() => clearTimeout(timer));
	}

	waitForEvents(count: number, timeoutMs = 5000): Promise<Array<Record<string, unknown>>> {
		return waitFor(() => (this.events.length >= count ? this.events : undefined), timeoutMs, `${count} SSE events`);
	}

	close(): void {
		this.req?.destroy();
	}
}

/** A raw reader of any streaming HTTP response: the chunks as they came, and the whole text. */
export class RawStream {
	chunks: Buffer[] = [];
	status = 0;
	headers: IncomingHttpHeaders = {};
	closed = false;
	private req?: ReturnType<typeof request>;

	static open(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
		const stream = new RawStream();
		return new Promise((resolve, reject) => {
			stream.req = request(url, { headers }, (res) => {
				stream.status = res.statusCode ?? 0;
				stream.headers = res.headers;
				res.on('data', (chunk: Buffer) => stream.chunks.push(chunk));
				res.on('close', () => {
					stream.closed = true;
				});
				resolve(stream);
			});
			stream.req.on('error', (error) => {
				stream.closed = true;
				reject(error);
			});
			stream.req.end();
		});
	}

	get text(): string {
		return Buffer.concat(this.chunks).toString('utf8');
	}

	close(): void {
		this.req?.destroy();
	}
}

/**
 * Splits concatenated / padded / line-separated JSON objects as a tolerant client must:
 * by brace depth, outside strings, ignoring whitespace between objects.
 */
export function splitJsonObjects(text: string): { objects: unknown[]; rest: string; invalid: string[] } {
	const objects: unknown[] = [];
	const invalid: string[] = [];
	let depth = 0;
	let inString = false;
	let escaped = false;
	let start = -1;
	let consumed = 0;
	for (let i = 0; i < text.length; i++) {
		const ch = text[i];
		if (inString) {
			if (escaped) escaped = false;
			else if (ch === '\\') escaped = true;
			else if (ch === '"') inString = false;
			continue;
		}
		if (ch === '"') inString = true;
		else if (ch === '{') {
			if (depth === 0) start = i;
			depth += 1;
		} else if (ch === '}') {
			depth -= 1;
			if (depth === 0) {
				const piece = text.slice(start, i + 1);
				try {
					objects.push(JSON.parse(piece));
				} catch {
					invalid.push(piece);
				}
				consumed = i + 1;
			}
		}
	}
	return { objects, rest: text.slice(consumed), invalid };
}
