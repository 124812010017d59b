import type { IDataObject, IExecuteFunctions, ITriggerFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { platformApi } from '../shared/apis';
import type { ApiPath, ApiRequest, ApiResponse } from '../shared/operation';
import { answerKind, isRecord } from '../shared/responseShape';
import { createClient } from '../shared/transport/client';

export const INTELLIGENCE_PATH = '/intelligence/v1';

export function sessionPath(sessionId: unknown, rest = ''): ApiPath {
	return { path: `${INTELLIGENCE_PATH}/sessions/{sessionId}${rest}`, pathParams: { sessionId } };
}

/** The stream-token request: read as text, since the spec does not show the answer's shape (JSON or a bare token). */
export function streamTokenRequest(sessionId: unknown): ApiRequest {
	return { method: 'GET', ...sessionPath(sessionId, '/stream-token'), responseType: 'text' };
}

/** Field names a token is found under, in this order (at the top, then inside `data`). */
export const TOKEN_FIELDS = [
	'token',
	'stream_token',
	'streamToken',
	'access_token',
	'accessToken',
	'jwt',
];

/** A bare token in a text body: one word of visible characters (an HTML page or a sentence is not one). */
const BARE_TOKEN = /^[\x21-\x7e]{1,4096}$/;

/** The answer's body as JSON when it is JSON (a JSON string too), else the text itself: a text/plain token is an answer too. */
export function tokenAnswerBody(response: ApiResponse): unknown {
	const text = typeof response.body === 'string' ? response.body : undefined;
	if (text === undefined) return response.body;
	try {
		const parsed: unknown = JSON.parse(text);
		if (
			typeof parsed === 'string' ||
			isRecord(parsed) ||
			/json/i.test(response.headers['content-type'] ?? '')
		)
			return parsed;
	} catch {
		// not JSON: a bare token, or text that holds none
	}
	return text;
}

/** A date or time (an `expires_at`): never a token. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}/;

/** The only text field that is not a date, if it looks like a token (a lone `message` sentence is not one). */
function onlyStringField(record: IDataObject): string | undefined {
	const strings = Object.values(record).filter(
		(value): value is string => typeof value === 'string' && !DATE_TIME.test(value.trim()),
	);
	return strings.length === 1 && BARE_TOKEN.test(strings[0].trim()) ? strings[0] : undefined;
}

/** The token of a stream-token answer (its shape is not in the spec): a bare string, a known field, else the only string field (also inside `data`). */
export function streamToken(body: unknown): string | undefined {
	if (typeof body === 'string') return BARE_TOKEN.test(body.trim()) ? body.trim() : undefined;
	if (!isRecord(body)) return undefined;
	const inner = isRecord(body.data) ? body.data : {};
	const known = (record: IDataObject) =>
		TOKEN_FIELDS.map((field) => record[field]).find(
			(value): value is string => typeof value === 'string' && value.trim() !== '',
		);
	return (known(body) ?? known(inner) ?? onlyStringField(body) ?? onlyStringField(inner))?.trim();
}

/** What a stream-token answer without a token held, in words: its kind and field names, never values (they may be secrets). */
export function tokenAnswerProblem(body: unknown): string {
	let held = answerKind(body);
	if (isRecord(body)) {
		const names = Object.keys(body)
			.slice(0, 10)
			.map((name) => name.slice(0, 40));
		held = names.length
			? `an object with the fields ${names.join(', ')}${Object.keys(body).length > 10 ? ', …' : ''}`
			: 'an empty object';
	} else if (typeof body === 'string') {
		held = body.trim()
			? 'text that is not a token (one word of visible characters)'
			: 'an empty text';
	}
	return `The stream-token answer held no token: it was ${held}. A token is read from a bare string, the fields ${TOKEN_FIELDS.join(', ')} (also inside data), or the only text field`;
}

/** A fresh token on demand (a new client each time: a credential fixed meanwhile is used), and the events stream it opens. */
export async function sessionStreamAccess(
	context: IExecuteFunctions | ITriggerFunctions,
	sessionId: string,
) {
	const labels = { sessionId: 'Session ID' };
	const events = sessionPath(sessionId, '/events');
	const client = createClient(context, platformApi, { labels });
	(await client.environment()).absoluteUrl(events.path, events.pathParams);
	return {
		fetchToken: async () => {
			const response = await createClient(context, platformApi, { labels }).request(
				streamTokenRequest(sessionId),
			);
			const body = tokenAnswerBody(response);
			const token = streamToken(body);
			const httpCode = String(response.status);
			if (!token)
				throw new NodeApiError(
					context.getNode(),
					{ httpCode },
					{ message: tokenAnswerProblem(body), httpCode },
				);
			return token;
		},
		// The token authenticates the events URL (a browser's EventSource cannot send the key): no credential goes with it.
		open: async (token: string, lastEventId: string | undefined, signal: AbortSignal) => {
			const headers = lastEventId ? { 'Last-Event-ID': lastEventId } : undefined;
			return await client.stream(
				{
					method: 'GET',
					...events,
					qs: { token },
					auth: false,
					accept: 'text/event-stream',
					headers,
				},
				signal,
			);
		},
	};
}
