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

async function runAgent(parameters: INodeParameters, label = 'full-access') {
	const since = sandbox.context.log.lastSeq;
	const run = await runNode({ node: new VoiceAgent(), parameters, credentials: platformCredentials(sandbox, label) });
	return { ...run, json: run.items.map((i) => i.json as IDataObject), requests: sandbox.context.log.list({ since }) };
}

const create = (overrides: INodeParameters = {}) => ({
	resource: 'webhook',
	operation: 'create',
	eventType: 'conversation.initiating',
	url: 'https://hooks.example.com/hook',
	...overrides,
});

test('create sends the fields, headers and timeout, and returns the record with an id', async () => {
	const run = await runAgent(
		create({
			agentId: 'agent_demo_support',
			additionalFields: { requestHeaders: { pairs: [{ name: 'X-Secret', value: 's3cret' }] }, timeoutMs: 2500 },
		}),
	);
	expect(run.error).toBeUndefined();
	expect(run.requests[0]).toMatchObject({
		method: 'POST',
		path: '/convai/v1/webhooks',
		body: {
			event_type: 'conversation.initiating',
			url: 'https://hooks.example.com/hook',
			agent_id: 'agent_demo_support',
			request_headers: { 'X-Secret': 's3cret' },
			timeout_ms: 2500,
		},
	});
	expect(run.requests[0].headers.authorization).toBe('Bearer ***');
	expect(run.json[0]).toMatchObject({ id: expect.stringMatching(/^wh_/), agent_id: 'agent_demo_support', timeout_ms: 2500 });
});

test('create echoing its request headers: their values are masked, the item says so beside the data, no header is added', async () => {
	const run = await runAgent(create({ additionalFields: { requestHeaders: { pairs: [{ name: 'X-Acc-Secret', value: 'Shared-Secret-4f9a2c' }] } } }));
	expect(run.error).toBeUndefined();
	expect(run.requests[0].body).toMatchObject({ request_headers: { 'X-Acc-Secret': 'Shared-Secret-4f9a2c' } });
	expect(run.json[0].request_headers).toEqual({ 'X-Acc-Secret': '***' });
	expect(run.json[0].redacted).toBe(true);
	expect(JSON.stringify(run.json)).not.toContain('Shared-Secret');
});

test('a second webhook in the same scope: the 409 names the scope and the existing webhook', async () => {
	const first = await runAgent(create());
	const second = await runAgent(create({ url: 'https://hooks.example.com/other' }));
	expect(second.error?.message).toBe(
		`A conversation.initiating webhook already exists for the whole account (ID ${first.json[0].id}, URL https://hooks.example.com/hook)`,
	);
	expect(second.error?.description).toMatch(/one webhook per event type and scope/);
	expect(second.requests.map((r) => `${r.method} ${r.status}`)).toEqual(['POST 409', 'GET 200']);
	// An agent scope is a different scope.
	expect((await runAgent(create({ agentId: 'agent_demo_sales' }))).error).toBeUndefined();
});

test('get (with health), get many with filters, delete', async () => {
	const created = (await runAgent(create({ eventType: 'conversation.completed', agentId: 'agent_demo_sales' }))).json[0];
	await runAgent(create());

	const one = await runAgent({ resource: 'webhook', operation: 'get', webhookId: created.id as string, output: 'raw' });
	expect(one.json[0]).toMatchObject({ id: created.id, health: expect.objectContaining({ consecutive_failures: 0 }) });

	const filtered = await runAgent({ resource: 'webhook', operation: 'getAll', returnAll: true, filters: { agentId: 'agent_demo_sales' } });
	expect(filtered.requests[0].query).toEqual({ agent_id: 'agent_demo_sales' });
	expect(filtered.json.map((w) => w.id)).toEqual([created.id]);

	const limited = await runAgent({ resource: 'webhook', operation: 'getAll', returnAll: false, limit: 1 });
	expect(limited.json).toHaveLength(1);

	const removed = await runAgent({ resource: 'webhook', operation: 'delete', webhookId: created.id as string });
	expect(removed.json).toEqual([{ deleted: true, id: created.id }]);
	expect(removed.requests[0]).toMatchObject({ method: 'DELETE', status: 204 });
	const gone = await runAgent({ resource: 'webhook', operation: 'get', webhookId: created.id as string });
	expect(gone.error?.message).toMatch(/\(404\)/);
});

test('a key without the write scope: 403 names the scope', async () => {
	const run = await runAgent(create(), 'read-only');
	expect(run.error?.message).toMatch(/^The API key lacks the scope convai:write \(403\)/);
});

test('bad input costs nothing', async () => {
	const run = await runAgent(create({ url: 'not a url', additionalFields: { timeoutMs: 0 } }));
	expect(run.error?.message).toMatch(/^Invalid URL:/);
	expect(run.error?.description).toMatch(/Timeout \(Milliseconds\)/);
	expect(run.requests).toHaveLength(0);
});
