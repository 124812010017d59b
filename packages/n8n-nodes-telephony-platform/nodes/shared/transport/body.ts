import { truncate } from '../errors';
import type { ApiRequest, BodyStream } from '../operation';
import type { SecretForms } from '../redaction';
import { maskAnswer, redact } from '../redaction';
import { Watchdog, clock } from '../timers';

/** The size bound of every download, answers and streamed files alike: about an hour of call audio. */
export const MAX_DOWNLOAD_MIB = 64;
export const MAX_DOWNLOAD_BYTES = MAX_DOWNLOAD_MIB * 1024 * 1024;
/** Slowest average a file may keep once it ran as long as the timeout (a quarter of call audio's 16 KB/s): no dripping for hours. */
export const MIN_FILE_BYTES_PER_SECOND = 4096;

export type RawResponse = { statusCode: number; headers: unknown; body: unknown };
type NodeStream = BodyStream & AsyncIterable<Buffer> & { destroy(error?: Error): void };

export function lowerCaseHeaders(headers: unknown): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries((headers as Record<string, unknown>) ?? {})) {
		out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return out;
}

function toBuffer(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (body === undefined || body === null) return Buffer.alloc(0);
	return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
}

/** JSON text as parsed, undefined when blank; a leading byte order mark is ignored (RFC 8259 allows it). */
export function parseJsonText(text: string): unknown {
	const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
	return json.trim() === '' ? undefined : JSON.parse(json);
}

/** JSON text as parsed, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): unknown {
	try {
		return parseJsonText(text);
	} catch {
		return undefined;
	}
}

/** The body as the request asked for it, or why it could not be read that way (secrets already redacted). */
export function decodeBody(
	buffer: Buffer,
	type: ApiRequest['responseType'],
	label: string,
	contentType: string,
	forms: SecretForms,
	where: string,
): { body: unknown; redacted: boolean } | { problem: string } {
	if (type === 'binary') return { body: buffer, redacted: false };
	const text = buffer.toString('utf8');
	// A cheap scan first: this runs on every answer, often megabytes.
	const mayHoldSecret = forms.mayHoldSecret(text);
	if (type === 'text') {
		const masked = mayHoldSecret ? forms.maskOutput(text) : text;
		return { body: masked, redacted: masked !== text };
	}
	let body: unknown;
	try {
		body = parseJsonText(text);
	} catch {
		const excerpt = truncate(redact(text.slice(0, 4096), forms), 200);
		return {
			problem: `The ${label} answered ${where} with ${truncate(redact(contentType, forms), 80) || 'a body'} that is not JSON: ${excerpt}`,
		};
	}
	if (!mayHoldSecret) return { body, redacted: false };
	const { value, masked } = maskAnswer(body, forms);
	return { body: value, redacted: masked };
}

/** Whether the first byte that is not white space (or a byte order mark) is `{`: a JSON object may follow. */
function opensJsonObject(buffer: Buffer): boolean {
	let at = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
	while (
		at < buffer.length &&
		(buffer[at] === 0x20 || buffer[at] === 0x09 || buffer[at] === 0x0a || buffer[at] === 0x0d)
	)
		at++;
	return buffer[at] === 0x7b;
}

/**
 * Whether a 2xx answer is the API's failure envelope (`{success: false, …}`), also where a file or text was
 * asked for: only a body that parses as one counts (a JSON report file is a file), never a listed status's.
 */
