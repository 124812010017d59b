/**
 * What the Hosted PBX sandbox plays for the triggers: recordings arriving late, sharing a
 * timestamp or larger than the download bound; outgoing SMS whose statuses change on demand or
 * never become final; a balance that moves. In code and through `/_sandbox/pbx`.
 */
import { request } from 'node:http';

import type { Sandbox } from '../../sandbox/index';
import { parseTime } from '../../sandbox/core/time';
import { wavStream } from '../../sandbox/core/wav';
import { fakeClockForFile } from '../harness/clock';
import { sandboxForFile } from '../harness/sandboxForFile';
import { RawStream, delay, splitJsonObjects, waitFor } from './helpers';

let sandbox: Sandbox;
sandboxForFile((started) => (sandbox = started));

type Json = Record<string, any>;

const AUTH = `Basic ${Buffer.from('acme.admin:acme-admin-secret').toString('base64')}`;
const MIB = 1024 * 1024;

async function pbx(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: Json }> {
	const url = path.startsWith('http') ? path : `${sandbox.url}/api/v1${path}`;
	const response = await fetch(url, {
		method: init.method ?? 'GET',
		headers: { Authorization: AUTH, ...(init.body ? { 'Content-Type': 'application/json' } : {}) },
		body: init.body ? JSON.stringify(init.body) : undefined,
	});
	return { status: response.status, body: (await response.json()) as Json };
}

