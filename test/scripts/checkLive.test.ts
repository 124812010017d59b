/**
 * `npm run check-live` (scripts/check-live/) against the sandbox started in the process: unchanged,
 * every read is ok; with the sandbox's answers drifted (`/_sandbox/drift`), each drift is reported as
 * its kind on its operation and the exit code follows. Only reads leave the check, a refused
 * credential stops it after one request, and no secret reaches its output.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Sandbox } from '../../sandbox';
import type { DriftSpec } from '../../sandbox/core/drift';
import type { CheckResult, OperationReport } from '../../scripts/check-live/check';
import { checkLive } from '../../scripts/check-live/check';
import { APIS, expectedType, plannedReads } from '../../scripts/check-live/expected';
import { NotARead, readOnlyContext, readOnlyRequest } from '../../scripts/check-live/readOnlyHttp';
import { hostedPbxApi } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/apis';
import { createClient } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { fakeClockForFile } from '../harness/clock';
import { sandboxForFile } from '../harness/sandboxForFile';

let sandbox: Sandbox;
sandboxForFile((started) => (sandbox = started));
const time = fakeClockForFile();

const PBX_PASSWORD = 'acme-admin-secret';
const WHOLESALE_PASSWORD = 'wv-demo-123456';

function env(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
	return {
		TELEPHONY_PBX_BASE_URL: `${sandbox.url}/api/v1`,
		TELEPHONY_PBX_USERNAME: 'acme.admin',
		TELEPHONY_PBX_PASSWORD: PBX_PASSWORD,
		TELEPHONY_WHOLESALE_BASE_URL: sandbox.url,
		TELEPHONY_WHOLESALE_API_USERNAME: 'api123456',
		TELEPHONY_WHOLESALE_API_PASSWORD: WHOLESALE_PASSWORD,
		TELEPHONY_WHOLESALE_ACCOUNT_ID: '123456',
		TELEPHONY_PLATFORM_BASE_URL: sandbox.url,
		TELEPHONY_PLATFORM_API_KEY: sandbox.convai.keys.demo('full-access'),
		...overrides,
	};
}

async function run(environment = env()): Promise<CheckResult & { output: string; json: string }> {
	const lines: string[] = [];
	const jsonPath = join(mkdtempSync(join(tmpdir(), 'check-live-')), 'report.json');
	const result = await checkLive({ env: environment, jsonPath, print: (line) => lines.push(line) });
	return { ...result, output: lines.join('\n'), json: result.jsonPath ? readFileSync(jsonPath, 'utf8') : '' };
}

async function drift(spec: DriftSpec): Promise<void> {
	const response = await fetch(`${sandbox.url}/_sandbox/drift`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(spec) });
	expect(response.status).toBe(200);
}

const report = (result: CheckResult, operation: string) => result.reports.find((r) => r.operation === operation) as OperationReport;
const mismatched = (result: CheckResult) => result.reports.filter((r) => r.result === 'mismatch').map((r) => r.operation);

/**
 * The ids no list gives, as a maintainer names them for the sandbox (CONTRIBUTING): numbers of the
 * demo account, a call in progress from the sandbox's admin API; and a webhook, as the demo's
 * active Voice Agent Trigger registers one.
 */
async function idsNamed(): Promise<Record<string, string>> {
	const calls = (await (await fetch(`${sandbox.url}/_sandbox/wholesale/calls?account=123456`)).json()) as { calls: Array<{ call_id: string }> };
	const webhook = await fetch(`${sandbox.url}/convai/v1/webhooks`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${sandbox.convai.keys.demo('full-access')}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ url: 'https://hooks.example.com/agent', event_type: 'conversation.completed' }),
	});
	expect(webhook.status).toBe(201);
	sandbox.context.log.clear();
	return {
		TELEPHONY_CHECK_NUMBER: '441632960001',
		TELEPHONY_CHECK_MOBILE_NUMBER: '447700900123',
		TELEPHONY_CHECK_UK_NUMBER: '441632960001',
		TELEPHONY_CHECK_US_NUMBER: '12025550143',
		TELEPHONY_CHECK_CALL_ID: calls.calls[0].call_id,
	};
}

