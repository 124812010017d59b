import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import type { Sandbox } from '../../sandbox/index';
import { setSandboxTime } from '../../sandbox/core/clock';
import { startSandbox } from '../../sandbox/index';
import { FakeClock } from '../harness/fakeClock';
import type { Receiver } from './helpers';
import { sendJson, startReceiver, unrefDelay, waitFor } from './helpers';

interface Answer {
	status: number;
	headers: Headers;
	body: Record<string, unknown>;
	text: string;
}

let sandbox: Sandbox;
let receiver: Receiver;
let FULL: string;
let READ_ONLY: string;
let CONVAI_ONLY: string;
let REVOKED: string;

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

const api = (method: string, path: string, options: Parameters<typeof call>[2] = {}) => call(method, `/convai/v1${path}`, options);
const admin = (method: string, path: string, body?: unknown) => call(method, `/_sandbox/convai${path}`, { key: null, body });

async function createWebhook(fields: Record<string, unknown>): Promise<Record<string, unknown>> {
	const answer = await api('POST', '/webhooks', { body: { url: receiver.url, ...fields } });
	expect(answer.status).toBe(201);
	return answer.body;
}

interface DeliveryRecord {
	deliveryId: string;
	webhookId: string;
	eventType: string;
	scope: string;
	outcome: string;
	probe: boolean;
	attempts: Array<{ attempt: number; startedAt: string; status: number | null; elapsedMs: number; timedOut: boolean; error: string | null }>;
	response: { status: number | null; body: unknown; elapsedMs: number; timedOut: boolean } | null;
}

async function converse(body: Record<string, unknown>): Promise<{ body: Record<string, unknown>; deliveries: DeliveryRecord[]; ms: number }> {
	const started = Date.now();
	const answer = await admin('POST', '/conversations', body);
	expect(answer.status).toBe(200);
	return { body: answer.body, deliveries: answer.body.deliveries as DeliveryRecord[], ms: Date.now() - started };
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	FULL = sandbox.convai.keys.demo('full-access');
	READ_ONLY = sandbox.convai.keys.demo('read-only');
	CONVAI_ONLY = sandbox.convai.keys.demo('convai-only');
	REVOKED = sandbox.convai.keys.demo('revoked');
});

afterAll(async () => {
	await sandbox.close();
});

beforeEach(async () => {
	sandbox.reset();
	receiver = await startReceiver();
});

afterEach(async () => {
	// Real time again after a test that ran the sandbox on a fake clock.
	setSandboxTime(undefined);
	await receiver.close();
});

