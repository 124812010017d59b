import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { resetTriggers } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/triggers/lifecycle';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { phpJson } from '../../../sandbox/wholesale/php';
import { fakeClockForFile } from '../../harness/clock';
import { binaryBuffer } from '../../harness/n8n';
import { waitFor } from '../../harness/wait';
import type { HostOptions, HostedTrigger } from './triggerKit';
import { OPEN, hostTrigger, post, realDelivery, sandboxDeliver, wholesaleCredentials } from './triggerKit';

/**
 * The Wholesale Voice Trigger through n8n's own WebhookContext and WorkflowExecute, fed by the
 * sandbox's real deliveries (`POST /_sandbox/wholesale/deliveries`, report callbacks, inbound SMS)
 * and by hand-made ones: every app and body form, refusals, duplicates, unreadable bodies, and
 * report-ready callbacks collected in the execution.
 */

let sandbox: Sandbox;
let warnings: string[];
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
// The trigger and the sandbox on one fake clock: a report is ready, and a collection waits, only when the test moves it.
const time = fakeClockForFile();

const hosts: HostedTrigger[] = [];
beforeEach(() => {
	sandbox.reset();
	resetTriggers();
	warnings = [];
});
afterEach(async () => {
	for (const h of hosts.splice(0)) await h.close();
	jest.restoreAllMocks();
});

async function hosted(parameters: INodeParameters, options: HostOptions = {}): Promise<HostedTrigger> {
	const h = await hostTrigger(parameters, { credentials: wholesaleCredentials(sandbox), ...options });
	hosts.push(h);
	// n8n's logger is one instance for every context: catch what the trigger warns about.
	const context = h.hook();
	jest.spyOn(context.logger, 'warn').mockImplementation((message: string) => {
		warnings.push(message);
	});
	return h;
}

type Delivery = Record<string, any>;

/** The document the sandbox sent (parsed back from what it put on the wire). */
const doc = (d: Delivery) => d.document as { app: string; id: string; timestamp?: string; data: IDataObject | IDataObject[] };

