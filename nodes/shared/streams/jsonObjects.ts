/**
 * Splits a byte stream of JSON objects whose framing is not specified: objects back to back,
 * one per line, or with any whitespace or padding between them, cut into chunks at any byte
 * (inside a multi-byte character too). Each complete top-level object is parsed and handed on.
 *
 * Hostile bytes cost only themselves:
 * - Recovery: an object is followed through JSON's grammar, so an unclosed fragment is given up
 *   at the first byte that cannot continue it (a `{` where a key must come, a line break inside a
 *   string, …), and scanning goes on from the first object nested in the fragment (it may be
 *   the next event, read as the fragment's value) or from the offending byte. Every valid object
 *   after the fragment is emitted.
 * - One report per incident: bytes skipped between two emitted objects are one incident, reported
 *   once with a short excerpt (as soon as the excerpt is full, or when the next object arrives).
 * - Bounded memory: an object in progress is kept up to `maxObjectBytes` (1 MiB by default) and
 *   nested up to `maxDepth`; skipped bytes are never kept (only the excerpt).
 * - Linear time: each byte is scanned at most twice (a retry from a nested object rescans only
 *   bytes no earlier retry covered); garbage is skipped with a native search for the next `{`.
 *
 * It scans bytes, not text: the structural characters of JSON are ASCII and never occur inside
 * a multi-byte UTF-8 sequence, so a cut anywhere is safe. Runs of complete objects are parsed a
 * block at a time (one JSON.parse of the objects as an array): see `parseBlock`. An object cut by
 * the end of a chunk (no `}` in it yet) is parsed in the next chunk's first block; one that may
 * be complete is followed through the grammar at once, so no object waits for the next chunk.
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

/** Objects are parsed in blocks of about this many bytes. */
const BLOCK_BYTES = 65_536;
/** After a block that did not parse, this many objects are scanned one by one before blocks are tried again. */
const SPECULATION_PAUSE = 256;
/** An object cut by the end of a chunk and at most this long waits for the next chunk unscanned. */
const DEFERRED_BYTES = 16_384;
/** Bytes of an incident kept for its report. */
const EXCERPT_BYTES = 200;
/** After a block of objects without line breaks between them, blocks are split at braces for this many blocks. */
const GLUED_BLOCKS = 64;

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

const IN_OBJECT = 0;
const IN_ARRAY = 1;

export interface JsonObjectSplitterOptions {
	onObject: (value: Record<string, unknown>) => void;
	/** Bytes that were skipped, once per incident: a short excerpt and why. */
	onMalformed?: (excerpt: string, reason: string) => void;
	/** An object larger than this is given up, so a fragment that never closes cannot stall the stream or fill memory. */
	maxObjectBytes?: number;
	/** Objects nested deeper than this are given up. */
	maxDepth?: number;
}

const EMPTY = Buffer.alloc(0);
/** Buffer#toString('utf8', …) without its argument handling. */
type Utf8Sliceable = Buffer & { utf8Slice(start: number, end: number): string };
/** Only spaces since the last line break before `at`. */
function startsLine(bytes: Buffer, at: number): boolean {
	let before = at - 1;
	while (before >= 0 && (bytes[before] === SPACE || bytes[before] === TAB || bytes[before] === RETURN)) before--;
	return before >= 0 && bytes[before] === NEWLINE;
}
function isEmpty(value: object): boolean {
	for (const _key in value) return false;
	return true;
}
const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);
const isWhitespace = (code: number) => code === SPACE || code === NEWLINE || code === RETURN || code === TAB;
/** Number, true, false, null: their characters; JSON.parse checks the spelling. */
const isLiteral = (code: number) => (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a) || code === 0x2d || code === 0x2b || code === 0x2e || code === 0x45;

