import type { Sandbox } from '../../sandbox/index';
import { startSandbox } from '../../sandbox/index';
import { RawStream, delay, splitJsonObjects, waitFor } from './helpers';

interface Answer {
	status: number;
	headers: Headers;
	body: Record<string, unknown>;
	text: string;
	bytes: Buffer;
}

let sandbox: Sandbox;
const streams: RawStream[] = [];

const USERS = {
	reseller: ['reseller', 'reseller-secret'],
	admin: ['acme.admin', 'acme-admin-secret'],
	extension: ['acme.201', 'acme-201-secret'],
	bright: ['bright.admin', 'bright-admin-secret'],
} as const;
type Who = keyof typeof USERS | null;

function basic(who: Exclude<Who, null>): string {
	const [user, password] = USERS[who];
	return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

async function pbx(method: string, path: string, options: { who?: Who; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
	const headers: Record<string, string> = { ...(options.headers ?? {}) };
	const who = options.who === undefined ? 'admin' : options.who;
	if (who !== null) headers.Authorization = basic(who);
	if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
	const url = path.startsWith('http') ? path : `${sandbox.url}/api/v1${path}`;
	const response = await fetch(url, {
		method,
		headers,
		body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
	});
	const bytes = Buffer.from(await response.arrayBuffer());
	const text = bytes.toString('utf8');
	let body: Record<string, unknown> = {};
	if (/json/.test(response.headers.get('content-type') ?? '')) body = JSON.parse(text) as Record<string, unknown>;
	return { status: response.status, headers: response.headers, body, text, bytes };
}

const admin = async (path: string, body: unknown = {}) => {
	const response = await fetch(`${sandbox.url}/_sandbox/pbx${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
	return (await response.json()) as Record<string, unknown>;
};

async function openStream(who: Exclude<Who, null> = 'admin'): Promise<RawStream> {
	const stream = await RawStream.open(`${sandbox.url}/api/v1/stream`, { Authorization: basic(who) });
	streams.push(stream);
	await waitFor(async () => {
		const response = await fetch(`${sandbox.url}/_sandbox/pbx/streams`);
		return ((await response.json()) as unknown[]).length >= streams.filter((s) => !s.closed).length;
	}, 10_000, 'stream registered');
	return stream;
}

/** Events of a stream as a tolerant client reads them: objects split by brace depth. */
function eventsOf(stream: RawStream): Array<{ event: string; values: Record<string, unknown> }> {
	return splitJsonObjects(stream.text).objects as Array<{ event: string; values: Record<string, unknown> }>;
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
});

afterAll(async () => {
	await sandbox.close();
});

beforeEach(() => {
	sandbox.reset();
});

afterEach(() => {
	for (const stream of streams.splice(0)) stream.close();
});

describe('authentication levels', () => {
	test('wrong credentials get 401 with a Basic challenge', async () => {
		const none = await pbx('GET', '/customers', { who: null });
		expect(none.status).toBe(401);
		expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
		const wrong = await pbx('GET', '/customers', { who: null, headers: { Authorization: `Basic ${Buffer.from('acme.admin:nope').toString('base64')}` } });
		expect(wrong.status).toBe(401);
	});

	test('company admin and extension user: me is their customer; they see only it', async () => {
		for (const who of ['admin', 'extension'] as const) {
			const me = await pbx('GET', '/customers/me', { who });
			expect(me.status).toBe(200);
			expect(me.body.uri).toBe(`${sandbox.url}/api/v1/customers/1001`);
			expect(me.body.links).toEqual(expect.objectContaining({ phoneBook: `${sandbox.url}/api/v1/customers/1001/phonebook` }));
			const list = await pbx('GET', '/customers', { who });
			expect(list.body.totalItems).toBe(1);
			expect((await pbx('GET', '/customers/1002', { who })).status).toBe(401);
		}
	});

	test('reseller lists 3 customers; me is 404 for a reseller', async () => {
		const list = await pbx('GET', '/customers', { who: 'reseller' });
		expect(list.status).toBe(200);
		expect(list.body.totalItems).toBe(3);
		expect((list.body.items as Array<{ company: string }>).map((c) => c.company)).toEqual(['Acme Widgets Ltd', 'Brightside Dental', 'Corner Shop']);
		// List items may leave out links, properties and country.
		expect(list.body.items as object[]).toEqual(expect.arrayContaining([expect.not.objectContaining({ links: expect.anything() })]));
		const me = await pbx('GET', '/customers/me', { who: 'reseller' });
		expect(me.status).toBe(404);
		expect((await pbx('GET', '/customers/1003', { who: 'reseller' })).status).toBe(200);
	});

	test('an extension user may read but not change the phone book, and only its own endpoint', async () => {
		expect((await pbx('GET', '/customers/me/phonebook', { who: 'extension' })).status).toBe(200);
		const post = await pbx('POST', '/customers/me/phonebook', { who: 'extension', body: { type: 'phonebookentry', name: 'X', phoneNumber: '+447700900111' } });
		expect(post.status).toBe(401);
		expect((await pbx('GET', '/customers/me/endpoints/201/phonestatus', { who: 'extension' })).status).toBe(200);
		expect((await pbx('GET', '/customers/me/endpoints/202/phonestatus', { who: 'extension' })).status).toBe(401);
	});
});

describe('representations', () => {
	test('paging links are absolute and present only when those pages exist', async () => {
		const first = await pbx('GET', '/customers/1001/phonebook?pageSize=2');
		expect(first.body).toMatchObject({ totalItems: 3, pageSize: 2, page: 1 });
		expect(first.body).not.toHaveProperty('prevPage');
		const next = String(first.body.nextPage);
		expect(next.startsWith(`${sandbox.url}/api/v1/customers/1001/phonebook?`)).toBe(true);
		const second = await pbx('GET', next);
		expect(second.body).toMatchObject({ page: 2, pageSize: 2 });
		expect(second.body.items).toHaveLength(1);
		expect(second.body).not.toHaveProperty('nextPage');
		expect(String(second.body.prevPage).startsWith(`${sandbox.url}/api/v1/`)).toBe(true);
		const whole = await pbx('GET', '/customers/1001/phonebook');
		expect(whole.body).not.toHaveProperty('nextPage');
		expect(whole.body).not.toHaveProperty('prevPage');
		// Filters are carried into the links.
		const calls = await pbx('GET', '/customers/1001/calls?direction=in&pageSize=1');
		expect(String(calls.body.nextPage)).toContain('direction=in');
	});

	test('429 with the rate-limit headers once the budget is spent', async () => {
		await admin('/settings', { rateLimit: 3, rateWindowSeconds: 60 });
		const remaining: Array<string | null> = [];
		for (let i = 0; i < 3; i++) {
			const answer = await pbx('GET', '/customers/me');
			expect(answer.status).toBe(200);
			expect(answer.headers.get('x-ratelimit-limit')).toBe('3');
			remaining.push(answer.headers.get('x-ratelimit-remaining'));
		}
		expect(remaining).toEqual(['2', '1', '0']);
		const limited = await pbx('GET', '/customers/me');
		expect(limited.status).toBe(429);
		expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
		expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
		const reset = Number(limited.headers.get('x-ratelimit-reset'));
		expect(reset).toBeGreaterThan(0);
		expect(reset).toBeLessThanOrEqual(60);
		// Per user: another user still has its budget.
		expect((await pbx('GET', '/customers', { who: 'reseller' })).status).toBe(200);
	});

	test('a token from the token generator works once, without Basic credentials', async () => {
		const generated = await pbx('GET', '/tokengenerator');
		expect(generated.body).toMatchObject({ type: 'authtoken', id: expect.any(String) });
		expect(String(generated.body.created)).toMatch(/Z$/);
		expect(String(generated.body.expires)).toMatch(/\+0000$/);
		const url = `/customers/1001/recordings/1.wav?tokenid=${String(generated.body.id)}`;
		const first = await pbx('GET', url, { who: null });
		expect(first.status).toBe(200);
		expect(first.headers.get('content-type')).toBe('audio/wav');
		const second = await pbx('GET', url, { who: null });
		expect(second.status).toBe(401);
		// A token cannot authorise a change.
		const other = await pbx('GET', '/tokengenerator');
		const post = await pbx('POST', `/customers/1001/phonebook?tokenid=${String(other.body.id)}`, { who: null, body: { type: 'phonebookentry', name: 'X', phoneNumber: '1' } });
		expect(post.status).toBe(401);
	});

	test('_method overrides POST to PUT and DELETE', async () => {
		const put = await pbx('POST', '/customers/1001/phonebook/3?_method=PUT', { body: { type: 'phonebookentry', name: 'Carol Black', phoneNumber: '+441632960124' } });
		expect(put.status).toBe(200);
		expect(put.body.name).toBe('Carol Black');
		const del = await pbx('POST', '/customers/1001/phonebook/3?_method=DELETE');
		expect(del.status).toBe(204);
		expect((await pbx('GET', '/customers/1001/phonebook/3')).status).toBe(404);
		const log = await (await fetch(`${sandbox.url}/_sandbox/requests?api=pbx&method=DELETE`)).json() as Array<{ rawMethod: string }>;
		expect(log[log.length - 1].rawMethod).toBe('POST');
	});

	test('.json forces JSON over the Accept header; Accept text/csv gives CSV call history', async () => {
		const csv = await pbx('GET', '/customers/1001/calls', { headers: { Accept: 'text/csv' } });
		expect(csv.status).toBe(200);
		expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
		const lines = csv.text.trim().split(/\r\n/);
		expect(lines[0]).toBe('callId,linkedId,created,callStarted,scope,direction,from,to,outcome,duration,cost');
		expect(lines.length).toBeGreaterThan(1);
		expect(lines[1]).toMatch(/^c-\d+,c-\d+,/);
		const json = await pbx('GET', '/customers/1001/calls.json', { headers: { Accept: 'text/csv' } });
		expect(json.headers.get('content-type')).toMatch(/json/);
		expect(json.body.totalItems).toBeGreaterThan(0);
		const recording = await pbx('GET', '/customers/1001/recordings/1.json', { headers: { Accept: 'audio/wav' } });
		expect(recording.body).toMatchObject({ type: 'recording' });
		// Both timestamp forms appear.
		const created = (json.body.items as Array<{ created: string }>).map((c) => c.created);
		expect(created.some((t) => /\d{2}Z$/.test(t))).toBe(true);
		expect(created.some((t) => /\.\d{3}\+0000$/.test(t))).toBe(true);
	});

	test('recordings and sounds as WAV bytes with a RIFF header', async () => {
		for (const [path, headers] of [
			['/customers/1001/recordings/1.wav', {}],
			['/customers/1001/sounds/1', { Accept: 'audio/wav' }],
		] as const) {
			const answer = await pbx('GET', path, { headers });
			expect(answer.status).toBe(200);
			expect(answer.headers.get('content-type')).toBe('audio/wav');
			expect(answer.bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
			expect(answer.bytes.subarray(8, 12).toString('ascii')).toBe('WAVE');
			expect(answer.bytes.readUInt32LE(4)).toBe(answer.bytes.length - 8);
		}
		const meta = await pbx('GET', '/customers/1001/recordings/1');
		const wav = await pbx('GET', '/customers/1001/recordings/1.wav');
		expect(meta.body.size).toBe(wav.bytes.length);
	});

	test('phone book validation names the field; create answers 201 with Location', async () => {
		const cases: Array<[Record<string, unknown>, string]> = [
			[{ name: 'A', phoneNumber: '1' }, 'type'],
			[{ type: 'phonebookentry', phoneNumber: '+447700900111' }, 'name'],
			[{ type: 'phonebookentry', name: 'A' }, 'phoneNumber'],
			[{ type: 'phonebookentry', name: 'A', phoneNumber: '1', speedDial: 0 }, 'speedDial'],
			[{ type: 'phonebookentry', name: 'A', phoneNumber: '1', speedDial: 10000 }, 'speedDial'],
		];
		for (const [body, field] of cases) {
			const answer = await pbx('POST', '/customers/me/phonebook', { body });
			expect(answer.status).toBe(400);
			expect(answer.body.errors).toEqual([{ field, message: expect.any(String) }]);
		}
		expect((await pbx('POST', '/customers/me/phonebook', { body: '<xml/>', headers: { 'Content-Type': 'application/xml' } })).status).toBe(400);
		const created = await pbx('POST', '/customers/me/phonebook', { body: { type: 'phonebookentry', name: 'Dan Brown', phoneNumber: '+447700900555', speedDial: 9999 } });
		expect(created.status).toBe(201);
		const location = created.headers.get('location');
		expect(location).toBe(created.body.uri);
		expect(location).toMatch(new RegExp(`^${sandbox.url}/api/v1/customers/1001/phonebook/\\d+$`));
		const fetched = await pbx('GET', String(location));
		expect(fetched.body).toMatchObject({ type: 'phonebookentry', name: 'Dan Brown', speedDial: 9999 });
	});

	test('an outgoing SMS is PENDING, then SENT or FAILED', async () => {
		await admin('/settings', { smsDelayMs: 50 });
		const good = await pbx('POST', '/customers/me/sms', { body: { type: 'smsmessage', from: 'Acme', to: '+447700900001', body: 'Hello' } });
		const bad = await pbx('POST', '/customers/me/sms', { body: { type: 'smsmessage', from: 'Acme', to: '+440000000000', body: 'Hello' } });
		expect(good.status).toBe(201);
		expect(good.body).toMatchObject({ direction: 'OUT', sendStatus: 'PENDING' });
		expect(good.headers.get('location')).toBe(good.body.uri);
		expect(bad.body.sendStatus).toBe('PENDING');
		await delay(120);
		expect((await pbx('GET', String(good.body.uri))).body).toMatchObject({ sendStatus: 'SENT', deliveryStatus: 1 });
		expect((await pbx('GET', String(bad.body.uri))).body).toMatchObject({ sendStatus: 'FAILED', deliveryStatus: 16 });
		const missing = await pbx('POST', '/customers/me/sms', { body: { type: 'smsmessage', from: 'Acme', body: 'Hello' } });
		expect(missing.status).toBe(400);
		expect(missing.body.errors).toEqual([{ field: 'to', message: expect.any(String) }]);
	});

	test('originating a call answers 200 with an empty body and adds a call record', async () => {
		const answer = await pbx('POST', '/customers/me/calls', { body: { type: 'call', endpoint: `${sandbox.url}/api/v1/customers/1001/endpoints/201`, to: '+447700900999' } });
		expect(answer.status).toBe(200);
		expect(answer.text).toBe('');
		const calls = await pbx('GET', '/customers/me/calls?to=%2B447700900999');
		expect(calls.body.totalItems).toBe(1);
		const bad = await pbx('POST', '/customers/me/calls', { body: { type: 'call', endpoint: 'nope', to: '1' } });
		expect(bad.body.errors).toEqual([{ field: 'endpoint', message: expect.any(String) }]);
	});
});

describe('bulk records (admin)', () => {
	test('50 calls replace the customer\'s history: both directions, every outcome, ids never reused', async () => {
		expect(await admin('/bulk', { collection: 'calls', count: 50, replace: true })).toEqual({ added: 50, total: 50 });
		const calls = (await pbx('GET', '/customers/me/calls?pageSize=200')).body.items as Array<Record<string, unknown>>;
		expect(calls).toHaveLength(50);
		expect(new Set(calls.map((c) => c.direction))).toEqual(new Set(['IN', 'OUT']));
		expect(new Set(calls.map((c) => c.outcome))).toEqual(new Set(['ANSWERED', 'NO_ANSWER', 'BUSY', 'FAILED']));
		expect(calls[0]).toMatchObject({ type: 'call', from: expect.stringMatching(/^"[^"]+" <[^>]+>$/), links: { recordings: expect.any(String) } });
		const injected = await admin('/calls/incoming', {});
		const ids = [...calls.map((c) => String(c.uri).split('/').pop()), String((injected.call as Record<string, unknown>).uri).split('/').pop()];
		expect(new Set(ids).size).toBe(51);
	});

	test('every collection of a customer, and customers a reseller sees', async () => {
		for (const collection of ['sms', 'recordings', 'sounds', 'phonenumbers', 'outgoingcallerids', 'callbundles']) {
			await admin('/bulk', { collection, count: 50, replace: true });
			expect([collection, (await pbx('GET', `/customers/me/${collection}?pageSize=200`)).body.totalItems]).toEqual([collection, 50]);
		}
		expect(await admin('/bulk', { collection: 'customers', count: 50 })).toEqual({ added: 50, total: 53 });
		expect((await pbx('GET', '/customers?pageSize=200', { who: 'reseller' })).body.totalItems).toBe(53);
		expect((await admin('/bulk', { collection: 'customers', count: 5, replace: true })).total).toBe(8);
	});

	test('an unknown collection or a count out of range is refused', async () => {
		expect(await admin('/bulk', { collection: 'endpoints' })).toMatchObject({ field: 'collection' });
		expect(await admin('/bulk', { collection: 'calls', count: 0 })).toMatchObject({ field: 'count' });
	});
});

describe('/stream', () => {
	const publish = (count: number, values: Record<string, unknown> = {}) =>
		admin('/events', { customerId: '1001', event: 'incomingcall', count, values: { callerIdNumber: '+447700900123', callerIdName: 'Zoë Ünicode ☎', ...values } });

	test.each([
		['newline', 'whole'],
		['concatenated', 'whole'],
		['padded', 'whole'],
		['newline', 'random'],
		['concatenated', 'random'],
		['padded', 'bytewise'],
		['concatenated', 'bytewise'],
	])('framing %s with %s chunking delivers parseable events', async (framing, chunking) => {
		await admin('/stream/settings', { framing, chunking, chunkDelayMs: 0 });
		const stream = await openStream();
		expect(stream.status).toBe(200);
		expect(stream.headers['content-type']).toBe('application/json');
		const published = await publish(8);
		expect(published).toMatchObject({ published: 8, delivered: 8 });
		await waitFor(() => eventsOf(stream).length >= 8, 5000, 'events');
		const { objects, rest, invalid } = splitJsonObjects(stream.text);
		expect(invalid).toEqual([]);
		expect(rest.trim()).toBe('');
		expect(objects).toHaveLength(8);
		(objects as Array<{ event: string; location: unknown; values: { seq: number; callerIdName: string } }>).forEach((event, i) => {
			expect(event.event).toBe('incomingcall');
			expect(event.location).toBeNull();
			expect(event.values.seq).toBe(i);
			expect(event.values.callerIdName).toBe('Zoë Ünicode ☎');
		});
		if (framing === 'newline') {
			expect(stream.text.split('\n').filter((l) => l !== '').every((l) => JSON.parse(l) !== undefined)).toBe(true);
		}
		if (framing === 'concatenated') expect(stream.text).toContain('}{');
		if (chunking === 'bytewise') expect(stream.chunks.length).toBeGreaterThan(8);
	});

	test('events reach only users who may see them', async () => {
		const acme = await openStream('admin');
		const bright = await openStream('bright');
		await sandbox.pbx.injectIncomingCall({ customerId: '1001' });
		await sandbox.pbx.injectInboundSms({ customerId: '1002' });
		await waitFor(() => eventsOf(acme).length >= 1 && eventsOf(bright).length >= 1, 10_000, 'events');
		await delay(50);
		expect(eventsOf(acme).map((e) => e.event)).toEqual(['incomingcall']);
		expect(eventsOf(bright).map((e) => e.event)).toEqual(['smsreceived']);
	});

	test('heartbeat objects or bare line breaks at the configured interval', async () => {
		await admin('/stream/settings', { heartbeatMs: 30 });
		const stream = await openStream();
		await waitFor(() => eventsOf(stream).filter((e) => e.event === 'heartbeat').length >= 2, 10_000, 'heartbeats');
		expect(eventsOf(stream)[0]).toEqual({ event: 'heartbeat', location: null, values: {} });

		await admin('/stream/settings', { heartbeat: 'whitespace', heartbeatMs: 30 });
		const bare = await openStream();
		await waitFor(() => bare.text.length >= 2, 10_000, 'bare heartbeats');
		expect(bare.text.trim()).toBe('');
	});

	test('dropAfter destroys the connection after exactly N events', async () => {
		const stream = await openStream();
		await admin('/stream/faults', { dropAfter: 3 });
		await publish(6);
		await waitFor(() => stream.closed, 10_000, 'drop');
		expect(eventsOf(stream)).toHaveLength(3);
	});

	test('stall stops everything, heartbeats included, while the connection stays open', async () => {
		await admin('/stream/settings', { heartbeatMs: 20 });
		const stream = await openStream();
		await waitFor(() => stream.text.length > 0, 10_000, 'first heartbeat');
		await admin('/stream/faults', { stall: true });
		await delay(30);
		const before = stream.text.length;
		await publish(3);
		await delay(120);
		expect(stream.text.length).toBe(before);
		expect(stream.closed).toBe(false);
		const listed = (await (await fetch(`${sandbox.url}/_sandbox/pbx/streams`)).json()) as Array<{ stalled: boolean }>;
		expect(listed[0].stalled).toBe(true);
	});

	test('malformed writes one invalid object before the next event', async () => {
		const stream = await openStream();
		await admin('/stream/faults', { malformed: true });
		await publish(2);
		await waitFor(() => eventsOf(stream).length >= 2, 10_000, 'events');
		const { invalid } = splitJsonObjects(stream.text);
		expect(invalid).toHaveLength(1);
	});

	test('reset restores the default framing', async () => {
		await admin('/stream/settings', { framing: 'concatenated', chunking: 'bytewise' });
		sandbox.reset();
		expect(sandbox.pbx.stream.settings).toMatchObject({ framing: 'newline', chunking: 'whole', heartbeatMs: 60_000 });
	});
});