describe('check-live against the sandbox', () => {
	it('finds every read of the unchanged sandbox ok, none skipped once the ids no list gives are named', async () => {
		const result = await run(env(await idsNamed()));
		expect(result.reports.filter((r) => r.result !== 'ok').map((r) => `${r.operation}: ${r.note ?? r.result}`)).toEqual([]);
		expect(result.exitCode).toBe(0);
		expect(result.reports.map((r) => r.operation).sort()).toEqual(APIS.flatMap(plannedReads).map((read) => read.name).sort());
		expect(result.output).toContain('TELEPHONY_CHECK_NUMBER set');
		// Only GETs reached the platform.
		expect(new Set(sandbox.context.log.list().map((r) => r.method))).toEqual(new Set(['GET']));
	});

	it('without named ids, skips the reads that need them, saying which variable to set; the rest are ok', async () => {
		const result = await run();
		expect(mismatched(result)).toEqual([]);
		expect(result.exitCode).toBe(0);
		const checked = result.reports.filter((r) => r.result === 'ok').map((r) => r.operation);
		// Reads without an id, and reads with the first id a list returned (a customer, an endpoint, a trunk, a recipient...).
		expect(checked).toEqual(expect.arrayContaining(['hostedPbx customer.getAll', 'hostedPbx customer.get', 'hostedPbx endpoint.getDnd', 'hostedPbx phoneNumber.get', 'wholesaleVoice trunk.get', 'wholesaleVoice port.get', 'wholesaleVoice notification.getRecipient', 'voiceAgent webhook.getAll']));
		expect(checked.length).toBeGreaterThanOrEqual(40);
		expect(report(result, 'wholesaleVoice e911.get')).toMatchObject({ result: 'skipped', note: expect.stringContaining('set TELEPHONY_CHECK_US_NUMBER') });
		expect(report(result, 'voiceAgent webhook.get')).toMatchObject({ result: 'skipped', note: expect.stringContaining('TELEPHONY_CHECK_WEBHOOK_ID') });
		expect(result.output.split('\n')[0]).toMatch(/^Hosted PBX API: \d+ reads, at most \d+ requests \(the Hosted PBX allows 1,200 an hour\)/);
		expect(JSON.parse(result.json).reports).toHaveLength(result.reports.length);
		expect(result.output).toContain(`JSON report: ${result.jsonPath}`);
		// Only GETs reached the platform.
		expect(new Set(sandbox.context.log.list().map((r) => r.method))).toEqual(new Set(['GET']));
	});

	it('reports a renamed field as missing (and the new name as information) on that operation', async () => {
		await drift({ api: 'pbx', pathPrefix: '/api/v1/customers/*/creditstatus', rename: { balance: 'creditBalance' } });
		const result = await run();
		expect(mismatched(result)).toEqual(['hostedPbx creditStatus.get']);
		expect(report(result, 'hostedPbx creditStatus.get')).toMatchObject({ missing: ['balance'], newFields: ['creditBalance'], changedType: [] });
		expect(result.exitCode).toBe(1);
	});

	it('reports a number sent as text as a field of another type', async () => {
		await drift({ api: 'pbx', pathPrefix: '/api/v1/customers/*/creditstatus', asText: ['balance'] });
		const result = await run();
		expect(mismatched(result)).toEqual(['hostedPbx creditStatus.get']);
		expect(report(result, 'hostedPbx creditStatus.get')).toMatchObject({ missing: [], changedType: [{ field: 'balance', expected: 'number', found: 'string' }] });
		expect(result.exitCode).toBe(1);
	});

	it('reports an extra field as information only: the exit code stays 0', async () => {
		await drift({ api: 'wholesale', pathPrefix: '/v3/voice/123456/trunks', add: { region: 'eu-west' } });
		const result = await run();
		expect(mismatched(result)).toEqual([]);
		expect(report(result, 'wholesaleVoice trunk.getAll').newFields).toContain('region');
		expect(report(result, 'wholesaleVoice trunk.get').newFields).toContain('region');
		expect(result.exitCode).toBe(0);
	});

	it('reports an endpoint answering 404 as an unexpected status', async () => {
		await drift({ api: 'wholesale', pathPrefix: '/v3/tools/time', status: 404 });
		const result = await run();
		expect(mismatched(result)).toEqual(['wholesaleVoice tool.time']);
		expect(report(result, 'wholesaleVoice tool.time')).toMatchObject({ status: 404, unexpectedStatus: { status: 404 } });
		expect(result.output).toMatch(/wholesaleVoice tool\.time\s+404\s+MISMATCH; unexpected status 404/);
		expect(result.exitCode).toBe(1);
	});

	it('reports a list without its paging link', async () => {
		await drift({ api: 'pbx', pathPrefix: '/api/v1/customers/*/calls', dropPaging: true });
		const result = await run();
		expect(mismatched(result)).toEqual(['hostedPbx call.getAll']);
		expect(report(result, 'hostedPbx call.getAll').paging).toMatch(/no nextPage link/);
		expect(result.exitCode).toBe(1);
	});

	it('reports missing rate headers of the Hosted PBX', async () => {
		const customers = await run();
		expect(report(customers, 'hostedPbx customer.getAll').missing).toEqual([]);
		await fetch(`${sandbox.url}/_sandbox/faults`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ api: 'pbx', pathPrefix: '/api/v1/customers/*/sounds', kind: 'status', status: 200, body: { items: [] }, persist: true }),
		});
		const result = await run();
		expect(report(result, 'hostedPbx sound.getAll')).toMatchObject({ result: 'mismatch', missing: ['header x-ratelimit-limit', 'header x-ratelimit-remaining', 'header x-ratelimit-reset'] });
	});

	it('waits on a 429 as the nodes do (Retry-After), then reads on', async () => {
		await fetch(`${sandbox.url}/_sandbox/faults`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ api: 'pbx', pathPrefix: '/api/v1/customers', kind: 'status', status: 429, headers: { 'Retry-After': '7' }, body: { message: 'Too many requests' } }),
		});
		const started = time.clock.now();
		const result = await time.clock.finish(run(), { stepMs: 1000 });
		const [first, second] = sandbox.context.log.list();
		expect([first.status, second.status, second.path]).toEqual([429, 200, first.path]);
		expect(time.clock.now() - started).toBeGreaterThanOrEqual(7000);
		expect(result.exitCode).toBe(0);
	});

	it('stops after the first request when a credential is refused, naming the variables, without the secret', async () => {
		const canary = 'canary-pw-7f3a9c1e5b';
		const result = await run(env({ TELEPHONY_PBX_PASSWORD: canary }));
		expect(result.exitCode).toBe(2);
		expect(result.stopped).toMatch(/The Hosted PBX API refused the credential \(401\).*TELEPHONY_PBX_PASSWORD.*Nothing more was sent/);
		expect(result.output).toContain('STOPPED: The Hosted PBX API refused the credential (401)');
		expect(sandbox.context.log.list()).toHaveLength(1);
		expect(`${result.output}${result.json}`).not.toContain(canary);
	});

	it('never prints a secret, even one the platform echoes', async () => {
		await drift({ api: 'wholesale', pathPrefix: '/v3/tools/time', add: { note: `password ${WHOLESALE_PASSWORD}`, [PBX_PASSWORD]: 1 } });
		await drift({ api: 'pbx', pathPrefix: '/api/v1/customers/*/sounds', status: 404 });
		const result = await run();
		const everything = `${result.output}${result.json}`;
		for (const secret of [PBX_PASSWORD, WHOLESALE_PASSWORD, sandbox.convai.keys.demo('full-access')]) expect(everything).not.toContain(secret);
	});

	it('refuses an incomplete credential before sending anything', async () => {
		const result = await run(env({ TELEPHONY_WHOLESALE_ACCOUNT_ID: '' }));
		expect(result.exitCode).toBe(2);
		expect(result.output).toContain('Wholesale Voice API: set TELEPHONY_WHOLESALE_ACCOUNT_ID too');
		expect(sandbox.context.log.list()).toHaveLength(0);
	});
});

