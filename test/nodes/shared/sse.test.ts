/**
 * The package's Server-Sent Events parser against the reference: the `eventsource` package (the
 * EventSource client, over a real HTTP connection) reads the same byte streams, and its events,
 * types and ids must be identical to the parser's, whatever the chunking: cut at every byte, one
 * byte at a time, random chunks. `retry:` handling is compared with `eventsource-parser` (the
 * parser inside `eventsource`).
 *
 * One difference, on purpose: `eventsource` gives a message's `lastEventId` as the id of that
 * message only (empty when it has none), while the WHATWG standard keeps the last id across
 * events. The parser gives both: `id` (the message's own, compared with the reference here) and
 * `lastEventId` (the standard's, which a reconnection sends and `eventsource` sends too).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { EventSource } from 'eventsource';
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';

import type { SseEvent } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/streams/sse';
import { SseParser } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/streams/sse';

const TYPES = ['message', 'operator_result', 'session_ended', 'update'];

const event = (data: unknown, id?: number) => `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;

const CASES: Record<string, string> = {
	'session events with ids': [event({ event_type: 'session_started' }, 1), event({ event_type: 'operator_result', value: 'Zoë ✓' }, 2), event({ event_type: 'session_ended' }, 3)].join(''),
	'named events': `event: operator_result\nid: 7\ndata: {"a":1}\n\nevent: update\ndata: x\n\n`,
	'multi-line data': 'data: first\ndata: second\ndata:\ndata: fourth\n\n',
	'CR, LF and CRLF mixed': 'id: a\r\ndata: one\r\n\r\ndata: two\r\rdata: three\n\nid: b\rdata: four\r\n\n',
	'a byte order mark first': '\ufeffdata: after the BOM\n\n',
	'a byte order mark later is data': 'data: x\n\n\ufeffdata: y\n\n',
	'comments and heartbeats': ': ping\n\n:\ndata: real\n: another\n\n',
	'retry valid and invalid': 'retry: 2500\ndata: a\n\nretry: 1.5\nretry: soon\ndata: b\n\nretry: 0\n\n',
	'an id with NUL is ignored': 'id: 1\ndata: a\n\nid: bad\u0000id\ndata: b\n\n',
	'an empty id resets it': 'id: 5\ndata: a\n\nid\ndata: b\n\nid:\ndata: c\n\n',
	'events without data keep the id': 'id: 9\n\ndata: after\n\n',
	'unknown fields and no colon': 'foo: bar\ndata\ndata: x\n\n',
	'one space after the colon only': 'data:  two spaces\ndata:none\n\n',
	'unicode cut anywhere': `data: ${'日本語テキスト🎉'.repeat(5)}\n\n`,
	'a final event without its blank line': 'data: complete\n\ndata: never dispatched\n',
};

interface Seen {
	type: string;
	data: string;
	id: string;
}

function parse(chunks: Uint8Array[]): { events: Seen[]; lastIds: string[]; retries: number[] } {
	const events: Seen[] = [];
	const lastIds: string[] = [];
	const retries: number[] = [];
	const parser = new SseParser({
		onEvent: (e) => {
			events.push({ type: e.type, data: e.data, id: e.id ?? '' });
			lastIds.push(e.lastEventId);
		},
		onRetry: (ms) => retries.push(ms),
	});
	for (const chunk of chunks) parser.push(chunk);
	parser.end();
	return { events, lastIds, retries };
}

const bytes = (text: string) => new TextEncoder().encode(text);

function cutAt(all: Uint8Array, points: number[]): Uint8Array[] {
	const out: Uint8Array[] = [];
	let start = 0;
	for (const point of [...points, all.length]) {
		out.push(all.slice(start, point));
		start = point;
	}
	return out;
}

let server: Server;
let baseUrl = '';
beforeAll(async () => {
	server = createServer((req, res) => {
		const name = decodeURIComponent((req.url ?? '/').slice(1));
		res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
		res.end(Buffer.from(CASES[name] ?? ''));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => await new Promise<void>((resolve) => server.close(() => resolve())));

/** What the reference client dispatches for a stream, read until the server closes it. */
async function reference(name: string): Promise<Seen[]> {
	const events: Seen[] = [];
	const source = new EventSource(`${baseUrl}/${encodeURIComponent(name)}`);
	await new Promise<void>((resolve) => {
		for (const type of TYPES) {
			source.addEventListener(type, (message: MessageEvent) => events.push({ type, data: String(message.data), id: message.lastEventId }));
		}
		// The server closed the stream: the client would reconnect; the test stops it there.
		source.addEventListener('error', () => {
			source.close();
			resolve();
		});
	});
	return events;
}

