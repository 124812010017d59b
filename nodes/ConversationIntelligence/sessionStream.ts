import type { FetchLike } from 'eventsource';
import { EventSource } from 'eventsource';
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { BackoffOptions } from '../shared/streams/backoff';
import { DEFAULT_BACKOFF, Watchdog, backoffDelay, cancellableSleep } from '../shared/streams/backoff';

export const SESSION_EVENT_TYPES = [
	'session_started',
	'operator_result',
	'operator_error',
	'transcript_utterance',
	'session_ended',
] as const;

/**
 * One session's Server-Sent Events stream, held with the `eventsource` package. Each connection
 * gets a fresh stream token (tokens are short-lived) and resumes with `Last-Event-ID`; an event id
 * seen before is dropped; silence past the heartbeat window counts as a dead connection;
 * transient failures reconnect with capped, jittered backoff; `session_ended` ends it for good.
 */
export interface SessionStreamOptions {
	node: INode;
	/** A fresh stream token; failures are NodeApiErrors from the transport. */
	fetchToken: () => Promise<string>;
	eventsUrl: (token: string) => string;
	lastEventId?: string;
	heartbeatWindowMs: number;
	backoff?: BackoffOptions;
	onEvent: (event: IDataObject, id: string) => void;
	onEnded: () => void;
	/** The key is refused, lacks a scope, or the session does not exist. */
	onPermanentFailure: (error: Error) => void;
	onTransientFailure?: (reason: string, retryInMs: number) => void;
	onMalformed?: (data: string) => void;
	/** Test seam: the fetch the EventSource uses. */
	fetch?: typeof fetch;
}

const MAX_REMEMBERED_IDS = 10_000;

/** Event ids already handed on, oldest forgotten first. */
class RecentIds {
	private readonly ids = new Set<string>();

	has(id: string): boolean {
		return this.ids.has(id);
	}

	add(id: string): void {
		this.ids.add(id);
		if (this.ids.size > MAX_REMEMBERED_IDS) this.ids.delete(this.ids.values().next().value as string);
	}
}

interface ConnectionOutcome {
	ended?: boolean;
	status?: number;
	reason: string;
	receivedEvents: boolean;
}

export class SessionEventStream {
	private stopped = false;
	private closeCurrent?: () => void;
	private sleeping?: { cancel: () => void };
	private running?: Promise<void>;
	private readonly seen = new RecentIds();
	lastEventId?: string;
	connections = 0;

	constructor(private readonly options: SessionStreamOptions) {
		this.lastEventId = options.lastEventId;
	}

	start(): void {
		this.running ??= this.loop();
	}

	async stop(): Promise<void> {
		this.stopped = true;
		this.closeCurrent?.();
		this.sleeping?.cancel();
		await this.running;
	}

	private async loop(): Promise<void> {
		let failures = 0;
		while (!this.stopped) {
			let token: string;
			try {
				token = await this.options.fetchToken();
			} catch (error) {
				const status = Number((error as NodeApiError).httpCode);
				if ([401, 403, 404].includes(status)) {
					this.options.onPermanentFailure(error as Error);
					return;
				}
				failures = await this.pause(failures, `stream token request failed: ${(error as Error).message}`);
				continue;
			}
			const outcome = await this.connect(token);
			if (this.stopped) return;
			if (outcome.ended) {
				this.options.onEnded();
				return;
			}
			if (outcome.status === 404) {
				this.options.onPermanentFailure(
					new NodeApiError(this.options.node, { httpCode: '404' }, { message: 'The session does not exist (404)', httpCode: '404' }),
				);
				return;
			}
			if (outcome.receivedEvents) failures = 0;
			// 401 on the events URL means the token expired or was refused: the next attempt fetches a new one.
			failures = await this.pause(failures, outcome.reason);
		}
	}

	/** Waits before the next attempt: at once after the first failure, then with backoff. */
	private async pause(failures: number, reason: string): Promise<number> {
		const delay = failures === 0 ? 0 : backoffDelay(failures - 1, this.options.backoff ?? DEFAULT_BACKOFF);
		this.options.onTransientFailure?.(reason, delay);
		if (delay > 0 && !this.stopped) {
			const sleep = cancellableSleep(delay);
			this.sleeping = sleep;
			await sleep.promise;
			this.sleeping = undefined;
		}
		return failures + 1;
	}

	private connect(token: string): Promise<ConnectionOutcome> {
		return new Promise((resolve) => {
			let receivedEvents = false;
			let settled = false;
			const watchdog = new Watchdog(this.options.heartbeatWindowMs, () =>
				finish({ reason: `no data for ${Math.round(this.options.heartbeatWindowMs / 1000)} s (heartbeat missed)` }),
			);
			const baseFetch = this.options.fetch ?? fetch;
			// Every connection sends the last id seen, and every byte (pings included) keeps the watchdog quiet.
			const observedFetch: FetchLike = async (url, init) => {
				const headers: Record<string, string> = { ...init.headers };
				if (this.lastEventId) headers['Last-Event-ID'] = this.lastEventId;
				const response = await baseFetch(url, { ...init, headers } as RequestInit);
				if (!response.body) return response;
				const body = response.body.pipeThrough(
					new TransformStream<Uint8Array, Uint8Array>({
						transform: (chunk, controller) => {
							watchdog.alive();
							controller.enqueue(chunk);
						},
					}),
				);
				return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
			};
			const source = new EventSource(this.options.eventsUrl(token), { fetch: observedFetch });
			this.connections++;
			const finish = (outcome: Omit<ConnectionOutcome, 'receivedEvents'>) => {
				if (settled) return;
				settled = true;
				watchdog.stop();
				source.close();
				this.closeCurrent = undefined;
				resolve({ ...outcome, receivedEvents });
			};
			this.closeCurrent = () => finish({ reason: 'stopped' });
			const onMessage = (message: MessageEvent) => {
				watchdog.alive();
				let event: IDataObject;
				try {
					event = JSON.parse(String(message.data)) as IDataObject;
				} catch {
					this.options.onMalformed?.(String(message.data));
					return;
				}
				const id = message.lastEventId || String(event.event_id ?? '');
				if (id && this.seen.has(id)) return;
				if (id) {
					this.seen.add(id);
					this.lastEventId = id;
				}
				receivedEvents = true;
				this.options.onEvent(event, id);
				if (event.event_type === 'session_ended') finish({ ended: true, reason: 'session ended' });
			};
			source.addEventListener('message', onMessage);
			// A server that names its events (`event: operator_result`) sends them to listeners of that name.
			for (const type of SESSION_EVENT_TYPES) source.addEventListener(type, onMessage as never);
			source.addEventListener('open', () => watchdog.alive());
			source.addEventListener('error', (error) => {
				const status = (error as { code?: number }).code;
				finish({ status, reason: status ? `HTTP ${status}` : (error as { message?: string }).message || 'connection lost' });
			});
			watchdog.alive();
		});
	}
}
