import { Readable } from 'node:stream';

/** The sandbox's audio: PCM, 16-bit mono, 8 kHz unless told. */
const SAMPLE_RATE = 8000;
export const WAV_HEADER_BYTES = 44;
/** The largest WAV a RIFF header can describe (its sizes are 32-bit). */
export const MAX_WAV_BYTES = 0xffff_ffff;

/** The 44-byte RIFF header of a PCM 16-bit mono file with `dataBytes` of samples in `riffBytes` (the file size less 8). */
function wavHeader(dataBytes: number, sampleRate: number, riffBytes = 36 + dataBytes): Buffer {
	const header = Buffer.alloc(WAV_HEADER_BYTES);
	header.write('RIFF', 0, 'ascii');
	header.writeUInt32LE(riffBytes, 4);
	header.write('WAVE', 8, 'ascii');
	header.write('fmt ', 12, 'ascii');
	header.writeUInt32LE(16, 16);
	header.writeUInt16LE(1, 20); // PCM
	header.writeUInt16LE(1, 22); // mono
	header.writeUInt32LE(sampleRate, 24);
	header.writeUInt32LE(sampleRate * 2, 28);
	header.writeUInt16LE(2, 32);
	header.writeUInt16LE(16, 34);
	header.write('data', 36, 'ascii');
	header.writeUInt32LE(dataBytes, 40);
	return header;
}

function toneSamples(into: Buffer, offset: number, samples: number, frequency: number, sampleRate: number): void {
	for (let i = 0; i < samples; i++) {
		into.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * frequency * i) / sampleRate)), offset + i * 2);
	}
}

/** A valid PCM WAV file (RIFF header + 16-bit mono samples of a tone), so clients can check real audio. */
export function makeWav(seconds: number, frequency = 440, sampleRate = SAMPLE_RATE): Buffer {
	const samples = Math.max(1, Math.round(seconds * sampleRate));
	const buffer = Buffer.alloc(WAV_HEADER_BYTES + samples * 2);
	wavHeader(samples * 2, sampleRate).copy(buffer);
	toneSamples(buffer, WAV_HEADER_BYTES, samples, frequency, sampleRate);
	return buffer;
}

/** The size of `makeWav(seconds)`, without making it. */
export function wavBytes(seconds: number, sampleRate = SAMPLE_RATE): number {
	return WAV_HEADER_BYTES + Math.max(1, Math.round(seconds * sampleRate)) * 2;
}

/**
 * 64 KiB of a 500 Hz tone: 16 samples a period at 8 kHz, so the block repeats without a seam.
 * Made once and reused for every chunk of every streamed WAV.
 */
const STREAM_BLOCK = (() => {
	const block = Buffer.alloc(64 * 1024);
	toneSamples(block, 0, block.length / 2, 500, SAMPLE_RATE);
	return block;
})();

function* wavChunks(bytes: number): Generator<Buffer> {
	const dataBytes = (bytes - WAV_HEADER_BYTES) & ~1;
	yield wavHeader(dataBytes, SAMPLE_RATE, bytes - 8);
	for (let left = dataBytes; left > 0; left -= STREAM_BLOCK.length) yield STREAM_BLOCK.subarray(0, Math.min(left, STREAM_BLOCK.length));
	if (dataBytes !== bytes - WAV_HEADER_BYTES) yield Buffer.alloc(1);
}

/**
 * A WAV of exactly `bytes` bytes, made as it is read: the header, then one reused 64 KiB block
 * of tone at a time (the reader's back-pressure paces it), so its size costs no memory. An odd
 * size ends with one pad byte after the samples, counted in the RIFF size but not in `data`.
 */
export function wavStream(bytes: number): Readable {
	if (!Number.isInteger(bytes) || bytes < WAV_HEADER_BYTES + 2 || bytes > MAX_WAV_BYTES) {
		throw new RangeError(`a WAV is ${WAV_HEADER_BYTES + 2} to ${MAX_WAV_BYTES} bytes`);
	}
	return Readable.from(wavChunks(bytes), { objectMode: false });
}

export interface WavInfo {
	/** 1 for PCM. */
	format: number;
	channels: number;
	sampleRate: number;
	bitsPerSample: number;
	/** Bytes of samples: the `data` chunk's size, or what the file holds when that is less. */
	dataBytes: number;
	seconds: number;
}

/** What a WAV's header says, or undefined when the bytes are no RIFF/WAVE file with `fmt ` and `data` chunks. */
export function readWav(file: Buffer): WavInfo | undefined {
	if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') return undefined;
	let fmt: Omit<WavInfo, 'dataBytes' | 'seconds'> & { byteRate: number } | undefined;
	for (let at = 12; at + 8 <= file.length; ) {
		const id = file.toString('ascii', at, at + 4);
		const size = file.readUInt32LE(at + 4);
		if (id === 'fmt ' && size >= 16 && at + 24 <= file.length) {
			fmt = {
				format: file.readUInt16LE(at + 8),
				channels: file.readUInt16LE(at + 10),
				sampleRate: file.readUInt32LE(at + 12),
				byteRate: file.readUInt32LE(at + 16),
				bitsPerSample: file.readUInt16LE(at + 22),
			};
		} else if (id === 'data') {
			if (!fmt || fmt.byteRate === 0 || fmt.channels === 0) return undefined;
			const dataBytes = Math.min(size, file.length - at - 8);
			const { byteRate, ...rest } = fmt;
			return { ...rest, dataBytes, seconds: dataBytes / byteRate };
		}
		at += 8 + size + (size % 2);
	}
	return undefined;
}
