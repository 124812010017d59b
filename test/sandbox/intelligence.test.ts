import type { Sandbox } from '../../sandbox/index';
import { startSandbox } from '../../sandbox/index';
import { SUPPORT_CONFIG_UUID } from '../../sandbox/intelligence/seed';
import { sandboxClockForFile } from '../harness/fakeClock';
import { SseReader, delay, waitFor } from './helpers';

interface Answer {
	status: number;
	headers: Headers;
	body: Record<string, unknown>;
	text: string;
}

type Event = Record<string, unknown>;

let sandbox: Sandbox;
let FULL: string;
let READ_ONLY: string;
let CONVAI_ONLY: string;
let REVOKED: string;
const readers: SseReader[] = [];

async function call(method: string, path: string, options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
	const headers: Record<string, string> = { ...(options.headers ?? {}) };
	const key = options.key === undefined ? FULL : options.key;
	if (key !== null) headers.Authorization = `Bearer ${key}`;
	if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
	const response = await fetch(`${sandbox.url}${path}`, {
		method,
		headers,
		body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
	});
	const text = await response.text();
	let body: Record<string, unknown> = {};
	try {
		body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
	} catch {
		body = {};
	}
	return { status: response.status, headers: response.headers, body, text };
}

const api = (method: string, path: string, options: Parameters<typeof call>[2] = {}) => call(method, `/intelligence/v1${path}`, options);
const admin = (method: string, path: string, body?: unknown) => call(method, `/_sandbox/intelligence${path}`, { key: null, body });

async function token(sessionId: string): Promise<string> {
	const answer = await api('GET', `/sessions/${sessionId}/stream-token`);
	expect(answer.status).toBe(200);
	return String(answer.body.token);
}

async function open(sessionId: string, headers: Record<string, string> = {}, tokenValue?: string): Promise<SseReader> {
	const value = tokenValue ?? (await token(sessionId));
	const reader = await SseReader.open(`${sandbox.url}/intelligence/v1/sessions/${sessionId}/events?token=${encodeURIComponent(value)}`, headers);
	readers.push(reader);
	return reader;
}

async function newSession(fields: Record<string, unknown> = {}): Promise<string> {
	const answer = await admin('POST', '/sessions', fields);
	expect(answer.status).toBe(201);
	return String(answer.body.session_id);
}

const script = (sessionId: string, body: Record<string, unknown>) => admin('POST', `/sessions/${sessionId}/script`, body);

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	FULL = sandbox.intelligence.keys.demo('full-access');
	READ_ONLY = sandbox.intelligence.keys.demo('read-only');
	CONVAI_ONLY = sandbox.intelligence.keys.demo('convai-only');
	REVOKED = sandbox.intelligence.keys.demo('revoked');
});

afterAll(async () => {
	await sandbox.close();
});

beforeEach(() => {
	sandbox.reset();
});

afterEach(() => {
	for (const reader of readers.splice(0)) reader.close();
});

describe('authentication', () => {
	test('unknown and revoked keys get 401; a missing scope gets 403 naming it', async () => {
		expect((await api('GET', '/sessions/sess_demo_quiet/stream-token', { key: `tpk_${'a'.repeat(48)}` })).status).toBe(401);
		expect((await api('GET', '/sessions/sess_demo_quiet/stream-token', { key: REVOKED })).status).toBe(401);
		expect((await api('GET', '/sessions/sess_demo_quiet/stream-token', { key: null })).status).toBe(401);
		const convaiOnly = await api('GET', '/sessions/sess_demo_quiet/stream-token', { key: CONVAI_ONLY });
		expect(convaiOnly.status).toBe(403);
		expect(convaiOnly.body.message).toContain('intelligence:read');
		expect((await api('GET', '/sessions/sess_demo_quiet/stream-token', { key: READ_ONLY })).status).toBe(200);
		const upgrade = await api('POST', `/configurations/${SUPPORT_CONFIG_UUID}/upgrade-operators`, { key: READ_ONLY, body: { all: true } });
		expect(upgrade.status).toBe(403);
		expect(upgrade.body.message).toContain('intelligence:write');
		expect(upgrade.body.required_scope).toBe('intelligence:write');
	});

	test('the keys are shared with the agent service', () => {
		expect(FULL).toBe(sandbox.convai.keys.demo('full-access'));
		expect(sandbox.intelligence.keys).toBe(sandbox.convai.keys);
	});
});

