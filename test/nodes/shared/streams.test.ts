import { DEFAULT_BACKOFF, backoffDelay } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/streams/backoff';
import { JsonObjectSplitter } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/streams/jsonObjects';

function split(chunks: Uint8Array[], maxObjectBytes?: number) {
	const objects: unknown[] = [];
	const malformed: string[] = [];
	const splitter = new JsonObjectSplitter({
		onObject: (o) => objects.push(o),
		onMalformed: (fragment) => malformed.push(fragment),
		maxObjectBytes,
	});
	for (const chunk of chunks) splitter.push(chunk);
	return { objects, malformed, splitter };
}

const EVENTS = [
	{ event: 'incomingcall', location: null, values: { callerIdNumber: '+447700900123', callerIdName: 'Zoë "Z" {Ærø} 📞', endpoint: 'https://pbx/api/v1/customers/1/endpoints/201' } },
	{ event: 'smsreceived', location: null, values: { to: '+441632960001', from: '+447700900001', excerpt: 'brace } and \\ backslash \\" quote' } },
	{ event: 'smsdelivered', location: null, values: {} },
	{ event: 'heartbeat', location: null, values: {} },
];

function bytes(text: string): Uint8Array {
	return new TextEncoder().encode(text);
}

function chunksAt(all: Uint8Array, points: number[]): Uint8Array[] {
	const out: Uint8Array[] = [];
	let start = 0;
	for (const point of [...points, all.length]) {
		out.push(all.subarray(start, point));
		start = point;
	}
	return out;
}

describe('JSON object stream splitter', () => {
	const framings: Record<string, string> = {
		'back to back': EVENTS.map((e) => JSON.stringify(e)).join(''),
		'one per line': EVENTS.map((e) => `${JSON.stringify(e)}\n`).join(''),
		'CRLF and padding': EVENTS.map((e) => ` \r\n\t${JSON.stringify(e, null, 2)}  \r\n`).join(''),
	};

	test.each(Object.entries(framings))('%s: a cut at every single byte position', (_name, text) => {
		const all = bytes(text);
		for (let cut = 1; cut < all.length; cut++) {
			const { objects, malformed } = split(chunksAt(all, [cut]));
			expect(malformed).toEqual([]);
			expect(objects).toEqual(EVENTS);
		}
	});

	test.each(Object.entries(framings))('%s: one byte at a time', (_name, text) => {
		const all = bytes(text);
		const { objects } = split(Array.from(all, (_b, i) => all.subarray(i, i + 1)));
		expect(objects).toEqual(EVENTS);
	});

	test('many random cuts, many objects', () => {
		const many = Array.from({ length: 200 }, (_v, i) => ({ ...EVENTS[i % 3], seq: i }));
		const all = bytes(many.map((e) => JSON.stringify(e)).join(i18nPadding()));
		for (let round = 0; round < 20; round++) {
			const points = Array.from({ length: 50 }, () => 1 + Math.floor(Math.random() * (all.length - 1))).sort((a, b) => a - b);
			expect(split(chunksAt(all, [...new Set(points)])).objects).toEqual(many);
		}
	});

	test('lines of one object, then a line of two glued objects and garbage, then lines again: all in order, whatever the cuts', () => {
		// Whole lines are parsed a block at a time; a line that is not one object hands the scan the
		// right byte offset although the block before it holds multi-byte characters.
		const lines = [EVENTS[0], EVENTS[1], EVENTS[0]].map((e) => JSON.stringify(e)).join('\n');
		const text = `${lines}\n${JSON.stringify(EVENTS[2])}${JSON.stringify(EVENTS[3])}\nnoise ✓\n  ${JSON.stringify(EVENTS[0])}\n${JSON.stringify(EVENTS[1])}\n`;
		const expected = [EVENTS[0], EVENTS[1], EVENTS[0], EVENTS[2], EVENTS[3], EVENTS[0], EVENTS[1]];
		const all = bytes(text);
		for (let cut = 1; cut < all.length; cut += 7) {
			const { objects, malformed } = split(chunksAt(all, [cut]));
			expect(objects).toEqual(expected);
			expect(malformed.map((m) => m.trim())).toEqual(['noise ✓']);
		}
		expect(split([all]).objects).toEqual(expected);
	});

	test('lines are never "repaired" into valid JSON: an object broken over lines without a comma, a raw line break in a string', () => {
		const next = '{"event":"smsdelivered","location":null,"values":{}}';
		for (const broken of ['{"a":1\n"b":2}', '{"a":"x\ny"}']) {
			const { objects, malformed } = split([bytes(`${next}\n${broken}\n${next}\n`)]);
			expect([broken, objects]).toEqual([broken, [EVENTS[2], EVENTS[2]]]);
			expect([broken, malformed.length]).toEqual([broken, 1]);
		}
	});

	test('an invalid object is reported and skipped; the next one still arrives', () => {
		const { objects, malformed } = split([bytes('{"event":"incomingcall","values":{"callerIdNumber":,}}\n{"event":"smsdelivered","location":null,"values":{}}')]);
		expect(objects).toEqual([EVENTS[2]]);
		expect(malformed).toEqual(['{"event":"incomingcall","values":{"callerIdNumber":,}}']);
	});

	test('text outside objects is reported once the next object shows where it ends', () => {
		const { objects, malformed } = split([bytes('garbage '), bytes('more{"event":"smsdelivered","location":null,"values":{}}')]);
		expect(objects).toEqual([EVENTS[2]]);
		expect(malformed).toEqual(['garbage more']);
	});

	test('an object that never closes is abandoned at the size limit, and the stream recovers', () => {
		const { objects, malformed } = split([bytes(`{"event":"x","values":"${'a'.repeat(300)}`), bytes('\n{"event":"smsdelivered","location":null,"values":{}}')], 100);
		expect(malformed[0]).toMatch(/^\{"event":"x"/);
		expect(objects).toEqual([EVENTS[2]]);
	});

	test('pending text is what waits for more bytes', () => {
		const { splitter } = split([bytes('{"event":"inc')]);
		expect(splitter.pending).toBe('{"event":"inc');
	});
});

function i18nPadding() {
	return '\n \u00a0'.slice(0, 2);
}

describe('backoff', () => {
	test('grows exponentially, is capped, and is jittered between half and all of the cap', () => {
		expect(backoffDelay(0, { ...DEFAULT_BACKOFF, random: () => 0 })).toBe(500);
		expect(backoffDelay(0, { ...DEFAULT_BACKOFF, random: () => 1 })).toBe(1000);
		expect(backoffDelay(3, { ...DEFAULT_BACKOFF, random: () => 1 })).toBe(8000);
		expect(backoffDelay(20, { ...DEFAULT_BACKOFF, random: () => 1 })).toBe(60_000);
		const samples = Array.from({ length: 1000 }, () => backoffDelay(4));
		expect(Math.min(...samples)).toBeGreaterThanOrEqual(8000);
		expect(Math.max(...samples)).toBeLessThanOrEqual(16_000);
		expect(new Set(samples).size).toBeGreaterThan(100);
	});

});
