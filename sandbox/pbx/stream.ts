import type { ServerResponse } from 'node:http';

import type { GarbagePattern } from '../core/noise';
import { GARBAGE_CHUNK_BYTES, GARBAGE_PATTERNS, TRUNCATED_CHARACTER, binaryNoise, garbageBlock } from '../core/noise';
import { currentTime } from '../core/clock';

/**
 * The Hosted PBX `/stream`: a standing response that carries JSON event objects. The spec
 * does not fix the framing, so the sandbox can send objects back to back, one per line, or
 * with padding between them, and split what it writes at any byte (inside a multi-byte
 * character too). Faults: drop a connection after N events, stall it, send a malformed object,
 * an unclosed fragment, stray text, binary noise or a character cut short before the next
 * event, stream megabytes of garbage between the events, and restart (drop every connection).
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
	/** Write an object that never closes before the next event (`true`: `{"event":"incomingcall","values":{`). */
	fragment?: boolean | string;
	/** Write text that is no JSON before the next event (`true`: a proxy's error line). */
	strayText?: boolean | string;
	/** Write this many random bytes (NUL and invalid UTF-8 among them) before the next event. */
	binaryNoise?: number;
	/** Write the first two bytes of a three-byte character, then the next event. */
	truncatedChar?: boolean;
	/** Stream `bytes` of garbage in chunks, events interleaved between the chunks as they are published. */
	garbage?: GarbageFault;
}

export interface GarbageFault {
	bytes: number;
	/** Bytes per write (default 64 KiB). */
	chunkBytes?: number;
	/** `binary` (default): random bytes; `text`: stray text; `braces`: objects that never close. */
	pattern?: GarbagePattern;
}

export const DEFAULT_FRAGMENT = '{"event":"incomingcall","values":{';
export const DEFAULT_STRAY_TEXT = 'HTTP/1.1 502 Bad Gateway <html>upstream closed</html>';
const MAX_GARBAGE_BYTES = 2 * 1024 * 1024 * 1024;

