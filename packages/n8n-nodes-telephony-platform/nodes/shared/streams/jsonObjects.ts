/**
 * Splits a byte stream of JSON objects in any framing, cut at any byte (structural characters are ASCII,
 * so bytes are scanned, not text); each object is parsed as soon as it closes. Hostile bytes cost only themselves:
 * - A fragment is given up at the first byte JSON's grammar refuses; scanning resumes at the first object
 *   nested in it that starts a line, else the first nested one (the next event may be its value), else there.
 * - One report per incident, with a short clean excerpt.
 * - Bounded memory (`maxObjectBytes`, 1 MiB; `maxDepth`, 512) and linear time (a byte is scanned at most twice).
 */

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COLON = 0x3a;
const COMMA = 0x2c;
const SPACE = 0x20;
const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;

const EXCERPT_BYTES = 200; // of an incident, kept for its report

/** What the grammar expects next inside an object. */
const KEY_OR_CLOSE = 0;
const KEY = 1;
const COLON_NEXT = 2;
const VALUE = 3;
const VALUE_OR_CLOSE = 4;
const AFTER_VALUE = 5;
const IN_KEY = 6;
const IN_STRING = 7;
const IN_LITERAL = 8;

export interface JsonObjectSplitterOptions {
	onObject: (value: Record<string, unknown>) => void;
	/** Bytes that were skipped, once per incident: a short excerpt and why. */
	onMalformed?: (excerpt: string, reason: string) => void;
	/** Larger objects are given up: a fragment that never closes cannot stall the stream or fill memory. */
	maxObjectBytes?: number;
	maxDepth?: number;
}

/** Only spaces since the last line break before `at`. */
function startsLine(bytes: Buffer, at: number): boolean {
	let before = at - 1;
	while (
		before >= 0 &&
		(bytes[before] === SPACE || bytes[before] === TAB || bytes[before] === RETURN)
	)
		before--;
	return before >= 0 && bytes[before] === NEWLINE;
}
const isWhitespace = (code: number) =>
	code === SPACE || code === NEWLINE || code === RETURN || code === TAB;
/** Number, true, false, null: their characters; JSON.parse checks the spelling. */
const isLiteral = (code: number) =>
	(code >= 0x30 && code <= 0x39) ||
	(code >= 0x61 && code <= 0x7a) ||
	code === 0x2d ||
	code === 0x2b ||
	code === 0x2e ||
	code === 0x45;

export class JsonObjectSplitter {
	/** Grows by doubling, so appending stays linear; between chunks it holds only the object in progress. */
	private store = Buffer.alloc(0);
	private bytes = this.store; // the bytes in the store: the object in progress, then the chunk
	private start = -1; // of the object being read; -1 between objects
	private state = KEY_OR_CLOSE;
	private escaped = false;
	private readonly closers: Uint8Array; // of the open containers, `}` or `]`
	private depth = 0;
	/** Where a failed object is retried: its first nested object, and the first that starts a line (preferred); < 0 if none. */
	private nested = -1;
	private nestedOnNewLine = -1;
	private retriedUpTo = 0; // nested objects before it are not retried: their bytes were scanned twice already
	/** The incident in progress (bytes skipped since the last object): why, its first bytes, and whether it was reported. */
	private incident:
		| { reason: string; excerpt: Buffer; length: number; reported: boolean }
		| undefined;
	private readonly maxObjectBytes: number;

	constructor(private readonly options: JsonObjectSplitterOptions) {
		this.maxObjectBytes = options.maxObjectBytes ?? 1024 * 1024;
		this.closers = new Uint8Array(options.maxDepth ?? 512);
	}

	push(chunk: Uint8Array): void {
		const pending = this.bytes.length;
		const size = pending + chunk.length;
		if (this.store.length < size) {
			const larger = Buffer.allocUnsafe(Math.max(size, 2 * this.store.length, 4096));
			this.store.copy(larger, 0, 0, pending);
			this.store = larger;
		}
		this.store.set(chunk, pending);
		this.bytes = this.store.subarray(0, size);
		this.scan(pending);
	}

	/** The stream ended: an unfinished object fails, so an event read as a fragment's value still comes out. */
	end(): void {
		while (this.start >= 0)
			this.scan(this.fail(this.bytes, this.bytes.length, 'the stream ended inside an object'));
		this.report();
		this.reset();
	}

	/** Memory the splitter holds between chunks. */
	get retainedBytes(): number {
		return this.store.length;
	}

