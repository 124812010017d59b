import type { StreamResponse } from '../../shared/operation';
import type { BackoffOptions } from '../../shared/streams/backoff';
import { DEFAULT_BACKOFF, backoffDelay } from '../../shared/streams/backoff';
import { JsonObjectSplitter } from '../../shared/streams/jsonObjects';
import { Watchdog, checkWindowMs, wait } from '../../shared/timers';
import { MIN_RETRY_DELAY_MS, rateLimitWaitMs } from '../../shared/transport';

/** The longest pause a 429's Retry-After or X-RateLimit-Reset can impose on the stream. */
export const LONGEST_RATE_LIMIT_PAUSE_MS = 15 * 60_000;

/**
 * Holds the Hosted PBX `GET /stream` open through n8n's request helper and hands on every JSON
 * object it carries. Reconnects at once when the connection drops, then with capped, jittered
 * backoff; treats silence longer than the heartbeat window as a dead connection; stops for good on
 * 401/403 (the trigger decides when to try again). Each connection after the first reports the gap
 * since the last byte of the one before, so missed events can be read from the history.
 */
export interface LiveStreamOptions {
	/** Opens one connection with fresh credentials; aborting `signal` closes it. */
	open: (signal: AbortSignal) => Promise<StreamResponse>;
	heartbeatWindowMs: number;
	backoff?: BackoffOptions;
	onObject: (object: Record<string, unknown>) => void;
	/** Bytes that are no JSON object, once per incident (a short excerpt). */
	onIncident: (excerpt: string, reason: string) => void;
	/** 401 or 403: returns how long to wait before the next attempt (never sooner than the refusal gate allows). */
	onRefused: (status: number, message: string) => Promise<number> | number;
	/** A connection is open; `gapSince` is when the previous one last received anything. */
	onConnected?: (connection: { number: number; gapSince?: number }) => void;
	/** A drop, a silent connection, a server error: the stream reconnects after `retryInMs`. */
	/**
	 * A connection failed or closed; the next attempt comes in `retryInMs`. `failedAttempts` counts
	 * the attempts in a row that got no stream (0: a working stream closed or went silent).
	 */
	onTransientFailure?: (reason: string, retryInMs: number, failedAttempts: number, status?: number) => void;
}

type FirstOutcome = { connected: true } | { connected: false; refused?: { status: number; message: string }; reason: string };

interface Outcome {
	reason: string;
	refused?: { status: number; message: string };
	/** A 2xx stream was opened. */
	connected?: boolean;
	receivedData?: boolean;
	waitMs?: number;
	status?: number;
}

export class PbxLiveStream {
	private stopped = false;
	private readonly closing = new AbortController();
	private running?: Promise<void>;
	private resolveFirst: (outcome: FirstOutcome) => void = () => {};
	/** The first connection's outcome: the trigger waits for it before activation completes. */
	readonly firstOutcome = new Promise<FirstOutcome>((resolve) => (this.resolveFirst = resolve));
	/** Connections opened, for tests and logs. */
	connections = 0;
	/** When anything (an event, a heartbeat, padding) last arrived. */
	lastDataAt?: number;

	constructor(private readonly options: LiveStreamOptions) {
		// Refused here, synchronously: inside the connection loop the watchdog's refusal would leave firstOutcome unresolved.
		checkWindowMs(options.heartbeatWindowMs, 'The heartbeat window');
	}

	/** Starts connecting, after `delayMs` (a refusal's wait, when n8n activates the trigger again). */
	start(delayMs = 0): void {
		this.running ??= this.loop(delayMs);
	}

	async stop(): Promise<void> {
		this.stopped = true;
		this.closing.abort();
		this.resolveFirst({ connected: false, reason: 'stopped' });
		await this.running;
	}

	private async loop(delayMs: number): Promise<void> {
		let failures = 0;
		let failedAttempts = 0;
		await wait(delayMs, this.closing.signal);
		while (!this.stopped) {
			const outcome = await this.connectOnce();
			if (this.stopped) return;
			if (outcome.refused) {
				// Not a transient failure: the refusal gate says when to try again (60 s, then 15 minutes).
				await wait(await this.options.onRefused(outcome.refused.status, outcome.refused.message), this.closing.signal);
				continue;
			}
			if (outcome.receivedData) failures = 0;
			failedAttempts = outcome.connected ? 0 : failedAttempts + 1;
			// The first reconnect after a drop is immediate, as the API asks; later ones back off. A 429's
			// stated wait is taken, but never less than the backoff (`Retry-After: 0` again and again would
			// storm) nor more than a quarter of an hour (a wrong header would silence the trigger).
			const backoff = failures === 0 ? 0 : backoffDelay(failures - 1, this.options.backoff ?? DEFAULT_BACKOFF);
			const delay = outcome.waitMs === undefined ? backoff : Math.min(Math.max(outcome.waitMs, backoff, MIN_RETRY_DELAY_MS), LONGEST_RATE_LIMIT_PAUSE_MS);
			failures++;
			this.options.onTransientFailure?.(outcome.reason, delay, failedAttempts, outcome.status);
			await wait(delay, this.closing.signal);
		}
	}


	private async connectOnce(): Promise<Outcome> {
		const connection = new AbortController();
		const onClose = () => connection.abort();
		this.closing.signal.addEventListener('abort', onClose, { once: true });
		let silent = false;
		let body: (AsyncIterable<Uint8Array> & { destroy(error?: Error): void }) | undefined;
		const watchdog = new Watchdog(this.options.heartbeatWindowMs, () => {
			silent = true;
			connection.abort();
			body?.destroy();
		});
		const splitter = new JsonObjectSplitter({ onObject: this.options.onObject, onMalformed: this.options.onIncident });
		let receivedData = false;
		let connected = false;
		try {
			watchdog.alive();
			const response = await this.options.open(connection.signal);
			this.connections++;
			if (!response.ok) {
				const refused = response.status === 401 || response.status === 403 ? { status: response.status, message: response.message } : undefined;
				this.resolveFirst({ connected: false, refused, reason: response.message });
				const waitMs = response.status === 429 ? rateLimitWaitMs(response.headers) : undefined;
				return { reason: `HTTP ${response.status}`, refused, waitMs, status: response.status };
			}
			body = response.body;
			if (connection.signal.aborted) body.destroy();
			const gapSince = this.connections > 1 ? this.lastDataAt : undefined;
			connected = true;
			this.resolveFirst({ connected: true });
			this.options.onConnected?.({ number: this.connections, gapSince });
			watchdog.alive();
			for await (const chunk of body) {
				watchdog.alive();
				receivedData = true;
				this.lastDataAt = Date.now();
				splitter.push(chunk);
			}
			return { reason: 'the server closed the stream', connected: true, receivedData };
		} catch (error) {
			const reason = silent
				? `no data for ${Math.round(this.options.heartbeatWindowMs / 1000)} s (heartbeat missed)`
				: (error as Error).message || 'connection failed';
			this.resolveFirst({ connected: false, reason });
			return { reason, connected, receivedData };
		} finally {
			watchdog.stop();
			this.closing.signal.removeEventListener('abort', onClose);
			body?.destroy();
			// What the connection left unfinished: an event read as a fragment's value comes out, the rest is reported.
			if (!this.closing.signal.aborted) splitter.end();
		}
	}
}
