import type { ServerResponse } from 'node:http';

import type { GarbagePattern } from '../core/noise';
import { GARBAGE_CHUNK_BYTES, GARBAGE_PATTERNS, garbageBlock } from '../core/noise';
import { currentTime } from '../core/clock';

/**
 * Server-Sent Events connections of the intelligence sessions. Each message is
 * `id: <event id>`, optionally `event: <event_type>`, then `data: <one-line JSON>` and a blank
 * line; `: ping` comments keep the connection alive. Faults: drop the socket after N more
 * events, stall (write nothing, not even pings), write one `data:` line that is not JSON, or
 * write garbage (binary noise or stray text, up to megabytes in one line) between the frames.
 */

/** What a connection to a session that has ended gets (the forms a client must read as "ended"). */
export const ENDED_STREAM_ANSWERS = ['replay', 'no_content', 'gone'] as const;
export type EndedStreamAnswer = (typeof ENDED_STREAM_ANSWERS)[number];
export const ENDED_TOKEN_ANSWERS = ['issue', 'gone'] as const;
export type EndedTokenAnswer = (typeof ENDED_TOKEN_ANSWERS)[number];

export interface SseSettings {
	heartbeatMs: number;
	/** Also write `event: <event_type>` before `data:`. */
	namedEvents: boolean;
	/** The `retry:` advice written when a connection opens; 0 leaves it out. */
	retryMs: number;
	/**
	 * A connection to an ended session: `replay` (what follows Last-Event-ID, ending with
	 * `session_ended`, then the end of the response), `no_content` (204 when it resumes with a
	 * Last-Event-ID), or `gone` (410 `{"error":"session has ended"}`).
	 */
	endedStream: EndedStreamAnswer;
	/** The stream-token endpoint for an ended session: `issue` a token, or `gone` (410). */
	endedToken: EndedTokenAnswer;
}

export interface SseGarbage {
	/** Bytes of garbage (default 64). */
	bytes?: number;
	/** `binary` (default): random bytes without line breaks, one bogus line; `text`: stray lines of text; `braces`: an unclosed object. */
	pattern?: GarbagePattern;
}

export interface SseFaults {
	/** Destroy the socket after this many more events. */
	dropAfter?: number;
	/** Write nothing more (no events, no pings) while keeping the connection open. */
	stall?: boolean;
	/** Write one message whose `data:` line is not JSON. */
	malformed?: boolean;
	/** Write garbage between frames, ended by a blank line, so that no event is dispatched from it. */
	garbage?: SseGarbage;
}

const MAX_SSE_GARBAGE = 512 * 1024 * 1024;

/** Checks session stream faults as the admin API receives them. */
export function sseFaultProblems(faults: Record<string, unknown>): string[] {
	const problems: string[] = [];
	for (const key of Object.keys(faults)) {
		if (!['dropAfter', 'stall', 'malformed', 'garbage'].includes(key)) problems.push(`${key}: unknown fault; use dropAfter, stall, malformed or garbage`);
	}
	if (faults.dropAfter !== undefined && !Number.isInteger(faults.dropAfter)) problems.push('dropAfter: must be an integer');
	for (const key of ['stall', 'malformed']) if (faults[key] !== undefined && typeof faults[key] !== 'boolean') problems.push(`${key}: must be true or false`);
	if (faults.garbage !== undefined) {
		const garbage = faults.garbage as Record<string, unknown>;
		if (typeof garbage !== 'object' || garbage === null || Array.isArray(garbage)) problems.push('garbage: must be {bytes?, pattern?}');
		else {
			if (garbage.bytes !== undefined && !(Number.isInteger(garbage.bytes) && (garbage.bytes as number) >= 1 && (garbage.bytes as number) <= MAX_SSE_GARBAGE)) problems.push('garbage.bytes: must be from 1 to 536870912');
			if (garbage.pattern !== undefined && !(GARBAGE_PATTERNS as readonly string[]).includes(String(garbage.pattern))) problems.push(`garbage.pattern: must be one of ${GARBAGE_PATTERNS.join(', ')}`);
		}
	}
	return problems;
}

export interface StoredEvent {
	id: string;
	type: string;
	/** The event as one line of JSON. */
	json: string;
}

export interface SseConnection {
	id: number;
	sessionId: string;
	res: ServerResponse;
	openedAt: string;
	/** The Last-Event-ID the client sent, if any. */
	resumedFrom: string | null;
	eventsSent: number;
	lastEventId: string | null;
	faults: SseFaults;
	heartbeat?: NodeJS.Timeout;
	closed: boolean;
	/** Writes of this tick are being gathered into one. */
	corked?: boolean;
	/** Events held back while garbage is being streamed (undefined when none is). */
	held?: StoredEvent[];
	/** The response ends once the garbage has gone. */
	endAfterGarbage?: boolean;
}

