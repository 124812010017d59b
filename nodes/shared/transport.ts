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
import { NodeApiError, NodeOperationError, sleep as n8nSleep } from 'n8n-workflow';

import type { ApiFailure } from './errors';
import { apiError, redact, truncate } from './errors';
import type { ApiClient, ApiRequest, ApiResponse, RequestEnvironment } from './operation';

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
	secretForms(credentials: ICredentialDataDecryptedObject): string[];
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
}

export const DEFAULT_MAX_WAIT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 3;
const RETRY_BASE_MS = 1000;

/** The credential's "Max Wait When Rate Limited" in seconds, as milliseconds. */
function maxWaitFromCredentials(credentials: ICredentialDataDecryptedObject): number {
	const seconds = Number(credentials.maxRateLimitWait);
	return credentials.maxRateLimitWait === undefined || !Number.isFinite(seconds)
		? DEFAULT_MAX_WAIT_MS
		: Math.max(0, seconds * 1000);
}

export function baseUrlOf(credentials: ICredentialDataDecryptedObject): string {
	return String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
}

export function joinUrl(base: string, path: string): string {
	return `${base}/${path.replace(/^\/+/, '')}`;
}

/** Keeps the path and query of a link the API gave, on the credential's own origin, so credentials never go elsewhere. */
export function rebase(link: string, base: string): string {
	const target = new URL(link, `${base}/`);
	const origin = new URL(base);
	target.protocol = origin.protocol;
	target.host = origin.host;
	return target.toString();
}