export class JsonObjectSplitter {
	/** Bytes not yet consumed (the object in progress), a view of `store`; or the chunk being scanned. */
	private bytes: Buffer = EMPTY;
	/** Holds the object in progress between chunks; grows by doubling, so appending stays linear. */
	private store: Buffer = EMPTY;
	/** Where scanning resumes in `bytes`. */
	private position = 0;
	/** Start of the object being read, or -1 between objects. */
	private start = -1;
	private state = KEY_OR_CLOSE;
	private escaped = false;
	private readonly containers: Uint8Array;
	private depth = 0;
	/** The first object nested in the one being read, where a retry starts if it fails; -1 if none. */
	private nested = -1;
	/** The first such object that starts a line (most streams put one object on a line): preferred for the retry. */
	private nestedOnNewLine = -1;
	/** Nested objects before this offset are not retried again (bytes scanned twice already). */
	private retriedUpTo = 0;
	private speculationPause = 0;
	/** The bytes before this offset hold no boundary between objects (searched already). */
	private noBoundaryBefore = -1;
	/** The last search for boundaries reached its limit (it did not stop at garbage). */
	private searchedToLimit = false;
	/**
	 * The object in progress was cut by the end of a chunk and not yet followed through the
	 * grammar: the next chunk is appended whole and the object parsed with the objects after it,
	 * as one block (the grammar follows it only if that fails).
	 */
	private deferred = false;
	/** The deferred object is being parsed again: if that fails, the grammar follows it. */
	private retryingDeferred = false;
	/** The stream ended: nothing more is deferred. */
	private ending = false;
	/** Blocks still to split at braces rather than line breaks. */
	private gluedBlocks = 0;
	/** Byte offsets in the current block where one object ends and the next begins. */
	private readonly boundaries: number[] = [];
	/** Padding bytes overwritten while a block is parsed in place. */
	private saved = new Uint8Array(4096);
	private scratch: Buffer = EMPTY;
	/** The incident in progress (bytes skipped since the last object): its first bytes, why, and whether it was reported. */
	private incident = false;
	private readonly excerpt = Buffer.allocUnsafe(EXCERPT_BYTES);
	private excerptLength = 0;
	private incidentReason = '';
	private incidentReported = false;
	private readonly maxObjectBytes: number;

	constructor(private readonly options: JsonObjectSplitterOptions) {
		this.maxObjectBytes = options.maxObjectBytes ?? 1024 * 1024;
		this.containers = new Uint8Array(options.maxDepth ?? 512);
	}

	push(chunk: Uint8Array): void {
		const incoming = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		if (incoming.length === 0) return;
		const pending = this.bytes.length;
		if (this.deferred) {
			// The cut object, a space before it (so the block takes its `[` in place), then the chunk.
			this.deferred = false;
			this.start = -1;
			this.retryingDeferred = true;
			const size = 1 + pending + incoming.length;
			this.reserve(size, pending);
			this.store.copyWithin(1, 0, pending);
			this.store[0] = SPACE;
			incoming.copy(this.store, 1 + pending);
			this.scan(this.store.subarray(0, size), true, 1);
			return;
		}
		if (pending === 0) {
			// Nothing pending: the chunk is scanned where it is (blocks parsed in place write their
			// brackets and commas into padding and put it back before anything else runs).
			this.scan(incoming, false);
			return;
		}
		// An object is pending: the chunk's first line most likely finishes it. Only that line is
		// copied behind it; the rest of the chunk is scanned in place once nothing is pending.
		const newline = incoming.indexOf(NEWLINE);
		const split = newline < 0 ? incoming.length : newline + 1;
		this.append(incoming.subarray(0, split));
		if (split === incoming.length) return;
		// Scanned in the chunk from `split`, so the line break before it can take a block's `[`.
		if (this.bytes.length === 0) this.scan(incoming, false, split);
		else if (this.deferred) this.push(incoming.subarray(split));
		else this.append(incoming.subarray(split));
	}