describe('configurations and upgrade-operators', () => {
	test('seeded configurations carry every operator reference field, some with upgrades available', async () => {
		const listed = await admin('GET', '/configurations');
		const configs = listed.body as unknown as Array<Record<string, unknown>>;
		expect(configs.length).toBeGreaterThanOrEqual(2);
		for (const config of configs) {
			expect(Object.keys(config).sort()).toEqual(
				['actions', 'created_at', 'description', 'is_active', 'name', 'operators', 'sync_state', 'template_id', 'updated_at', 'uuid', 'version'].sort(),
			);
			for (const operator of config.operators as Array<Record<string, unknown>>) {
				expect(Object.keys(operator).sort()).toEqual(
					[
						'context_window', 'current_version', 'granularity', 'include_operator_results', 'include_prior_results', 'model_tier', 'name',
						'operator_results_window', 'output_type', 'parameters', 'prior_results_window', 'upgrade_available', 'version',
					].sort(),
				);
				expect(Object.keys(operator.granularity as object).sort()).toEqual(['every', 'on', 'until_match']);
				expect(operator.upgrade_available).toBe((operator.current_version as number) > (operator.version as number));
			}
		}
		const support = configs.find((c) => c.uuid === SUPPORT_CONFIG_UUID) as { operators: Array<{ upgrade_available: boolean }> };
		expect(support.operators.some((o) => o.upgrade_available)).toBe(true);
		// No list endpoint in the public API.
		expect((await api('GET', '/configurations')).status).toBe(404);
	});

	test('validation: 404 unknown uuid, 400 for all/operators problems naming the field or the unknown operators', async () => {
		const path = `/configurations/${SUPPORT_CONFIG_UUID}/upgrade-operators`;
		expect((await api('POST', '/configurations/00000000-0000-4000-8000-000000000000/upgrade-operators', { body: { all: true } })).status).toBe(404);
		const empty = await api('POST', path, { body: {} });
		expect(empty.status).toBe(400);
		expect(empty.body.errors).toEqual([{ field: 'all', message: expect.any(String) }]);
		const notBoolean = await api('POST', path, { body: { all: 'yes' } });
		expect(notBoolean.status).toBe(400);
		expect((notBoolean.body.errors as Array<{ field: string }>)[0].field).toBe('all');
		const allFalse = await api('POST', path, { body: { all: false, operators: null } });
		expect(allFalse.status).toBe(400);
		expect((allFalse.body.errors as Array<{ field: string }>)[0].field).toBe('operators');
		const unknown = await api('POST', path, { body: { all: false, operators: ['sentiment', 'nope', 'also_nope'] } });
		expect(unknown.status).toBe(400);
		expect(unknown.body.message).toContain('nope');
		expect(unknown.body.message).toContain('also_nope');
		expect(unknown.body.unknown_operators).toEqual(['nope', 'also_nope']);
		expect((await api('POST', path, { body: { operators: 'sentiment' } })).status).toBe(400);
		const configs = (await admin('GET', '/configurations')).body as unknown as Array<{ uuid: string; version: number }>;
		expect(configs.find((c) => c.uuid === SUPPORT_CONFIG_UUID)?.version).toBe(7);
	});

	test('named operators move to their current version and the configuration version goes up; all moves the rest', async () => {
		const path = `/configurations/${SUPPORT_CONFIG_UUID}/upgrade-operators`;
		const first = await api('POST', path, { body: { all: false, operators: ['sentiment'] } });
		expect(first.status).toBe(200);
		expect(first.body.uuid).toBe(SUPPORT_CONFIG_UUID);
		expect(first.body.version).toBe(8);
		const operators = first.body.operators as Array<{ name: string; version: number; current_version: number; upgrade_available: boolean; granularity: { on: string } }>;
		expect(operators.find((o) => o.name === 'sentiment')).toMatchObject({ version: 3, current_version: 3, upgrade_available: false });
		expect(operators.find((o) => o.name === 'call_summary')).toMatchObject({ version: 5, current_version: 6, upgrade_available: true });

		// `all: true` ignores operators.
		const second = await api('POST', path, { body: { all: true, operators: ['does_not_matter'] } });
		expect(second.status).toBe(200);
		expect(second.body.version).toBe(9);
		for (const o of second.body.operators as Array<{ version: number; current_version: number; upgrade_available: boolean }>) {
			expect(o.version).toBe(o.current_version);
			expect(o.upgrade_available).toBe(false);
		}
		// Both deployments of an operator name move together.
		const satisfaction = (second.body.operators as Array<{ name: string; version: number; granularity: { on: string } }>).filter((o) => o.name === 'customer_satisfaction');
		expect(satisfaction.map((o) => [o.granularity.on, o.version])).toEqual([['turn', 2], ['conversation_end', 2]]);

		// Operator events now carry the new version.
		const session = await newSession();
		await script(session, { events: [{ event_type: 'operator_result', operator: 'sentiment', result: { value: 'neutral' } }], intervalMs: 0, wait: true });
		const events = (await admin('GET', `/sessions/${session}/events`)).body as unknown as Event[];
		expect((events[1].operator as { version: number }).version).toBe(3);
	});
});

