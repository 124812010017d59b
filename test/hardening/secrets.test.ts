/**
 * Secrets never leave: canary credentials for each API, and a server that echoes them back in
 * every form (plain, base64 of user:password, URL-encoded, a cut Authorization header) on every
 * error path: each HTTP failure status, a non-JSON 2xx, a 2xx that says it failed, network errors,
 * a timeout, and validation of a field into which the secret was pasted. Then every encoding a
 * server can echo (`secretEchoes.ts`: base64 and base64url at any offset, base64 of base64, URL and
 * form encoding, HTML entities, hex, \u escapes), whole and cut to 8 characters, in a 401 HTML page,
 * on the Voice Agent Trigger's activation too; and in 2xx JSON answers, whole and cut to its first,
 * last or middle 12 characters. Checked: the error's message, description and context, the items of
 * Continue On Fail, and everything n8n logged, for any run of 8 characters of the secret in any
 * encoding; the output items for any run of 12, and that an item masked says so.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { ICredentialDataDecryptedObject, INodeParameters, INodeType } from 'n8n-workflow';

import { HostedPbx } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { VoiceAgent } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { VoiceAgentTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgentTrigger.node';
import { ConversationIntelligenceTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node';
import { HostedPbxTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbxTrigger.node';
import { WholesaleVoice } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { contexts, runNode } from '../harness/n8n';
import type { ReceivedRequest, TestServer } from '../harness/testServer';
import { printFigure } from '../harness/figures';
import { startTestServer } from '../harness/testServer';
import { registrationHooks } from '../nodes/VoiceAgent/voiceAgentKit';
import { ENCODINGS, NESTED_BASE64_ENCODINGS, htmlPage, leaks, outputLeaks } from './secretEchoes';

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(async () => await server.close());

const canary = (label: string) => `Cn4ry-${label}-${randomBytes(9).toString('base64url')}`;
const PBX_PASSWORD = canary('pbx');
const WHOLESALE_PASSWORD = canary('ws');
const API_KEY = `tpk_${randomBytes(24).toString('hex')}`;

interface Api {
	name: string;
	node: () => INodeType;
	credentials: (baseUrl: string) => Record<string, ICredentialDataDecryptedObject>;
	parameters: INodeParameters;
	/** What asks for the records as answered (Output: Raw), where the operation offers the choice. */
	raw?: INodeParameters;
	/** A field the user might paste the secret into by mistake. */
	pasteInto: INodeParameters;
	secrets: string[];
}

const APIS: Api[] = [
	{
		name: 'Hosted PBX',
		node: () => new HostedPbx(),
		credentials: (baseUrl) => ({ hostedPbxApi: { baseUrl: `${baseUrl}/api/v1`, username: 'canary.user', password: PBX_PASSWORD, timeout: 1, maxRateLimitWait: 0 } }),
		parameters: { resource: 'customer', operation: 'get', customerId: { __rl: true, mode: 'id', value: 'me' } },
		raw: { output: 'raw' },
		pasteInto: { resource: 'phoneBook', operation: 'create', customerId: { __rl: true, mode: 'id', value: 'me' }, name: 'A', phoneNumber: PBX_PASSWORD },
		secrets: [PBX_PASSWORD, Buffer.from(`canary.user:${PBX_PASSWORD}`).toString('base64')],
	},
	{
		name: 'Wholesale Voice',
		node: () => new WholesaleVoice(),
		credentials: (baseUrl) => ({
			wholesaleVoiceApi: { baseUrl, apiUsername: 'api654321', apiPassword: WHOLESALE_PASSWORD, accountId: '654321', timeout: 1, maxRateLimitWait: 0 },
		}),
		parameters: { resource: 'account', operation: 'getType' },
		pasteInto: { resource: 'voice', operation: 'hangUp', callId: `${WHOLESALE_PASSWORD}/x` },
		secrets: [WHOLESALE_PASSWORD, Buffer.from(`api654321:${WHOLESALE_PASSWORD}`).toString('base64')],
	},
	{
		name: 'Platform',
		node: () => new VoiceAgent(),
		credentials: (baseUrl) => ({ platformApiKeyApi: { baseUrl, apiKey: API_KEY, timeout: 1, maxRateLimitWait: 0 } }),
		parameters: { resource: 'webhook', operation: 'getAll', returnAll: true },
		raw: { output: 'raw' },
		pasteInto: { resource: 'webhook', operation: 'create', eventType: 'conversation.completed', url: `https://n8n.example.com/${API_KEY}`, agentId: `agent ${API_KEY}` },
		secrets: [API_KEY],
	},
];