	/** Appends bytes behind what is pending, in the store, and scans on. */
	private append(bytes: Buffer): void {
		const pending = this.bytes.length;
		this.reserve(pending + bytes.length, pending);
		bytes.copy(this.store, pending);
		this.scan(this.store.subarray(0, pending + bytes.length), true);
	}

	/**
	 * The stream ended: an unfinished object fails here, so objects nested in it that start a line
	 * (an event read as a fragment's value) still come out; what is left is reported.
	 */
	end(): void {
		const bytes = this.bytes;
		let i = bytes.length;
		if (this.deferred) {
			this.deferred = false;
			this.ending = true;
			i = this.start;
			this.start = -1;
			while (i < bytes.length) i = this.start < 0 ? this.between(bytes, i) : this.inside(bytes, i);
			this.ending = false;
		}
		while (this.start >= 0) {
			i = this.fail(bytes, bytes.length, 'the stream ended inside an object');
			while (i < bytes.length) i = this.start < 0 ? this.between(bytes, i) : this.inside(bytes, i);
		}
		this.report();
		this.reset();
	}

	/** Memory the splitter holds between chunks: its store and scratch buffers. */
	get retainedBytes(): number {
		return this.store.length + this.scratch.length;
	}

	/** Text received but not yet part of a complete object. */
	get pending(): string {
		return this.start >= 0 ? this.bytes.toString('utf8', this.start).trim() : '';
	}

	reset(): void {
		this.bytes = EMPTY;
		this.position = 0;
		this.start = -1;
		this.nested = -1;
		this.retriedUpTo = 0;
		this.speculationPause = 0;
		this.incident = false;
		this.deferred = false;
	}

	/** Scans `bytes` from `from` (in the store, from where the last scan stopped). */
	private scan(bytes: Buffer, inStore: boolean, from = this.position): void {
		const length = bytes.length;
		this.noBoundaryBefore = -1;
		let i = from;
		while (i < length) {
			if (this.start < 0) {
				i = this.between(bytes, i);
				continue;
			}
			i = this.inside(bytes, i);
		}
		// Keep only the object in progress, at the start of the store; offsets move with it.
		const keepFrom = this.start >= 0 ? this.start : length;
		const kept = length - keepFrom;
		if (kept > 0 && !inStore) {
			this.reserve(kept, 0);
			bytes.copy(this.store, 0, keepFrom, length);
		} else if (kept > 0 && keepFrom > 0) {
			this.store.copyWithin(0, keepFrom, length);
		}
		this.bytes = kept === 0 ? EMPTY : this.store.subarray(0, kept);
		// A huge chunk grew the store: give the memory back once the object in progress is small.
		if (this.store.length > 4 * this.maxObjectBytes && kept <= this.maxObjectBytes) this.store = Buffer.from(this.bytes);
		this.position = kept;
		if (this.start >= 0) {
			this.start -= keepFrom;
			if (this.nested >= 0) this.nested -= keepFrom;
			if (this.nestedOnNewLine >= 0) this.nestedOnNewLine -= keepFrom;
		}
		this.retriedUpTo = Math.max(0, this.retriedUpTo - keepFrom);
	}

	/** Room for `size` bytes in the store, keeping its first `keep`. */
	private reserve(size: number, keep: number): void {
		if (this.store.length >= size) return;
		const larger = Buffer.allocUnsafe(Math.max(size, this.store.length * 2, 4096));
		this.store.copy(larger, 0, 0, keep);
		this.store = larger;
	}

