/**
 * The Voice Agent Trigger's registration against servers that do what the contract leaves open
 * (the webhook record is "not shown"): a list that masks header values, a record with both
 * `webhook_id` and `id`, failure answers that echo the request; and a webhook of its own left at
 * an old URL. Plus Webhook > Create's failure answers that echo its request headers.
 */
import { randomBytes } from 'node:crypto';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { VoiceAgent } from '../../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { DELIVERY_HEADER, VoiceAgentTrigger, secretHash } from '../../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgentTrigger.node';
import { normaliseWebhook, webhookRecord, webhookRecords } from '../../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/webhooks';
import { SECRET_RUN } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/redaction';
import type { Sandbox } from '../../../sandbox';
import { contexts, runNode } from '../../harness/n8n';
import { platformCredentials } from '../../harness/platformKit';
import type { ReceivedRequest, TestServer } from '../../harness/testServer';
import { sandboxForFile } from '../../harness/sandboxForFile';
import { scriptedServerForFile } from '../../harness/testServer';
import { WEBHOOK_DATA, registrationHooks } from './voiceAgentKit';

let sandbox: Sandbox;
let server: TestServer;
sandboxForFile((started) => (sandbox = started));
scriptedServerForFile((started) => (server = started));

const initiating = { event: 'conversation.initiating', agentId: '', timeoutMs: 3000, responseMode: 'immediately' };
const URL_A = 'http://127.0.0.1:5678/webhook/wf-a/voice-agent';
const URL_B = 'https://n8n.example.com/webhook/wf-a/voice-agent';
const API_KEY = `tpk_${randomBytes(24).toString('hex')}`;

/** The trigger's hook methods and webhook() at a URL, with the static data n8n would keep for it. */
function trigger(url: string, staticData?: IDataObject, credentials = platformCredentials(sandbox), parameters: INodeParameters = initiating) {
	const node = new VoiceAgentTrigger();
	const built = contexts({ node, parameters, credentials, staticData });
	return {
		...registrationHooks(node, built, url),
		/** A delivery with this secret header value; answers the status the trigger gave. */
		deliver: async (secret: string) => {
			let status = 200;
			const response = {
				status: (code: number) => ((status = code), response),
				json: () => response,
				writeHead: () => response,
			};
			const body = { type: 'conversation.initiating', timestamp: 1, data: { conversation_id: 'c', agent_id: 'a' } };
			const request = { headers: { 'content-type': 'application/json', [DELIVERY_HEADER]: secret }, body, rawBody: Buffer.from(JSON.stringify(body)) };
			await node.webhook.call(built.webhook(WEBHOOK_DATA, request, response));
			return status;
		},
	};
}

/** The next list of webhooks is answered with the sandbox's records, their header values replaced by `mask`. */
function listMasked(mask: unknown) {
	const webhooks = sandbox.convai.webhooks.map((w) => ({
		webhook_id: w.webhook_id,
		event_type: w.event_type,
		url: w.url,
		agent_id: w.agent_id,
		request_headers: Object.fromEntries(Object.keys(w.request_headers).map((name) => [name, mask])),
	}));
	sandbox.context.faults.add({ api: 'convai', method: 'GET', pathPrefix: '/convai/v1/webhooks', status: 200, body: { webhooks } });
}

/** Every run of SECRET_RUN characters of the secrets that shows in the text. */
function leaks(text: string, secrets: string[]): string[] {
	const found = new Set<string>();
	for (const secret of secrets) {
		for (let at = 0; at + SECRET_RUN <= secret.length; at++) {
			if (text.includes(secret.slice(at, at + SECRET_RUN))) found.add(secret.slice(at, at + SECRET_RUN));
		}
	}
	return [...found];
}

