import type { Failure, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ApiFailure } from '../errors';
import { apiError, truncate } from '../errors';
import type { ValidationIssue } from '../operation';
import type { SecretForms } from '../redaction';
import { redact } from '../redaction';
import { MAX_DOWNLOAD_MIB, MIN_FILE_BYTES_PER_SECOND, formatBytes } from './body';

/** The `code` of the error a request that timed out fails with. */
export const TIMED_OUT = 'ETIMEDOUT';

/**
 * Why a request failed, as n8n 2.40 reads it (`NodeApiError`'s `failure`: its durable poll
 * scheduler backs off by it; n8n 1.x ignores it). A 404 is `configuration-invalid`: the node or
 * its credential names something that does not exist (a customer, a session, a webhook, or the
 * Base URL's path), and asking again will not make it exist.
 */
export function failureOfStatus(status: number, waitMs?: number, now = Date.now()): Failure {
	if (status === 429) {
		const resetsAtEpochMs = now + (waitMs ?? Number.NaN);
		return resetsAtEpochMs <= 8.64e15 ? { cause: 'rate-limited', retryAfterMs: waitMs, resetsAtEpochMs } : { cause: 'rate-limited' };
	}
	if (status === 401 || status === 403) return { cause: 'credential-invalid' };
	if (status === 408 || status >= 500) return { cause: 'temporarily-unavailable' };
	return { cause: 'configuration-invalid' };
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

export function rateLimitError(node: INode, label: string, headers: Record<string, string>, maxWaitMs: number, itemIndex?: number): NodeApiError {
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
	const failure: ApiFailure = {
		message: `The ${label} request limit for this user is used up (429). ${when}.`,
		description: `Waits of up to ${Math.round(maxWaitMs / 1000)} s are taken automatically; this one was longer. The limit is ${stated} requests per window.`,
	};
	return apiError(node, 429, failure, itemIndex, failureOfStatus(429, waitMs));
}

/** A failure before anything was sent: the credential or the request is not usable. */
export function refusedBeforeSending(node: INode, message: string, itemIndex: number | undefined, description: string): NodeOperationError {
	return new NodeOperationError(node, message, { itemIndex, description: `${description} Nothing was sent.`, failure: { cause: 'credential-invalid' } });
}

/** Problems found before sending, their quoted values with secrets masked. */
export function redactIssues(found: ValidationIssue[], forms: SecretForms): ValidationIssue[] {
	return found.map((issue) => ({ ...issue, field: redact(issue.field, forms), problem: redact(issue.problem, forms) }));
}

/** A NodeApiError with no code in its response part: n8n would swap a message naming one (ECONNREFUSED) for its generic text. */
export function plainError(node: INode, message: string, description: string | undefined, failure: Failure, itemIndex?: number, response = {}): NodeApiError {
	return new NodeApiError(node, response, { message, description, itemIndex, failure });
}

export function timeoutError(node: INode, label: string, where: string, timeoutMs: number, itemIndex?: number): NodeApiError {
	const error = plainError(
		node,
		`The ${label} did not answer ${where} within ${timeoutMs / 1000} s (timed out)`,
		`Nothing more was read. The request may or may not have been carried out: check before repeating a change. The credential's Timeout (Seconds) sets the limit.`,
		{ cause: 'temporarily-unavailable' },
		itemIndex,
	);
	error.context.code = TIMED_OUT;
	return error;
}

export function tooLargeError(node: INode, label: string, where: string, itemIndex?: number): NodeApiError {
	const message = `The ${label} answer to ${where} is larger than ${MAX_DOWNLOAD_MIB} MiB, the download limit; it was not read further`;
	const description = `Every answer and file the nodes download is limited to ${MAX_DOWNLOAD_MIB} MiB (MAX_DOWNLOAD_MIB), so a wrong or hostile answer cannot exhaust n8n's memory. Narrow the request (a shorter date range, a Limit).`;
	return plainError(node, message, description, { cause: 'configuration-invalid' }, itemIndex, { httpCode: 'ETOOLARGE' });
}

export function tooSlowError(node: INode, label: string, where: string, itemIndex?: number): NodeApiError {
	const speed = `${formatBytes(MIN_FILE_BYTES_PER_SECOND)}/s`;
	const message = `The ${label} sent the file for ${where} slower than ${speed} on average; it was not read further`;
	const description = `A file must keep up at least ${speed} once it has taken as long as the credential's Timeout (Seconds), so a server that drips bytes cannot hold the execution for hours. Try again later.`;
	return plainError(node, message, description, { cause: 'temporarily-unavailable' }, itemIndex);
}

/** Whether a failure of the request helper was its own timeout (axios says ECONNABORTED or ETIMEDOUT). */
export function isTimeout(error: unknown): boolean {
	const err = error as { code?: string; message?: string; cause?: { code?: string } };
	const code = err.code ?? err.cause?.code;
	return code === 'ETIMEDOUT' || code === 'ECONNABORTED' || /timeout of \d+ms exceeded|timed out/i.test(err.message ?? '');
}

/** Network failures in words: n8n swaps any message naming a code such as ECONNREFUSED for a generic text, so the code goes in the description. */
const NETWORK_FAILURES: Record<string, string> = {
	ECONNREFUSED: 'the connection was refused',
	ECONNRESET: 'the connection was reset',
	ECONNABORTED: 'the connection was aborted',
	ETIMEDOUT: 'the connection timed out',
	ENOTFOUND: 'the host name was not found',
	EAI_AGAIN: 'the host name could not be resolved',
	EHOSTUNREACH: 'the host is unreachable',
};

export function networkError(node: INode, label: string, where: string, error: unknown, forms: SecretForms, itemIndex?: number): NodeApiError {
	const err = error as { code?: string; message?: string; cause?: { code?: string } };
	const code = err.code ?? err.cause?.code;
	const reason = (code && NETWORK_FAILURES[code]) ?? 'a network error occurred';
	const detail = truncate(redact(String(err.message ?? error).slice(0, 4096), forms), 200);
	return plainError(
		node,
		redact(`Could not reach the ${label} for ${where}: ${reason}`, forms),
		redact(`Check the Base URL in the credential and that the service is reachable from n8n. Code: ${code ?? detail}`, forms),
		{ cause: 'temporarily-unavailable' },
		itemIndex,
		{ networkError: code ?? 'unknown' },
	);
}