	/** Between objects: padding is skipped quietly; anything else up to the next `{` is an incident. */
	private between(bytes: Buffer, i: number): number {
		const code = bytes[i];
		if (code === OPEN) {
			const retrying = this.retryingDeferred;
			this.retryingDeferred = false;
			const blockEnd = this.speculationPause > 0 ? -1 : this.parseBlock(bytes, i);
			if (blockEnd > 0) return blockEnd;
			if (this.speculationPause > 0) this.speculationPause--;
			else if (!retrying && !this.ending && this.searchedToLimit && bytes.length - i <= DEFERRED_BYTES && bytes.lastIndexOf(CLOSE) < i) {
				// Cut by the end of the chunk (no `}` yet): parsed with the next chunk's objects.
				this.start = i;
				this.deferred = true;
				return bytes.length;
			}
			this.begin(i);
			return i + 1;
		}
		// Control characters and spaces are padding; so is a byte order mark.
		if (code <= SPACE) return i + 1;
		if (code === 0xef && bytes[i + 1] === 0xbb && bytes[i + 2] === 0xbf) return i + 3;
		let next = bytes.indexOf(OPEN, i);
		if (next < 0) next = bytes.length;
		this.skip(bytes, i, next, 'text outside a JSON object');
		return next;
	}

	private begin(at: number): void {
		this.start = at;
		this.state = KEY_OR_CLOSE;
		this.containers[0] = IN_OBJECT;
		this.depth = 1;
		this.escaped = false;
		this.nested = -1;
		this.nestedOnNewLine = -1;
	}

	/** Follows the object through JSON's grammar until it ends, fails, or the bytes run out. */
	private inside(bytes: Buffer, from: number): number {
		const length = bytes.length;
		const limit = Math.min(length, this.start + this.maxObjectBytes);
		let i = from;
		let state = this.state;
		while (i < limit) {
			let code = bytes[i];
			if (state === IN_STRING || state === IN_KEY) {
				let escaped = this.escaped;
				while (i < limit) {
					code = bytes[i];
					if (escaped && code >= SPACE) escaped = false;
					else if (code === QUOTE) break;
					else if (code === BACKSLASH) escaped = true;
					else if (code < SPACE) {
						this.state = state;
						return this.fail(bytes, i, code === NEWLINE ? 'a line break inside a string' : 'a control character inside a string');
					}
					i++;
				}
				this.escaped = escaped;
				if (i >= limit) break;
				state = state === IN_KEY ? COLON_NEXT : AFTER_VALUE;
				i++;
				continue;
			}
			if (state === IN_LITERAL) {
				if (isLiteral(code)) {
					i++;
					continue;
				}
				state = AFTER_VALUE;
			}
			if (isWhitespace(code)) {
				i++;
				continue;
			}
			switch (state) {
				case KEY_OR_CLOSE:
				case KEY:
					if (code === QUOTE) state = IN_KEY;
					else if (code === CLOSE && state === KEY_OR_CLOSE) state = this.close();
					else return this.failAt(bytes, i, state, 'a key was expected');
					break;
				case COLON_NEXT:
					if (code !== COLON) return this.failAt(bytes, i, state, 'a colon was expected');
					state = VALUE;
					break;
				case VALUE:
				case VALUE_OR_CLOSE:
					if (code === QUOTE) state = IN_STRING;
					else if (code === OPEN || code === OPEN_ARRAY) {
						if (this.depth >= this.containers.length) return this.failAt(bytes, i, state, 'nested too deeply');
						if (code === OPEN && i >= this.retriedUpTo) {
							if (this.nested < 0) this.nested = i;
							if (this.nestedOnNewLine < 0 && startsLine(bytes, i)) this.nestedOnNewLine = i;
						}
						this.containers[this.depth++] = code === OPEN ? IN_OBJECT : IN_ARRAY;
						state = code === OPEN ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
					} else if (code === CLOSE_ARRAY && state === VALUE_OR_CLOSE) state = this.close();
					else if (isLiteral(code)) state = IN_LITERAL;
					else return this.failAt(bytes, i, state, 'a value was expected');
					break;
				default: {
					// AFTER_VALUE
					const container = this.containers[this.depth - 1];
					if (code === COMMA) state = container === IN_OBJECT ? KEY : VALUE;
					else if (code === (container === IN_OBJECT ? CLOSE : CLOSE_ARRAY)) state = this.close();
					else return this.failAt(bytes, i, state, `${container === IN_OBJECT ? "',' or '}'" : "',' or ']'"} was expected`);
				}
			}
			i++;
			if (this.depth === 0) {
				this.emit(bytes, i);
				return i;
			}
		}
		this.state = state;
		if (i >= this.start + this.maxObjectBytes) return this.fail(bytes, i, `the object is larger than ${this.maxObjectBytes} bytes or never closes`);
		return i;
	}

