/**
 * The output choice of Webhook Get and Get Many: Simplified by default (the id, event type, URL,
 * scope, agent, timeout, status and, for Get, the health flat), Raw (the records as answered, with
 * the id and the header values masked: what the node gave before the choice existed), Selected Fields.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { VoiceAgent } from '../../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { runNode } from '../../harness/n8n';
import { platformCredentials } from '../../harness/platformKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const ISO = /^\d{4}-\d{2}-\d{2}T/;

async function api(method: string, path: string, body?: unknown): Promise<IDataObject> {
	const response = await fetch(`${sandbox.url}/convai/v1${path}`, {
		method,
		headers: { Authorization: `Bearer ${sandbox.convai.keys.demo('full-access')}`, 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return (await response.json()) as IDataObject;
}

/** A record as the node gave it before the output choice: the id first, the header values masked. */
function asBefore(record: IDataObject): IDataObject {
	const headers = record.request_headers as Record<string, string>;
	return { id: record.webhook_id, ...record, request_headers: Object.fromEntries(Object.keys(headers).map((name) => [name, '***'])) };
}

async function run(parameters: INodeParameters) {
	const result = await runNode({ node: new VoiceAgent(), parameters, credentials: platformCredentials(sandbox) });
	expect(result.error).toBeUndefined();
	return result.items.map((item) => item.json as IDataObject);
}

let account: IDataObject;
let agent: IDataObject;
beforeEach(async () => {
	account = await api('POST', '/webhooks', { event_type: 'conversation.initiating', url: 'http://127.0.0.1:9/hook', request_headers: { 'X-Secret': 's3cret' } });
	agent = await api('POST', '/webhooks', { event_type: 'conversation.completed', url: 'http://127.0.0.1:9/done', agent_id: 'agent_demo_sales', timeout_ms: 2500 });
});

test('Get Many, Simplified by default: id, event type, URL, scope, agent, timeout, status; no header values', async () => {
	expect(await run({ resource: 'webhook', operation: 'getAll', returnAll: true })).toEqual([
		{ id: account.webhook_id, event_type: 'conversation.initiating', url: 'http://127.0.0.1:9/hook', scope: 'account', timeout_ms: 5000, status: 'active' },
		{ id: agent.webhook_id, event_type: 'conversation.completed', url: 'http://127.0.0.1:9/done', scope: 'agent', agent_id: 'agent_demo_sales', timeout_ms: 2500, status: 'active' },
	]);
});

test('Get, Simplified: the health flat beside the status (values it has no value for left out)', async () => {
	const [webhook] = await run({ resource: 'webhook', operation: 'get', webhookId: String(account.webhook_id) });
	expect(webhook).toEqual({
		id: account.webhook_id,
		event_type: 'conversation.initiating',
		url: 'http://127.0.0.1:9/hook',
		scope: 'account',
		timeout_ms: 5000,
		status: 'active',
		health_consecutive_failures: 0,
	});
	expect(Object.keys(webhook)[0]).toBe('id');
	// A delivery that failed: the health says when and why.
	await fetch(`${sandbox.url}/_sandbox/convai/settings`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ maxAttempts: 1 }) });
	await fetch(`${sandbox.url}/_sandbox/convai/conversations`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ agent_id: 'agent_demo_support', completed: false }) });
	const [failed] = await run({ resource: 'webhook', operation: 'get', webhookId: String(account.webhook_id) });
	expect(failed).toMatchObject({ status: 'active', health_consecutive_failures: 1, health_last_delivery_at: expect.stringMatching(ISO), health_last_error: expect.any(String) });
});

test('Raw: the records as answered, with the id and the header values masked', async () => {
	const answered = (await api('GET', '/webhooks')).webhooks as IDataObject[];
	expect(await run({ resource: 'webhook', operation: 'getAll', returnAll: true, output: 'raw' })).toEqual(answered.map(asBefore));
	const [one] = await run({ resource: 'webhook', operation: 'get', webhookId: String(account.webhook_id), output: 'raw' });
	expect(one).toEqual(asBefore(await api('GET', `/webhooks/${String(account.webhook_id)}`)));
	expect(one).toMatchObject({ request_headers: { 'X-Secret': '***' }, created_at: expect.stringMatching(ISO), health: expect.objectContaining({ consecutive_failures: 0 }) });
});

test('Selected Fields: the id and the chosen fields, as the API names them', async () => {
	expect(await run({ resource: 'webhook', operation: 'getAll', returnAll: true, output: 'fields', fields: ['url', 'request_headers'] })).toEqual([
		{ id: account.webhook_id, url: 'http://127.0.0.1:9/hook', request_headers: { 'X-Secret': '***' } },
		{ id: agent.webhook_id, url: 'http://127.0.0.1:9/done', request_headers: {} },
	]);
	const [one] = await run({ resource: 'webhook', operation: 'get', webhookId: String(agent.webhook_id), output: 'fields', fields: ['health'] });
	expect(one).toEqual({ id: agent.webhook_id, health: expect.objectContaining({ consecutive_failures: 0 }) });
});

test('a sparse record (only id, event type and status) says nothing of a scope it does not show', async () => {
	await fetch(`${sandbox.url}/_sandbox/convai/settings`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ webhookRecords: 'sparse' }) });
	expect(await run({ resource: 'webhook', operation: 'getAll', returnAll: true })).toEqual([
		{ id: account.webhook_id, event_type: 'conversation.initiating', status: 'active' },
		{ id: agent.webhook_id, event_type: 'conversation.completed', status: 'active' },
	]);
});
