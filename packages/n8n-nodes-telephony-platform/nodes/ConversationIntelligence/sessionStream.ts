import type { IDataObject } from 'n8n-workflow';

import type { StreamResponse } from '../shared/operation';
import { isRecord } from '../shared/responseShape';
import type { BackoffOptions } from '../shared/streams/backoff';
import type { Attempt, FirstOutcome } from '../shared/streams/reconnectingStream';
import { ReconnectingStream } from '../shared/streams/reconnectingStream';
import { SseParser } from '../shared/streams/sse';
import { RecentIds } from '../shared/triggers/recentIds';

export const SESSION_EVENT_TYPES = [
	'session_started',
	'operator_result',
	'operator_error',
	'transcript_utterance',
	'session_ended',
] as const;

/**
 * One session's Server-Sent Events: a fresh token per connection, resuming with `Last-Event-ID`, seen ids
 * dropped, backoff of at least the server's `retry:`. It ends for good with the session (`session_ended`,
 * 204, 410, an answer saying so), when it does not exist (404), or on a refused key (401/403 on the token).
 */
export interface SessionStreamOptions {
	/** A fresh stream token; failures are NodeApiErrors from the transport (`httpCode` set). */
	fetchToken: () => Promise<string>;
	open: (
		token: string,
		lastEventId: string | undefined,
		signal: AbortSignal,
	) => Promise<StreamResponse>;
	lastEventId?: string;
	heartbeatWindowMs: number;
	backoff?: BackoffOptions;
	/** A session event and its stream id (the SSE `id`: what resuming needs). */
	onEvent: (event: IDataObject, streamId: string) => void;
	onEnded: (reason: string) => void;
	/** 401/403 fetching a token: returns how long to wait before the next attempt. */
	onRefused: (status: number, message: string) => Promise<number> | number;
	/** `failedAttempts` counts attempts in a row that got no stream (0: a working stream closed or went silent). */
	onTransientFailure?: (
		reason: string,
		retryInMs: number,
		failedAttempts: number,
		status?: number,
	) => void;
	onConnected?: () => void;
	/** The resume point moved to an event id that can be sent back (the trigger keeps it across restarts). */
	onResumePoint?: (id: string) => void;
	/** An event whose data is not a JSON object (skipped). */
	onIncident?: (excerpt: string) => void;
	/** An event id that cannot be sent back as Last-Event-ID as it is (told once per stream). */
	onUnusableId?: (problem: string) => void;
}

export { PERSISTENT_FAILURE_ATTEMPTS } from '../shared/triggers/lifecycle';

/** The longest `retry:` honoured, on top of our own backoff: longer would leave a live call unheard for most of its length. */
export const MAX_RETRY_MS = 5 * 60_000;

/** The longest event id sent back as Last-Event-ID: far beyond real ids, far below a server's header limits (431). */
export const MAX_RESUME_ID_BYTES = 1024;

export const RESUME_ID_RULE = `printable ASCII (no control characters, no other characters, no leading or trailing space), at most ${MAX_RESUME_ID_BYTES} characters`;

/** Why an event id cannot go back as Last-Event-ID exactly as sent: the client strips other characters and edge spaces; a huge one fails (431). */
export function resumeIdProblem(id: string): string | undefined {
	if (id.length > MAX_RESUME_ID_BYTES) return `it is ${id.length} characters long`;
	if (!/^[\x20-\x7e]*$/.test(id)) return 'it holds characters other than printable ASCII';
	if (id !== id.trim()) return 'it starts or ends with a space';
	return undefined;
}

const MAX_REMEMBERED_IDS = 10_000;

/** An answer that says in words that the session is over. */
const ENDED_TEXT = /session[\s_-]*(has[\s_-]*)?(ended|closed|finished)|session_ended/i;

/** Whether a failure answer means the session is over (204 is handled as an answer, not a failure). */
export function endedAnswer(status: number, text: string): string | undefined {
	if (status === 410) return 'the service answered 410 Gone';
	if (status === 404) return 'the session does not exist (404)';
	return ENDED_TEXT.test(text) ? `the service said: ${text.slice(0, 200)}` : undefined;
}

export class SessionEventStream {
	private readonly stream: ReconnectingStream;
	/** Event ids already handed on (a replay after a reconnection repeats some), oldest forgotten first. */
	private readonly seen = new RecentIds(MAX_REMEMBERED_IDS, Infinity);
	/** The server's reconnection time: it persists across connections, as the standard says. */
	private retryMs = 0;
	private toldUnusableId = false;
	/** The token of the current attempt: a server may echo it in an error, and it opens the session's events. */
	private token = '';
	lastEventId?: string;
	/** Whether any attempt got a stream. */
	everConnected = false;
	/** The last failure, while it lasts (cleared when a stream opens). */
	lastFailure?: { reason: string; status?: number };

