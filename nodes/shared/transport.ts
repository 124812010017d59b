import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { baseUrlProblem } from '../../credentials/connectionFields';
import type { ApiFailure } from './errors';
import { apiError, asNodeError, truncate, validationError } from './errors';
import type { SecretForms } from './redaction';
import { maskAnswer, redact } from './redaction';
import type { ApiClient, ApiRequest, ApiResponse, BodyStream, RequestEnvironment, StreamResponse, ValidationIssue } from './operation';
import { Watchdog, deadline, wait } from './timers';
import { pathSegmentIssue } from './validation';

export type RequestContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IPollFunctions
	| ITriggerFunctions
	| IHookFunctions
	| IWebhookFunctions;

/** A failed response, decoded as far as possible, for an API's error description. */
export interface FailedResponse {
	status: number;
	method: string;
	path: string;
	headers: Record<string, string>;
	text: string;
	json: unknown;
}

/** What one API adds to the shared request code. */
export interface ApiDefinition {
	credentialType: string;
	/** `Hosted PBX API`: the name users see in messages. */
	label: string;
	/** Values that must never appear in an error, a log or an item. */
	secretForms(credentials: ICredentialDataDecryptedObject): SecretForms;
	/** A problem with the credential values themselves, found before sending. */
	checkCredentials?(credentials: ICredentialDataDecryptedObject): string | undefined;
	/** Placeholders filled in every path, such as `{ACCOUNT}`. */
	pathVariables?(credentials: ICredentialDataDecryptedObject): Record<string, string>;
	describeFailure(failure: FailedResponse): ApiFailure;
	/** Failures other than 429 that are worth a bounded retry (e911 upstream codes). */
	isRetryable?(failure: FailedResponse): boolean;
	/** A 2xx answer whose body says it failed (`{success: false, errors: [...]}`). */
	failedBody?(body: unknown): boolean;
}

export interface ClientOptions {
	itemIndex?: number;
	/** Longest wait for a rate-limit reset or a retryable failure; longer waits fail at once. */
	maxWaitMs?: number;
	/** How many times one request may be retried after a 429 or a retryable failure. */
	maxRetries?: number;
	sleep?: (ms: number) => Promise<void>;
	abortSignal?: AbortSignal;
	/** How the node shows each path parameter (`entryId` → `Phone Book Entry`), for messages. */
	labels?: Record<string, string>;
}

export const DEFAULT_MAX_WAIT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 3;
const RETRY_BASE_MS = 1000;
/** The `code` of the error a request that timed out fails with. */
export const TIMED_OUT = 'ETIMEDOUT';
/** A `Retry-After: 0` (or a reset already passed) still waits this long, so retries never come at once. */
export const MIN_RETRY_DELAY_MS = 1000;
/** The credential's request timeout when it sets none. */
export const DEFAULT_TIMEOUT_SECONDS = 30;
/** The longest request timeout a credential may set. */
export const MAX_TIMEOUT_SECONDS = 3600;
/**
 * The one size bound of every download, in MiB: JSON and text answers and files the node reads
 * (CSV, reports) fail before they are held whole, files streamed into n8n binary data
 * (recordings, invoices) while they stream. 64 MiB is about an hour of call audio.
 */
export const MAX_DOWNLOAD_MIB = 64;
export const MAX_DOWNLOAD_BYTES = MAX_DOWNLOAD_MIB * 1024 * 1024;
/**
 * Slowest average a file download may keep once it has run as long as the timeout: a server that
 * drips a byte now and then never stalls long enough to be silent, but cannot hold a download
 * (and its execution) for hours either. A call recording plays at 16 KB/s; this is a quarter of that.
 */
export const MIN_FILE_BYTES_PER_SECOND = 4096;

/** A number setting of the credential, checked: the default when unset, an error message when invalid. */
function credentialNumber(
	credentials: ICredentialDataDecryptedObject,
	name: string,
	label: string,
	fallback: number,
	min: number,
	max: number,
): number | string {
	const raw = credentials[name];
	if (raw === undefined || raw === null || raw === '') return fallback;
	const value = Number(raw);
	if (!Number.isFinite(value) || value < min || value > max) {
		return `The credential's ${label} is ${JSON.stringify(raw)}; it must be a number from ${min} to ${max}`;
	}
	return value;
}

export function baseUrlOf(credentials: ICredentialDataDecryptedObject): string {
	return String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
}