	private close(): number {
		this.depth--;
		return AFTER_VALUE;
	}

	private failAt(bytes: Buffer, at: number, state: number, reason: string): number {
		this.state = state;
		return this.fail(bytes, at, reason);
	}

	/**
	 * The object at `start` cannot continue at `at`. Scanning goes on from an object nested in it
	 * (the first that starts a line, else the first; once per stretch of bytes), else from `at` if
	 * it opens an object, else after `at`.
	 */
	private fail(bytes: Buffer, at: number, reason: string): number {
		const start = this.start;
		this.start = -1;
		const retryFrom = this.nestedOnNewLine >= 0 ? this.nestedOnNewLine : this.nested;
		if (retryFrom > start && retryFrom < at) {
			this.skip(bytes, start, retryFrom, reason);
			this.retriedUpTo = at;
			this.begin(retryFrom);
			return retryFrom + 1;
		}
		const resume = bytes[at] === OPEN ? at : Math.min(at + 1, bytes.length);
		this.skip(bytes, start, resume, reason);
		return resume;
	}

	private emit(bytes: Buffer, end: number): void {
		const start = this.start;
		this.start = -1;
		let value: unknown;
		try {
			value = JSON.parse(bytes.toString('utf8', start, end));
		} catch (error) {
			this.skip(bytes, start, end, (error as Error).message);
			return;
		}
		this.deliver(value as Record<string, unknown>);
	}

	private deliver(value: Record<string, unknown>): void {
		// An empty object does not end an incident: binary noise holds `{}` by chance.
		if (this.incident && !isEmpty(value)) {
			this.report();
			this.incident = false;
		}
		this.options.onObject(value);
	}

	/** Bytes `from`..`to` are skipped: they join the incident in progress (its excerpt, while short). */
	private skip(bytes: Buffer, from: number, to: number, reason: string): void {
		if (to <= from) return;
		if (!this.incident) {
			this.incident = true;
			this.incidentReason = reason;
			this.incidentReported = false;
			this.excerptLength = 0;
		}
		if (this.incidentReported || this.excerptLength >= EXCERPT_BYTES) return;
		this.excerptLength += bytes.copy(this.excerpt, this.excerptLength, from, Math.min(to, from + EXCERPT_BYTES - this.excerptLength));
		if (this.excerptLength >= EXCERPT_BYTES) this.report();
	}

	private report(): void {
		if (!this.incident || this.incidentReported) return;
		this.incidentReported = true;
		const text = (this.excerpt as Utf8Sliceable)
			.utf8Slice(0, this.excerptLength)
			// eslint-disable-next-line no-control-regex
			.replace(/[\u0000-\u001f\u007f]/g, (c) => (c === '\t' || c === '\n' || c === '\r' ? ' ' : '\ufffd'))
			.trim();
		this.options.onMalformed?.(this.excerptLength >= EXCERPT_BYTES ? `${text}…` : text, this.incidentReason);
	}

