/**
 * The Wholesale Voice Trigger active in a real n8n, receiving the sandbox's deliveries over
 * HTTP: several apps in `text/json` and as forms, SMS delivery reports with `%id%`/`%status%`
 * in the URL, inbound SMS, refusals (no secret, the platform's networks only, a forged
 * X-Forwarded-For), an unreadable body, and the three recipes of `examples/wholesale/`: a
 * running call log from CDRs, an SMS to the customer on a port status change, and a report
 * collected when its ready callback arrives.
 *
 * The recipes accept only the platform's five networks; here everything comes from 127.0.0.1,
 * so the test's copies use a custom list with 127.0.0.1/32 (the recipes are otherwise unchanged).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { startSandbox, type Sandbox } from '../../sandbox/index';
import { N8nInstance, nodeResult, runError, type N8nRun } from './harness';
import { EXAMPLES_DIR, SandboxAdmin, nodeNamed, sandboxCredentials, wholesaleCredentials } from './sandboxAdmin';

const PKG = 'n8n-nodes-telephony-platform';
const WHOLESALE_DIR = path.join(EXAMPLES_DIR, 'wholesale');
const SMS_PATH = '/api/v1/customers/me/sms';
const SECRET = 'e2e-wholesale-secret-0123456789abcdef';
const LOCAL_ONLY = { sourceNetworks: 'custom', customNetworks: '127.0.0.1/32' };

const ID = {
	callLog: 'tpWsCdrCallLog01',
	portSms: 'tpWsPortStatus01',
	reportRows: 'tpWsReportRows01',
	liveAlerts: 'tpWsLiveAlerts01',
	everything: 'e2eWsAllEvents01',
	platformOnly: 'e2eWsPlatformOn1',
};
const HOOK = {
	callLog: 'a1b2c3d4-0010-4c0d-8e01-000000000001/wholesale-voice',
	portSms: 'a1b2c3d4-0010-4c0d-8e01-000000000002/wholesale-voice',
	reportRows: 'a1b2c3d4-0010-4c0d-8e01-000000000003/wholesale-voice',
	liveAlerts: 'a1b2c3d4-0011-4c0d-8e01-000000000001/wholesale-voice',
	everything: 'e2e00000-0010-4c0d-8e01-0000000000aa/wholesale-voice',
	platformOnly: 'e2e00000-0010-4c0d-8e01-0000000000bb/wholesale-voice',
};

function loadRecipe(file: string): Record<string, any> {
	return JSON.parse(fs.readFileSync(path.join(WHOLESALE_DIR, file), 'utf8')) as Record<string, any>;
}


/** Not a recipe: every event, a query-parameter secret, 127.0.0.1 allowed; a No Op behind it. */
function everythingWorkflow(): Record<string, unknown> {
	return {
		id: ID.everything,
		name: 'e2e: Wholesale Voice Trigger, every event',
		nodes: [
			{
				id: 'wt1', name: 'Wholesale event', type: `${PKG}.wholesaleVoiceTrigger`, typeVersion: 1, position: [0, 0],
				webhookId: HOOK.everything.split('/')[0],
				parameters: { ...LOCAL_ONLY, secretLocation: 'query', queryParameterName: 'token', secret: SECRET, options: {} },
			},
			{ id: 'wt2', name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
		],
		connections: { 'Wholesale event': { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** Not a recipe: the default settings (the platform's five networks only). */
function platformOnlyWorkflow(): Record<string, unknown> {
	return {
		id: ID.platformOnly,
		name: "e2e: Wholesale Voice Trigger, the platform's networks only",
		nodes: [
			{
				id: 'wp1', name: 'Wholesale event', type: `${PKG}.wholesaleVoiceTrigger`, typeVersion: 1, position: [0, 0],
				webhookId: HOOK.platformOnly.split('/')[0], parameters: { options: {} },
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	};
}

describe(`the Wholesale Voice Trigger in a real n8n (target ${process.env.TELEPHONY_N8N_TARGET ?? '2'})`, () => {
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	let n8n: N8nInstance;
	const fileStarted = Date.now();
	const url = (hook: string, query = '') => `${n8n.webhookUrl(hook)}${query}`;

	/** Sends deliveries through the sandbox's admin API; returns their records (status, time taken). */
	const deliver = async (order: Record<string, unknown>) => (await admin.post<{ deliveries: Array<Record<string, any>> }>('/wholesale/deliveries', order)).deliveries;
	/** The trigger's items of each run, oldest run first. */
	const triggerItems = (runs: N8nRun[], node = 'Wholesale event') => runs.map((r) => nodeResult(r, node).json);

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		admin = new SandboxAdmin(sandbox.url);
		await admin.post('/pbx/settings', { smsDelayMs: 50 });
		await admin.post('/wholesale/settings', { reportReadyMs: 300 });

		n8n = await N8nInstance.create();
		await n8n.importCredentials([...sandboxCredentials(sandbox.url), ...wholesaleCredentials(sandbox.url)]);
		// The hourly CDR pull has a Schedule Trigger and a database: test/e2e/cdrPull.e2e.ts runs it.
		const recipes = ['cdr-call-log.json', 'port-status-sms.json', 'report-ready-rows.json', 'cdr-live-alerts.json'].map(loadRecipe);
		for (const recipe of recipes) {
			for (const node of recipe.nodes as Array<Record<string, any>>) {
				if (node.type === `${PKG}.wholesaleVoiceTrigger`) Object.assign(node.parameters, LOCAL_ONLY);
			}
		}
		// The nightly request's callback is this n8n's URL of the Report ready trigger.
		nodeNamed(recipes[2], "Request yesterday's CDRs").parameters.callback = n8n.webhookUrl(HOOK.reportRows);
		await n8n.importWorkflows([...recipes, everythingWorkflow(), platformOnlyWorkflow()]);
		await n8n.start();
		await n8n.setupOwner();
		for (const id of Object.values(ID)) await n8n.activateNow(id);
		// n8n may serve a production webhook seconds after activation answered. An empty POST is
		// refused by the trigger (401 without the secret, 403 off the platform's networks, 400
		// unreadable) and starts nothing; n8n answers 404 until the path is live.
		for (const hook of Object.values(HOOK)) await n8n.waitForWebhook(hook, { method: 'POST' });
	});

	afterAll(async () => {
		await n8n?.dispose();
		await sandbox?.close();
		console.log(`wholesale trigger suite: ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`);
	});

	test('the recipes are workflows of this package and built-in nodes, with fixed ids and the sandbox credentials', () => {
		const files = fs.readdirSync(WHOLESALE_DIR).filter((f) => f.endsWith('.json') && f !== 'sandbox-credentials.json').sort();
		expect(files).toEqual(['cdr-call-log.json', 'cdr-hourly-to-postgres.json', 'cdr-live-alerts.json', 'port-status-sms.json', 'report-ready-rows.json']);
		for (const file of files) {
			const wf = loadRecipe(file);
			expect(wf.id).toMatch(/^[0-9A-Za-z]{16}$/);
			for (const node of wf.nodes as Array<Record<string, any>>) {
				expect(node.type).toMatch(new RegExp(`^(${PKG}\\.|n8n-nodes-base\\.)`));
				if (node.type === `${PKG}.wholesaleVoiceTrigger`) expect(node.parameters.sourceNetworks).toBeUndefined();
				for (const [type, ref] of Object.entries((node.credentials ?? {}) as Record<string, { id: string; name: string }>)) {
					expect([
						['hostedPbxApi', 'sandboxPbxCred01', 'Sandbox Hosted PBX'],
						['wholesaleVoiceApi', 'sandboxWvCred001', 'Sandbox Wholesale Voice'],
						['postgres', 'sandboxPgCred001', 'Sandbox CDR database'],
					]).toContainEqual([type, ref.id, ref.name]);
				}
			}
		}
	});

	test('several apps, text/json and forms: each answered 200 at once and one run with the flat item', async () => {
		const target = url(HOOK.everything);
		const orders = [
			{ app: 'call_inbound', id: 'e2e-call-1', status: 'answered' },
			{ app: 'cdr', id: 'e2e-cdr-form', encoding: 'form' },
			{ app: 'rate_update', id: 'e2e-rate-1' },
			{ app: 'porting', id: 'e2e-port-array', dataForm: 'array', timestampForm: 'plain', status: 'accepted' },
			{ app: 'inprogress_summary', id: 'e2e-summary-detail', form: 'detail' },
			{ app: 'call_blocked', id: 'e2e-blocked', encoding: 'form', timestampForm: 'iso_offset' },
			{ app: 'cdr', id: 'e2e-cdr-multipart', encoding: 'multipart' },
		];
		const records = [];
		for (const order of orders) records.push(...(await deliver({ url: target, query: { token: SECRET }, ...order })));
		records.push(...(await deliver({ url: `${target}?token=${SECRET}&msg=%id%&st=%status%`, app: 'sms_send_status', id: 'e2e-sms-1', statuses: [2, 11] })));
		records.push(...(await deliver({ url: target, query: { token: SECRET }, app: 'sms_inbound', mode: 'http', id: 'e2e-in-1', message: 'Call me back please' })));
		records.push(...(await deliver({ url: target, query: { token: SECRET }, app: 'reports', id: 'f'.repeat(32) })));
		expect(records.map((r) => [r.app, r.status])).toEqual([...orders.map((o) => [o.app, 200]), ['sms_send_status', 200], ['sms_send_status', 200], ['sms_inbound', 200], ['reports', 200]]);
		expect(records.map((r) => String(r.contentType).split(';')[0])).toEqual([
			'text/json', 'application/x-www-form-urlencoded', 'text/json', 'text/json', 'text/json', 'application/x-www-form-urlencoded', 'multipart/form-data',
			'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded',
		]);
		const slowest = Math.max(...records.map((r) => r.elapsedMs as number));
		console.log(`${records.length} deliveries answered, slowest ${slowest} ms`);
		// Answered on receipt, within the platform's delivery timeout (the sandbox's, 10 s); the figure is printed, not judged.
		expect(slowest).toBeLessThan(10_000);

		const runs = await n8n.waitForExecutions(ID.everything, records.length);
		expect(runs.every((r) => runError(r) === undefined)).toBe(true);
		const items = triggerItems(runs).flat();
		const byId = (id: string) => items.filter((i) => i.id === id);
		const rate = records.find((r) => r.app === 'rate_update')!;
		expect(rate.body).toContain('\\/v3\\/accounts\\/123456\\/rates\\/csv\\/default');
		expect(byId('e2e-rate-1')).toEqual([expect.objectContaining({ app: 'rate_update', timestamp: null, eventTimeSource: 'receivedAt', url: `${sandbox.url}/v3/accounts/123456/rates/csv/default` })]);
		expect(byId('e2e-call-1')).toEqual([expect.objectContaining({ app: 'call_inbound', status: 'answered', eventTimeSource: 'timestamp', call_id: expect.any(String), from: expect.any(String) })]);
		expect(byId('e2e-cdr-form')).toEqual([expect.objectContaining({ app: 'cdr', cdr_id: expect.any(String), secs_billed: expect.any(Number), currency: 'GBP' })]);
		expect(byId('e2e-cdr-multipart')).toEqual([expect.objectContaining({ app: 'cdr', cdr_id: expect.any(String), secs_billed: expect.any(Number), currency: 'GBP' })]);
		const [port] = byId('e2e-port-array');
		expect(port).toMatchObject({ app: 'porting', orderid: 40003, status: 'accepted', timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/) });
		expect(port.eventTime).toBe(`${String(port.timestamp).replace(' ', 'T')}Z`);
		expect(port.dataIndex).toBeUndefined();
		expect(byId('e2e-summary-detail')).toEqual([expect.objectContaining({ app: 'inprogress_summary', account: '123456', calls: expect.any(Array), datetimeUtc: expect.any(String) })]);
		expect(byId('e2e-blocked')).toEqual([expect.objectContaining({ app: 'call_blocked', direction: 'out', reason: expect.any(String), timestamp: expect.stringMatching(/\+00:00$/) })]);
		expect(byId('e2e-sms-1').map((i) => [i.status, i.statusName, i.final, i.query])).toEqual([
			[2, 'Submitted', false, { msg: 'e2e-sms-1', st: '2' }],
			[11, 'Delivered', true, { msg: 'e2e-sms-1', st: '11' }],
		]);
		expect(byId('e2e-in-1')).toEqual([expect.objectContaining({ app: 'sms_inbound', message: 'Call me back please', from: '447700900321', eventTimeSource: 'received' })]);
		expect(byId('f'.repeat(32))).toEqual([expect.objectContaining({ app: 'reports', hash: 'f'.repeat(32) })]);
		// Nothing carried the secret into the workflow.
		expect(JSON.stringify(items)).not.toContain(SECRET);
	});

	test('a delivery that starts a run is answered 200 {} by n8n (n8n 2.x once it has stored the execution)', async () => {
		const before = (await n8n.executions(ID.everything)).length;
		const body = { app: 'call_inbound', id: 'e2e-answer-1', timestamp: new Date().toISOString(), data: { call_id: 'e2e-c1', status: 'ringing', from: '447700900123', to: '441632960001' } };
		const res = await fetch(url(HOOK.everything, `?token=${SECRET}`), { method: 'POST', headers: { 'content-type': 'text/json' }, body: JSON.stringify(body) });
		expect({ status: res.status, type: res.headers.get('content-type')?.split(';')[0], body: await res.text() }).toEqual({ status: 200, type: 'application/json', body: '{}' });
		await n8n.waitForExecutions(ID.everything, before + 1);
	});

	test('a retried message (same id) is answered 200 each time and starts one run', async () => {
		const before = (await n8n.executions(ID.everything)).length;
		const records = await deliver({ url: url(HOOK.everything), query: { token: SECRET }, app: 'call_warning', id: 'e2e-retry-1', repeat: 3 });
		expect(records.map((r) => r.status)).toEqual([200, 200, 200]);
		await n8n.waitForExecutions(ID.everything, before + 1);
		await new Promise((r) => setTimeout(r, 1000));
		expect((await n8n.executions(ID.everything)).length).toBe(before + 1);
	});

	test('refusals start nothing: no secret 401, a wrong one 401, not from the platform 403 (a forged X-Forwarded-For too); an unreadable body 400', async () => {
		const before = (await n8n.executions(ID.everything)).length;
		const [none] = await deliver({ url: url(HOOK.everything), app: 'cdr' });
		const [wrong] = await deliver({ url: url(HOOK.everything), query: { token: 'guess' }, app: 'cdr' });
		const [platform] = await deliver({ url: url(HOOK.platformOnly), app: 'cdr' });
		const [forged] = await deliver({ url: url(HOOK.platformOnly), app: 'cdr', headers: { 'X-Forwarded-For': '178.22.139.84' } });
		expect([none.status, wrong.status, platform.status, forged.status]).toEqual([401, 401, 403, 403]);
		expect(JSON.parse(none.responseBody)).toEqual({ error: 'unauthorised' });
		expect(JSON.parse(forged.responseBody)).toEqual({ error: 'forbidden' });
		const broken = await fetch(url(HOOK.everything, `?token=${SECRET}`), { method: 'POST', headers: { 'content-type': 'text/json' }, body: '{"app":"cdr","id":' });
		expect(broken.status).toBe(400);
		expect(await broken.json()).toEqual({ error: expect.stringMatching(/^the body is not valid JSON/) });
		await new Promise((r) => setTimeout(r, 1500));
		expect((await n8n.executions(ID.everything)).length).toBe(before);
		expect(await n8n.executions(ID.platformOnly)).toEqual([]);
		expect(n8n.logs()).toMatch(/Wholesale Voice Trigger refused a delivery with 401: the secret query parameter token was missing/);
		expect(n8n.logs()).toMatch(/Wholesale Voice Trigger refused a delivery with 403: the client address 127\.0\.0\.1 is not in the allowed networks/);
		expect(n8n.logs()).toMatch(/Wholesale Voice Trigger answered 400 to a delivery it could not read: the body is not valid JSON/);
	});

	test('recipe: every finished call (CDR) -> a running call log kept in the workflow static data', async () => {
		const target = url(HOOK.callLog);
		const sent: Array<Record<string, any>> = [];
		for (const [i, encoding] of (['json', 'form', 'json'] as const).entries()) {
			const [record] = await deliver({ url: target, app: 'cdr', encoding, id: `e2e-log-${i}` });
			expect(record.status).toBe(200);
			sent.push(record.document.data);
			// One at a time, as calls end: each run saves the log before the next reads it.
			await n8n.waitForExecutions(ID.callLog, i + 1);
		}
		// The same CDR again under another message id (re-sent once rated): updated, not added.
		await deliver({ url: target, app: 'cdr', id: 'e2e-log-rated', data: { ...sent[2], chg_total: 1.5 } });
		const runs = await n8n.waitForExecutions(ID.callLog, 4);
		expect(runs.every((r) => runError(r) === undefined)).toBe(true);
		const logged = runs.map((r) => nodeResult(r, 'Add to the call log').json[0]);
		expect(logged.map((e) => [e.cdr_id, e.loggedCalls, e.updated])).toEqual([
			[String(sent[0].cdr_id), 1, false],
			[String(sent[1].cdr_id), 2, false],
			[String(sent[2].cdr_id), 3, false],
			[String(sent[2].cdr_id), 3, true],
		]);
		const seconds = sent.reduce((s, c) => s + Number(c.secs_billed), 0);
		const charge = Math.round((Number(sent[0].chg_total) + Number(sent[1].chg_total) + 1.5) * 10000) / 10000;
		expect(logged[3].totals).toEqual({ currency: 'GBP', calls: 3, seconds, charge });
		expect(nodeResult(runs[0], 'Finished call').json[0]).toMatchObject({ app: 'cdr', id: 'e2e-log-0', cdr_id: sent[0].cdr_id });
	});

	test('recipe: port status change -> an SMS to the customer through the Hosted PBX', async () => {
		const since = await admin.lastSeq();
		await admin.post('/wholesale/webhooks', { app: 'porting', url: url(HOOK.portSms), encoding: 'json' });
		// submitted_lcp -> accepted_lcp (nothing to tell), then -> accepted (the date is confirmed).
		await admin.post('/wholesale/ports/40003/advance', {});
		await admin.post('/wholesale/ports/40003/advance', { port_date: '2026-12-04 09:00:00' });
		const [sms] = await admin.waitForRequests({ api: 'pbx', method: 'POST', pathPrefix: SMS_PATH, since }, (r) => r.status === 201 && r.body.to === '+447700900123');
		expect(sms.body).toEqual({
			type: 'smsmessage',
			from: '+441632960001',
			to: '+447700900123',
			body: 'Hi Jane, the move of your number 01134960300 to us is confirmed for 2026-12-04 at 09:00. Your line keeps working meanwhile.',
		});
		const runs = await n8n.waitForExecutions(ID.portSms, 2);
		expect(runs.every((r) => runError(r) === undefined)).toBe(true);
		// The two deliveries may overlap, so n8n may number their executions in either order.
		const statusOf = (run: (typeof runs)[number]) => nodeResult(run, 'Port status changed').json[0].status;
		expect(runs.map(statusOf).sort()).toEqual(['accepted', 'accepted_lcp']);
		expect(nodeResult(runs.find((r) => statusOf(r) === 'accepted_lcp')!, 'Port details').ran).toBe(false);
		expect(nodeResult(runs.find((r) => statusOf(r) === 'accepted')!, 'Port details').json[0]).toMatchObject({ mbn: '01134960300', status: 'accepted' });
		const deliveries = await admin.get<Array<Record<string, any>>>('/wholesale/deliveries?source=porting');
		expect(deliveries.map((d) => [d.app, d.status, d.contentType])).toEqual([
			['porting', 200, 'text/json'],
			['porting', 200, 'text/json'],
		]);
	});

	test('recipe: a blocked call and a call warning, each texted to the team as it happens', async () => {
		const since = await admin.lastSeq();
		await admin.post('/wholesale/deliveries', { url: url(HOOK.liveAlerts), app: 'call_blocked' });
		await admin.post('/wholesale/deliveries', { url: url(HOOK.liveAlerts), app: 'call_warning' });
		const texts = await admin.waitForRequests({ api: 'pbx', method: 'POST', pathPrefix: SMS_PATH, since }, (r) => r.status === 201 && r.body.to === '+447700900999', { count: 2 });
		expect(texts.map((r) => r.body.body).sort()).toEqual([expect.stringMatching(/^Blocked call \+?\d+ -> \+?\d+: trunk limit/), expect.stringMatching(/^Call warning \S* -> \+?\d+: invalid CLI/)]);
		const runs = await n8n.waitForExecutions(ID.liveAlerts, 2);
		expect(runs.every((r) => runError(r) === undefined)).toBe(true);
	});

	test('recipe: report ready -> the report collected in the execution -> totals per destination', async () => {
		const auth = { authorization: `Basic ${Buffer.from('api123456:wv-demo-123456').toString('base64')}`, 'content-type': 'application/json' };
		// What the nightly branch sends: a report request with the trigger's URL as its callback.
		const response = await fetch(`${sandbox.url}/v3/accounts/123456/reports/voice/cdr/latest/100`, {
			method: 'POST',
			headers: auth,
			body: JSON.stringify({ callback: n8n.webhookUrl(HOOK.reportRows) }),
		});
		const { hash } = (await response.json()) as { hash: string };
		const [run] = await n8n.waitForExecutions(ID.reportRows, 1);
		expect(runError(run)).toBeUndefined();
		const rows = nodeResult(run, 'Report ready').json;
		expect(rows).toHaveLength(100);
		expect(rows[0]).toMatchObject({ call_id: expect.any(String), cdr_id: expect.any(String), todesc: expect.any(String) });
		const totals = nodeResult(run, 'Totals per destination').json;
		expect(totals.reduce((s, t) => s + Number(t.calls), 0)).toBe(100);
		expect(nodeResult(run, 'Collection failed').ran).toBe(false);
		const callback = (await admin.get<Array<Record<string, any>>>('/wholesale/deliveries?source=report')).find((d) => d.messageId === hash);
		expect(callback).toMatchObject({ status: 200, outcome: 'delivered' });
		console.log(`report callback answered in ${callback?.elapsedMs} ms`);
		const reports = await admin.get<{ reports: Array<Record<string, any>> }>('/wholesale/reports');
		expect(reports.reports.find((r) => r.hash === hash)).toMatchObject({ state: 'collected' });
		const gets = (await admin.requests({ api: 'wholesale', method: 'GET', pathPrefix: `/v3/files/123456/${hash}` })).map((r) => r.status);
		expect(gets).toEqual([200]);

		// The callback again (a retry, or an identical report run again with the same hash) is not
		// dropped: this file is gone, so the run carries the handle and the reason to "Collection failed".
		await deliver({ url: url(HOOK.reportRows), app: 'reports', id: hash });
		const [, failed] = await n8n.waitForExecutions(ID.reportRows, 2);
		expect(nodeResult(failed, 'Collection failed').json).toEqual([
			expect.objectContaining({ app: 'reports', hash, collected: false, error: expect.stringMatching(/is gone: it was already collected/) }),
		]);
		expect((await admin.requests({ api: 'wholesale', method: 'GET', pathPrefix: `/v3/files/123456/${hash}` })).map((r) => r.status)).toEqual([200, 404]);
	});

	test('n8n logged no activation or trigger problem', () => {
		expect(n8n.logs()).not.toMatch(/There was a problem (activating|with the trigger)|Failed to load package|Error loading/i);
	});
});
