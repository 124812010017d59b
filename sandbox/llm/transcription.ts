import { createHash } from 'node:crypto';

import type { WavInfo } from '../core/wav';
import { readWav } from '../core/wav';
import type { MultipartPart } from '../core/multipart';
import { MultipartError, multipartType, parseMultipart, sniffBoundary } from '../core/multipart';

/**
 * OpenAI's `POST /audio/transcriptions`, offline: a `multipart/form-data` request with a `file`
 * and a `model` is answered with a fixed sentence naming the file's size and, for a WAV, the
 * length its header gives, so a test can tell the audio arrived whole. Errors have OpenAI's shape.
 */

/** OpenAI's bound on an uploaded audio file: 25 MB (26,214,400 bytes). */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;
/** The request body the route takes: the file and the form around it. */
export const TRANSCRIPTION_BODY_BYTES = MAX_AUDIO_BYTES + 1024 * 1024;

const SUPPORTED = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];
export const RESPONSE_FORMATS = ['json', 'text', 'verbose_json'] as const;

export interface TranscribedFile {
	filename: string | null;
	contentType: string | null;
	bytes: number;
	sha256: string;
	/** The audio format its first bytes show (`wav`, `mp3`, `ogg`, `flac`, `mp4`, `webm`), or null. */
	audio: string | null;
	/** What its WAV header says (null for other formats). */
	wav: WavInfo | null;
}

/** One request to `/audio/transcriptions`, as `GET /_sandbox/llm/transcriptions` lists it. */
export interface TranscriptionRecord {
	seq: number;
	time: string;
	model: string | null;
	responseFormat: string;
	language: string | null;
	/** Every text field as sent (a repeated one as an array). */
	fields: Record<string, string | string[]>;
	file: TranscribedFile | null;
	answer: { status: number; text?: string; error?: string };
	elapsedMs: number;
}

/** The answer: status, body (JSON, or text for `response_format=text`) and what to record. */
export interface Transcription {
	status: number;
	body: unknown;
	record: Omit<TranscriptionRecord, 'seq' | 'time' | 'elapsedMs'>;
}

/** The sandbox's transcript of a file: its byte count and, for a WAV, its length in seconds. */
export function transcriptText(bytes: number, audio: string, seconds: number | null): string {
	const length = seconds === null ? 'length unknown' : `${seconds.toFixed(2)} seconds`;
	return `Sandbox transcript: ${bytes} bytes of ${audio.toUpperCase()} audio, ${length}.`;
}

/** The audio format a file's first bytes show, or undefined when they show none. */
export function sniffAudio(data: Buffer): string | undefined {
	const ascii = (from: number, to: number) => data.toString('latin1', from, to);
	if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav';
	if (ascii(0, 4) === 'OggS') return 'ogg';
	if (ascii(0, 4) === 'fLaC') return 'flac';
	if (ascii(4, 8) === 'ftyp') return 'mp4';
	if (data.length >= 4 && data.readUInt32BE(0) === 0x1a45dfa3) return 'webm';
	if (ascii(0, 3) === 'ID3' || (data.length >= 2 && data[0] === 0xff && (data[1] & 0xe0) === 0xe0)) return 'mp3';
	return undefined;
}

function failure(status: number, message: string, param: string | null = null, code: string | null = null) {
	return { status, body: { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param, code } } };
}

