/**
 * What the output choice saves: each list operation of the action nodes with an output shape, run
 * with Limit 50 through n8n's execution code: Raw, Simplified, and Selected Fields (the id and two
 * fields). Prints per operation the records, the JSON bytes of the items in each form, the ratio of
 * Simplified to Raw, and tokens (≈ bytes / 4, what a model is charged for reading them). The Hosted PBX call history must cost at most a third of Raw.
 * The sandbox's bulk records fill the PBX lists to 50; the wholesale lists hold what the sandbox
 * has (fewer than 50 invoices, ports, tariffs and trunks); Conversation Intelligence has no list.
 * Run: npm run bench -- output-size
 */
import type { INodeParameters, INodeType } from 'n8n-workflow';

import { startSandbox } from '../sandbox';
import { runNode } from '../test/harness/n8n';
import { nodeModule, num, report, run, sized, summary } from './lib';

const { HostedPbx } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node')>('nodes/HostedPbx/HostedPbx.node');
const { VoiceAgent } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node')>('nodes/VoiceAgent/VoiceAgent.node');
const { WholesaleVoice } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node')>('nodes/WholesaleVoice/WholesaleVoice.node');

const LIMIT = sized(50, 10);
const PBX_BULK = ['calls', 'sms', 'recordings', 'sounds', 'phonenumbers', 'outgoingcallerids', 'callbundles', 'customers'];
const me = { __rl: true, mode: 'id', value: 'me' };