/** A failure answer that names what it received, as a careless service's validation error does. */
const echoing = (status: number) => (req: ReceivedRequest, res: Parameters<Parameters<TestServer['answer']>[0]>[1]) => {
	const sent = JSON.parse(req.body || '{}') as IDataObject;
	const headers = (sent.request_headers ?? {}) as Record<string, string>;
	const named = Object.entries(headers).map(([name, value]) => `request_headers.${name} '${value}' invalid`);
	res.writeHead(status, { 'Content-Type': 'application/json' });
	res.end(JSON.stringify({ message: named.join('; ') || 'invalid', received: sent }));
};

describe('409 for our own URL whose secret the list does not show', () => {
	test.each([['***'], ['[REDACTED]'], [null], [''], ['ab12']])('a list that shows %p: the webhook is replaced with a fresh secret, never adopted', async (mask) => {
		await trigger(URL_A).create();
		const first = sandbox.convai.webhooks[0];
		// Same workflow and URL, registration lost (static data not saved before a crash).
		const lost = trigger(URL_A);
		listMasked(mask);
		expect(await lost.create()).toBe(true);

		expect(sandbox.convai.webhooks).toHaveLength(1);
		const [replacement] = sandbox.convai.webhooks;
		expect(replacement.webhook_id).not.toBe(first.webhook_id);
		expect(replacement).toMatchObject({ url: URL_A, event_type: 'conversation.initiating' });
		const secret = replacement.request_headers[DELIVERY_HEADER];
		expect(secret).toMatch(/^[0-9a-f]{64}$/);
		expect(lost.staticData()).toEqual({ webhookId: replacement.webhook_id, secretHash: secretHash(secret) });

		// The mask is no secret: a forged delivery carrying it is refused, the service's own gets through.
		expect(await lost.deliver(String(mask))).toBe(401);
		expect(await lost.deliver(secret)).toBe(200);
	});

	test('a secret shown in the form the trigger generates is adopted, as before', async () => {
		await trigger(URL_A).create();
		const [existing] = sandbox.convai.webhooks;
		const lost = trigger(URL_A);
		expect(await lost.create()).toBe(true);
		expect(sandbox.convai.webhooks).toEqual([existing]);
		expect(lost.staticData()).toEqual({ webhookId: existing.webhook_id, secretHash: secretHash(existing.request_headers[DELIVERY_HEADER]) });
	});
});

describe('a webhook of its own left at an old URL', () => {
	test('n8n\'s URL changed: the webhook in static data is replaced by one at the new URL', async () => {
		const before = trigger(URL_A);
		await before.create();
		const stored = JSON.parse(JSON.stringify(before.staticData())) as IDataObject;
		const oldId = stored.webhookId;

		const moved = trigger(URL_B, stored);
		expect(await moved.checkExists()).toBe(false);
		expect(await moved.create()).toBe(true);
		expect(sandbox.convai.webhooks).toHaveLength(1);
		const [current] = sandbox.convai.webhooks;
		expect(current).toMatchObject({ url: URL_B, event_type: 'conversation.initiating', agent_id: null });
		expect(current.webhook_id).not.toBe(oldId);
		expect(moved.staticData()).toEqual({ webhookId: current.webhook_id, secretHash: secretHash(current.request_headers[DELIVERY_HEADER]) });
		expect(await moved.checkExists()).toBe(true);
	});

	test('a webhook that is not the one in static data is never deleted', async () => {
		await trigger(URL_A).create();
		const [other] = sandbox.convai.webhooks;
		const mine = trigger(URL_B, { webhookId: 'wh_000000000000', secretHash: secretHash('x') });
		await expect(mine.create()).rejects.toThrow(`already exists (ID ${other.webhook_id}) and points at ${URL_A}`);
		expect(sandbox.convai.webhooks).toEqual([other]);
	});
});

