/**
 * Hosted PBX actions where the contract leaves room: answers it does not show (Make a Call, Set
 * Do Not Disturb) are success whatever a 2xx holds, so Retry On Fail never charges a call twice;
 * an empty CSV page ends the export; whole numbers go as the digits the check accepted; an SMS
 * sender has no invented length limit; a Base URL with a password in it is refused before sending.
 */
import type { IDataObject } from 'n8n-workflow';

import { HostedPbx } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { binaryBuffer, runNode } from '../../harness/n8n';
import { locator, outboundCalls, runPbx } from './pbxTestKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const ME = '/api/v1/customers/me';
const json = (run: { items: Array<{ json: IDataObject }> }) => run.items.map((i) => i.json);

describe('answers the contract does not show are success', () => {
	test.each([
		['text/plain "OK"', 'OK', 'text/plain', 'OK'],
		['XML', '<?xml version="1.0"?>\n<call>\n  <status>queued</status>\n</call>', 'application/xml', '<?xml version="1.0"?> <call> <status>queued</status> </call>'],
	])('Make a Call answered 200 with %s: one item saying it was placed, the call sent once', async (_name, body, contentType, kept) => {
		sandbox.context.faults.add({ api: 'pbx', method: 'POST', pathPrefix: `${ME}/calls`, kind: 'nonJson', body, contentType });
		const run = await runPbx(sandbox, { resource: 'call', operation: 'originate', endpointId: locator('201'), to: '+447700900123' });
		expect(run.error).toBeUndefined();
		expect(json(run)).toEqual([{ success: true, endpointId: '201', to: '+447700900123', responseText: kept }]);
		expect(run.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
	});

	test('Make a Call answered with a JSON record still outputs the record', async () => {
		sandbox.context.faults.add({ api: 'pbx', method: 'POST', pathPrefix: `${ME}/calls`, status: 200, body: { type: 'call', uri: 'https://pbx.example.com/api/v1/customers/1001/calls/77' } });
		const run = await runPbx(sandbox, { resource: 'call', operation: 'originate', endpointId: locator('201'), to: '+447700900123' });
		expect(json(run)).toEqual([{ id: '77', type: 'call', uri: 'https://pbx.example.com/api/v1/customers/1001/calls/77' }]);
	});

	test('Set Do Not Disturb answered 200 text/plain: the change as sent, with the text', async () => {
		sandbox.context.faults.add({ api: 'pbx', method: 'PUT', pathPrefix: `${ME}/endpoints/201/phonestatus`, kind: 'nonJson', body: 'OK', contentType: 'text/plain' });
		const run = await runPbx(sandbox, { resource: 'endpoint', operation: 'setDnd', endpointId: locator('201'), dndActive: true });
		expect(run.error).toBeUndefined();
		expect(json(run)).toEqual([{ endpointId: '201', dndActive: true, responseText: 'OK' }]);
	});

	test('a write whose answer the contract shows (Send SMS) still fails on text, saying it may have taken effect', async () => {
		sandbox.context.faults.add({ api: 'pbx', method: 'POST', pathPrefix: `${ME}/sms`, kind: 'nonJson', body: 'OK', contentType: 'text/plain' });
		const run = await runPbx(sandbox, { resource: 'sms', operation: 'send', from: locator('+441632960001', 'id'), to: '+447700900123', body: 'hi' });
		expect(run.error?.message).toMatch(/answered POST \/api\/v1\/customers\/me\/sms with text\/plain that is not JSON: OK/);
		expect(run.error?.description).toMatch(/may have taken effect: check before sending it again/);
	});
});

describe('call history CSV export', () => {
	test('an empty CSV (no header when no rows match) is an empty file with 0 rows, not an error', async () => {
		sandbox.context.faults.add({ api: 'pbx', method: 'GET', pathPrefix: `${ME}/calls`, kind: 'empty', contentType: 'text/csv' });
		const run = await runPbx(sandbox, { resource: 'call', operation: 'exportCsv', filters: {}, binaryPropertyName: 'data' });
		expect(run.error).toBeUndefined();
		expect(run.requests).toHaveLength(1);
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({ rows: 0, mimeType: 'text/csv' });
		expect(run.items[0].binary?.data.mimeType).toBe('text/csv');
		expect(binaryBuffer(run.items[0]).length).toBe(0);
	});

	test('a history of exactly one page, the next page empty: every row kept', async () => {
		const saved = sandbox.pbx.data.calls;
		sandbox.pbx.data.calls = outboundCalls(200, 'page');
		// Header on page 1 only: page 2 of an exact multiple is 0 bytes.
		sandbox.pbx.settings.csvPages = 'firstHeader';
		try {
			const run = await runPbx(sandbox, { resource: 'call', operation: 'exportCsv', filters: {}, binaryPropertyName: 'data' });
			expect(run.error).toBeUndefined();
			expect(run.requests.map((r) => r.query.page)).toEqual(['1', '2']);
			const lines = binaryBuffer(run.items[0]).toString('utf8').trimEnd().split('\r\n');
			expect(lines).toHaveLength(201);
			expect(run.items[0].json).toMatchObject({ rows: 200 });
		} finally {
			sandbox.pbx.data.calls = saved;
			sandbox.pbx.settings.csvPages = 'header';
		}
	});
});

describe('Endpoint ID filter goes as the whole number it was checked as', () => {
	test.each([
		['1e3', '1000'],
		[' 12 ', '12'],
		['1.0', '1'],
		['0x10', '16'],
		['201', '201'],
		[201, '201'],
	])('%p is sent as %s by Get Many and Export as CSV', async (typed, sent) => {
		const list = await runPbx(sandbox, { resource: 'call', operation: 'getAll', returnAll: true, filters: { endpointId: typed } });
		const csv = await runPbx(sandbox, { resource: 'call', operation: 'exportCsv', filters: { endpointId: typed }, binaryPropertyName: 'data' });
		expect(list.requests[0].query.endpointId).toBe(sent);
		expect(csv.requests[0].query.endpointId).toBe(sent);
	});

	test('a number too large to send as digits is refused before sending', async () => {
		const run = await runPbx(sandbox, { resource: 'call', operation: 'getAll', returnAll: true, filters: { endpointId: '1e21' } });
		expect(run.error?.message).toMatch(/^Invalid Filters > Endpoint ID:/);
		expect(run.error?.description).toMatch(/Rule: a whole number from 0 to 9007199254740991/);
		expect(run.requests).toHaveLength(0);
	});
});

describe('SMS sender', () => {
	test('a sender longer than 20 characters is sent (the contract sets no limit)', async () => {
		const from = 'Acme Customer Services Ltd';
		const run = await runPbx(sandbox, { resource: 'sms', operation: 'send', from: locator(from, 'id'), to: '+447700900123', body: 'hi' });
		expect(run.error?.message ?? '').not.toMatch(/^Invalid From/);
		expect(run.requests.find((r) => r.method === 'POST')?.body).toMatchObject({ from });
	});

	test('an absurdly long sender is refused before sending, naming the bound', async () => {
		const run = await runPbx(sandbox, { resource: 'sms', operation: 'send', from: locator('x'.repeat(257), 'id'), to: '+447700900123', body: 'hi' });
		expect(run.error?.message).toMatch(/^Invalid From: it is 257 characters long/);
		expect(run.error?.description).toMatch(/Rule: at most 256 characters/);
		expect(run.requests).toHaveLength(0);
	});
});

describe('a Base URL with a user name and password in it', () => {
	const SECRET = 'S3cret-in-the-url-9q';
	const credentials = () => ({
		hostedPbxApi: { baseUrl: `${sandbox.url.replace('://', `://acme.admin:${SECRET}@`)}/api/v1`, username: 'acme.admin', password: 'acme-admin-secret', maxRateLimitWait: 0 },
	});

	test.each([
		['Create Download Link', { resource: 'recording', operation: 'createDownloadLink', recordingId: locator('1') }],
		['Make a Call', { resource: 'call', operation: 'originate', endpointId: locator('201'), to: '+447700900123' }],
	])('%s is refused before anything is sent, and the password is not repeated', async (_name, parameters) => {
		const since = sandbox.context.log.lastSeq;
		const run = await runNode({ node: new HostedPbx(), parameters: { customerId: locator('me'), ...parameters }, credentials: credentials() });
		expect(run.error?.message).toMatch(/Base URL of the Hosted PBX API credential contains a user name or password/);
		expect(run.error?.description).toMatch(/Nothing was sent/);
		expect(run.items).toEqual([]);
		expect(sandbox.context.log.list({ since })).toHaveLength(0);
		expect(JSON.stringify({ message: run.error?.message, description: run.error?.description, items: run.items })).not.toContain(SECRET);
	});
});
