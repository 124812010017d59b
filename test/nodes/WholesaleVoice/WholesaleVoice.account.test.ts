/**
 * Wholesale Voice node, part 1: tools, account, invoices, prepay, rates, reports, summary,
 * notifications, voice, CDRs and trunks, against the sandbox.
 */
import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { trunkRecords } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/actions/trunk';
import { fakeClockForFile } from '../../harness/clock';
import { listSearch } from './loadOptionsKit';
import { expectRefused, operationCoverage, runWholesale } from './wholesaleKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());
// Reports run on it: the node waits for a report on it, the sandbox makes the report ready on it.
const time = fakeClockForFile();

const PART_ONE = ['tool', 'account', 'invoice', 'prepay', 'rate', 'report', 'summary', 'notification', 'voice', 'trunk'];
const op = operationCoverage(PART_ONE);

async function admin(path: string, body?: unknown) {
	const response = await fetch(`${sandbox.url}/_sandbox/wholesale${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body ?? {}),
	});
	return (await response.json()) as IDataObject;
}

const today = () => new Date().toISOString().slice(0, 10);
/** A whole day of seeded calls (today has none yet in the first minutes after midnight UTC). */
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

describe('Tools and account', () => {
	test('my IP, time, explain', async () => {
		const ip = await runWholesale(sandbox, op('tool', 'myIp'));
		expect(ip.requests[0]).toMatchObject({ method: 'GET', path: '/v3/tools/myip' });
		expect(ip.json[0]).toEqual({ ip: '127.0.0.1' });
		const time = await runWholesale(sandbox, op('tool', 'time'));
		expect(time.json[0]).toMatchObject({ timestamp: expect.any(Number), rfc: expect.any(String) });
		const explain = await runWholesale(sandbox, op('tool', 'explain'));
		expect(explain.requests[0].path).toBe('/v3/tools/explain');
		expect(explain.json).toHaveLength(1);
	});

	test('get the account type; developer -> startup is sent, other types are refused before sending', async () => {
		const type = await runWholesale(sandbox, op('account', 'getType'));
		expect(type.requests[0].path).toBe('/v3/accounts/123456/type');
		expect(type.json[0]).toMatchObject({ account_type: 'developer', channel_limit: expect.any(Number) });
		const set = await runWholesale(sandbox, { ...op('account', 'setType'), accountType: 'startup' });
		expect(set.requests[0]).toMatchObject({ method: 'PUT', body: { account_type: 'startup' } });
		expect(set.error).toBeUndefined();
		expectRefused(await runWholesale(sandbox, { resource: 'account', operation: 'setType', accountType: 'managed_interconnect' }), 'Account Type');
	});
});

describe('Invoices and prepay', () => {
	test('invoices: get many unwraps the list; download gives the PDF', async () => {
		const all = await runWholesale(sandbox, { ...op('invoice', 'getAll'), status: 'all', returnAll: true, output: 'raw' });
		expect(all.requests[0].path).toBe('/v3/accounts/123456/credit/invoices/all');
		expect(all.json.length).toBeGreaterThan(1);
		expect(all.json[0]).toMatchObject({ InvoiceNumber: expect.any(String), AmountDue: expect.any(String) });
		// The account's totals due are the envelope's: Raw gives each invoice as answered, without them.
		expect(all.json.some((invoice) => 'TotalDue' in invoice || 'TotalOverDue' in invoice)).toBe(false);
		const limited = await runWholesale(sandbox, { resource: 'invoice', operation: 'getAll', status: 'all', returnAll: false, limit: 1 });
		expect(limited.json).toHaveLength(1);

		const number = String(all.json[0].InvoiceNumber);
		const pdf = await runWholesale(sandbox, { ...op('invoice', 'download'), invoiceNumber: number, binaryPropertyName: 'invoice' });
		expect(pdf.requests[0].path).toBe(`/v3/accounts/123456/credit/invoices/${number}.pdf`);
		const bytes = pdf.binary(0, 'invoice');
		expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
		expect(bytes.toString('latin1')).toMatch(/%%EOF\s*$/);
		expect(pdf.items[0].binary?.invoice).toMatchObject({ mimeType: 'application/pdf', fileName: `invoice-${number}.pdf` });
	});

	test('balance, alert, lock: reads and writes', async () => {
		expect((await runWholesale(sandbox, op('prepay', 'getBalance'))).json[0]).toMatchObject({ balance: expect.any(String), currency: 'GBP' });
		const alert = await runWholesale(sandbox, { ...op('prepay', 'setBalanceAlert'), alertBalance: 25 });
		expect(alert.requests[0]).toMatchObject({ method: 'PUT', path: '/v3/accounts/123456/prepay/balance/alert', body: { alert_balance: 25 } });
		expect((await runWholesale(sandbox, op('prepay', 'getBalanceAlert'))).json[0]).toMatchObject({ alert_balance: 25 });
		const lock = await runWholesale(sandbox, { ...op('prepay', 'setLockedBalance'), balance: 10 });
		expect(lock.requests[0].body).toEqual({ balance: 10 });
		expect((await runWholesale(sandbox, op('prepay', 'getLockedBalance'))).json[0]).toMatchObject({ locked: 10 });
		const unlock = await runWholesale(sandbox, op('prepay', 'removeLockedBalance'));
		expect(unlock.requests[0].method).toBe('DELETE');
		expectRefused(await runWholesale(sandbox, { resource: 'prepay', operation: 'setBalanceAlert', alertBalance: -5 }), 'Alert Balance');
	});

	test('prepayments and transfers: all or latest', async () => {
		const latest = await runWholesale(sandbox, { ...op('prepay', 'getPrepayments'), which: 'latest/10' });
		expect(latest.requests[0].path).toBe('/v3/accounts/123456/prepay/prepayments/latest/10');
		expect(latest.json).toHaveLength(10);
		const transfers = await runWholesale(sandbox, { ...op('prepay', 'getTransfers'), which: 'all' });
		expect(transfers.json.length).toBeGreaterThan(0);
	});

	test('prepay summary report: requested, waited for, collected once, rows out', async () => {
		await admin('/settings', { reportReadyMs: 300 });
		const run = await time.clock.finish(runWholesale(sandbox, { ...op('prepay', 'requestSummary'), fromDate: today(), toDate: today(), waitForResult: true, maxWaitSeconds: 30, callback: '' }));
		expect(run.error).toBeUndefined();
		expect(run.requests[0]).toMatchObject({ method: 'POST', path: '/v3/accounts/123456/prepay/summary', body: { from_date: today(), to_date: today() } });
		expect(run.requests.filter((r) => r.path.startsWith('/v3/files/') && r.status === 200)).toHaveLength(1);
		expect(run.json[0]).toMatchObject({ date: today(), closing_balance: expect.anything() });
	});
});

describe('Rates', () => {
	test('tariffs, rate card as file and rows, destination rate', async () => {
		const tariffs = await runWholesale(sandbox, { ...op('rate', 'getTariffs'), output: 'raw' });
		expect(tariffs.json[0]).toMatchObject({ description: expect.any(String), url: expect.any(String) });
		const card = await runWholesale(sandbox, { ...op('rate', 'getRateCard'), deck: 'default', format: 'both', binaryPropertyName: 'data' });
		expect(card.requests[0]).toMatchObject({ path: '/v3/accounts/123456/rates/csv/default', headers: expect.objectContaining({ accept: 'text/csv' }) });
		expect(card.items[0].binary?.data).toMatchObject({ mimeType: 'text/csv', fileName: 'rate-card-default.csv' });
		expect(card.binary().toString().split('\n')[0]).toMatch(/^Effective: /);
		const rows = card.json.slice(1);
		expect(rows.length).toBeGreaterThan(50);
		expect(rows.some((r) => String(r.location).includes(','))).toBe(true);
		expect(rows[0]).toMatchObject({ prefix: expect.any(String), day: expect.any(String), effective: card.json[0].effective });
		const rate = await runWholesale(sandbox, { ...op('rate', 'getDestinationRate'), number: '+44 7700 900123', output: 'raw' });
		expect(rate.requests[0].path).toBe('/v3/accounts/123456/rate/447700900123');
		expect(rate.json[0]).toMatchObject({ desc: expect.any(String), rates: expect.any(Object) });
		expectRefused(await runWholesale(sandbox, { resource: 'rate', operation: 'getDestinationRate', number: 'abc' }), 'Number');
	});
});

describe('Reports and summary', () => {
	test('voice CDR report of a day: 204 while running, then collected exactly once', async () => {
		await admin('/settings', { reportReadyMs: 2500 });
		const run = await time.clock.finish(runWholesale(sandbox, { ...op('report', 'request'), reportType: 'voiceCdrDay', date: yesterday(), waitForResult: true, maxWaitSeconds: 30, includeRawFile: true, binaryPropertyName: 'file', callback: '' }));
		expect(run.error).toBeUndefined();
		const files = run.requests.filter((r) => r.path.startsWith('/v3/files/'));
		// The first poll comes before the report is ready on the clock: always at least one 204.
		expect(files[0].status).toBe(204);
		expect(files.slice(0, -1).every((r) => r.status === 204)).toBe(true);
		expect(files.at(-1)?.status).toBe(200);
		expect(files.filter((r) => r.status === 200)).toHaveLength(1);
		expect(run.json.length).toBeGreaterThan(0);
		expect(run.json[0]).toMatchObject({ call_id: expect.any(String), secs_billed: expect.any(Number) });
		expect(run.items[0].binary?.file.mimeType).toMatch(/json/);
		const hash = files[0].path.split('/').pop()!;
		const again = await runWholesale(sandbox, { ...op('report', 'getFile'), hash, includeRawFile: false });
		expect(again.error?.message).toMatch(new RegExp(`Report file ${hash} is gone: it was already collected`));
	});

	test('identical requests while uncollected share one report; waiting off outputs the handle', async () => {
		await admin('/settings', { reportReadyMs: 60_000 });
		const first = await runWholesale(sandbox, { resource: 'report', operation: 'request', reportType: 'voiceCdrLatest', latest: '100', waitForResult: false, callback: '' });
		const second = await runWholesale(sandbox, { resource: 'report', operation: 'request', reportType: 'voiceCdrLatest', latest: '100', waitForResult: false, callback: '' });
		expect(first.requests[0].path).toBe('/v3/accounts/123456/reports/voice/cdr/latest/100');
		expect(first.json[0]).toMatchObject({ hash: expect.stringMatching(/^[0-9a-f]{32}$/), link: expect.stringMatching(/^\/v3\/files\/123456\//) });
		expect(second.json[0].hash).toBe(first.json[0].hash);
		const notYet = await runWholesale(sandbox, { resource: 'report', operation: 'getFile', hash: String(first.json[0].hash) });
		expect(notYet.json[0]).toMatchObject({ ready: false });
	});

	test('a file whose rows cannot be read still reaches the output, as the raw file', async () => {
		await admin('/settings', { reportReadyMs: 200 });
		await admin('/reports/next', { malformed: true });
		const run = await time.clock.finish(runWholesale(sandbox, { resource: 'report', operation: 'request', reportType: 'smsCdrDay', date: today(), waitForResult: true, maxWaitSeconds: 20, callback: '' }));
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ collected: true, rows: null, parseError: expect.stringMatching(/could not be read/) });
		expect(run.binary().length).toBeGreaterThan(0);
	});

	test('not ready within the wait: a clear error with the hash to collect it later', async () => {
		await admin('/settings', { reportReadyMs: 60_000 });
		const run = await time.clock.finish(runWholesale(sandbox, { resource: 'report', operation: 'request', reportType: 'voiceSummaryIn', date: today(), waitForResult: true, maxWaitSeconds: 5, callback: '' }));
		expect(run.error?.message).toMatch(/^Report [0-9a-f]{32} was not ready within 5 s$/);
		expect(run.error?.description).toMatch(/Report > Get File with hash/);
	});

	test('list uncollected files', async () => {
		await admin('/settings', { reportReadyMs: 1000 });
		await runWholesale(sandbox, { resource: 'report', operation: 'request', reportType: 'voiceSummaryOut', date: today(), waitForResult: false, callback: '' });
		await time.clock.advance(1000);
		const files = await runWholesale(sandbox, op('report', 'listFiles'));
		expect(files.json[0]).toMatchObject({ hash: expect.stringMatching(/^[0-9a-f]{32}$/), content_type: expect.any(String) });
	});

	test('a date from the picker is the day picked, wherever n8n runs (here an hour or two ahead of UTC)', async () => {
		const zone = process.env.TZ;
		process.env.TZ = 'Europe/Berlin';
		try {
			const run = await runWholesale(sandbox, { resource: 'report', operation: 'request', reportType: 'voiceSummaryOut', date: `${today()}T00:00:00`, waitForResult: false, callback: '' });
			expect(run.requests[0].body).toEqual({ date: today() });
			const cdr = await runWholesale(sandbox, { ...op('voice', 'getCdrs'), period: 'day', day: `${today()}T00:00:00.000+02:00` }, { continueOnFail: true });
			expect(cdr.requests[0].path).toBe(`/v3/voice/123456/cdr/${today()}`);
		} finally {
			process.env.TZ = zone;
		}
	});

	test('report dates out of range and latest-N are checked before sending', async () => {
		expectRefused(await runWholesale(sandbox, { resource: 'report', operation: 'request', reportType: 'voiceCdrDay', date: '2020-01-01', waitForResult: false }), 'Date');
		expectRefused(await runWholesale(sandbox, { resource: 'report', operation: 'request', reportType: 'smsCdrLatest', latest: '50', waitForResult: false }), 'Latest');
	});

	test('inline summary: direction and key in the path, parameters as a JSON body', async () => {
		const run = await runWholesale(sandbox, {
			...op('summary', 'get'),
			direction: 'out',
			key: 'destination',
			additionalFields: { maxResults: 5, sort: 'calls', filter: { pairs: [{ name: 'toISO', value: 'GB' }] } },
		});
		expect(run.error).toBeUndefined();
		expect(run.requests[0]).toMatchObject({ method: 'POST', path: '/v3/accounts/123456/summary/out/destination', body: { limit: 5, sort: 'calls', filter: { toISO: 'GB' } } });
		expect(run.json.length).toBeLessThanOrEqual(5);
	});
});

describe('CDR by reference', () => {
	test('sends the day and reference; the contract\'s "temporarily unavailable" answer is said in the error', async () => {
		const day = new Date().toISOString().slice(0, 10);
		const run = await runWholesale(sandbox, { ...op('voice', 'getCdr'), day, reference: 'ref-42' });
		expect(run.requests[0]).toMatchObject({ method: 'GET', path: `/v3/voice/123456/cdr/${day}/ref-42` });
		expect(run.error?.message).toMatch(/temporarily unavailable at the Wholesale Voice API; it answered 503/);
		expect(run.error?.description).toMatch(/Get CDRs/);
		const bad = await runWholesale(sandbox, { ...op('voice', 'getCdr'), day: 'yesterday', reference: 'ref-42' });
		expect(bad.requests).toHaveLength(0);
	});
});

describe('Notifications', () => {
	test('types, recipients, add and remove (md5 of the address), history', async () => {
		expect((await runWholesale(sandbox, op('notification', 'getAll'))).error).toBeUndefined();
		const types = await runWholesale(sandbox, op('notification', 'getAvailableTypes'));
		expect(types.json.length).toBeGreaterThan(0);
		const added = await runWholesale(sandbox, { ...op('notification', 'addRecipient'), type: 'low_balance', method: 'email', destination: 'finance@acme.example' });
		expect(added.requests[0]).toMatchObject({ method: 'POST', path: '/v3/accounts/123456/notifications/low_balance/email', body: { destination: 'finance@acme.example' } });
		const hash = createHash('md5').update('finance@acme.example').digest('hex');
		expect(added.json[0].hash).toBe(hash);
		const recipients = await runWholesale(sandbox, { ...op('notification', 'getRecipients'), type: 'low_balance' });
		expect(JSON.stringify(recipients.json)).toContain('finance@acme.example');
		const byMethod = await runWholesale(sandbox, { ...op('notification', 'getRecipientsByMethod'), type: 'low_balance', method: 'email' });
		expect(byMethod.requests[0]).toMatchObject({ method: 'GET', path: '/v3/accounts/123456/notifications/low_balance/email' });
		expect(JSON.stringify(byMethod.json)).toContain('finance@acme.example');
		const one = await runWholesale(sandbox, { ...op('notification', 'getRecipient'), type: 'low_balance', method: 'email', destination: 'finance@acme.example' });
		expect(one.requests[0]).toMatchObject({ method: 'GET', path: `/v3/accounts/123456/notifications/low_balance/email/${hash}` });
		expect(one.json[0]).toMatchObject({ type: 'low_balance', method: 'email', destination: 'finance@acme.example', hash });
		const removed = await runWholesale(sandbox, { ...op('notification', 'removeRecipient'), type: 'low_balance', method: 'email', destination: 'finance@acme.example' });
		expect(removed.requests[0]).toMatchObject({ method: 'DELETE', path: `/v3/accounts/123456/notifications/low_balance/email/${hash}` });
		const all = await runWholesale(sandbox, { ...op('notification', 'removeAll'), type: 'trunk' });
		expect(all.requests[0]).toMatchObject({ method: 'DELETE', path: '/v3/accounts/123456/notifications/trunk' });
		const history = await runWholesale(sandbox, { ...op('notification', 'getHistory'), filters: { class: 'billing' } });
		expect(history.requests[0].query).toMatchObject({ class: 'billing' });
		expect(JSON.stringify(history.json)).not.toMatch(/password"\s*:\s*"(?!#)/);
	});

	test('recipients by method or type: one item per recipient, shaped as Get Recipient, whatever the shape of the answer', async () => {
		const hash = createHash('md5').update('finance@acme.example').digest('hex');
		const opsHash = createHash('md5').update('ops@acme.example').digest('hex');
		const smsHash = createHash('md5').update('447700900123').digest('hex');
		await runWholesale(sandbox, { resource: 'notification', operation: 'addRecipient', type: 'low_balance', method: 'email', destination: 'finance@acme.example' });
		const one = await runWholesale(sandbox, { resource: 'notification', operation: 'getRecipient', type: 'low_balance', method: 'email', destination: 'finance@acme.example' });
		const record = { type: 'low_balance', method: 'email', destination: 'finance@acme.example', hash };
		expect(one.json).toEqual([record]);
		const byMethod = (answer?: unknown) => {
			if (answer !== undefined) sandbox.context.faults.add({ api: 'wholesale', method: 'GET', pathPrefix: '/v3/accounts/123456/notifications/low_balance/email', status: 200, body: answer });
			return runWholesale(sandbox, { ...op('notification', 'getRecipientsByMethod'), type: 'low_balance', method: 'email' });
		};
		// The sandbox's list of records (with its seeded recipients).
		const listed = (await byMethod()).json;
		expect(listed).toContainEqual(record);
		for (const item of listed) expect(Object.keys(item).sort()).toEqual(['destination', 'hash', 'method', 'type']);
		// A map of hash to address, bare or in its envelope: each entry a recipient; empty, none.
		const map = { [hash]: 'finance@acme.example', [opsHash]: 'ops@acme.example' };
		const fromMap = [record, { ...record, destination: 'ops@acme.example', hash: opsHash }];
		expect((await byMethod(map)).json).toEqual(fromMap);
		expect((await byMethod({ success: true, data: map })).json).toEqual(fromMap);
		expect((await byMethod({})).json).toEqual([]);
		expect((await byMethod({ success: true, data: [] })).json).toEqual([]);
		// A list of addresses, and records keyed by hash.
		expect((await byMethod(['finance@acme.example'])).json).toEqual([record]);
		expect((await byMethod({ [hash]: { destination: 'finance@acme.example', added: '2026-03-01' } })).json).toEqual([{ ...record, added: '2026-03-01' }]);
		// Get Recipient reads the map form as the same record.
		sandbox.context.faults.add({ api: 'wholesale', method: 'GET', pathPrefix: `/v3/accounts/123456/notifications/low_balance/email/${hash}`, status: 200, body: { [hash]: 'finance@acme.example' } });
		expect((await runWholesale(sandbox, { resource: 'notification', operation: 'getRecipient', type: 'low_balance', method: 'email', destination: 'finance@acme.example' })).json).toEqual([record]);
		// A whole type keyed by method: each recipient with its method.
		sandbox.context.faults.add({ api: 'wholesale', method: 'GET', pathPrefix: '/v3/accounts/123456/notifications/low_balance', status: 200, body: { email: { [hash]: 'finance@acme.example' }, sms: { [smsHash]: '447700900123' } } });
		expect((await runWholesale(sandbox, { resource: 'notification', operation: 'getRecipients', type: 'low_balance' })).json).toEqual([
			record,
			{ type: 'low_balance', method: 'sms', destination: '447700900123', hash: smsHash },
		]);
	});

	test('recipients and history windows are checked before sending', async () => {
		expectRefused(await runWholesale(sandbox, { resource: 'notification', operation: 'addRecipient', type: 'low_balance', method: 'sms', destination: '07700 900123' }), 'Recipient');
		expectRefused(await runWholesale(sandbox, { resource: 'notification', operation: 'getHistory', filters: { dateStart: '2020-01-01T00:00:00Z' } }), 'Filters > Date Start');
	});
});

describe('Voice', () => {
	test('limits, channels, channel history with an interval', async () => {
		const limits = await runWholesale(sandbox, op('voice', 'getLimits'));
		expect(limits.json[0]).toMatchObject({ channel_allocation: expect.any(Number) });
		expect((await runWholesale(sandbox, op('voice', 'getCurrentChannels'))).json).toHaveLength(1);
		const history = await runWholesale(sandbox, { ...op('voice', 'getChannelHistory'), interval: '1h' });
		expect(history.requests[0].query).toEqual({ interval: '1h' });
		expect(history.json).toHaveLength(24);
	});

	test('set limits: read the allocation, check in + out, then write', async () => {
		const limits = (await runWholesale(sandbox, { resource: 'voice', operation: 'getLimits' })).json[0];
		const allocation = Number(limits.channel_allocation);
		const wrong = await runWholesale(sandbox, { ...op('voice', 'setLimits'), limitIn: 1, limitOut: allocation });
		expect(wrong.error?.message).toMatch(/^Invalid /);
		expect(wrong.requests.map((r) => r.method)).toEqual(['GET']);
		const right = await runWholesale(sandbox, { resource: 'voice', operation: 'setLimits', limitIn: 2, limitOut: allocation - 2 });
		expect(right.error).toBeUndefined();
		expect(right.requests.at(-1)).toMatchObject({ method: 'PUT', body: { limit_concurrent_in: 2, limit_concurrent_out: allocation - 2 } });
	});

	test('calls in progress as answered (maps kept), one item per destination, one call, hang up', async () => {
		const summary = await runWholesale(sandbox, { ...op('voice', 'getCallsInProgress'), view: 'summary', output: 'raw' });
		const record = summary.json[0];
		expect([Array.isArray(record.calls), Array.isArray(record.countries)]).toEqual([false, false]);
		const perDestination = await runWholesale(sandbox, { resource: 'voice', operation: 'getCallsInProgress', view: 'destinations' });
		expect(perDestination.json.map((d) => d.id)).toEqual(Object.keys(record.calls as IDataObject));
		const { calls } = (await fetch(`${sandbox.url}/_sandbox/wholesale/calls`).then((r) => r.json())) as { calls: IDataObject[] };
		const callId = String(calls[0].call_id);
		expect((await runWholesale(sandbox, { ...op('voice', 'getCallInProgress'), callId })).json[0]).toMatchObject({ call_id: callId });
		const hangUp = await runWholesale(sandbox, { ...op('voice', 'hangUp'), callId });
		expect(hangUp.requests[0]).toMatchObject({ method: 'DELETE', path: `/v3/voice/123456/inprogress/${callId}` });
		expect(hangUp.json[0]).toMatchObject({ success: true, callId });
	});

	test('CDRs: time range with filter, offset paging for Return All, window checked', async () => {
		// From two days back: the default (the start of today) holds few calls just after midnight.
		const limited = await runWholesale(sandbox, { ...op('voice', 'getCdrs'), period: 'range', dateStart: new Date(Date.now() - 2 * 86_400_000).toISOString(), returnAll: false, limit: 30, filters: {} });
		expect(limited.error).toBeUndefined();
		expect(limited.json).toHaveLength(30);
		expect(limited.requests[0]).toMatchObject({ method: 'POST', path: '/v3/voice/123456/cdr', body: { start: 0, limit: 30 } });
		const all = await runWholesale(sandbox, {
			resource: 'voice',
			operation: 'getCdrs',
			period: 'range',
			dateStart: new Date(Date.now() - 7 * 86_400_000).toISOString(),
			returnAll: true,
			output: 'raw',
			filters: { toISO: 'GB' },
		});
		expect(all.requests.length).toBeGreaterThan(1);
		expect(all.requests.map((r) => (r.body as IDataObject).start)).toEqual(all.requests.map((_r, i) => i * 500));
		expect(all.requests[0].body).toMatchObject({ filter: { toISO: 'GB' }, date_start: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/) });
		expect(all.json.every((c) => c.iso === 'GB')).toBe(true);
		const day = await runWholesale(sandbox, { resource: 'voice', operation: 'getCdrs', period: 'day', day: today(), returnAll: false, limit: 5, filters: {} });
		expect(day.requests[0].path).toBe(`/v3/voice/123456/cdr/${today()}`);
		expectRefused(await runWholesale(sandbox, { resource: 'voice', operation: 'getCdrs', period: 'range', dateStart: '2020-01-01 00:00:00', returnAll: true }), 'Date Start');
	});

	test('rejected calls: all and one reason', async () => {
		const all = await runWholesale(sandbox, { ...op('voice', 'getRejectedCalls'), reason: '', returnAll: true });
		expect(all.requests[0].path).toBe('/v3/voice/123456/rejected');
		const reason = await runWholesale(sandbox, { resource: 'voice', operation: 'getRejectedCalls', reason: 'maxcost', returnAll: true });
		expect(reason.requests[0].path).toBe('/v3/voice/123456/rejected/maxcost');
		expect(reason.json.every((r) => JSON.stringify(r).includes('maxcost'))).toBe(true);
	});
});

describe('Trunks', () => {
	test('the trunk list search offers the account\'s trunks by full name, filtered by text; a picked trunk is used as is', async () => {
		const all = await listSearch(sandbox, 'searchTrunks');
		const names = all.results.map((r) => r.value);
		expect(names).toEqual(expect.arrayContaining(['123456-L001', '123456-office']));
		expect(all.results.every((r) => r.name === r.value)).toBe(true);
		expect((await listSearch(sandbox, 'searchTrunks', 'OFF')).results.map((r) => r.value)).toEqual(['123456-office']);
		const got = await runWholesale(sandbox, { ...op('trunk', 'get'), trunk: { __rl: true, mode: 'list', value: '123456-office' } });
		expect(got.requests[0]).toMatchObject({ method: 'GET', path: '/v3/voice/123456/trunks/123456-office' });
	});

	test('a trunk list of records, of bare names or keyed by name gives one record each, named in `trunk` where the answer gave no record', () => {
		const records = (body: unknown) => trunkRecords({ status: 200, headers: {}, body });
		expect(records(['123456-L001', '123456-office'])).toEqual([{ trunk: '123456-L001' }, { trunk: '123456-office' }]);
		expect(records({ success: true, data: [{ name: '123456-L001', enabled: 1 }] })).toEqual([{ name: '123456-L001', enabled: 1 }]);
		expect(records({ success: true, data: [{ trunk: '123456-L001', enabled: 1 }] })).toEqual([{ trunk: '123456-L001', enabled: 1 }]);
		expect(records({ '123456-L001': { enabled: 1 }, '123456-office': 'active' })).toEqual([{ trunk: '123456-L001', enabled: 1 }, { trunk: '123456-office', value: 'active' }]);
	});

	test('create an auth trunk: the one-time password is in the output, never again', async () => {
		const created = await runWholesale(sandbox, { ...op('trunk', 'create'), trunk: 'n8n', type: 'auth' });
		// The GET first: a trunk of that name would be refused, not updated.
		expect(created.requests.map((r) => r.method)).toEqual(['GET', 'PUT']);
		expect(created.requests[1]).toMatchObject({ method: 'PUT', path: '/v3/voice/123456/trunks/123456-n8n', body: { type: 'auth' } });
		expect(created.json[0]).toMatchObject({ password: expect.any(String) });
		const got = await runWholesale(sandbox, { ...op('trunk', 'get'), trunk: '123456-n8n' });
		expect(got.json[0].password).toBeUndefined();
		expect((await runWholesale(sandbox, { ...op('trunk', 'getAll'), returnAll: true })).json.length).toBeGreaterThan(2);
	});

	test('update: switches as 1/0, limits, empty limit as null; rate-limit syntax checked first', async () => {
		const run = await runWholesale(sandbox, {
			...op('trunk', 'update'),
			trunk: 'office',
			options: { enabled_out: false, limit_concurrent_out: '5', limit_rate_out: '3/10s', limit_concurrent_in: '' },
		});
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => r.method)).toEqual(['GET', 'PUT']);
		expect(run.requests[1].body).toEqual({ enabled_out: 0, limit_concurrent_out: 5, limit_rate_out: '3/10s', limit_concurrent_in: null });
		expectRefused(await runWholesale(sandbox, { resource: 'trunk', operation: 'update', trunk: 'office', options: { limit_rate_out: '5 per minute' } }), 'Options > Rate Limit: Outbound');
	});

	test('update: a limit typed as the text null is no limit ("or null for no limit"), as ={{ null }} is', async () => {
		const run = await runWholesale(sandbox, {
			...op('trunk', 'update'),
			trunk: 'office',
			options: { limit_concurrent_out: 'null', limit_concurrent_in: ' NULL ', limit_concurrent_out_per_number: null, limit_rate_out: 'null' },
		});
		expect(run.error).toBeUndefined();
		expect(run.requests[1]).toMatchObject({ method: 'PUT', path: '/v3/voice/123456/trunks/123456-office' });
		expect(run.requests[1].body).toEqual({ limit_concurrent_out: null, limit_concurrent_in: null, limit_concurrent_out_per_number: null, limit_rate_out: null });
		expectRefused(await runWholesale(sandbox, { resource: 'trunk', operation: 'update', trunk: 'office', options: { limit_concurrent_out: 'none' } }), 'Options > Concurrent Limit: Outbound');
	});

	test('delete: a trunk goes; the default trunk is refused before sending', async () => {
		const removed = await runWholesale(sandbox, { ...op('trunk', 'delete'), trunk: 'dialler' });
		expect(removed.requests[0]).toMatchObject({ method: 'DELETE', path: '/v3/voice/123456/trunks/123456-dialler' });
		// Named in full, as Create, Get and Update name it.
		expect(removed.json).toEqual([expect.objectContaining({ deleted: true, trunk: '123456-dialler' })]);
		expectRefused(await runWholesale(sandbox, { resource: 'trunk', operation: 'delete', trunk: 'L001' }), 'Trunk Name');
	});
});

describe('errors', () => {
	test('the platform\'s {success:false, errors} reaches the user; Continue On Fail keeps going', async () => {
		const run = await runWholesale(sandbox, { resource: 'trunk', operation: 'get', trunk: 'does-not-exist' }, { continueOnFail: true });
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ error: expect.stringMatching(/\(404\)/), httpCode: '404' });
	});
});
