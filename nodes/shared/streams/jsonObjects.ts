/**
 * Splits a byte stream of JSON objects whose framing is not specified: objects back to back,
 * one per line, or with any whitespace or padding between them, cut into chunks at any byte
 * (inside a multi-byte character too). Each complete top-level object is parsed and handed on;
 * a fragment that is not valid JSON is reported and skipped, and the stream goes on.
 */

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

export interface JsonObjectSplitterOptions {
	onObject: (value: Record<string, unknown>) => void;
	/** A fragment that could not be parsed (already skipped). */
	onMalformed?: (fragment: string, reason: string) => void;
	/** An object larger than this is abandoned as malformed, so a fragment that never closes cannot stall the stream. */
	maxObjectBytes?: number;
}

export class JsonObjectSplitter {
	private readonly decoder = new TextDecoder('utf-8');
	private text = '';
	/** Where scanning resumes in `text`. */
	private position = 0;
	/** Start of the object being read, or -1 between objects. */
	private start = -1;
	private depth = 0;
	private inString = false;
	private escaped = false;
	private readonly maxObjectChars: number;

	constructor(private readonly options: JsonObjectSplitterOptions) {
		this.maxObjectChars = options.maxObjectBytes ?? 1024 * 1024;
	}

	push(chunk: Uint8Array): void {
		this.text += this.decoder.decode(chunk, { stream: true });
		this.scan();
	}

	/** Text received but not yet part of a complete object. */
	get pending(): string {
		return this.start < 0 ? this.text.slice(this.position).trim() : this.text.slice(this.start);
	}

	reset(): void {
		this.text = '';
		this.position = 0;
		this.start = -1;
		this.depth = 0;
		this.inString = false;
		this.escaped = false;
	}

	private scan(): void {
		const text = this.text;
		const length = text.length;
		let i = this.position;
		let garbageFrom = -1;
		while (i < length) {
			if (this.start < 0) {
				// Between objects: skip padding; anything else up to the next `{` is garbage.
				const next = text.indexOf('{', i);
				const stop = next < 0 ? length : next;
				if (garbageFrom < 0) {
					for (let j = i; j < stop; j++) {
						const code = text.charCodeAt(j);
						if (code > 0x20 && code !== 0xfeff) {
							garbageFrom = j;
							break;
						}
					}
				}
				if (next < 0) {
					// Keep a possible garbage tail only until the next object shows where it ends.
					i = length;
					break;
				}
				if (garbageFrom >= 0) {
					this.malformed(text.slice(garbageFrom, next), 'text outside a JSON object');
					garbageFrom = -1;
				}
				this.start = next;
				this.depth = 0;
				i = next;
			}
			// Inside an object: count braces outside strings.
			for (; i < length; i++) {
				const code = text.charCodeAt(i);
				if (this.inString) {
					if (this.escaped) this.escaped = false;
					else if (code === BACKSLASH) this.escaped = true;
					else if (code === QUOTE) this.inString = false;
					continue;
				}
				if (code === QUOTE) this.inString = true;
				else if (code === OPEN) this.depth++;
				else if (code === CLOSE && --this.depth === 0) {
					this.emit(text.slice(this.start, i + 1));
					this.start = -1;
					i++;
					break;
				}
			}
			if (this.start >= 0 && i - this.start > this.maxObjectChars) {
				this.malformed(text.slice(this.start, this.start + 200), 'object too large or never closed');
				i = this.start + 1;
				this.start = -1;
				this.inString = false;
				this.escaped = false;
			}
		}
		// Drop what is consumed; keep an unfinished object or a garbage tail.
		const keepFrom = this.start >= 0 ? this.start : garbageFrom >= 0 ? garbageFrom : i;
		this.text = text.slice(keepFrom);
		if (this.start >= 0) this.start -= keepFrom;
		this.position = i - keepFrom;
		if (garbageFrom >= 0) this.position = 0;
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
