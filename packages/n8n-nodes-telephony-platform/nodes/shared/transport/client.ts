import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	IPollFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
	NodeApiError,
} from 'n8n-workflow';

import type { ApiFailure } from '../errors';
import { apiError, asNodeError, validationError } from '../errors';
import type {
	ApiClient,
	ApiRequest,
	ApiResponse,
	RequestEnvironment,
	StreamResponse,
} from '../operation';
import type { SecretForms } from '../redaction';
import { redact } from '../redaction';
import { deadline, wait } from '../timers';
import type { RawResponse } from './body';
import {
	BodyTooLarge,
	MAX_DOWNLOAD_BYTES,
	decodeBody,
	failedAnswer,
	guardedStream,
	isStream,
	jsonOrUndefined,
	lowerCaseHeaders,
	raceAbort,
	readBody,
} from './body';
import {
	failureOfStatus,
	isTimeout,
	networkError,
	plainError,
	rateLimitError,
	rateLimitWaitMs,
	redactIssues,
	refusedBeforeSending,
	timeoutError,
	tooLargeError,
	tooSlowError,
} from './failures';
import { credentialFingerprint, noteRateLimit } from './rateBudget';
import {
	baseUrlOf,
	baseUrlProblem,
	fillPath,
	flattenForm,
	hostAndPort,
	joinUrl,
	rebase,
	schemeProblem,
} from './urls';

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
	/** The credential's Test: a read every valid credential may make, and what a refusal of it means. */
	credentialTest: {
		path: string;
		qs?: IDataObject;
		/** The Authorization header: the credential-test context cannot apply the credential's own. */
		authorization(credentials: ICredentialDataDecryptedObject): string;
		refused: Record<401 | 403 | 404, string>;
		/**
		 * The services one credential serves, when each grants its own scope (the platform key): `path` is the first's
		 * read, and each other is tried too, so that a key one of them refuses fails the Test naming that service.
		 */
		services?: CredentialService[];
	};
}

/** A service a credential is tested for: a read it answers, the scope that read needs, and the statuses that still mean the key was accepted. */
export interface CredentialService {
	name: string;
	path: string;
	scope: string;
	/** Statuses that come only after the key was accepted (a made-up id the service looked up and did not find). */
	accepted?: number[];
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
/** A `Retry-After: 0` (or a reset already passed) still waits this long, so retries never come at once. */
export const MIN_RETRY_DELAY_MS = 1000;
/** The credential's request timeout when it sets none. */
export const DEFAULT_TIMEOUT_SECONDS = 30;
/** The longest request timeout a credential may set. */
export const MAX_TIMEOUT_SECONDS = 3600;

/** A credential's connection settings, checked. */
export interface Connection {
	base: string;
	/** `host:port` of the Base URL, for messages. */
	hostPort: string;
	forms: SecretForms;
	maxWaitMs: number;
	timeoutMs: number;
	variables: Record<string, string>;
	/** Which credential this is (a hash), for its request budget. */
	fingerprint: string;
}

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
	if (Number.isFinite(value) && value >= min && value <= max) return value;
	return `The credential's ${label} is ${JSON.stringify(raw)}; it must be a number from ${min} to ${max}`;
}

/** The connection settings of a credential, or why nothing may be sent with it. */
export function connectionOf(
	api: ApiDefinition,
	credentials: ICredentialDataDecryptedObject,
): Connection | string {
	const maxWaitSeconds = credentialNumber(
		credentials,
		'maxRateLimitWait',
		'Max Wait When Rate Limited (seconds)',
		DEFAULT_MAX_WAIT_MS / 1000,
		0,
		3600,
	);
	const timeoutSeconds = credentialNumber(
		credentials,
		'timeout',
		'Timeout (seconds)',
		DEFAULT_TIMEOUT_SECONDS,
		1,
		MAX_TIMEOUT_SECONDS,
	);
	const base = baseUrlOf(credentials);
	const forms = api.secretForms(credentials);
	// The host is quoted: a secret pasted into the Base URL is masked in it.
	const problems = [
		api.checkCredentials?.(credentials),
		maxWaitSeconds,
		timeoutSeconds,
		baseUrlProblem(api.label, base),
		schemeProblem(api.label, redact(base, forms)),
	];
	const problem = problems.find((found) => typeof found === 'string');
	if (problem !== undefined) return problem as string;
	return {
		base,
		hostPort: hostAndPort(base),
		forms,
		maxWaitMs: (maxWaitSeconds as number) * 1000,
		timeoutMs: (timeoutSeconds as number) * 1000,
		variables: api.pathVariables?.(credentials) ?? {},
		fingerprint: credentialFingerprint(credentials),
	};
}