/** The password or key a request carried, from its Authorization header. */
function secretOf(req: ReceivedRequest): string {
	const credential = String(req.headers.authorization ?? '').replace(/^(Basic|Bearer) /, '');
	return credential.startsWith('tpk_') ? credential : Buffer.from(credential, 'base64').toString('utf8').split(':').slice(1).join(':');
}

/** What a careless or hostile server sends back: the credentials it received, whole and cut. */
function echo(req: ReceivedRequest): string {
	const authorization = String(req.headers.authorization ?? '');
	const credential = authorization.replace(/^(Basic|Bearer) /, '');
	const plain = secretOf(req);
	return [
		`Authorization: ${authorization}`,
		`password=${plain}`,
		`encoded=${encodeURIComponent(plain)}`,
		`cut header=${authorization.slice(0, 27)}`,
		`cut password=${plain.slice(3, 16)}`,
		`tail=${credential.slice(-12)}`,
	].join('; ');
}

type Scenario = [string, (req: ReceivedRequest, res: Parameters<Parameters<TestServer['answer']>[0]>[1]) => void];

const withBody = (status: number, type: string, body: (text: string) => string, headers: Record<string, string> = {}): Scenario[1] => (req, res) => {
	res.writeHead(status, { 'Content-Type': type, ...headers });
	res.end(body(echo(req)));
};

const withPage = (status: number, echoed: (req: ReceivedRequest) => string): Scenario[1] => (req, res) => {
	res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
	res.end(htmlPage(echoed(req)));
};

const SCENARIOS: Scenario[] = [
	['200 HTML instead of JSON', withBody(200, 'text/html', (t) => `<html><body><pre>${'x'.repeat(150)}${t}</pre></body></html>`)],
	...[400, 401, 403, 404, 405, 409, 500, 502, 503].map((status): Scenario => [`${status} JSON`, withBody(status, 'application/json', (t) => JSON.stringify({ message: t, error: { message: t }, errors: [{ field: t, message: t }] }))]),
	['400 text', withBody(400, 'text/plain', (t) => t)],
	['429 beyond the wait', withBody(429, 'application/json', (t) => JSON.stringify({ message: t }), { 'Retry-After': '3600' })],
	['e911 error shape', withBody(400, 'application/json', (t) => JSON.stringify({ success: false, http_code: 400, errors: [{ code: 'e911.invalid_field', field: t, message: t }] }))],
	['connection reset after the headers', (req, res) => {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.write(echo(req));
		res.socket?.destroy();
	}],
	['no answer at all (timeout)', () => {}],
	// A 401 HTML page with the secret in each encoding a server can echo, whole and cut to 8 characters.
	...ENCODINGS.flatMap(([name, encode]): Scenario[] => [
		[`401 HTML, the secret ${name}`, withPage(401, (req) => encode(secretOf(req)))],
		[`401 HTML, 8 characters of the secret ${name}`, withPage(401, (req) => encode(secretOf(req).slice(5, 13)))],
	]),
];

/** What the node says: message, description and context of the error (its \`node\` holds the user's own parameters). */
function said(error: unknown): string {
	const { message, description, context } = (error ?? {}) as { message?: string; description?: string; context?: unknown };
	return JSON.stringify({ message, description, context });
}

