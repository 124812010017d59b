/**
 * Stream framing: split + parse throughput of the trigger's JSON object splitter over large
 * recorded streams, as a ratio to JSON.parse of the same valid objects alone (already split),
 * alternated in the same run so that load hits both alike; the best of seven rounds each.
 * - one object per line (what the sandbox sends by default): target >= 0.8;
 * - mixed framing (objects glued back to back, CRLF, tabs, padding): target >= 0.6;
 * - garbage-heavy (after every tenth event an unclosed fragment, stray text, binary noise or a
 *   truncated multi-byte character): target >= 0.5, every event emitted;
 * - 100 MB of garbage interleaved with 1,000 events: under 2 s, every event emitted, the
 *   splitter's memory bounded.
 * Chunks are cut at random sizes (1 byte to 16 KiB), as a network delivers them.
 * Run: npm run bench -- pbx-stream-parse (BENCH_NODE=<path to a node binary> to run it on
 * another Node.js, such as the one n8n runs on: UTF-8 decoding got much faster in Node.js 24).
 */
import { loadavg } from 'node:os';

import { JsonObjectSplitter } from '../nodes/shared/streams/jsonObjects';
import { report } from './lib';

const EVENTS = 200_000;

/** A seeded generator, so every run measures the same bytes. */
function generator(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
		return state / 2 ** 32;
	};
}
const random = generator(42);

const objects: string[] = [];
for (let i = 0; i < EVENTS; i++) {
	const kind = i % 3;
	const event =
		kind === 0
			? { event: 'incomingcall', location: null, values: { callerIdNumber: `+4477009${String(i).padStart(5, '0')}`, callerIdName: `Caller ${i} Zoë`, endpoint: `https://pbx.example.com/api/v1/customers/1001/endpoints/${200 + (i % 50)}` } }
			: kind === 1
				? { event: 'smsreceived', location: null, values: { to: '+441632960001', from: '+447700900001', excerpt: `Message ${i}: can you call me back? ✓` } }
				: { event: 'smsdelivered', location: null, values: {} };
	objects.push(JSON.stringify(event));
}

const noise = Buffer.from(Array.from({ length: 1 << 20 }, () => Math.floor(random() * 256)));
const GARBAGE = [
	Buffer.from('{"event":"incomingcall","values":{\n'),
	Buffer.from('HTTP/1.1 502 Bad Gateway\r\n<html>proxy error</html>\n'),
	noise.subarray(0, 100),
	Buffer.from([0xe2, 0x82]),
];

function chunked(stream: Buffer): Buffer[] {
	const chunks: Buffer[] = [];
	for (let offset = 0; offset < stream.length; ) {
		const size = 1 + Math.floor(random() * 16_384);
		chunks.push(stream.subarray(offset, offset + size));
		offset += size;
	}
	return chunks;
}

function recording(paddings: string[], garbageEvery = 0): Buffer[] {
	const parts: Buffer[] = [];
	objects.forEach((o, i) => {
		parts.push(Buffer.from(o + paddings[i % paddings.length]));
		if (garbageEvery && i % garbageEvery === garbageEvery - 1) parts.push(GARBAGE[(i / garbageEvery) % GARBAGE.length | 0]);
	});
	return chunked(Buffer.concat(parts));
}

/** Splits the chunks; every valid event (and only objects with an event) must come out. */
function timeSplitter(chunks: Buffer[], events: number): { ms: number; incidents: number; maxRetained: number } {
	let count = 0;
	let incidents = 0;
	let maxRetained = 0;
	const start = performance.now();
	const splitter = new JsonObjectSplitter({
		onObject: (object) => {
			if (typeof object.event === 'string') count++;
		},
		onMalformed: () => incidents++,
	});
	for (const chunk of chunks) {
		splitter.push(chunk);
		maxRetained = Math.max(maxRetained, splitter.retainedBytes);
	}
	splitter.end();
	const ms = performance.now() - start;
	if (count !== events) throw new Error(`the splitter emitted ${count} of ${events} events`);
	return { ms, incidents, maxRetained };
}

function timeJsonParse(): number {
	const start = performance.now();
	let sink = 0;
	for (const text of objects) sink += (JSON.parse(text) as { event: string }).event.length;
	if (sink === 0) throw new Error('unreachable');
	return performance.now() - start;
}

/**
 * The floor any splitter of bytes pays and JSON.parse alone does not: UTF-8 decoding plus one
 * JSON.parse per block of whole lines (blocks as large as the chunks), with the splitting free.
 */
