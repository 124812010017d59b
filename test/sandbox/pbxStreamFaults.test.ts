import type { Sandbox } from '../../sandbox/index';
import { startSandbox } from '../../sandbox/index';
import { DEFAULT_FRAGMENT, DEFAULT_STRAY_TEXT } from '../../sandbox/pbx/stream';
import { delay, waitFor } from './helpers';

/**
 * The PBX live stream's faults (issue 18), each read with plain fetch as raw bytes: an unclosed
 * fragment, stray text, binary noise, a character cut short, megabytes of garbage between the
 * events (with the sandbox's memory bounded), a refused credential on the stream, the token
 * generator and the polled lists (persistent, counted), and a restart that drops every stream
 * and refuses new ones for a while. Through the admin API and in-process.
 */

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
	await sandbox.close();
});
const open: RawBytes[] = [];
beforeEach(() => sandbox.reset());
afterEach(() => {
	for (const stream of open.splice(0)) stream.close();
});

const AUTH = { Authorization: `Basic ${Buffer.from('acme.admin:acme-admin-secret').toString('base64')}` };

async function admin(method: string, path: string, body?: unknown) {
	const response = await fetch(`${sandbox.url}/_sandbox/pbx${path}`, {
		method,
		headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A response read as raw bytes, with a cap on what is kept (the count goes on). */
class RawBytes {
	status = 0;
	headers = new Headers();
	received = 0;
	ended = false;
	failed = false;
	private kept: Buffer[] = [];
	private keptBytes = 0;
	private readonly controller = new AbortController();

	constructor(private readonly keep = 16 * 1024 * 1024) {}

	static async open(path: string, keep?: number): Promise<RawBytes> {
		const stream = new RawBytes(keep);
		const response = await fetch(`${sandbox.url}${path}`, { headers: AUTH, signal: stream.controller.signal });
		stream.status = response.status;
		stream.headers = response.headers;
		open.push(stream);
		void (async () => {
			try {
				for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) stream.take(chunk);
				stream.ended = true;
			} catch {
				stream.failed = true;
			}
		})();
		return stream;
	}

	/** `onChunk` sees every chunk (for streams too large to keep). */
	onChunk?: (chunk: Buffer) => void;

	private take(chunk: Uint8Array): void {
		const buffer = Buffer.from(chunk);
		this.received += buffer.length;
		this.onChunk?.(buffer);
		if (this.keptBytes < this.keep) {
			this.kept.push(buffer);
			this.keptBytes += buffer.length;
		}
	}

	get bytes(): Buffer {
		return Buffer.concat(this.kept);
	}

	get closed(): boolean {
		return this.ended || this.failed;
	}

	close(): void {
		this.controller.abort();
	}
}

async function openStream(keep?: number): Promise<RawBytes> {
	const before = sandbox.pbx.stream.list().length;
	const stream = await RawBytes.open('/api/v1/stream', keep);
	expect(stream.status).toBe(200);
	await waitFor(() => sandbox.pbx.stream.list().length > before, 10_000, 'the stream to register');
	return stream;
}

const ring = (seq: number) => sandbox.pbx.publish('1001', 'incomingcall', { callerIdNumber: '+447700900123', seq });
const EVENT = (seq: number) => Buffer.from(`{"event":"incomingcall","location":null,"values":{"callerIdNumber":"+447700900123","seq":${seq}}}\n`);

/** Where each event's exact bytes stand in what arrived. */
function offsets(bytes: Buffer, count: number): number[] {
	return Array.from({ length: count }, (_v, seq) => bytes.indexOf(EVENT(seq)));
}

describe('hostile bytes before the next event', () => {
	test('an unclosed fragment, then every valid event as sent', async () => {
		const stream = await openStream();
		expect((await admin('POST', '/stream/faults', { fragment: true })).body).toEqual({ applied: 1 });
		for (let seq = 0; seq < 3; seq++) ring(seq);
		await waitFor(() => stream.bytes.includes(EVENT(2)), 10_000, 'the events');
		expect(stream.bytes.toString()).toBe(`${DEFAULT_FRAGMENT}${[0, 1, 2].map((seq) => EVENT(seq).toString()).join('')}`);
	});

	test('stray text, custom fragments, and the order they come in', async () => {
		const stream = await openStream();
		sandbox.pbx.stream.applyFaults({ strayText: true, fragment: '{"event":"smsreceived","values":{"to":"+44' });
		ring(0);
		ring(1);
		await waitFor(() => stream.bytes.includes(EVENT(1)), 10_000, 'the events');
		expect(stream.bytes.toString()).toBe(`{"event":"smsreceived","values":{"to":"+44${DEFAULT_STRAY_TEXT}${EVENT(0)}${EVENT(1)}`);
	});

	test('binary noise: random bytes with NUL and invalid UTF-8, then the event', async () => {
		const stream = await openStream();
		await admin('POST', '/stream/faults', { binaryNoise: 4096 });
		ring(0);
		await waitFor(() => stream.bytes.includes(EVENT(0)), 10_000, 'the event');
		const bytes = stream.bytes;
		const noise = bytes.subarray(0, bytes.indexOf(EVENT(0)));
		expect(bytes.length).toBe(4096 + EVENT(0).length);
		expect(noise.length).toBe(4096);
		expect(noise.includes(0x00)).toBe(true);
		expect(noise.includes(0xff)).toBe(true);
		expect(noise.includes(0xc0)).toBe(true);
		expect(Buffer.from(noise.toString('utf8'), 'utf8').equals(noise)).toBe(false);
	});

	test('a truncated multi-byte character (E2 82 of €) right before the event', async () => {
		const stream = await openStream();
		await admin('POST', '/stream/faults', { truncatedChar: true });
		ring(0);
		ring(1);
		await waitFor(() => stream.bytes.includes(EVENT(1)), 10_000, 'the events');
		expect(stream.bytes.equals(Buffer.concat([Buffer.from([0xe2, 0x82]), EVENT(0), EVENT(1)]))).toBe(true);
	});

	test('applied before the stream opens, the noise waits for its first event', async () => {
		expect((await admin('POST', '/stream/faults', { fragment: true, truncatedChar: true })).body).toEqual({ applied: 0 });
		const stream = await openStream();
		ring(0);
		await waitFor(() => stream.bytes.includes(EVENT(0)), 10_000, 'the event');
		expect(stream.bytes.equals(Buffer.concat([Buffer.from(DEFAULT_FRAGMENT), Buffer.from([0xe2, 0x82]), EVENT(0)]))).toBe(true);
	});

	test('unknown or malformed faults are refused', async () => {
		for (const body of [{ garbled: true }, { binaryNoise: 0 }, { garbage: { bytes: 10, pattern: 'zeros' } }, { dropAfter: 0 }, { fragment: 3 }]) {
			expect((await admin('POST', '/stream/faults', body)).status).toBe(400);
		}
	});
});

describe('megabytes of garbage interleaved with the events', () => {
	test('events published during the garbage go out whole between its chunks; the count is exact', async () => {
		const stream = await openStream();
		const bytes = 4 * 1024 * 1024;
		await admin('POST', '/stream/faults', { garbage: { bytes, chunkBytes: 32 * 1024, pattern: 'braces' } });
		for (let seq = 0; seq < 20; seq++) {
			ring(seq);
			await delay(2);
		}
		const total = bytes + [...Array(20).keys()].reduce((sum, seq) => sum + EVENT(seq).length, 0);
		await waitFor(() => stream.received === total, 10_000, 'all the bytes');
		const where = offsets(stream.bytes, 20);
		expect(where.every((offset) => offset >= 0)).toBe(true);
		// In order, and some of them before the garbage had all gone.
		expect([...where].sort((a, b) => a - b)).toEqual(where);
		expect(where[0]).toBeLessThan(bytes);
		expect(sandbox.pbx.stream.list()[0].garbageLeft).toBe(0);
	});

	test('100 MB of binary garbage with events: the sandbox keeps one block, the events all arrive', async () => {
		const stream = await openStream(0);
		const bytes = 100 * 1024 * 1024;
		const event = EVENT(0);
		let found = 0;
		let tail = Buffer.alloc(0);
		stream.onChunk = (chunk) => {
			// Exact occurrences, across chunk boundaries: a tail one byte shorter than the event is carried.
			const window = Buffer.concat([tail, chunk]);
			for (let at = window.indexOf(event); at >= 0; at = window.indexOf(event, at + event.length)) found += 1;
			tail = Buffer.from(window.subarray(Math.max(0, window.length - event.length + 1)));
		};
		const baseline = process.memoryUsage();
		let peak = 0;
		const sampler = setInterval(() => {
			const now = process.memoryUsage();
			peak = Math.max(peak, now.heapUsed + now.arrayBuffers - baseline.heapUsed - baseline.arrayBuffers);
		}, 10);
		sandbox.pbx.stream.applyFaults({ garbage: { bytes } });
		let published = 0;
		const ticker = setInterval(() => (published += ring(0)), 5);
		await waitFor(() => sandbox.pbx.stream.list()[0]?.garbageLeft === 0, 30_000, 'the garbage to be sent');
		clearInterval(ticker);
		published += ring(0);
		await waitFor(() => stream.received === bytes + published * event.length, 10_000, 'every byte to arrive');
		clearInterval(sampler);
		expect(published).toBeGreaterThan(10);
		expect(found).toBe(published);
		expect(peak).toBeLessThan(48 * 1024 * 1024);
	}, 60_000);
});

describe('a refused credential', () => {
	test('401 on the stream, the token generator and the polled lists, every time until cleared, counted', async () => {
		const faults = sandbox.pbx.refuse({ status: 401 });
		expect(faults.map((f) => f.pathPrefix)).toEqual(['/api/v1/stream', '/api/v1/tokengenerator', '/api/v1/customers/*/calls', '/api/v1/customers/*/sms']);
		for (let i = 0; i < 3; i++) {
			const stream = await fetch(`${sandbox.url}/api/v1/stream`, { headers: AUTH });
			expect(stream.status).toBe(401);
			expect(stream.headers.get('www-authenticate')).toBe('Basic realm="Hosted PBX API"');
			expect(await stream.json()).toEqual({ status: 401, message: 'Authentication required' });
		}
		for (const path of ['/tokengenerator', '/customers/me/calls', '/customers/1001/sms?page=2']) {
			expect((await fetch(`${sandbox.url}/api/v1${path}`, { headers: AUTH })).status).toBe(401);
		}
		expect((await fetch(`${sandbox.url}/api/v1/customers/me`, { headers: AUTH })).status).toBe(200);
		expect(sandbox.pbx.stream.list()).toHaveLength(0);
		const listed = await admin('GET', '/refuse');
		expect(listed.body.hits).toBe(6);
		expect(listed.body.refusals.map((r: Record<string, unknown>) => [r.target, r.hits])).toEqual([['stream', 3], ['tokengenerator', 1], ['calls', 1], ['sms', 1]]);
		expect((await admin('DELETE', '/refuse')).body).toEqual({ removed: 4 });
		await openStream();
	});

	test('403 through the admin API, on chosen targets, or for the next N requests only', async () => {
		const refused = await admin('POST', '/refuse', { status: 403, targets: ['stream'], count: 2 });
		expect(refused.body.refusals).toEqual([expect.objectContaining({ target: 'stream', status: 403, remaining: 2, hits: 0 })]);
		for (let i = 0; i < 2; i++) {
			const answer = await fetch(`${sandbox.url}/api/v1/stream`, { headers: AUTH });
			expect(answer.status).toBe(403);
			expect(await answer.json()).toEqual({ status: 403, message: 'Access to this resource is forbidden' });
		}
		expect((await fetch(`${sandbox.url}/api/v1/tokengenerator`, { headers: AUTH })).status).toBe(200);
		await openStream();
		expect((await admin('POST', '/refuse', { status: 500 })).status).toBe(400);
		expect((await admin('POST', '/refuse', { targets: ['recordings'] })).status).toBe(400);
		sandbox.pbx.refuse({ targets: ['all'] });
		expect((await fetch(`${sandbox.url}/api/v1/customers/me`, { headers: AUTH })).status).toBe(401);
		sandbox.reset();
		expect(sandbox.pbx.refusals().refusals).toEqual([]);
	});
});

describe('a restart', () => {
	test('drops every stream and refuses new ones (503 with Retry-After) for downMs; the rest of the API answers', async () => {
		const first = await openStream();
		const second = await openStream();
		const restarted = await admin('POST', '/stream/restart', { downMs: 400 });
		expect(restarted.body).toMatchObject({ dropped: 2, scope: 'stream', refuseWith: 503 });
		await waitFor(() => first.closed && second.closed, 10_000, 'the streams to drop');
		const refused = await fetch(`${sandbox.url}/api/v1/stream`, { headers: AUTH });
		expect(refused.status).toBe(503);
		expect(refused.headers.get('retry-after')).toBe('1');
		expect((await fetch(`${sandbox.url}/api/v1/customers/me`, { headers: AUTH })).status).toBe(200);
		expect((await admin('GET', '/stream/restart')).body).toMatchObject({ down: true, refused: 1 });
		await delay(450);
		const back = await openStream();
		ring(0);
		await waitFor(() => back.bytes.includes(EVENT(0)), 10_000, 'an event after the restart');
		expect((await admin('GET', '/stream/restart')).body).toMatchObject({ down: false, refused: 1 });
	});

	test('scope api refuses the whole PBX API; refuseWith reset closes connections unanswered', async () => {
		sandbox.pbx.restartStream({ downMs: 300, scope: 'api', refuseWith: 'reset' });
		await expect(fetch(`${sandbox.url}/api/v1/customers/me`, { headers: AUTH })).rejects.toThrow(/fetch failed/);
		await expect(fetch(`${sandbox.url}/api/v1/stream`, { headers: AUTH })).rejects.toThrow(/fetch failed/);
		await delay(350);
		expect((await fetch(`${sandbox.url}/api/v1/customers/me`, { headers: AUTH })).status).toBe(200);
		sandbox.pbx.restartStream({ downMs: 10_000, scope: 'api' });
		expect((await fetch(`${sandbox.url}/api/v1/customers/me/calls`, { headers: AUTH })).status).toBe(503);
		sandbox.reset();
		await openStream();
	});
});
