import type { Sandbox } from '../../sandbox/index';
import { startSandbox } from '../../sandbox/index';
import { waitFor } from './helpers';

/**
 * The session stream's faults (issue 18), read with plain fetch: the forms in which a client
 * learns that a session has ended (a `session_ended` event and the end of the response, 204 No
 * Content when it resumes after the end, 410 whose body says the session has ended, on the
 * stream and on the token endpoint), a key refused on the token endpoint until cleared
 * (counted), and garbage between the SSE frames, up to megabytes in one line, after which every
 * event still arrives whole and in order.
 */

let sandbox: Sandbox;
let KEY: string;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	KEY = sandbox.intelligence.keys.demo('full-access');
});
afterAll(async () => {
	await sandbox.close();
});
const readers: SseBytes[] = [];
beforeEach(() => sandbox.reset());
afterEach(() => {
	for (const reader of readers.splice(0)) reader.close();
});

async function admin(method: string, path: string, body?: unknown) {
	const response = await fetch(`${sandbox.url}/_sandbox/intelligence${path}`, {
		method,
		headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const tokenAnswer = (sessionId: string) => fetch(`${sandbox.url}/intelligence/v1/sessions/${sessionId}/stream-token`, { headers: { Authorization: `Bearer ${KEY}` } });

async function token(sessionId: string): Promise<string> {
	const answer = await tokenAnswer(sessionId);
	expect(answer.status).toBe(200);
	return ((await answer.json()) as { token: string }).token;
}

/** The events endpoint read as bytes, and the messages an SSE client would dispatch from them. */
class SseBytes {
	status = 0;
	headers = new Headers();
	text = '';
	ended = false;
	private readonly controller = new AbortController();

	static async open(sessionId: string, headers: Record<string, string> = {}): Promise<SseBytes> {
		const reader = new SseBytes();
		readers.push(reader);
		const url = `${sandbox.url}/intelligence/v1/sessions/${sessionId}/events?token=${await token(sessionId)}`;
		const response = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: reader.controller.signal });
		reader.status = response.status;
		reader.headers = response.headers;
		const decoder = new TextDecoder();
		void (async () => {
			try {
				for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) reader.text += decoder.decode(chunk, { stream: true });
			} catch {
				// aborted by the test
			}
			reader.ended = true;
		})();
		return reader;
	}

	/** Blocks split at blank lines; the ones with `data:` are the dispatched messages. */
	get messages(): Array<{ id?: string; data: string }> {
		return this.text
			.split(/\r?\n\r?\n/)
			.map((block) => {
				const fields = block.split(/\r?\n/).map((line) => /^(\w+): ?(.*)$/s.exec(line));
				const data = fields.filter((f) => f?.[1] === 'data').map((f) => f![2]);
				return { id: fields.find((f) => f?.[1] === 'id')?.[2], data: data.join('\n'), dispatched: data.length > 0 };
			})
			.filter((message) => message.dispatched)
			.map(({ id, data }) => ({ id, data }));
	}

	get events(): Array<Record<string, unknown>> {
		return this.messages.map((m) => JSON.parse(m.data) as Record<string, unknown>);
	}

	close(): void {
		this.controller.abort();
	}
}

async function endedSession(): Promise<{ id: string; lastEventId: string; firstEventId: string }> {
	const { body } = await admin('POST', '/sessions', {});
	const id = String(body.session_id);
	await admin('POST', `/sessions/${id}/script`, { events: [{ event_type: 'operator_result', operator: 'customer_satisfaction' }], intervalMs: 0, wait: true });
	const ended = await admin('POST', `/sessions/${id}/end`);
	const events = (await admin('GET', `/sessions/${id}/events`)).body as unknown as Array<{ event_id: string }>;
	expect(ended.body.state).toBe('ended');
	return { id, lastEventId: String(ended.body.emitted), firstEventId: events[0].event_id };
}