describe('keys', () => {
	test('demo keys are tpk_ and 48 lowercase hex characters, and listed with scopes in info()', () => {
		for (const key of [FULL, READ_ONLY, CONVAI_ONLY, REVOKED]) expect(key).toMatch(/^tpk_[0-9a-f]{48}$/);
		const info = sandbox.info() as { apis: { convai: { keys: Array<{ label: string; key: string; scopes: string[]; revoked: boolean }> } } };
		const labels = info.apis.convai.keys.map((k) => k.label);
		expect(labels).toEqual(['full-access', 'read-only', 'convai-only', 'revoked']);
		expect(info.apis.convai.keys.find((k) => k.label === 'convai-only')?.scopes).toEqual(['convai:read', 'convai:write', 'convai:delete', 'convai:admin']);
		expect(info.apis.convai.keys.find((k) => k.label === 'revoked')?.revoked).toBe(true);
	});

	test('no key, an unknown key, a malformed key and a revoked key get 401 JSON', async () => {
		for (const key of [null, `tpk_${'0'.repeat(48)}`, 'tpk_nothex', REVOKED]) {
			const answer = await api('GET', '/webhooks', { key });
			expect(answer.status).toBe(401);
			expect(answer.headers.get('content-type')).toMatch(/application\/json/);
			expect(answer.body.message).toEqual(expect.any(String));
			expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
		}
		const basic = await api('GET', '/webhooks', { key: null, headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
		expect(basic.status).toBe(401);
	});

	test('a key without the scope gets 403 naming it: read for GET, write for POST, delete for DELETE', async () => {
		expect((await api('GET', '/webhooks', { key: READ_ONLY })).status).toBe(200);
		const post = await api('POST', '/webhooks', { key: READ_ONLY, body: { event_type: 'conversation.initiating', url: receiver.url } });
		expect(post.status).toBe(403);
		expect(post.body.message).toContain('convai:write');
		expect(post.body.required_scope).toBe('convai:write');
		const created = await createWebhook({ event_type: 'conversation.initiating' });
		const del = await api('DELETE', `/webhooks/${String(created.webhook_id)}`, { key: READ_ONLY });
		expect(del.status).toBe(403);
		expect(del.body.message).toContain('convai:delete');
		expect((await api('DELETE', `/webhooks/${String(created.webhook_id)}`, { key: CONVAI_ONLY })).status).toBe(204);
	});

	test('revocation through the admin API is immediate', async () => {
		const created = await admin('POST', '/keys', { label: 'temp', scopes: ['convai:read'] });
		expect(created.status).toBe(201);
		const key = String(created.body.key);
		expect(key).toMatch(/^tpk_[0-9a-f]{48}$/);
		expect((await api('GET', '/webhooks', { key })).status).toBe(200);
		expect((await admin('POST', '/keys/revoke', { key })).status).toBe(200);
		expect((await api('GET', '/webhooks', { key })).status).toBe(401);
	});
});

describe('webhooks', () => {
	test('create answers 201 with the record and a Location; get adds health; list filters; delete answers 204', async () => {
		const answer = await api('POST', '/webhooks', {
			body: { event_type: 'conversation.initiating', url: receiver.url, request_headers: { 'X-Shared-Secret': 's3cret' } },
		});
		expect(answer.status).toBe(201);
		const record = answer.body;
		expect(record).toEqual({
			webhook_id: expect.stringMatching(/^wh_[0-9a-f]{24}$/),
			event_type: 'conversation.initiating',
			url: receiver.url,
			request_headers: { 'X-Shared-Secret': 's3cret' },
			agent_id: null,
			timeout_ms: 5000,
			created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
			status: 'active',
		});
		expect(answer.headers.get('location')).toBe(`${sandbox.url}/convai/v1/webhooks/${String(record.webhook_id)}`);

		const agentHook = await createWebhook({ event_type: 'conversation.completed', agent_id: 'agent_demo_sales', timeout_ms: 2500 });
		expect(agentHook.agent_id).toBe('agent_demo_sales');
		expect(agentHook.timeout_ms).toBe(2500);

		const one = await api('GET', `/webhooks/${String(record.webhook_id)}`);
		expect(one.status).toBe(200);
		expect(one.body.health).toEqual({ consecutive_failures: 0, last_delivery_at: null, last_status_code: null, last_error: null, last_response_ms: null });

		const all = await api('GET', '/webhooks');
		expect((all.body.webhooks as unknown[]).length).toBe(2);
		const byAgent = await api('GET', '/webhooks?agent_id=agent_demo_sales');
		expect((byAgent.body.webhooks as Array<{ webhook_id: string }>).map((w) => w.webhook_id)).toEqual([agentHook.webhook_id]);
		const byType = await api('GET', '/webhooks?event_type=conversation.initiating');
		expect((byType.body.webhooks as Array<{ webhook_id: string }>).map((w) => w.webhook_id)).toEqual([record.webhook_id]);
		expect((await api('GET', '/webhooks?event_type=call.started')).status).toBe(400);

		const del = await api('DELETE', `/webhooks/${String(record.webhook_id)}`);
		expect(del.status).toBe(204);
		expect(del.text).toBe('');
		expect((await api('GET', `/webhooks/${String(record.webhook_id)}`)).status).toBe(404);
		expect((await api('DELETE', `/webhooks/${String(record.webhook_id)}`)).status).toBe(404);
	});

	test.each([
		[{ url: 'http://127.0.0.1:1/x' }, 'event_type'],
		[{ event_type: 'conversation.started', url: 'http://127.0.0.1:1/x' }, 'event_type'],
		[{ event_type: 'conversation.initiating' }, 'url'],
		[{ event_type: 'conversation.initiating', url: 'not a url' }, 'url'],
		[{ event_type: 'conversation.initiating', url: 'ftp://127.0.0.1/x' }, 'url'],
		[{ event_type: 'conversation.initiating', url: 'http://127.0.0.1:1/x', request_headers: ['a'] }, 'request_headers'],
		[{ event_type: 'conversation.initiating', url: 'http://127.0.0.1:1/x', request_headers: { 'X-Token': 5 } }, 'request_headers.X-Token'],
		[{ event_type: 'conversation.initiating', url: 'http://127.0.0.1:1/x', request_headers: { 'Bad Name': 'x' } }, 'request_headers.Bad Name'],
		[{ event_type: 'conversation.initiating', url: 'http://127.0.0.1:1/x', agent_id: 42 }, 'agent_id'],
		[{ event_type: 'conversation.initiating', url: 'http://127.0.0.1:1/x', timeout_ms: '500' }, 'timeout_ms'],
		[{ event_type: 'conversation.initiating', url: 'http://127.0.0.1:1/x', timeout_ms: 1.5 }, 'timeout_ms'],
		[{ event_type: 'conversation.initiating', url: 'http://127.0.0.1:1/x', timeout_ms: 0 }, 'timeout_ms'],
		[{ event_type: 'conversation.initiating', url: 'http://127.0.0.1:1/x', headers: {} }, 'headers'],
	])('invalid input %j answers 400 naming %s', async (body, field) => {
		const answer = await api('POST', '/webhooks', { body });
		expect(answer.status).toBe(400);
		expect(answer.body.errors).toEqual([{ field, message: expect.any(String) }]);
		expect(answer.body.message).toContain(field);
	});

	test('a body that is not JSON answers 400 or 415', async () => {
		expect((await api('POST', '/webhooks', { body: '{"event_type":', headers: { 'Content-Type': 'application/json' } })).status).toBe(400);
		expect((await api('POST', '/webhooks', { body: 'event_type=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
	});

	test('one webhook per event type per scope: 409 names event type and scope, never the existing id', async () => {
		const account = await createWebhook({ event_type: 'conversation.initiating' });
		const dupAccount = await api('POST', '/webhooks', { body: { event_type: 'conversation.initiating', url: 'http://127.0.0.1:9/other' } });
		expect(dupAccount.status).toBe(409);
		expect(dupAccount.body.message).toContain('conversation.initiating');
		expect(dupAccount.body.message).toMatch(/account/);
		expect(dupAccount.text).not.toContain(String(account.webhook_id));

		// Other event type, account-wide: fine. Same type for an agent: a different scope, fine.
		await createWebhook({ event_type: 'conversation.completed' });
		const agent = await createWebhook({ event_type: 'conversation.initiating', agent_id: 'agent_demo_support' });
		const dupAgent = await api('POST', '/webhooks', { body: { event_type: 'conversation.initiating', url: receiver.url, agent_id: 'agent_demo_support' } });
		expect(dupAgent.status).toBe(409);
		expect(dupAgent.body.message).toContain('agent_demo_support');
		expect(dupAgent.body.message).toContain('conversation.initiating');
		expect(dupAgent.text).not.toContain(String(agent.webhook_id));
		await createWebhook({ event_type: 'conversation.initiating', agent_id: 'agent_demo_sales' });

		// The client finds the existing one through the list, deletes it, and can create again.
		const found = await api('GET', '/webhooks?event_type=conversation.initiating&agent_id=agent_demo_support');
		const [existing] = found.body.webhooks as Array<{ webhook_id: string }>;
		expect(existing.webhook_id).toBe(agent.webhook_id);
		expect((await api('DELETE', `/webhooks/${existing.webhook_id}`)).status).toBe(204);
		await createWebhook({ event_type: 'conversation.initiating', agent_id: 'agent_demo_support' });
	});
});

describe('deliveries', () => {
	test('conversation.initiating goes to the account-wide and the agent-scoped webhook, with headers and the answers recorded', async () => {
		const agentReceiver = await startReceiver((req, res) =>
			sendJson(res, 200, { dynamic_variables: { customer_name: 'Ada', tier: 'gold' }, conversation_config_override: { agent: { language: 'en' } } }),
		);
		receiver.respond((req, res) => sendJson(res, 200, { dynamic_variables: { tier: 'silver', account_id: 'A-1' } }));
		try {
			await createWebhook({ event_type: 'conversation.initiating', request_headers: { 'X-Shared-Secret': 'account-secret' } });
			await api('POST', '/webhooks', {
				body: { event_type: 'conversation.initiating', url: agentReceiver.url, agent_id: 'agent_demo_support', request_headers: { Authorization: 'Token agent-secret' } },
			});
			const before = Math.floor(Date.now() / 1000);
			const { body, deliveries } = await converse({ agent_id: 'agent_demo_support', conversation_id: 'conv_test_1', completed: false });
			expect(deliveries.map((d) => d.scope).sort()).toEqual(['account', 'agent']);
			expect(deliveries.every((d) => d.outcome === 'delivered')).toBe(true);

			const [accountCall] = receiver.requests;
			const [agentCall] = agentReceiver.requests;
			for (const received of [accountCall, agentCall]) {
				expect(received.method).toBe('POST');
				expect(received.headers['content-type']).toBe('application/json');
				expect(received.json).toEqual({ type: 'conversation.initiating', timestamp: expect.any(Number), data: { conversation_id: 'conv_test_1', agent_id: 'agent_demo_support' } });
				const { timestamp } = received.json as { timestamp: number };
				expect(Number.isInteger(timestamp)).toBe(true);
				expect(timestamp).toBeGreaterThanOrEqual(before);
			}
			expect(accountCall.headers['x-shared-secret']).toBe('account-secret');
			expect(agentCall.headers.authorization).toBe('Token agent-secret');

			const agentDelivery = deliveries.find((d) => d.scope === 'agent');
			expect(agentDelivery?.response).toEqual({ status: 200, body: { dynamic_variables: { customer_name: 'Ada', tier: 'gold' }, conversation_config_override: { agent: { language: 'en' } } }, elapsedMs: expect.any(Number), timedOut: false });
			// Merged: account-wide first, the agent-scoped answer over it.
			expect(body.dynamic_variables).toEqual({ tier: 'gold', account_id: 'A-1', customer_name: 'Ada' });
			expect(body.conversation_config_override).toEqual({ agent: { language: 'en' } });

			// Another agent's conversation reaches only the account-wide webhook.
			const other = await converse({ agent_id: 'agent_demo_sales', completed: false });
			expect(other.deliveries.map((d) => d.scope)).toEqual(['account']);
			expect(agentReceiver.requests).toHaveLength(1);

			const listed = await admin('GET', '/deliveries?conversation_id=conv_test_1');
			expect((listed.body as unknown as DeliveryRecord[]).length).toBe(2);
		} finally {
			await agentReceiver.close();
		}
	});

	test('an empty 200 is a valid answer', async () => {
		await createWebhook({ event_type: 'conversation.initiating' });
		const { body, deliveries } = await converse({ agent_id: 'agent_demo_support', completed: false });
		expect(deliveries[0].outcome).toBe('delivered');
		expect(deliveries[0].response?.body).toBeNull();
		expect(body.dynamic_variables).toEqual({});
	});

	test('conversation.completed carries status, metadata, transcript and analysis, after the delay', async () => {
		await createWebhook({ event_type: 'conversation.completed' });
		await createWebhook({ event_type: 'conversation.initiating', agent_id: 'agent_demo_support' });
		receiver.respond((req, res) => {
			const json = req.json as { type: string };
			if (json.type === 'conversation.initiating') sendJson(res, 200, { dynamic_variables: { customer_name: 'Grace' } });
			else sendJson(res, 204);
		});
		const { body } = await converse({ agent_id: 'agent_demo_support', conversation_id: 'conv_done', completedDelayMs: 50 });
		expect(body.completed).toBe('scheduled');
		const completed = await waitFor(() => receiver.requests.find((r) => (r.json as { type: string }).type === 'conversation.completed'), 10_000, 'completed delivery');
		const payload = completed.json as { type: string; timestamp: number; data: Record<string, unknown> };
		expect(Number.isInteger(payload.timestamp)).toBe(true);
		const data = payload.data as {
			conversation_id: string;
			agent_id: string;
			status: string;
			metadata: { start_time_unix_secs: number; call_duration_secs: number };
			transcript: Array<{ role: string; message: string; time_in_call_secs: number }>;
			analysis: { data_collection_results: Record<string, unknown>; call_successful: string; transcript_summary: string };
		};
		expect(data.conversation_id).toBe('conv_done');
		expect(data.agent_id).toBe('agent_demo_support');
		expect(data.status).toBe('done');
		expect(Number.isInteger(data.metadata.start_time_unix_secs)).toBe(true);
		expect(Number.isInteger(data.metadata.call_duration_secs)).toBe(true);
		expect(data.transcript.length).toBeGreaterThan(2);
		for (const turn of data.transcript) {
			expect(['agent', 'user']).toContain(turn.role);
			expect(typeof turn.message).toBe('string');
			expect(typeof turn.time_in_call_secs).toBe('number');
		}
		expect(data.transcript[0].message).toContain('Grace');
		expect(data.analysis.call_successful).toBe('success');
		expect(typeof data.analysis.transcript_summary).toBe('string');
		expect(typeof data.analysis.data_collection_results).toBe('object');

		const given = await converse({
			agent_id: 'agent_demo_sales',
			transcript: [{ role: 'user', message: 'Hi', time_in_call_secs: 1 }],
			analysis: { call_successful: 'failure' },
			waitForCompleted: true,
		});
		const [delivery] = given.deliveries.filter((d) => d.eventType === 'conversation.completed');
		expect(delivery.outcome).toBe('delivered');
		const sent = receiver.requests[receiver.requests.length - 1].json as { data: { transcript: unknown[]; analysis: { call_successful: string; transcript_summary: string } } };
		expect(sent.data.transcript).toEqual([{ role: 'user', message: 'Hi', time_in_call_secs: 1 }]);
		expect(sent.data.analysis.call_successful).toBe('failure');
		expect(typeof sent.data.analysis.transcript_summary).toBe('string');
	});

	// A real-time test: timeout_ms bounds the service's real I/O. The receiver answers only once the
	// sandbox has given up (the request closed), so a busy machine cannot make the answer arrive in time.
	test('timeout_ms is honoured: a slow receiver is abandoned after the timeout', async () => {
		receiver.respond(async (_req, res) => {
			await new Promise((resolve) => res.once('close', resolve));
			if (!res.destroyed) sendJson(res, 200, { dynamic_variables: { late: true } });
		});
		const hook = await createWebhook({ event_type: 'conversation.initiating', timeout_ms: 300 });
		const { body, deliveries, ms } = await converse({ agent_id: 'agent_demo_support', completed: false });
		expect(ms).toBeGreaterThanOrEqual(290);
		expect(body.waitedMs).toBeGreaterThanOrEqual(290);
		expect(deliveries[0].outcome).toBe('timed_out');
		expect(deliveries[0].attempts).toHaveLength(1);
		expect(deliveries[0].response).toEqual({ status: null, body: null, elapsedMs: expect.any(Number), timedOut: true });
		expect(deliveries[0].response?.elapsedMs).toBeGreaterThanOrEqual(290);
		expect(body.dynamic_variables).toEqual({});
		const health = (await api('GET', `/webhooks/${String(hook.webhook_id)}`)).body.health as Record<string, unknown>;
		expect(health.consecutive_failures).toBe(1);
		expect(health.last_error).toMatch(/300 ms/);
		expect(health.last_status_code).toBeNull();
	});

	test('a delivery is repeated on demand (a retry after a lost 200): the same request again, one more attempt recorded', async () => {
		await createWebhook({ event_type: 'conversation.completed', request_headers: { 'x-secret': 's1' } });
		await converse({ agent_id: 'agent_demo_support', conversation_id: 'conv_again', waitForCompleted: true });
		const [delivery] = (await admin('GET', '/deliveries?event_type=conversation.completed')).body as unknown as DeliveryRecord[];
		receiver.respond((_req, res) => sendJson(res, 202, { again: true }));
		const repeated = await admin('POST', `/deliveries/${delivery.deliveryId}/repeat`);
		expect(repeated.status).toBe(200);
		expect(repeated.body).toMatchObject({ deliveryId: delivery.deliveryId, response: { status: 202, body: { again: true } } });
		expect((repeated.body.attempts as unknown[]).length).toBe(2);
		expect(receiver.requests).toHaveLength(2);
		expect(receiver.requests[1].json).toEqual(receiver.requests[0].json);
		expect(receiver.requests[1].headers['x-secret']).toBe('s1');
		expect((await admin('POST', '/deliveries/dlv_none/repeat')).status).toBe(404);
	});

	test('a non-2xx answer is retried with exponential backoff', async () => {
		await admin('POST', '/settings', { retryBaseMs: 60, maxAttempts: 4 });
		let calls = 0;
		receiver.respond((_req, res) => {
			calls += 1;
			if (calls <= 2) sendJson(res, 503, { error: 'busy' });
			else sendJson(res, 200, { dynamic_variables: { attempt: calls } });
		});
		const hook = await createWebhook({ event_type: 'conversation.initiating' });
		const { deliveries, body } = await converse({ agent_id: 'agent_demo_support', completed: false });
		const [delivery] = deliveries;
		expect(delivery.outcome).toBe('delivered');
		expect(delivery.attempts.map((a) => a.status)).toEqual([503, 503, 200]);
		expect(body.dynamic_variables).toEqual({ attempt: 3 });
		const gaps = [1, 2].map((i) => receiver.requests[i].at - receiver.requests[i - 1].at);
		expect(gaps[0]).toBeGreaterThanOrEqual(55);
		expect(gaps[1]).toBeGreaterThanOrEqual(115);
		const health = (await api('GET', `/webhooks/${String(hook.webhook_id)}`)).body.health as Record<string, unknown>;
		expect(health).toMatchObject({ consecutive_failures: 0, last_status_code: 200, last_error: null });
		expect(health.last_delivery_at).toEqual(expect.any(String));
	});

	test('consecutive failures mark the webhook failing and suspend delivery; a probe after the recovery interval restores it', async () => {
		// The recovery interval runs on the sandbox's clock, a fake one here: a busy machine took more
		// than its 100 ms between a probe and the next event, which was then probed again, not suspended.
		// (Only this test: elsewhere the deliveries' own real timeouts and the clock must agree.)
		const clock = new FakeClock();
		setSandboxTime(clock);
		await admin('POST', '/settings', { retryBaseMs: 5, maxAttempts: 2, failureThreshold: 3, recoveryIntervalMs: 60_000 });
		receiver.respond((_req, res) => sendJson(res, 500, { error: 'down' }));
		const hook = await createWebhook({ event_type: 'conversation.initiating' });
		const id = String(hook.webhook_id);

		for (let i = 1; i <= 3; i++) {
			const { deliveries } = await converse({ agent_id: 'agent_demo_support', completed: false });
			expect(deliveries[0].outcome).toBe('failed');
			expect(deliveries[0].attempts).toHaveLength(2);
		}
		expect(receiver.requests).toHaveLength(6);
		const failing = await api('GET', `/webhooks/${id}`);
		expect(failing.body.status).toBe('failing');
		expect(failing.body.health).toMatchObject({ consecutive_failures: 3, last_status_code: 500, last_error: 'HTTP 500' });
		const listed = await api('GET', '/webhooks');
		expect((listed.body.webhooks as Array<{ status: string }>)[0].status).toBe('failing');

		// Suspended: nothing is sent.
		const suspended = await converse({ agent_id: 'agent_demo_support', completed: false });
		expect(suspended.deliveries[0].outcome).toBe('suspended');
		expect(suspended.deliveries[0].attempts).toEqual([]);
		expect(receiver.requests).toHaveLength(6);

		// After the recovery interval, the next event is one probe; a failed probe keeps it failing.
		await admin('POST', '/settings', { recoveryIntervalMs: 100 });
		await clock.advance(100);
		const failedProbe = await converse({ agent_id: 'agent_demo_support', completed: false });
		expect(failedProbe.deliveries[0]).toMatchObject({ probe: true, outcome: 'failed' });
		expect(failedProbe.deliveries[0].attempts).toHaveLength(1);
		expect((await api('GET', `/webhooks/${id}`)).body.status).toBe('failing');
		expect((await converse({ agent_id: 'agent_demo_support', completed: false })).deliveries[0].outcome).toBe('suspended');

		receiver.respond((_req, res) => sendJson(res, 200, {}));
		await clock.advance(100);
		const probe = await converse({ agent_id: 'agent_demo_support', completed: false });
		expect(probe.deliveries[0]).toMatchObject({ probe: true, outcome: 'delivered' });
		const recovered = await api('GET', `/webhooks/${id}`);
		expect(recovered.body.status).toBe('active');
		expect((recovered.body.health as Record<string, unknown>).consecutive_failures).toBe(0);
		expect((await converse({ agent_id: 'agent_demo_support', completed: false })).deliveries[0]).toMatchObject({ probe: false, outcome: 'delivered' });
	});

	test('network errors count as failures, and the admin recover endpoint restores a failing webhook', async () => {
		await admin('POST', '/settings', { retryBaseMs: 1, maxAttempts: 1, failureThreshold: 1 });
		const closed = await startReceiver();
		const deadUrl = closed.url;
		await closed.close();
		const hook = (await api('POST', '/webhooks', { body: { event_type: 'conversation.completed', url: deadUrl } })).body;
		const { deliveries } = await converse({ agent_id: 'agent_demo_support', waitForCompleted: true });
		expect(deliveries[0].outcome).toBe('failed');
		expect(deliveries[0].response?.status).toBeNull();
		expect(deliveries[0].attempts[0].error).toMatch(/ECONNREFUSED/);
		const failing = await api('GET', `/webhooks/${String(hook.webhook_id)}`);
		expect(failing.body.status).toBe('failing');
		const recovered = await admin('POST', `/webhooks/${String(hook.webhook_id)}/recover`);
		expect(recovered.status).toBe(200);
		expect(recovered.body.status).toBe('active');
		expect((await api('GET', `/webhooks/${String(hook.webhook_id)}`)).body.status).toBe('active');
	});

	test('settings are validated, and the admin call validates its input', async () => {
		expect((await admin('POST', '/settings', { retryBaseMs: 'fast' })).status).toBe(400);
		expect((await admin('POST', '/settings', { nope: 1 })).status).toBe(400);
		expect((await admin('GET', '/settings')).body).toMatchObject({ retryBaseMs: 200, failureThreshold: 3 });
		const missing = await admin('POST', '/conversations', {});
		expect(missing.status).toBe(400);
		expect(JSON.stringify(missing.body)).toContain('agent_id');
	});

	test('reset cancels deliveries in progress and clears webhooks', async () => {
		receiver.respond(async (_req, res) => {
			await unrefDelay(3000);
			res.end();
		});
		await createWebhook({ event_type: 'conversation.initiating', timeout_ms: 10_000 });
		const pending = admin('POST', '/conversations', { agent_id: 'agent_demo_support', completed: false });
		await waitFor(() => receiver.requests.length === 1, 10_000, 'delivery to start');
		sandbox.reset();
		const answer = await pending;
		expect((answer.body.deliveries as DeliveryRecord[])[0].outcome).toBe('cancelled');
		expect((await api('GET', '/webhooks')).body.webhooks).toEqual([]);
	});

	test('many deliveries at once are no listener leak: no MaxListenersExceededWarning', () => {
		const run = spawnSync(process.execPath, [require.resolve('tsx/cli'), join(__dirname, 'manyDeliveries.script.ts')], { encoding: 'utf8', timeout: 60_000 });
		expect(run.stderr).not.toContain('MaxListenersExceededWarning');
		expect(JSON.parse(run.stdout)).toEqual({ outcomes: Array(20).fill('delivered'), warnings: [] });
	});
});