	/** Text received but not yet part of a complete object. */
	get pending(): string {
		return this.bytes.toString('utf8').trim();
	}

	reset(): void {
		this.bytes = this.store.subarray(0, 0);
		this.start = -1;
		this.retriedUpTo = 0;
		this.incident = undefined;
	}

	/** Scans the bytes from `from`, then keeps only the object in progress, moved to the start of the store. */
	private scan(from: number): void {
		const bytes = this.bytes;
		let i = from;
		while (i < bytes.length) i = this.start < 0 ? this.between(bytes, i) : this.inside(bytes, i);
		const keepFrom = this.start >= 0 ? this.start : bytes.length;
		const kept = bytes.length - keepFrom;
		this.store.copyWithin(0, keepFrom, bytes.length);
		// A huge chunk grew the store: give the memory back once the object in progress is small.
		if (this.store.length > 4 * this.maxObjectBytes && kept <= this.maxObjectBytes)
			this.store = Buffer.from(this.store.subarray(0, kept));
		this.bytes = this.store.subarray(0, kept);
		if (this.start >= 0) this.start = 0;
		this.nested -= keepFrom;
		this.nestedOnNewLine -= keepFrom;
		this.retriedUpTo = Math.max(0, this.retriedUpTo - keepFrom);
	}

	/** Between objects: padding is skipped quietly; anything else up to the next `{` is an incident. */
	private between(bytes: Buffer, i: number): number {
		const code = bytes[i];
		if (code === OPEN) return this.begin(i);
		// Control characters and spaces are padding; so is a byte order mark.
		if (code <= SPACE) return i + 1;
		if (code === 0xef && bytes[i + 1] === 0xbb && bytes[i + 2] === 0xbf) return i + 3;
		let next = bytes.indexOf(OPEN, i);
		if (next < 0) next = bytes.length;
		this.skip(bytes, i, next, 'text outside a JSON object');
		return next;
	}

	/** An object starts at `at`; returns where scanning goes on. */
	private begin(at: number): number {
		this.start = at;
		this.state = KEY_OR_CLOSE;
		this.closers[0] = CLOSE;
		this.depth = 1;
		this.escaped = false;
		this.nested = this.nestedOnNewLine = -1;
		return at + 1;
	}

	/** Follows the object through JSON's grammar until it ends, fails, or the bytes run out. */
	private inside(bytes: Buffer, from: number): number {
		const start = this.start;
		const limit = Math.min(bytes.length, start + this.maxObjectBytes);
		let i = from;
		while (i < limit) {
			const state = this.state;
			if (state === IN_STRING || state === IN_KEY) i = this.string(bytes, i, limit);
			else if (state === IN_LITERAL && isLiteral(bytes[i])) i++;
			else i = this.token(bytes, i);
			// Emitted, given up, or retried from a nested object.
			if (this.start !== start) return i;
		}
		if (i >= start + this.maxObjectBytes)
			return this.fail(
				bytes,
				i,
				`the object is larger than ${this.maxObjectBytes} bytes or never closes`,
			);
		return i;
	}

	/** A string's bytes up to and including its closing quote (or up to `limit`). */
	private string(bytes: Buffer, from: number, limit: number): number {
		let i = from;
		let escaped = this.escaped;
		// Plain characters first, in a tight loop (it scans them about twice as fast as the loop below).
		if (!escaped) while (i < limit && bytes[i] > QUOTE && bytes[i] !== BACKSLASH) i++;
		for (; i < limit; i++) {
			const code = bytes[i];
			if (escaped && code >= SPACE) escaped = false;
			else if (code === QUOTE) {
				this.state = this.state === IN_KEY ? COLON_NEXT : AFTER_VALUE;
				this.escaped = false;
				return i + 1;
			} else if (code === BACKSLASH) escaped = true;
			else if (code < SPACE)
				return this.fail(
					bytes,
					i,
					code === NEWLINE ? 'a line break inside a string' : 'a control character inside a string',
				);
		}
		this.escaped = escaped;
		return i;
	}