describe('check-live sends only reads', () => {
	it('refuses a POST before sending it: the server saw nothing', async () => {
		await expect(readOnlyRequest({ method: 'POST', url: `${sandbox.url}/api/v1/customers/me/phonebook`, body: '{}' })).rejects.toThrow(NotARead);
		const credentials = { baseUrl: `${sandbox.url}/api/v1`, username: 'acme.admin', password: PBX_PASSWORD };
		const client = createClient(readOnlyContext(hostedPbxApi, credentials), hostedPbxApi);
		// Through the package's transport, as the check sends: the refusal is a failure of that request.
		await expect(client.request({ method: 'POST', path: '/customers/me/phonebook', body: { name: 'x', phoneNumber: '+447700900123' } })).rejects.toThrow(/POST \/api\/v1\/customers\/me\/phonebook/);
		await expect(client.request({ method: 'DELETE', path: '/customers/me/phonebook/1' })).rejects.toThrow(/DELETE \/api\/v1\/customers\/me\/phonebook\/1/);
		expect(sandbox.context.log.list()).toEqual([]);
	});
});

describe('check-live follows the nodes', () => {
	it('knows the type of every field the nodes read', () => {
		const untyped = APIS.flatMap((api) => plannedReads(api).flatMap((read) => read.reads.filter((field) => !expectedType(read, field)).map((field) => `${read.name}: ${field}`)));
		expect(untyped).toEqual([]);
	});

	it('finds what the trigger reads of the polled lists', () => {
		const reads = plannedReads(APIS[0]);
		const of = (name: string) => reads.find((read) => read.name === name)?.reads ?? [];
		expect(of('hostedPbx sms.getAll')).toEqual(expect.arrayContaining(['direction', 'sendStatus', 'deliveryStatus', 'created', 'from', 'to', 'uri']));
		expect(of('hostedPbx call.getAll')).toEqual(expect.arrayContaining(['direction', 'outcome', 'created']));
		expect(of('hostedPbx creditStatus.get')).toContain('balance');
	});
});
