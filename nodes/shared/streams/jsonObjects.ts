/**
 * Splits a byte stream of JSON objects whose framing is not specified: objects back to back,
 * one per line, or with any whitespace or padding between them, cut into chunks at any byte
 * (inside a multi-byte character too). Each complete top-level object is parsed and handed on;
 * a fragment that is not valid JSON is reported and skipped, and the stream goes on.
 *
 * It scans bytes, not text: the structural characters of JSON are ASCII and never occur inside
 * a multi-byte UTF-8 sequence, so a cut anywhere is safe. Complete lines are decoded a block at a
 * time (the common one-object-per-line stream), anything else one object at a time.
 */

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const SPACE = 0x20;
const NEWLINE = 0x0a;
const BYTE_ORDER_MARK = 0xfeff;
/** Whole lines are decoded in blocks of about this size. */
const LINE_BLOCK_BYTES = 65_536;
/** After a line that was not one whole object, lines are not tried again for this many objects. */
const SPECULATION_PAUSE = 256;

export interface JsonObjectSplitterOptions {
	onObject: (value: Record<string, unknown>) => void;
	/** A fragment that could not be parsed (already skipped). */
	onMalformed?: (fragment: string, reason: string) => void;
	/** An object larger than this is abandoned as malformed, so a fragment that never closes cannot stall the stream. */
	maxObjectBytes?: number;
}

const EMPTY = Buffer.alloc(0);
const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);
/** Buffer#toString('utf8', …) without its argument handling: one call per line adds up. */
type Utf8Sliceable = Buffer & { utf8Slice(start: number, end: number): string };

/**
 * Lines that are each exactly one object, parsed in one JSON.parse as an array (a comma in place
 * of each line break): one call instead of one per line. Anything else (a blank or padded line, a
 * fragment, several objects on a line) gives undefined and the lines are taken one by one. A comma
 * added to valid JSON never leaves it valid with another meaning; the count check catches the one
 * repair it could make (an object broken over lines with a comma missing).
 */
function wholeLinesAsArray(text: string): Array<Record<string, unknown>> | undefined {
	let lines = 0;
	for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
	let values: unknown;
	try {
		values = JSON.parse(`[${text.slice(0, -1).replaceAll('\n', ',')}]`);
	} catch {
		return undefined;
	}
	if (!Array.isArray(values) || values.length !== lines) return undefined;
	return values.every(isObject) ? values : undefined;
}

export class JsonObjectSplitter {
	/** Bytes not yet consumed: an unfinished object, or text outside objects waiting for the next one. */
	private bytes: Buffer = EMPTY;
	/** Where scanning resumes in `bytes`. */
	private position = 0;
	/** Start of the object being read, or -1 between objects. */
	private start = -1;
	/** Start of text outside objects that is not padding, or -1. */
	private garbage = -1;
	private depth = 0;
	private inString = false;
	private escaped = false;
	/** Objects to scan byte by byte before trying whole lines again. */
	private speculationPause = 0;
	/** The buffered bytes after the scan position hold no line break. */
	private noLineBreakAhead = false;
	private readonly maxObjectBytes: number;

	constructor(private readonly options: JsonObjectSplitterOptions) {
		this.maxObjectBytes = options.maxObjectBytes ?? 1024 * 1024;
	}

	push(chunk: Uint8Array): void {
		const incoming = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		this.bytes = this.bytes.length === 0 ? incoming : Buffer.concat([this.bytes, incoming]);
		this.noLineBreakAhead = false;
		this.scan();
	}

	/** Text received but not yet part of a complete object. */
	get pending(): string {
		return this.bytes.toString('utf8', this.start >= 0 ? this.start : this.position).trim();
	}

	reset(): void {
		this.bytes = EMPTY;
		this.position = 0;
		this.start = -1;
		this.garbage = -1;
		this.depth = 0;
		this.inString = false;
		this.escaped = false;
		this.speculationPause = 0;
	}