/** Checks stream faults as the admin API receives them. */
export function streamFaultProblems(faults: Record<string, unknown>): string[] {
	const problems: string[] = [];
	const known = ['dropAfter', 'stall', 'malformed', 'fragment', 'strayText', 'binaryNoise', 'truncatedChar', 'garbage'];
	for (const key of Object.keys(faults)) if (!known.includes(key)) problems.push(`unknown fault ${key}; use ${known.join(', ')}`);
	if (faults.dropAfter !== undefined && !(Number.isInteger(faults.dropAfter) && (faults.dropAfter as number) >= 1)) problems.push('dropAfter must be a whole number of 1 or more');
	for (const key of ['stall', 'malformed', 'truncatedChar']) if (faults[key] !== undefined && typeof faults[key] !== 'boolean') problems.push(`${key} must be true or false`);
	for (const key of ['fragment', 'strayText']) if (faults[key] !== undefined && typeof faults[key] !== 'boolean' && typeof faults[key] !== 'string') problems.push(`${key} must be true or a text`);
	if (faults.binaryNoise !== undefined && !(Number.isInteger(faults.binaryNoise) && (faults.binaryNoise as number) >= 1 && (faults.binaryNoise as number) <= 16 * 1024 * 1024)) {
		problems.push('binaryNoise must be a number of bytes from 1 to 16777216');
	}
	if (faults.garbage !== undefined) {
		const garbage = faults.garbage as Record<string, unknown>;
		if (typeof garbage !== 'object' || garbage === null) problems.push('garbage must be {bytes, chunkBytes?, pattern?}');
		else {
			if (!(Number.isInteger(garbage.bytes) && (garbage.bytes as number) >= 1 && (garbage.bytes as number) <= MAX_GARBAGE_BYTES)) problems.push('garbage.bytes must be a number of bytes from 1 to 2 GiB');
			if (garbage.chunkBytes !== undefined && !(Number.isInteger(garbage.chunkBytes) && (garbage.chunkBytes as number) >= 1 && (garbage.chunkBytes as number) <= 1024 * 1024)) problems.push('garbage.chunkBytes must be from 1 to 1048576');
			if (garbage.pattern !== undefined && !(GARBAGE_PATTERNS as readonly string[]).includes(String(garbage.pattern))) problems.push(`garbage.pattern must be one of ${GARBAGE_PATTERNS.join(', ')}`);
		}
	}
	return problems;
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
	heartbeatsSent: number;
	faults: StreamFaults;
	heartbeat?: NodeJS.Timeout;
	queue: Promise<void>;
	/** Settles once the latest write has left for the socket (its write callback ran). */
	flushed: Promise<void>;
	closed: boolean;
	/** Garbage bytes still to stream. */
	garbageLeft: number;
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
	/** New connections are refused until then (a restart); 0 when up. */
	private downUntil = 0;
	private refusedWhileDown = 0;

	/** Drops every connection and refuses new ones for `downMs`, as a platform restart does. */
	restart(downMs: number): { dropped: number; downUntil: string } {
		const dropped = this.connections.size;
		for (const connection of [...this.connections]) {
			connection.res.socket?.destroy();
			this.close(connection);
		}
		this.downUntil = currentTime() + downMs;
		this.refusedWhileDown = 0;
		return { dropped, downUntil: new Date(this.downUntil).toISOString() };
	}

	/** Milliseconds until the stream is back after a restart (0 when it is up); counts the refusal. */
	refuseWhileDown(): number {
		const left = this.downUntil - currentTime();
		if (left <= 0) return 0;
		this.refusedWhileDown += 1;
		return left;
	}

	restartState(): { down: boolean; downUntil: string | null; refused: number } {
		const down = this.downUntil > currentTime();
		return { down, downUntil: this.downUntil ? new Date(this.downUntil).toISOString() : null, refused: this.refusedWhileDown };
	}

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
			openedAt: new Date(currentTime()).toISOString(),
			eventsSent: 0,
			heartbeatsSent: 0,
			faults: this.pendingFaults,
			queue: Promise.resolve(),
			flushed: Promise.resolve(),
			closed: false,
			garbageLeft: 0,
		};
		this.pendingFaults = {};
		this.connections.add(connection);
		this.scheduleHeartbeat(connection);
		if (connection.faults.garbage) this.startGarbage(connection, connection.faults.garbage);
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
			for (const noise of this.takeNoise(connection.faults)) this.writeRaw(connection, noise);
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
		const { garbage, ...rest } = faults;
		if (this.connections.size === 0) {
			this.pendingFaults = { ...this.pendingFaults, ...faults };
			return 0;
		}
		for (const connection of this.connections) {
			connection.faults = { ...connection.faults, ...rest };
			if (faults.stall) this.stopHeartbeat(connection);
			if (garbage) this.startGarbage(connection, garbage);
		}
		return this.connections.size;
	}

	list(): Array<{ id: number; username: string; openedAt: string; eventsSent: number; heartbeats: number; stalled: boolean; garbageLeft: number }> {
		return [...this.connections].map((c) => ({
			id: c.id,
			username: c.username,
			openedAt: c.openedAt,
			eventsSent: c.eventsSent,
			heartbeats: c.heartbeatsSent,
			stalled: Boolean(c.faults.stall),
			garbageLeft: c.garbageLeft,
		}));
	}

	/** The one-shot noise a connection writes before its next event, in a fixed order, used up. */
	private takeNoise(faults: StreamFaults): Buffer[] {
		const out: Buffer[] = [];
		if (faults.fragment) out.push(Buffer.from(faults.fragment === true ? DEFAULT_FRAGMENT : faults.fragment));
		if (faults.strayText) out.push(Buffer.from(faults.strayText === true ? DEFAULT_STRAY_TEXT : faults.strayText));
		if (faults.binaryNoise) out.push(binaryNoise(faults.binaryNoise));
		if (faults.truncatedChar) out.push(TRUNCATED_CHARACTER);
		delete faults.fragment;
		delete faults.strayText;
		delete faults.binaryNoise;
		delete faults.truncatedChar;
		return out;
	}

	/**
	 * Streams garbage one chunk per turn of the write queue, so events published meanwhile go out
	 * between chunks. One block is made per fault and reused; each chunk waits for the socket to
	 * take the previous one, so memory stays at one block however many bytes are sent.
	 */
	private startGarbage(connection: Connection, garbage: GarbageFault): void {
		const block = garbageBlock(garbage.pattern ?? 'binary', Math.min(garbage.chunkBytes ?? GARBAGE_CHUNK_BYTES, garbage.bytes));
		const alreadyPumping = connection.garbageLeft > 0;
		connection.garbageLeft += garbage.bytes;
		if (alreadyPumping) return;
		const pump = () => {
			if (connection.closed || connection.garbageLeft <= 0) {
				connection.garbageLeft = 0;
				return;
			}
			connection.queue = connection.queue.then(async () => {
				if (connection.closed) return;
				const size = Math.min(block.length, connection.garbageLeft);
				connection.garbageLeft -= size;
				await this.sendWithBackPressure(connection, size === block.length ? block : block.subarray(0, size));
				setImmediate(pump);
			});
		};
		pump();
	}

	/** Ends every open stream (reset and shutdown). */
	closeAll(): void {
		for (const connection of [...this.connections]) {
			connection.res.socket?.destroy();
			this.close(connection);
		}
		this.pendingFaults = {};
		this.downUntil = 0;
		this.refusedWhileDown = 0;
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
			connection.heartbeatsSent++;
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

	/** Bytes written as they are, in one write, after what is queued. */
	private writeRaw(connection: Connection, bytes: Buffer): void {
		connection.queue = connection.queue.then(() => {
			if (!connection.closed) connection.flushed = this.send(connection, bytes);
		});
	}

	private send(connection: Connection, bytes: Buffer): Promise<void> {
		return new Promise((resolve) => {
			connection.res.write(bytes, () => resolve());
		});
	}

	/** Writes a chunk and waits until the socket takes more (or the connection has gone). */
	private async sendWithBackPressure(connection: Connection, bytes: Buffer): Promise<void> {
		if (connection.closed || connection.res.write(bytes)) return;
		await new Promise<void>((resolve) => {
			const done = () => {
				connection.res.off('drain', done);
				connection.res.off('close', done);
				resolve();
			};
			connection.res.on('drain', done);
			connection.res.on('close', done);
		});
	}
}
