import type { IDataObject } from 'n8n-workflow';

/**
 * A 2xx answer not of the shape the contract promises, thrown by output functions (they have no node; the
 * executor makes the n8n error). Nothing is made up in its place: no items from its characters, no silent empty result.
 */
export class UnexpectedAnswer extends Error {
	readonly description: string;

	constructor(
		api: string,
		operation: string,
		body: unknown,
		expected: string,
		options: { sent?: boolean } = {},
	) {
		super(
			`${operation}: the ${api} answered with ${answerKind(body)} where ${expected} was expected`,
		);
		this.name = 'UnexpectedAnswer';
		const sent = options.sent
			? ' The request was received and may have taken effect: check before sending it again.'
			: '';
		this.description = `Nothing was made up in its place. The service may be failing, or the Base URL may point at another service: check it, then try again.${sent}`;
	}
}

/** What a body is, in words: `text`, `null`, `a number`, `a list`, … (never its content, which may echo secrets). */
export function answerKind(body: unknown): string {
	if (body === undefined) return 'no body';
	if (body === null) return 'null';
	if (typeof body === 'string') return 'text';
	if (typeof body === 'number') return 'a number';
	if (typeof body === 'boolean') return `a boolean (${String(body)})`;
	if (Array.isArray(body)) return 'a list';
	if (typeof body === 'object') return 'an object';
	return typeof body;
}

/** Whether a value is a JSON object (not null, not a list). */
export function isRecord(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}
