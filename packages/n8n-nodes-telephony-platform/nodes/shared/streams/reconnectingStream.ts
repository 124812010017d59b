import type { StreamResponse } from '../operation';
import { Watchdog, checkWindowMs, clock, wait } from '../timers';
import type { BackoffOptions } from './backoff';
import { DEFAULT_BACKOFF, backoffDelay } from './backoff';

/**
 * The long-lived stream of both live triggers; only connecting and framing differ. Reconnects at once after
 * a working stream drops, then with backoff; silence past the heartbeat window is a dead connection; a
 * refusal (401/403) waits as the trigger says; an ended source stops it for good.
 */

export type StreamBody = Extract<StreamResponse, { ok: true }>['body'];

/** What one connection attempt gave. */
export type Attempt =
	| { kind: 'open'; body: StreamBody; status: number }
	| { kind: 'refused'; status: number; message: string }
	| { kind: 'ended'; reason: string }
	| { kind: 'failed'; reason: string; status?: number; waitMs?: number };

/** The outcome of the first attempt, which a trigger's activation waits for. */
export type FirstOutcome = { kind: 'connected' } | Exclude<Attempt, { kind: 'open' }>;

/** Decodes one connection's bytes; `end()` when the connection is over (not when the stream is stopped). */
export interface Framing {
	push(chunk: Uint8Array): void;
	end(): void;
}

export interface ReconnectingStreamOptions {
	/** Opens one connection (fetching a fresh token first, where the source needs one); aborting `signal` closes it. */
	connect: (signal: AbortSignal) => Promise<Attempt>;
	/** A decoder for one connection; `progress()` (something worth keeping arrived) resets the backoff. */
	framing: (progress: () => void) => Framing;
	heartbeatWindowMs: number;
	backoff?: BackoffOptions;
	/** The least wait before any reconnection (a Server-Sent Events `retry:`). */
	minimumDelayMs?: () => number;
	/** 401/403: returns how long to wait before the next attempt. */
	onRefused: (status: number, message: string) => Promise<number> | number;
	onEnded?: (reason: string) => void;
	/** A connection is open; `gapSince` is when the previous one last received anything. */
	onConnected?: (connection: { number: number; gapSince?: number }) => void;
	/** A connection failed or closed; `failedAttempts` counts attempts in a row that got no stream (0: a working stream closed). */
	onTransientFailure?: (
		reason: string,
		retryInMs: number,
		failedAttempts: number,
		status?: number,
	) => void;
}

/** The least wait after a 429, and the longest: a `Retry-After: 0` loop must not storm, a wrong header must not silence the trigger. */
export const MIN_RATE_LIMIT_PAUSE_MS = 1000;
export const LONGEST_RATE_LIMIT_PAUSE_MS = 15 * 60_000;

interface Result {
	outcome: FirstOutcome;
	connected?: boolean;
	progressed?: boolean;
}

export class ReconnectingStream {
	private stopped = false;
	private readonly closing = new AbortController();
	private running?: Promise<void>;
	private endedBy?: string;
	private closeConnection?: () => void;
	private resolveFirst: (outcome: FirstOutcome) => void = () => {};
	readonly firstOutcome = new Promise<FirstOutcome>((resolve) => (this.resolveFirst = resolve));
	/** Connections answered (2xx or not). */
	connections = 0;
	/** When anything last arrived (an event, a heartbeat, padding). */
	lastDataAt?: number;

	constructor(private readonly options: ReconnectingStreamOptions) {
		// Refused here, synchronously: inside the loop the watchdog's refusal would leave firstOutcome unresolved.
		checkWindowMs(options.heartbeatWindowMs, 'The heartbeat window');
	}

	/** Starts connecting, after `delayMs` (a refusal's wait, when n8n activates the trigger again). */
	start(delayMs = 0): void {
		this.running ??= this.loop(delayMs);
	}

	async stop(): Promise<void> {
		this.stopped = true;
		this.closing.abort();
		this.resolveFirst({ kind: 'failed', reason: 'stopped' });
		await this.running;
	}

	/** The source said it is over (a session's last event): the connection closes and nothing reconnects. */
	end(reason: string): void {
		this.endedBy ??= reason;
		this.closeConnection?.();
	}

