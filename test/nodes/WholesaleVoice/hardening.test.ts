/**
 * Wholesale Voice defects found in review: routes the builder silently rewrote, a trunk Update
 * that created trunks, empty or wrapped report files, lists of unknown shape dropped, date-times
 * shifted by the server's time zone, 999 data for non-UK numbers, notification recipients with a
 * plus, and seven-digit E.164 numbers.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { numberIssue, plainDateTime } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/fields';
import { reportOutput } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/reports';
import { WholesaleVoice } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import type { Sandbox } from '../../../sandbox';
import { resetTriggers } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/triggers/lifecycle';
import { fakeClockForFile } from '../../harness/clock';
import { runNode } from '../../harness/n8n';
import type { TestServer } from '../../harness/testServer';
import { sandboxForFile } from '../../harness/sandboxForFile';
import { json, scriptedServerForFile } from '../../harness/testServer';
import { OPEN, hostTrigger, wholesaleCredentials as triggerCredentials } from './triggerKit';
import type { HostedTrigger } from './triggerKit';
import { waitFor } from '../../harness/wait';
import { expectRefused, runWholesale } from './wholesaleKit';

let sandbox: Sandbox;
let server: TestServer;
sandboxForFile((started) => (sandbox = started));
scriptedServerForFile((started) => (server = started));

/** The node against the scripted server, for answers the sandbox never gives. */
async function runScripted(parameters: IDataObject) {
	const run = await runNode({
		node: new WholesaleVoice(),
		parameters: parameters as never,
		credentials: { wholesaleVoiceApi: { baseUrl: server.url, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456', maxRateLimitWait: 0 } },
	});
	return { ...run, json: run.items.map((item) => item.json as IDataObject) };
}

describe('Number routing builder: no route is rewritten or dropped', () => {
	const set = (routes: IDataObject[]): INodeParameters => ({ resource: 'numberRouting', operation: 'set', number: '441632960002', mode: 'builder', routes: { route: routes } as INodeParameters, sections: {} });
	const live = { rule: 'default', blocks: { block: [{ type: 'sip', stage: 1, endpoint: 'sales@pbx.acme.example' }, { type: 'pstn', stage: 2, number: '447700900123' }] } };

	test('a route whose rule is blank is refused, not sent as "default" over the live default route', async () => {
		const run = await runWholesale(sandbox, set([live, { rule: '  ', blocks: { block: [{ type: 'busy', stage: 1 }] } }]));
		expectRefused(run, 'Routes > Route 2 > Rule');
		expect(run.error?.description).toMatch(/a blank is not taken as "default"/);
	});

	test('two routes with the same rule are refused, naming both', async () => {
		const run = await runWholesale(sandbox, set([live, { rule: ' default ', blocks: { block: [{ type: 'busy', stage: 1 }] } }]));
		expectRefused(run, 'Routes > Route 2 > Rule');
		expect(run.error?.message).toMatch(/"default" is also the rule of route 1/);
	});

	// Refused by the check, before any stage list is built (1e8 once took seconds, 1e10 was dropped): no wall-clock bound needed.
	test.each([[1e10], [1e8], [101], [0]])('a stage of %d is refused before anything is sent (1 to 100)', async (stage) => {
		const run = await runWholesale(sandbox, set([{ rule: 'default', blocks: { block: [{ type: 'sip', stage: 1, endpoint: 'a@pbx.example' }, { type: 'pstn', stage, number: '447700900123' }] } }]));
		expectRefused(run, 'Stage');
		expect(run.error?.description).toMatch(/from 1 to 100/);
	});

	test('stages are sent in the order of their numbers, gaps closed', async () => {
		const run = await runWholesale(sandbox, set([{ rule: 'default', blocks: { block: [{ type: 'pstn', stage: 100, number: '447700900123' }, { type: 'sip', stage: 7, endpoint: 'a@pbx.example' }, { type: 'sip', stage: 7, endpoint: 'b@pbx.example' }] } }]));
		expect(run.error).toBeUndefined();
		expect(run.requests[0].body).toEqual({
			routing: { default: [[{ type: 'sip', endpoint: 'a@pbx.example' }, { type: 'sip', endpoint: 'b@pbx.example' }], [{ type: 'pstn', number: '447700900123' }]] },
		});
	});
});

describe('Trunks: Update changes only existing trunks; Create only makes new ones', () => {
	const trunkNames = async () => (await runWholesale(sandbox, { resource: 'trunk', operation: 'getAll', returnAll: true })).json.map((t) => t.name);

	test('Update of a mistyped name reads the trunk, finds none and writes nothing (no trunk is created)', async () => {
		const run = await runWholesale(sandbox, { resource: 'trunk', operation: 'update', trunk: 'ofice', options: { enabled_out: true } });
		expect(run.error?.message).toBe('Trunk 123456-ofice does not exist');
		expect(run.error?.description).toMatch(/existing trunks only.*Nothing was written/);
		expect(run.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /v3/voice/123456/trunks/123456-ofice 404']);
		expect(await trunkNames()).not.toContain('123456-ofice');
	});

	test('Update of an existing trunk reads it, then writes the options', async () => {
		const run = await runWholesale(sandbox, { resource: 'trunk', operation: 'update', trunk: 'office', options: { enabled_out: false } });
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => r.method)).toEqual(['GET', 'PUT']);
		expect(run.requests[1]).toMatchObject({ path: '/v3/voice/123456/trunks/123456-office', body: { enabled_out: 0 } });
	});

	test('Create of a name already in use is refused without writing; a new name is created', async () => {
		const taken = await runWholesale(sandbox, { resource: 'trunk', operation: 'create', trunk: 'office', type: 'auth' });
		expect(taken.error?.message).toBe('Trunk 123456-office already exists');
		expect(taken.requests.map((r) => r.method)).toEqual(['GET']);
		const created = await runWholesale(sandbox, { resource: 'trunk', operation: 'create', trunk: 'fresh', type: 'auth' });
		expect(created.error).toBeUndefined();
		expect(created.requests.map((r) => `${r.method} ${r.status}`)).toEqual(['GET 404', 'PUT 200']);
		expect(created.json[0]).toMatchObject({ trunk: '123456-fresh', password: expect.any(String) });
	});
});

describe('Trunks: what a server answers for a name with no trunk is not shown by the spec', () => {
	const create = { resource: 'trunk', operation: 'create', trunk: 'fresh', type: 'auth' };
	const created = json(200, { success: true, data: { password: 'sip-secret-1' } });

	test.each([
		['404', json(404, { success: false, errors: ['Not found'] })],
		['400', json(400, { success: false, errors: ['Invalid trunk'] })],
		['200 {success: false}', json(200, { success: false, errors: ['No such trunk'] })],
		['200 with no record', json(200, { success: true, data: null })],
		['200 []', json(200, [])],
	])('a GET answered %s is no trunk: Create goes on and writes it once', async (_label, missing) => {
		server.answer(missing, created);
		const run = await runScripted(create);
		expect(run.error).toBeUndefined();
		expect(server.requests.map((r) => r.method)).toEqual(['GET', 'PUT']);
		expect(run.json[0]).toMatchObject({ trunk: '123456-fresh', password: 'sip-secret-1' });
	});

	test.each([
		['500', json(500, { success: false, errors: ['Internal error'] })],
		['401', json(401, { success: false })],
	])('a GET answered %s says nothing about the trunk: nothing is written', async (_label, failing) => {
		server.answer(failing);
		for (const operation of ['create', 'update']) {
			server.requests.length = 0;
			const run = await runScripted({ ...create, operation, options: { enabled_out: true } });
			expect(run.error).toBeDefined();
			expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
		}
	});
});

describe('Report files: an empty or wrapped file still shows its collection', () => {
	const time = fakeClockForFile();
	const hash = 'a'.repeat(32);
	const rowsOf = (body: unknown) => reportOutput(hash, Buffer.from(JSON.stringify(body)), 'application/json', {}) as IDataObject[];

	test.each([
		['a bare empty list', []],
		['an empty list in data', { data: [] }],
		['an envelope around an empty cdrs list', { success: true, data: { cdrs: [] } }],
		['an envelope with empty data', { success: true, data: [] }],
	])('%s gives one item saying the report was collected with no rows', (_name, body) => {
		expect(rowsOf(body)).toEqual([{ hash, collected: true, rows: 0 }]);
	});

	test('an envelope without a list gives its data, not the envelope, as the row', () => {
		expect(rowsOf({ success: true, data: { total: 3 } })).toEqual([{ total: 3 }]);
		expect(rowsOf({ success: true, data: { cdrs: [{ a: 1 }] } })).toEqual([{ a: 1 }]);
	});

	test('Report > Get File of an empty report outputs the collection, with the raw file when asked', async () => {
		server.answer(json(200, []));
		const run = await runScripted({ resource: 'report', operation: 'getFile', hash, includeRawFile: true, binaryPropertyName: 'data' });
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([{ hash, collected: true, rows: 0 }]);
		expect(run.items[0].binary?.data).toMatchObject({ fileName: `report-${hash}.json` });
	});

	test('the trigger collecting an empty report outputs the handle, collected, with rows 0 (never nothing)', async () => {
		resetTriggers();
		const trigger: HostedTrigger = await hostTrigger({ ...OPEN, collectReport: true }, { credentials: triggerCredentials(sandbox) });
		try {
			sandbox.wholesale.settings.reportReadyMs = 50;
			await fetch(`${sandbox.url}/_sandbox/wholesale/reports/next`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows: 0 }) });
			const response = await fetch(`${sandbox.url}/v3/accounts/123456/reports/voice/cdr/latest/10`, {
				method: 'POST',
				headers: { authorization: `Basic ${Buffer.from('api123456:wv-demo-123456').toString('base64')}`, 'content-type': 'application/json' },
				body: JSON.stringify({ callback: trigger.url }),
			});
			const { hash: reportHash } = (await response.json()) as { hash: string };
			// Ready on the sandbox's (fake) clock: its callback goes out, and the execution collects it.
			await time.clock.advance(50);
			await waitFor(() => trigger.deliveries.length === 1);
			await trigger.settled();
			expect(trigger.runs[0].map((item) => item.json)).toEqual([expect.objectContaining({ app: 'reports', hash: reportHash, collected: true, rows: 0 })]);
		} finally {
			await trigger.close();
		}
	});
});