describe('an ended session, in each form a client must read as the end', () => {
	test('a live stream: session_ended, then the response ends', async () => {
		const { body } = await admin('POST', '/sessions', {});
		const id = String(body.session_id);
		const reader = await SseBytes.open(id);
		await admin('POST', `/sessions/${id}/script`, { preset: 'demo', intervalMs: 0, wait: true });
		await waitFor(() => reader.ended, 10_000, 'the response to end');
		expect(reader.events.at(-1)).toMatchObject({ event_type: 'session_ended', session_id: id });
		expect(reader.events.filter((e) => e.event_type === 'session_ended')).toHaveLength(1);
	});

	test('replay (the default): resuming after the end sends what followed the id, then ends', async () => {
		const { id, firstEventId, lastEventId } = await endedSession();
		const reader = await SseBytes.open(id, { 'Last-Event-ID': firstEventId });
		await waitFor(() => reader.ended, 10_000, 'the response to end');
		expect(reader.status).toBe(200);
		expect(reader.messages.at(-1)?.id).toBe(lastEventId);
		const atTheEnd = await SseBytes.open(id, { 'Last-Event-ID': lastEventId });
		await waitFor(() => atTheEnd.ended, 10_000, 'the response to end');
		expect([atTheEnd.status, atTheEnd.messages]).toEqual([200, []]);
	});

	test('no_content: 204 and no body when resuming with Last-Event-ID after the end; a first connection still replays', async () => {
		expect((await admin('POST', '/settings', { endedStream: 'no_content' })).body).toMatchObject({ endedStream: 'no_content', endedToken: 'issue' });
		const { id, firstEventId } = await endedSession();
		for (const lastEventId of [firstEventId, 'evt_unknown_000001']) {
			const resumed = await SseBytes.open(id, { 'Last-Event-ID': lastEventId });
			await waitFor(() => resumed.ended, 10_000, 'the answer');
			expect([resumed.status, resumed.text]).toEqual([204, '']);
		}
		const fresh = await SseBytes.open(id);
		await waitFor(() => fresh.ended, 10_000, 'the replay');
		expect(fresh.events.at(-1)?.event_type).toBe('session_ended');
	});

	test('gone: 410 whose body says the session has ended, on the stream and (endedToken) on the token endpoint', async () => {
		sandbox.intelligence.hub.settings = { ...sandbox.intelligence.hub.settings, endedStream: 'gone' };
		const { id } = await endedSession();
		const answer = await SseBytes.open(id);
		await waitFor(() => answer.ended, 10_000, 'the answer');
		expect(answer.status).toBe(410);
		expect(answer.headers.get('content-type')).toBe('application/json');
		expect(JSON.parse(answer.text)).toEqual({ status: 410, error: 'session has ended', message: `Session ${id} has ended; its durable record is the conversation` });
		await admin('POST', '/settings', { endedToken: 'gone' });
		const refused = await tokenAnswer(id);
		expect(refused.status).toBe(410);
		expect(((await refused.json()) as { error: string }).error).toBe('session has ended');
		// A session that has not ended is served as usual.
		expect((await tokenAnswer('sess_demo_quiet')).status).toBe(200);
	});

	test('the settings refuse other forms', async () => {
		expect((await admin('POST', '/settings', { endedStream: 'close' })).status).toBe(400);
		expect((await admin('POST', '/settings', { endedToken: 410 })).status).toBe(400);
	});
});

describe('a refused key on the token endpoint', () => {
	test('401 every time until cleared, counted; then tokens again', async () => {
		sandbox.intelligence.refuse({ status: 401 });
		for (let i = 0; i < 3; i++) {
			const answer = await tokenAnswer('sess_demo_quiet');
			expect(answer.status).toBe(401);
			expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="platform"');
			expect(await answer.json()).toMatchObject({ status: 401, error: 'unauthorized' });
		}
		expect(sandbox.intelligence.refusals()).toMatchObject({ hits: 3, refusals: [{ target: 'token', status: 401, hits: 3, remaining: null }] });
		expect(sandbox.intelligence.clearRefusals()).toBe(1);
		expect((await tokenAnswer('sess_demo_quiet')).status).toBe(200);
	});

	test('403 through the admin API; the events endpoint can be refused too', async () => {
		await admin('POST', '/refuse', { status: 403 });
		const answer = await tokenAnswer('sess_demo_quiet');
		expect(answer.status).toBe(403);
		expect(await answer.json()).toMatchObject({ status: 403, error: 'insufficient_scope', required_scope: 'intelligence:read' });
		await admin('DELETE', '/refuse');
		const value = await token('sess_demo_quiet');
		await admin('POST', '/refuse', { status: 401, targets: ['events'] });
		const events = await fetch(`${sandbox.url}/intelligence/v1/sessions/sess_demo_quiet/events?token=${value}`);
		expect(events.status).toBe(401);
		expect((await admin('GET', '/refuse')).body).toMatchObject({ hits: 1, refusals: [{ target: 'events' }] });
	});
});