describe('the webhook record\'s identifier', () => {
	test('webhook_id wins over a record\'s own id, in every reader', () => {
		const record = { webhook_id: 'wh_abc', id: 7, url: URL_A };
		expect(normaliseWebhook(record)).toEqual({ id: 'wh_abc', webhook_id: 'wh_abc', url: URL_A });
		expect(webhookRecord({ webhook: record }).id).toBe('wh_abc');
		expect(webhookRecords([record]).map((w) => w.id)).toEqual(['wh_abc']);
		expect(normaliseWebhook({ webhookId: 'wh_def', id: 8 }).id).toBe('wh_def');
		expect(normaliseWebhook({ id: 9 }).id).toBe('9');
	});

	test('the trigger registers and deletes the webhook by webhook_id when the record also has an id', async () => {
		const t = trigger(URL_A);
		await t.create();
		const [created] = sandbox.convai.webhooks;
		// The same webhook as a service answers it with an internal number besides.
		sandbox.context.faults.add({ api: 'convai', method: 'POST', pathPrefix: '/convai/v1/webhooks', status: 201, body: { ...created, id: 7 } });
		const again = trigger(URL_A);
		expect(await again.create()).toBe(true);
		expect(again.staticData().webhookId).toBe(created.webhook_id);

		const since = sandbox.context.log.lastSeq;
		expect(await again.delete()).toBe(true);
		expect(sandbox.context.log.list({ since }).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			`DELETE /convai/v1/webhooks/${created.webhook_id} 204`,
		]);
		expect(sandbox.convai.webhooks).toEqual([]);
	});

	test('Voice Agent Get Many outputs that id', async () => {
		sandbox.context.faults.add({ api: 'convai', method: 'GET', pathPrefix: '/convai/v1/webhooks', status: 200, body: [{ webhook_id: 'wh_abc', id: 7 }] });
		const run = await runNode({ node: new VoiceAgent(), parameters: { resource: 'webhook', operation: 'getAll', returnAll: true }, credentials: platformCredentials(sandbox) });
		expect(run.items.map((i) => i.json.id)).toEqual(['wh_abc']);
	});
});

describe('secrets a request sends are redacted from its failure', () => {
	const credentials = () => ({ platformApiKeyApi: { baseUrl: server.url, apiKey: API_KEY, maxRateLimitWait: 0 } });

	test.each([400, 500])('trigger activation answered %i echoing the secret header: the error does not show it', async (status) => {
		server.answer(echoing(status));
		const since = server.requests.length;
		const error = (await trigger(URL_A, undefined, credentials()).create().then(
			() => undefined,
			(e: unknown) => e,
		)) as { message: string; description?: string; context?: unknown };
		const secret = String((JSON.parse(server.requests[since].body) as { request_headers: Record<string, string> }).request_headers[DELIVERY_HEADER]);
		expect(secret).toMatch(/^[0-9a-f]{64}$/);
		expect(error.message).toContain(`request_headers.${DELIVERY_HEADER} '***' invalid`);
		expect(leaks(JSON.stringify({ message: error.message, description: error.description, context: error.context }), [secret, API_KEY])).toEqual([]);
	});

	test.each([false, true])('Webhook > Create answered 400 echoing its request headers (Continue On Fail %p): neither the error nor the items show them', async (continueOnFail) => {
		server.answer(echoing(400));
		const values = [`tok-${randomBytes(12).toString('hex')}`, 'Bearer s3cr3t-shared'];
		const run = await runNode({
			node: new VoiceAgent(),
			parameters: {
				resource: 'webhook',
				operation: 'create',
				eventType: 'conversation.completed',
				// Not URL_A: a webhook pointing at a loopback address is refused before sending.
				url: 'https://hooks.example.com/hook',
				additionalFields: { requestHeaders: { pairs: [{ name: 'X-Token', value: values[0] }, { name: 'Authorization-Extra', value: values[1] }] } },
			},
			credentials: credentials(),
			continueOnFail,
		});
		const said = JSON.stringify({ message: run.error?.message, description: run.error?.description, context: run.error?.context }) + JSON.stringify(run.items);
		expect(said).toMatch(/request_headers\.X-Token '\*\*\*' invalid/);
		expect(leaks(said, [...values, API_KEY])).toEqual([]);
	});
});
