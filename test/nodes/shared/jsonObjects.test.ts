import fc from 'fast-check';

import { JsonObjectSplitter } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/streams/jsonObjects';

/**
 * Properties of the PBX stream splitter over generated streams: any objects, any framing, any
 * chunking, with hostile bytes between them. The guarantees the trigger relies on (issue 18):
 * every valid object after a malformed stretch comes out, one report per stretch, bounded memory.
 */

interface Run {
	objects: Array<Record<string, unknown>>;
	incidents: Array<{ excerpt: string; reason: string }>;
	maxRetained: number;
}

function run(chunks: Uint8Array[], options: { maxObjectBytes?: number } = {}): Run {
	const result: Run = { objects: [], incidents: [], maxRetained: 0 };
	const splitter = new JsonObjectSplitter({
		onObject: (o) => result.objects.push(o),
		onMalformed: (excerpt, reason) => result.incidents.push({ excerpt, reason }),
		...options,
	});
	for (const chunk of chunks) {
		splitter.push(chunk);
		result.maxRetained = Math.max(result.maxRetained, splitter.retainedBytes);
	}
	splitter.end();
	return result;
}

/** The stream cut at the given fractions of its length. */
function cut(stream: Buffer, cuts: number[]): Buffer[] {
	const points = [...new Set(cuts.map((c) => Math.floor(c * stream.length)))].sort((a, b) => a - b);
	const chunks: Buffer[] = [];
	let start = 0;
	for (const point of [...points, stream.length]) {
		if (point > start) chunks.push(stream.subarray(start, point));
		start = Math.max(start, point);
	}
	return chunks;
}

const jsonObject = fc.dictionary(fc.string({ unit: 'binary', maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }).map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);
const event = fc.record({ event: fc.constantFrom('incomingcall', 'smsreceived', 'smsdelivered'), seq: fc.nat(), values: jsonObject });
const padding = fc.constantFrom('', '\n', '\r\n', ' ', '\t', '  \n', '\n\n');
const framing = fc.constantFrom('compact', 'pretty');
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 });

/** Hostile bytes: none of them can close an object opened earlier (no `}` or `]`), nor is a byte order mark. */
const garbage = fc.oneof(
	fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => Buffer.from(bytes.map((b) => (b === 0x7d || b === 0x5d || b === 0xef ? 0x21 : b)))),
	fc.constantFrom('HTTP/1.1 502 Bad Gateway\r\n<html>proxy error</html>', 'data: not json', 'null', '[1,2', ',', '"a string"').map((t) => Buffer.from(t)),
	event.chain((e) => {
		const text = JSON.stringify(e);
		return fc.integer({ min: 1, max: text.length - 1 }).map((at) => Buffer.from(text.slice(0, at).replace(/[}\]]/g, '')));
	}),
	fc.constant(Buffer.from([0xe2, 0x82])),
);

describe('JSON object splitter: properties', () => {
	test('any objects, any framing, any cuts: each object arrives once, in order, with no incident', () => {
		fc.assert(
			fc.property(fc.array(fc.tuple(jsonObject, padding, framing), { minLength: 1, maxLength: 20 }), cuts, (items, at) => {
				const stream = Buffer.from(items.map(([o, pad, style]) => (style === 'pretty' ? JSON.stringify(o, null, 2) : JSON.stringify(o)) + pad).join(''));
				const result = run(cut(stream, at));
				expect(result.incidents).toEqual([]);
				expect(result.objects).toEqual(items.map(([o]) => o));
			}),
			{ numRuns: 300 },
		);
	});

	test('no waiting for the next chunk: each object arrives in the push that brings its last byte', () => {
		fc.assert(
			fc.property(fc.array(fc.tuple(jsonObject, padding, framing), { minLength: 1, maxLength: 20 }), cuts, (items, at) => {
				const texts = items.map(([o, pad, style]) => (style === 'pretty' ? JSON.stringify(o, null, 2) : JSON.stringify(o)) + pad);
				const ends: number[] = [];
				texts.reduce((offset, text, i) => {
					ends.push(offset + Buffer.byteLength(text) - Buffer.byteLength(items[i][1]));
					return offset + Buffer.byteLength(text);
				}, 0);
				const delivered: unknown[] = [];
				const splitter = new JsonObjectSplitter({ onObject: (o) => delivered.push(o) });
				let pushed = 0;
				for (const chunk of cut(Buffer.from(texts.join('')), at)) {
					splitter.push(chunk);
					pushed += chunk.length;
					expect(delivered).toHaveLength(ends.filter((end) => end <= pushed).length);
				}
			}),
			{ numRuns: 300 },
		);
	});

	test('hostile bytes between events cost only themselves: every event on its own line after them arrives, one report per stretch', () => {
		fc.assert(
			fc.property(fc.array(fc.tuple(event, fc.option(garbage, { nil: undefined })), { minLength: 1, maxLength: 25 }), cuts, (items, at) => {
				const parts: Buffer[] = [];
				for (const [e, junk] of items) {
					if (junk) parts.push(junk);
					parts.push(Buffer.from(`\n${JSON.stringify(e)}\n`));
				}
				const result = run(cut(Buffer.concat(parts), at));
				const events = result.objects.filter((o) => typeof o.event === 'string' && typeof o.seq === 'number');
				expect(events).toEqual(items.map(([e]) => e));
				const stretches = items.filter(([, junk]) => junk && junk.some((b) => b > 0x20)).length;
				expect(result.incidents.length).toBeLessThanOrEqual(stretches);
				expect(result.incidents.length).toBeGreaterThanOrEqual(Math.min(1, stretches));
				for (const incident of result.incidents) expect(incident.excerpt.length).toBeLessThanOrEqual(201);
			}),
			{ numRuns: 300 },
		);
	});

	test('memory is bounded whatever arrives: never-closing objects, deep nesting, endless garbage', () => {
		const maxObjectBytes = 64 * 1024;
		fc.assert(
			fc.property(
				fc.constantFrom('{"a":"', '{"a":{"b":', '{"a":[', '{{{{', 'noise '),
				fc.integer({ min: 1, max: 16_384 }),
				(unit, chunkSize) => {
					const junk = Buffer.from(unit.repeat(Math.ceil(400_000 / unit.length)));
					const chunks = [];
					for (let i = 0; i < junk.length; i += chunkSize) chunks.push(junk.subarray(i, i + chunkSize));
					chunks.push(Buffer.from('\n{"event":"smsdelivered","seq":1,"values":{}}\n'));
					const result = run(chunks, { maxObjectBytes });
					expect(result.objects.filter((o) => o.seq === 1)).toHaveLength(1);
					expect(result.incidents).toHaveLength(1);
					expect(result.maxRetained).toBeLessThanOrEqual(4 * (maxObjectBytes + chunkSize) + 256 * 1024);
				},
			),
			{ numRuns: 40 },
		);
	});
});

