import type { Failure, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ApiFailure } from '../errors';
import { apiError, truncate } from '../errors';
import type { ValidationIssue } from '../operation';
import type { SecretForms } from '../redaction';
import { redact } from '../redaction';
import { clock } from '../timers';
import { MAX_DOWNLOAD_MIB, MIN_FILE_BYTES_PER_SECOND, formatBytes } from './body';

/** The `code` of the error a request that timed out fails with. */
export const TIMED_OUT = 'ETIMEDOUT';

/**
 * Why a request failed, for n8n 2.40's poll scheduler (`NodeApiError.failure`; 1.x ignores it). A 404 is
 * `configuration-invalid`: the node names something that does not exist, and asking again will not make it.
 */
export function failureOfStatus(status: number, waitMs?: number, now = clock.now()): Failure {
	if (status === 429) {
		const resetsAtEpochMs = now + (waitMs ?? Number.NaN);
		return resetsAtEpochMs <= 8.64e15
			? { cause: 'rate-limited', retryAfterMs: waitMs, resetsAtEpochMs }
			: { cause: 'rate-limited' };
	}
	if (status === 401 || status === 403) return { cause: 'credential-invalid' };
	if (status === 408 || status >= 500) return { cause: 'temporarily-unavailable' };
	return { cause: 'configuration-invalid' };
}