/** Runs a node with everything n8n and the node print captured. */
async function captured(run: () => Promise<unknown>): Promise<{ result: unknown; logs: string }> {
	const lines: string[] = [];
	const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
		jest.spyOn(console, level).mockImplementation((...args: unknown[]) => lines.push(args.map(String).join(' '))),
	);
	const writes = [process.stdout, process.stderr].map((stream) =>
		jest.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
			lines.push(String(chunk));
			return true;
		}),
	);
	try {
		return { result: await run(), logs: lines.join('\n') };
	} finally {
		for (const spy of [...spies, ...writes]) spy.mockRestore();
	}
}

const found = { paths: 0, leaks: 0 };

describe.each(APIS.map((api) => [api.name, api] as const))('%s credential', (_name, api) => {
	test.each(SCENARIOS)('%s: no secret in the error, the items or the log', async (_what, handler) => {
		server.answer(handler);
		for (const continueOnFail of [false, true]) {
			const { result, logs } = await captured(
				async () => await runNode({ node: api.node(), parameters: api.parameters, credentials: api.credentials(server.url), continueOnFail }),
			);
			const run = result as Awaited<ReturnType<typeof runNode>>;
			const visible = said(run.error) + JSON.stringify(run.items) + logs;
			expect(continueOnFail ? run.items.length : run.error ? 1 : 0).toBeGreaterThan(0);
			const leaked = leaks(visible, api.secrets);
			found.paths++;
			found.leaks += leaked.length;
			expect(leaked).toEqual([]);
		}
	});

	test('a secret pasted into a field is not echoed by the refusal', async () => {
		const before = server.requests.length;
		const { result, logs } = await captured(async () => await runNode({ node: api.node(), parameters: api.pasteInto, credentials: api.credentials(server.url) }));
		const run = result as Awaited<ReturnType<typeof runNode>>;
		expect(run.error?.message).toMatch(/^Invalid /);
		expect(server.requests.length).toBe(before);
		found.paths++;
		expect(leaks(said(run.error) + logs, api.secrets)).toEqual([]);
	});

	test('a server that cannot be reached', async () => {
		const { result, logs } = await captured(async () => await runNode({ node: api.node(), parameters: api.parameters, credentials: api.credentials('http://127.0.0.1:9') }));
		const run = result as Awaited<ReturnType<typeof runNode>>;
		expect(run.error?.message).toMatch(/Could not reach/);
		found.paths++;
		expect(leaks(said(run.error) + logs, api.secrets)).toEqual([]);
	});

	test.each([['the Authorization header', (req: ReceivedRequest) => String(req.headers.authorization)], ...ENCODINGS.flatMap(([name, encode]) => [
		[`the secret ${name}`, (req: ReceivedRequest) => encode(secretOf(req))],
		[`its first 12 characters ${name}`, (req: ReceivedRequest) => encode(secretOf(req).slice(0, 12))],
		[`its last 12 characters ${name}`, (req: ReceivedRequest) => encode(secretOf(req).slice(-12))],
		[`12 characters from its middle ${name}`, (req: ReceivedRequest) => encode(secretOf(req).slice(6, 18))],
	])] as Array<[string, (req: ReceivedRequest) => string]>)('a 2xx answer that echoes %s: the output holds *** in its place and says so', async (_what, echoed) => {
		server.answer((req, res) => {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			const note = `received ${echoed(req)} from you`;
			// Each API's own shape: a record, a webhook list, an enveloped record.
			res.end(JSON.stringify(api.name === 'Platform' ? [{ id: 'wh_1', note }] : api.name === 'Wholesale Voice' ? { success: true, data: { note } } : { id: 'me', note }));
		});
		const run = await runNode({ node: api.node(), parameters: { ...api.parameters, ...api.raw }, credentials: api.credentials(server.url) });
		found.paths++;
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({ note: expect.stringContaining('***'), redacted: true });
		// Simplified (the default) leaves the unknown field out, and still says a secret was masked.
		const simplified = api.raw ? await runNode({ node: api.node(), parameters: api.parameters, credentials: api.credentials(server.url) }) : run;
		expect(simplified.items).toEqual([expect.objectContaining({ json: expect.objectContaining({ redacted: true }) })]);
		const output = JSON.stringify(run.items) + JSON.stringify(simplified.items);
		const leaked = [...outputLeaks(output, api.secrets), ...api.secrets.filter((secret) => output.includes(secret))];
		found.leaks += leaked.length;
		expect(leaked).toEqual([]);
	});
});

