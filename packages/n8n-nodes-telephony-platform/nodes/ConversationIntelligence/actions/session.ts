import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { platformApi } from '../../shared/apis';
import { numericField, textField } from '../../shared/fields';
import type { ResourceSpec } from '../../shared/operation';
import { UnexpectedAnswer, isRecord } from '../../shared/responseShape';
import { wait } from '../../shared/timers';
import { describeValue, integerInRange, issues, required } from '../../shared/validation';
import { filtersFrom, sessionEventItem, sessionEventMatches, sessionFilterFields } from '../events';
import {
	PERSISTENT_FAILURE_ATTEMPTS,
	RESUME_ID_RULE,
	SessionEventStream,
	resumeIdProblem,
} from '../sessionStream';
import {
	sessionStreamAccess,
	streamToken,
	streamTokenRequest,
	tokenAnswerBody,
	tokenAnswerProblem,
} from '../stream';

/** Resume After Event ID travels as the Last-Event-ID header, which carries only what the stream's own resume ids may hold. */
function resumeAfterIssue(value: unknown) {
	const problem = typeof value === 'string' ? resumeIdProblem(value.trim()) : undefined;
	if (!problem) return undefined;
	return {
		field: 'Resume After Event ID',
		problem: `${describeValue(value)} cannot be sent as Last-Event-ID: ${problem}`,
		rule: `a stream_event_id from an earlier run: ${RESUME_ID_RULE}`,
	};
}

/** Bounds of absurd values only: the items of one run held in memory, and a day of watching (the timers' range is about 24 days). */
const MAX_EVENTS = 100_000;
const MAX_WATCH_SECONDS = 86_400;

const sessionIdField = textField(
	'Session ID',
	'sessionId',
	'The conversation intelligence session (one analysed call)',
	{ required: true },
);

export const session: ResourceSpec = {
	value: 'session',
	name: 'Session',
	description: 'Live analysis of one call',
	operations: [
		{
			value: 'getStreamToken',
			name: 'Get Stream Token',
			action: 'Get a stream token for a session',
			description:
				"Get a short-lived token that opens the session's event stream, e.g. for a browser EventSource",
			fields: [sessionIdField],
			validate: (p) => issues(required('Session ID', p.sessionId)),
			request: (p) => streamTokenRequest(p.sessionId),
			output: (response, p) => {
				const body = tokenAnswerBody(response);
				const token = streamToken(body);
				if (!token) {
					// The shared wording says only the body's kind; this one also names the fields it had.
					throw Object.assign(
						new UnexpectedAnswer(platformApi.label, 'Get a stream token', body, 'a token'),
						{ message: `Get a stream token: ${tokenAnswerProblem(body)}` },
					);
				}
				// A bare-string answer has no fields to pass on (spreading it would make one item field per character).
				return { session_id: String(p.sessionId), ...(isRecord(body) ? body : {}), token };
			},
		},
		{
			value: 'watchEvents',
			name: 'Watch Events',
			action: 'Watch the events of a session',
			description:
				"Listen to a session's live events and return them as items, until the session ends, a number of events, or a time limit",
			fields: [
				sessionIdField,
				...sessionFilterFields,
				numericField(
					'Max Events',
					'maxEvents',
					50,
					{ minValue: 1, maxValue: MAX_EVENTS, numberPrecision: 0 },
					{ description: 'Stop after this many matching events' },
				),
				numericField(
					'Time Limit (Seconds)',
					'timeLimitSeconds',
					60,
					{ minValue: 1, maxValue: MAX_WATCH_SECONDS, numberPrecision: 0 },
					{ description: 'Stop after this long, with whatever arrived' },
				),
				textField(
					'Resume After Event ID',
					'lastEventId',
					'Only events after this one: the stream_event_id of the last event of an earlier run; from the start of the session when empty',
				),
			],
			validate: (p) =>
				issues(
					required('Session ID', p.sessionId),
					integerInRange('Max Events', p.maxEvents, 1, MAX_EVENTS),
					integerInRange('Time Limit (Seconds)', p.timeLimitSeconds, 1, MAX_WATCH_SECONDS),
					resumeAfterIssue(p.lastEventId),
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
				const stream: SessionEventStream = new SessionEventStream({
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
						refused = new NodeApiError(
							node.getNode(),
							{},
							{ message, httpCode: String(status), itemIndex },
						);
						done.abort();
						// The watch ends here; the stream is stopped before this wait would end.
						return Number(p.timeLimitSeconds) * 1000;
					},
					onTransientFailure: (reason, retryInMs, failedAttempts) => {
						node.logger[failedAttempts > 0 ? 'warn' : 'info'](
							`Watch Events (item ${itemIndex}): ${reason}; reconnecting in ${retryInMs} ms`,
						);
						// Never connected and still failing: the run reports it now rather than at its Time Limit.
						if (!stream.everConnected && failedAttempts >= PERSISTENT_FAILURE_ATTEMPTS)
							done.abort();
					},
					onUnusableId: (problem) =>
						node.logger.warn(`Watch Events (item ${itemIndex}): ${problem}`),
				});
				stream.start();
				await wait(Number(p.timeLimitSeconds) * 1000, done.signal);
				await stream.stop();
				if (refused && items.length === 0) throw refused;
				// No stream ever opened: the last failure is the answer, never zero items that look like a quiet session.
				const failure = stream.everConnected || ended ? undefined : stream.lastFailure;
				if (failure) {
					throw new NodeApiError(
						node.getNode(),
						{},
						{
							message: `Could not open the event stream of session ${sessionId}: ${failure.reason}`,
							description: `No attempt got a stream (the run stops after ${PERSISTENT_FAILURE_ATTEMPTS} failed attempts in a row, or at its Time Limit). Check the Session ID, the credential's Base URL and the service, then try again.`,
							httpCode: failure.status ? String(failure.status) : undefined,
							itemIndex,
						},
					);
				}
				node.logger.debug(
					`Watch Events (item ${itemIndex}): ${items.length} events from ${stream.connections} connection(s)`,
				);
				// A session that is over says so, rather than ending the workflow with no item.
				if (ended && items.length === 0)
					return [{ session_id: sessionId, ended: true, reason: ended, events: 0 }];
				return items;
			},
		},
	],
};