	private async loop(delayMs: number): Promise<void> {
		let failures = 0;
		let failedAttempts = 0;
		await wait(delayMs, this.closing.signal);
		while (!this.stopped) {
			const { outcome, connected, progressed } = await this.attempt();
			if (this.stopped) return;
			this.resolveFirst(outcome);
			if (outcome.kind === 'ended') return this.options.onEnded?.(outcome.reason);
			if (outcome.kind === 'refused') {
				await wait(
					await this.options.onRefused(outcome.status, outcome.message),
					this.closing.signal,
				);
				continue;
			}
			if (progressed) failures = 0;
			failedAttempts = connected ? 0 : failedAttempts + 1;
			// At once after a working stream drops, as the APIs ask; then with backoff.
			let delay =
				failures === 0 ? 0 : backoffDelay(failures - 1, this.options.backoff ?? DEFAULT_BACKOFF);
			const stated = outcome.kind === 'failed' ? outcome.waitMs : undefined;
			if (stated !== undefined)
				delay = Math.min(
					Math.max(stated, delay, MIN_RATE_LIMIT_PAUSE_MS),
					LONGEST_RATE_LIMIT_PAUSE_MS,
				);
			delay = Math.max(delay, this.options.minimumDelayMs?.() ?? 0);
			failures++;
			const status = outcome.kind === 'failed' ? outcome.status : undefined;
			this.options.onTransientFailure?.(
				outcome.kind === 'failed' ? outcome.reason : 'the stream closed',
				delay,
				failedAttempts,
				status,
			);
			await wait(delay, this.closing.signal);
		}
	}

	private async attempt(): Promise<Result> {
		const connection = new AbortController();
		const onClose = () => connection.abort();
		this.closing.signal.addEventListener('abort', onClose, { once: true });
		let silent = false;
		let body: StreamBody | undefined;
		this.closeConnection = () => {
			connection.abort();
			body?.destroy();
		};
		const watchdog = new Watchdog(this.options.heartbeatWindowMs, () => {
			silent = true;
			this.closeConnection?.();
		});
		let progressed = false;
		const framing = this.options.framing(() => (progressed = true));
		let connected = false;
		try {
			watchdog.alive();
			const opened = await this.options.connect(connection.signal);
			if (opened.kind !== 'open') return { outcome: opened };
			this.connections++;
			body = opened.body;
			if (connection.signal.aborted) body.destroy();
			const gapSince = this.connections > 1 ? this.lastDataAt : undefined;
			connected = true;
			this.resolveFirst({ kind: 'connected' });
			this.options.onConnected?.({ number: this.connections, gapSince });
			watchdog.alive();
			for await (const chunk of body) {
				watchdog.alive();
				this.lastDataAt = clock.now();
				framing.push(chunk);
				if (this.endedBy) break;
			}
			return this.closed('the server closed the stream', connected, progressed);
		} catch (error) {
			const reason = silent
				? `no data for ${Math.round(this.options.heartbeatWindowMs / 1000)} s (heartbeat missed)`
				: (error as Error).message || 'connection failed';
			return this.closed(reason, connected, progressed);
		} finally {
			watchdog.stop();
			this.closing.signal.removeEventListener('abort', onClose);
			body?.destroy();
			this.closeConnection = undefined;
			// What the connection left unfinished: an object read as a fragment's value still comes out.
			if (connected && !this.closing.signal.aborted && !this.endedBy) framing.end();
		}
	}

	private closed(reason: string, connected: boolean, progressed: boolean): Result {
		if (this.endedBy) return { outcome: { kind: 'ended', reason: this.endedBy } };
		return { outcome: { kind: 'failed', reason }, connected, progressed };
	}
}

/** A failed stream answer as an attempt: 401/403 are refusals, a 429 says how long to wait. */
export function failedAnswer(
	response: Extract<StreamResponse, { ok: false }>,
	waitMs?: number,
): Attempt {
	if (response.status === 401 || response.status === 403)
		return { kind: 'refused', status: response.status, message: response.message };
	return { kind: 'failed', reason: response.message, status: response.status, waitMs };
}