export const DEFAULT_SSE_SETTINGS: SseSettings = { heartbeatMs: 15_000, namedEvents: false, retryMs: 1000, endedStream: 'replay', endedToken: 'issue' };

const MALFORMED = 'data: {"event_type":"operator_result","result":{"value":\n\n';

export class SseHub {
	settings: SseSettings = { ...DEFAULT_SSE_SETTINGS };
	private connections = new Set<SseConnection>();
	/** Faults for the next connection of a session, when it has none open. */
	private pending = new Map<string, SseFaults>();
	private nextId = 1;

	/** Opens the stream, replays `backlog`, and keeps it open unless `finished` (then ends it). */
	open(res: ServerResponse, sessionId: string, resumedFrom: string | null, backlog: StoredEvent[], finished: boolean): SseConnection {
		res.writeHead(200, {
			'Content-Type': 'text/event-stream',
			'Cache-Control': 'no-cache',
			Connection: 'keep-alive',
			'X-Accel-Buffering': 'no',
			'Access-Control-Allow-Origin': '*',
		});
		res.socket?.setNoDelay(true);
		res.flushHeaders();
		const connection: SseConnection = {
			id: this.nextId++,
			sessionId,
			res,
			openedAt: new Date(currentTime()).toISOString(),
			resumedFrom,
			eventsSent: 0,
			lastEventId: null,
			faults: this.pending.get(sessionId) ?? {},
			closed: false,
		};
		this.pending.delete(sessionId);
		this.connections.add(connection);
		const close = () => this.forget(connection);
		res.on('close', close);
		res.on('error', close);
		if (this.settings.retryMs > 0 && !connection.faults.stall) res.write(`retry: ${this.settings.retryMs}\n\n`);
		for (const event of backlog) this.send(connection, event);
		if (connection.faults.malformed && !connection.closed) this.writeMalformed(connection);
		if (connection.faults.garbage && !connection.closed) this.writeGarbage(connection);
		if (finished) {
			this.finish(connection);
		} else if (!connection.closed) {
			this.scheduleHeartbeat(connection);
		}
		return connection;
	}

	/** Sends an event to every open connection of its session. */
	publish(sessionId: string, event: StoredEvent): number {
		let sent = 0;
		for (const connection of this.connections) {
			if (connection.sessionId !== sessionId) continue;
			if (this.send(connection, event)) sent += 1;
		}
		return sent;
	}

	/** Ends the responses of a session that ended (stalled ones stay hung, as a stalled server would). */
	endSession(sessionId: string): void {
		for (const connection of [...this.connections]) {
			if (connection.sessionId === sessionId && !connection.faults.stall) this.finish(connection);
		}
	}

	applyFaults(sessionId: string, faults: SseFaults): { applied: number; pending: boolean } {
		const open = [...this.connections].filter((c) => c.sessionId === sessionId);
		if (open.length === 0) {
			this.pending.set(sessionId, { ...(this.pending.get(sessionId) ?? {}), ...faults });
			return { applied: 0, pending: true };
		}
		for (const connection of open) {
			if (faults.dropAfter !== undefined && faults.dropAfter <= 0) {
				connection.res.socket?.destroy();
				this.forget(connection);
				continue;
			}
			connection.faults = { ...connection.faults, ...faults, malformed: false, garbage: undefined };
			if (faults.stall) this.stopHeartbeat(connection);
			else if (faults.stall === false) this.scheduleHeartbeat(connection);
			if (faults.malformed && !connection.faults.stall) this.writeMalformed(connection);
			if (faults.garbage && !connection.faults.stall) {
				connection.faults.garbage = faults.garbage;
				this.writeGarbage(connection);
			}
		}
		return { applied: open.length, pending: false };
	}

	list(): Array<Record<string, unknown>> {
		return [...this.connections].map((c) => ({
			id: c.id,
			sessionId: c.sessionId,
			openedAt: c.openedAt,
			resumedFrom: c.resumedFrom,
			eventsSent: c.eventsSent,
			lastEventId: c.lastEventId,
			stalled: Boolean(c.faults.stall),
			dropAfter: c.faults.dropAfter ?? null,
		}));
	}

	count(sessionId?: string): number {
		return [...this.connections].filter((c) => sessionId === undefined || c.sessionId === sessionId).length;
	}