export function joinUrl(base: string, path: string): string {
	return `${base}/${path.replace(/^\/+/, '')}`;
}

/**
 * Keeps only the path and query of a link the API gave, on the credential's own origin (scheme,
 * host and port), so credentials never go elsewhere: not to another host, port or user name.
 */
export function rebase(link: string, base: string): string {
	const target = new URL(link, `${base}/`);
	if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`The API gave a link that is not a web address (${target.protocol})`);
	return `${new URL(base).origin}${target.pathname}${target.search}`;
}

/** `entryId` → `Entry ID`, for path parameters the caller gave no label for. */
function humanise(name: string): string {
	return name.replace(/Id$/, 'ID').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^\w/, (c) => c.toUpperCase());
}

/**
 * Fills `{ACCOUNT}`-style variables (from the credential) and `{name}` parameters (user values),
 * each checked as one path segment and URL-encoded. Returns the path, or the problems found.
 */
export function fillPath(
	path: string,
	pathParams: Record<string, unknown> = {},
	variables: Record<string, string> = {},
	labels: Record<string, string> = {},
): { path: string } | { issues: ValidationIssue[] } {
	const found: ValidationIssue[] = [];
	const filled = path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => {
		const fromCredential = /^[A-Z_]+$/.test(name);
		if (!fromCredential && !(name in pathParams)) throw new Error(`The path ${path} names {${name}} but the request gives no value for it`);
		const value = fromCredential ? variables[name] : pathParams[name];
		const issue = pathSegmentIssue(fromCredential ? name : (labels[name] ?? humanise(name)), value);
		if (issue) {
			found.push(issue);
			return '_';
		}
		return encodeURIComponent(String(value).trim());
	});
	return found.length ? { issues: found } : { path: filled };
}

function lowerCaseHeaders(headers: unknown): Record<string, string> {
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
	if (typeof body === 'string') return Buffer.from(body);
	return Buffer.from(JSON.stringify(body));
}

/** JSON text as parsed, undefined when blank; a leading byte order mark is ignored (RFC 8259 allows it). */
export function parseJsonText(text: string): unknown {
	const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
	return json.trim() === '' ? undefined : JSON.parse(json);
}

/**
 * Seconds until a rate limit lifts, from `Retry-After` (seconds or an HTTP date) or
 * `X-RateLimit-Reset` (seconds until the reset; an epoch value is also understood).
 */
export function rateLimitWaitMs(headers: Record<string, string>, now = Date.now()): number | undefined {
	const retryAfter = headers['retry-after'];
	if (retryAfter !== undefined) {
		const seconds = Number(retryAfter);
		if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
		const date = Date.parse(retryAfter);
		if (!Number.isNaN(date)) return Math.max(0, date - now);
	}
	const reset = Number(headers['x-ratelimit-reset']);
	if (headers['x-ratelimit-reset'] !== undefined && Number.isFinite(reset)) {
		return reset > 1e9 ? Math.max(0, reset * 1000 - now) : Math.max(0, reset * 1000);
	}
	return undefined;
}

/** The body as the request asked for it, or why it could not be read that way (secrets already redacted). */
function decodeBody(
	buffer: Buffer,
	request: ApiRequest,
	api: ApiDefinition,
	contentType: string,
	forms: SecretForms,
	where: string,
): { body: unknown; redacted: boolean } | { problem: string } {
	const type = request.responseType ?? 'json';
	if (type === 'binary') return { body: buffer, redacted: false };
	const text = buffer.toString('utf8');
	// An answer that echoes a secret (a server repeating what it received) gets *** in its place; a
	// cheap scan first, since this runs on every answer, often megabytes.
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
			problem: `The ${api.label} answered ${where} with ${truncate(redact(contentType, forms), 80) || 'a body'} that is not JSON: ${excerpt}`,
		};
	}
	if (!mayHoldSecret) return { body, redacted: false };
	const { value, masked } = maskAnswer(body, forms);
	return { body: value, redacted: masked };
}

/** Whether the first byte that is not white space (or a byte order mark) is `{`: a JSON object may follow. */
function opensJsonObject(buffer: Buffer): boolean {
	let at = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
	while (at < buffer.length && (buffer[at] === 0x20 || buffer[at] === 0x09 || buffer[at] === 0x0a || buffer[at] === 0x0d)) at++;
	return buffer[at] === 0x7b;
}