describe('every app and body form', () => {
	const APPS = ['call_inbound', 'call_outbound', 'call_blocked', 'call_warning', 'inprogress_summary', 'cdr', 'rate_update', 'eha_missing_data', 'porting', 'export'];

	test.each(APPS.flatMap((app) => [[app, 'json'] as const, [app, 'form'] as const]))('%s as %s: answered 200, one flat item with the data fields at the top level', async (app, encoding) => {
		const trigger = await hosted(OPEN);
		const [delivery] = await sandboxDeliver(sandbox, { url: trigger.url, app, encoding });
		expect(delivery).toMatchObject({ status: 200, outcome: 'delivered' });
		expect(delivery.contentType).toBe(encoding === 'json' ? 'text/json' : 'application/x-www-form-urlencoded');
		await trigger.settled();
		const sent = doc(delivery);
		const data = sent.data as IDataObject;
		const [item, ...rest] = trigger.emitted();
		expect(rest).toEqual([]);
		expect(item).toMatchObject({ app, id: sent.id, timestamp: sent.timestamp ?? null, receivedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
		if (app === 'inprogress_summary') {
			expect(item).toMatchObject({ account: data.account, callcount: data.callcount, currency: data.currency, datetime: data.datetime });
			expect(item.calls).toEqual(Object.entries(data.calls as IDataObject).map(([dest_id, v]) => ({ dest_id, ...(v as IDataObject) })));
		} else {
			expect(item).toMatchObject(data);
		}
		if (sent.timestamp) expect(item).toMatchObject({ eventTime: sent.timestamp, eventTimeSource: 'timestamp' });
		else expect(item).toMatchObject({ timestamp: null, eventTimeSource: app === 'inprogress_summary' ? 'datetime' : 'receivedAt' });
		// execute() passes every non-report item through unchanged.
		expect(trigger.runs.map((run) => run.map((i) => i.json))).toEqual([[item]]);
	});

	test('text/json is read from the raw body (n8n\'s parser does not know the type): escaped slashes and \\u escapes decoded', async () => {
		const trigger = await hosted(OPEN);
		const [delivery] = await sandboxDeliver(sandbox, { url: trigger.url, app: 'rate_update', data: { note: 'Côte d’Ivoire – 😀' } });
		expect(delivery.body).toContain('"url":"http:\\/\\/127.0.0.1');
		expect(delivery.body).toContain('C\\u00f4te d\\u2019Ivoire \\u2013 \\ud83d\\ude00');
		expect(trigger.deliveries[0].result.workflowData).toBeDefined();
		const [item] = trigger.emitted();
		expect(item.url).toBe(`${sandbox.url}/v3/accounts/123456/rates/csv/default`);
		expect(item.note).toBe('Côte d’Ivoire – 😀');
		expect(item).toMatchObject({ rate_type: 'voice', timestamp: null, eventTimeSource: 'receivedAt' });
	});

	test('a delivery with 300,000 entries in data: answered 200, every entry an item (spreading them overflowed the call stack, a 500)', async () => {
		const trigger = await hosted(OPEN);
		const data = Array.from({ length: 300_000 }, (_v, i) => ({ call_id: `c${i}` }));
		const answer = await post(trigger.url, JSON.stringify({ app: 'cdr', id: 'big', data }), { 'content-type': 'text/json' });
		expect(answer.status).toBe(200);
		await trigger.settled();
		const emitted = trigger.emitted();
		expect(emitted).toHaveLength(300_000);
		expect(emitted[299_999]).toMatchObject({ app: 'cdr', id: 'big', call_id: 'c299999', dataIndex: 299_999 });
	}, 60_000);

	test('data as an array gives the same item as data as an object', async () => {
		const trigger = await hosted(OPEN);
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'porting', id: 'p-object', status: 'complete' });
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'porting', id: 'p-array', status: 'complete', dataForm: 'array' });
		const [object, array] = trigger.emitted();
		const strip = ({ id: _id, receivedAt: _r, eventTime: _e, timestamp: _t, ...rest }: IDataObject) => rest;
		expect(strip(array)).toEqual(strip(object));
		expect(array).toMatchObject({ app: 'porting', id: 'p-array', orderid: 40003, status: 'complete' });
		expect(array.dataIndex).toBeUndefined();
	});

	test('timestamps: ISO, ISO with offset, plain (read as UTC) and absent', async () => {
		const trigger = await hosted(OPEN);
		for (const form of ['iso', 'iso_offset', 'plain', 'none']) await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', timestampForm: form, id: `t-${form}` });
		const [iso, offset, plain, none] = trigger.emitted();
		expect(iso.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
		expect(offset.timestamp).toMatch(/\+00:00$/);
		expect(plain.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
		for (const item of [iso, offset, plain]) {
			expect(item.eventTimeSource).toBe('timestamp');
			expect(item.eventTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
			expect(Math.abs(Date.parse(item.eventTime as string) - Date.parse(item.receivedAt as string))).toBeLessThan(2000);
		}
		expect(plain.eventTime).toBe(`${(plain.timestamp as string).replace(' ', 'T')}Z`);
		expect(none).toMatchObject({ timestamp: null, eventTime: none.receivedAt, eventTimeSource: 'receivedAt' });
	});

	test('calls in progress, detail form, one item per call', async () => {
		await fetch(`${sandbox.url}/_sandbox/wholesale/calls`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: '33612345678', call_id: 'call-extra-1' }) });
		const trigger = await hosted({ ...OPEN, options: { splitCalls: true } });
		const [delivery] = await sandboxDeliver(sandbox, { url: trigger.url, app: 'inprogress_summary', form: 'detail' });
		const calls = (doc(delivery).data as IDataObject).calls as IDataObject[];
		expect(Array.isArray(calls)).toBe(true);
		const items = trigger.emitted();
		expect(items).toHaveLength(calls.length);
		expect(items.map((i) => i.call_id)).toEqual(calls.map((c) => c.call_id));
		expect(items.find((i) => i.call_id === 'call-extra-1')).toMatchObject({ app: 'inprogress_summary', account: '123456', currency: 'GBP', to: '33612345678', callCount: calls.length });
	});

	test('SMS delivery reports: each status with its name and finality; %id% and %status% substituted into the URL reach the item', async () => {
		const trigger = await hosted(OPEN);
		const deliveries = await sandboxDeliver(sandbox, { url: `${trigger.url}?id=%id%&status=%status%`, app: 'sms_send_status', id: 'sms-42', statuses: [1, 2, 18, 14, 11, 12, 13, 26] });
		expect(deliveries.map((d) => d.url.replace(/^.*\?/, ''))).toEqual(['1', '2', '18', '14', '11', '12', '13', '26'].map((s) => `id=sms-42&status=${s}`));
		expect(deliveries.every((d) => d.status === 200)).toBe(true);
		expect(trigger.emitted().map((i) => [i.id, i.status, i.statusName, i.final])).toEqual([
			['sms-42', 1, 'Received', false],
			['sms-42', 2, 'Submitted', false],
			['sms-42', 18, 'SMSCa', false],
			['sms-42', 14, 'Queued', false],
			['sms-42', 11, 'Delivered', true],
			['sms-42', 12, 'Rejected', true],
			['sms-42', 13, 'Error', true],
			['sms-42', 26, 'SMSCr', true],
		]);
		expect(trigger.emitted()[0]).toMatchObject({ app: 'sms_send_status', timestamp: null, eventTimeSource: 'dtime', query: { id: 'sms-42', status: '1' }, statusDescription: 'Committed to a queue' });
	});

	test('inbound SMS through a number\'s SMS endpoint (http_json), and both modes from the admin API: marked sms_inbound, as it arrived', async () => {
		const trigger = await hosted(OPEN);
		const put = await fetch(`${sandbox.url}/v3/numbers/123456/allocated/447700900456/sms`, {
			method: 'PUT',
			headers: { authorization: `Basic ${Buffer.from('api123456:wv-demo-123456').toString('base64')}`, 'content-type': 'application/json' },
			body: JSON.stringify({ mode: 'http_json', endpoint: trigger.url }),
		});
		expect(put.status).toBe(200);
		const inbound = await fetch(`${sandbox.url}/_sandbox/wholesale/sms/inbound`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ to: '447700900456', from: '447700900321', message: 'Prix: 5 € — merci', id: 'in-json' }),
		});
		const { delivery } = (await inbound.json()) as { delivery: Delivery };
		expect(delivery).toMatchObject({ status: 200, contentType: 'application/json' });
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'sms_inbound', mode: 'http', id: 'in-form', message: 'Prix: 5 € — merci' });
		const [json, form] = trigger.emitted();
		expect(json).toMatchObject({ app: 'sms_inbound', id: 'in-json', from: '447700900321', to: '447700900456', message: 'Prix: 5 € — merci', eventTimeSource: 'received' });
		// The legacy form mode has no Unicode: the platform sends `?` for what Latin-1 lacks.
		expect(form).toMatchObject({ app: 'sms_inbound', id: 'in-form', message: 'Prix: 5 ? ? merci', timestamp: null });
		expect(form.eventTime).toBe(`${(form.received as string).replace(' ', 'T')}Z`);
	});

	test('a received fax posted as the legacy form (public docs, payload=): its hash kept and as the id, so the retry is dropped', async () => {
		const trigger = await hosted({ ...OPEN, events: ['other'] });
		const fax = realDelivery('http-post-fax-inbound-legacy-form');
		const hash = '7e2bb7bb87300ff83c657b04b07b8261';
		expect((await post(trigger.url, fax.body, { 'content-type': fax.contentType })).status).toBe(200);
		expect((await post(trigger.url, fax.body, { 'content-type': fax.contentType })).status).toBe(200);
		await trigger.settled();
		expect(trigger.runs.map((run) => run.map((i) => i.json))).toEqual([
			[expect.objectContaining({ app: 'fax_inbound', id: hash, hash, eventTimeSource: 'receivedAt', time: '2015-02-30 12:34:56', station: 'MYFAX', pages: 1 })],
		]);
		// Outbound fax reports: one fax, several statuses, each a run, its dtime the event time; a repeated status is dropped.
		const report = (status: number, dtime: string) => `payload=${encodeURIComponent(JSON.stringify({ app: 'fax_inbound', id: 'b902e8e46b91900af276f52995a3082e', data: { dtime, status } }))}`;
		for (const [status, dtime] of [[1, '2026-03-01 09:00:00'], [10, '2026-03-01 09:01:30'], [10, '2026-03-01 09:01:30']] as const) {
			expect((await post(trigger.url, report(status, dtime), { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(200);
		}
		await trigger.settled();
		expect(trigger.emitted().slice(1).map((i) => [i.status, i.eventTime, i.eventTimeSource])).toEqual([
			[1, '2026-03-01T09:00:00Z', 'dtime'],
			[10, '2026-03-01T09:01:30Z', 'dtime'],
		]);
	});

	test('the payload variable as multipart/form-data (n8n reads the form itself) gives the same item; XML is answered 415', async () => {
		const trigger = await hosted(OPEN);
		const [multipart] = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', id: 'cdr-multipart', encoding: 'multipart' });
		expect(multipart).toMatchObject({ status: 200, contentType: expect.stringMatching(/^multipart\/form-data; boundary=/) });
		expect(trigger.emitted()).toEqual([expect.objectContaining({ app: 'cdr', id: 'cdr-multipart', cdr_id: expect.any(String), currency: expect.any(String) })]);
		const xml = await post(trigger.url, '<cdr/>', { 'content-type': 'application/xml' });
		expect(xml.status).toBe(415);
		expect(trigger.emitted()).toHaveLength(1);
	});

	test('events not chosen are answered 200 and start nothing; apps the spec does not list are Other Apps', async () => {
		const trigger = await hosted({ ...OPEN, events: ['cdr', 'porting'] });
		const [blocked] = await sandboxDeliver(sandbox, { url: trigger.url, app: 'call_blocked' });
		const [report] = await sandboxDeliver(sandbox, { url: trigger.url, app: 'reports' });
		const [cdr] = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr' });
		const unknown = await post(trigger.url, JSON.stringify({ app: 'trunk_update', id: 'tr1', timestamp: '2026-03-01T10:00:00Z', data: { trunk: '123456-office' } }), { 'content-type': 'text/json' });
		expect([blocked.status, report.status, cdr.status, unknown.status]).toEqual([200, 200, 200, 200]);
		expect(trigger.emitted().map((i) => i.app)).toEqual(['cdr']);
		expect(trigger.deliveries.map((d) => d.result.workflowData === undefined)).toEqual([true, true, false, true]);

		const all = await hosted(OPEN);
		await post(all.url, JSON.stringify({ app: 'trunk_update', id: 'tr1', data: { trunk: '123456-office' } }), { 'content-type': 'text/json' });
		expect(all.emitted()).toEqual([expect.objectContaining({ app: 'trunk_update', id: 'tr1', trunk: '123456-office' })]);
	});
});

describe('duplicates', () => {
	test('a repeated id starts one execution; every repeat is still answered 200', async () => {
		const trigger = await hosted(OPEN);
		const deliveries = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', id: 'dup-1', repeat: 3 });
		expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
		expect(trigger.emitted()).toHaveLength(1);
		// The same id of another app is another message.
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'call_inbound', id: 'dup-1' });
		expect(trigger.emitted().map((i) => i.app)).toEqual(['cdr', 'call_inbound']);
	});

	test('SMS reports: the same message with another status is not a duplicate, the same status again is', async () => {
		const trigger = await hosted(OPEN);
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'sms_send_status', id: 'm1', statuses: [1, 2, 11, 11] });
		expect(trigger.emitted().map((i) => i.status)).toEqual([1, 2, 11]);
	});

	test('off: every repeat starts an execution', async () => {
		const trigger = await hosted({ ...OPEN, dropDuplicates: false });
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', id: 'dup-2', repeat: 3 });
		expect(trigger.emitted()).toHaveLength(3);
	});

	test('n8n could not store the run (answered 500): the platform\'s retry of that message runs, once', async () => {
		const failures = [true];
		const trigger = await hosted(OPEN, { storeFails: () => failures.shift() ?? false });
		const deliveries = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', id: 'lost-1', repeat: 3 });
		expect(deliveries.map((d) => d.status)).toEqual([500, 200, 200]);
		expect(trigger.emitted().map((i) => i.id)).toEqual(['lost-1']);
	});

	test('a delivery that starts a run is answered by n8n, 200 {}; one that starts none by the trigger, 200 {}', async () => {
		const trigger = await hosted({ ...OPEN, events: ['cdr'] });
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', id: 'answer-1' });
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'porting', id: 'answer-2' });
		expect(trigger.deliveries.map((d) => [d.status, d.body, d.result.noWebhookResponse ?? false, d.result.webhookResponse])).toEqual([
			[200, {}, false, {}],
			[200, {}, true, undefined],
		]);
	});

	test('bounded: beyond Remember IDs the oldest id is forgotten', async () => {
		const trigger = await hosted({ ...OPEN, options: { rememberIds: 2 } });
		for (const id of ['a', 'b', 'c', 'a']) await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', id });
		expect(trigger.emitted().map((i) => i.id)).toEqual(['a', 'b', 'c', 'a']);
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', id: 'c' });
		expect(trigger.emitted()).toHaveLength(4);
	});
});

