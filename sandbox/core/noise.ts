import { randomBytes } from 'node:crypto';

/**
 * Hostile bytes for the stream faults: binary noise (NUL, invalid UTF-8, stray braces and
 * quotes), stray text, and unclosed objects, made once per block and reused, so that megabytes
 * of garbage cost the sandbox one block of memory.
 */

export const GARBAGE_PATTERNS = ['binary', 'text', 'braces'] as const;
export type GarbagePattern = (typeof GARBAGE_PATTERNS)[number];

export const GARBAGE_CHUNK_BYTES = 64 * 1024;

/** Bytes that are never valid UTF-8 (0xC0, 0xC1, 0xF5-0xFF), a NUL, and a lone continuation byte. */
const ALWAYS_INVALID = [0x00, 0xc0, 0xc1, 0xf5, 0xfe, 0xff, 0x80];

/**
 * `size` random bytes that surely hold a NUL and invalid UTF-8; with `lineSafe`, no CR or LF
 * (so an SSE reader sees one long line rather than many short ones).
 */
export function binaryNoise(size: number, lineSafe = false): Buffer {
	const bytes = randomBytes(size);
	ALWAYS_INVALID.forEach((byte, i) => {
		if (i < size) bytes[Math.floor((i * size) / ALWAYS_INVALID.length)] = byte;
	});
	if (lineSafe) for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a || bytes[i] === 0x0d) bytes[i] = 0x20;
	return bytes;
}

const TEXT_LINE = 'stray text that is no JSON: <html><body>502 Bad Gateway</body></html> ';
const OPEN_OBJECT = '{"event":"incomingcall","values":{"callerIdNumber":"+4477009';

/** One reusable block of garbage of a pattern. */
export function garbageBlock(pattern: GarbagePattern, size = GARBAGE_CHUNK_BYTES, lineSafe = false): Buffer {
	if (pattern === 'binary') return binaryNoise(size, lineSafe);
	const unit = pattern === 'text' ? TEXT_LINE : OPEN_OBJECT;
	return Buffer.from(unit.repeat(Math.ceil(size / unit.length)).slice(0, size));
}

/** The first two bytes of the three-byte `€` (E2 82 AC): a character cut short. */
export const TRUNCATED_CHARACTER = Buffer.from([0xe2, 0x82]);
