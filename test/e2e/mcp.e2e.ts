/**
 * Telephony for any AI client: the MCP recipe (examples/ai-agents/mcp-telephony-server.json) in a
 * real n8n, used by the official MCP TypeScript SDK client as Claude or Cursor would use it. The
 * client lists exactly the recipe's tools with their input schemas; each call reaches the sandbox
 * with the right request and returns the expected result; a refused input comes back with
 * `isError: true` and the rule, and sends nothing; without the token the client gets nothing and
 * no execution runs.
 *
 * One sandbox (in this process, 127.0.0.1) and one n8n (started: the MCP Server Trigger is a
 * production webhook of the active workflow).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { startSandbox, type Sandbox } from '../../sandbox/index';
import { N8nInstance, httpRequest } from './harness';
import { EXAMPLES_DIR, SandboxAdmin, sandboxCredentials, wholesaleCredentials } from './sandboxAdmin';

const TARGET = process.env.TELEPHONY_N8N_TARGET ?? '2';
const RECIPE = path.join(EXAMPLES_DIR, 'ai-agents', 'mcp-telephony-server.json');
const WORKFLOW = 'tpMcpTelephony01';
const TOOLS = ['calls_in_progress', 'cdrs_for_day', 'lookup_caller', 'recent_calls', 'send_sms'];

interface ToolResult {
	isError?: boolean;
	content: Array<{ type: string; text?: string }>;
}

const textOf = (result: ToolResult) => result.content.map((part) => part.text ?? '').join('\n');

describe(`the MCP recipe with a real MCP client (target ${TARGET})`, () => {
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	let n8n: N8nInstance;
	let client: Client;
	let endpoint: string;
	let token: string;

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		admin = new SandboxAdmin(sandbox.url);
		n8n = await N8nInstance.create();
		const credentials = [...sandboxCredentials(sandbox.url), ...wholesaleCredentials(sandbox.url)];
		token = String(credentials.find((c) => c.type === 'httpBearerAuth')?.data.token);
		await n8n.importCredentials(credentials);
		const recipe = JSON.parse(fs.readFileSync(RECIPE, 'utf8')) as { nodes: Array<Record<string, unknown>> };
		// n8n 1.x knows the MCP Server Trigger up to version 2 (the same parameters).
		if (TARGET === '1') for (const node of recipe.nodes) if (String(node.type).endsWith('.mcpTrigger')) node.typeVersion = 2;
		await n8n.importWorkflows([recipe]);
		await n8n.start();
		await n8n.setupOwner();
		await n8n.activateNow(WORKFLOW);
		endpoint = `${n8n.baseUrl}/mcp/telephony`;
		// The production webhook is registered a moment after the workflow is published: until then it answers 404.
		await admin.until('the MCP endpoint to be registered', async () => (await httpRequest(endpoint, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status !== 404, 60_000);
		client = new Client({ name: 'telephony-e2e', version: '1.0.0' });
		await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
	});

	afterAll(async () => {
		await client?.close().catch(() => undefined);
		await n8n?.dispose();
		await sandbox?.close();
	});

	/** Calls a tool and returns its result with what the sandbox received meanwhile. */
	async function call(name: string, args: Record<string, unknown> = {}) {
		const since = await admin.lastSeq();
		const result = (await client.callTool({ name, arguments: args })) as ToolResult;
		const requests = await admin.requests({ since });
		return { result, requests: requests.filter((r) => r.api === 'pbx' || r.api === 'wholesale') };
	}

	test('the client lists exactly the recipe\'s tools, each with the input schema its $fromAI parameters make', async () => {
		const { tools } = await client.listTools();
		expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
		const inputs = Object.fromEntries(tools.map((tool) => [tool.name, Object.keys((tool.inputSchema.properties ?? {}) as object).sort()]));
		expect(inputs).toEqual({ calls_in_progress: [], cdrs_for_day: ['day'], lookup_caller: [], recent_calls: ['number'], send_sms: ['text', 'to'] });
		const sendSms = tools.find((tool) => tool.name === 'send_sms')!;
		expect(sendSms.description).toMatch(/charged SMS/);
		expect(JSON.stringify(sendSms.inputSchema)).toMatch(/international form with \+/);
	});

	test('each tool call reaches the platform with the right request and returns what it found', async () => {
		const contacts = await call('lookup_caller');
		expect(contacts.result.isError).toBeFalsy();
		expect(contacts.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/customers/me/phonebook']);
		expect(textOf(contacts.result)).toMatch(/Alice/);

		const calls = await call('recent_calls', { number: '+447700900001' });
		expect(calls.requests).toEqual([expect.objectContaining({ method: 'GET', path: '/api/v1/customers/me/calls', query: expect.objectContaining({ from: '+447700900001', pageSize: '10' }) })]);
		expect(textOf(calls.result)).toMatch(/\+447700900001/);

		const sms = await call('send_sms', { to: '+447700900123', text: 'Hello from an MCP client' });
		expect(sms.result.isError).toBeFalsy();
		expect(sms.requests).toEqual([
			expect.objectContaining({ method: 'POST', path: '/api/v1/customers/me/sms', body: expect.objectContaining({ from: '+441632960001', to: '+447700900123', body: 'Hello from an MCP client' }) }),
		]);
		expect(textOf(sms.result)).toMatch(/"sendStatus":\s*"PENDING"/);

		const day = new Date().toISOString().slice(0, 10);
		const cdrs = await call('cdrs_for_day', { day });
		expect(cdrs.requests).toEqual([expect.objectContaining({ method: 'POST', path: `/v3/voice/123456/cdr/${day}` })]);

		const inProgress = await call('calls_in_progress');
		expect(inProgress.requests).toEqual([expect.objectContaining({ method: 'GET', path: '/v3/voice/123456/inprogress/current' })]);
		expect(textOf(inProgress.result)).toMatch(/"calls"/);
	});

	test('a refused input comes back as an error naming the rule, and nothing is sent', async () => {
		const badNumber = await call('send_sms', { to: 'call me maybe', text: 'x' });
		expect(badNumber.result.isError).toBe(true);
		expect(textOf(badNumber.result)).toMatch(/Invalid To/);
		expect(textOf(badNumber.result)).toMatch(/Nothing was sent/);
		const tooLong = await call('send_sms', { to: '+447700900123', text: 'a'.repeat(400) });
		expect(tooLong.result.isError).toBe(true);
		expect(textOf(tooLong.result)).toMatch(/more than Maximum Parts \(2\)/);
		expect([...badNumber.requests, ...tooLong.requests]).toEqual([]);
	});

	test('without the token, or with a wrong one, the client gets nothing and no execution runs', async () => {
		const runs = (await n8n.executions(WORKFLOW)).length;
		const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
		for (const authorization of [undefined, 'Bearer wrong-token']) {
			const answer = await httpRequest(endpoint, {
				method: 'POST',
				headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
				body: initialize,
			});
			expect(answer.status).toBe(403);
		}
		await new Promise((resolve) => setTimeout(resolve, 2000));
		expect((await n8n.executions(WORKFLOW)).length).toBe(runs);
	});
});
