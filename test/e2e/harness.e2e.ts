/**
 * The harness itself against a real n8n: activation before start and a production webhook,
 * a failing run read back with its error, activation refused while running.
 */
import { randomUUID } from 'node:crypto';

import { N8nInstance, nodeResult, runError } from './harness';

describe(`the e2e harness (target ${process.env.TELEPHONY_N8N_TARGET ?? '2'})`, () => {
	let n8n: N8nInstance;
	let hookWorkflowId: string;

	beforeAll(async () => {
		n8n = await N8nInstance.create();
	});

	afterAll(async () => {
		await n8n?.dispose();
	});

	test('a failing run comes back with the node error', async () => {
		const id = await n8n.importWorkflow({
			nodes: [
				{ id: 'f1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: 'f2',
					name: 'Fail',
					type: 'n8n-nodes-base.code',
					typeVersion: 2,
					position: [200, 0],
					parameters: { jsCode: "throw new Error('deliberate e2e failure');" },
				},
			],
			connections: { Start: { main: [[{ node: 'Fail', type: 'main', index: 0 }]] } },
		});
		expect(id).toMatch(/^[0-9A-Za-z]{16}$/);
		const run = await n8n.execute(id);
		expect(runError(run)?.message).toContain('deliberate e2e failure');
		const fail = nodeResult(run, 'Fail');
		expect(fail.ran).toBe(true);
		expect(fail.error?.message).toContain('deliberate e2e failure');
		await expect(n8n.executeOk(id)).rejects.toThrow(/deliberate e2e failure/);
	});

	test('a workflow activated before start answers on its production webhook', async () => {
		hookWorkflowId = await n8n.importWorkflow({
			name: 'e2e webhook',
			nodes: [
				{
					id: 'w1',
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path: 'e2e-harness-hook', responseMode: 'lastNode', options: {} },
				},
				{
					id: 'w2',
					name: 'Echo',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [200, 0],
					parameters: {
						mode: 'raw',
						jsonOutput: '={{ JSON.stringify({ echoed: $json.body.value, doubled: $json.body.value * 2 }) }}',
						options: {},
					},
				},
			],
			connections: { Webhook: { main: [[{ node: 'Echo', type: 'main', index: 0 }]] } },
		});
		await n8n.activate(hookWorkflowId);
		await n8n.start();
		const t0 = Date.now();
		const res = await n8n.waitForWebhook('e2e-harness-hook', { method: 'POST', body: { value: 21 } });
		console.log(`production webhook answered ${Date.now() - t0} ms after start() resolved`);
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ echoed: 21, doubled: 42 });
	});

	test('activate() while running is refused unless it may restart', async () => {
		await expect(n8n.activate(hookWorkflowId)).rejects.toThrow(/before start/);
	});

	test('the logged-in REST client sees the active workflow', async () => {
		const rest = await n8n.setupOwner();
		const wf = await rest.get<{ id: string; active: boolean }>(`/rest/workflows/${hookWorkflowId}`);
		expect(wf.id).toBe(hookWorkflowId);
		expect(wf.active).toBe(true);
	});
});
