/**
 * Every action node of the package, loaded and executed by a real n8n (`n8n execute`, as a
 * manual run) against the sandbox: one workflow per node that walks its operations, reads and
 * writes, binary downloads included. Asserts on the items n8n returned and on the requests the
 * sandbox received. Needs no n8n server: each run is one CLI process.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { startSandbox, type Sandbox } from '../../sandbox/index';
import { N8nInstance, httpRequest, nodeResult, runError, type N8nRun } from './harness';
import { SandboxAdmin, sandboxCredentials, wholesaleCredentials } from './sandboxAdmin';

const PKG = 'n8n-nodes-telephony-platform';
const PBX = { hostedPbxApi: { id: 'sandboxPbxCred01', name: 'Sandbox Hosted PBX' } };
const KEY = { platformApiKeyApi: { id: 'sandboxKeyCred01', name: 'Sandbox Platform API Key' } };
const ME = { __rl: true, mode: 'id', value: 'me' };
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const SUPPORT_CONFIG = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

/** The bytes of a binary item: inline base64, or the file n8n's binary data store wrote for its id. */
function storedBinary(userFolder: string, file: { data?: string; id?: string }): Buffer {
	if (!file.id) return Buffer.from(String(file.data ?? ''), 'base64');
	const name = path.basename(file.id.replace(/^[a-z0-9-]+:/, ''));
	const search = (dir: string): string | undefined => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) {
				const found = search(full);
				if (found) return found;
			} else if (entry.name === name) return full;
		}
		return undefined;
	};
	const found = search(userFolder);
	if (!found) throw new Error(`no file named ${name} (binary ${file.id}) under ${userFolder}`);
	return fs.readFileSync(found);
}

type Step = [name: string, parameters: Record<string, unknown>, extra?: Record<string, unknown>];

/**
 * Manual Trigger -> the steps in a chain, each run once (`executeOnce`) whatever its input, so
 * that later steps can use earlier results by node name.
 */