function timeDecodeAndParse(chunks: Buffer[]): number {
	const stream = Buffer.concat(chunks);
	const blocks: Buffer[] = [];
	let from = 0;
	for (const chunk of chunks) {
		const end = stream.lastIndexOf(0x0a, from + chunk.length);
		if (end > from) {
			blocks.push(Buffer.from(`[${stream.toString('utf8', from, end).replaceAll('\n', ',')}]`));
			from = end + 1;
		}
	}
	const start = performance.now();
	let count = 0;
	for (const block of blocks) count += (JSON.parse(block.toString('utf8')) as unknown[]).length;
	if (count === 0) throw new Error('unreachable');
	return performance.now() - start;
}

const load = () => `Node.js ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;

function measure(name: string, chunks: Buffer[], target: number, withFloor = false) {
	timeSplitter(chunks, EVENTS);
	timeJsonParse();
	const ours: number[] = [];
	const baseline: number[] = [];
	const floor: number[] = [];
	let incidents = 0;
	for (let round = 0; round < 7; round++) {
		const run = timeSplitter(chunks, EVENTS);
		ours.push(run.ms);
		incidents = run.incidents;
		baseline.push(timeJsonParse());
		if (withFloor) floor.push(timeDecodeAndParse(chunks));
	}
	const best = Math.min(...ours);
	const bestBaseline = Math.min(...baseline);
	const ratio = bestBaseline / best;
	const bytes = chunks.reduce((n, c) => n + c.length, 0);
	report(`Hosted PBX stream framing, ${name}: ${EVENTS} events, ${(bytes / 1e6).toFixed(1)} MB in ${chunks.length} random chunks (${load()})`, [
		{ name: 'splitter (split + parse) throughput', value: EVENTS / (best / 1000), unit: 'events/s' },
		{ name: 'JSON.parse alone throughput', value: EVENTS / (bestBaseline / 1000), unit: 'events/s' },
		...(incidents ? [{ name: 'incidents reported (one per malformed stretch)', value: incidents, unit: '' }] : []),
		...(withFloor ? [{ name: 'UTF-8 decode + JSON.parse per chunk-sized block alone, as a ratio (the floor)', value: bestBaseline / Math.min(...floor), unit: '' }] : []),
		{ name: 'ratio to JSON.parse', value: ratio, unit: '', target: `>= ${target}`, met: ratio >= target },
	]);
}

function garbageFlood() {
	// 1,000 events, each after 100 KB of garbage: binary noise, stray text and fragments in turn.
	const events = 1000;
	const parts: Buffer[] = [];
	for (let i = 0; i < events; i++) {
		const offset = Math.floor(random() * (noise.length - 100_000));
		const kind = i % 4;
		parts.push(
			kind === 0
				? noise.subarray(offset, offset + 100_000)
				: kind === 1
					? Buffer.from('stray text that is no JSON at all; '.repeat(2858))
					: kind === 2
						? Buffer.from(`{"event":"incomingcall","values":{"callerIdName":"${'x'.repeat(99_950)}`)
						: Buffer.from('{"a":{"b":'.repeat(10_000)),
		);
		parts.push(Buffer.from(`\n${objects[i]}\n`));
	}
	const stream = Buffer.concat(parts);
	const chunks = chunked(stream);
	const runs = Array.from({ length: 3 }, () => timeSplitter(chunks, events));
	const best = Math.min(...runs.map((r) => r.ms));
	report(`Hosted PBX stream framing, garbage flood: ${(stream.length / 1e6).toFixed(0)} MB, ${events} events each after 100 KB of garbage (${load()})`, [
		{ name: 'time to split (best of 3)', value: best, unit: 'ms', target: '< 2000', met: best < 2000 },
		{ name: 'throughput', value: stream.length / 1e6 / (best / 1000), unit: 'MB/s' },
		{ name: 'incidents reported', value: runs[0].incidents, unit: `(of ${events} garbage stretches)` },
		{ name: 'most bytes held by the splitter', value: Math.max(...runs.map((r) => r.maxRetained)) / 1024, unit: 'KiB', target: '<= 4096 + chunk', met: Math.max(...runs.map((r) => r.maxRetained)) <= 4 * 1024 * 1024 + 16_384 },
	]);
}

measure('one object per line (the recorded sandbox stream)', recording(['\n']), 0.8, true);
measure('mixed framing (glued, CRLF, tabs, padding)', recording(['\n', '', '\r\n', '  \n', '\t']), 0.6);
measure('garbage-heavy (a malformed stretch after every tenth event)', recording(['\n', '', '\r\n'], 10), 0.5);
garbageFlood();