/** One client's settings, with what every request of it needs. */
interface Call extends Connection {
	context: RequestContext;
	api: ApiDefinition;
	node: INode;
	itemIndex?: number;
	labels?: Record<string, string>;
	abortSignal?: AbortSignal;
	maxRetries: number;
	pause: (ms: number) => Promise<void>;
}

/**
 * One client for one API: every request's path checks, timeout, size bound, bounded retries,
 * `NodeApiError` mapping and secret redaction (before any text is cut or formatted) happen here.
 */
export function createClient(
	context: RequestContext,
	api: ApiDefinition,
	options: ClientOptions = {},
): ApiClient {
	let ready: Promise<Call> | undefined;
	const call = async () => await (ready ??= connect(context, api, options));
	return {
		request: async <T>(req: ApiRequest) => await request<T>(await call(), req),
		stream: async (req: ApiRequest, signal: AbortSignal) =>
			await openStream(await call(), req, signal),
		environment: async () => environmentOf(await call()),
	};
}

async function connect(
	context: RequestContext,
	api: ApiDefinition,
	options: ClientOptions,
): Promise<Call> {
	const node = context.getNode();
	const connection = connectionOf(
		api,
		await context.getCredentials(api.credentialType, options.itemIndex ?? 0),
	);
	if (typeof connection === 'string')
		throw refusedBeforeSending(
			node,
			connection,
			options.itemIndex,
			`Fix the ${api.label} credential.`,
		);
	return {
		...connection,
		maxWaitMs: options.maxWaitMs ?? connection.maxWaitMs,
		context,
		api,
		node,
		itemIndex: options.itemIndex,
		labels: options.labels,
		abortSignal: options.abortSignal,
		maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
		pause: options.sleep ?? (async (ms: number) => await wait(ms)),
	};
}

function resolvePath(call: Call, path: string, pathParams?: Record<string, unknown>): string {
	const filled = fillPath(path, pathParams, call.variables, call.labels);
	if ('issues' in filled)
		throw validationError(call.node, redactIssues(filled.issues, call.forms), call.itemIndex);
	return filled.path;
}

function urlOf(call: Call, req: ApiRequest): string {
	const path = resolvePath(call, req.path, req.pathParams);
	return req.url ? rebase(req.url, call.base) : joinUrl(call.base, path);
}

function environmentOf(call: Call): RequestEnvironment {
	return {
		absoluteUrl: (path, pathParams) => joinUrl(call.base, resolvePath(call, path, pathParams)),
		variables: call.variables,
		redact: (text) => redact(text, call.forms),
	};
}

function httpOptions(
	req: ApiRequest,
	url: string,
	timeout: number | undefined,
	abortSignal: AbortSignal | undefined,
): IHttpRequestOptions {
	const hasBody = req.body !== undefined && req.method !== 'GET';
	const headers: IDataObject = { Accept: req.accept ?? 'application/json', ...(req.headers ?? {}) };
	if (hasBody)
		headers['Content-Type'] = req.form ? 'application/x-www-form-urlencoded' : 'application/json';
	const body = !hasBody
		? undefined
		: req.form
			? new URLSearchParams(flattenForm(req.body as IDataObject)).toString()
			: JSON.stringify(req.body);
	// A redirect is never followed: the credential would go to whatever host it names.
	const never = { disableFollowRedirect: true, sendCredentialsOnCrossOriginRedirect: false };
	return {
		method: req.method,
		url,
		qs: req.qs,
		headers,
		body,
		arrayFormat: 'brackets',
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		...never,
		timeout,
		abortSignal,
	};
}

