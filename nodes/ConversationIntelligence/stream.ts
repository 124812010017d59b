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

/** What a session stream needs from n8n: a fresh token on demand, and the events URL for it. */
export async function sessionStreamAccess(context: IExecuteFunctions | ITriggerFunctions, sessionId: string) {
	const client = createClient(context, platformApi, { labels: { sessionId: 'Session ID' } });
	const environment = await client.environment();
	const events = sessionPath(sessionId, '/events');
	// Checked now, so a bad session id fails before any token is fetched.
	const eventsBase = environment.absoluteUrl(events.path, events.pathParams);
	return {
		fetchToken: async () => {
			const response = await client.request({ method: 'GET', ...sessionPath(sessionId, '/stream-token') });
			const token = streamToken(response.body);
			if (!token) {
				throw new NodeApiError(context.getNode(), { httpCode: String(response.status) }, {
					message: 'The stream-token answer held no token',
				});
			}
			return token;
		},
		eventsUrl: (token: string) => `${eventsBase}?token=${encodeURIComponent(token)}`,
	};
}