	constructor(private readonly options: SessionStreamOptions) {
		if (options.lastEventId !== undefined) this.resumeAfter(options.lastEventId);
		const masked = (reason: string) => (this.token ? reason.split(this.token).join('***') : reason);
		this.stream = new ReconnectingStream({
			connect: async (signal) => await this.connect(signal),
			framing: (progress) => this.framing(progress),
			heartbeatWindowMs: options.heartbeatWindowMs,
			backoff: options.backoff,
			minimumDelayMs: () => this.retryMs,
			onRefused: options.onRefused,
			onEnded: options.onEnded,
			onConnected: () => {
				this.everConnected = true;
				this.lastFailure = undefined;
				options.onConnected?.();
			},
			onTransientFailure: (reason, retryInMs, failedAttempts, status) => {
				if (failedAttempts > 0) this.lastFailure = { reason: masked(reason), status };
				options.onTransientFailure?.(masked(reason), retryInMs, failedAttempts, status);
			},
		});
	}

	/** The first connection's outcome, for the trigger to wait on before activation completes. */
	get firstOutcome(): Promise<FirstOutcome> {
		return this.stream.firstOutcome;
	}

	get connections(): number {
		return this.stream.connections;
	}

	/** Starts listening, after `delayMs` (a refusal's wait, when n8n activates the trigger again). */
	start(delayMs = 0): void {
		this.stream.start(delayMs);
	}

	async stop(): Promise<void> {
		await this.stream.stop();
	}

	/** Moves the resume point to `id`, unless it is empty (the contract gives every message an id) or cannot be sent back as it is. */
	private resumeAfter(id: string): void {
		if (!id || id === this.lastEventId) return;
		const problem = resumeIdProblem(id);
		if (problem) {
			// Not used for resuming: a reconnection resumes after an earlier id, and the replayed events are dropped as already seen.
			if (!this.toldUnusableId)
				this.options.onUnusableId?.(
					`an event id is not used to resume (${problem}): a reconnection resumes after the last usable id, and events seen before are dropped`,
				);
			this.toldUnusableId = true;
			return;
		}
		this.lastEventId = id;
		this.options.onResumePoint?.(id);
	}

	/** A fresh token, then the events stream resuming after the last event id. */
	private async connect(signal: AbortSignal): Promise<Attempt> {
		try {
			this.token = await this.options.fetchToken();
		} catch (error) {
			const status = Number((error as { httpCode?: string }).httpCode);
			const message = (error as Error).message;
			if (status === 401 || status === 403) return { kind: 'refused', status, message };
			const ended = endedAnswer(status, message);
			if (ended) return { kind: 'ended', reason: ended };
			return {
				kind: 'failed',
				reason: `stream token request failed: ${message}`,
				status: status >= 400 ? status : undefined,
			};
		}
		const response = await this.options.open(this.token, this.lastEventId, signal);
		if (!response.ok) {
			const ended = endedAnswer(response.status, response.text);
			// 401 on the events URL: the token expired or was refused; the next attempt fetches a new one.
			return ended
				? { kind: 'ended', reason: ended }
				: { kind: 'failed', reason: response.message, status: response.status };
		}
		if (response.status === 204) {
			response.body.destroy();
			return {
				kind: 'ended',
				reason: 'the service answered 204: the session has nothing more to send',
			};
		}
		return { kind: 'open', body: response.body, status: response.status };
	}

	/** Server-Sent Events whose data is a JSON session event; a replayed id is dropped, the last event ends the stream. */
	private framing(progress: () => void) {
		const parser = new SseParser({
			// Every dispatch, with data or not (an `id:`-only message too), sets the id a reconnection resumes after.
			onLastEventId: (id) => this.resumeAfter(id),
			onEvent: (message) => {
				let event: unknown;
				try {
					event = JSON.parse(message.data);
				} catch {
					event = undefined;
				}
				if (!isRecord(event)) return this.options.onIncident?.(message.data.slice(0, 200));
				// The message's own id tells it apart from a replayed one; the standard's last id is what a reconnection resumes after.
				if (message.id && !this.seen.firstSeen(message.id)) return;
				progress();
				this.options.onEvent(event, message.id ?? message.lastEventId);
				if (event.event_type === 'session_ended')
					this.stream.end('the session_ended event arrived');
			},
			onRetry: (ms) => (this.retryMs = Math.min(ms, MAX_RETRY_MS)),
		});
		return { push: (chunk: Uint8Array) => parser.push(chunk), end: () => undefined };
	}
}