async function send(
	call: Call,
	options: IHttpRequestOptions,
	authenticated: boolean,
): Promise<RawResponse> {
	const { helpers } = call.context;
	if (!authenticated) return (await helpers.httpRequest(options)) as RawResponse;
	return (await helpers.httpRequestWithAuthentication.call(
		call.context,
		call.api.credentialType,
		options,
	)) as RawResponse;
}

const whereOf = (req: ApiRequest, url: string) => `${req.method} ${new URL(url).pathname}`;

async function request<T>(call: Call, req: ApiRequest): Promise<ApiResponse<T>> {
	const url = urlOf(call, req);
	const where = whereOf(req, url);
	const http = httpOptions(req, url, call.timeoutMs, call.abortSignal);
	for (let attempt = 0; ; attempt++) {
		const exchange = await exchangeOnce(call, req, http, where);
		if (!('buffer' in exchange)) return exchange as ApiResponse<T>;
		const answer = answerOf<T>(call, req, exchange, where);
		if (answer) return answer;
		const failure = failedResponse(req, url, exchange, call.forms);
		if (req.refusalAnswers?.(failure.json))
			return { status: failure.status, headers: failure.headers, body: failure.json as T };
		const delay = attempt < call.maxRetries ? retryDelay(call.api, failure, attempt) : undefined;
		if (delay === undefined || delay > call.maxWaitMs) throw failureError(call, failure);
		await call.pause(Math.max(MIN_RETRY_DELAY_MS, delay));
	}
}

type Exchange = { status: number; headers: Record<string, string>; buffer: Buffer };

/** One request sent and its answer read whole, within the timeout; a file asked for as a stream is handed on unread. */
async function exchangeOnce(
	call: Call,
	req: ApiRequest,
	http: IHttpRequestOptions,
	where: string,
): Promise<Exchange | ApiResponse> {
	const { node, api, itemIndex } = call;
	const timedOut = () =>
		timeoutError(node, api.label, call.hostPort, where, call.timeoutMs, itemIndex);
	const limit = deadline(call.timeoutMs, timedOut);
	try {
		const raw = await raceAbort(send(call, http, req.auth !== false), limit.signal);
		const status = raw.statusCode;
		const headers = lowerCaseHeaders(raw.headers);
		noteRateLimit(call.fingerprint, headers);
		if (
			req.responseType === 'stream' &&
			status >= 200 &&
			status < 300 &&
			status !== 204 &&
			!req.okStatuses?.includes(status)
		) {
			const tooSlow = () => tooSlowError(node, api.label, where, itemIndex);
			const body = guardedStream(raw.body, call.timeoutMs, MAX_DOWNLOAD_BYTES, {
				tooLarge: () => tooLargeError(node, api.label, where, itemIndex),
				idle: timedOut,
				tooSlow,
			});
			return { status, headers, body };
		}
		return {
			status,
			headers,
			buffer: await readBody(
				raw.body,
				MAX_DOWNLOAD_BYTES,
				limit.signal,
				Number(headers['content-length'] ?? 0),
			),
		};
	} catch (error) {
		if (error instanceof BodyTooLarge) throw tooLargeError(node, api.label, where, itemIndex);
		throw isTimeout(error)
			? timedOut()
			: networkError(node, api.label, call.hostPort, where, error, call.forms, itemIndex);
	} finally {
		limit.done();
	}
}

/** A 2xx answer (or a status the call lists) as the request asked for it; undefined when it is a failure. */
function answerOf<T>(
	call: Call,
	req: ApiRequest,
	{ status, headers, buffer }: Exchange,
	where: string,
): ApiResponse<T> | undefined {
	const listed = req.okStatuses?.includes(status) ?? false;
	if (!listed && (status < 200 || status >= 300)) return undefined;
	const { node, api, itemIndex } = call;
	// A write answered oddly was still received: repeating it blindly may repeat a charge.
	const mayHaveTakenEffect =
		req.method === 'GET'
			? ''
			: ' The request was received and may have taken effect: check before sending it again.';
	// The service may be failing: a wait may help.
	const odd = (message: string, description: string) =>
		plainError(node, message, description, { cause: 'temporarily-unavailable' }, itemIndex, {
			httpCode: String(status),
		});
	if (
		status !== 204 &&
		!listed &&
		req.emptyBody !== 'allowed' &&
		buffer.toString('utf8').trim() === ''
	) {
		const description = `Nothing was made up in its place. The service may be failing: try again, or check the Base URL.${mayHaveTakenEffect}`;
		throw odd(
			`The ${api.label} answered ${where} with an empty body (${status}) where it should send one`,
			description,
		);
	}
	const decoded = decodeBody(
		buffer,
		req.responseType,
		api.label,
		headers['content-type'] ?? '',
		call.forms,
		where,
	);
	if ('problem' in decoded) throw odd(decoded.problem, mayHaveTakenEffect.trim());
	if (failedAnswer(api.failedBody, decoded.body, listed)) return undefined;
	return {
		status,
		headers,
		body: decoded.body as T,
		...(decoded.redacted ? { redacted: true } : {}),
	};
}