	rescheduleHeartbeats(): void {
		for (const connection of this.connections) if (!connection.faults.stall) this.scheduleHeartbeat(connection);
	}

	/** Destroys every connection (reset and shutdown). */
	closeAll(): void {
		for (const connection of [...this.connections]) {
			connection.res.socket?.destroy();
			this.forget(connection);
		}
		this.pending.clear();
	}

	frame(event: StoredEvent): string {
		return `id: ${event.id}\n${this.settings.namedEvents ? `event: ${event.type}\n` : ''}data: ${event.json}\n\n`;
	}

	private send(connection: SseConnection, event: StoredEvent): boolean {
		if (connection.closed || connection.faults.stall) return false;
		if (connection.held) {
			// Written in order once the garbage has gone.
			connection.held.push(event);
			return true;
		}
		return this.writeEvent(connection, event);
	}

	private writeEvent(connection: SseConnection, event: StoredEvent): boolean {
		if (connection.closed) return false;
		const frame = this.frame(event);
		connection.eventsSent += 1;
		connection.lastEventId = event.id;
		const drop = connection.faults.dropAfter;
		if (drop !== undefined && drop <= 1) {
			// Destroy only once the last event has left, so exactly N events get through.
			const socket = connection.res.socket;
			this.forget(connection);
			connection.res.write(frame, () => socket?.destroy());
			return true;
		}
		if (drop !== undefined) connection.faults.dropAfter = drop - 1;
		this.corkUntilNextTick(connection);
		connection.res.write(frame);
		return true;
	}

	/** Events written in one tick leave in one write, as a busy server would send them. */
	private corkUntilNextTick(connection: SseConnection): void {
		if (connection.corked) return;
		connection.corked = true;
		connection.res.cork();
		process.nextTick(() => {
			connection.corked = false;
			connection.res.uncork();
		});
	}

	private writeMalformed(connection: SseConnection): void {
		connection.faults.malformed = false;
		connection.res.write(MALFORMED);
	}

	/**
	 * Garbage, then a blank line. Small amounts go out in one write; large ones in reused 64 KiB
	 * blocks with back-pressure (one block of memory whatever the size), events held back until it
	 * has gone so that no frame is cut in two.
	 */
	private writeGarbage(connection: SseConnection): void {
		const garbage = connection.faults.garbage ?? {};
		connection.faults.garbage = undefined;
		const total = garbage.bytes ?? 64;
		const pattern = garbage.pattern ?? 'binary';
		const block = garbageBlock(pattern, Math.min(total, GARBAGE_CHUNK_BYTES), true);
		if (pattern === 'text') for (let i = 79; i < block.length; i += 80) block[i] = 0x0a;
		if (total <= block.length) {
			connection.res.write(Buffer.concat([block.subarray(0, total), Buffer.from('\n\n')]));
			return;
		}
		const res = connection.res;
		connection.held = [];
		void (async () => {
			let left = total;
			while (left > 0 && !connection.closed) {
				const size = Math.min(left, block.length);
				left -= size;
				if (!res.write(size === block.length ? block : block.subarray(0, size))) {
					await new Promise<void>((resolve) => {
						const done = () => {
							res.off('drain', done);
							res.off('close', done);
							resolve();
						};
						res.on('drain', done);
						res.on('close', done);
					});
				}
			}
			const held = connection.held ?? [];
			connection.held = undefined;
			if (connection.closed) return;
			res.write('\n\n');
			for (const event of held) this.writeEvent(connection, event);
			if (connection.endAfterGarbage) this.finish(connection);
		})();
	}

	private finish(connection: SseConnection): void {
		if (connection.closed) return;
		if (connection.held) {
			connection.endAfterGarbage = true;
			return;
		}
		this.forget(connection);
		connection.res.end();
	}

	private forget(connection: SseConnection): void {
		if (connection.closed) return;
		connection.closed = true;
		this.stopHeartbeat(connection);
		this.connections.delete(connection);
	}

	private stopHeartbeat(connection: SseConnection): void {
		if (connection.heartbeat) clearInterval(connection.heartbeat);
		connection.heartbeat = undefined;
	}

	private scheduleHeartbeat(connection: SseConnection): void {
		this.stopHeartbeat(connection);
		if (connection.closed || this.settings.heartbeatMs <= 0) return;
		connection.heartbeat = setInterval(() => {
			if (!connection.closed && !connection.faults.stall) connection.res.write(': ping\n\n');
		}, this.settings.heartbeatMs);
		connection.heartbeat.unref();
	}
}
