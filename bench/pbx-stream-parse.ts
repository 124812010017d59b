/**
 * Stream framing: split + parse throughput of the trigger's JSON object splitter over large
 * recorded streams, in events/s, the best of seven rounds each. Its target: linear, bounded and at
 * least 100,000 events/s.
 * - one object per line (what the sandbox sends by default), mixed framing (objects glued back to
 *   back, CRLF, tabs, padding), garbage-heavy (after every tenth event an unclosed fragment, stray
 *   text, binary noise or a truncated multi-byte character): each >= 100,000 events/s, every
 *   event emitted;
 * - 100 MB of garbage interleaved with 1,000 events: under 2 s (linear time), every event emitted,
 *   the splitter's memory bounded (judged in smoke mode too: the bytes are the same on any machine).
 * Chunks are cut at random sizes (1 byte to 16 KiB), as a network delivers them.
 * Run: npm run bench -- pbx-stream-parse (BENCH_NODE=<path to a node binary> to run it on
 * another Node.js, such as the one n8n runs on: UTF-8 decoding got much faster in Node.js 24).
 */
import { JsonObjectSplitter } from '../packages/n8n-nodes-telephony-platform/nodes/shared/streams/jsonObjects';
import { loadAverage, num, report, run, sized, summary } from './lib';
import type { Figure } from './lib';

const EVENTS = sized(200_000, 2000);
const ROUNDS = sized(7, 1);
/** Events of the garbage flood, each after 100 KB of garbage. */
const FLOOD_EVENTS = sized(1000, 10);
const TARGET_EVENTS_PER_SECOND = 100_000;

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

const load = () => `Node.js ${process.version}, load average ${loadAverage()}`;

/** The splitter over one recording, the best of ROUNDS runs: events/s. */
function measure(name: string, chunks: Buffer[]): Figure[] {
	timeSplitter(chunks, EVENTS);
	const runs = Array.from({ length: ROUNDS }, () => timeSplitter(chunks, EVENTS));
	const rate = EVENTS / (Math.min(...runs.map((r) => r.ms)) / 1000);
	const bytes = chunks.reduce((n, c) => n + c.length, 0);
	return report(`Hosted PBX stream framing, ${name}: ${EVENTS} events, ${(bytes / 1e6).toFixed(1)} MB in ${chunks.length} random chunks (${load()})`, [
		{ name: `splitter (split + parse) throughput, best of ${ROUNDS}`, value: rate, unit: 'events/s', target: '>= 100,000/s', met: rate >= TARGET_EVENTS_PER_SECOND },
		...(runs[0].incidents ? [{ name: 'incidents reported (one per malformed stretch)', value: runs[0].incidents, unit: '' }] : []),
	]);
}

function garbageFlood(): { figures: Figure[]; ms: number; held: number } {
	// Events each after 100 KB of garbage: binary noise, stray text and fragments in turn.
	const events = FLOOD_EVENTS;
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
	const runs = Array.from({ length: sized(3, 1) }, () => timeSplitter(chunks, events));
	const best = Math.min(...runs.map((r) => r.ms));
	const held = Math.max(...runs.map((r) => r.maxRetained));
	const figures = report(`Hosted PBX stream framing, garbage flood: ${(stream.length / 1e6).toFixed(0)} MB, ${events} events each after 100 KB of garbage (${load()})`, [
		{ name: `time to split (best of ${runs.length})`, value: best, unit: 'ms', target: '< 2000', met: best < 2000 },
		{ name: 'throughput', value: stream.length / 1e6 / (best / 1000), unit: 'MB/s' },
		{ name: 'incidents reported', value: runs[0].incidents, unit: `(of ${events} garbage stretches)` },
		{ name: 'most bytes held by the splitter', value: held / 1024, unit: 'KiB', target: '<= 4096 + chunk', met: held <= 4 * 1024 * 1024 + 16_384, exact: true },
	]);
	return { figures, ms: best, held };
}

run(async () => {
	const figures = [
		...measure('one object per line (the recorded sandbox stream)', recording(['\n'])),
		...measure('mixed framing (glued, CRLF, tabs, padding)', recording(['\n', '', '\r\n', '  \n', '\t'])),
		...measure('garbage-heavy (a malformed stretch after every tenth event)', recording(['\n', '', '\r\n'], 10)),
	];
	const rates = figures.filter((f) => f.unit === 'events/s').map((f) => f.value);
	const flood = garbageFlood();
	figures.push(...flood.figures);
	summary(
		`${rates.map((r) => num(r)).join(' / ')} events/s (one per line / mixed framing / garbage-heavy); ${num(FLOOD_EVENTS * 0.1)} MB of garbage with ${num(FLOOD_EVENTS)} events split in ${num(flood.ms)} ms, at most ${num(flood.held / 1024)} KiB held`,
		'target ≥ 100,000 events/s, the flood < 2 s, ≤ 4 MiB + a chunk held',
		figures,
	);
});