run(async () => {
	const sandbox = await startSandbox();
	const admin = async (path: string, body: unknown) =>
		await fetch(`${sandbox.url}/_sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	await admin('/pbx/settings', { rateLimit: 1_000_000 });
	await admin('/pbx/phonebook/bulk', { customerId: '1001', count: LIMIT });
	for (const collection of PBX_BULK) await admin('/pbx/bulk', { collection, count: LIMIT, replace: true });
	// Webhooks: one per event type per agent.
	const key = sandbox.convai.keys.demo('full-access');
	for (let i = 0; i < LIMIT; i++) {
		await fetch(`${sandbox.url}/convai/v1/webhooks`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: JSON.stringify({ event_type: i % 2 ? 'conversation.completed' : 'conversation.initiating', url: `https://n8n.example.com/webhook/agent-${i}`, agent_id: `agent_bench_${Math.floor(i / 2)}` }),
		});
	}

	const pbx = (user: string, password: string) => ({ hostedPbxApi: { baseUrl: `${sandbox.url}/api/v1`, username: user, password, maxRateLimitWait: 0 } });
	const acme = pbx('acme.admin', 'acme-admin-secret');
	const wholesale = { wholesaleVoiceApi: { baseUrl: sandbox.url, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456', maxRateLimitWait: 0 } };
	const platform = { platformApiKeyApi: { baseUrl: sandbox.url, apiKey: key, maxRateLimitWait: 0 } };
	const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
	/** Name, node, credentials, parameters, and two fields for Selected Fields. */
	const lists: Array<[string, () => INodeType, Record<string, unknown>, INodeParameters, string[]]> = [
		['Hosted PBX call history', () => new HostedPbx(), acme, { resource: 'call', operation: 'getAll', customerId: me }, ['direction', 'callStarted']],
		['Hosted PBX SMS', () => new HostedPbx(), acme, { resource: 'sms', operation: 'getAll', customerId: me }, ['direction', 'body']],
		['Hosted PBX recordings', () => new HostedPbx(), acme, { resource: 'recording', operation: 'getAll', customerId: me }, ['direction', 'started']],
		['Hosted PBX phone book', () => new HostedPbx(), acme, { resource: 'phoneBook', operation: 'getAll', customerId: me }, ['name', 'phoneNumber']],
		['Hosted PBX sounds', () => new HostedPbx(), acme, { resource: 'sound', operation: 'getAll', customerId: me }, ['name', 'type']],
		['Hosted PBX phone numbers', () => new HostedPbx(), acme, { resource: 'phoneNumber', operation: 'getAll', customerId: me }, ['number', 'identifier']],
		['Hosted PBX outgoing caller IDs', () => new HostedPbx(), acme, { resource: 'outgoingCallerId', operation: 'getAll', customerId: me }, ['number', 'allowSms']],
		['Hosted PBX call bundles', () => new HostedPbx(), acme, { resource: 'callBundle', operation: 'getAll', customerId: me }, ['name', 'availableMins']],
		['Hosted PBX customers (reseller)', () => new HostedPbx(), pbx('reseller', 'reseller-secret'), { resource: 'customer', operation: 'getAll' }, ['company', 'email']],
		['Voice Agent webhooks', () => new VoiceAgent(), platform, { resource: 'webhook', operation: 'getAll' }, ['event_type', 'url']],
		['Wholesale CDRs', () => new WholesaleVoice(), wholesale, { resource: 'voice', operation: 'getCdrs', period: 'range', dateStart: twoDaysAgo, filters: {} }, ['to', 'chg_total']],
		['Wholesale invoices', () => new WholesaleVoice(), wholesale, { resource: 'invoice', operation: 'getAll', status: 'all' }, ['Total', 'AmountDue']],
		['Wholesale ports', () => new WholesaleVoice(), wholesale, { resource: 'port', operation: 'getAll' }, ['mbn', 'status']],
		['Wholesale tariffs', () => new WholesaleVoice(), wholesale, { resource: 'rate', operation: 'getTariffs' }, ['description', 'quality']],
		['Wholesale trunks', () => new WholesaleVoice(), wholesale, { resource: 'trunk', operation: 'getAll' }, ['type', 'enabled']],
	];

	const rows: Array<{ name: string; records: number; raw: number; simple: number; selected: number; fields: string[] }> = [];
	for (const [name, node, credentials, parameters, fields] of lists) {
		const bytes = async (output: string) => {
			const execution = await runNode({ node: node(), parameters: { ...parameters, returnAll: false, limit: LIMIT, output, fields }, credentials: credentials as never });
			if (execution.error) throw new Error(`${name} (${output}) failed: ${execution.error.message}`);
			return { records: execution.items.length, bytes: Buffer.byteLength(JSON.stringify(execution.items.map((item) => item.json))) };
		};
		const [raw, simple, selected] = [await bytes('raw'), await bytes('simple'), await bytes('fields')];
		if (raw.records !== simple.records || raw.records !== selected.records) throw new Error(`${name}: ${raw.records} records Raw, ${simple.records} Simplified, ${selected.records} Selected Fields`);
		rows.push({ name, records: raw.records, raw: raw.bytes, simple: simple.bytes, selected: selected.bytes, fields });
	}
	await sandbox.close();

	const header = [`list (Limit ${LIMIT})`, 'records', 'Raw bytes', 'Simplified bytes', 'ratio', 'Raw tokens ≈', 'Simplified tokens ≈', 'Selected Fields bytes (id and two)'];
	const table = rows.map((r) => [r.name, String(r.records), num(r.raw), num(r.simple), (r.simple / r.raw).toFixed(2), num(r.raw / 4), num(r.simple / 4), `${num(r.selected)} (${r.fields.join(', ')})`]);
	const widths = header.map((_, i) => Math.max(...[header, ...table].map((row) => row[i].length)));
	process.stdout.write(`\nOutput size, Raw against Simplified (tokens ≈ bytes / 4)\n`);
	for (const row of [header, ...table]) process.stdout.write(`  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')}\n`);

	const calls = rows[0];
	const ratio = calls.simple / calls.raw;
	const total = rows.reduce((sum, r) => ({ raw: sum.raw + r.raw, simple: sum.simple + r.simple }), { raw: 0, simple: 0 });
	const figures = report('Call history and all lists', [
		{ name: `call history, ${calls.records} calls: Simplified / Raw`, value: ratio, unit: '', target: '<= 0.333', met: ratio <= 1 / 3, exact: true },
		{ name: 'call history tokens saved', value: (calls.raw - calls.simple) / 4, unit: 'tokens' },
		{ name: `all ${rows.length} lists: Simplified / Raw`, value: total.simple / total.raw, unit: '' },
	]);
	summary(
		`call history of ${calls.records}: ${num(calls.simple)} bytes Simplified, ${num(calls.raw)} Raw (${ratio.toFixed(2)}); all lists ${(total.simple / total.raw).toFixed(2)}`,
		'target call history ≤ 1/3 of Raw',
		figures,
	);
});