describe('Lists whose shape is not shown: data is never dropped', () => {
	const byDay = { success: true, data: { '2024-05-01': [{ reason: 'cli' }], '2024-05-02': [{ reason: 'maxcost' }] } };

	test('rejected calls keyed by day come out whole, not as nothing', async () => {
		server.answer(json(200, byDay));
		const run = await runScripted({ resource: 'voice', operation: 'getRejectedCalls', reason: '', returnAll: true });
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([byDay.data]);
	});

	test('CDRs keyed by id come out whole; an empty list is no items; text is an error', async () => {
		server.answer(json(200, { success: true, data: { c1: { to: '44' }, c2: { to: '33' } } }));
		expect((await runScripted({ resource: 'voice', operation: 'getCdrs', period: 'range', returnAll: true })).json).toEqual([{ c1: { to: '44' }, c2: { to: '33' } }]);
		server.answer(json(200, { success: true, data: [] }));
		const empty = await runScripted({ resource: 'voice', operation: 'getCdrs', period: 'range', returnAll: true });
		expect(empty.error).toBeUndefined();
		expect(empty.json).toEqual([]);
		server.answer(json(200, '"busy"'));
		expect((await runScripted({ resource: 'voice', operation: 'getRejectedCalls', reason: '', returnAll: true })).error?.message).toMatch(/answered with text where a list of rejected calls was expected/);
	});
});