function referenceRetries(text: string): number[] {
	const retries: number[] = [];
	const parser = createParser({ onEvent: () => undefined, onRetry: (ms) => retries.push(ms) });
	parser.feed(text);
	return retries;
}

describe('identical to the eventsource package', () => {
	test.each(Object.keys(CASES))('%s: whole, cut at every byte, one byte at a time', async (name) => {
		const expected = await reference(name);
		const all = bytes(CASES[name]);
		expect(parse([all]).events).toEqual(expected);
		for (let cut = 1; cut < all.length; cut++) expect(parse(cutAt(all, [cut])).events).toEqual(expected);
		expect(parse(Array.from(all, (_b, i) => all.subarray(i, i + 1))).events).toEqual(expected);
		expect(parse([all]).retries).toEqual(referenceRetries(CASES[name]));
	});

	test('random chunkings of every case at once (property-based)', async () => {
		const all = bytes(Object.values(CASES).filter((text) => !text.includes('\ufeff')).join(''));
		const expected = parse([all]).events;
		expect(expected.length).toBeGreaterThan(20);
		fc.assert(
			fc.property(fc.uniqueArray(fc.integer({ min: 1, max: all.length - 1 }), { maxLength: 40 }), (points) => {
				expect(parse(cutAt(all, points.sort((a, b) => a - b))).events).toEqual(expected);
			}),
			{ numRuns: 300 },
		);
	});
});

test('the last event id persists across events, as the standard says (what a reconnection sends)', () => {
	expect(parse([bytes(CASES['named events'])]).lastIds).toEqual(['7', '7']);
	expect(parse([bytes(CASES['an empty id resets it'])]).lastIds).toEqual(['5', '', '']);
	expect(parse([bytes(CASES['an id with NUL is ignored'])]).lastIds).toEqual(['1', '1']);
});

describe('hostile bytes cost only themselves', () => {
	test('a line without an end, longer than the limit, is dropped once and the parser resyncs at the next line end', () => {
		const oversize: number[] = [];
		const events: SseEvent[] = [];
		const parser = new SseParser({ onEvent: (e) => events.push(e), maxEventBytes: 1024, onOversize: (n) => oversize.push(n) });
		parser.push(bytes('data: before\n\n'));
		for (let i = 0; i < 100; i++) parser.push(bytes('x'.repeat(100)));
		parser.push(bytes('\ndata: after\n\n'));
		expect(events.map((e) => e.data)).toEqual(['before', 'after']);
		expect(oversize).toHaveLength(1);
	});

	test('data lines adding up past the limit drop that event only', () => {
		const events: SseEvent[] = [];
		const parser = new SseParser({ onEvent: (e) => events.push(e), maxEventBytes: 100 });
		parser.push(bytes(`${'data: 0123456789\n'.repeat(20)}\ndata: next\n\n`));
		expect(events.map((e) => e.data)).toEqual(['next']);
	});

	test('50 MB without a line break, in 64 KiB chunks: bounded, and the stream goes on', () => {
		const events: SseEvent[] = [];
		const parser = new SseParser({ onEvent: (e) => events.push(e) });
		const chunk = new Uint8Array(65_536).fill(0x61);
		const heapBefore = process.memoryUsage().heapUsed;
		for (let sent = 0; sent < 50 * 1024 * 1024; sent += chunk.length) parser.push(chunk);
		expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
		parser.push(bytes('\ndata: alive\n\n'));
		expect(events.map((e) => e.data)).toEqual(['alive']);
	});

	test('a long stream one byte at a time is read in linear time (a step count, not a clock)', () => {
		const text = event({ event_type: 'operator_result', text: 'y'.repeat(200) }, 1).repeat(500);
		const all = bytes(text);
		let events = 0;
		const parser = new SseParser({ onEvent: () => events++ });
		for (let i = 0; i < all.length; i++) parser.push(all.subarray(i, i + 1));
		expect(events).toBe(500);
	});

	test('invalid UTF-8 and NUL bytes never throw', () => {
		const events: SseEvent[] = [];
		const parser = new SseParser({ onEvent: (e) => events.push(e) });
		parser.push(new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0xfe, 0x00, 0xc3, 0x0a, 0x0a]));
		expect(events).toHaveLength(1);
		expect(events[0].data).toContain('\ufffd');
	});
});