describe.each(ENCODINGS.map(([name, encode]) => [name, encode] as const))('Voice Agent Trigger activation refused by a 401 page with the secrets %s', (_name, encode) => {
	test('no secret in the activation error or the log', async () => {
		server.answer((req, res) => {
			const sent = JSON.parse(req.body || '{}') as { request_headers?: Record<string, string> };
			res.writeHead(401, { 'Content-Type': 'text/html' });
			res.end(htmlPage([secretOf(req), ...Object.values(sent.request_headers ?? {})].map(encode).join(' ')));
		});
		const node = new VoiceAgentTrigger();
		const built = contexts({ node, parameters: { event: 'conversation.completed', agentId: '' }, credentials: APIS[2].credentials(server.url) });
		const hooks = registrationHooks(node, built, 'https://n8n.example.com/webhook/secrets/voice-agent');
		const { result, logs } = await captured(async () => await hooks.create().then(() => undefined, (error: unknown) => error));
		expect(result).toBeInstanceOf(Error);
		const delivery = server.requests.map((req) => (JSON.parse(req.body || '{}') as { request_headers?: Record<string, string> }).request_headers ?? {}).flatMap((headers) => Object.values(headers));
		expect(delivery.length).toBeGreaterThan(0);
		found.paths++;
		const leaked = leaks(said(result) + logs, [API_KEY, ...delivery]);
		found.leaks += leaked.length;
		expect(leaked).toEqual([]);
	});
});

/** A trigger's activation (or poll) that fails: the error as n8n gets it, with its stack, and what the node logged. */
async function failedActivation(activate: (built: ReturnType<typeof contexts>, logged: string[]) => Promise<unknown>, node: INodeType, parameters: INodeParameters, credentials: Record<string, ICredentialDataDecryptedObject>) {
	const built = contexts({ node, parameters, credentials, workflowId: `secrets-${randomBytes(4).toString('hex')}` });
	const logged: string[] = [];
	const { result, logs } = await captured(async () => await activate(built, logged).then(() => undefined, (error: unknown) => error));
	expect(result).toBeInstanceOf(Error);
	return said(result) + String((result as Error).stack) + logs + logged.join('\n');
}

/** The node's logger, kept: n8n prints what a trigger logs. */
function keepLogs<T extends { logger: object }>(context: T, logged: string[]): T {
	for (const level of ['debug', 'info', 'warn', 'error'] as const) jest.spyOn(context.logger as Console, level).mockImplementation((...args: unknown[]) => void logged.push(String(args[0])));
	return context;
}

/** A Hosted PBX Trigger poll for Credit Low that fails. */
async function failedPoll(): Promise<string> {
	return await failedActivation(
		async (built, logged) => await new HostedPbxTrigger().poll.call(keepLogs(built.poll(), logged)),
		new HostedPbxTrigger(),
		{ events: ['creditLow'], creditThreshold: 5, customerId: { __rl: true, mode: 'id', value: 'me' }, options: {} },
		APIS[0].credentials(server.url),
	);
}

describe.each([...ENCODINGS.slice(0, 1), ...NESTED_BASE64_ENCODINGS].map(([name, encode]) => [name, encode] as const))('trigger activations refused by a 401 page with the secret %s', (_name, encode) => {
	beforeEach(() => server.answer(withPage(401, (req) => encode(secretOf(req)))));

	test('Hosted PBX Trigger, live events: no secret in the activation error or the log', async () => {
		const visible = await failedActivation(
			async (built, logged) => await new HostedPbxTrigger().trigger.call(keepLogs(built.trigger(() => undefined, () => undefined), logged)),
			new HostedPbxTrigger(),
			{ events: ['incomingcall'], customerId: { __rl: true, mode: 'id', value: 'me' }, options: {} },
			APIS[0].credentials(server.url),
		);
		found.paths++;
		expect(leaks(visible, APIS[0].secrets)).toEqual([]);
	});

	test('Hosted PBX Trigger, polled events: no secret in the poll error or the log', async () => {
		const visible = await failedPoll();
		found.paths++;
		expect(leaks(visible, APIS[0].secrets)).toEqual([]);
	});

	test('Conversation Intelligence Trigger: no secret in the activation error or the log', async () => {
		const visible = await failedActivation(
			async (built, logged) => await new ConversationIntelligenceTrigger().trigger.call(keepLogs(built.trigger(() => undefined, () => undefined), logged)),
			new ConversationIntelligenceTrigger(),
			{ sessionId: 'sess_1', eventTypes: ['operator_result'], operatorNames: '', includeInterim: false, options: {} },
			APIS[2].credentials(server.url),
		);
		found.paths++;
		expect(leaks(visible, APIS[2].secrets)).toEqual([]);
	});
});