describe('Date-times are GMT as written, whatever the time zone n8n runs in', () => {
	const VALUES = ['2025-06-10T00:00:00', '2025-06-10T09:30', '2025-06-10', '2025-06-10 12:34:56', '2025-06-10T00:00:00.000+02:00', '2025-06-10T00:00:00Z', '2025-06-09T20:00:00-04:00'];
	const EXPECTED = ['2025-06-10 00:00:00', '2025-06-10 09:30:00', '2025-06-10 00:00:00', '2025-06-10 12:34:56', '2025-06-09 22:00:00', '2025-06-10 00:00:00', '2025-06-10 00:00:00'];

	test('in this process', () => {
		expect(VALUES.map((value) => plainDateTime(value))).toEqual(EXPECTED);
		expect(plainDateTime(new Date('2025-06-10T00:00:00Z'))).toBe('2025-06-10 00:00:00');
	});

	const ZONES = ['Europe/London', 'America/New_York', 'Asia/Kolkata'];
	/**
	 * One child process for the zones (starting one costs seconds): each zone sets TZ, then loads the
	 * package's modules afresh in it (n8n-workflow, as in n8n, is loaded once).
	 */
	let inZones: { stderr: string; answers: Record<string, unknown> };
	beforeAll(() => {
		const module = JSON.stringify(require.resolve('../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/fields'));
		const script = `const answers = {}; for (const zone of ${JSON.stringify(ZONES)}) { process.env.TZ = zone; for (const key of Object.keys(require.cache)) if (!key.includes('node_modules')) delete require.cache[key]; const { plainDateTime } = require(${module}); answers[zone] = ${JSON.stringify(VALUES)}.map((v) => plainDateTime(v)); } console.log(JSON.stringify(answers));`;
		const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 60_000 });
		inZones = { stderr: child.stderr, answers: JSON.parse(child.stdout) as Record<string, unknown> };
	});

	test.each(ZONES)('with TZ=%s', (zone) => {
		expect(inZones.stderr).toBe('');
		expect(inZones.answers[zone]).toEqual(EXPECTED);
	});

	test('Get CDRs sends the picker value as written', async () => {
		const run = await runWholesale(sandbox, { resource: 'voice', operation: 'getCdrs', period: 'range', dateStart: `${new Date().toISOString().slice(0, 10)}T00:00:00`, returnAll: false, limit: 1, filters: {} });
		expect(run.error).toBeUndefined();
		expect((run.requests[0].body as IDataObject).date_start).toBe(`${new Date().toISOString().slice(0, 10)} 00:00:00`);
	});
});