function chain(id: string, name: string, type: string, credentials: Record<string, unknown>, steps: Step[]): Record<string, unknown> {
	const nodes: Array<Record<string, unknown>> = [
		{ id: `${id}-0`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
	];
	const connections: Record<string, unknown> = {};
	let previous = 'Start';
	steps.forEach(([stepName, parameters, extra], i) => {
		nodes.push({
			id: `${id}-${i + 1}`,
			name: stepName,
			type,
			typeVersion: 1,
			position: [(i + 1) * 220, 0],
			parameters,
			credentials,
			executeOnce: true,
			...extra,
		});
		connections[previous] = { main: [[{ node: stepName, type: 'main', index: 0 }]] };
		previous = stepName;
	});
	return { id, name, nodes, connections, settings: { executionOrder: 'v1' } };
}

const PBX_STEPS: Step[] = [
	['Customer: get', { resource: 'customer', operation: 'get', customerId: ME }],
	['Customer: get many', { resource: 'customer', operation: 'getAll', returnAll: true }],
	['Customer: get raw', { resource: 'customer', operation: 'get', customerId: ME, output: 'raw' }],
	['Credit status', { resource: 'creditStatus', operation: 'get', customerId: ME }],
	['Credit status: raw', { resource: 'creditStatus', operation: 'get', customerId: ME, output: 'raw' }],
	['Phone book: create', { resource: 'phoneBook', operation: 'create', customerId: ME, name: 'E2E Contact', phoneNumber: '+447700900321', additionalFields: { speedDial: 42 } }],
	['Phone book: update', { resource: 'phoneBook', operation: 'update', customerId: ME, entryId: rl("={{ $('Phone book: create').first().json.id }}"), updateFields: { name: 'E2E Contact Renamed' } }],
	['Phone book: get', { resource: 'phoneBook', operation: 'get', customerId: ME, entryId: rl("={{ $('Phone book: create').first().json.id }}") }],
	['Phone book: get many', { resource: 'phoneBook', operation: 'getAll', customerId: ME, returnAll: false, limit: 2 }],
	['Phone book: delete', { resource: 'phoneBook', operation: 'delete', customerId: ME, entryId: rl("={{ $('Phone book: create').first().json.id }}") }],
	['SMS: send', { resource: 'sms', operation: 'send', customerId: ME, from: rl('Acme'), to: '+44 7700 900 654', body: 'Sent by n8n execute' }],
	['SMS: get', { resource: 'sms', operation: 'get', customerId: ME, smsId: rl("={{ $('SMS: send').first().json.id }}") }],
	['SMS: get many', { resource: 'sms', operation: 'getAll', customerId: ME, returnAll: true }],
	['Calls: get many', { resource: 'call', operation: 'getAll', customerId: ME, returnAll: true, filters: { direction: 'in' } }],
	['Calls: export CSV', { resource: 'call', operation: 'exportCsv', customerId: ME, filters: {}, binaryPropertyName: 'csv' }],
	['Calls: make a call', { resource: 'call', operation: 'originate', customerId: ME, endpointId: rl('201'), to: '+447700900123' }],
	['Recordings: get many', { resource: 'recording', operation: 'getAll', customerId: ME, returnAll: true, filters: {} }],
	['Recording: get', { resource: 'recording', operation: 'get', customerId: ME, recordingId: rl("={{ $('Recordings: get many').first().json.id }}") }],
	['Recording: download', { resource: 'recording', operation: 'download', customerId: ME, recordingId: rl("={{ $('Recordings: get many').first().json.id }}"), binaryPropertyName: 'audio' }],
	['Recording: download link', { resource: 'recording', operation: 'createDownloadLink', customerId: ME, recordingId: rl("={{ $('Recordings: get many').first().json.id }}") }],
	['Sounds: get many', { resource: 'sound', operation: 'getAll', customerId: ME, returnAll: true, type: 'prompt' }],
	['Sound: get', { resource: 'sound', operation: 'get', customerId: ME, soundId: rl("={{ $('Sounds: get many').first().json.id }}") }],
	['Sound: download', { resource: 'sound', operation: 'download', customerId: ME, soundId: rl("={{ $('Sounds: get many').first().json.id }}"), binaryPropertyName: 'data' }],
	['Phone numbers: get many', { resource: 'phoneNumber', operation: 'getAll', customerId: ME, returnAll: true }],
	['Phone number: get', { resource: 'phoneNumber', operation: 'get', customerId: ME, phoneNumberId: rl('1') }],
	['Phone numbers: raw', { resource: 'phoneNumber', operation: 'getAll', customerId: ME, returnAll: true, output: 'raw' }],
	['Caller IDs: get many', { resource: 'outgoingCallerId', operation: 'getAll', customerId: ME, returnAll: true }],
	['Caller ID: get', { resource: 'outgoingCallerId', operation: 'get', customerId: ME, callerIdId: rl('2') }],
	['Bundles: get many', { resource: 'callBundle', operation: 'getAll', customerId: ME, returnAll: true }],
	['Bundle: get', { resource: 'callBundle', operation: 'get', customerId: ME, bundleId: rl('1') }],
	['DND: set', { resource: 'endpoint', operation: 'setDnd', customerId: ME, endpointId: rl('202'), dndActive: true }],
	['DND: get', { resource: 'endpoint', operation: 'getDnd', customerId: ME, endpointId: rl('202') }],
	['Auth token', { resource: 'authToken', operation: 'generate' }],
	// An API error is an item with the platform's message when the node continues on error.
	['Phone book: get a missing entry', { resource: 'phoneBook', operation: 'get', customerId: ME, entryId: rl('999999') }, { onError: 'continueRegularOutput' }],
];

const VOICE_AGENT_STEPS: Step[] = [
	[
		'Webhook: create',
		{
			resource: 'webhook', operation: 'create', eventType: 'conversation.completed', url: 'https://hooks.example.com/e2e-completed', agentId: 'agent_e2e_nodes',
			additionalFields: { requestHeaders: { pairs: [{ name: 'X-E2E-Secret', value: 'not-a-secret' }] } },
		},
	],
	['Webhook: get', { resource: 'webhook', operation: 'get', webhookId: "={{ $('Webhook: create').first().json.id }}" }],
	['Webhooks: get many', { resource: 'webhook', operation: 'getAll', returnAll: true, filters: { agentId: 'agent_e2e_nodes' } }],
	[
		'Webhook: create again (409)',
		{ resource: 'webhook', operation: 'create', eventType: 'conversation.completed', url: 'https://hooks.example.com/other', agentId: 'agent_e2e_nodes', additionalFields: {} },
		{ onError: 'continueRegularOutput' },
	],
	['Webhook: delete', { resource: 'webhook', operation: 'delete', webhookId: "={{ $('Webhook: create').first().json.id }}" }],
	['Webhooks: get many after', { resource: 'webhook', operation: 'getAll', returnAll: true, filters: { agentId: 'agent_e2e_nodes' } }, { alwaysOutputData: true }],
];

const WHOLESALE = { wholesaleVoiceApi: { id: 'sandboxWvCred001', name: 'Sandbox Wholesale Voice' } };

const WHOLESALE_STEPS: Step[] = [
	['Account type', { resource: 'account', operation: 'getType' }],
	['Prepay balance', { resource: 'prepay', operation: 'getBalance' }],
	['Invoices', { resource: 'invoice', operation: 'getAll', status: 'all', returnAll: false, limit: 2 }],
	['Invoice PDF', { resource: 'invoice', operation: 'download', invoiceNumber: "={{ $('Invoices').first().json.id }}", binaryPropertyName: 'data' }],
	['Rate card', { resource: 'rate', operation: 'getRateCard', deck: 'default', format: 'file', binaryPropertyName: 'data' }],
	['Latest CDRs report', { resource: 'report', operation: 'request', reportType: 'voiceCdrLatest', latest: '10', waitForResult: true, maxWaitSeconds: 60, includeRawFile: false, callback: '' }],
	['Trunk: create', { resource: 'trunk', operation: 'create', trunk: 'e2e', type: 'auth' }],
	['Number: validate', { resource: 'number', operation: 'validate', number: '+44 1632 960001' }],
	[
		'Routing: set',
		{
			resource: 'numberRouting', operation: 'set', number: '441632960001', mode: 'builder',
			routes: { route: [{ rule: 'default', blocks: { block: [{ type: 'sip', stage: 1, endpoint: '%e164@pbx.e2e.example' }] } }] },
			sections: {},
		},
	],
	['e911: get', { resource: 'e911', operation: 'get', number: '12025550143' }],
	['Losing providers', { resource: 'port', operation: 'getLosingProviders', returnAll: false, limit: 3 }],
	// Refused before sending: the default trunk cannot be deleted.
	['Trunk: delete the default', { resource: 'trunk', operation: 'delete', trunk: 'L001' }, { onError: 'continueRegularOutput' }],
];

const L002 = { __rl: true, mode: 'name', value: 'L002' };
const RAW = { output: 'raw' };

/** Output choices of the Wholesale reads (issue 40, points 1, 2 and 4); the trunk and port answers are scripted as the contract shows them. */
const OUTPUT_STEPS: Step[] = [
	['Trunk: get', { resource: 'trunk', operation: 'get', trunk: L002 }],
	['Trunks: get many', { resource: 'trunk', operation: 'getAll', returnAll: true }],
	['Trunks: selected fields', { resource: 'trunk', operation: 'getAll', returnAll: true, output: 'fields', fields: ['trunk', 'type'] }],
	['Trunks: raw', { resource: 'trunk', operation: 'getAll', returnAll: true, ...RAW }],
	['Invoices: raw', { resource: 'invoice', operation: 'getAll', status: 'all', returnAll: true, ...RAW }],
	['Port: get', { resource: 'port', operation: 'get', ref: '40001' }],
	['Port: get raw', { resource: 'port', operation: 'get', ref: '40001', ...RAW }],
	['e911: get raw', { resource: 'e911', operation: 'get', number: '12025550143', ...RAW }],
	['Calls in progress: raw', { resource: 'voice', operation: 'getCallsInProgress', view: 'summary', ...RAW }],
	['Calls per destination', { resource: 'voice', operation: 'getCallsInProgress', view: 'destinations' }],
	['Calls per destination: raw', { resource: 'voice', operation: 'getCallsInProgress', view: 'destinations', ...RAW }],
	['Destination rate', { resource: 'rate', operation: 'getDestinationRate', number: '447700900123' }],
	['Destination rate: raw', { resource: 'rate', operation: 'getDestinationRate', number: '447700900123', ...RAW }],
	['Notifications: get many', { resource: 'notification', operation: 'getAll', returnAll: true }],
	['Notifications: selected fields', { resource: 'notification', operation: 'getAll', returnAll: true, output: 'fields', fields: ['class'] }],
	['Notifications: raw', { resource: 'notification', operation: 'getAll', returnAll: true, ...RAW }],
];

const trunkNamed = (trunk: string, type = 'IP') => ({ trunk, type, cli_format: 'e164', enabled: 1, enable_in: 1, enabled_out: 1 });
const THREE_TRUNKS = [trunkNamed('123456-L001'), trunkNamed('123456-L002', 'auth'), trunkNamed('123456-L003')];
/** A port detail with the contract's fields (no `ref`). */
const PORT_DETAIL = { mbn: '01632960100', status: 'complete', status_code: 'complete', type: 'single', lcp: 'BT', customer: { company: 'Acme Widgets', bussuffix: 'Ltd' }, numbers: [], events: [] };

const INTELLIGENCE_STEPS: Step[] = [
	['Upgrade operators', { resource: 'configuration', operation: 'upgradeOperators', configurationId: SUPPORT_CONFIG, upgrade: 'named', operators: 'sentiment' }],
	['Stream token', { resource: 'session', operation: 'getStreamToken', sessionId: 'sess_e2e_watch' }],
	[
		'Watch events',
		{
			resource: 'session', operation: 'watchEvents', sessionId: 'sess_e2e_watch',
			eventTypes: ['operator_result', 'session_ended'], operatorNames: '', includeInterim: false, maxEvents: 100, timeLimitSeconds: 30, lastEventId: '',
		},
	],
];

describe(`every action node under n8n execute (target ${process.env.TELEPHONY_N8N_TARGET ?? '2'})`, () => {
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	let n8n: N8nInstance;
	const runs: Record<string, N8nRun> = {};
	const since: Record<string, number> = {};
	const fileStarted = Date.now();

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		admin = new SandboxAdmin(sandbox.url);
		// An ended session with the demo call, for Watch Events to replay.
		await admin.post('/intelligence/sessions', { session_id: 'sess_e2e_watch' });
		await admin.post('/intelligence/sessions/sess_e2e_watch/script', { preset: 'demo', intervalMs: 0, wait: true });
		n8n = await N8nInstance.create();
		await n8n.importCredentials([...sandboxCredentials(sandbox.url), ...wholesaleCredentials(sandbox.url)]);
		await n8n.importWorkflows([
			chain('e2eNodeHostedPbx', 'e2e: Hosted PBX operations', `${PKG}.hostedPbx`, PBX, PBX_STEPS),
			chain('e2eNodeVoiceAgnt', 'e2e: Voice Agent operations', `${PKG}.voiceAgent`, KEY, VOICE_AGENT_STEPS),
			chain('e2eNodeIntellgnc', 'e2e: Conversation Intelligence operations', `${PKG}.conversationIntelligence`, KEY, INTELLIGENCE_STEPS),
			chain('e2eNodeWholesale', 'e2e: Wholesale Voice operations', `${PKG}.wholesaleVoice`, WHOLESALE, WHOLESALE_STEPS),
			chain('e2eNodeWsOutput', 'e2e: Wholesale Voice output choices', `${PKG}.wholesaleVoice`, WHOLESALE, OUTPUT_STEPS),
		]);
		for (const id of ['e2eNodeHostedPbx', 'e2eNodeVoiceAgnt', 'e2eNodeIntellgnc', 'e2eNodeWholesale', 'e2eNodeWsOutput']) {
			if (id === 'e2eNodeWsOutput') {
				// The trunk records as the API names them (`trunk`), and a port detail without `ref`: the sandbox shows more than the contract.
				const answer = (pathPrefix: string, count: number, data: unknown) =>
					sandbox.context.faults.add({ api: 'wholesale', method: 'GET', pathPrefix, count, status: 200, body: { success: true, data }, headers: { 'Content-Type': 'application/json' } });
				answer('/v3/voice/123456/trunks/123456-L002', 1, THREE_TRUNKS[1]);
				answer('/v3/voice/123456/trunks', 3, THREE_TRUNKS);
				answer('/v3/porting/123456/gnp/40001', 2, PORT_DETAIL);
			}
			since[id] = await admin.lastSeq();
			const t0 = Date.now();
			runs[id] = await n8n.execute(id);
			console.log(`n8n execute ${id}: ${Date.now() - t0} ms`);
		}
	});

	afterAll(async () => {
		await n8n?.dispose();
		await sandbox?.close();
		console.log(`action nodes suite: ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`);
	});

	const json = (id: string, node: string) => nodeResult(runs[id], node).json;

	test('Hosted PBX: every step ran, the run succeeded', () => {
		const run = runs.e2eNodeHostedPbx;
		expect(runError(run)).toBeUndefined();
		for (const [name] of PBX_STEPS) {
			const result = nodeResult(run, name);
			expect([name, result.ran, result.error?.message]).toEqual([name, true, undefined]);
		}
	});

	test('Hosted PBX: reads return the records, flat and with ids', () => {
		const id = 'e2eNodeHostedPbx';
		expect(json(id, 'Customer: get')).toEqual([expect.objectContaining({ id: '1001', company: 'Acme Widgets Ltd' })]);
		expect(json(id, 'Customer: get many').map((c) => c.id)).toEqual(['1001']);
		// Simplified (the default): the plain fields, no `type` or `uri`, and no id (the URI ends in the word creditstatus).
		expect(json(id, 'Credit status')).toEqual([{ accountType: 'PREPAID', balance: expect.any(Number) }]);
		// Raw: the answer as it came, nothing added.
		expect(json(id, 'Credit status: raw')).toEqual([{ type: 'creditstatus', uri: expect.stringMatching(/\/customers\/\w+\/creditstatus$/), accountType: 'PREPAID', balance: expect.any(Number) }]);
		expect(json(id, 'Phone book: get many')).toHaveLength(2);
		expect(json(id, 'Calls: get many').every((c) => c.direction === 'IN')).toBe(true);
		expect(json(id, 'Recording: get')).toEqual([expect.objectContaining({ id: json(id, 'Recordings: get many')[0].id })]);
		expect(json(id, 'Sounds: get many').every((s) => s.type === 'prompt')).toBe(true);
		expect(json(id, 'Phone number: get')).toEqual([expect.objectContaining({ id: '1', number: '+441632960001' })]);
		expect(json(id, 'Caller ID: get')).toEqual([expect.objectContaining({ number: '+441632960099', allowSms: true })]);
		expect(json(id, 'Bundle: get')).toEqual([expect.objectContaining({ name: 'UK 1000' })]);
		expect(json(id, 'DND: get')).toEqual([expect.objectContaining({ dndActive: true })]);
		expect(json(id, 'Auth token')).toEqual([expect.objectContaining({ id: expect.any(String), expires: expect.any(String) })]);
		const [missing] = json(id, 'Phone book: get a missing entry');
		expect(JSON.stringify(missing)).toMatch(/404|not found/i);
	});

	test('Hosted PBX: writes reached the sandbox as the API wants them', async () => {
		const id = 'e2eNodeHostedPbx';
		const created = json(id, 'Phone book: create')[0];
		expect(created).toEqual(expect.objectContaining({ name: 'E2E Contact', phoneNumber: '+447700900321', speedDial: 42 }));
		expect(json(id, 'Phone book: update')).toEqual([expect.objectContaining({ id: created.id, name: 'E2E Contact Renamed', speedDial: 42 })]);
		expect(json(id, 'Phone book: delete')).toEqual([{ deleted: true, id: created.id }]);
		expect(json(id, 'SMS: get')).toEqual([expect.objectContaining({ id: json(id, 'SMS: send')[0].id, to: '+447700900654', from: 'Acme' })]);
		const log = await admin.requests({ api: 'pbx', since: since[id] });
		const writes = log.filter((r) => r.method !== 'GET').map((r) => [r.method, r.path, r.status]);
		expect(writes).toEqual([
			['POST', '/api/v1/customers/me/phonebook', 201],
			['PUT', `/api/v1/customers/me/phonebook/${created.id}`, 200],
			['DELETE', `/api/v1/customers/me/phonebook/${created.id}`, expect.any(Number)],
			['POST', '/api/v1/customers/me/sms', 201],
			['POST', '/api/v1/customers/me/calls', 200],
			['PUT', '/api/v1/customers/me/endpoints/202/phonestatus', 200],
		]);
		const bodies = log.filter((r) => r.method !== 'GET').map((r) => r.body);
		expect(bodies[0]).toEqual({ type: 'phonebookentry', name: 'E2E Contact', phoneNumber: '+447700900321', speedDial: 42 });
		expect(bodies[3]).toEqual({ type: 'smsmessage', from: 'Acme', to: '+447700900654', body: 'Sent by n8n execute' });
		expect(bodies[4]).toEqual({ type: 'call', endpoint: `${sandbox.url}/api/v1/customers/me/endpoints/201`, to: '+447700900123' });
		expect(bodies[5]).toEqual({ type: 'phonestatus', dndActive: true });
		expect(log.every((r) => r.headers.authorization === 'Basic ***')).toBe(true);
	});

	test('Hosted PBX: files come out as binary data (CSV, recording, sound)', async () => {
		const id = 'e2eNodeHostedPbx';
		const csv = nodeResult(runs[id], 'Calls: export CSV').items[0];
		expect(csv.binary?.csv).toEqual(expect.objectContaining({ mimeType: 'text/csv', fileExtension: 'csv' }));
		expect(String(csv.binary?.csv.fileName)).toMatch(/^call-history-me-\d{4}-\d{2}-\d{2}\.csv$/);
		expect(Number(csv.json.rows)).toBeGreaterThan(0);

		const audio = nodeResult(runs[id], 'Recording: download').items[0];
		expect(audio.binary?.audio).toEqual(expect.objectContaining({ mimeType: 'audio/wav', fileName: `recording-${json(id, 'Recordings: get many')[0].id}.wav` }));
		expect(audio.json.fileSize).toBeGreaterThan(44);
		const sound = nodeResult(runs[id], 'Sound: download').items[0];
		expect(sound.binary?.data).toEqual(expect.objectContaining({ mimeType: 'audio/wav' }));
		// The bytes are WAV files: inline (base64) or, as n8n stores them by default, files in its
		// binary data store inside the user folder (the item carries their id).
		for (const file of [audio.binary!.audio, sound.binary!.data]) {
			const bytes = storedBinary(n8n.userFolder, file);
			expect(bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
			expect(bytes.subarray(8, 12).toString('latin1')).toBe('WAVE');
		}
		expect(storedBinary(n8n.userFolder, csv.binary!.csv).toString('utf8').split('\n')[0]).toMatch(/,/);

		// The one-time link downloads the recording once, without credentials.
		const [link] = json(id, 'Recording: download link');
		expect(link).toEqual(expect.objectContaining({ singleUse: true, url: expect.stringContaining('tokenid=') }));
		const first = await httpRequest<string>(String(link.url));
		expect([first.status, first.headers['content-type']]).toEqual([200, expect.stringMatching(/^audio\/wav/)]);
		expect((await httpRequest(String(link.url))).status).toBe(401);
	});

	test('Voice Agent: create, get, get many, a 409 explained, delete', async () => {
		const id = 'e2eNodeVoiceAgnt';
		expect(runError(runs[id])).toBeUndefined();
		const [created] = json(id, 'Webhook: create');
		expect(created).toEqual(
			expect.objectContaining({ id: expect.stringMatching(/^wh_/), event_type: 'conversation.completed', agent_id: 'agent_e2e_nodes', url: 'https://hooks.example.com/e2e-completed' }),
		);
		// The echoed header's value is a shared secret, masked; the mark that says so is beside the data, not a header of its own.
		expect([created.request_headers, created.redacted]).toEqual([{ 'X-E2E-Secret': '***' }, true]);
		// Simplified (the default): the health flat, beside the status.
		expect(json(id, 'Webhook: get')).toEqual([expect.objectContaining({ id: created.id, status: 'active', health_consecutive_failures: 0 })]);
		expect(json(id, 'Webhooks: get many').map((w) => w.id)).toEqual([created.id]);
		const [conflict] = json(id, 'Webhook: create again (409)');
		expect(JSON.stringify(conflict)).toContain(`already exists for agent agent_e2e_nodes (ID ${created.id}, URL https://hooks.example.com/e2e-completed)`);
		expect(json(id, 'Webhook: delete')).toEqual([{ deleted: true, id: created.id }]);
		expect(json(id, 'Webhooks: get many after')).toEqual([{}]);
		const log = await admin.requests({ api: 'convai', since: since[id] });
		expect(log.filter((r) => r.method !== 'GET').map((r) => [r.method, r.path, r.status])).toEqual([
			['POST', '/convai/v1/webhooks', 201],
			['POST', '/convai/v1/webhooks', 409],
			['DELETE', `/convai/v1/webhooks/${created.id}`, 204],
		]);
		expect(log[0].body).toEqual({ event_type: 'conversation.completed', url: 'https://hooks.example.com/e2e-completed', agent_id: 'agent_e2e_nodes', request_headers: { 'X-E2E-Secret': 'not-a-secret' } });
		expect(log.every((r) => r.headers.authorization === 'Bearer ***')).toBe(true);
	});

	test('Conversation Intelligence: upgrade operators, a stream token, watch a session until it ends', async () => {
		const id = 'e2eNodeIntellgnc';
		expect(runError(runs[id])).toBeUndefined();
		const [config] = json(id, 'Upgrade operators');
		// Simplified (the default): the UUID is the id, the operators as `name vN`.
		expect(config).toEqual(expect.objectContaining({ id: SUPPORT_CONFIG, version: 8, upgraded: 'sentiment v3' }));
		expect(json(id, 'Stream token')).toEqual([expect.objectContaining({ session_id: 'sess_e2e_watch', token: expect.stringMatching(/^sst_/) })]);
		const events = json(id, 'Watch events');
		expect(events.map((e) => e.event_type).filter((t, i, all) => all.indexOf(t) === i)).toEqual(['operator_result', 'session_ended']);
		expect(events.filter((e) => e.event_type === 'operator_result')).toHaveLength(9);
		expect(events[0]).toEqual(expect.objectContaining({ operator_name: 'sentiment', value: 'negative', session_id: 'sess_e2e_watch' }));
		const log = await admin.requests({ api: 'intelligence', since: since[id] });
		expect(log.map((r) => [r.method, r.path.replace(/sst_[0-9a-f]+/, 'sst_…'), r.status])).toEqual([
			['POST', `/intelligence/v1/configurations/${SUPPORT_CONFIG}/upgrade-operators`, 200],
			['GET', '/intelligence/v1/sessions/sess_e2e_watch/stream-token', 200],
			['GET', '/intelligence/v1/sessions/sess_e2e_watch/stream-token', 200],
			['GET', '/intelligence/v1/sessions/sess_e2e_watch/events', 200],
		]);
		expect(log[0].body).toEqual({ all: false, operators: ['sentiment'] });
	});
	test('Wholesale Voice: reads, a PDF and a CSV file, a report collected once, a trunk, routing, e911, a local refusal', async () => {
		const id = 'e2eNodeWholesale';
		expect(runError(runs[id])).toBeUndefined();
		expect(json(id, 'Account type')).toEqual([expect.objectContaining({ account_type: expect.any(String) })]);
		const [pdf] = nodeResult(runs[id], 'Invoice PDF').items;
		expect(pdf.binary?.data).toEqual(expect.objectContaining({ mimeType: 'application/pdf', fileName: expect.stringMatching(/^invoice-.+\.pdf$/) }));
		expect(storedBinary(n8n.userFolder, pdf.binary!.data).subarray(0, 5).toString()).toBe('%PDF-');
		const [card] = nodeResult(runs[id], 'Rate card').items;
		expect(card.binary?.data).toEqual(expect.objectContaining({ mimeType: 'text/csv', fileName: 'rate-card-default.csv' }));
		expect(storedBinary(n8n.userFolder, card.binary!.data).toString('utf8')).toMatch(/^Effective: /);
		expect(json(id, 'Latest CDRs report').length).toBe(10);
		expect(json(id, 'Trunk: create')).toEqual([expect.objectContaining({ password: expect.any(String) })]);
		expect(json(id, 'Number: validate')).toEqual([expect.objectContaining({ valid: true, valid_cli: true })]);
		// Simplified (the default): the number is the id, the status and the address in force flat.
		expect(json(id, 'e911: get')).toEqual([expect.objectContaining({ id: '12025550143', configured: true, status: 'In Service', address: expect.any(String) })]);
		expect(JSON.stringify(json(id, 'Trunk: delete the default'))).toMatch(/default IP-authenticated trunk/);
		const log = await admin.requests({ api: 'wholesale', since: since[id] });
		expect(log.filter((r) => r.path.startsWith('/v3/files/') && r.status === 200)).toHaveLength(1);
		expect(log.find((r) => r.method === 'PUT' && r.path.endsWith('/config'))?.body).toEqual({ routing: { default: [[{ type: 'sip', endpoint: '%e164@pbx.e2e.example' }]] } });
		expect(log.some((r) => r.method === 'DELETE')).toBe(false);
		expect(log.every((r) => r.headers.authorization === 'Basic ***')).toBe(true);
	});

	/** The records the Wholesale API answers at a path, the `{success, data}` envelope removed. */
	test('Hosted PBX output: Raw is the answer as it came, no id added (Simplified takes it from the URI)', async () => {
		const id = 'e2eNodeHostedPbx';
		const pbxAnswer = async (apiPath: string) => {
			const res = await httpRequest<any>(`${sandbox.url}/api/v1${apiPath}`, { headers: { authorization: `Basic ${Buffer.from('acme.admin:acme-admin-secret').toString('base64')}` } });
			expect(res.status).toBe(200);
			return res.body;
		};
		expect(json(id, 'Customer: get raw')).toEqual([await pbxAnswer('/customers/me')]);
		const numbers = json(id, 'Phone numbers: raw');
		expect(numbers).toEqual((await pbxAnswer('/customers/me/phonenumbers?pageSize=200&page=1')).items);
		expect(numbers.filter((number) => 'id' in number)).toEqual([]);
		expect(json(id, 'Phone numbers: get many').map((number) => number.id)).toEqual(numbers.map((number) => String(number.uri).split('/').pop()));
	});

	async function wholesaleAnswer(apiPath: string): Promise<any> {
		const res = await httpRequest<any>(`${sandbox.url}${apiPath}`, { headers: { authorization: `Basic ${Buffer.from('api123456:wv-demo-123456').toString('base64')}` } });
		expect(res.status).toBe(200);
		return res.body && typeof res.body === 'object' && 'success' in res.body && 'data' in res.body ? res.body.data : res.body;
	}

	test('Wholesale Voice output: trunks named in `trunk` get their name as the id, in Simplified and Selected Fields', () => {
		const id = 'e2eNodeWsOutput';
		expect(runError(runs[id])).toBeUndefined();
		for (const [name] of OUTPUT_STEPS) expect([name, nodeResult(runs[id], name).error?.message]).toEqual([name, undefined]);
		const simplified = (trunk: ReturnType<typeof trunkNamed>) => ({ id: trunk.trunk, type: trunk.type, cli_format: 'e164', enabled: 1, enable_in: 1, enabled_out: 1 });
		expect(json(id, 'Trunk: get')).toEqual([simplified(THREE_TRUNKS[1])]);
		expect(json(id, 'Trunks: get many')).toEqual(THREE_TRUNKS.map(simplified));
		expect(json(id, 'Trunks: selected fields')).toEqual(THREE_TRUNKS.map((t) => ({ id: t.trunk, trunk: t.trunk, type: t.type })));
		expect(json(id, 'Trunks: raw')).toEqual(THREE_TRUNKS);
	});

	test('Wholesale Voice output: Raw is the answer as it came (invoices, a port, e911, calls in progress); what the node adds is in Simplified', async () => {
		const id = 'e2eNodeWsOutput';
		const invoices = (await wholesaleAnswer('/v3/accounts/123456/credit/invoices/all')) as { Invoices: unknown[]; TotalDue: unknown };
		expect(invoices.TotalDue).toBeDefined();
		expect(json(id, 'Invoices: raw')).toEqual(invoices.Invoices);
		expect(json(id, 'Port: get raw')).toEqual([PORT_DETAIL]);
		expect(json(id, 'Port: get')).toEqual([{ id: '40001', mbn: '01632960100', status: 'complete', type: 'single', lcp: 'BT', customer: 'Acme Widgets Ltd' }]);
		expect(json(id, 'e911: get raw')).toEqual([await wholesaleAnswer('/v3/numbers/123456/allocated/12025550143/e911')]);
		// Calls in progress move with real time: the form is compared, not the figures.
		const [summary] = json(id, 'Calls in progress: raw');
		const current = await wholesaleAnswer('/v3/voice/123456/inprogress/current');
		expect(Object.keys(summary).sort()).toEqual(Object.keys(current).sort());
		expect([Array.isArray(summary.calls), Array.isArray(summary.countries), typeof summary.calls, typeof summary.countries]).toEqual([false, false, 'object', 'object']);
		const destinations = Object.keys(summary.calls as object);
		const raw = json(id, 'Calls per destination: raw');
		expect(raw.map((d) => d.dest_id)).toEqual(destinations);
		for (const destination of raw) expect(Object.keys(destination).sort()).toEqual(['dest_id', ...Object.keys((summary.calls as any)[String(destination.dest_id)])].sort());
		// Simplified adds the record's currency to each destination, and stays no larger than Raw.
		const simplified = json(id, 'Calls per destination');
		expect(simplified.map((d) => [d.id, d.currency])).toEqual(destinations.map((key) => [key, 'GBP']));
		expect(JSON.stringify(simplified).length).toBeLessThanOrEqual(JSON.stringify(raw).length);
	});

	test('Wholesale Voice output: Simplified no larger than Raw for a destination rate; Notification Get Many offers the output choice', () => {
		const id = 'e2eNodeWsOutput';
		const [simplified] = json(id, 'Destination rate');
		const [raw] = json(id, 'Destination rate: raw');
		expect(simplified).toEqual(expect.objectContaining({ description: raw.desc, platinum_peak: (raw.rates as any)['1'].p }));
		expect(JSON.stringify(simplified).length).toBeLessThanOrEqual(JSON.stringify(raw).length);
		const types = json(id, 'Notifications: raw');
		expect(types.length).toBeGreaterThan(0);
		expect(json(id, 'Notifications: get many')).toEqual(types.map((t) => expect.objectContaining({ id: t.type, class: t.class, description: t.description })));
		expect(json(id, 'Notifications: selected fields')).toEqual(types.map((t) => ({ id: t.type, class: t.class })));
	});
});