describe('stream tokens', () => {
	// Token lifetimes run on the sandbox's clock: a fake one here, so that a busy machine cannot outlive a short token.
	const time = sandboxClockForFile();

	test('the token response is {token, session_id, expires_at}; unknown sessions are 404', async () => {
		const answer = await api('GET', '/sessions/sess_demo_transcript/stream-token');
		expect(answer.status).toBe(200);
		expect(Object.keys(answer.body).sort()).toEqual(['expires_at', 'session_id', 'token']);
		expect(answer.body.session_id).toBe('sess_demo_transcript');
		const expires = Date.parse(String(answer.body.expires_at));
		expect(expires - time.clock.now()).toBe(60_000);
		expect((await api('GET', '/sessions/sess_nope/stream-token')).status).toBe(404);
	});

	test('missing, unknown, expired and foreign tokens get 401 JSON', async () => {
		const base = `${sandbox.url}/intelligence/v1/sessions/sess_demo_quiet/events`;
		for (const url of [base, `${base}?token=sst_unknown`]) {
			const reader = await SseReader.open(url);
			readers.push(reader);
			await reader.done();
			expect(reader.status).toBe(401);
			expect(reader.headers['content-type']).toMatch(/application\/json/);
			expect((reader.json as { message: string }).message).toEqual(expect.any(String));
		}
		const foreign = await token('sess_demo_transcript');
		const refused = await open('sess_demo_quiet', {}, foreign);
		await refused.done();
		expect(refused.status).toBe(401);
		expect((refused.json as { message: string }).message).toMatch(/another session/);

		await admin('POST', '/settings', { tokenLifetimeSeconds: 0.2 });
		const shortLived = await token('sess_demo_quiet');
		const inTime = await open('sess_demo_quiet', {}, shortLived);
		expect(inTime.status).toBe(200);
		// The same token may reconnect while valid.
		const again = await open('sess_demo_quiet', {}, shortLived);
		expect(again.status).toBe(200);
		await time.clock.advance(199);
		expect((await open('sess_demo_quiet', {}, shortLived)).status).toBe(200);
		await time.clock.advance(1);
		const expired = await open('sess_demo_quiet', {}, shortLived);
		await expired.done();
		expect(expired.status).toBe(401);
		expect((expired.json as { message: string }).message).toMatch(/expired/);
	});
});

