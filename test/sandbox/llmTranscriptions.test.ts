/**
 * The scripted model's `POST /llm/v1/audio/transcriptions`: OpenAI's multipart request, a
 * deterministic transcript naming the audio's size and length, OpenAI's errors, and the record
 * of what arrived. Also the small multipart reader it uses.
 */
import { createHash } from 'node:crypto';

import type { Sandbox } from '../../sandbox/index';
import { MultipartError, multipartType, parseMultipart, sniffBoundary } from '../../sandbox/core/multipart';
import { makeWav, readWav } from '../../sandbox/core/wav';
import { MAX_AUDIO_BYTES, transcriptText } from '../../sandbox/llm/transcription';
import { sandboxForFile } from '../harness/sandboxForFile';

let sandbox: Sandbox;
sandboxForFile((started) => (sandbox = started));

type Json = Record<string, any>;

const TRANSCRIPTIONS = '/llm/v1/audio/transcriptions';

/** A form as n8n's OpenAI node sends it: the model, options, and the file with its name and type. */
function form(fields: Record<string, string>, file?: { data: Buffer; filename?: string; type?: string }): FormData {
	const body = new FormData();
	for (const [name, value] of Object.entries(fields)) body.append(name, value);
	if (file) body.append('file', new Blob([file.data], { type: file.type ?? 'audio/wav' }), file.filename ?? 'call.wav');
	return body;
}

async function post(body: FormData | string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; type: string; text: string; json: Json }> {
	const response = await fetch(`${sandbox.url}${TRANSCRIPTIONS}`, { method: 'POST', headers: { authorization: 'Bearer sk-anything', ...headers }, body });
	const text = await response.text();
	const type = response.headers.get('content-type') ?? '';
	return { status: response.status, type, text, json: /json/.test(type) ? (JSON.parse(text) as Json) : {} };
}

const records = async (): Promise<Json[]> => (await (await fetch(`${sandbox.url}/_sandbox/llm/transcriptions`)).json()) as Json[];

/** OpenAI's error shape: `{error: {message, type, param, code}}` (code a string or null). */
const errorShape = (body: Json) => ({ keys: Object.keys(body).concat(Object.keys(body.error ?? {})).sort(), type: body.error?.type, param: body.error?.param });
const openAiError = (param: string | null) => ({ keys: ['code', 'error', 'message', 'param', 'type'], type: 'invalid_request_error', param });