export function failedAnswer(
	failedBody: ((body: unknown) => boolean) | undefined,
	body: unknown,
	listedStatus: boolean,
): boolean {
	if (!failedBody) return false;
	const isText = typeof body === 'string';
	if (!Buffer.isBuffer(body) && !isText) return failedBody(body);
	if (listedStatus) return false;
	if (isText ? !/^\uFEFF?\s*\{/.test(body) : !opensJsonObject(body as Buffer)) return false;
	try {
		return failedBody(parseJsonText(String(body)));
	} catch {
		return false;
	}
}

/** Whether a response body is a Node stream (as n8n's request helper gives with `encoding: 'stream'`). */
export function isStream(body: unknown): body is NodeStream {
	return (
		!!body && typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe === 'function'
	);
}

export function destroyBody(body: unknown): void {
	if (isStream(body)) body.destroy();
}

/** Resolves with `promise`, or rejects with the signal's reason once it aborts; a late stream is closed. */
export async function raceAbort(
	promise: Promise<RawResponse>,
	signal: AbortSignal,
): Promise<RawResponse> {
	const late = () =>
		void promise.then(
			(response) => destroyBody(response.body),
			() => undefined,
		);
	if (signal.aborted) {
		late();
		throw signal.reason;
	}
	return await new Promise<RawResponse>((resolve, reject) => {
		const onAbort = () => {
			late();
			reject(signal.reason);
		};
		signal.addEventListener('abort', onAbort, { once: true });
		promise.then(
			(value) => {
				signal.removeEventListener('abort', onAbort);
				if (signal.aborted) destroyBody(value.body);
				else resolve(value);
			},
			(error) => {
				signal.removeEventListener('abort', onAbort);
				reject(error);
			},
		);
	});
}

export class BodyTooLarge extends Error {
	constructor(readonly limit: number) {
		super(`larger than ${formatBytes(limit)}`);
	}
}

export function formatBytes(bytes: number): string {
	return bytes >= 1024 * 1024
		? `${Math.round(bytes / (1024 * 1024))} MiB`
		: `${Math.round(bytes / 1024)} KiB`;
}

/** Rejects with `reason()` once `signal` aborts, raced against each read: destroying n8n's stream does not end a waiting read. */
function abortion(
	signal: AbortSignal,
	reason: () => unknown,
): { promise: Promise<never>; dispose: () => void } {
	let onAbort = () => {};
	const promise = new Promise<never>((_resolve, reject) => {
		onAbort = () => reject(reason());
		if (signal.aborted) onAbort();
		else signal.addEventListener('abort', onAbort, { once: true });
	});
	promise.catch(() => undefined);
	return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** Reads a response body whole, up to `limit` bytes, giving up when `signal` aborts. */
export async function readBody(
	body: unknown,
	limit: number,
	signal: AbortSignal,
	declaredLength: number,
): Promise<Buffer> {
	if (!isStream(body)) return toBuffer(body);
	if (declaredLength > limit) {
		body.destroy();
		throw new BodyTooLarge(limit);
	}
	const aborted = abortion(signal, () => signal.reason);
	const chunks: Buffer[] = [];
	let size = 0;
	const reader = body[Symbol.asyncIterator]();
	try {
		for (;;) {
			const next = await Promise.race([reader.next(), aborted.promise]);
			if (next.done) break;
			const piece = Buffer.isBuffer(next.value)
				? next.value
				: Buffer.from(next.value as Uint8Array);
			size += piece.length;
			if (size > limit) throw new BodyTooLarge(limit);
			chunks.push(piece);
		}
	} catch (error) {
		body.destroy();
		throw signal.aborted ? signal.reason : error;
	} finally {
		aborted.dispose();
	}
	return Buffer.concat(chunks, size);
}

/**
 * A response stream handed on for n8n binary data, with a size cap, an idle timeout and a minimum speed,
 * through a generator of our own that gives up on silence even when the source cannot be destroyed.
 */
export function guardedStream(
	body: unknown,
	idleMs: number,
	limit: number,
	failures: Record<'tooLarge' | 'idle' | 'tooSlow', () => Error>,
): BodyStream {
	if (!isStream(body)) return toBuffer(body);
	const source = body;
	// Readable.from without importing node:stream (n8n Cloud allows no imports): the source's class has it.
	const from = (
		source.constructor as {
			from?: (iterable: AsyncIterable<Buffer>, options: { objectMode: boolean }) => BodyStream;
		}
	).from;
	if (typeof from !== 'function') return source;
	const silence = new AbortController();
	const watchdog = new Watchdog(idleMs, () => silence.abort());
	const started = clock.now();
	async function* guarded(): AsyncGenerator<Buffer> {
		const silent = abortion(silence.signal, failures.idle);
		const reader = source[Symbol.asyncIterator]();
		let size = 0;
		try {
			for (;;) {
				watchdog.alive();
				const next = await Promise.race([reader.next(), silent.promise]);
				if (next.done) return;
				const chunk = Buffer.isBuffer(next.value)
					? next.value
					: Buffer.from(next.value as Uint8Array);
				size += chunk.length;
				if (size > limit) throw failures.tooLarge();
				const elapsedMs = clock.now() - started;
				if (elapsedMs > idleMs && size < (MIN_FILE_BYTES_PER_SECOND * elapsedMs) / 1000)
					throw failures.tooSlow();
				// A slow reader (n8n writing the file) is not a silent server.
				watchdog.pause();
				yield chunk;
			}
		} finally {
			watchdog.stop();
			silent.dispose();
			source.destroy();
		}
	}
	return from.call(source.constructor, guarded(), { objectMode: false });
}
