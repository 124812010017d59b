import type { Sandbox } from '../../sandbox/index';
import { startSandbox } from '../../sandbox/index';
import { HTML_PAGE } from '../../sandbox/core/faults';
import { delay, waitFor } from './helpers';

/**
 * The request faults of the admin API (`/_sandbox/faults`): a server that hangs, trickles,
 * answers a huge body, answers 2xx with HTML or with nothing, or answers a status until cleared,
 * per API and path prefix, counted. Each case is read with plain fetch, as any client would see
 * it. reset() and close() end what is still hanging or trickling.
 */

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
	await sandbox.close();
});
beforeEach(() => sandbox.reset());

const PBX_AUTH = { Authorization: `Basic ${Buffer.from('acme.admin:acme-admin-secret').toString('base64')}` };
const CUSTOMER = '/api/v1/customers/me';

async function admin(method: string, path: string, body?: unknown) {
	const response = await fetch(`${sandbox.url}/_sandbox${path}`, {
		method,
		headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const get = (path: string, init: RequestInit = {}) => fetch(`${sandbox.url}${path}`, { headers: PBX_AUTH, ...init });

describe('status faults', () => {
	test('the next N matching requests, then the real answer; the log names the fault', async () => {
		const queued = await admin('POST', '/faults', { status: 503, count: 2, api: 'pbx', pathPrefix: CUSTOMER, headers: { 'Retry-After': '1' } });
		expect(queued.body).toMatchObject({ queued: true, fault: { kind: 'status', status: 503, remaining: 2, hits: 0 } });
		expect((await get('/api/v1/customers/me/phonebook')).status).toBe(503);
		const second = await get(CUSTOMER);
		expect(second.status).toBe(503);
		expect(second.headers.get('retry-after')).toBe('1');
		expect((await get(CUSTOMER)).status).toBe(200);
		const log = sandbox.context.log.list({ api: 'pbx' });
		expect(log.map((entry) => [entry.status, entry.fault])).toEqual([
			[503, `status#${queued.body.fault.id}`],
			[503, `status#${queued.body.fault.id}`],
			[200, undefined],
		]);
	});

	test('persist: every matching request until cleared, counted; * stands for one path segment', async () => {
		const { body } = await admin('POST', '/faults', { status: 401, persist: true, api: 'pbx', pathPrefix: '/api/v1/customers/*/calls', body: { status: 401, message: 'refused' } });
		for (let i = 0; i < 4; i++) expect((await get('/api/v1/customers/me/calls')).status).toBe(401);
		expect((await get('/api/v1/customers/1001/calls')).status).toBe(401);
		expect((await get('/api/v1/customers/me/sms')).status).toBe(200);
		expect((await admin('GET', `/faults/${body.fault.id}`)).body).toMatchObject({ hits: 5, remaining: null, persist: true });
		expect((await admin('GET', '/faults')).body.faults).toHaveLength(1);
		expect((await admin('DELETE', `/faults/${body.fault.id}`)).body).toEqual({ removed: 1 });
		expect((await get('/api/v1/customers/me/calls')).status).toBe(200);
	});

	test('faults are per API: a PBX fault leaves the Wholesale API alone', async () => {
		await admin('POST', '/faults', { status: 500, persist: true, api: 'pbx' });
		expect((await get(CUSTOMER)).status).toBe(500);
		expect((await fetch(`${sandbox.url}/v3/tools/time`)).status).toBe(200);
	});

	test.each([
		[{ kind: 'sleep' }, /kind must be one of/],
		[{ kind: 'status' }, /status is required/],
		[{ status: 500, count: 0 }, /count must be a whole number of 1 or more/],
		[{ kind: 'huge', bytes: 3 }, /bytes must be a whole number of at least/],
	])('%j is refused', async (fault, message) => {
		const answer = await admin('POST', '/faults', fault);
		expect(answer.status).toBe(400);
		expect(answer.body.message).toMatch(message);
	});
});

describe('a server that misbehaves', () => {
	test('hang: the request is read and never answered, until the client gives up', async () => {
		await admin('POST', '/faults', { kind: 'hang', api: 'pbx', pathPrefix: CUSTOMER });
		const started = Date.now();
		await expect(get(CUSTOMER, { signal: AbortSignal.timeout(700) })).rejects.toThrow(/aborted|timeout/i);
		expect(Date.now() - started).toBeGreaterThanOrEqual(650);
		await waitFor(() => sandbox.context.faults.openAnswers() === 0, 10_000, 'the hung answer to be forgotten once the client left');
		expect(sandbox.context.log.list({ api: 'pbx' })[0]).toMatchObject({ method: 'GET', path: CUSTOMER, fault: expect.stringMatching(/^hang#/) });
	});

	test('reset() and close() end a hanging request: the client sees the connection end', async () => {
		await admin('POST', '/faults', { kind: 'hang', persist: true, api: 'pbx' });
		const hanging = get(CUSTOMER).then(
			() => 'answered',
			(error: Error) => `failed: ${(error.cause as Error | undefined)?.message ?? error.message}`,
		);
		await waitFor(() => sandbox.context.faults.openAnswers() === 1, 10_000, 'the request to hang');
		sandbox.reset();
		expect(await hanging).toMatch(/^failed: .*(closed|socket|terminated)/i);
		expect(sandbox.context.faults.openAnswers()).toBe(0);
		expect((await get(CUSTOMER)).status).toBe(200);

		const other = await startSandbox({ port: 0 });
		other.context.faults.add({ kind: 'trickle', intervalMs: 5, persist: true });
		const reader = (await fetch(`${other.url}/v3/tools/time`)).body!.getReader();
		await reader.read();
		await other.close();
		await expect((async () => {
			for (;;) if ((await reader.read()).done) return 'ended';
		})()).rejects.toThrow();
		expect(other.context.faults.openAnswers()).toBe(0);
	});

	test('trickle: headers, then one byte every intervalMs, never finishing', async () => {
		await admin('POST', '/faults', { kind: 'trickle', intervalMs: 20, api: 'pbx', pathPrefix: CUSTOMER });
		const response = await get(CUSTOMER);
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe('application/json');
		const reader = response.body!.getReader();
		// A real-time test (the trickle is paced by a real timer): twenty bytes, one a read, take at least
		// nineteen intervals; a busy machine only makes them slower, so no upper bound on the time.
		const chunks: number[] = [];
		const bytes: number[] = [];
		const started = Date.now();
		while (bytes.length < 20) {
			const { value, done } = await reader.read();
			expect(done).toBe(false);
			chunks.push(value?.length ?? 0);
			bytes.push(...(value ?? []));
		}
		expect(Date.now() - started).toBeGreaterThanOrEqual(19 * 20 - 10);
		expect(chunks.every((length) => length === 1)).toBe(true);
		expect(Buffer.from(bytes).toString()).toMatch(/^\{"items":\[\{"id":1/);
		await reader.cancel();
		await waitFor(() => sandbox.context.faults.openAnswers() === 0, 10_000, 'the trickle to stop once the client left');
	});

	test('huge: 200 MB of a valid JSON document, streamed without being held in memory', async () => {
		const bytes = 200 * 1024 * 1024;
		await admin('POST', '/faults', { kind: 'huge', bytes, api: 'pbx', pathPrefix: CUSTOMER });
		const baseline = process.memoryUsage();
		let peak = 0;
		const sampler = setInterval(() => {
			const now = process.memoryUsage();
			peak = Math.max(peak, now.heapUsed + now.arrayBuffers - baseline.heapUsed - baseline.arrayBuffers);
		}, 20);
		const response = await get(CUSTOMER);
		expect(response.status).toBe(200);
		expect(response.headers.get('content-length')).toBeNull();
		let received = 0;
		let head = '';
		let tail = Buffer.alloc(0);
		for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
			if (head.length < 200) head += Buffer.from(chunk).toString();
			tail = Buffer.concat([tail, chunk]).subarray(-64);
			received += chunk.length;
		}
		clearInterval(sampler);
		expect(received).toBe(bytes);
		expect(head).toMatch(/^\{"items":\[\{"id":1234567,"name":"a row of a huge answer"/);
		expect(tail.toString()).toMatch(/,\s*\{\}\]\}$/);
		// Held whole, the answer alone would add 200 MB.
		expect(peak).toBeLessThan(64 * 1024 * 1024);
	}, 60_000);

	test('huge with declareLength: the Content-Length comes first, and a small document parses', async () => {
		await admin('POST', '/faults', { kind: 'huge', bytes: 300_000, declareLength: true, count: 2, api: 'pbx', pathPrefix: CUSTOMER });
		const declared = await get(CUSTOMER);
		expect(declared.headers.get('content-length')).toBe('300000');
		const text = await declared.text();
		expect(text).toHaveLength(300_000);
		expect((JSON.parse(text) as { items: unknown[] }).items.length).toBeGreaterThan(3000);
		// A client that stops early leaves nothing behind.
		const early = await get(CUSTOMER);
		await early.body!.cancel();
		await waitFor(() => sandbox.context.faults.openAnswers() === 0, 10_000, 'the stream to stop');
	});

	test('nonJson: a 2xx answer whose body is an HTML page (Content-Type text/html, or as given)', async () => {
		await admin('POST', '/faults', { kind: 'nonJson', count: 2, api: 'wholesale', pathPrefix: '/v3/tools/' });
		const page = await fetch(`${sandbox.url}/v3/tools/time`);
		expect(page.status).toBe(200);
		expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
		expect(await page.text()).toBe(HTML_PAGE);
		await admin('POST', '/faults', { kind: 'nonJson', contentType: 'application/json', status: 201, api: 'pbx' });
		const claimed = await get(CUSTOMER);
		expect([claimed.status, claimed.headers.get('content-type')]).toEqual([201, 'application/json']);
		await expect(claimed.json()).rejects.toThrow(/is not valid JSON/);
	});

	test('empty: a 2xx answer with no body where the contract shows one', async () => {
		await admin('POST', '/faults', { kind: 'empty', api: 'pbx', pathPrefix: CUSTOMER });
		const empty = await get(CUSTOMER);
		expect([empty.status, empty.headers.get('content-length'), empty.headers.get('content-type')]).toEqual([200, '0', 'application/json']);
		expect(await empty.text()).toBe('');
		expect((await (await get(CUSTOMER)).json()) as object).toMatchObject({ type: 'customer' });
	});

	test('DELETE /faults clears them all and ends open answers', async () => {
		await admin('POST', '/faults', { kind: 'trickle', intervalMs: 10, persist: true, api: 'pbx' });
		const response = await get(CUSTOMER);
		await waitFor(() => sandbox.context.faults.openAnswers() === 1);
		expect((await admin('DELETE', '/faults')).body).toEqual({ removed: 1 });
		const reader = response.body!.getReader();
		await expect((async () => {
			for (;;) if ((await reader.read()).done) return 'ended';
		})()).rejects.toThrow();
		await delay(20);
		expect((await get(CUSTOMER)).status).toBe(200);
	});
});