describe('POST /llm/v1/audio/transcriptions', () => {
	test('a WAV is answered with a transcript naming its bytes and its length, and recorded', async () => {
		const wav = makeWav(1.5);
		const answer = await post(form({ model: 'whisper-1', language: 'en' }, { data: wav, filename: 'recording 7.wav' }));
		expect(answer.status).toBe(200);
		expect(answer.json).toEqual({ text: `Sandbox transcript: ${wav.length} bytes of WAV audio, 1.50 seconds.` });
		expect(answer.json.text).toBe(transcriptText(wav.length, 'wav', 1.5));
		const [record] = await records();
		expect(record).toEqual(
			expect.objectContaining({
				seq: expect.any(Number),
				model: 'whisper-1',
				language: 'en',
				responseFormat: 'json',
				fields: { model: 'whisper-1', language: 'en' },
				file: {
					filename: 'recording 7.wav',
					contentType: 'audio/wav',
					bytes: wav.length,
					sha256: createHash('sha256').update(wav).digest('hex'),
					audio: 'wav',
					wav: { format: 1, channels: 1, sampleRate: 8000, bitsPerSample: 16, dataBytes: wav.length - 44, seconds: 1.5 },
				},
				answer: { status: 200, text: answer.json.text },
			}),
		);
		// The shared request log shows the form, not the audio's bytes.
		const [logged] = sandbox.context.log.list({ api: 'llm' });
		expect(logged.body).toEqual({ fields: { model: 'whisper-1', language: 'en' }, files: [{ name: 'file', filename: 'recording 7.wav', contentType: 'audio/wav', bytes: wav.length }] });
	});

	test("a PBX recording downloaded from the sandbox arrives whole: the transcript names the recording's size", async () => {
		const recording = sandbox.pbx.injectRecording({ bytes: 160_044 });
		const download = await fetch(`${String(recording.uri)}.wav`, { headers: { authorization: `Basic ${Buffer.from('acme.admin:acme-admin-secret').toString('base64')}` } });
		const audio = Buffer.from(await download.arrayBuffer());
		expect(audio.length).toBe(recording.size);
		const answer = await post(form({ model: 'whisper-1' }, { data: audio }));
		expect(answer.json.text).toBe('Sandbox transcript: 160044 bytes of WAV audio, 10.00 seconds.');
	});

	test('response_format text answers text/plain; verbose_json has the duration, language and one segment', async () => {
		const wav = makeWav(0.5);
		const text = await post(form({ model: 'whisper-1', response_format: 'text' }, { data: wav }));
		expect(text.status).toBe(200);
		expect(text.type).toMatch(/^text\/plain/);
		expect(text.text).toBe(`${transcriptText(wav.length, 'wav', 0.5)}\n`);
		const verbose = await post(form({ model: 'whisper-1', response_format: 'verbose_json', language: 'de' }, { data: wav }));
		expect(verbose.json).toEqual({
			task: 'transcribe',
			language: 'de',
			duration: 0.5,
			text: transcriptText(wav.length, 'wav', 0.5),
			segments: [expect.objectContaining({ id: 0, start: 0, end: 0.5, text: transcriptText(wav.length, 'wav', 0.5) })],
		});
	});

	test('other audio formats are taken by their first bytes, their length unknown', async () => {
		const mp3 = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(997)]);
		const answer = await post(form({ model: 'whisper-1' }, { data: mp3, filename: 'note.mp3', type: 'audio/mpeg' }));
		expect(answer.json).toEqual({ text: 'Sandbox transcript: 1000 bytes of MP3 audio, length unknown.' });
	});

	test('the error cases answer in OpenAI error form, and are recorded', async () => {
		const wav = makeWav(0.1);
		const cases: Array<[string, FormData | string, Record<string, string>, number, string | null, RegExp]> = [
			['no file', form({ model: 'whisper-1' }), {}, 400, 'file', /Missing required parameter: 'file'/],
			['not audio', form({ model: 'whisper-1' }, { data: Buffer.from('Dear customer, this is a letter.'), filename: 'letter.txt', type: 'text/plain' }), {}, 400, 'file', /Invalid file format. Supported formats: \['flac', .*'wav', 'webm'\]/],
			['a WAV without its data chunk', form({ model: 'whisper-1' }, { data: wav.subarray(0, 36) }), {}, 400, 'file', /corrupted or unsupported/],
			['no model', form({}, { data: wav }), {}, 400, 'model', /must provide a model/],
			['a response_format it does not make', form({ model: 'whisper-1', response_format: 'srt' }, { data: wav }), {}, 400, 'response_format', /response_format/],
			['a language that is no ISO-639-1 code', form({ model: 'whisper-1', language: 'English' }, { data: wav }), {}, 400, 'language', /ISO-639-1/],
			['JSON instead of a form', JSON.stringify({ model: 'whisper-1', file: 'call.wav' }), { 'content-type': 'application/json' }, 400, null, /expected multipart\/form-data/],
			['a form cut short', '--xyz\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1', { 'content-type': 'multipart/form-data; boundary=xyz' }, 400, null, /Could not parse multipart form/],
		];
		for (const [what, body, headers, status, param, message] of cases) {
			const answer = await post(body, headers);
			expect([what, answer.status]).toEqual([what, status]);
			expect([what, errorShape(answer.json)]).toEqual([what, openAiError(param)]);
			expect([what, answer.json.error.message]).toEqual([what, expect.stringMatching(message)]);
		}
		const recorded = await records();
		expect(recorded.map((r) => r.answer.status)).toEqual(cases.map((c) => c[3]));
		expect(recorded[1].file).toEqual(expect.objectContaining({ filename: 'letter.txt', audio: null, bytes: 32 }));
	});

	test('a file over 25 MB is answered 413 as OpenAI does', async () => {
		// The form made by hand: one buffer, no copies by FormData.
		const file = Buffer.alloc(MAX_AUDIO_BYTES + 1);
		makeWav(0.1).copy(file);
		const head = '--big\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--big\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\n\r\n';
		const answer = await post(Buffer.concat([Buffer.from(head), file, Buffer.from('\r\n--big--\r\n')]), { 'content-type': 'multipart/form-data; boundary=big' });
		expect(answer.status).toBe(413);
		expect(answer.json.error).toEqual(expect.objectContaining({ message: `Maximum content size limit (26214400) exceeded (${MAX_AUDIO_BYTES + 1} bytes read)`, type: 'invalid_request_error' }));
	});

	test('wants a Bearer key like the other routes; latencyMs applies', async () => {
		const response = await fetch(`${sandbox.url}${TRANSCRIPTIONS}`, { method: 'POST', body: form({ model: 'whisper-1' }, { data: makeWav(0.1) }) });
		expect([response.status, ((await response.json()) as Json).error.code]).toEqual([401, 'missing_api_key']);
		expect((await (await fetch(`${sandbox.url}/_sandbox/llm/settings`, { method: 'POST', body: JSON.stringify({ latencyMs: 80 }) })).json()) as Json).toEqual(expect.objectContaining({ latencyMs: 80 }));
		const started = Date.now();
		expect((await post(form({ model: 'whisper-1' }, { data: makeWav(0.1) }))).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(70);
	});

	test('the records share their sequence with the chat records and can be cleared', async () => {
		await post(form({ model: 'whisper-1' }, { data: makeWav(0.1) }));
		await fetch(`${sandbox.url}/llm/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer x', 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }) });
		await post(form({ model: 'whisper-1' }, { data: makeWav(0.1) }));
		expect((await records()).map((r) => r.seq)).toEqual([1, 3]);
		expect(((await (await fetch(`${sandbox.url}/_sandbox/llm/transcriptions?since=1`)).json()) as Json[]).map((r) => r.seq)).toEqual([3]);
		expect(sandbox.llm.records.map((r) => r.seq)).toEqual([2]);
		expect((await fetch(`${sandbox.url}/_sandbox/llm/transcriptions`, { method: 'DELETE' })).status).toBe(204);
		expect(await records()).toEqual([]);
	});
});

describe('the multipart reader', () => {
	const CRLF = '\r\n';
	const body = (...lines: string[]) => Buffer.from(lines.join(CRLF), 'utf8');

	test('reads names, quoted and encoded file names, types, and bytes as they are', () => {
		const parts = parseMultipart(
			body(
				'a preamble to ignore',
				'--b0undary',
				'Content-Disposition: form-data; name="model"',
				'',
				'whisper-1',
				'--b0undary  ',
				'content-disposition: form-data; name="file"; filename="old \\"name\\".wav"; filename*=UTF-8\'\'Anruf%20%C3%BC.wav',
				'Content-Type: audio/wav',
				'',
				'RIFF\r\n--b0undar not yet',
				'--b0undary--',
				'an epilogue',
			),
			'b0undary',
		);
		expect(parts.map(({ name, filename, contentType, data }) => ({ name, filename, contentType, data: data.toString() }))).toEqual([
			{ name: 'model', filename: undefined, contentType: undefined, data: 'whisper-1' },
			{ name: 'file', filename: 'Anruf ü.wav', contentType: 'audio/wav', data: 'RIFF\r\n--b0undar not yet' },
		]);
	});

	test('finds the boundary in the Content-Type, or in the first line of a body sent without one', () => {
		expect(multipartType('multipart/form-data; boundary="a b"')).toEqual({ multipart: true, boundary: 'a b' });
		expect(multipartType('Multipart/Form-Data')).toEqual({ multipart: true, boundary: undefined });
		expect(multipartType('application/json')).toEqual({ multipart: false });
		expect(sniffBoundary(body('--xyz', 'Content-Disposition: form-data; name="a"', '', '1', '--xyz--'))).toBe('xyz');
		expect(sniffBoundary(Buffer.from('{"json":true}'))).toBeUndefined();
	});

	test('refuses a malformed body, and one past its bounds before copying it', () => {
		const part = (name: string, value: string) => ['--x', `Content-Disposition: form-data; name="${name}"`, '', value];
		const fail = (data: Buffer, limits = {}) => {
			try {
				parseMultipart(data, 'x', limits);
			} catch (error) {
				return error instanceof MultipartError ? [error.reason, error.message] : ['other', String(error)];
			}
			return ['parsed', ''];
		};
		expect(fail(body(...part('a', '1')))).toEqual(['malformed', expect.stringMatching(/closing boundary/)]);
		expect(fail(body('--x', 'Content-Type: text/plain', '', '1', '--x--'))).toEqual(['malformed', expect.stringMatching(/Content-Disposition/)]);
		expect(fail(body('--y', '', '1', '--y--'))).toEqual(['malformed', expect.stringMatching(/boundary/)]);
		expect(fail(body(...part('a', '12345'), '--x--'), { maxPartBytes: 4 })).toEqual(['tooLarge', expect.stringMatching(/"a" is 5 bytes; at most 4/)]);
		expect(fail(body(...part('a', '1'), '--x--'), { maxBytes: 10 })).toEqual(['tooLarge', expect.stringMatching(/at most 10/)]);
		expect(fail(body(...part('a', '1'), ...part('b', '2'), '--x--'), { maxParts: 1 })).toEqual(['tooLarge', 'more than 1 parts']);
	});

	test('readWav reads the header of a WAV, and nothing from other bytes', () => {
		expect(readWav(makeWav(2))).toEqual({ format: 1, channels: 1, sampleRate: 8000, bitsPerSample: 16, dataBytes: 32_000, seconds: 2 });
		expect(readWav(Buffer.from('RIFF....WAVEjunk'))).toBeUndefined();
		expect(readWav(Buffer.from('not a wav at all'))).toBeUndefined();
	});
});
