/**
 * Secrets never leave: canary credentials for each API, and a server that echoes them back in
 * every form (plain, base64 of user:password, URL-encoded, a cut Authorization header) on every
 * error path: each HTTP failure status, a non-JSON 2xx, a 2xx that says it failed, network errors,
 * a timeout, and validation of a field into which the secret was pasted. Checked: the error's
 * message, description and context, the items of Continue On Fail, and everything n8n logged;
 * for the secret in any of its forms and any run of 8 of their characters.
 */
import { randomBytes } from 'node:crypto';

import type { ICredentialDataDecryptedObject, INodeParameters, INodeType } from 'n8n-workflow';

import { HostedPbx } from '../../nodes/HostedPbx/HostedPbx.node';
import { VoiceAgent } from '../../nodes/VoiceAgent/VoiceAgent.node';
import { WholesaleVoice } from '../../nodes/WholesaleVoice/WholesaleVoice.node';
import { SECRET_RUN } from '../../nodes/shared/errors';
import { runNode } from '../harness/n8n';
import type { ReceivedRequest, TestServer } from '../harness/testServer';
import { startTestServer } from '../harness/testServer';

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
		pasteInto: { resource: 'webhook', operation: 'create', eventType: 'conversation.completed', url: `https://n8n.example.com/${API_KEY}`, agentId: `agent ${API_KEY}` },
		secrets: [API_KEY],
	},
];

/** Every way a secret could show: whole, URL-encoded, base64, and any run of SECRET_RUN characters of these. */
function leaks(text: string, secrets: string[]): string[] {
	const found: string[] = [];
	for (const secret of secrets) {
		for (const form of [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')]) {
			for (let at = 0; at + SECRET_RUN <= form.length; at++) {
				const run = form.slice(at, at + SECRET_RUN);
				if (text.includes(run)) found.push(run);
			}
		}
	}
	return [...new Set(found)];
}

/** What a careless or hostile server sends back: the credentials it received, whole and cut. */
function echo(req: ReceivedRequest): string {
	const authorization = String(req.headers.authorization ?? '');
	const credential = authorization.replace(/^(Basic|Bearer) /, '');
	const plain = credential.startsWith('tpk_') ? credential : Buffer.from(credential, 'base64').toString('utf8').split(':').slice(1).join(':');
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

	test('a 2xx answer that echoes the credential: the output holds *** in its place', async () => {
		server.answer((req, res) => {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			const note = String(req.headers.authorization);
			// Each API's own shape: a record, a webhook list, an enveloped record.
			res.end(JSON.stringify(api.name === 'Platform' ? [{ id: 'wh_1', note }] : api.name === 'Wholesale Voice' ? { success: true, data: { note } } : { id: 'me', note }));
		});
		const run = await runNode({ node: api.node(), parameters: api.parameters, credentials: api.credentials(server.url) });
		found.paths++;
		const output = JSON.stringify(run.items);
		expect(output).toContain('***');
		for (const secret of api.secrets) expect(output).not.toContain(secret);
	});
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
	process.stdout.write(`secrets: ${found.paths} error paths checked with canary credentials, ${found.leaks} secrets found\n`);
});
