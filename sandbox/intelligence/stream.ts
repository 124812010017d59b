import type { ServerResponse } from 'node:http';

/**
 * Server-Sent Events connections of the intelligence sessions. Each message is
 * `id: <event id>`, optionally `event: <event_type>`, then `data: <one-line JSON>` and a blank
 * line; `: ping` comments keep the connection alive. Faults: drop the socket after N more
 * events, stall (write nothing, not even pings), or write one `data:` line that is not JSON.
 */

export interface SseSettings {
	heartbeatMs: number;
	/** Also write `event: <event_type>` before `data:`. */
	namedEvents: boolean;
	/** The `retry:` advice written when a connection opens; 0 leaves it out. */
	retryMs: number;
}

export interface SseFaults {
	/** Destroy the socket after this many more events. */
	dropAfter?: number;
	/** Write nothing more (no events, no pings) while keeping the connection open. */
	stall?: boolean;
	/** Write one message whose `data:` line is not JSON. */
	malformed?: boolean;
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
}

export const DEFAULT_SSE_SETTINGS: SseSettings = { heartbeatMs: 15_000, namedEvents: false, retryMs: 1000 };

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
			openedAt: new Date().toISOString(),
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
			connection.faults = { ...connection.faults, ...faults, malformed: false };
			if (faults.stall) this.stopHeartbeat(connection);
			else if (faults.stall === false) this.scheduleHeartbeat(connection);
			if (faults.malformed && !connection.faults.stall) this.writeMalformed(connection);
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

	private finish(connection: SseConnection): void {
		if (connection.closed) return;
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