describe('who may call', () => {
	const body = phpJson({ app: 'cdr', id: 'sec-1', timestamp: '2026-03-01T10:00:00Z', data: { call_id: 'c' } });
	const textJson = { 'content-type': 'text/json' };

	test("default, the platform's networks: a delivery from 127.0.0.1 gets 403 and starts nothing; the body reveals nothing", async () => {
		const trigger = await hosted({});
		const [delivery] = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr' });
		expect(delivery).toMatchObject({ status: 403, outcome: 'failed', responseBody: '{"error":"forbidden"}' });
		expect(trigger.emitted()).toEqual([]);
		expect(trigger.runs).toEqual([]);
		expect(warnings).toEqual([expect.stringMatching(/refused a delivery with 403: the client address 127\.0\.0\.1 is not in the allowed networks \(the platform's five\)/)]);
	});

	test('a forged X-Forwarded-For naming a platform address changes nothing when n8n trusts no proxy', async () => {
		const trigger = await hosted({});
		const [delivery] = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', headers: { 'X-Forwarded-For': '178.22.139.84' } });
		expect(delivery.status).toBe(403);
		expect(trigger.emitted()).toEqual([]);
	});

	test("behind one trusted proxy (N8N_PROXY_HOPS=1): the address n8n reads from X-Forwarded-For is checked, the platform's passes", async () => {
		const trigger = await hosted({}, { proxyHops: 1 });
		const [platform] = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', headers: { 'X-Forwarded-For': '185.63.143.85' } });
		// A client that writes its own X-Forwarded-For: the proxy appends the real address, and that is the one read.
		const [forged] = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', headers: { 'X-Forwarded-For': '178.22.139.84, 198.51.100.9' } });
		expect([platform.status, forged.status]).toEqual([200, 403]);
		expect(trigger.emitted()).toHaveLength(1);
	});

	test('a custom list allows what it lists; Any Source allows everything', async () => {
		const listed = await hosted({ sourceNetworks: 'custom', customNetworks: '10.0.0.0/8\n127.0.0.0/8' });
		const unlisted = await hosted({ sourceNetworks: 'custom', customNetworks: '10.0.0.0/8, 2001:db8::/32' });
		const any = await hosted({ sourceNetworks: 'any' });
		const statuses = [];
		for (const t of [listed, unlisted, any]) statuses.push((await post(t.url, body, textJson)).status);
		expect(statuses).toEqual([200, 403, 200]);
	});

	test('query-parameter secret: missing or wrong 401 (the same answer), right 200; the secret is not in the item', async () => {
		const trigger = await hosted({ ...OPEN, secretLocation: 'query', queryParameterName: 'token', secret: 'a-long-random-secret' });
		const missing = await post(trigger.url, body, textJson);
		const wrong = await post(`${trigger.url}?token=a-long-random-secres`, body, textJson);
		const right = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', query: { token: 'a-long-random-secret', source: 'portal' } });
		expect([missing.status, wrong.status, right[0].status]).toEqual([401, 401, 200]);
		expect(missing.body).toEqual({ error: 'unauthorised' });
		expect(wrong.body).toEqual(missing.body);
		expect(trigger.emitted()).toHaveLength(1);
		expect(trigger.emitted()[0].query).toEqual({ source: 'portal' });
		expect(warnings).toEqual([expect.stringMatching(/401: the secret query parameter token was missing/)]);
	});

	test('header secret (set by a proxy): any case of the header name; network refusal comes first', async () => {
		const trigger = await hosted({ ...OPEN, secretLocation: 'header', headerName: 'X-Webhook-Secret', secret: 'hdr-secret' });
		const right = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', headers: { 'x-webhook-secret': 'hdr-secret' } });
		const wrong = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', headers: { 'X-Webhook-Secret': 'nope' } });
		const inQuery = await sandboxDeliver(sandbox, { url: trigger.url, app: 'cdr', query: { 'X-Webhook-Secret': 'hdr-secret' } });
		expect([right[0].status, wrong[0].status, inQuery[0].status]).toEqual([200, 401, 401]);
		const platformOnly = await hosted({ secretLocation: 'header', headerName: 'X-Webhook-Secret', secret: 'hdr-secret' });
		const [refused] = await sandboxDeliver(sandbox, { url: platformOnly.url, app: 'cdr', headers: { 'x-webhook-secret': 'hdr-secret' } });
		expect(refused.status).toBe(403);
		expect(trigger.emitted()).toHaveLength(1);
	});

	test('activation checks the settings: a bad network list, an empty secret or no events refuse to activate; good ones activate', async () => {
		const create = async (parameters: INodeParameters) => {
			const t = await hosted(parameters);
			return await t.node.webhookMethods.default.create.call(t.hook());
		};
		await expect(create({ sourceNetworks: 'custom', customNetworks: '10.0.0.0/8, 10.0.0.300' })).rejects.toThrow('Allowed Networks: "10.0.0.300" is not an IP address or CIDR network');
		await expect(create({ secretLocation: 'query', secret: '' })).rejects.toThrow('Secret: it is empty');
		await expect(create({ events: [] })).rejects.toThrow('Events: choose at least one event');
		await expect(create({ sourceNetworks: 'custom', customNetworks: '127.0.0.1', secretLocation: 'query', secret: 'x'.repeat(32) })).resolves.toBe(true);
		const withoutCredential = await hostTrigger({ collectReport: true });
		hosts.push(withoutCredential);
		await expect(withoutCredential.node.webhookMethods.default.create.call(withoutCredential.hook())).rejects.toThrow('Collect the Report needs a Wholesale Voice API credential');
		// And a delivery that reaches settings like these anyway is refused.
		const broken = await hosted({ sourceNetworks: 'custom', customNetworks: 'nonsense' });
		expect((await post(broken.url, body, textJson)).status).toBe(403);
		expect(broken.emitted()).toEqual([]);
	});
});

describe('bodies that cannot be read', () => {
	test('broken JSON: 400 with a short reason, no execution, a warning in n8n\'s log (at most one a minute, the rest counted)', async () => {
		const trigger = await hosted(OPEN);
		const first = await post(trigger.url, '{"app":"cdr","id":"x","data":{', { 'content-type': 'text/json' });
		expect(first.status).toBe(400);
		expect(first.body).toEqual({ error: expect.stringMatching(/^the body is not valid JSON \(/) });
		const second = await post(trigger.url, 'payload=%7B%22app%22', { 'content-type': 'application/x-www-form-urlencoded' });
		expect(second).toEqual({ status: 400, body: { error: expect.stringMatching(/^the payload field is not valid JSON/) } });
		const third = await post(trigger.url, '', { 'content-type': 'text/json' });
		expect(third).toEqual({ status: 400, body: { error: 'the body is empty' } });
		const fourth = await post(trigger.url, 'foo=bar', { 'content-type': 'text/json' });
		expect(fourth.status).toBe(400);
		expect(trigger.deliveries.every((d) => d.result.workflowData === undefined)).toBe(true);
		expect(warnings).toEqual([
			expect.stringMatching(/^Wholesale Voice Trigger answered 400 to a delivery it could not read: the body is not valid JSON .* \(Content-Type text\/json, 30 bytes, from 127\.0\.0\.1\)$/),
		]);
		resetTriggers();
		await post(trigger.url, '{', { 'content-type': 'text/json' });
		expect(warnings[1]).toMatch(/a delivery it could not read/);
	});

	test('a body with no app and no field of an inbound SMS ({} from an allowed address) is unreadable: 400, logged, no run', async () => {
		const trigger = await hosted(OPEN);
		const reason = 'a document has no app and no field of an inbound SMS';
		for (const [body, type] of [
			['{}', 'text/json'],
			['{}', 'application/json'],
			['foo=bar', 'application/x-www-form-urlencoded'],
		]) {
			expect(await post(trigger.url, body, { 'content-type': type })).toEqual({ status: 400, body: { error: reason } });
		}
		expect(trigger.deliveries.every((d) => d.result.workflowData === undefined)).toBe(true);
		expect(warnings).toEqual([expect.stringContaining(`could not read: ${reason} (Content-Type text/json, 2 bytes, from 127.0.0.1)`)]);
		// A message with a field an inbound SMS carries still runs.
		expect((await post(trigger.url, '{"originator":"447700900321","message":"Hi"}', { 'content-type': 'application/json' })).status).toBe(200);
		expect(trigger.emitted()).toEqual([expect.objectContaining({ app: 'sms_inbound', originator: '447700900321', message: 'Hi' })]);
		const emitting = await hosted({ ...OPEN, options: { unparseable: 'emit' } });
		expect((await post(emitting.url, '{}', { 'content-type': 'text/json' })).status).toBe(400);
		expect(emitting.emitted()).toEqual([expect.objectContaining({ app: 'unparseable', error: reason, body: '{}' })]);
	});

	test('"Start the Workflow" option: still 400, and an item with the reason and the body as received', async () => {
		const trigger = await hosted({ ...OPEN, options: { unparseable: 'emit' } });
		const answer = await post(trigger.url, '{"app":"cdr",', { 'content-type': 'text/json' });
		expect(answer.status).toBe(400);
		expect(trigger.emitted()).toEqual([
			{ app: 'unparseable', error: expect.stringMatching(/not valid JSON/), contentType: 'text/json', size: 13, receivedAt: expect.any(String), body: '{"app":"cdr",' },
		]);
		expect(warnings).toHaveLength(1);
	});
});

describe('report ready', () => {
	const auth = { authorization: `Basic ${Buffer.from('api123456:wv-demo-123456').toString('base64')}` };

	async function requestReport(callback: string, path = 'voice/cdr/latest/10'): Promise<string> {
		const response = await fetch(`${sandbox.url}/v3/accounts/123456/reports/${path}`, {
			method: 'POST',
			headers: { ...auth, 'content-type': 'application/json' },
			body: JSON.stringify({ callback }),
		});
		return ((await response.json()) as { hash: string }).hash;
	}

	const waitForCallback = async (hash: string): Promise<Delivery> =>
		(await waitFor(() => sandbox.wholesale.deliveries.records.find((d) => d.source === 'report' && d.messageId === hash && d.outcome !== 'pending'), 5000)) as unknown as Delivery;

	const fileGets = (hash: string) => sandbox.context.log.list().filter((r) => r.method === 'GET' && r.path.startsWith(`/v3/files/123456/${hash}`));

	test('collected once in the execution, after the callback was answered: the rows, and the raw file on request', async () => {
		sandbox.wholesale.settings.reportReadyMs = 100;
		const trigger = await hosted({ ...OPEN, collectReport: true, includeRawFile: true, binaryPropertyName: 'report' });
		const hash = await requestReport(trigger.url);
		await time.clock.advance(100);
		const callback = await waitForCallback(hash);
		expect(callback).toMatchObject({ status: 200, contentType: 'application/x-www-form-urlencoded', responseBody: '{}' });
		// The webhook answered with the handle alone: the collection is the execution's, after the answer.
		expect(trigger.deliveries).toEqual([expect.objectContaining({ status: 200, body: {}, emitted: [expect.objectContaining({ app: 'reports', hash })] })]);
		await trigger.settled();
		expect(trigger.emitted()).toEqual([expect.objectContaining({ app: 'reports', id: hash, hash, timestamp: null })]);
		const [rows] = trigger.runs;
		expect(rows).toHaveLength(10);
		expect(rows[0].json).toMatchObject({ call_id: expect.any(String), cdr_id: expect.any(String), secs_billed: expect.any(Number) });
		expect(rows[0].binary?.report).toMatchObject({ mimeType: 'application/json', fileName: `report-${hash}.json` });
		expect(JSON.parse(binaryBuffer(rows[0], 'report').toString('utf8'))).toHaveLength(10);
		expect(rows.slice(1).every((r) => r.binary === undefined)).toBe(true);
		expect(fileGets(hash).map((r) => r.status)).toEqual([200]);
		expect(sandbox.wholesale.reports.summary().find((r) => r.hash === hash)).toMatchObject({ state: 'collected' });
	});

	test('a repeated callback is not dropped (a new run of an identical report may carry the same hash): the report is collected once, the repeat says it is gone', async () => {
		sandbox.wholesale.settings.reportReadyMs = 60_000;
		const trigger = await hosted({ ...OPEN, collectReport: true });
		const hash = await requestReport('http://127.0.0.1:9/not-used');
		await fetch(`${sandbox.url}/_sandbox/wholesale/reports/${hash}/ready`, { method: 'POST' });
		const deliveries = await sandboxDeliver(sandbox, { url: trigger.url, app: 'reports', id: hash, repeat: 2 });
		expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
		await trigger.settled();
		expect(trigger.runs).toHaveLength(2);
		expect(trigger.runs.map((run) => run.length).sort()).toEqual([1, 10]);
		expect(trigger.runs.find((run) => run.length === 1)?.[0].json).toMatchObject({ hash, collected: false, error: expect.stringMatching(/gone/) });
		expect(fileGets(hash).map((r) => r.status).sort()).toEqual([200, 404]);
	});

	test('collection off: the handle only, the file left for Report > Get File', async () => {
		sandbox.wholesale.settings.reportReadyMs = 100;
		const trigger = await hosted(OPEN);
		const hash = await requestReport(trigger.url);
		await time.clock.advance(100);
		await waitForCallback(hash);
		await trigger.settled();
		expect(trigger.runs.map((run) => run.map((i) => i.json))).toEqual([[expect.objectContaining({ app: 'reports', hash })]]);
		expect(fileGets(hash)).toEqual([]);
		expect(sandbox.wholesale.reports.summary().find((r) => r.hash === hash)).toMatchObject({ state: 'ready' });
	});

	test('a file already collected (or expired): the handle with the reason, never nothing', async () => {
		sandbox.wholesale.settings.reportReadyMs = 60_000;
		const trigger = await hosted({ ...OPEN, collectReport: true });
		const hash = await requestReport('http://127.0.0.1:9/not-used');
		await fetch(`${sandbox.url}/_sandbox/wholesale/reports/${hash}/ready`, { method: 'POST' });
		expect((await fetch(`${sandbox.url}/v3/files/123456/${hash}`, { headers: auth })).status).toBe(200);
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'reports', id: hash });
		await trigger.settled();
		expect(trigger.runs[0].map((i) => i.json)).toEqual([
			expect.objectContaining({
				app: 'reports',
				hash,
				collected: false,
				error: expect.stringMatching(new RegExp(`^Report file ${hash} is gone: it was already collected`)),
				errorDescription: expect.stringMatching(/Request the report again/),
			}),
		]);
	});

	test('wrong API credentials, or none: the handle with the platform\'s refusal', async () => {
		const hash = 'c'.repeat(32);
		const wrong = await hosted({ ...OPEN, collectReport: true }, { credentials: { wholesaleVoiceApi: { ...wholesaleCredentials(sandbox).wholesaleVoiceApi, apiPassword: 'wrong' } } });
		await sandboxDeliver(sandbox, { url: wrong.url, app: 'reports', id: hash });
		await wrong.settled();
		expect(wrong.runs[0].map((i) => i.json)).toEqual([expect.objectContaining({ hash, collected: false, error: expect.stringMatching(/refused the credentials \(401\)/) })]);

		// Another hash: the hosts of one test share the workflow and node ids, so one memory of ids.
		const none = await hosted({ ...OPEN, collectReport: true }, { credentials: {} });
		await sandboxDeliver(sandbox, { url: none.url, app: 'reports', id: 'd'.repeat(32) });
		await none.settled();
		expect(none.runs[0].map((i) => i.json)).toEqual([expect.objectContaining({ hash: 'd'.repeat(32), collected: false, error: expect.any(String) })]);
	});

	test('a callback whose id is not a report hash: the handle with the reason', async () => {
		const trigger = await hosted({ ...OPEN, collectReport: true });
		await post(trigger.url, 'payload=%7B%22app%22%3A%22reports%22%2C%22id%22%3A%22nope%22%2C%22data%22%3Anull%7D', { 'content-type': 'application/x-www-form-urlencoded' });
		await trigger.settled();
		expect(trigger.runs[0].map((i) => i.json)).toEqual([expect.objectContaining({ id: 'nope', collected: false, error: expect.stringMatching(/no report hash/) })]);
	});

	test('a malformed file: collected, the raw file attached with the reason the rows could not be read', async () => {
		sandbox.wholesale.settings.reportReadyMs = 100;
		await fetch(`${sandbox.url}/_sandbox/wholesale/reports/next`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ malformed: true }) });
		const trigger = await hosted({ ...OPEN, collectReport: true });
		const hash = await requestReport(trigger.url);
		await time.clock.advance(100);
		await waitForCallback(hash);
		await trigger.settled();
		const [[item]] = trigger.runs;
		expect(item.json).toMatchObject({ hash, collected: true, rows: null, parseError: expect.stringMatching(/could not be read/) });
		expect(item.binary?.data).toMatchObject({ mimeType: 'application/json' });
	});

	test('a callback that comes before the file is ready (204): waited for, then collected', async () => {
		sandbox.wholesale.settings.reportReadyMs = 60_000;
		const trigger = await hosted({ ...OPEN, collectReport: true });
		const hash = await requestReport('http://127.0.0.1:9/not-used');
		await sandboxDeliver(sandbox, { url: trigger.url, app: 'reports', id: hash });
		// The execution asked once (204) and waits on the clock for its next try.
		await waitFor(() => fileGets(hash).length === 1);
		await fetch(`${sandbox.url}/_sandbox/wholesale/reports/${hash}/ready`, { method: 'POST' });
		await time.clock.finish(trigger.settled());
		expect(fileGets(hash).map((r) => r.status)).toEqual([204, 200]);
		expect(trigger.runs[0]).toHaveLength(10);
	});
});