	/** Whitespace, a structural byte, or the first byte of a value, at `i`. */
	private token(bytes: Buffer, i: number): number {
		const code = bytes[i];
		if (this.state === IN_LITERAL) this.state = AFTER_VALUE; // any other byte ends a literal
		if (isWhitespace(code)) return i + 1;
		const state = this.state;
		if (state === KEY_OR_CLOSE || state === KEY) {
			if (code === CLOSE && state === KEY_OR_CLOSE) return this.close(bytes, i);
			if (code !== QUOTE) return this.fail(bytes, i, 'a key was expected');
			this.state = IN_KEY;
		} else if (state === COLON_NEXT) {
			if (code !== COLON) return this.fail(bytes, i, 'a colon was expected');
			this.state = VALUE;
		} else if (state === AFTER_VALUE) {
			const closer = this.closers[this.depth - 1];
			if (code === closer) return this.close(bytes, i);
			if (code !== COMMA)
				return this.fail(bytes, i, `',' or '${String.fromCharCode(closer)}' was expected`);
			this.state = closer === CLOSE ? KEY : VALUE;
		} else if (code === OPEN || code === OPEN_ARRAY) {
			if (this.depth >= this.closers.length) return this.fail(bytes, i, 'nested too deeply');
			// Where a retry may start: not before bytes a retry already covered.
			if (code === OPEN && i >= this.retriedUpTo) {
				if (this.nested < 0) this.nested = i;
				if (this.nestedOnNewLine < 0 && startsLine(bytes, i)) this.nestedOnNewLine = i;
			}
			this.closers[this.depth++] = code === OPEN ? CLOSE : CLOSE_ARRAY;
			this.state = code === OPEN ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
		} else if (code === CLOSE_ARRAY && state === VALUE_OR_CLOSE) return this.close(bytes, i);
		else if (code === QUOTE) this.state = IN_STRING;
		else if (isLiteral(code)) this.state = IN_LITERAL;
		else return this.fail(bytes, i, 'a value was expected');
		return i + 1;
	}

	/** The byte at `i` closes a container; the outermost one ends the object. */
	private close(bytes: Buffer, i: number): number {
		this.state = AFTER_VALUE;
		if (--this.depth === 0) this.emit(bytes, i + 1);
		return i + 1;
	}

	/** The object cannot continue at `at`: scanning goes on from an object nested in it, else at `at` if it is a `{`, else after it. */
	private fail(bytes: Buffer, at: number, reason: string): number {
		const start = this.start;
		this.start = -1;
		const retryFrom = this.nestedOnNewLine >= 0 ? this.nestedOnNewLine : this.nested;
		if (retryFrom > start && retryFrom < at) {
			this.skip(bytes, start, retryFrom, reason);
			this.retriedUpTo = at;
			return this.begin(retryFrom);
		}
		const resume = bytes[at] === OPEN ? at : Math.min(at + 1, bytes.length);
		this.skip(bytes, start, resume, reason);
		return resume;
	}

	private emit(bytes: Buffer, end: number): void {
		const start = this.start;
		this.start = -1;
		let value: Record<string, unknown>;
		try {
			value = JSON.parse(bytes.toString('utf8', start, end)) as Record<string, unknown>;
		} catch (error) {
			return this.skip(bytes, start, end, (error as Error).message);
		}
		// An empty object does not end an incident: binary noise holds `{}` by chance.
		if (this.incident && Object.keys(value).length > 0) {
			this.report();
			this.incident = undefined;
		}
		this.options.onObject(value);
	}

	/** Bytes `from`..`to` are skipped: they join the incident in progress (its excerpt, while short). */
	private skip(bytes: Buffer, from: number, to: number, reason: string): void {
		if (to <= from) return;
		const incident = (this.incident ??= {
			reason,
			excerpt: Buffer.alloc(EXCERPT_BYTES),
			length: 0,
			reported: false,
		});
		if (incident.reported) return;
		incident.length += bytes.copy(
			incident.excerpt,
			incident.length,
			from,
			Math.min(to, from + EXCERPT_BYTES - incident.length),
		);
		if (incident.length >= EXCERPT_BYTES) this.report();
	}

	/** Reports the incident in progress once; control characters in its excerpt are made visible. */
	private report(): void {
		const incident = this.incident;
		if (!incident || incident.reported) return;
		incident.reported = true;
		const text = incident.excerpt
			.toString('utf8', 0, incident.length)
			// eslint-disable-next-line no-control-regex
			.replace(/[\u0000-\u001f\u007f]/g, (c) =>
				c === '\t' || c === '\n' || c === '\r' ? ' ' : '\ufffd',
			)
			.trim();
		this.options.onMalformed?.(
			incident.length >= EXCERPT_BYTES ? `${text}…` : text,
			incident.reason,
		);
	}
}