describe('JSON object splitter: recovery after malformed input (issue 18)', () => {
	const line = (seq: number) => `{"event":"incomingcall","seq":${seq},"values":{"callerIdNumber":"+447700900${seq}"}}\n`;
	const events = (count: number) => Array.from({ length: count }, (_v, i) => line(i)).join('');

	test.each([
		['an unclosed object', '{"event":"incomingcall","values":{\n'],
		['an unclosed object cut after a colon (the next event read as its value)', '{"event":"incomingcall","values":'],
		['an unclosed string', '{"event":"incomingcall","values":{"callerIdName":"Zo'],
		['an unclosed array', '{"event":"x","values":[1,'],
		['stray text', 'HTTP/1.1 502 Bad Gateway\r\n'],
		['binary noise', Buffer.from([0x00, 0xc0, 0xff, 0x7b, 0x22, 0x80, 0x0a, 0xfe])],
		['a truncated multi-byte character', Buffer.from([0xe2, 0x82])],
	])('after %s, all ten events that follow arrive, and one warning', (_name, fragment) => {
		const stream = Buffer.concat([Buffer.from(line(100)), Buffer.from(fragment), Buffer.from(`\n${events(10)}`)]);
		for (const size of [1, 7, 64, stream.length]) {
			const chunks = [];
			for (let i = 0; i < stream.length; i += size) chunks.push(stream.subarray(i, i + size));
			const result = run(chunks);
			expect(result.objects.map((o) => o.seq)).toEqual([100, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
			expect(result.incidents).toHaveLength(1);
		}
	});

	test('the warning names the reason and shows a short, clean excerpt', () => {
		const result = run([Buffer.from(`{"event":"incomingcall","values":{\n${line(1)}`)]);
		expect(result.incidents).toEqual([{ excerpt: '{"event":"incomingcall","values":{', reason: 'a key was expected' }]);
		const noisy = run([Buffer.concat([Buffer.from('ab\x00\x01'), Buffer.alloc(500, 0x41), Buffer.from(`\n${line(1)}`)])]);
		expect(noisy.incidents[0].excerpt).toMatch(/^ab\ufffd\ufffdA+…$/);
		expect(noisy.incidents[0].excerpt.length).toBe(201);
	});

	test('an event swallowed by a fragment at the end of the stream still comes out when the stream ends', () => {
		const result = run([Buffer.from(`{"a":{"b":\n${line(7)}`)]);
		expect(result.objects.map((o) => o.seq)).toEqual([7]);
		expect(result.incidents).toHaveLength(1);
	});

	test('an object over the size limit is given up; the stream recovers and memory is returned', () => {
		const huge = Buffer.from(`{"event":"x","values":"${'a'.repeat(3 * 1024 * 1024)}"}\n`);
		const chunks = [huge, Buffer.from(line(1))];
		const result = run(chunks);
		expect(result.objects.map((o) => o.seq)).toEqual([1]);
		expect(result.incidents[0].reason).toMatch(/larger than 1048576 bytes/);
	});

	test('20 MB of garbage in one chunk: the events around it arrive and the splitter keeps at most 4 MiB', () => {
		const noise = Buffer.alloc(20 * 1024 * 1024);
		for (let i = 0; i < noise.length; i++) noise[i] = (i * 2_654_435_761) >>> 24;
		const result = run([Buffer.from(line(1)), noise, Buffer.from(`\n${line(2)}`)]);
		expect(result.objects.filter((o) => typeof o.seq === 'number').map((o) => o.seq)).toEqual([1, 2]);
		const splitter = new JsonObjectSplitter({ onObject: () => undefined });
		splitter.push(noise);
		expect(splitter.retainedBytes).toBeLessThanOrEqual(4 * 1024 * 1024);
	});
});