	/**
	 * Most streams send runs of complete objects. From the `{` at `from`, the objects that end in
	 * the next block of bytes are parsed with one JSON.parse, as an array: a comma is put after
	 * each `}` whose next non-space byte is `{`. Commas can also land inside strings (text such as
	 * `}{`); such a comma adds no element, so the count of elements shows it, unless a comma in the
	 * stream between two objects makes up for it: a run with one falls back to the scan. A block
	 * that does not parse as exactly its objects falls back to the scan, which then finds the
	 * incident. Returns where the parsed objects end, or -1.
	 */
	private parseBlock(bytes: Buffer, from: number): number {
		const limit = Math.min(bytes.length, from + BLOCK_BYTES);
		if (limit <= this.noBoundaryBefore) return -1;
		if (this.gluedBlocks === 0) {
			// Most streams put one object on a line: a search for line breaks finds the boundaries.
			const boundaries = this.findLineBoundaries(bytes, from, limit);
			if (boundaries.length > 0) {
				const end = this.parseObjectsAsArray(bytes, from, boundaries);
				if (end > 0) return end;
			}
		}
		const boundaries = this.findBoundaries(bytes, from, limit);
		if (boundaries.length === 0) {
			// Only the object at `from`, unfinished, or malformed: the scan takes it.
			if (limit === bytes.length && this.searchedToLimit) this.noBoundaryBefore = limit;
			return -1;
		}
		const end = this.parseObjectsAsArray(bytes, from, boundaries);
		if (end > 0) {
			// Objects glued or separated without line breaks: found by their braces for a while.
			this.gluedBlocks = this.gluedBlocks > 0 ? this.gluedBlocks - 1 : GLUED_BLOCKS;
			return end;
		}
		this.gluedBlocks = 0;
		this.speculationPause = SPECULATION_PAUSE;
		return -1;
	}

	/** Boundaries at line breaks with a `}` before and a `{` after (spaces aside), up to the first line break that is not one. */
	private findLineBoundaries(bytes: Buffer, from: number, limit: number): number[] {
		const boundaries = this.boundaries;
		boundaries.length = 0;
		for (let newline = bytes.indexOf(NEWLINE, from); newline >= 0 && newline < limit; newline = bytes.indexOf(NEWLINE, newline + 1)) {
			let before = newline - 1;
			while (bytes[before] <= SPACE) before--;
			let after = newline + 1;
			while (after < limit && bytes[after] <= SPACE) after++;
			if (after >= limit || bytes[before] !== CLOSE) break;
			const next = bytes[after];
			if (next !== OPEN) {
				// After a line that ends an object, only a `}`, `]` or `,` can continue it (pretty-printed
				// JSON); anything else is garbage, and the object before it is complete.
				if (next !== CLOSE && next !== CLOSE_ARRAY && next !== COMMA) boundaries.push(before + 1, after);
				break;
			}
			boundaries.push(before + 1, after);
			newline = after;
		}
		return boundaries;
	}

	/**
	 * Boundaries at each `{` whose previous non-space byte is `}`. In valid JSON that happens only
	 * between objects or inside strings (caught by the element count). A `{` after anything but
	 * `:`, `,` or `[` cannot be valid (garbage or a broken object lies before it), nor can a comma
	 * between two objects (it could make up the count for a comma put inside a string): the block
	 * ends before either.
	 */
	private findBoundaries(bytes: Buffer, from: number, limit: number): number[] {
		const boundaries = this.boundaries;
		boundaries.length = 0;
		this.searchedToLimit = false;
		for (let open = bytes.indexOf(OPEN, from + 1); open >= 0 && open < limit; open = bytes.indexOf(OPEN, open + 1)) {
			let before = open - 1;
			while (bytes[before] <= SPACE) before--;
			const previous = bytes[before];
			if (previous === CLOSE) {
				boundaries.push(before + 1, open);
			} else if (previous === COMMA) {
				do before--;
				while (bytes[before] <= SPACE);
				if (bytes[before] === CLOSE) return boundaries;
			} else if (previous !== COLON && previous !== OPEN_ARRAY && before >= from) {
				return boundaries;
			}
		}
		this.searchedToLimit = true;
		return boundaries;
	}