describe('garbage in the SSE frames', () => {
	const operatorResults = (n: number) => Array.from({ length: n }, () => ({ event_type: 'operator_result', operator: 'customer_satisfaction' }));

	test('binary noise as one line, then a blank line: nothing is dispatched from it, every event after it is', async () => {
		const reader = await SseBytes.open('sess_demo_quiet');
		await waitFor(() => sandbox.intelligence.hub.count('sess_demo_quiet') === 1);
		expect((await admin('POST', '/sessions/sess_demo_quiet/faults', { garbage: { bytes: 300 } })).body).toEqual({ applied: 1, pending: false });
		await admin('POST', '/sessions/sess_demo_quiet/script', { events: operatorResults(3), intervalMs: 0, wait: true });
		await waitFor(() => reader.events.length === 4, 10_000, 'the events');
		expect(reader.events.map((e) => e.event_type)).toEqual(['session_started', 'operator_result', 'operator_result', 'operator_result']);
		const garbage = reader.text.slice(reader.text.indexOf('\n\n') + 2, reader.text.indexOf('id: '));
		expect(garbage).toMatch(/^\0[^\n\r]+\n\n$/s);
		expect(garbage).toContain('\uFFFD');
	});

	test('stray text lines, applied before the stream opens', async () => {
		sandbox.intelligence.applyStreamFaults('sess_demo_quiet', { garbage: { bytes: 500, pattern: 'text' } });
		const reader = await SseBytes.open('sess_demo_quiet');
		await admin('POST', '/sessions/sess_demo_quiet/script', { events: operatorResults(1), intervalMs: 0, wait: true });
		await waitFor(() => reader.events.length === 2, 10_000, 'the events');
		expect(reader.text).toMatch(/stray text that is no JSON: <html><body>502 Bad Gateway/);
		expect(reader.messages.every((m) => m.id?.startsWith('evt_'))).toBe(true);
	});

	test('8 MB in one line: events published meanwhile wait for it and arrive whole, in order; the end waits too', async () => {
		const reader = await SseBytes.open('sess_demo_quiet');
		await waitFor(() => sandbox.intelligence.hub.count('sess_demo_quiet') === 1);
		sandbox.intelligence.applyStreamFaults('sess_demo_quiet', { garbage: { bytes: 8 * 1024 * 1024, pattern: 'braces' } });
		await admin('POST', '/sessions/sess_demo_quiet/script', { events: [...operatorResults(5), { event_type: 'session_ended' }], intervalMs: 0, wait: true });
		await waitFor(() => reader.ended, 10_000, 'the end of the response');
		expect(reader.text.length).toBeGreaterThan(8 * 1024 * 1024);
		const ids = reader.messages.map((m) => m.id);
		expect(reader.events.map((e) => e.event_type)).toEqual(['session_started', ...Array(5).fill('operator_result'), 'session_ended']);
		expect([...ids].sort()).toEqual(ids);
	});

	test('malformed faults are refused', async () => {
		expect((await admin('POST', '/sessions/sess_demo_quiet/faults', { garbage: { pattern: 'zeros' } })).status).toBe(400);
		expect((await admin('POST', '/sessions/sess_demo_quiet/faults', { noise: true })).status).toBe(400);
		expect(() => sandbox.intelligence.applyStreamFaults('sess_demo_quiet', { garbage: { bytes: 0 } })).toThrow();
	});
});