async function admin(path: string, body: unknown = {}): Promise<{ status: number; body: Json }> {
	const response = await fetch(`${sandbox.url}/_sandbox/pbx${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
	return { status: response.status, body: (await response.json()) as Json };
}

const streams: RawStream[] = [];
afterEach(() => streams.splice(0).forEach((s) => s.close()));

async function openStream(): Promise<RawStream> {
	const stream = await RawStream.open(`${sandbox.url}/api/v1/stream`, { Authorization: AUTH });
	streams.push(stream);
	await waitFor(() => sandbox.pbx.stream.list().length >= 1, 2000, 'stream registered');
	return stream;
}

const eventNames = (stream: RawStream) => (splitJsonObjects(stream.text).objects as Json[]).filter((e) => e.event !== 'heartbeat');

describe('recordings', () => {
	test('a recording arriving late for a finished call takes its legs, party, endpoint and start; created is now', async () => {
		const before = Date.now();
		const late = sandbox.pbx.injectRecording({ callId: 'c-1002', seconds: 2 });
		const call = (await pbx('/customers/1001/calls?direction=out')).body.items.find((c: Json) => c.callId === 'c-1002');
		expect(late).toEqual(
			expect.objectContaining({
				type: 'recording',
				direction: 'OUT',
				partyId: '+447700900003',
				callId: 'c-1002',
				linkedId: 'c-1002',
				endpoint: `${sandbox.url}/api/v1/customers/1001/endpoints/201`,
				size: 44 + 2 * 16_000,
			}),
		);
		expect(parseTime(late.started)).toBe(parseTime(call.callStarted));
		expect(parseTime(late.created)).toBeGreaterThanOrEqual(before - 1000);
		expect(parseTime(late.created) - parseTime(call.created)).toBeGreaterThan(86_400_000);
		// GET gives the same representation; the call's recordings link finds both.
		expect((await pbx(String(late.uri))).body).toEqual(late);
		expect((await pbx('/customers/1001/recordings?linkedId=c-1002')).body.items.map((r: Json) => r.uri)).toEqual([expect.stringMatching(/\/2$/), late.uri]);
		// A poller that asks for what was created since the call ended sees it.
		const since = (await pbx(`/customers/1001/recordings?createdAfter=${encodeURIComponent(call.created)}&callId=c-1002`)).body;
		expect(since.items.map((r: Json) => r.uri)).toEqual([late.uri]);
	});

	test('started and created take both platform time forms; the representation uses both', async () => {
		const z = sandbox.pbx.injectRecording({ started: '2026-01-02T03:04:05Z', created: '2026-01-02T03:09:05.250+0000', partyId: '202', direction: 'OUT' });
		const offset = sandbox.pbx.injectRecording({ started: '2026-01-02T03:04:05.500+0000', created: '2026-01-02T03:10:00Z', endpointId: '202' });
		expect([z.started, z.created].map(parseTime)).toEqual([Date.UTC(2026, 0, 2, 3, 4, 5), Date.UTC(2026, 0, 2, 3, 9, 5, 250)]);
		// Odd ids are shown in the Z form, which has whole seconds; the record keeps the milliseconds.
		expect([offset.started, offset.created].map(parseTime)).toEqual([Date.UTC(2026, 0, 2, 3, 4, 5), Date.UTC(2026, 0, 2, 3, 10, 0)]);
		expect(sandbox.pbx.data.recordings.find((r) => String(offset.uri).endsWith(`/${r.id}`))?.started.getTime()).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 500));
		const forms = [z, offset].map((r) => String(r.created));
		expect(forms.some((t) => /\d{2}Z$/.test(t))).toBe(true);
		expect(forms.some((t) => /\.\d{3}\+0000$/.test(t))).toBe(true);
		expect(offset).toEqual(expect.objectContaining({ direction: 'IN', partyId: '+447700900123', endpoint: expect.stringMatching(/\/endpoints\/202$/) }));
		expect(z.callId).toMatch(/^c-[0-9a-f]{8}$/);
		expect(z.linkedId).toBe(z.callId);
	});

	test('several recordings may share one created timestamp; the time filters are strict', async () => {
		const created = '2026-02-03T10:00:00Z';
		const ids = [1, 2, 3].map((leg) => sandbox.pbx.injectRecording({ created, callId: `c-shared-${leg}`, linkedId: 'c-shared-1' }).uri);
		const all = (await pbx('/customers/1001/recordings?linkedId=c-shared-1')).body.items as Json[];
		expect(all.map((r) => r.uri)).toEqual(ids);
		expect(new Set(all.map((r) => parseTime(r.created)))).toEqual(new Set([Date.parse(created)]));
		expect((await pbx('/customers/1001/recordings?linkedId=c-shared-1&createdAfter=2026-02-03T09:59:59.999Z')).body.totalItems).toBe(3);
		expect((await pbx(`/customers/1001/recordings?linkedId=c-shared-1&createdAfter=${created}`)).body.totalItems).toBe(0);
	});

	test('POST /_sandbox/pbx/recordings answers the representation; bad input is a 400 naming the field', async () => {
		const made = await admin('/recordings', { customerId: '1002', created: '2026-03-01T08:00:00.000+0000', seconds: 0.5 });
		expect(made.status).toBe(200);
		expect(made.body).toEqual(expect.objectContaining({ type: 'recording', endpoint: expect.stringMatching(/\/customers\/1002\/endpoints\/301$/), size: 8044 }));
		expect((await pbx(String(made.body.uri))).status).toBe(401); // customer 1002 is not acme.admin's
		const cases: Array<[Json, string]> = [
			[{ created: 'yesterday' }, 'created'],
			[{ started: '2026-13-01T00:00:00Z' }, 'started'],
			[{ endpointId: '301' }, 'endpointId'],
			[{ customerId: '9999' }, 'customerId'],
			[{ direction: 'SIDEWAYS' }, 'direction'],
			[{ bytes: 45 }, 'bytes'],
			[{ bytes: 2 ** 32 }, 'bytes'],
			[{ bytes: 1000, seconds: 1 }, 'seconds'],
			[{ seconds: 0 }, 'seconds'],
		];
		for (const [body, field] of cases) {
			const answer = await admin('/recordings', body);
			expect([body, answer.status, answer.body.field]).toEqual([body, 400, field]);
		}
		expect(sandbox.pbx.data.recordings).toHaveLength(4);
	});

	test('a WAV larger than the 64 MiB bound is streamed at exactly its size, its size in the record', async () => {
		const bytes = 64 * MIB + 1;
		const recording = sandbox.pbx.injectRecording({ bytes, callId: 'c-1000' });
		expect(recording.size).toBe(bytes);
		const got = await new Promise<{ status: number; length: string | undefined; total: number; chunks: number; head: Buffer; lastByte: number }>((resolve, reject) => {
			request(`${String(recording.uri)}.wav`, { headers: { Authorization: AUTH } }, (res) => {
				let total = 0;
				let chunks = 0;
				let head = Buffer.alloc(0);
				let lastByte = -1;
				res.on('data', (chunk: Buffer) => {
					if (head.length < 44) head = Buffer.concat([head, chunk.subarray(0, 44 - head.length)]);
					total += chunk.length;
					chunks += 1;
					lastByte = chunk[chunk.length - 1];
				});
				res.on('end', () => resolve({ status: res.statusCode ?? 0, length: res.headers['content-length'], total, chunks, head, lastByte }));
				res.on('error', reject);
			})
				.on('error', reject)
				.end();
		});
		expect(got).toEqual(expect.objectContaining({ status: 200, length: String(bytes), total: bytes, lastByte: 0 }));
		expect(got.chunks).toBeGreaterThan(100);
		expect(got.head.toString('ascii', 0, 4)).toBe('RIFF');
		expect(got.head.readUInt32LE(4)).toBe(bytes - 8);
		expect(got.head.toString('ascii', 36, 40)).toBe('data');
		expect(got.head.readUInt32LE(40)).toBe(bytes - 45); // the odd byte is a pad byte after the samples
	});

	test('the big WAV is made by a stream from one reused block: its size costs no memory', async () => {
		const bytes = 20 * MIB + 46;
		const buffers = new Set<ArrayBufferLike>();
		let total = 0;
		let largest = 0;
		const stream = wavStream(bytes);
		for await (const chunk of stream as AsyncIterable<Buffer>) {
			total += chunk.length;
			largest = Math.max(largest, chunk.length);
			if (chunk.length === 64 * 1024) buffers.add(chunk.buffer);
		}
		expect(total).toBe(bytes);
		expect(largest).toBe(64 * 1024);
		expect(buffers.size).toBe(1);
		expect(() => wavStream(45)).toThrow(RangeError);
	});

	test('reset ends a WAV still being streamed', async () => {
		const recording = sandbox.pbx.injectRecording({ bytes: 2 * 1024 * MIB });
		const download = { bytes: 0, ended: false, closed: false };
		const req = request(`${String(recording.uri)}.wav`, { headers: { Authorization: AUTH } }, (res) => {
			res.on('data', (chunk: Buffer) => (download.bytes += chunk.length)); // counted, not kept
			res.on('end', () => (download.ended = true));
			res.on('close', () => (download.closed = true));
		});
		req.on('error', () => (download.closed = true)).end();
		await waitFor(() => download.bytes > 0, 2000, 'first bytes');
		sandbox.reset();
		await waitFor(() => download.closed, 2000, 'download ended');
		expect(download.ended).toBe(false);
		expect(download.bytes).toBeLessThan(2 * 1024 * MIB);
	});
});

describe('outgoing SMS statuses', () => {
	test('injectOutboundSms makes a message exactly as given: PENDING stays PENDING', async () => {
		await admin('/settings', { smsDelayMs: 10 });
		const { sms, delivered } = sandbox.pbx.injectOutboundSms({ to: '+447700900001', body: 'Your order shipped', created: '2026-01-05T09:00:00.125+0000' });
		expect(delivered).toBe(0);
		expect(sms).toEqual(expect.objectContaining({ type: 'smsmessage', direction: 'OUT', from: '+441632960001', to: '+447700900001', sendStatus: 'PENDING', cost: 0.04 }));
		expect(sms).not.toHaveProperty('deliveryStatus');
		expect(parseTime(sms.created)).toBe(Date.UTC(2026, 0, 5, 9, 0, 0, 125));
		await delay(100);
		expect((await pbx(String(sms.uri))).body).toEqual(sms);
	});

	test('statuses change on demand; each delivery status set publishes smsdelivered with no values', async () => {
		const stream = await openStream();
		const made = await admin('/sms/outbound', { from: 'Acme', to: '+447700900002', body: 'Hi', cost: 0.1, sendStatus: 'SENT', deliveryStatus: 4 });
		expect(made.status).toBe(200);
		expect(made.body.sms).toEqual(expect.objectContaining({ from: 'Acme', sendStatus: 'SENT', deliveryStatus: 4, cost: 0.1 }));
		expect(made.body.delivered).toBe(1);
		const id = String(made.body.sms.uri).split('/').pop();
		const steps: Array<[Json, Json]> = [
			[{ deliveryStatus: 8 }, { sendStatus: 'SENT', deliveryStatus: 8 }],
			[{ deliveryStatus: 1 }, { sendStatus: 'SENT', deliveryStatus: 1 }],
			[{ sendStatus: 'FAILED', deliveryStatus: null }, { sendStatus: 'FAILED' }],
		];
		for (const [change, expected] of steps) {
			const answer = await admin(`/sms/${id}/status`, change);
			expect(answer.status).toBe(200);
			expect(answer.body.sms).toEqual(expect.objectContaining(expected));
			if (!('deliveryStatus' in expected)) expect(answer.body.sms).not.toHaveProperty('deliveryStatus');
			expect((await pbx(String(made.body.sms.uri))).body).toEqual(answer.body.sms);
		}
		await waitFor(() => eventNames(stream).length >= 3, 2000, 'three smsdelivered');
		await delay(50);
		expect(eventNames(stream)).toEqual([1, 2, 3].map(() => ({ event: 'smsdelivered', location: null, values: {} })));
	});

	test('setSmsStatus refuses what the contract does not allow', async () => {
		expect(() => sandbox.pbx.setSmsStatus('999', { sendStatus: 'SENT' })).toThrow(/No SMS 999/);
		const cases: Array<[string, Json, number, string | undefined]> = [
			['1', { sendStatus: 'SENT' }, 400, 'id'],
			['2', { deliveryStatus: 3 }, 400, 'deliveryStatus'],
			['2', { sendStatus: 'DONE' }, 400, 'sendStatus'],
			['999', {}, 404, undefined],
		];
		for (const [id, body, status, field] of cases) {
			const answer = await admin(`/sms/${id}/status`, body);
			expect([id, body, answer.status, answer.body.field]).toEqual([id, body, status, field]);
		}
		expect((await admin('/sms/outbound', { deliveryStatus: 32 })).body.field).toBe('deliveryStatus');
	});

	describe('on a fake sandbox clock', () => {
		const time = fakeClockForFile();

		test.each([
			['pending', [], []],
			['failed', [{ sendStatus: 'FAILED' }], []],
			['rejected-by-handset', [{ sendStatus: 'SENT', deliveryStatus: 2 }], ['smsdelivered']],
			['rejected-by-carrier', [{ sendStatus: 'SENT', deliveryStatus: 16 }], ['smsdelivered']],
			['never-final', [{ sendStatus: 'SENT', deliveryStatus: 4 }, { sendStatus: 'SENT', deliveryStatus: 8 }], ['smsdelivered', 'smsdelivered']],
			['auto', [{ sendStatus: 'SENT', deliveryStatus: 1 }], ['smsdelivered']],
		])('smsOutcome %s: what a message sent through the API becomes, a step every smsDelayMs', async (smsOutcome, seen, events) => {
			expect((await admin('/settings', { smsOutcome, smsDelayMs: 40 })).body).toEqual(expect.objectContaining({ smsOutcome, smsDelayMs: 40 }));
			const stream = await openStream();
			const sent = await pbx('/customers/me/sms', { method: 'POST', body: { type: 'smsmessage', from: 'Acme', to: '+447700900001', body: `Hello ${smsOutcome}` } });
			const message = sandbox.pbx.data.sms.find((m) => m.body === `Hello ${smsOutcome}`)!;
			const state = () => ({ sendStatus: message.sendStatus, deliveryStatus: message.deliveryStatus });
			// Every state the message passes through: each step comes when the sandbox's clock has moved 40 ms on.
			const history = [state()];
			for (let step = 0; step < seen.length + 1; step++) {
				await time.clock.advance(39);
				expect(state()).toEqual(history[history.length - 1]);
				await time.clock.advance(1);
				if (JSON.stringify(state()) !== JSON.stringify(history[history.length - 1])) history.push(state());
			}
			expect(sent.body.sendStatus).toBe('PENDING');
			expect(history).toEqual([{ sendStatus: 'PENDING' }, ...seen].map((step) => ({ deliveryStatus: undefined, ...step })));
			await waitFor(() => eventNames(stream).length >= events.length, 2000, 'events');
			await delay(30);
			expect(eventNames(stream).map((e) => e.event)).toEqual(events);
			// The API shows the last state.
			expect((await pbx(String(sent.body.uri))).body).toEqual(expect.objectContaining(seen[seen.length - 1] ?? { sendStatus: 'PENDING' }));
		});
	});

	test('an explicit status cancels what smsOutcome still had in store; reset cancels it too', async () => {
		await admin('/settings', { smsOutcome: 'never-final', smsDelayMs: 100 });
		const first = await pbx('/customers/me/sms', { method: 'POST', body: { type: 'smsmessage', from: 'Acme', to: '+447700900001', body: 'One' } });
		const id = String(first.body.uri).split('/').pop() as string;
		// Between the first step (4) and the second (8, 100 ms later) an explicit status comes.
		await waitFor(() => sandbox.pbx.data.sms.find((m) => m.id === id)?.deliveryStatus === 4, 2000, 'buffered');
		sandbox.pbx.setSmsStatus(id, { deliveryStatus: 1 });
		await delay(200);
		expect((await pbx(String(first.body.uri))).body).toEqual(expect.objectContaining({ sendStatus: 'SENT', deliveryStatus: 1 }));
		expect((await admin('/settings', { smsOutcome: 'sometimes' })).status).toBe(400);
		await pbx('/customers/me/sms', { method: 'POST', body: { type: 'smsmessage', from: 'Acme', to: '+447700900001', body: 'Two' } });
		sandbox.reset();
		expect(sandbox.pbx.settings.smsOutcome).toBe('auto');
	});
});

describe('credit', () => {
	test('a balance crosses a threshold several times; creditstatus shows each change at once', async () => {
		const seen: number[] = [];
		for (const balance of [4.99, 10.01, 4.5, -1.25, 25]) {
			const answer = await admin('/credit', { balance });
			expect(answer.body).toEqual({ type: 'creditstatus', uri: `${sandbox.url}/api/v1/customers/1001/creditstatus`, accountType: 'PREPAID', balance });
			seen.push((await pbx('/customers/me/creditstatus')).body.balance);
		}
		expect(seen).toEqual([4.99, 10.01, 4.5, -1.25, 25]);
		expect(sandbox.pbx.setCredit('1002', { accountType: 'PREPAID' })).toEqual(expect.objectContaining({ accountType: 'PREPAID', balance: -12.75 }));
		expect((await admin('/credit', { customerId: '1003', accountType: 'POSTPAID', balance: 0 })).body).toEqual(expect.objectContaining({ accountType: 'POSTPAID', balance: 0 }));
	});

	test('bad credit changes are a 400 naming the field; reset restores the seeded balance', async () => {
		for (const [body, field] of [
			[{ balance: '5' }, 'balance'],
			[{ balance: null }, 'balance'],
			[{ accountType: 'CREDIT' }, 'accountType'],
			[{ customerId: '42', balance: 1 }, 'customerId'],
		] as Array<[Json, string]>) {
			const answer = await admin('/credit', body);
			expect([body, answer.status, answer.body.field]).toEqual([body, 400, field]);
		}
		sandbox.pbx.setCredit(undefined, { balance: 1 });
		sandbox.reset();
		expect((await pbx('/customers/me/creditstatus')).body.balance).toBe(42.5);
	});
});

describe('the CRM stand-in', () => {
	test('keeps the notes posted to it and lists them; a note without text is refused', async () => {
		const post = async (body: unknown) => await fetch(`${sandbox.url}/crm/v1/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
		const created = await post({ text: 'Caller asked for a quote', contact: '+447700900001' });
		expect(created.status).toBe(201);
		expect(await created.json()).toMatchObject({ id: '1', text: 'Caller asked for a quote', contact: '+447700900001', created: expect.any(String) });
		expect((await post({ contact: 'x' })).status).toBe(400);
		const listed = (await (await fetch(`${sandbox.url}/crm/v1/notes`)).json()) as { notes: unknown[] };
		expect(listed.notes).toHaveLength(1);
		expect(sandbox.crm.notes).toHaveLength(1);
	});
});