function textFields(parts: MultipartPart[]): Record<string, string | string[]> {
	const fields: Record<string, string | string[]> = {};
	for (const part of parts) {
		if (part.filename !== undefined || part.name === 'file') continue;
		const value = part.data.toString('utf8');
		const existing = fields[part.name];
		fields[part.name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
	}
	return fields;
}

const last = (value: string | string[] | undefined) => (Array.isArray(value) ? value[value.length - 1] : value);

/** Reads a transcription request and makes its answer; never throws. */
export function transcribe(contentType: string, body: Buffer): Transcription {
	const record: Transcription['record'] = { model: null, responseFormat: 'json', language: null, fields: {}, file: null, answer: { status: 0 } };
	const done = (answer: { status: number; body: unknown }, text?: string): Transcription => {
		const error = (answer.body as { error?: { message?: string } }).error?.message;
		record.answer = { status: answer.status, ...(text !== undefined ? { text } : {}), ...(error !== undefined ? { error } : {}) };
		return { ...answer, record };
	};
	const type = multipartType(contentType);
	if (!type.multipart) {
		return done(failure(400, `Invalid Content-Type header (${contentType || 'none'}), expected multipart/form-data. (HINT: If you're using curl, you can pass -H 'Content-Type: multipart/form-data')`));
	}
	const boundary = type.boundary ?? sniffBoundary(body);
	if (!boundary) return done(failure(400, 'Could not parse multipart form: no boundary'));
	let parts: MultipartPart[];
	try {
		parts = parseMultipart(body, boundary, { maxBytes: TRANSCRIPTION_BODY_BYTES, maxPartBytes: MAX_AUDIO_BYTES, maxParts: 50 });
	} catch (error) {
		if (!(error instanceof MultipartError)) throw error;
		if (error.reason === 'tooLarge' && error.bytes !== undefined) {
			return done(failure(413, `Maximum content size limit (${MAX_AUDIO_BYTES}) exceeded (${error.bytes} bytes read)`));
		}
		return done(failure(400, `Could not parse multipart form: ${error.message}`));
	}
	const fields = (record.fields = textFields(parts));
	record.model = last(fields.model) ?? null;
	record.language = last(fields.language) ?? null;
	record.responseFormat = last(fields.response_format) ?? 'json';
	const file = parts.find((part) => part.name === 'file');
	if (file) {
		const audio = sniffAudio(file.data);
		record.file = {
			filename: file.filename ?? null,
			contentType: file.contentType ?? null,
			bytes: file.data.length,
			sha256: createHash('sha256').update(file.data).digest('hex'),
			audio: audio ?? null,
			wav: audio === 'wav' ? (readWav(file.data) ?? null) : null,
		};
	}
	if (!record.model) return done(failure(400, 'you must provide a model parameter', 'model'));
	if (!record.file) return done(failure(400, "Missing required parameter: 'file'.", 'file', 'missing_required_parameter'));
	if (!(RESPONSE_FORMATS as readonly string[]).includes(record.responseFormat)) {
		return done(failure(400, `Invalid value for 'response_format': the sandbox answers ${RESPONSE_FORMATS.join(', ')}.`, 'response_format', 'invalid_value'));
	}
	if (record.language !== null && !/^[a-z]{2,3}$/.test(record.language)) {
		return done(failure(400, `Invalid language '${record.language}'. Language parameter must be specified in ISO-639-1 format.`, 'language', 'invalid_value'));
	}
	if (!record.file.audio) {
		return done(failure(400, `Invalid file format. Supported formats: ${JSON.stringify(SUPPORTED).replace(/"/g, "'").replace(/,/g, ', ')}`, 'file', 'invalid_value'));
	}
	if (record.file.audio === 'wav' && !record.file.wav) return done(failure(400, 'Audio file might be corrupted or unsupported', 'file', 'invalid_value'));
	const seconds = record.file.wav?.seconds ?? null;
	const text = transcriptText(record.file.bytes, record.file.audio, seconds);
	if (record.responseFormat === 'text') return done({ status: 200, body: `${text}\n` }, text);
	if (record.responseFormat === 'json') return done({ status: 200, body: { text } }, text);
	const duration = seconds ?? 0;
	return done(
		{
			status: 200,
			body: {
				task: 'transcribe',
				language: record.language ?? 'english',
				duration,
				text,
				segments: [{ id: 0, seek: 0, start: 0, end: duration, text, tokens: [], temperature: 0, avg_logprob: 0, compression_ratio: 1, no_speech_prob: 0 }],
			},
		},
		text,
	);
}