function fillPath(path: string, variables: Record<string, string>): string {
	return path.replace(/\{([A-Z_]+)\}/g, (whole, name: string) =>
		name in variables ? encodeURIComponent(variables[name]) : whole,
	);
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

export function parseJsonText(text: string): unknown {
	return text.trim() === '' ? undefined : JSON.parse(text);
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

/** The body as the request asked for it, or why it could not be read that way. */
function decodeBody(
	buffer: Buffer,
	request: ApiRequest,
	api: ApiDefinition,
	contentType: string,
): { body: unknown } | { problem: string } {
	const type = request.responseType ?? 'json';
	if (type === 'binary') return { body: buffer };
	const text = buffer.toString('utf8');
	if (type === 'text') return { body: text };
	try {
		return { body: parseJsonText(text) };
	} catch {
		return {
			problem: `The ${api.label} answered ${request.method} ${request.path} with ${contentType || 'a body'} that is not JSON: ${truncate(text, 200)}`,
		};
	}
}

async function send(
	context: RequestContext,
	api: ApiDefinition,
	options: IHttpRequestOptions,
): Promise<{ statusCode: number; headers: unknown; body: unknown }> {
	return (await context.helpers.httpRequestWithAuthentication.call(
		context,
		api.credentialType,
		options,
	)) as { statusCode: number; headers: unknown; body: unknown };
}

/**
 * One authenticated client for one API. Every request goes through here: base URL joining,
 * path variables, authentication by n8n, 429 and retryable failures waited out within bounds,
 * failures mapped to `NodeApiError` with the platform's own text, secrets redacted.
 */
export function createClient(
	context: RequestContext,
	api: ApiDefinition,
	options: ClientOptions = {},
): ApiClient {
	const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
	const wait = options.sleep ?? ((ms: number) => n8nSleep(ms));
	const node = context.getNode();
	let credentialsPromise: Promise<ICredentialDataDecryptedObject> | undefined;

	async function request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
		credentialsPromise ??= context.getCredentials(api.credentialType, options.itemIndex ?? 0);
		const credentials = await credentialsPromise;
		const problem = api.checkCredentials?.(credentials);
		if (problem) {
			throw new NodeOperationError(node, problem, {
				itemIndex: options.itemIndex,
				description: `Fix the ${api.label} credential. Nothing was sent.`,
			});
		}
		const forms = api.secretForms(credentials);
		const maxWaitMs = options.maxWaitMs ?? maxWaitFromCredentials(credentials);
		const base = baseUrlOf(credentials);
		if (!/^https?:\/\//i.test(base)) {
			throw new NodeOperationError(
				node,
				`The ${api.label} credential needs a Base URL starting with https:// (or http:// for a local test server)`,
				{ itemIndex: options.itemIndex },
			);
		}
		const path = fillPath(req.path, api.pathVariables?.(credentials) ?? {});
		const url = req.url ? rebase(req.url, base) : joinUrl(base, path);
		const hasBody = req.body !== undefined && req.method !== 'GET';
		const headers: IDataObject = { Accept: req.accept ?? 'application/json' };
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
			encoding: 'arraybuffer',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			abortSignal: options.abortSignal,
		};

		for (let attempt = 0; ; attempt++) {
			let raw: { statusCode: number; headers: unknown; body: unknown };
			try {
				raw = await send(context, api, httpOptions);
			} catch (error) {
				throw networkError(context, api, req, error, forms, options.itemIndex);
			}
			const status = raw.statusCode;
			const responseHeaders = lowerCaseHeaders(raw.headers);
			const buffer = toBuffer(raw.body);
			const ok = (status >= 200 && status < 300) || (req.okStatuses ?? []).includes(status);
			if (ok) {
				const decoded = decodeBody(buffer, req, api, responseHeaders['content-type'] ?? '');
				if ('problem' in decoded) {
					throw new NodeApiError(
						node,
						{ httpCode: String(status) },
						{ message: redact(decoded.problem, forms), itemIndex: options.itemIndex },
					);
				}
				if (!api.failedBody?.(decoded.body)) return { status, headers: responseHeaders, body: decoded.body as T };
			}

			const text = buffer.toString('utf8');
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
				text: redact(text, forms),
				json: json === undefined ? undefined : JSON.parse(redact(JSON.stringify(json), forms)),
			};

			if (attempt < maxRetries) {
				const delay =
					status === 429
						? rateLimitWaitMs(responseHeaders)
						: api.isRetryable?.(failure)
							? (rateLimitWaitMs(responseHeaders) ?? RETRY_BASE_MS * 2 ** attempt)
							: undefined;
				if (delay !== undefined && delay <= maxWaitMs) {
					await wait(delay);
					continue;
				}
			}
			if (status === 429) throw rateLimitError(context, api, responseHeaders, maxWaitMs, options.itemIndex);
			const described = api.describeFailure(failure);
			throw apiError(
				node,
				status,
				{
					...described,
					message: redact(described.message, forms),
					description: described.description && redact(described.description, forms),
				},
				options.itemIndex,
			);
		}
	}

	async function environment(): Promise<RequestEnvironment> {
		credentialsPromise ??= context.getCredentials(api.credentialType, options.itemIndex ?? 0);
		const credentials = await credentialsPromise;
		const base = baseUrlOf(credentials);
		const variables = api.pathVariables?.(credentials) ?? {};
		return { absoluteUrl: (path) => joinUrl(base, fillPath(path, variables)), variables };
	}

	return { request, environment };
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
	const when =
		waitMs === undefined
			? 'The API did not say when the limit resets; try again later'
			: `Try again in ${Math.ceil(waitMs / 1000)} s (after ${new Date(Date.now() + waitMs).toISOString()})`;
	return apiError(
		context.getNode(),
		429,
		{
			message: `The ${api.label} request limit for this user is used up (429). ${when}.`,
			description: `Waits of up to ${Math.round(maxWaitMs / 1000)} s are taken automatically; this one was longer. The limit is ${headers['x-ratelimit-limit'] ?? 'not stated'} requests per window.`,
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

function networkError(
	context: RequestContext,
	api: ApiDefinition,
	req: ApiRequest,
	error: unknown,
	forms: string[],
	itemIndex?: number,
): NodeApiError {
	const err = error as { code?: string; message?: string; cause?: { code?: string } };
	const code = err.code ?? err.cause?.code;
	const reason = (code && NETWORK_FAILURES[code]) ?? 'a network error occurred';
	return new NodeApiError(
		context.getNode(),
		{ networkError: code ?? 'unknown' },
		{
			message: redact(`Could not reach the ${api.label} for ${req.method} ${req.path}: ${reason}`, forms),
			description: redact(
				`Check the Base URL in the credential and that the service is reachable from n8n. Code: ${code ?? truncate(err.message ?? String(error), 200)}`,
				forms,
			),
			itemIndex,
		},
	);
}
