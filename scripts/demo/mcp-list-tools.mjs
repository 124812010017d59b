#!/usr/bin/env node
/**
 * Lists the tools of an MCP server as an MCP client (Claude, Cursor, an agent) sees them, with the
 * official MCP SDK client over streamable HTTP; with a tool name, calls that tool too.
 *
 *   node scripts/demo/mcp-list-tools.mjs <url> <token>
 *   node scripts/demo/mcp-list-tools.mjs <url> <token> <tool> ['<JSON arguments>']
 *
 * `npm run demo` prints the command for its MCP recipe (examples/ai-agents/mcp-telephony-server.json):
 * the MCP Server Trigger's production URL and its bearer token. n8n's endpoint keeps a session
 * (initialize, then the requests with its Mcp-Session-Id) and answers as server-sent events; the
 * SDK does all of that.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, tool, json] = process.argv.slice(2);
if (!url || !token) {
	process.stderr.write('usage: node scripts/demo/mcp-list-tools.mjs <url> <token> [<tool> [\'<JSON arguments>\']]\n');
	process.exit(2);
}

const client = new Client({ name: 'telephony-demo', version: '1.0.0' });
try {
	await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
	if (!tool) {
		const { tools } = await client.listTools();
		process.stdout.write(`${tools.length} tools at ${url}\n`);
		for (const t of tools) {
			const properties = t.inputSchema?.properties ?? {};
			const inputs = Object.entries(properties).map(([name, schema]) => `${name}: ${schema.type ?? 'any'}`);
			process.stdout.write(`\n${t.name}(${inputs.join(', ')})\n  ${t.description ?? ''}\n`);
			for (const [name, schema] of Object.entries(properties)) if (schema.description) process.stdout.write(`  ${name}: ${schema.description}\n`);
		}
	} else {
		const args = json ? JSON.parse(json) : {};
		const result = await client.callTool({ name: tool, arguments: args });
		process.stdout.write(`isError: ${Boolean(result.isError)}\n`);
		for (const part of result.content ?? []) process.stdout.write(`${part.type === 'text' ? part.text : JSON.stringify(part)}\n`);
	}
} catch (e) {
	process.stderr.write(`${e.message}\n`);
	process.exitCode = 1;
} finally {
	await client.close().catch(() => undefined);
}