/**
 * Whether a 2xx answer says it failed. A file or text asked for may come back as the API's JSON
 * failure envelope instead (`{success: false, errors: [...]}` for an invoice PDF): that is the
 * same failure, never a file holding it. Only a body that parses as such an envelope counts, so a
 * JSON report file (or any file that merely starts with `{`) is still the file, and so is the body
 * of a status the call lists as an answer (a report file gone: 404), for the call to read.
 */
function failedAnswer(api: ApiDefinition, body: unknown, listedStatus: boolean): boolean {
	if (!api.failedBody) return false;
	if (listedStatus && (Buffer.isBuffer(body) || typeof body === 'string')) return false;
	let text: string;
	if (Buffer.isBuffer(body)) {
		if (!opensJsonObject(body)) return false;
		text = body.toString('utf8');
	} else if (typeof body === 'string') {
		if (!/^\uFEFF?\s*\{/.test(body)) return false;
		text = body;
	} else {
		return api.failedBody(body);
	}
	try {
		return api.failedBody(parseJsonText(text));
	} catch {
		return false;
	}
}

type RawResponse = { statusCode: number; headers: unknown; body: unknown };

/** Whether a response body is a Node stream (as n8n's request helper gives with `encoding: 'stream'`). */
function isStream(body: unknown): body is BodyStream & AsyncIterable<Buffer> & { destroy(error?: Error): void } {
	return !!body && typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe === 'function';
}

function destroyBody(body: unknown): void {
	if (isStream(body)) body.destroy();
}

/** Resolves with `promise`, or rejects with the signal's reason once it aborts; a late stream is closed. */
async function raceAbort(promise: Promise<RawResponse>, signal: AbortSignal): Promise<RawResponse> {
	if (signal.aborted) {
		void promise.then((late) => destroyBody(late.body), () => undefined);
		throw signal.reason;
	}
	return await new Promise<RawResponse>((resolve, reject) => {
		const onAbort = () => {
			void promise.then((late) => destroyBody(late.body), () => undefined);
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

class BodyTooLarge extends Error {
	constructor(readonly limit: number) {
		super(`larger than ${formatBytes(limit)}`);
	}
}

export function formatBytes(bytes: number): string {
	return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/**
 * A promise that rejects with `reason()` once `signal` aborts (never resolves). Raced against each
 * read: a stream's destroy() does not end a read that is already waiting (n8n's request helper
 * hands on the body through an async generator, which finishes only when more bytes arrive), so a
 * server that stalls after the headers would otherwise hold the request for ever.
 */
function abortion(signal: AbortSignal, reason: () => unknown): { promise: Promise<never>; dispose: () => void } {
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
async function readBody(body: unknown, limit: number, signal: AbortSignal, declaredLength: number): Promise<Buffer> {
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
			const chunk = next.value as Buffer | Uint8Array;
			const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
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
 * A response stream handed on for n8n binary data: a byte count and cap, and an idle timeout
 * (a file may take longer than one request timeout to arrive, but never stalls that long). The
 * bytes are read through a generator of our own that gives up on silence by itself, so the
 * stream handed on fails when the server stalls even if the source cannot be destroyed then.
 */
function guardedStream(
	body: unknown,
	idleMs: number,
	limit: number,
	failures: { tooLarge: () => Error; idle: () => Error; tooSlow: () => Error },
): BodyStream {
	if (!isStream(body)) return toBuffer(body);
	const source = body;
	// Readable.from without importing node:stream (n8n Cloud allows no imports): the source's class has it.
	const from = (source.constructor as { from?: (iterable: AsyncIterable<Buffer>, options: { objectMode: boolean }) => BodyStream }).from;
	if (typeof from !== 'function') return source;
	const silence = new AbortController();
	const watchdog = new Watchdog(idleMs, () => silence.abort());
	const started = Date.now();
	async function* guarded(): AsyncGenerator<Buffer> {
		const silent = abortion(silence.signal, failures.idle);
		const reader = source[Symbol.asyncIterator]();
		let size = 0;
		try {
			for (;;) {
				watchdog.alive();
				const next = await Promise.race([reader.next(), silent.promise]);
				if (next.done) return;
				const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value as Uint8Array);
				size += chunk.length;
				if (size > limit) throw failures.tooLarge();
				const elapsedMs = Date.now() - started;
				if (elapsedMs > idleMs && size < (MIN_FILE_BYTES_PER_SECOND * elapsedMs) / 1000) throw failures.tooSlow();
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

async function send(
	context: RequestContext,
	api: ApiDefinition,
	options: IHttpRequestOptions,
	authenticated: boolean,
): Promise<RawResponse> {
	if (!authenticated) return (await context.helpers.httpRequest(options)) as RawResponse;
	return (await context.helpers.httpRequestWithAuthentication.call(context, api.credentialType, options)) as RawResponse;
}

/** Problems found before sending, their quoted values with secrets masked. */
export function redactIssues(found: ValidationIssue[], forms: SecretForms): ValidationIssue[] {
	return found.map((issue) => ({ ...issue, field: redact(issue.field, forms), problem: redact(issue.problem, forms) }));
}

/** A failure before anything was sent: the credential or the request is not usable. */
function refusedBeforeSending(context: RequestContext, message: string, itemIndex: number | undefined, description: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { itemIndex, description: `${description} Nothing was sent.` });
}

/**
 * One client for one API. Every request goes through here: base URL joining, path parameters
 * checked as single segments, authentication by n8n (none for the endpoints that take none), a
 * timeout covering connect and response, a size bound on what is held, 429 and retryable failures
 * waited out within bounds, failures mapped to `NodeApiError` with the platform's own text, and
 * secrets redacted before any text is cut or formatted.
 */
export function createClient(
	context: RequestContext,
	api: ApiDefinition,
	options: ClientOptions = {},
): ApiClient {
	const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
	const pause = options.sleep ?? (async (ms: number) => await wait(ms));
	const node = context.getNode();
	const itemIndex = options.itemIndex;
	let credentialsPromise: Promise<ICredentialDataDecryptedObject> | undefined;

	async function settings() {
		credentialsPromise ??= context.getCredentials(api.credentialType, itemIndex ?? 0);
		const credentials = await credentialsPromise;
		const problem = api.checkCredentials?.(credentials);
		if (problem) throw refusedBeforeSending(context, problem, itemIndex, `Fix the ${api.label} credential.`);
		const maxWaitSeconds = credentialNumber(credentials, 'maxRateLimitWait', 'Max Wait When Rate Limited (seconds)', DEFAULT_MAX_WAIT_MS / 1000, 0, 3600);
		const timeoutSeconds = credentialNumber(credentials, 'timeout', 'Timeout (seconds)', DEFAULT_TIMEOUT_SECONDS, 1, MAX_TIMEOUT_SECONDS);
		for (const value of [maxWaitSeconds, timeoutSeconds]) {
			if (typeof value === 'string') throw refusedBeforeSending(context, value, itemIndex, `Fix the ${api.label} credential.`);
		}
		const base = baseUrlOf(credentials);
		if (!/^https?:\/\/[^/?#\s]+/i.test(base)) {
			throw refusedBeforeSending(
				context,
				`The ${api.label} credential needs a Base URL starting with https:// (or http:// for a local test server)`,
				itemIndex,
				`Fix the ${api.label} credential.`,
			);
		}
		// A user name or password, a query or a fragment in it.
		const baseProblem = baseUrlProblem(api.label, base);
		if (baseProblem) throw refusedBeforeSending(context, baseProblem, itemIndex, `Fix the ${api.label} credential.`);
		return {
			forms: api.secretForms(credentials),
			maxWaitMs: options.maxWaitMs ?? (maxWaitSeconds as number) * 1000,
			timeoutMs: (timeoutSeconds as number) * 1000,
			base,
			variables: api.pathVariables?.(credentials) ?? {},
		};
	}

	function resolvePath(path: string, pathParams: Record<string, unknown> | undefined, variables: Record<string, string>, forms: SecretForms): string {
		const filled = fillPath(path, pathParams, variables, options.labels);
		if ('issues' in filled) throw validationError(node, redactIssues(filled.issues, forms), itemIndex);
		return filled.path;
	}

	async function request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
		const { forms, maxWaitMs, timeoutMs, base, variables } = await settings();
		const path = resolvePath(req.path, req.pathParams, variables, forms);
		const url = req.url ? rebase(req.url, base) : joinUrl(base, path);
		const hasBody = req.body !== undefined && req.method !== 'GET';
		const headers: IDataObject = { Accept: req.accept ?? 'application/json', ...(req.headers ?? {}) };
		if (hasBody) {
			headers['Content-Type'] = req.form ? 'application/x-www-form-urlencoded' : 'application/json';
		}
		const httpOptions: IHttpRequestOptions = {
			method: req.method,
			url,
			qs: req.qs,
			headers,
			body: !hasBody
				? undefined
				: req.form
					? new URLSearchParams(flattenForm(req.body as IDataObject)).toString()
					: JSON.stringify(req.body),
			arrayFormat: 'brackets',
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			// A redirect is never followed: the credential would go to whatever host it names.
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			timeout: timeoutMs,
			abortSignal: options.abortSignal,
		};
		const where = `${req.method} ${new URL(url).pathname}`;
		const timedOut = () => {
			// No code in the response part: n8n would swap this message for its generic one about ETIMEDOUT.
			const error = new NodeApiError(node, {}, {
				message: `The ${api.label} did not answer ${where} within ${timeoutMs / 1000} s (timed out)`,
				description: `Nothing more was read. The request may or may not have been carried out: check before repeating a change. The credential's Timeout (Seconds) sets the limit.`,
				itemIndex,
			});
			error.context.code = TIMED_OUT;
			return error;
		};

		for (let attempt = 0; ; attempt++) {
			const limit = deadline(timeoutMs, timedOut);
			let raw: RawResponse;
			try {
				raw = await raceAbort(send(context, api, httpOptions, req.auth !== false), limit.signal);
			} catch (error) {
				limit.done();
				if (isTimeout(error)) throw error instanceof NodeApiError ? asNodeError(node, error) : timedOut();
				throw networkError(context, api, where, error, forms, itemIndex);
			}
			const status = raw.statusCode;
			const responseHeaders = lowerCaseHeaders(raw.headers);
			const ok = (status >= 200 && status < 300) || (req.okStatuses ?? []).includes(status);
			if (ok && req.responseType === 'stream' && status !== 204 && !(req.okStatuses ?? []).includes(status)) {
				limit.done();
				const body = guardedStream(
					raw.body,
					timeoutMs,
					MAX_DOWNLOAD_BYTES,
					{
						tooLarge: () => tooLargeError(node, api, where, itemIndex),
						idle: timedOut,
						tooSlow: () =>
							new NodeApiError(node, {}, {
								message: `The ${api.label} sent the file for ${where} slower than ${formatBytes(MIN_FILE_BYTES_PER_SECOND)}/s on average; it was not read further`,
								description: `A file must keep up at least ${formatBytes(MIN_FILE_BYTES_PER_SECOND)}/s once it has taken as long as the credential's Timeout (Seconds), so a server that drips bytes cannot hold the execution for hours. Try again later.`,
								itemIndex,
							}),
					},
				);
				return { status, headers: responseHeaders, body: body as T };
			}
			let buffer: Buffer;
			try {
				buffer = await readBody(raw.body, MAX_DOWNLOAD_BYTES, limit.signal, Number(responseHeaders['content-length'] ?? 0));
			} catch (error) {
				if (error instanceof BodyTooLarge) throw tooLargeError(node, api, where, itemIndex);
				if (error instanceof NodeApiError) throw asNodeError(node, error);
				if (isTimeout(error)) throw timedOut();
				throw networkError(context, api, where, error, forms, itemIndex);
			} finally {
				limit.done();
			}
			if (ok) {
				const promisesNoBody = status === 204 || (req.okStatuses ?? []).includes(status) || req.emptyBody === 'allowed';
				// A write answered oddly was still received: repeating it blindly may repeat a charge.
				const mayHaveTakenEffect = req.method === 'GET' ? '' : ' The request was received and may have taken effect: check before sending it again.';
				if (!promisesNoBody && buffer.toString('utf8').trim() === '') {
					throw new NodeApiError(node, { httpCode: String(status) }, {
						message: `The ${api.label} answered ${where} with an empty body (${status}) where it should send one`,
						description: `Nothing was made up in its place. The service may be failing: try again, or check the Base URL.${mayHaveTakenEffect}`,
						httpCode: String(status),
						itemIndex,
					});
				}
				const decoded = decodeBody(buffer, req, api, responseHeaders['content-type'] ?? '', forms, where);
				if ('problem' in decoded) {
					throw new NodeApiError(node, { httpCode: String(status) }, {
						message: decoded.problem,
						description: mayHaveTakenEffect.trim() || undefined,
						httpCode: String(status),
						itemIndex,
					});
				}
				if (!failedAnswer(api, decoded.body, (req.okStatuses ?? []).includes(status))) {
					return { status, headers: responseHeaders, body: decoded.body as T, ...(decoded.redacted ? { redacted: true } : {}) };
				}
			}

			// Redacted first: everything below may cut or format this text.
			const text = redact(buffer.subarray(0, 65_536).toString('utf8'), forms);
			let json: unknown;
			try {
				json = parseJsonText(text);
			} catch {
				json = undefined;
			}
			const failure: FailedResponse = {
				status,
				method: req.method,
				path: new URL(url).pathname,
				headers: responseHeaders,
				text,
				json,
			};
			if (req.refusalAnswers?.(json)) return { status, headers: responseHeaders, body: json as T };

			if (attempt < maxRetries) {
				const delay =
					status === 429
						? rateLimitWaitMs(responseHeaders)
						: api.isRetryable?.(failure)
							? (rateLimitWaitMs(responseHeaders) ?? RETRY_BASE_MS * 2 ** attempt)
							: undefined;
				if (delay !== undefined && delay <= maxWaitMs) {
					await pause(Math.max(MIN_RETRY_DELAY_MS, delay));
					continue;
				}
			}
			if (status === 429) throw rateLimitError(context, api, responseHeaders, maxWaitMs, itemIndex);
			const described = api.describeFailure(failure);
			throw apiError(
				node,
				status,
				{
					...described,
					message: redact(described.message, forms),
					description: described.description && redact(described.description, forms),
				},
				itemIndex,
			);
		}
	}

	async function stream(req: ApiRequest, signal: AbortSignal): Promise<StreamResponse> {
		const { forms, timeoutMs, base, variables } = await settings();
		const path = resolvePath(req.path, req.pathParams, variables, forms);
		const url = req.url ?? joinUrl(base, path);
		const where = `${req.method} ${new URL(url).pathname}`;
		const httpOptions: IHttpRequestOptions = {
			method: req.method,
			url,
			qs: req.qs,
			headers: { Accept: req.accept ?? 'application/json', ...(req.headers ?? {}) },
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			// No request timeout: the helper would cut a healthy stream after that much silence.
			// The connection must answer within it (below); silence later is the caller's heartbeat watch.
			abortSignal: signal,
		};
		const limit = deadline(timeoutMs, () => new NodeApiError(node, {}, { message: `The ${api.label} did not answer ${where} within ${timeoutMs / 1000} s (timed out)`, itemIndex }));
		let raw: RawResponse;
		try {
			raw = await raceAbort(send(context, api, httpOptions, req.auth !== false), limit.signal);
		} catch (error) {
			throw limit.signal.aborted || signal.aborted ? asNodeError(node, error) : networkError(context, api, where, error, forms, itemIndex);
		} finally {
			limit.done();
		}
		const headers = lowerCaseHeaders(raw.headers);
		if (raw.statusCode >= 200 && raw.statusCode < 300 && isStream(raw.body)) {
			return { ok: true, status: raw.statusCode, headers, body: raw.body };
		}
		const failureLimit = deadline(timeoutMs, () => new Error('timed out reading the failure'));
		let text = '';
		try {
			text = redact((await readBody(raw.body, 65_536, failureLimit.signal, 0)).toString('utf8'), forms);
		} catch {
			// The status says enough.
		} finally {
			failureLimit.done();
		}
		let json: unknown;
		try {
			json = parseJsonText(text);
		} catch {
			json = undefined;
		}
		const described = api.describeFailure({ status: raw.statusCode, method: req.method, path: new URL(url).pathname, headers, text, json });
		return { ok: false, status: raw.statusCode, headers, text, message: redact(described.message, forms) };
	}

	async function environment(): Promise<RequestEnvironment> {
		const { base, variables, forms } = await settings();
		return {
			absoluteUrl: (path, pathParams) => joinUrl(base, resolvePath(path, pathParams, variables, forms)),
			variables,
			redact: (text) => redact(text, forms),
		};
	}

	return { request, stream, environment };
}

function tooLargeError(node: ReturnType<RequestContext['getNode']>, api: ApiDefinition, where: string, itemIndex?: number): NodeApiError {
	return new NodeApiError(node, { httpCode: 'ETOOLARGE' }, {
		message: `The ${api.label} answer to ${where} is larger than ${MAX_DOWNLOAD_MIB} MiB, the download limit; it was not read further`,
		description: `Every answer and file the nodes download is limited to ${MAX_DOWNLOAD_MIB} MiB (MAX_DOWNLOAD_MIB), so a wrong or hostile answer cannot exhaust n8n's memory. Narrow the request (a shorter date range, a Limit).`,
		itemIndex,
	});
}

/** PHP-style form fields: arrays as `name[]`, objects as `name[key]`. */
export function flattenForm(body: IDataObject, prefix = ''): Array<[string, string]> {
	const out: Array<[string, string]> = [];
	for (const [key, value] of Object.entries(body)) {
		const name = prefix ? `${prefix}[${key}]` : key;
		if (value === undefined) continue;
		if (Array.isArray(value)) {
			for (const entry of value) out.push([`${name}[]`, String(entry)]);
		} else if (value !== null && typeof value === 'object') {
			out.push(...flattenForm(value as IDataObject, name));
		} else {
			out.push([name, value === null ? '' : String(value)]);
		}
	}
	return out;
}

function rateLimitError(
	context: RequestContext,
	api: ApiDefinition,
	headers: Record<string, string>,
	maxWaitMs: number,
	itemIndex?: number,
): NodeApiError {
	const waitMs = rateLimitWaitMs(headers);
	const resetsAt = new Date(Date.now() + (waitMs ?? Number.NaN));
	const when =
		waitMs === undefined
			? 'The API did not say when the limit resets; try again later'
			: Number.isNaN(resetsAt.getTime())
				? 'The API asked for a wait longer than any date; try again later'
				: `Try again in ${Math.ceil(waitMs / 1000)} s (after ${resetsAt.toISOString()})`;
	// A header the contract says is an integer: anything else (an echo of what was sent) is not quoted.
	const stated = /^\d{1,12}$/.test(headers['x-ratelimit-limit'] ?? '') ? headers['x-ratelimit-limit'] : 'not stated';
	return apiError(
		context.getNode(),
		429,
		{
			message: `The ${api.label} request limit for this user is used up (429). ${when}.`,
			description: `Waits of up to ${Math.round(maxWaitMs / 1000)} s are taken automatically; this one was longer. The limit is ${stated} requests per window.`,
		},
		itemIndex,
	);
}

/**
 * Network failures in words: n8n swaps any message naming a code such as ECONNREFUSED for a
 * generic text, so the code goes in the description.
 */
const NETWORK_FAILURES: Record<string, string> = {
	ECONNREFUSED: 'the connection was refused',
	ECONNRESET: 'the connection was reset',
	ECONNABORTED: 'the connection was aborted',
	ETIMEDOUT: 'the connection timed out',
	ENOTFOUND: 'the host name was not found',
	EAI_AGAIN: 'the host name could not be resolved',
	EHOSTUNREACH: 'the host is unreachable',
};

/** Whether a failure of the request helper was its own timeout (axios says ECONNABORTED or ETIMEDOUT). */
function isTimeout(error: unknown): boolean {
	const err = error as { code?: string; message?: string; cause?: { code?: string } };
	const code = err.code ?? err.cause?.code;
	return code === 'ETIMEDOUT' || code === 'ECONNABORTED' || /timeout of \d+ms exceeded|timed out/i.test(err.message ?? '');
}

function networkError(
	context: RequestContext,
	api: ApiDefinition,
	where: string,
	error: unknown,
	forms: SecretForms,
	itemIndex: number | undefined,
): NodeApiError {
	const err = error as { code?: string; message?: string; cause?: { code?: string } };
	const code = err.code ?? err.cause?.code;
	const reason = (code && NETWORK_FAILURES[code]) ?? 'a network error occurred';
	const detail = truncate(redact(String(err.message ?? error).slice(0, 4096), forms), 200);
	return new NodeApiError(
		context.getNode(),
		{ networkError: code ?? 'unknown' },
		{
			message: redact(`Could not reach the ${api.label} for ${where}: ${reason}`, forms),
			description: redact(
				`Check the Base URL in the credential and that the service is reachable from n8n. Code: ${code ?? detail}`,
				forms,
			),
			itemIndex,
		},
	);
}
