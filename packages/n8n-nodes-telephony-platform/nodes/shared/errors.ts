import type { Failure, ICredentialDataDecryptedObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ValidationIssue } from './operation';
import type { SecretForms } from './redaction';
import type { ApiDefinition } from './transport/client';

export function truncate(text: string, max = 500): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Platform error text, wherever a JSON error body keeps it; else the body itself, shortened. */
export function errorTextFromBody(body: unknown): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	if (typeof body === 'string') return truncate(body);
	if (Array.isArray(body)) {
		const parts = body.map((entry) => errorTextFromBody(entry)).filter(Boolean);
		return parts.length ? parts.join('; ') : undefined;
	}
	if (typeof body === 'object') {
		const record = body as Record<string, unknown>;
		for (const key of [
			'errors',
			'message',
			'error',
			'detail',
			'details',
			'description',
			'reason',
		]) {
			if (record[key] === undefined || record[key] === null) continue;
			const value = record[key];
			if (typeof value === 'object' && !Array.isArray(value)) {
				const nested = value as Record<string, unknown>;
				if (typeof nested.message === 'string') return fieldPrefixed(nested.field, nested.message);
				return truncate(JSON.stringify(value));
			}
			if (Array.isArray(value)) {
				const parts = value.map((entry: Record<string, unknown> | null) =>
					entry && typeof entry === 'object'
						? fieldPrefixed(entry.field, String(entry.message ?? JSON.stringify(entry)))
						: String(entry),
				);
				if (parts.length) return truncate(parts.join('; '));
				continue;
			}
			return truncate(String(value));
		}
		return truncate(JSON.stringify(body));
	}
	return truncate(String(body));
}

function fieldPrefixed(field: unknown, message: string): string {
	return typeof field === 'string' && field && !message.includes(field)
		? `${field}: ${message}`
		: message;
}

export interface ApiFailure {
	message: string;
	description?: string;
	/** The platform's own error code (e911 `code`), kept for users to branch on. */
	code?: string;
	field?: string | null;
}

/** `cause` is why it failed, for n8n 2.40 (see failureOfStatus in transport/failures.ts). */
export function apiError(
	node: INode,
	status: number,
	failure: ApiFailure,
	itemIndex: number | undefined,
	cause: Failure,
): NodeApiError {
	const response: JsonObject = { httpCode: String(status) };
	if (failure.code) response.code = failure.code;
	if (failure.field !== undefined) response.field = failure.field;
	const error = new NodeApiError(node, response, {
		message: failure.message,
		description: failure.description ?? '',
		httpCode: String(status),
		itemIndex,
		failure: cause,
	});
	if (failure.code) error.context.code = failure.code;
	if (failure.field !== undefined) error.context.field = failure.field;
	return error;
}

/** One error for all problems found before sending: the first in the message, every one in the description. */
export function validationError(
	node: INode,
	issues: ValidationIssue[],
	itemIndex?: number,
): NodeOperationError {
	const [first, ...rest] = issues;
	const message = `Invalid ${first.field}: ${first.problem}`;
	const description = [
		`Rule: ${first.rule}`,
		...rest.map((issue) => `${issue.field}: ${issue.problem}. Rule: ${issue.rule}`),
		'Nothing was sent.',
	].join('\n');
	const error = new NodeOperationError(node, message, {
		description,
		itemIndex,
		failure: { cause: 'configuration-invalid' },
	});
	error.context.issues = issues.map((issue) => ({ ...issue }));
	return error;
}

/** An error caught from our own calls, as the n8n error it already is (or wrapped as one). */
export function asNodeError(node: INode, error: unknown): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error);
}

/** The error's texts (message, description, stack, and its causes') with the secrets masked, in place. */
export function redactError<T>(error: T, forms: SecretForms): T {
	for (
		let at: unknown = error, depth = 0;
		at instanceof Error && depth < 4;
		at = at.cause, depth++
	) {
		const texts = at as Error & { description?: unknown };
		texts.message = forms.redact(texts.message);
		if (typeof texts.description === 'string') texts.description = forms.redact(texts.description);
		if (typeof texts.stack === 'string') texts.stack = forms.redact(texts.stack);
	}
	return error;
}

/**
 * A trigger's activation (or poll, or webhook registration), its error redacted with the credential's secrets:
 * n8n logs it whole, and not every message comes from the transport, which redacts what the service answered.
 */
export async function activationRedacted<T>(
	context: { getCredentials(type: string): Promise<ICredentialDataDecryptedObject> },
	api: ApiDefinition,
	run: () => Promise<T>,
): Promise<T> {
	try {
		return await run();
	} catch (error) {
		const credentials = await context.getCredentials(api.credentialType).catch(() => undefined);
		throw credentials ? redactError(error, api.secretForms(credentials)) : error;
	}
}
