import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DELIVERY_HEADER, VoiceAgentTrigger, matchesSecretHash, secretHash } from '../../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgentTrigger.node';
import { resetTriggers } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/triggers/lifecycle';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { contexts } from '../../harness/n8n';
import { platformCredentials } from '../../harness/platformKit';
import { waitFor } from '../../harness/wait';
import { WEBHOOK_DATA, registrationHooks } from './voiceAgentKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => {
	sandbox.reset();
	resetTriggers();
});

/**
 * One trigger node as n8n would host it: the hook methods for registration, and a small HTTP
 * server standing in for n8n's webhook endpoint that hands each delivery to the node's webhook().
 */
async function host(parameters: INodeParameters, staticData: IDataObject = {}, lateAnswers = 0, storeFails = () => false) {
	const node = new VoiceAgentTrigger();
	const executions: IDataObject[] = [];
	let respondLater: ((body: IDataObject) => void) | undefined;
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', async () => {
			const rawBody = Buffer.concat(chunks);
			let status = 200;
			const response = {
				status: (code: number) => ((status = code), response),
				// Every answer passes through writeHead, as with Express.
				writeHead: (code: number, headers: Record<string, string>) => res.writeHead(code, headers),
				json: (body: unknown) => {
					response.writeHead(status, { 'content-type': 'application/json' });
					res.end(JSON.stringify(body));
				},
			};
			const request = { headers: req.headers, body: rawBody.length ? JSON.parse(rawBody.toString()) : {}, rawBody };
			const result = await node.webhook.call(built.webhook(WEBHOOK_DATA, request, response));
			// n8n 2.x stores the execution before it answers: when it cannot, it answers 500 and nothing runs.
			if (result.workflowData && !result.noWebhookResponse && storeFails()) return response.status(500).json({ message: 'Error in workflow' });
			if (result.workflowData) executions.push(...result.workflowData[0].map((i) => i.json));
			// n8n busy: the answer leaves only once the service's attempt has timed out (the run started).
			if (lateAnswers > 0 && lateAnswers--) await new Promise((resolve) => res.once('close', resolve));
			if (result.noWebhookResponse) return;
			if (result.webhookResponse !== undefined) return response.json(result.webhookResponse);
			// responseNode mode: the workflow answers later through Respond to Webhook.
			respondLater = (body) => response.json(body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/voice-agent`;
	const built = contexts({ node, parameters, credentials: platformCredentials(sandbox), staticData });
	return {
		url,
		executions,
		...registrationHooks(node, built, url),
		respond: (body: IDataObject) => respondLater?.(body),
		close: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

/** The hook methods of a fresh node instance at a given URL, as after a restart of n8n. */
function restartedAt(url: string, parameters: INodeParameters, staticData?: IDataObject) {
	const built = contexts({ node: new VoiceAgentTrigger(), parameters, credentials: platformCredentials(sandbox), staticData });
	return registrationHooks(new VoiceAgentTrigger(), built, url);
}

/** POSTs a body to the trigger's URL with the registered webhook's secret header, as the service does. */
async function deliver(url: string, body: unknown): Promise<Response> {
	const secret = String(sandbox.convai.webhooks[0].request_headers[DELIVERY_HEADER]);
	return await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', [DELIVERY_HEADER]: secret },
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
}

const initiating = { event: 'conversation.initiating', agentId: '', timeoutMs: 3000, responseMode: 'immediately' };
const hosts: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
	for (const h of hosts.splice(0)) await h.close();
});
async function hosted(parameters: INodeParameters, staticData?: IDataObject, lateAnswers?: number, storeFails?: () => boolean) {
	const h = await host(parameters, staticData, lateAnswers, storeFails);
	hosts.push(h);
	return h;
}

describe('registration lifecycle', () => {
	test('create registers one webhook with a random secret header and the timeout; checkExists confirms it', async () => {
		const trigger = await hosted(initiating);
		expect(await trigger.checkExists()).toBe(false);
		expect(await trigger.create()).toBe(true);
		const [webhook] = sandbox.convai.webhooks;
		expect(sandbox.convai.webhooks).toHaveLength(1);
		expect(webhook).toMatchObject({ url: trigger.url, event_type: 'conversation.initiating', agent_id: null, timeout_ms: 3000 });
		const secret = webhook.request_headers[DELIVERY_HEADER];
		expect(secret).toMatch(/^[0-9a-f]{64}$/);
		// Only a hash is kept: the secret itself is nowhere in the workflow's static data.
		expect(trigger.staticData()).toEqual({ webhookId: webhook.webhook_id, secretHash: secretHash(secret) });
		expect(JSON.stringify(trigger.staticData())).not.toContain(secret);
		expect(await trigger.checkExists()).toBe(true);
	});

	test('a restart with the stored registration creates nothing new', async () => {
		const first = await hosted(initiating);
		await first.create();
		const stored = JSON.parse(JSON.stringify(first.staticData())) as IDataObject;
		const restarted = restartedAt(first.url, initiating, stored);
		sandbox.context.log.clear();
		expect(await restarted.checkExists()).toBe(true);
		expect(sandbox.convai.webhooks).toHaveLength(1);
		expect(sandbox.context.log.list().map((r) => r.method)).toEqual(['GET']);
	});

	test('a restart where the service answers sparse records (no url, headers or scope: the contract does not show them) keeps the registration', async () => {
		const first = await hosted({ ...initiating, agentId: 'agent_sparse' });
		await first.create();
		const stored = JSON.parse(JSON.stringify(first.staticData())) as IDataObject;
		sandbox.convai.settings.webhookRecords = 'sparse';
		try {
			const restarted = restartedAt(first.url, { ...initiating, agentId: 'agent_sparse' }, stored);
			expect(await restarted.checkExists()).toBe(true);
			expect(sandbox.convai.webhooks).toHaveLength(1);
		} finally {
			sandbox.convai.settings.webhookRecords = 'full';
		}
		// A scope the service does show must match: the account-wide trigger is not this agent's webhook.
		const accountWide = restartedAt(first.url, initiating, stored);
		expect(await accountWide.checkExists()).toBe(false);
	});

	test('a webhook deleted behind our back is created again', async () => {
		const trigger = await hosted(initiating);
		await trigger.create();
		sandbox.convai.webhooks = [];
		expect(await trigger.checkExists()).toBe(false);
		expect(await trigger.create()).toBe(true);
		expect(sandbox.convai.webhooks).toHaveLength(1);
	});

	test('409 for our own URL adopts the existing webhook and its secret', async () => {
		const first = await hosted(initiating);
		await first.create();
		const hash = first.staticData().secretHash;
		// Same workflow and URL, registration lost (static data not saved before a crash).
		const lost = restartedAt(first.url, initiating);
		expect(await lost.checkExists()).toBe(false);
		expect(await lost.create()).toBe(true);
		expect(lost.staticData()).toEqual({ webhookId: sandbox.convai.webhooks[0].webhook_id, secretHash: hash });
		expect(sandbox.convai.webhooks).toHaveLength(1);
	});

	test('409 for another URL refuses activation with a clear message', async () => {
		const other = await hosted(initiating);
		await other.create();
		const mine = await hosted(initiating);
		await expect(mine.create()).rejects.toThrow(
			new RegExp(`A conversation.initiating webhook for the whole account already exists \\(ID wh_[0-9a-f]+\\) and points at ${other.url.replace(/[.]/g, '\\.')}`),
		);
		expect(sandbox.convai.webhooks).toHaveLength(1);
	});

	test('deactivation deletes the webhook; a webhook already gone is fine', async () => {
		const trigger = await hosted({ ...initiating, event: 'conversation.completed', agentId: 'agent_demo_sales' });
		await trigger.create();
		expect(sandbox.convai.webhooks[0]).toMatchObject({ agent_id: 'agent_demo_sales', event_type: 'conversation.completed' });
		expect(await trigger.delete()).toBe(true);
		expect(sandbox.convai.webhooks).toEqual([]);
		expect(trigger.staticData()).toEqual({});
		expect(await trigger.delete()).toBe(true);
	});
});

describe('deliveries', () => {
	test('without the secret, or with a wrong one: 401 and no execution', async () => {
		const trigger = await hosted(initiating);
		await trigger.create();
		const body = JSON.stringify({ type: 'conversation.initiating', timestamp: 1, data: { conversation_id: 'c', agent_id: 'a' } });
		const none = await fetch(trigger.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
		const wrong = await fetch(trigger.url, { method: 'POST', headers: { 'content-type': 'application/json', [DELIVERY_HEADER]: 'x'.repeat(64) }, body });
		expect([none.status, wrong.status]).toEqual([401, 401]);
		expect(trigger.executions).toEqual([]);
		const right = await deliver(trigger.url, body);
		expect(right.status).toBe(200);
		expect(trigger.executions).toHaveLength(1);
	});

	test('what is not the contract\'s wrapper (null, a list, no string type) is refused with 400 and runs nothing; odd values never crash it', async () => {
		const trigger = await hosted({ event: 'conversation.completed', agentId: '' });
		await trigger.create();
		const post = async (body: string) => await deliver(trigger.url, body);
		for (const body of ['null', '[1,2]', '{}', '{"hello":1}', '{"type":7,"data":{}}']) {
			const answer = await post(body);
			expect([body, answer.status]).toEqual([body, 400]);
			expect(await answer.json()).toEqual({ error: expect.stringMatching(/string "type"/) });
		}
		expect(trigger.executions).toEqual([]);

		// A timestamp no date can hold, and data that is not an object: one item, times null, data kept as it came.
		const odd = await post(JSON.stringify({ type: 'conversation.completed', timestamp: 1e13, data: ['a', 'b'] }));
		const huge = await post(JSON.stringify({ type: 'conversation.completed', timestamp: 1, data: { metadata: { start_time_unix_secs: 1e13 } } }));
		expect([odd.status, huge.status]).toEqual([200, 200]);
		expect(trigger.executions[0]).toMatchObject({ event_type: 'conversation.completed', event_time: null, timestamp: 1e13, data: ['a', 'b'] });
		expect(trigger.executions[0]).not.toHaveProperty('0');
		expect(trigger.executions[1]).toMatchObject({ event_time: '1970-01-01T00:00:01.000Z', start_time: null, start_time_unix_secs: 1e13 });
	});

	test('a Conversation Config Override that is JSON but not an object refuses activation', async () => {
		for (const configOverride of ['[1,2]', '"abc"', '7', 'null', '{oops']) {
			const trigger = await hosted({ ...initiating, responseMode: 'withValues', dynamicVariables: {}, configOverride });
			await expect(trigger.create()).rejects.toThrow(/Conversation Config Override is not a JSON object/);
		}
		expect(sandbox.convai.webhooks).toEqual([]);
	});

	test('the secret comparison against the stored hash is exact and length-independent', () => {
		const hash = secretHash('abc');
		expect(matchesSecretHash('abc', hash)).toBe(true);
		expect(matchesSecretHash('abd', hash)).toBe(false);
		expect(matchesSecretHash('abcd', hash)).toBe(false);
		expect(matchesSecretHash(undefined, hash)).toBe(false);
		expect(matchesSecretHash('abc', 'not-a-hash')).toBe(false);
	});

	test('initiating, answered at once and empty: the service gets 200 {} well within the timeout', async () => {
		const trigger = await hosted(initiating);
		await trigger.create();
		const result = (await sandbox.convai.simulateConversation({ agent_id: 'agent_demo_support', completed: false })) as unknown as {
			deliveries: Array<{ outcome: string; response: { status: number; body: unknown; elapsedMs: number } }>;
		};
		expect(result.deliveries[0]).toMatchObject({ outcome: 'delivered', response: { status: 200, body: {} } });
		expect(result.deliveries[0].response.elapsedMs).toBeLessThan(1000);
		expect(trigger.executions[0]).toMatchObject({
			event_type: 'conversation.initiating',
			agent_id: 'agent_demo_support',
			conversation_id: expect.any(String),
			event_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
		});
	});

	test('initiating with values set in the node: dynamic variables and overrides in the answer', async () => {
		const trigger = await hosted({
			...initiating,
			responseMode: 'withValues',
			dynamicVariables: { pairs: [{ name: 'customer_name', value: 'Ada' }, { name: 'tier', value: 'gold' }] },
			configOverride: '{"text_only": false}',
		});
		await trigger.create();
		const result = (await sandbox.convai.simulateConversation({ agent_id: 'agent_demo_support', completed: false })) as unknown as {
			deliveries: Array<{ response: { body: unknown } }>;
		};
		expect(result.deliveries[0].response.body).toEqual({
			dynamic_variables: { customer_name: 'Ada', tier: 'gold' },
			conversation_config_override: { text_only: false },
		});
	});

	test('initiating answered by the workflow (Respond to Webhook) within the timeout', async () => {
		// The service's wait is real time (it bounds I/O): generous, so that a busy machine still answers within it.
		const trigger = await hosted({ ...initiating, timeoutMs: 30_000, responseMode: 'responseNode' });
		await trigger.create();
		const pending = sandbox.convai.simulateConversation({ agent_id: 'agent_demo_support', completed: false });
		await waitFor(() => trigger.executions.length === 1);
		trigger.respond({ dynamic_variables: { customer_name: 'Grace' } });
		const result = (await pending) as unknown as { deliveries: Array<{ response: { body: unknown; timedOut: boolean } }> };
		expect(result.deliveries[0].response).toMatchObject({ body: { dynamic_variables: { customer_name: 'Grace' } }, timedOut: false });
		expect(trigger.executions).toHaveLength(1);
	});

	test('completed: answered 200 at once, one flat item with transcript, summary and analysis', async () => {
		const trigger = await hosted({ event: 'conversation.completed', agentId: '' });
		await trigger.create();
		await sandbox.convai.simulateConversation({ agent_id: 'agent_demo_support', completedDelayMs: 0, waitForCompleted: true } as never);
		const item = trigger.executions[0];
		expect(item).toMatchObject({
			event_type: 'conversation.completed',
			agent_id: 'agent_demo_support',
			status: 'done',
			call_successful: 'success',
			transcript_summary: expect.stringMatching(/order 55231/),
			data_collection_results: { order_number: expect.objectContaining({ value: '55231' }) },
			start_time: expect.stringMatching(/^\d{4}-/),
			call_duration_secs: expect.any(Number),
		});
		expect(item.transcript).toHaveLength(5);
		expect(String(item.transcript_text).split('\n')[0]).toMatch(/^agent: Hello/);
	});
});

describe('repeated deliveries (the service retries an answer that came late or not at all)', () => {
	type Simulated = { deliveries: Array<{ eventType: string; outcome: string; attempts: unknown[]; response: { status: number; body: unknown } }> };
	const completedOnly = { event: 'conversation.completed', agentId: '' };
	/**
	 * A real-time test: the service's attempt timeout bounds real I/O. The first answer is held
	 * until that attempt has given up, whatever the load; the second must come within a second.
	 */
	async function lateFirstAnswer(parameters: INodeParameters) {
		sandbox.convai.settings.completedTimeoutMs = 1000;
		const trigger = await hosted(parameters, undefined, 1);
		await trigger.create();
		const result = (await sandbox.convai.simulateConversation({ agent_id: 'agent_demo_support', conversation_id: 'conv_retried', waitForCompleted: true })) as unknown as Simulated;
		return { trigger, delivery: result.deliveries.find((d) => d.eventType === 'conversation.completed') };
	}

	test('completed, retried after a late 200: one run; the retry is answered 200 and starts nothing', async () => {
		const { trigger, delivery } = await lateFirstAnswer(completedOnly);
		expect(delivery).toMatchObject({ outcome: 'delivered', response: { status: 200, body: {} } });
		expect(delivery?.attempts).toHaveLength(2);
		expect(trigger.executions).toHaveLength(1);
		expect(trigger.executions[0]).toMatchObject({ event_type: 'conversation.completed', conversation_id: 'conv_retried' });
	});

	test('completed, answered 500 by n8n (it could not store the run): the service\'s retry runs, once', async () => {
		const failures = [true];
		const trigger = await hosted(completedOnly, undefined, undefined, () => failures.shift() ?? false);
		await trigger.create();
		const result = (await sandbox.convai.simulateConversation({ agent_id: 'agent_demo_support', conversation_id: 'conv_unstored', waitForCompleted: true })) as unknown as Simulated;
		const delivery = result.deliveries.find((d) => d.eventType === 'conversation.completed');
		expect(delivery).toMatchObject({ outcome: 'delivered', response: { status: 200 } });
		expect(delivery?.attempts).toHaveLength(2);
		expect(trigger.executions.map((e) => e.conversation_id)).toEqual(['conv_unstored']);
	});

	test('with Drop Duplicates off, the retry runs the workflow again', async () => {
		const { trigger, delivery } = await lateFirstAnswer({ ...completedOnly, dropDuplicates: false });
		expect(delivery?.attempts).toHaveLength(2);
		expect(trigger.executions.map((e) => e.conversation_id)).toEqual(['conv_retried', 'conv_retried']);
	});

	test('other conversations, and deliveries without a conversation id, are never taken for repeats', async () => {
		const trigger = await hosted(completedOnly);
		await trigger.create();
		for (const id of ['conv_a', 'conv_b', 'conv_a']) {
			await sandbox.convai.simulateConversation({ agent_id: 'agent_demo_support', conversation_id: id, waitForCompleted: true });
		}
		expect(trigger.executions.map((e) => e.conversation_id)).toEqual(['conv_a', 'conv_b']);
		for (const data of [{}, { conversation_id: '' }, { conversation_id: 42 }, { conversation_id: 42 }]) {
			expect((await deliver(trigger.url, { type: 'conversation.completed', timestamp: 1, data })).status).toBe(200);
		}
		expect(trigger.executions).toHaveLength(6);
	});

	test('initiating is not filtered: the service retries it only after an answer that was not 2xx, so each delivery runs', async () => {
		const trigger = await hosted(initiating);
		await trigger.create();
		for (let i = 0; i < 2; i++) {
			const delivery = { type: 'conversation.initiating', timestamp: 1, data: { conversation_id: 'conv_x', agent_id: 'agent_demo_support' } };
			expect((await deliver(trigger.url, delivery)).status).toBe(200);
		}
		expect(trigger.executions).toHaveLength(2);
	});
});
