/**
 * Stream framing: split + parse throughput of the trigger's JSON object splitter over a large
 * recorded stream, as a ratio to JSON.parse of the same objects alone (already split), same run.
 * Two recordings: one object per line (what the sandbox sends by default), and mixed framing
 * (objects glued back to back, CRLF, tabs, padding) as the worst case.
 * Run: npm run bench -- pbx-stream-parse
 */
import { JsonObjectSplitter } from '../nodes/shared/streams/jsonObjects';
import { report } from './lib';

const EVENTS = 200_000;
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

function recording(paddings: string[]): Buffer[] {
	const stream = Buffer.from(objects.map((o, i) => o + paddings[i % paddings.length]).join(''));
	const chunks: Buffer[] = [];
	for (let offset = 0; offset < stream.length; ) {
		const size = 1 + Math.floor(Math.random() * 16_384);
		chunks.push(stream.subarray(offset, offset + size));
		offset += size;
	}
	return chunks;
}

function timeSplitter(chunks: Buffer[]): number {
	let count = 0;
	const start = performance.now();
	const splitter = new JsonObjectSplitter({ onObject: () => count++ });
	for (const chunk of chunks) splitter.push(chunk);
	const ms = performance.now() - start;
	if (count !== EVENTS) throw new Error(`the splitter lost objects: ${count} of ${EVENTS}`);
	return ms;
}

function timeJsonParse(): number {
	const start = performance.now();
	let sink = 0;
	for (const text of objects) sink += (JSON.parse(text) as { event: string }).event.length;
	if (sink === 0) throw new Error('unreachable');
	return performance.now() - start;
}

function measure(name: string, chunks: Buffer[], target: boolean) {
	timeSplitter(chunks);
	timeJsonParse();
	// Alternate rounds so background load hits both alike; keep the best of each.
	const ours: number[] = [];
	const baseline: number[] = [];
	for (let round = 0; round < 7; round++) {
		ours.push(timeSplitter(chunks));
		baseline.push(timeJsonParse());
	}
	const best = Math.min(...ours);
	const bestBaseline = Math.min(...baseline);
	const ratio = bestBaseline / best;
	const bytes = chunks.reduce((n, c) => n + c.length, 0);
	report(`Hosted PBX stream framing, ${name}: ${EVENTS} events, ${(bytes / 1e6).toFixed(1)} MB in ${chunks.length} random chunks`, [
		{ name: 'splitter (split + parse) throughput', value: EVENTS / (best / 1000), unit: 'events/s' },
		{ name: 'JSON.parse alone throughput', value: EVENTS / (bestBaseline / 1000), unit: 'events/s' },
		target
			? { name: 'ratio to JSON.parse', value: ratio, unit: '', target: '>= 0.7', met: ratio >= 0.7 }
			: { name: 'ratio to JSON.parse (worst case, no target)', value: ratio, unit: '' },
	]);
}

measure('one object per line (the recorded sandbox stream)', recording(['\n']), true);
measure('mixed framing (glued, CRLF, tabs, padding)', recording(['\n', '', '\r\n', '  \n', '\t']), false);