test('a poll that fails on a value the service echoed (11 characters of the password as the balance): the error is redacted too', async () => {
	server.answer((req, res) => {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ type: 'creditstatus', accountType: 'PREPAID', balance: secretOf(req).slice(2, 13) }));
	});
	const visible = await failedPoll();
	found.paths++;
	expect(visible).toMatch(/no balance that is a number/);
	expect(leaks(visible, APIS[0].secrets)).toEqual([]);
});

test('Hosted PBX: a text answer that echoes the password (Set Do Not Disturb): its item holds *** and says so', async () => {
	const api = APIS[0];
	server.answer((req, res) => {
		res.writeHead(200, { 'Content-Type': 'text/plain' });
		res.end(`OK, set for ${encodeURIComponent(secretOf(req))}`);
	});
	const run = await runNode({
		node: api.node(),
		parameters: { resource: 'endpoint', operation: 'setDnd', customerId: { __rl: true, mode: 'id', value: 'me' }, endpointId: { __rl: true, mode: 'id', value: '201' }, dndActive: true },
		credentials: api.credentials(server.url),
	});
	found.paths++;
	expect(run.items.map((item) => item.json)).toEqual([{ endpointId: '201', dndActive: true, responseText: 'OK, set for ***', redacted: true }]);
});

test('Wholesale Voice: a 2xx that says it failed', async () => {
	const api = APIS[1];
	server.answer(withBody(200, 'application/json', (t) => JSON.stringify({ success: false, errors: [t] })));
	const { result, logs } = await captured(async () => await runNode({ node: api.node(), parameters: api.parameters, credentials: api.credentials(server.url) }));
	const run = result as Awaited<ReturnType<typeof runNode>>;
	expect(run.error?.message).toMatch(/refused the request/);
	found.paths++;
	expect(leaks(said(run.error) + logs, api.secrets)).toEqual([]);
});

afterAll(() => {
	printFigure(`secrets: ${found.paths} error paths checked with canary credentials, ${found.leaks} secrets found`);
});

test('the Wholesale Voice Trigger keeps no module-wide state: no cache of secrets, networks or lists outlives a delivery', async () => {
	const security = await import('../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/trigger/security');
	const secret = canary('webhook');
	const settings = { sourceNetworks: 'custom' as const, customNetworks: '203.0.113.0/24', secretLocation: 'header' as const, secretName: 'X-Webhook-Secret', secret };
	expect(security.checkCaller(settings, { address: '203.0.113.9', query: {}, headers: { 'x-webhook-secret': secret } })).toEqual({ allowed: true });
	expect(security.checkCaller(settings, { address: '203.0.113.9', query: {}, headers: { 'x-webhook-secret': `${secret}x` } })).toMatchObject({ allowed: false, status: 401 });
	// Nothing the module exports holds the secret, and its source declares no container at module level (a Map, Set or array would).
	expect(JSON.stringify(Object.values(security))).not.toContain(secret);
	const source = readFileSync(join(__dirname, '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/trigger/security.ts'), 'utf8');
	expect(source.split('\n').filter((line) => /^(export )?(const|let|var) \w+(: [^=]+)? = new (Map|Set|WeakMap|Array)\b/.test(line))).toEqual([]);
});
