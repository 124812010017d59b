/**
 * Telephony for any AI client: the MCP recipe (examples/ai-agents/mcp-telephony-server.json) in a
 * real n8n, used by the official MCP TypeScript SDK client as Claude or Cursor would use it. The
 * client lists exactly the recipe's tools with their input schemas; each call reaches the sandbox
 * with the right request and returns the expected result; a refused input comes back with
 * `isError: true` and the rule, and sends nothing; with the tools set to On Error: Continue (a copy
 * of the recipe on its own path) it comes back as a normal result holding the error, and what n8n
 * keeps of each is pinned per version; without the token the client gets nothing and no execution runs.
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
/** The recipe again, its tools set to On Error: Continue (using regular output), on its own path. */
const CONTINUE_WORKFLOW = 'tpMcpContinue001';
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
		const continuing = JSON.parse(JSON.stringify(recipe)) as typeof recipe & { id: string; name: string };
		Object.assign(continuing, { id: CONTINUE_WORKFLOW, name: 'MCP recipe, tools continuing on error' });
		for (const node of continuing.nodes) {
			if (String(node.type).endsWith('.mcpTrigger')) Object.assign(node, { webhookId: '0c1d2e3f-4a5b-4c6d-8e7f-901234567890', parameters: { ...(node.parameters as object), path: 'telephony-continue' } });
			else if (String(node.type).endsWith('Tool')) node.onError = 'continueRegularOutput';
		}
		await n8n.importWorkflows([recipe, continuing]);
		await n8n.start();
		await n8n.setupOwner();
		await n8n.activateNow(WORKFLOW);
		await n8n.activateNow(CONTINUE_WORKFLOW);
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

	/** Calls a tool (of the recipe, or of its copy whose tools continue on error) and returns its result with what the sandbox received meanwhile. */
	async function call(name: string, args: Record<string, unknown> = {}, through: Client = client) {
		const since = await admin.lastSeq();
		const result = (await through.callTool({ name, arguments: args })) as ToolResult;
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
		// Simplified (the default): the totals, and the destinations on one line.
		expect(textOf(inProgress.result)).toMatch(/"callcount".*"destinations"/s);
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

	test('what each On Error setting gives the client (Stop: an error; Continue: a normal result holding the error, `[]` for nothing found) and what n8n keeps of the call', async () => {
		// A number of its own: a run of the test before may be saved late, and is told apart by its input.
		const stopped = await call('send_sms', { to: 'call me later', text: 'x' });
		expect(stopped.result.isError).toBe(true);
		const continuing = new Client({ name: 'telephony-e2e-continue', version: '1.0.0' });
		await continuing.connect(
			new StreamableHTTPClientTransport(new URL(`${n8n.baseUrl}/mcp/telephony-continue`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
		);
		try {
			const refused = await call('send_sms', { to: 'call me maybe', text: 'x' }, continuing);
			expect(refused.result.isError).toBeFalsy();
			expect(JSON.parse(textOf(refused.result))).toEqual([expect.objectContaining({ error: expect.stringMatching(/Invalid To/), description: expect.stringMatching(/Nothing was sent/) })]);
			expect(refused.requests).toEqual([]);
			// An empty list is an empty JSON array.
			const none = await call('recent_calls', { number: '+447700900999' }, continuing);
			expect([none.result.isError ?? false, textOf(none.result)]).toEqual([false, '[]']);
		} finally {
			await continuing.close().catch(() => undefined);
		}
		// What n8n keeps of it. Continue: a successful run per call, the tool's task without an error.
		// Stop: n8n 2.40 lists a successful run whose Send SMS task holds the error; n8n 1.123 keeps no run at all.
		const smsTasks = async (ids: string[]) => {
			const runs = await Promise.all(ids.map(async (id) => await n8n.execution(id)));
			const tasks = runs.flatMap((run) => (run.data?.resultData?.runData?.send_sms ?? []) as Array<{ executionStatus?: string; error?: { message?: string } }>);
			return tasks.map((task) => `${task.executionStatus ?? 'no status'}${task.error ? `: ${String(task.error.message).split('\n')[0]}` : ''}`);
		};
		const continued = async () => await n8n.executions(CONTINUE_WORKFLOW);
		await admin.until('the calls of the copy to be saved', async () => (await continued()).filter((e) => e.status === 'success').length === 2);
		expect(await smsTasks((await continued()).map((e) => String(e.id)))).toEqual(['success']);
		await new Promise((resolve) => setTimeout(resolve, 2000));
		const stopError = 'error: Invalid To: "call me later" is not a phone number';
		const stopRunsNow = async () => {
			const runs = await n8n.executions(WORKFLOW);
			const tasks = await Promise.all(runs.map(async (run) => await smsTasks([String(run.id)])));
			return runs.filter((_, i) => tasks[i].includes(stopError));
		};
		if (TARGET !== '1') await admin.until('the Stop run to be saved', async () => (await stopRunsNow()).length > 0);
		const stopRuns = await stopRunsNow();
		console.log(`On Error, as n8n lists the runs: Stop ${JSON.stringify(stopRuns.map((e) => e.status))}, Continue ${JSON.stringify((await continued()).map((e) => e.status))}`);
		expect(stopRuns.map((e) => e.status)).toEqual(TARGET === '1' ? [] : ['success']);
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