function failedResponse(
	req: ApiRequest,
	url: string,
	{ status, headers, buffer }: Exchange,
	forms: SecretForms,
): FailedResponse {
	// Redacted first: everything below may cut or format this text.
	const text = redact(buffer.subarray(0, 65_536).toString('utf8'), forms);
	return {
		status,
		method: req.method,
		path: new URL(url).pathname,
		headers,
		text,
		json: jsonOrUndefined(text),
	};
}

/** How long to wait before retrying a failure, or undefined when it is not worth a retry. */
function retryDelay(
	api: ApiDefinition,
	failure: FailedResponse,
	attempt: number,
): number | undefined {
	if (failure.status === 429) return rateLimitWaitMs(failure.headers);
	return api.isRetryable?.(failure)
		? (rateLimitWaitMs(failure.headers) ?? RETRY_BASE_MS * 2 ** attempt)
		: undefined;
}

function failureError(call: Call, failure: FailedResponse): NodeApiError {
	const { node, api, itemIndex, forms } = call;
	if (failure.status === 429)
		return rateLimitError(node, api.label, failure.headers, call.maxWaitMs, itemIndex);
	const described = api.describeFailure(failure);
	const redacted = {
		...described,
		message: redact(described.message, forms),
		description: described.description && redact(described.description, forms),
	};
	return apiError(
		node,
		failure.status,
		redacted,
		itemIndex,
		api.isRetryable?.(failure)
			? { cause: 'temporarily-unavailable' }
			: failureOfStatus(failure.status),
	);
}

/** Opens a live stream: the connection must answer within the timeout; later silence is the caller's heartbeat watch. */
async function openStream(
	call: Call,
	req: ApiRequest,
	signal: AbortSignal,
): Promise<StreamResponse> {
	const { node, api, itemIndex } = call;
	const url = urlOf(call, req);
	const where = whereOf(req, url);
	// No request timeout: the helper would cut a healthy stream after that much silence.
	const http = httpOptions(req, url, undefined, signal);
	const limit = deadline(call.timeoutMs, () =>
		timeoutError(node, api.label, call.hostPort, where, call.timeoutMs, itemIndex),
	);
	let raw: RawResponse;
	try {
		raw = await raceAbort(send(call, http, req.auth !== false), limit.signal);
	} catch (error) {
		throw limit.signal.aborted || signal.aborted
			? asNodeError(node, error)
			: networkError(node, api.label, call.hostPort, where, error, call.forms, itemIndex);
	} finally {
		limit.done();
	}
	const headers = lowerCaseHeaders(raw.headers);
	noteRateLimit(call.fingerprint, headers);
	if (raw.statusCode >= 200 && raw.statusCode < 300 && isStream(raw.body))
		return { ok: true, status: raw.statusCode, headers, body: raw.body };
	const failureLimit = deadline(call.timeoutMs, () => new Error('timed out reading the failure'));
	let buffer = Buffer.alloc(0);
	try {
		buffer = await readBody(raw.body, 65_536, failureLimit.signal, 0);
	} catch {
		// The status says enough.
	} finally {
		failureLimit.done();
	}
	const failure = failedResponse(req, url, { status: raw.statusCode, headers, buffer }, call.forms);
	return {
		ok: false,
		status: raw.statusCode,
		headers,
		text: failure.text,
		message: redact(api.describeFailure(failure).message, call.forms),
	};
}
