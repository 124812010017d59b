/**
 * A push parser for Server-Sent Events as the WHATWG HTML standard reads them (CR, LF or CRLF split across
 * chunks; `id` kept across events, NUL ignored; a blank line dispatches and sets the last event ID even
 * without data; an unterminated last event is dropped). A line or event data over `maxEventBytes` is
 * dropped and reported once, so memory stays bounded whatever arrives.
 */

export interface SseEvent {
	/** The event name: `message` unless an `event:` line named it. */
	type: string;
	data: string;
	/** The id of this event's own `id:` line, if any: what tells events apart. */
	id?: string;
	/** The last event ID at dispatch (it persists across events): what a reconnection sends as Last-Event-ID. */
	lastEventId: string;
}

export interface SseParserOptions {
	onEvent(event: SseEvent): void;
	/** The last event ID changed at a dispatch (with data or not): called before that message's `onEvent`. */
	onLastEventId?(id: string): void;
	onRetry?(ms: number): void;
	/** A comment line (heartbeats often are), without its colon. */
	onComment?(text: string): void;
	/** The longest line or event data, in bytes. Default 1 MiB. */
	maxEventBytes?: number;
	onOversize?(bytes: number): void;
}

const LF = 0x0a;
const CR = 0x0d;

export class SseParser {
	// BOMs kept: only the stream's first one is dropped (below), not one at the start of every line.
	private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
	private readonly maxBytes: number;
	/** The unfinished line's pieces (bytes), and their total length. */
	private pending: Uint8Array[] = [];
	private pendingBytes = 0;
	/** The line being dropped for its size runs on until the next line end. */
	private skippingLine = false;
	/** The previous chunk ended with CR: an LF at the start of this one belongs to it. */
	private afterCr = false;
	private firstLine = true;
	private eventType = '';
	private data: string[] = [];
	private dataBytes = 0;
	private dataDropped = false;
	private idBuffer = '';
	/** The last event ID string: the buffer as the last dispatch left it. */
	private dispatchedId = '';
	/** The id line of the event being read, if it had a valid one. */
	private eventId?: string;

	constructor(private readonly options: SseParserOptions) {
		this.maxBytes = options.maxEventBytes ?? 1024 * 1024;
	}

	get lastEventId(): string {
		return this.idBuffer;
	}

	push(chunk: Uint8Array): void {
		let start = 0;
		if (this.afterCr && chunk.length > 0 && chunk[0] === LF) start = 1;
		this.afterCr = false;
		for (let i = start; i < chunk.length; i++) {
			const byte = chunk[i];
			if (byte !== LF && byte !== CR) continue;
			this.take(chunk.subarray(start, i));
			this.endLine();
			if (byte === CR && i + 1 === chunk.length) this.afterCr = true;
			else if (byte === CR && chunk[i + 1] === LF) i++;
			start = i + 1;
		}
		if (start < chunk.length) this.take(chunk.subarray(start));
	}

	/** The stream ended: an unfinished event is discarded, as the standard says. */
	end(): void {
		this.reset();
	}

	/** Forgets everything but the last event id (a new connection). */
	reset(): void {
		this.pending = [];
		this.pendingBytes = 0;
		this.skippingLine = false;
		this.afterCr = false;
		this.firstLine = true;
		this.clearEvent();
	}

	private take(bytes: Uint8Array): void {
		if (bytes.length === 0 || this.skippingLine) return;
		if (this.pendingBytes + bytes.length > this.maxBytes) {
			this.options.onOversize?.(this.pendingBytes + bytes.length);
			this.pending = [];
			this.pendingBytes = 0;
			this.skippingLine = true;
			return;
		}
		// Copied: the chunk's buffer may be reused by the stream once push() returns.
		this.pending.push(bytes.slice());
		this.pendingBytes += bytes.length;
	}

	private endLine(): void {
		if (this.skippingLine) {
			this.skippingLine = false;
			this.firstLine = false;
			return;
		}
		const bytes =
			this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
		this.pending = [];
		this.pendingBytes = 0;
		let line = this.decoder.decode(bytes);
		if (this.firstLine) {
			this.firstLine = false;
			if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
		}
		this.processLine(line);
	}

	private processLine(line: string): void {
		if (line === '') {
			this.dispatch();
			return;
		}
		if (line.charCodeAt(0) === 0x3a) {
			this.options.onComment?.(line.slice(1));
			return;
		}
		const colon = line.indexOf(':');
		const field = colon < 0 ? line : line.slice(0, colon);
		let value = colon < 0 ? '' : line.slice(colon + 1);
		if (value.charCodeAt(0) === 0x20) value = value.slice(1);
		if (field === 'event') this.eventType = value;
		else if (field === 'data') this.appendData(value);
		else if (field === 'id' && !value.includes('\u0000')) {
			this.idBuffer = value;
			this.eventId = value || undefined;
		} else if (field === 'retry' && /^[0-9]+$/.test(value)) this.options.onRetry?.(Number(value));
	}

	private appendData(value: string): void {
		if (this.dataDropped) return;
		this.dataBytes += value.length + 1;
		if (this.dataBytes > this.maxBytes) {
			this.options.onOversize?.(this.dataBytes);
			this.data = [];
			this.dataDropped = true;
			return;
		}
		this.data.push(value);
	}

	private dispatch(): void {
		if (this.idBuffer !== this.dispatchedId) {
			this.dispatchedId = this.idBuffer;
			this.options.onLastEventId?.(this.idBuffer);
		}
		if (this.data.length > 0 && !this.dataDropped) {
			this.options.onEvent({
				type: this.eventType || 'message',
				data: this.data.join('\n'),
				id: this.eventId,
				lastEventId: this.idBuffer,
			});
		}
		this.clearEvent();
	}

	private clearEvent(): void {
		this.eventType = '';
		this.eventId = undefined;
		this.data = [];
		this.dataBytes = 0;
		this.dataDropped = false;
	}
}
