import type { IDataObject, IExecuteFunctions, ITriggerFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { platformApi } from '../shared/apis';
import type { ApiPath } from '../shared/operation';
import { createClient } from '../shared/transport';

export const INTELLIGENCE_PATH = '/intelligence/v1';

export function sessionPath(sessionId: unknown, rest = ''): ApiPath {
	return { path: `${INTELLIGENCE_PATH}/sessions/{sessionId}${rest}`, pathParams: { sessionId } };
}

/** The token from a stream-token answer, whatever the field is called. */
export function streamToken(body: unknown): string | undefined {
	const record = (body ?? {}) as IDataObject;
	const inner = (record.data ?? {}) as IDataObject;
	const token = record.token ?? record.stream_token ?? record.access_token ?? inner.token ?? inner.stream_token;
	return typeof token === 'string' && token ? token : undefined;
}

/**
 * What a session stream needs from n8n: a fresh token on demand (a new client each time, so a
 * credential fixed meanwhile is used), and the events stream opened with it. The session id is
 * checked before anything is sent.
 */
export async function sessionStreamAccess(context: IExecuteFunctions | ITriggerFunctions, sessionId: string) {
	const labels = { sessionId: 'Session ID' };
	const events = sessionPath(sessionId, '/events');
	const client = createClient(context, platformApi, { labels });
	(await client.environment()).absoluteUrl(events.path, events.pathParams);
	return {
		fetchToken: async () => {
			const response = await createClient(context, platformApi, { labels }).request({ method: 'GET', ...sessionPath(sessionId, '/stream-token') });
			const token = streamToken(response.body);
			if (!token) {
				throw new NodeApiError(context.getNode(), { httpCode: String(response.status) }, {
					message: 'The stream-token answer held no token',
				});
			}
			return token;
		},
		// The token authenticates the events URL (a browser's EventSource cannot send the key): no credential goes with it.
		open: async (token: string, lastEventId: string | undefined, signal: AbortSignal) =>
			await client.stream(
				{
					method: 'GET',
					...events,
					qs: { token },
					auth: false,
					accept: 'text/event-stream',
					headers: lastEventId ? { 'Last-Event-ID': lastEventId } : undefined,
				},
				signal,
			),
	};
}