	/**
	 * The objects from `from` up to the last boundary, parsed with one JSON.parse as an array: a
	 * comma after each object but the last (in the padding after its `}`, or inserted). A comma
	 * that lands inside a string adds no element, so the element count shows it. Returns where the
	 * next object starts, or -1 if the block is not exactly its objects.
	 */
	private parseObjectsAsArray(bytes: Buffer, from: number, boundaries: number[]): number {
		const objects = boundaries.length / 2;
		if (objects === 0) return -1;
		const end = boundaries[boundaries.length - 2];
		let text: string;
		if (from > 0 && this.allPadded(boundaries)) {
			// The common case: the byte before the block (consumed already), the padding between the
			// objects and the byte after them (padding, or the `{` of a glued object) take `[`, the
			// commas and `]` in place for the one decode, and are put back at once (the bytes may be
			// the caller's chunk; nothing else runs in between).
			if (this.saved.length < objects + 2) this.saved = new Uint8Array(2 * objects + 2);
			const saved = this.saved;
			saved[0] = bytes[from - 1];
			saved[1] = bytes[end];
			bytes[from - 1] = OPEN_ARRAY;
			bytes[end] = CLOSE_ARRAY;
			for (let b = 0, k = 2; b < boundaries.length - 2; b += 2) {
				saved[k++] = bytes[boundaries[b]];
				bytes[boundaries[b]] = COMMA;
			}
			text = (bytes as Utf8Sliceable).utf8Slice(from - 1, end + 1);
			bytes[from - 1] = saved[0];
			bytes[end] = saved[1];
			for (let b = 0, k = 2; b < boundaries.length - 2; b += 2) bytes[boundaries[b]] = saved[k++];
		} else {
			text = this.arrayInScratch(bytes, from, boundaries);
		}
		let values: unknown;
		try {
			values = JSON.parse(text);
		} catch {
			return -1;
		}
		if (!Array.isArray(values) || values.length !== objects) return -1;
		for (const value of values) if (!isObject(value)) return -1;
		for (const value of values) this.deliver(value);
		return boundaries[boundaries.length - 1];
	}

	/** No two objects inside the block are glued (the last may be glued to the object after the block). */
	private allPadded(boundaries: number[]): boolean {
		for (let b = 0; b < boundaries.length - 2; b += 2) if (boundaries[b] === boundaries[b + 1]) return false;
		return true;
	}

	/**
	 * `[` + the objects with a comma after each but the last + `]`, in the scratch buffer: one copy
	 * of the block, then, from its end, each run after a pair of glued objects moved right within
	 * the scratch to make room for its comma (native moves, nothing allocated per object).
	 */
	private arrayInScratch(bytes: Buffer, from: number, boundaries: number[]): string {
		const pairs = boundaries.length;
		const end = boundaries[pairs - 2];
		let glued = 0;
		for (let b = 0; b < pairs - 2; b += 2) if (boundaries[b] === boundaries[b + 1]) glued++;
		const size = end - from + glued + 2;
		if (this.scratch.length < size) this.scratch = Buffer.alloc(size * 2);
		const scratch = this.scratch;
		scratch[0] = OPEN_ARRAY;
		bytes.copy(scratch, 1, from, end);
		// Scratch offset of stream byte `at` before any move.
		const offset = 1 - from;
		let runEnd = end;
		for (let b = pairs - 4, shift = glued; b >= 0; b -= 2) {
			const at = boundaries[b];
			if (at < boundaries[b + 1]) {
				// Padding after the `}` takes the comma (moved with its run later, if at all).
				scratch[at + offset] = COMMA;
				continue;
			}
			scratch.copyWithin(at + offset + shift, at + offset, runEnd + offset);
			scratch[at + offset + shift - 1] = COMMA;
			shift--;
			runEnd = at;
		}
		scratch[size - 1] = CLOSE_ARRAY;
		return (scratch as Utf8Sliceable).utf8Slice(0, size);
	}
}
