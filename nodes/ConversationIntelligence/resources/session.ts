import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ResourceSpec } from '../../shared/operation';
import { wait } from '../../shared/timers';
import { describeValue, hasControlCharacter, integerInRange, issues, required } from '../../shared/validation';
import { filtersFrom, sessionEventItem, sessionEventMatches, sessionFilterFields } from '../events';
import { SessionEventStream } from '../sessionStream';
import { sessionPath, sessionStreamAccess, streamToken } from '../stream';

const sessionIdField = {
	displayName: 'Session ID',
	name: 'sessionId',
	type: 'string' as const,
	required: true,
	default: '',
	description: 'The conversation intelligence session (one analysed call)',
};

export const session: ResourceSpec = {
	value: 'session',
	name: 'Session',
	description: 'Live analysis of one call',
	operations: [
		{
			value: 'getStreamToken',
			name: 'Get Stream Token',
			action: 'Get a stream token for a session',
			description: 'Get a short-lived token that opens the session\'s event stream, e.g. for a browser EventSource',
			fields: [sessionIdField],
			validate: (p) => issues(required('Session ID', p.sessionId)),
			request: (p) => ({ method: 'GET', ...sessionPath(p.sessionId, '/stream-token') }),
			output: (response, p) => ({ session_id: String(p.sessionId), ...(response.body as IDataObject), token: streamToken(response.body) ?? null }),
		},
		{
			value: 'watchEvents',
			name: 'Watch Events',
			action: 'Watch the events of a session',
			description:
				'Listen to a session\'s live events and return them as items, until the session ends, a number of events, or a time limit',
			fields: [
				sessionIdField,
				...sessionFilterFields,
				{
					displayName: 'Max Events',
					name: 'maxEvents',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: 50,
					description: 'Stop after this many matching events',
				},
				{
					displayName: 'Time Limit (Seconds)',
					name: 'timeLimitSeconds',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: 60,
					description: 'Stop after this long, with whatever arrived',
				},
				{
					displayName: 'Resume After Event ID',
					name: 'lastEventId',
					type: 'string',
					default: '',
					description: 'Only events after this one: the stream_event_id of the last event of an earlier run; from the start of the session when empty',
				},
			],
			validate: (p) =>
				issues(
					required('Session ID', p.sessionId),
					integerInRange('Max Events', p.maxEvents, 1),
					integerInRange('Time Limit (Seconds)', p.timeLimitSeconds, 1),
					// It travels as the Last-Event-ID header: SSE ids never hold a line break or NUL.
					typeof p.lastEventId === 'string' && hasControlCharacter(p.lastEventId)
						? { field: 'Resume After Event ID', problem: `${describeValue(p.lastEventId)} holds a control character`, rule: 'an event_id from an earlier run: no line breaks, NUL or other control characters' }
						: undefined,
				),
			// A stream, not a request: events are collected until one of the stop conditions.
			run: async ({ node, itemIndex }, p) => {
				const sessionId = String(p.sessionId).trim();
				const filters = filtersFrom(p);
				const access = await sessionStreamAccess(node, sessionId);
				const items: IDataObject[] = [];
				let refused: Error | undefined;
				let ended: string | undefined;
				const done = new AbortController();
				const stream = new SessionEventStream({
					...access,
					lastEventId: String(p.lastEventId ?? '').trim() || undefined,
					heartbeatWindowMs: 90_000,
					onEvent: (event, id) => {
						if (done.signal.aborted || !sessionEventMatches(event, filters)) return;
						items.push(sessionEventItem(event, id));
						if (items.length >= Number(p.maxEvents)) done.abort();
					},
					onEnded: (reason) => {
						ended = reason;
						done.abort();
					},
					onRefused: (status, message) => {
						refused = new NodeApiError(node.getNode(), {}, { message, httpCode: String(status), itemIndex });
						done.abort();
						// The watch ends here; the stream is stopped before this wait would end.
						return Number(p.timeLimitSeconds) * 1000;
					},
				});
				stream.start();
				await wait(Number(p.timeLimitSeconds) * 1000, done.signal);
				await stream.stop();
				if (refused && items.length === 0) throw refused;
				node.logger.debug(`Watch Events (item ${itemIndex}): ${items.length} events from ${stream.connections} connection(s)`);
				// A session that is over says so, rather than ending the workflow with no item.
				if (ended && items.length === 0) return [{ session_id: sessionId, ended: true, reason: ended, events: 0 }];
				return items;
			},
		},
	],
};