	private scan(): void {
		const bytes = this.bytes;
		const length = bytes.length;
		let i = this.position;
		while (i < length) {
			if (this.start < 0) {
				// Between objects: padding is skipped; anything else up to the next `{` is garbage.
				const code = bytes[i];
				if (code === OPEN) {
					if (this.garbage >= 0) {
						this.malformed(bytes.toString('utf8', this.garbage, i), 'text outside a JSON object');
						this.garbage = -1;
					}
					const lineEnd = this.wholeLineObjects(bytes, i);
					if (lineEnd > 0) {
						i = lineEnd;
						continue;
					}
					this.start = i;
					this.depth = 1;
				} else if (code > SPACE && this.garbage < 0 && !(code === 0xef && bytes[i + 1] === 0xbb)) {
					this.garbage = i;
				}
				i++;
				continue;
			}
			const code = bytes[i++];
			if (this.inString) {
				if (this.escaped) this.escaped = false;
				else if (code === BACKSLASH) this.escaped = true;
				else if (code === QUOTE) this.inString = false;
			} else if (code === QUOTE) {
				this.inString = true;
			} else if (code === OPEN) {
				this.depth++;
			} else if (code === CLOSE && --this.depth === 0) {
				this.emit(bytes.toString('utf8', this.start, i));
				this.start = -1;
			} else if (i - this.start > this.maxObjectBytes) {
				this.malformed(bytes.toString('utf8', this.start, this.start + 200), 'object too large or never closed');
				i = this.start + 1;
				this.start = -1;
				this.inString = false;
				this.escaped = false;
			}
		}
		if (this.start >= 0 && i - this.start > this.maxObjectBytes) {
			this.malformed(bytes.toString('utf8', this.start, this.start + 200), 'object too large or never closed');
			this.bytes = EMPTY;
			this.position = 0;
			this.start = -1;
			this.inString = false;
			this.escaped = false;
			return;
		}
		// Keep only what is still needed: the unfinished object, or a garbage tail.
		const keepFrom = this.start >= 0 ? this.start : this.garbage >= 0 ? this.garbage : length;
		this.bytes = keepFrom >= length ? EMPTY : bytes.subarray(keepFrom);
		this.position = length - keepFrom;
		if (this.start >= 0) this.start -= keepFrom;
		if (this.garbage >= 0) this.garbage -= keepFrom;
	}

	/**
	 * Most streams put one object on a line. The complete lines from this `{` on are decoded a
	 * block at a time and each line that ends in `}` is parsed whole, which is much cheaper than
	 * scanning it; JSON.parse accepts a line only if it is exactly one value, so a line of several
	 * objects or a fragment stops this and falls back to the scan. Returns where the lines it
	 * consumed end (a byte offset), or -1 when the object at `from` must be scanned.
	 */
	private wholeLineObjects(bytes: Buffer, from: number): number {
		if (this.speculationPause > 0) {
			this.speculationPause--;
			return -1;
		}
		if (this.noLineBreakAhead) return -1;
		// A block of whole lines (bounded, so a failed attempt wastes little), or the one long line.
		let lastNewline = bytes.lastIndexOf(NEWLINE, from + LINE_BLOCK_BYTES);
		if (lastNewline < from) lastNewline = bytes.indexOf(NEWLINE, from);
		if (lastNewline < 0) {
			// Nothing more to find until more bytes arrive: a stream without line breaks is not searched again each object.
			this.noLineBreakAhead = true;
			return -1;
		}
		const text = (bytes as Utf8Sliceable).utf8Slice(from, lastNewline + 1);
		const onObject = this.options.onObject;
		const batch = wholeLinesAsArray(text);
		if (batch) {
			for (const value of batch) onObject(value);
			return lastNewline + 1;
		}
		let consumed = 0;
		let at = 0;
		while (at < text.length) {
			const code = text.charCodeAt(at);
			if (code <= SPACE || code === BYTE_ORDER_MARK) {
				at++;
				continue;
			}
			if (code !== OPEN) break;
			const newline = text.indexOf('\n', at);
			let last = newline - 1;
			while (last > at && text.charCodeAt(last) <= SPACE) last--;
			if (text.charCodeAt(last) !== CLOSE) break;
			let value: unknown;
			try {
				value = JSON.parse(text.slice(at, last + 1));
			} catch {
				// not exactly one object: scan it byte by byte
			}
			if (!isObject(value)) {
				this.speculationPause = SPECULATION_PAUSE;
				break;
			}
			onObject(value);
			at = consumed = newline + 1;
		}
		if (consumed === 0) return -1;
		return consumed === text.length ? lastNewline + 1 : from + Buffer.byteLength(text.slice(0, consumed));
	}

	private emit(fragment: string): void {
		let value: unknown;
		try {
			value = JSON.parse(fragment);
		} catch (error) {
			this.malformed(fragment, (error as Error).message);
			return;
		}
		this.options.onObject(value as Record<string, unknown>);
	}

	private malformed(fragment: string, reason: string): void {
		this.options.onMalformed?.(fragment.length > 200 ? `${fragment.slice(0, 200)}…` : fragment, reason);
	}
}
