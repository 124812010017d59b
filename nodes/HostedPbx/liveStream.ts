import type { Dispatcher } from 'undici';
import { request } from 'undici';

import type { BackoffOptions } from '../shared/streams/backoff';
import { DEFAULT_BACKOFF, Watchdog, backoffDelay, cancellableSleep } from '../shared/streams/backoff';
import { JsonObjectSplitter } from '../shared/streams/jsonObjects';
import { rateLimitWaitMs } from '../shared/transport';

/**
 * Holds the Hosted PBX `GET /stream` open and hands on every JSON object it carries.
 * Reconnects at once when the connection drops, then with capped, jittered backoff; treats
 * silence longer than the heartbeat window as a dead connection; stops for good on 401/403.
 */
export interface LiveStreamOptions {
	url: string;
	/** Called before every connection, so changed credentials are picked up. */
	authorization: () => Promise<string>;
	heartbeatWindowMs: number;
	backoff?: BackoffOptions;
	onObject: (object: Record<string, unknown>) => void;
	onMalformed: (fragment: string, reason: string) => void;
	/** 401 or 403: the stream stops; the message says what to fix. */
	onPermanentFailure: (status: number, message: string) => void;
	/** A drop, a silent connection, a server error: the stream reconnects after `retryInMs`. */
	onTransientFailure?: (reason: string, retryInMs: number) => void;
	onConnected?: () => void;
	dispatcher?: Dispatcher;
}

export class PbxLiveStream {
	private stopped = false;
	private controller?: AbortController;
	private sleeping?: { cancel: () => void };
	private running?: Promise<void>;
	/** Connections made, for tests and logs. */
	connections = 0;

	constructor(private readonly options: LiveStreamOptions) {}

	start(): void {
		this.running ??= this.loop();
	}

	async stop(): Promise<void> {
		this.stopped = true;
		this.controller?.abort();
		this.sleeping?.cancel();
		await this.running;
	}

	private async loop(): Promise<void> {
		let failures = 0;
		while (!this.stopped) {
			const outcome = await this.connectOnce();
			if (this.stopped || outcome.permanent) return;
			if (outcome.receivedData) failures = 0;
			// The first reconnect after a drop is immediate, as the API asks; later ones back off.
			const delay = outcome.waitMs ?? (failures === 0 ? 0 : backoffDelay(failures - 1, this.options.backoff ?? DEFAULT_BACKOFF));
			failures++;
			this.options.onTransientFailure?.(outcome.reason, delay);
			if (delay > 0) {
				const sleep = cancellableSleep(delay);
				this.sleeping = sleep;
				await sleep.promise;
				this.sleeping = undefined;
			}
		}
	}

	private async connectOnce(): Promise<{ reason: string; permanent?: boolean; receivedData?: boolean; waitMs?: number }> {
		const controller = new AbortController();
		this.controller = controller;
		let silent = false;
		const watchdog = new Watchdog(this.options.heartbeatWindowMs, () => {
			silent = true;
			controller.abort();
		});
		const splitter = new JsonObjectSplitter({ onObject: this.options.onObject, onMalformed: this.options.onMalformed });
		let receivedData = false;
		try {
			const authorization = await this.options.authorization();
			watchdog.alive();
			const response = await request(this.options.url, {
				method: 'GET',
				headers: { authorization, accept: 'application/json' },
				signal: controller.signal,
				bodyTimeout: 0,
				dispatcher: this.options.dispatcher,
			});
			this.connections++;
			if (response.statusCode === 401 || response.statusCode === 403) {
				await response.body.dump();
				this.options.onPermanentFailure(
					response.statusCode,
					response.statusCode === 401
						? 'The Hosted PBX refused the credentials for the live event stream (401). Check the username and password of the Hosted PBX API credential.'
						: 'This Hosted PBX user may not open the live event stream (403).',
				);
				return { reason: `HTTP ${response.statusCode}`, permanent: true };
			}
			if (response.statusCode !== 200) {
				await response.body.dump();
				const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k, String(v)]));
				return { reason: `HTTP ${response.statusCode}`, waitMs: response.statusCode === 429 ? rateLimitWaitMs(headers) : undefined };
			}
			this.options.onConnected?.();
			watchdog.alive();
			for await (const chunk of response.body) {
				watchdog.alive();
				receivedData = true;
				splitter.push(chunk as Buffer);
			}
			return { reason: 'the server closed the stream', receivedData };
		} catch (error) {
			if (silent) return { reason: `no data for ${Math.round(this.options.heartbeatWindowMs / 1000)} s (heartbeat missed)`, receivedData };
			return { reason: (error as Error).message || 'connection failed', receivedData };
		} finally {
			watchdog.stop();
			this.controller = undefined;
		}
	}
}