describe('UK 999 data is for UK numbers', () => {
	const address = { endUser: 'individual', name: 'Lovelace', premises: '1', thoroughfare: 'Engine Street', locality: 'London', postcode: 'EC1A 1BB' };

	test('Set for a number that is not 44… is refused before the charged request', async () => {
		const run = await runWholesale(sandbox, { resource: 'uk999', operation: 'set', number: '+1 415 555 0100', ...address });
		expectRefused(run, 'Number');
		expect(`${run.error?.message} ${run.error?.description}`).toMatch(/is not a UK number.*999 data is for UK numbers only/);
	});

	test('Set for a UK number is sent', async () => {
		expect((await runWholesale(sandbox, { resource: 'uk999', operation: 'set', number: '+44 1632 960002', ...address })).requests).toHaveLength(1);
	});
});

describe('Notification recipients: numbers in E.164 without the plus', () => {
	const md5 = (text: string) => createHash('md5').update(text).digest('hex');

	test('an SMS recipient typed with + and spaces is sent and hashed as digits', async () => {
		const added = await runWholesale(sandbox, { resource: 'notification', operation: 'addRecipient', type: 'low_balance', method: 'sms', destination: '+44 7700 900123' });
		expect(added.error).toBeUndefined();
		expect(added.requests[0].body).toEqual({ destination: '447700900123' });
		expect(added.json[0]).toMatchObject({ destination: '447700900123', hash: md5('447700900123') });
		const removed = await runWholesale(sandbox, { resource: 'notification', operation: 'removeRecipient', type: 'low_balance', method: 'sms', destination: '+447700900123' });
		expect(removed.error).toBeUndefined();
		expect(removed.requests[0].path).toBe(`/v3/accounts/123456/notifications/low_balance/sms/${md5('447700900123')}`);
	});

	test('the hash the service answers with is kept in the output', async () => {
		server.answer(json(200, { success: true, data: { destination: 'ops@acme.example', hash: 'f'.repeat(32) } }));
		const run = await runScripted({ resource: 'notification', operation: 'addRecipient', type: 'low_balance', method: 'email', destination: 'ops@acme.example' });
		expect(run.json[0]).toMatchObject({ destination: 'ops@acme.example', hash: 'f'.repeat(32) });
		server.answer(json(200, { success: true, data: 'e'.repeat(32) }));
		expect((await runScripted({ resource: 'notification', operation: 'addRecipient', type: 'low_balance', method: 'email', destination: 'ops@acme.example' })).json[0].hash).toBe('e'.repeat(32));
	});
});

describe('E.164 numbers', () => {
	test('seven digits with the country code (Niue, Saint Helena) are valid; 16 are not', () => {
		expect(numberIssue('Number', '6834002')).toEqual([]);
		expect(numberIssue('Number', '+290 2222')).toEqual([]);
		expect(numberIssue('Number', '683400')).toHaveLength(1);
		expect(numberIssue('Number', '4416329600001234')).toHaveLength(1);
	});
});