describe('session event stream', () => {
	test('SSE framing: id and one-line JSON data per message; every event type and output type; session_ended closes', async () => {
		const reader = await open('sess_demo_transcript');
		expect(reader.status).toBe(200);
		expect(reader.headers['content-type']).toBe('text/event-stream');
		const played = await script('sess_demo_transcript', { preset: 'demo', intervalMs: 0 });
		expect(played.status).toBe(202);
		await reader.done();
		expect(reader.ended).toBe(true);

		// Raw framing: `id: ...` then `data: {...}` then a blank line, nothing else but retry/comments.
		const blocks = reader.raw.split('\n\n').filter((b) => b !== '');
		expect(blocks[0]).toBe('retry: 1000');
		for (const block of blocks.slice(1)) {
			const lines = block.split('\n');
			expect(lines).toHaveLength(2);
			expect(lines[0]).toMatch(/^id: evt_[0-9a-f]{6}_\d{6}$/);
			expect(lines[1]).toMatch(/^data: \{.*\}$/);
		}
		const events = reader.events;
		expect(events.length).toBe(reader.messages.length);
		const ids = reader.messages.map((m) => m.id);
		expect(new Set(ids).size).toBe(ids.length);
		reader.messages.forEach((m, i) => expect((events[i] as { event_id: string }).event_id).toBe(m.id));

		expect(events[0].event_type).toBe('session_started');
		expect(Object.keys(events[0]).sort()).toEqual(['call_id', 'conversation_id', 'event_id', 'event_type', 'session_id', 'started_at']);
		const last = events[events.length - 1];
		expect(last.event_type).toBe('session_ended');
		expect(last).toMatchObject({ session_id: 'sess_demo_transcript', call_id: 'call_demo_0001', conversation_id: 'conv_demo_0001', configuration_id: SUPPORT_CONFIG_UUID });
		expect(Number.isInteger(last.duration_seconds)).toBe(true);
		expect(typeof last.started_at).toBe('string');
		expect(typeof last.ended_at).toBe('string');

		const results = events.filter((e) => e.event_type === 'operator_result');
		const shapes: Record<string, (result: Record<string, unknown>) => boolean> = {
			classification: (r) => typeof r.value === 'string',
			boolean: (r) => typeof r.value === 'boolean',
			score: (r) => typeof r.value === 'number',
			multi_tag: (r) => Array.isArray(r.tags) && (r.tags as unknown[]).every((t) => typeof t === 'string'),
			extraction: (r) => (typeof r.value === 'string' || r.value === null) && typeof r.found === 'boolean',
			text: (r) => typeof r.value === 'string',
		};
		expect([...new Set(results.map((r) => r.output_type))].sort()).toEqual(Object.keys(shapes).sort());
		for (const r of results) {
			for (const field of ['event_id', 'event_type', 'session_id', 'call_id', 'conversation_id', 'configuration_id', 'timestamp_utc', 'call_elapsed_seconds', 'operator', 'output_type', 'result', 'confidence', 'reasoning', 'speaker', 'trigger_text', 'turn_index']) {
				expect(r).toHaveProperty(field);
			}
			expect(shapes[r.output_type as string](r.result as Record<string, unknown>)).toBe(true);
			expect(r.confidence).toBeGreaterThanOrEqual(0);
			expect(r.confidence).toBeLessThanOrEqual(1);
			expect(Number.isNaN(Date.parse(r.timestamp_utc as string))).toBe(false);
			const operator = r.operator as { name: string; version: number; granularity: { on: string; every: unknown; until_match: unknown } };
			expect(Number.isInteger(operator.version)).toBe(true);
			expect(Object.keys(operator.granularity).sort()).toEqual(['every', 'on', 'until_match']);
			if (operator.granularity.on === 'conversation_end') {
				expect(r.speaker).toBeNull();
				expect(r.trigger_text).toBeNull();
				expect(r.turn_index).toBeNull();
			} else {
				expect(Number.isInteger(r.turn_index)).toBe(true);
				expect(['caller', 'recipient']).toContain(r.speaker);
			}
		}
		expect(results.some((r) => (r.operator as { granularity: { on: string } }).granularity.on === 'conversation_end')).toBe(true);
		// One operator deployed at two granularities: told apart by operator.granularity.
		const satisfaction = results.filter((r) => (r.operator as { name: string }).name === 'customer_satisfaction');
		expect(satisfaction.map((r) => (r.operator as { granularity: { on: string } }).granularity.on).sort()).toEqual(['conversation_end', 'turn']);

		const errors = events.filter((e) => e.event_type === 'operator_error');
		expect(errors).toHaveLength(1);
		expect(errors[0]).not.toHaveProperty('result');
		expect(errors[0]).not.toHaveProperty('confidence');
		expect(errors[0]).not.toHaveProperty('reasoning');
		expect(errors[0]).toHaveProperty('operator');
		expect(Number.isInteger(errors[0].turn_index)).toBe(true);

		// Transcript: interims then the final, sharing utterance_index; a per-speaker counter.
		const utterances = events.filter((e) => e.event_type === 'transcript_utterance');
		expect(utterances.length).toBeGreaterThan(0);
		for (const u of utterances) {
			for (const field of ['session_id', 'call_id', 'speaker', 'text', 'start', 'utterance_index', 'is_final', 'confidence', 'duration']) expect(u).toHaveProperty(field);
		}
		for (const speaker of ['caller', 'recipient']) {
			const mine = utterances.filter((u) => u.speaker === speaker);
			let expected = 0;
			let sawInterim = false;
			for (const u of mine) {
				expect(u.utterance_index).toBe(expected);
				if (u.is_final) {
					expected += 1;
				} else {
					sawInterim = true;
					expect(u.confidence as number).toBeLessThan(0.9);
				}
			}
			expect(sawInterim).toBe(true);
			expect(expected).toBe(3);
		}

		// A new connection after the end replays everything and closes.
		const replay = await open('sess_demo_transcript');
		await replay.done();
		expect(replay.messages.map((m) => m.id)).toEqual(ids);
		expect((await admin('GET', '/sessions/sess_demo_transcript')).body.state).toBe('ended');
		expect((await script('sess_demo_transcript', { preset: 'demo' })).status).toBe(409);
	});

	test('no transcript_utterance events when the session has transcript_events false', async () => {
		const reader = await open('sess_demo_quiet');
		await script('sess_demo_quiet', { preset: 'demo', intervalMs: 0 });
		await reader.done();
		const types = new Set(reader.events.map((e) => e.event_type));
		expect(types.has('transcript_utterance')).toBe(false);
		expect(types.has('operator_result')).toBe(true);
		expect(types.has('session_ended')).toBe(true);

		// Turned on (admin patch), a new session shows them.
		const session = await newSession({ transcript_events: false });
		expect((await admin('PATCH', `/sessions/${session}`, { transcript_events: true })).body.transcript_events).toBe(true);
		await script(session, { events: [{ event_type: 'transcript_utterance', speaker: 'caller', text: 'Hello', is_final: true }], intervalMs: 0, wait: true });
		const stored = (await admin('GET', `/sessions/${session}/events`)).body as unknown as Event[];
		expect(stored.map((e) => e.event_type)).toEqual(['session_started', 'transcript_utterance']);
	});

	test('Last-Event-ID resumes after that event, then continues live; after the end it replays the rest and closes', async () => {
		const session = await newSession({ transcript_events: true });
		const played = await script(session, {
			events: [
				{ event_type: 'operator_result', operator: 'sentiment', result: { value: 'neutral' } },
				{ event_type: 'operator_result', operator: 'topics', result: { tags: ['billing'] } },
				{ event_type: 'operator_result', operator: 'escalation_requested', result: { value: false } },
			],
			intervalMs: 0,
			wait: true,
		});
		expect(played.body.emitted).toBe(4); // session_started + 3
		const history = (await admin('GET', `/sessions/${session}/events`)).body as unknown as Event[];
		const ids = history.map((e) => String(e.event_id));

		const resumed = await open(session, { 'Last-Event-ID': ids[1] });
		await resumed.waitForEvents(2);
		expect(resumed.messages.map((m) => m.id)).toEqual(ids.slice(2));

		await script(session, { events: [{ event_type: 'operator_result', operator: 'order_number', result: { value: '12345', found: true } }], intervalMs: 0, wait: true });
		await resumed.waitForEvents(3);
		const liveId = resumed.messages[2].id as string;
		expect(resumed.ended).toBe(false);
		const streams = (await admin('GET', '/streams')).body as unknown as Array<{ sessionId: string; resumedFrom: string; eventsSent: number }>;
		expect(streams).toEqual([expect.objectContaining({ sessionId: session, resumedFrom: ids[1], eventsSent: 3 })]);

		await admin('POST', `/sessions/${session}/end`);
		await resumed.done();
		expect(resumed.events[resumed.events.length - 1].event_type).toBe('session_ended');

		const afterEnd = await open(session, { 'Last-Event-ID': liveId });
		await afterEnd.done();
		expect(afterEnd.events.map((e) => e.event_type)).toEqual(['session_ended']);
		const atEnd = await open(session, { 'Last-Event-ID': resumed.messages[resumed.messages.length - 1].id as string });
		await atEnd.done();
		expect(atEnd.messages).toEqual([]);
	});

	test('heartbeat comments at the configured interval; named events when enabled', async () => {
		await admin('POST', '/settings', { heartbeatMs: 40, namedEvents: true });
		const reader = await open('sess_demo_quiet');
		await waitFor(() => reader.comments.filter((c) => c === 'ping').length >= 2, 10_000, 'pings');
		expect(reader.raw).toContain(': ping\n\n');
		await script('sess_demo_quiet', { events: [{ event_type: 'operator_result', operator: 'sentiment' }, { event_type: 'session_ended' }], intervalMs: 0 });
		await reader.done();
		expect(reader.messages.map((m) => m.event)).toEqual(['session_started', 'operator_result', 'session_ended']);
		expect(reader.raw).toMatch(/id: evt_\w+\nevent: operator_result\ndata: \{/);
		expect(reader.events.map((e) => e.event_type)).toEqual(['session_started', 'operator_result', 'session_ended']);
	});

	test('faults: dropAfter destroys the socket after N events; stall sends nothing, not even pings; malformed sends one non-JSON data line', async () => {
		await admin('POST', '/settings', { heartbeatMs: 30 });
		const session = await newSession();
		const dropped = await open(session);
		expect((await admin('POST', `/sessions/${session}/faults`, { dropAfter: 2 })).body).toEqual({ applied: 1, pending: false });
		await script(session, { generate: 5, intervalMs: 5 });
		await dropped.done();
		expect(dropped.ended).toBe(false);
		expect(dropped.aborted).toBe(true);
		expect(dropped.messages).toHaveLength(2);

		const stalled = await open('sess_demo_quiet');
		await waitFor(() => stalled.comments.length >= 1, 10_000, 'first ping');
		await admin('POST', '/sessions/sess_demo_quiet/faults', { stall: true });
		const before = stalled.raw.length;
		await script('sess_demo_quiet', { events: [{ event_type: 'operator_result', operator: 'sentiment' }], intervalMs: 0, wait: true });
		await delay(150);
		expect(stalled.raw.length).toBe(before);
		const listed = (await admin('GET', '/streams')).body as unknown as Array<{ stalled: boolean }>;
		expect(listed.some((s) => s.stalled)).toBe(true);

		const other = await newSession();
		const malformed = await open(other);
		await admin('POST', `/sessions/${other}/faults`, { malformed: true });
		await script(other, { events: [{ event_type: 'operator_result', operator: 'sentiment' }, { event_type: 'session_ended' }], intervalMs: 0 });
		await malformed.done();
		const bad = malformed.messages.filter((m) => {
			try {
				JSON.parse(m.data);
				return false;
			} catch {
				return true;
			}
		});
		expect(bad).toHaveLength(1);
		expect(bad[0].id).toBeUndefined();
		expect(malformed.events.map((e) => e.event_type)).toEqual(['session_started', 'operator_result', 'session_ended']);
	});

	test('faults set before a connection opens apply to the next one', async () => {
		const session = await newSession();
		await script(session, { generate: 3, intervalMs: 0, wait: true });
		expect((await admin('POST', `/sessions/${session}/faults`, { dropAfter: 1 })).body).toEqual({ applied: 0, pending: true });
		const reader = await open(session);
		await reader.done();
		expect(reader.messages).toHaveLength(1);
		expect(reader.aborted).toBe(true);
	});

	test('the generator produces N operator results then session_ended', async () => {
		const session = await newSession();
		const reader = await open(session);
		await script(session, { generate: 2000 });
		await reader.done(10_000);
		const types = reader.events.map((e) => e.event_type);
		expect(types[0]).toBe('session_started');
		expect(types.filter((t) => t === 'operator_result')).toHaveLength(2000);
		expect(types[types.length - 1]).toBe('session_ended');
		expect(new Set(reader.messages.map((m) => m.id)).size).toBe(types.length);
	});

	test('the generator with end: false leaves the session open until it is ended', async () => {
		const session = await newSession();
		const played = await script(session, { generate: 3, intervalMs: 0, end: false, wait: true });
		expect(played.body).toMatchObject({ steps: 3, emitted: 4, state: 'active' }); // session_started, then 3
		expect((await script(session, { generate: 1, end: 'no' })).status).toBe(400);
		expect((await admin('POST', `/sessions/${session}/end`, {})).body).toMatchObject({ state: 'ended' });
	});

	test('admin sessions: create, list, conflicts and validation', async () => {
		const created = await admin('POST', '/sessions', { session_id: 'sess_custom', transcript_events: true });
		expect(created.body).toMatchObject({ session_id: 'sess_custom', transcript_events: true, state: 'created', event_count: 0 });
		expect((await admin('POST', '/sessions', { session_id: 'sess_custom' })).status).toBe(409);
		expect((await admin('POST', '/sessions', { transcript_events: 'yes' })).status).toBe(400);
		const listed = (await admin('GET', '/sessions')).body as unknown as Array<{ session_id: string }>;
		expect(listed.map((s) => s.session_id)).toEqual(['sess_demo_transcript', 'sess_demo_quiet', 'sess_custom']);
		expect((await script('sess_custom', {})).status).toBe(400);
		expect((await script('sess_custom', { events: [{ nope: 1 }] })).status).toBe(400);
		expect((await script('sess_nope', { preset: 'demo' })).status).toBe(404);
	});

	test('reset and close end open streams', async () => {
		const reader = await open('sess_demo_quiet');
		expect((await admin('GET', '/streams')).body).toHaveLength(1);
		sandbox.reset();
		await reader.done();
		expect(reader.aborted).toBe(true);
		expect((await admin('GET', '/streams')).body).toHaveLength(0);
	});
});
