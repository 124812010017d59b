import type { ServerResponse } from 'node:http';

/**
 * The Hosted PBX `/stream`: a standing response that carries JSON event objects. The spec
 * does not fix the framing, so the sandbox can send objects back to back, one per line, or
 * with padding between them, and split what it writes at any byte (inside a multi-byte
 * character too). Faults: drop a connection after N events, stall it, send a malformed object.
 */

export type Framing = 'newline' | 'concatenated' | 'padded';
export type Chunking = 'whole' | 'random' | 'bytewise';

export interface StreamSettings {
	framing: Framing;
	chunking: Chunking;
	heartbeatMs: number;
	/** `object` sends `{"event":"heartbeat",...}`; `whitespace` sends a bare line break. */
	heartbeat: 'object' | 'whitespace';
	/** Pause between the chunks of one split write, so they reach the client as separate reads. */
	chunkDelayMs: number;
}

export interface StreamFaults {
	/** Destroy the connection abruptly after this many more events. */
	dropAfter?: number;
	/** Stop writing anything (no events, no heartbeats) while keeping the connection open. */
	stall?: boolean;
	/** Write one balanced but invalid JSON object before the next event. */
	malformed?: boolean;
}

export interface PbxEvent {
	event: string;
	location: null;
	values: Record<string, unknown>;
}

interface Connection {
	id: number;
	username: string;
	canSee: (customerId: string, endpointId?: string) => boolean;
	res: ServerResponse;
	openedAt: string;
	eventsSent: number;
	faults: StreamFaults;
	heartbeat?: NodeJS.Timeout;
	queue: Promise<void>;
	/** Settles once the latest write has left for the socket (its write callback ran). */
	flushed: Promise<void>;
	closed: boolean;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
	framing: 'newline',
	chunking: 'whole',
	heartbeatMs: 60_000,
	heartbeat: 'object',
	chunkDelayMs: 2,
};

const PADDINGS = ['\n', '\r\n', '  ', '\n\n', '\t', ' \r\n '];

function splitPoints(length: number, chunking: Chunking): number[] {
	if (chunking === 'whole' || length <= 1) return [length];
	if (chunking === 'bytewise') return Array.from({ length }, (_v, i) => i + 1);
	const points = new Set<number>([length]);
	const cuts = 1 + Math.floor(Math.random() * 4);
	for (let i = 0; i < cuts; i++) points.add(1 + Math.floor(Math.random() * (length - 1)));
	return [...points].sort((a, b) => a - b);
}

export class PbxStream {
	settings: StreamSettings = { ...DEFAULT_STREAM_SETTINGS };
	/** Faults waiting for the next connection to open, when none is open. */
	private pendingFaults: StreamFaults = {};
	private connections = new Set<Connection>();
	private nextId = 1;

	open(
		res: ServerResponse,
		username: string,
		canSee: (customerId: string, endpointId?: string) => boolean,
	): void {
		res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
		res.socket?.setNoDelay(true);
		res.flushHeaders();
		const connection: Connection = {
			id: this.nextId++,
			username,
			canSee,
			res,
			openedAt: new Date().toISOString(),
			eventsSent: 0,
			faults: this.pendingFaults,
			queue: Promise.resolve(),
			flushed: Promise.resolve(),
			closed: false,
		};
		this.pendingFaults = {};
		this.connections.add(connection);
		this.scheduleHeartbeat(connection);
		const close = () => this.close(connection);
		res.on('close', close);
		res.on('error', close);
	}

	publish(customerId: string, event: PbxEvent, endpointId?: string): number {
		let delivered = 0;
		for (const connection of this.connections) {
			if (!connection.canSee(customerId, endpointId) || connection.faults.stall) continue;
			if (connection.faults.malformed) {
				connection.faults.malformed = false;
				this.write(connection, '{"event":"incomingcall","values":{"callerIdNumber":,}}');
			}
			this.write(connection, JSON.stringify(event));
			connection.eventsSent += 1;
			delivered += 1;
			if (connection.faults.dropAfter !== undefined && --connection.faults.dropAfter <= 0) {
				// Writes are corked until the next tick: destroying at once would lose the last events.
				connection.queue = connection.queue.then(async () => {
					await connection.flushed;
					connection.res.socket?.destroy();
				});
			}
		}
		return delivered;
	}

	applyFaults(faults: StreamFaults): number {
		if (this.connections.size === 0) {
			this.pendingFaults = { ...faults };
			return 0;
		}
		for (const connection of this.connections) {
			connection.faults = { ...connection.faults, ...faults };
			if (faults.stall) this.stopHeartbeat(connection);
		}
		return this.connections.size;
	}

	list(): Array<{ id: number; username: string; openedAt: string; eventsSent: number; stalled: boolean }> {
		return [...this.connections].map((c) => ({
			id: c.id,
			username: c.username,
			openedAt: c.openedAt,
			eventsSent: c.eventsSent,
			stalled: Boolean(c.faults.stall),
		}));
	}

	/** Ends every open stream (reset and shutdown). */
	closeAll(): void {
		for (const connection of [...this.connections]) {
			connection.res.socket?.destroy();
			this.close(connection);
		}
		this.pendingFaults = {};
	}

	private close(connection: Connection): void {
		if (connection.closed) return;
		connection.closed = true;
		this.stopHeartbeat(connection);
		this.connections.delete(connection);
	}

	private stopHeartbeat(connection: Connection): void {
		if (connection.heartbeat) clearInterval(connection.heartbeat);
		connection.heartbeat = undefined;
	}

	private scheduleHeartbeat(connection: Connection): void {
		this.stopHeartbeat(connection);
		if (this.settings.heartbeatMs <= 0) return;
		connection.heartbeat = setInterval(() => {
			if (connection.faults.stall) return;
			this.write(
				connection,
				this.settings.heartbeat === 'object' ? '{"event":"heartbeat","location":null,"values":{}}' : '',
			);
		}, this.settings.heartbeatMs);
		connection.heartbeat.unref();
	}

	/** Restarts heartbeats on open connections after the interval changed. */
	rescheduleHeartbeats(): void {
		for (const connection of this.connections) if (!connection.faults.stall) this.scheduleHeartbeat(connection);
	}

	private frame(json: string): string {
		switch (this.settings.framing) {
			case 'concatenated':
				return json;
			case 'padded':
				return `${PADDINGS[Math.floor(Math.random() * PADDINGS.length)]}${json}${PADDINGS[Math.floor(Math.random() * PADDINGS.length)]}`;
			default:
				return `${json}\n`;
		}
	}

	private write(connection: Connection, json: string): void {
		const bytes = Buffer.from(json === '' ? '\n' : this.frame(json));
		const points = splitPoints(bytes.length, this.settings.chunking);
		const { chunkDelayMs } = this.settings;
		if (points.length === 1) {
			connection.queue = connection.queue.then(() => {
				if (!connection.closed) connection.flushed = this.send(connection, bytes);
			});
			return;
		}
		connection.queue = connection.queue.then(async () => {
			let start = 0;
			for (const end of points) {
				if (connection.closed) return;
				connection.flushed = this.send(connection, bytes.subarray(start, end));
				start = end;
				await new Promise((resolve) => setTimeout(resolve, chunkDelayMs));
			}
		});
	}

	private send(connection: Connection, bytes: Buffer): Promise<void> {
		return new Promise((resolve) => {
			connection.res.write(bytes, () => resolve());
		});
	}
}