/** Milliseconds until a rate limit lifts: `Retry-After` (seconds or a date), or `X-RateLimit-Reset` (seconds, or an epoch). */
export function rateLimitWaitMs(
	headers: Record<string, string>,
	now = clock.now(),
): number | undefined {
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

export function rateLimitError(
	node: INode,
	label: string,
	headers: Record<string, string>,
	maxWaitMs: number,
	itemIndex?: number,
): NodeApiError {
	const now = clock.now();
	const waitMs = rateLimitWaitMs(headers, now);
	const resetsAt = new Date(now + (waitMs ?? Number.NaN));
	const when =
		waitMs === undefined
			? 'The API did not say when the limit resets; try again later'
			: Number.isNaN(resetsAt.getTime())
				? 'The API asked for a wait longer than any date; try again later'
				: `Try again in ${Math.ceil(waitMs / 1000)} s (after ${resetsAt.toISOString()})`;
	// A header the contract says is an integer: anything else (an echo of what was sent) is not quoted.
	const stated = /^\d{1,12}$/.test(headers['x-ratelimit-limit'] ?? '')
		? headers['x-ratelimit-limit']
		: 'not stated';
	const failure: ApiFailure = {
		message: `The ${label} request limit for this user is used up (429). ${when}.`,
		description: `Waits of up to ${Math.round(maxWaitMs / 1000)} s are taken automatically; this one was longer. The limit is ${stated} requests per window.`,
	};
	return apiError(node, 429, failure, itemIndex, failureOfStatus(429, waitMs, now));
}

/** A failure before anything was sent: the credential or the request is not usable. */
export function refusedBeforeSending(
	node: INode,
	message: string,
	itemIndex: number | undefined,
	description: string,
): NodeOperationError {
	return new NodeOperationError(node, message, {
		itemIndex,
		description: `${description} Nothing was sent.`,
		failure: { cause: 'credential-invalid' },
	});
}

/** Problems found before sending, their quoted values with secrets masked. */
export function redactIssues(found: ValidationIssue[], forms: SecretForms): ValidationIssue[] {
	return found.map((issue) => ({
		...issue,
		field: redact(issue.field, forms),
		problem: redact(issue.problem, forms),
	}));
}

/** A NodeApiError with exactly `message`: n8n swaps one naming a code such as ECONNREFUSED for generic text. */
export function plainError(
	node: INode,
	message: string,
	description: string | undefined,
	failure: Failure,
	itemIndex?: number,
	response = {},
): NodeApiError {
	const error = new NodeApiError(node, response, { message, description, itemIndex, failure });
	error.message = message;
	return error;
}

export function timeoutError(
	node: INode,
	label: string,
	hostPort: string,
	where: string,
	timeoutMs: number,
	itemIndex?: number,
): NodeApiError {
	const message = `The ${label} at ${hostPort} did not answer ${where} within ${timeoutMs / 1000} s (timed out)`;
	const description =
		"Nothing more was read. The request may or may not have been carried out: check before repeating a change. Check that the Base URL's host and port are the service's, and that nothing between n8n and it holds the connection; the credential's Timeout (Seconds) sets the limit.";
	const error = plainError(
		node,
		message,
		description,
		{ cause: 'temporarily-unavailable' },
		itemIndex,
	);
	error.context.code = TIMED_OUT;
	return error;
}

export function tooLargeError(
	node: INode,
	label: string,
	where: string,
	itemIndex?: number,
): NodeApiError {
	const message = `The ${label} answer to ${where} is larger than ${MAX_DOWNLOAD_MIB} MiB, the download limit; it was not read further`;
	const description = `Every answer and file the nodes download is limited to ${MAX_DOWNLOAD_MIB} MiB (MAX_DOWNLOAD_MIB), so a wrong or hostile answer cannot exhaust n8n's memory. Narrow the request (a shorter date range, a Limit).`;
	return plainError(node, message, description, { cause: 'configuration-invalid' }, itemIndex, {
		httpCode: 'ETOOLARGE',
	});
}

export function tooSlowError(
	node: INode,
	label: string,
	where: string,
	itemIndex?: number,
): NodeApiError {
	const speed = `${formatBytes(MIN_FILE_BYTES_PER_SECOND)}/s`;
	const message = `The ${label} sent the file for ${where} slower than ${speed} on average; it was not read further`;
	const description = `A file must keep up at least ${speed} once it has taken as long as the credential's Timeout (Seconds), so a server that drips bytes cannot hold the execution for hours. Try again later.`;
	return plainError(node, message, description, { cause: 'temporarily-unavailable' }, itemIndex);
}

/** Whether a failure of the request helper was its own timeout (axios says ECONNABORTED or ETIMEDOUT). */
export function isTimeout(error: unknown): boolean {
	const err = error as { code?: string; message?: string; cause?: { code?: string } };
	const code = err.code ?? err.cause?.code;
	return (
		code === 'ETIMEDOUT' ||
		code === 'ECONNABORTED' ||
		/timeout of \d+ms exceeded|timed out/i.test(err.message ?? '')
	);
}

const TRUST =
	'Use a certificate from a public authority on the server, or add its authority to the ones n8n trusts (NODE_EXTRA_CA_CERTS)';
const SCHEME =
	"Check the Base URL's scheme: https:// where the server speaks TLS on that port, http:// where it does not";
const ROUTE =
	'Check the host in the Base URL and the network between n8n and it (a firewall, a VPN)';

/** Network failures in words, with what to check (the code goes in the description only; see `plainError`). */
const NETWORK_FAILURES: Record<string, [reason: string, check: string]> = {
	ECONNREFUSED: [
		'nothing accepts connections on that port (connection refused)',
		'Check the port in the Base URL, and that the service runs and listens on it',
	],
	ENOTFOUND: [
		'no such host name (DNS found none)',
		'Check the spelling of the host in the Base URL',
	],
	EAI_AGAIN: [
		'the host name could not be looked up (DNS did not answer)',
		'Check the host in the Base URL and the DNS of the machine n8n runs on; try again',
	],
	ECONNRESET: [
		'the connection was closed without an answer (connection reset)',
		`${SCHEME}; a firewall or proxy may also cut connections`,
	],
	EPIPE: [
		'the connection was closed while sending (broken pipe)',
		`${SCHEME}; a firewall or proxy may also cut connections`,
	],
	ECONNABORTED: [
		'the connection was aborted',
		'Check the host and port in the Base URL; try again',
	],
	ETIMEDOUT: [
		'the connection timed out',
		'Check the host and port in the Base URL, and that no firewall drops the connection',
	],
	EHOSTUNREACH: ['there is no route to the host (host unreachable)', ROUTE],
	ENETUNREACH: ['there is no route to its network (network unreachable)', ROUTE],
	EPROTO: ['the TLS handshake failed (protocol error)', SCHEME],
	WRONG_VERSION: ['the server does not speak TLS on that port (wrong version number)', SCHEME],
	CERT_HAS_EXPIRED: [
		"the server's TLS certificate has expired",
		"Ask the service's administrator to renew it",
	],
	DEPTH_ZERO_SELF_SIGNED_CERT: ["the server's TLS certificate is self-signed", TRUST],
	SELF_SIGNED_CERT_IN_CHAIN: [
		"the server's TLS certificate comes from an authority n8n does not trust",
		TRUST,
	],
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: [
		"the server's TLS certificate comes from an authority n8n does not know",
		`${TRUST}; the server may also be leaving out its intermediate certificate`,
	],
	ERR_TLS_CERT_ALTNAME_INVALID: [
		"the server's TLS certificate is for another host name",
		'Use the host name the certificate is for in the Base URL',
	],
};
NETWORK_FAILURES.UNABLE_TO_GET_ISSUER_CERT_LOCALLY =
	NETWORK_FAILURES.UNABLE_TO_VERIFY_LEAF_SIGNATURE;

/** A failed connection in words: the reason, what to check, its code, and its failure cause. */
export function networkFailure(error: unknown): {
	reason: string;
	check: string;
	code?: string;
	failure: Failure;
} {
	// n8n's request helper may wrap the error it got: the code and the TLS library's text are on the cause.
	const chain = [error, (error as { cause?: unknown } | undefined)?.cause] as Array<
		{ code?: unknown; message?: unknown } | undefined
	>;
	const code = chain
		.map((err) => err?.code)
		.find((found): found is string => typeof found === 'string' && found !== '');
	const wrongVersion = chain.some((err) =>
		/wrong version number|packet length too long/i.test(String(err?.message ?? '')),
	);
	const unknown = [
		'a network error occurred',
		'Check the Base URL, and that the service is reachable from the machine n8n runs on',
	];
	const [reason, check] =
		NETWORK_FAILURES[wrongVersion ? 'WRONG_VERSION' : (code ?? '')] ?? unknown;
	// A certificate or a scheme is fixed by someone; waiting does not help.
	const tls = wrongVersion || /CERT|SSL|TLS|EPROTO|UNABLE_TO/.test(code ?? '');
	return {
		reason,
		check,
		code,
		failure: { cause: tls ? 'configuration-invalid' : 'temporarily-unavailable' },
	};
}

export function networkError(
	node: INode,
	label: string,
	hostPort: string,
	where: string,
	error: unknown,
	forms: SecretForms,
	itemIndex?: number,
): NodeApiError {
	const { reason, check, code, failure } = networkFailure(error);
	const detail = truncate(
		redact(String((error as Error | undefined)?.message ?? error).slice(0, 4096), forms),
		200,
	);
	const message = redact(
		`Could not reach the ${label} at ${hostPort} for ${where}: ${reason}`,
		forms,
	);
	return plainError(
		node,
		message,
		redact(`${check}. Code: ${code ?? detail}`, forms),
		failure,
		itemIndex,
		{ networkError: code ?? 'unknown' },
	);
}
