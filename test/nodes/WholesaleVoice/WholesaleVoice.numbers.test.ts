/**
 * Wholesale Voice node, part 2: numbers, routing configuration, UK 999, US e911 and porting.
 * Charged and routing-changing operations are checked locally first: invalid input gives the
 * error and the sandbox sees no request at all.
 */
import type { IDataObject } from 'n8n-workflow';

import { listLoadOptions } from './loadOptionsKit';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { expectRefused, operationCoverage, runWholesale } from './wholesaleKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const PART_TWO = ['number', 'numberRouting', 'uk999', 'e911', 'port'];
const op = operationCoverage(PART_TWO);

async function admin(path: string, body?: unknown) {
	const response = await fetch(`${sandbox.url}/_sandbox/wholesale${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body ?? {}),
	});
	return (await response.json()) as IDataObject;
}

describe('Number', () => {
	test('allocate, get configuration, remove', async () => {
		const allocated = await runWholesale(sandbox, { ...op('number', 'allocate'), number: '+44 1632 960777' });
		expect(allocated.requests[0]).toMatchObject({ method: 'PUT', path: '/v3/numbers/123456/allocated/441632960777' });
		const config = await runWholesale(sandbox, { ...op('number', 'get'), number: '441632960001' });
		expect(config.json[0]).toMatchObject({ number: '441632960001', routing: expect.any(Object), meta: { key: 'reception' } });
		const removed = await runWholesale(sandbox, { ...op('number', 'remove'), number: '441632960777' });
		expect(removed.requests[0].method).toBe('DELETE');
		expect(removed.json[0]).toMatchObject({ number: '441632960777', removed: true });
	});

	test('trunk association: get, set (account prefix added), remove', async () => {
		expect((await runWholesale(sandbox, { ...op('number', 'getTrunk'), number: '442079460123' })).json[0]).toMatchObject({ trunk: '123456-office' });
		const set = await runWholesale(sandbox, { ...op('number', 'setTrunk'), number: '441632960001', trunk: 'dialler' });
		expect(set.requests[0]).toMatchObject({ method: 'PUT', path: '/v3/numbers/123456/allocated/441632960001/trunk', body: { trunk: '123456-dialler' } });
		expect((await runWholesale(sandbox, { ...op('number', 'removeTrunk'), number: '441632960001' })).requests[0].method).toBe('DELETE');
	});

	test('inbound SMS endpoint: get, set JSON mode, remove; legacy mode with TLS refused locally', async () => {
		expect((await runWholesale(sandbox, { ...op('number', 'getSmsEndpoint'), number: '447700900123' })).json[0]).toMatchObject({ mode: 'http_json' });
		const set = await runWholesale(sandbox, { ...op('number', 'setSmsEndpoint'), number: '447700900456', mode: 'http_json', endpoint: 'https://n8n.example.com/webhook/sms' });
		expect(set.requests[0].body).toEqual({ mode: 'http_json', endpoint: 'https://n8n.example.com/webhook/sms' });
		expect((await runWholesale(sandbox, { ...op('number', 'removeSmsEndpoint'), number: '447700900456' })).requests[0].method).toBe('DELETE');
		expectRefused(await runWholesale(sandbox, { resource: 'number', operation: 'setSmsEndpoint', number: '447700900456', mode: 'http', endpoint: 'https://n8n.example.com/webhook/sms' }), 'Mode');
	});

	test('validate (flattened, ofcom and valid_cli) and look up', async () => {
		const valid = await runWholesale(sandbox, { ...op('number', 'validate'), number: '441632960001' });
		expect(valid.json[0]).toMatchObject({ valid: true, formatted_e164: expect.any(String), valid_cli: true, ofcom_status: expect.anything() });
		const premium = await runWholesale(sandbox, { resource: 'number', operation: 'validate', number: '449098790000' });
		expect(premium.json[0]).toMatchObject({ valid: true, valid_cli: false });
		const lookup = await runWholesale(sandbox, { ...op('number', 'lookup'), number: '447700900123' });
		expect(lookup.json[0]).toMatchObject({ rh: expect.any(String) });
	});
});

describe('Number routing', () => {
	const builder = {
		resource: 'numberRouting',
		operation: 'set',
		number: '441632960002',
		mode: 'builder',
		routes: {
			route: [
				{
					rule: 'office_hours',
					blocks: {
						block: [
							{ type: 'sip', stage: 1, endpoint: 'sales@pbx.acme.example', zone: 'lon', timeout: 20 },
							{ type: 'sip', stage: 1, endpoint: 'sales@pbx2.acme.example' },
							{ type: 'pstn', stage: 2, number: '+447700900123', maxcpm: '0.05', maxcpc: ' 0.10 ', trunk: '123456-office' },
						],
					},
				},
				{ rule: 'default', blocks: { block: [{ type: 'busy', stage: 1 }] } },
			],
		},
		sections: { rules: '{"office_hours": [{"days": "mon-fri", "from": "09:00", "to": "17:30"}]}', metaKey: 'sales', meta: '{"site": "Leeds"}' },
	};

	test('the builder writes stages of blocks with only their own parameters', async () => {
		const run = await runWholesale(sandbox, { ...builder, ...op('numberRouting', 'set') });
		expect(run.error).toBeUndefined();
		expect(run.requests[0]).toMatchObject({ method: 'PUT', path: '/v3/numbers/123456/allocated/441632960002/config' });
		expect(run.requests[0].body).toEqual({
			routing: {
				office_hours: [
					[
						{ type: 'sip', endpoint: 'sales@pbx.acme.example', zone: 'lon', timeout: 20 },
						{ type: 'sip', endpoint: 'sales@pbx2.acme.example' },
					],
					// Amounts as JSON numbers, as in the docs' worked example ("maxcpm": 0.02).
					[{ type: 'pstn', number: '447700900123', maxcpm: 0.05, maxcpc: 0.1, trunk: '123456-office' }],
				],
				default: [[{ type: 'busy' }]],
			},
			rules: { office_hours: [{ days: 'mon-fri', from: '09:00', to: '17:30' }] },
			meta: { site: 'Leeds', key: 'sales' },
		});
		const read = await runWholesale(sandbox, { resource: 'number', operation: 'get', number: '441632960002' });
		expect(read.json[0].meta).toEqual({ site: 'Leeds', key: 'sales' });
	});

	test('the builder: a cost that is not an amount is sent as typed, so the validator names it', async () => {
		const route = { rule: 'default', blocks: { block: [{ type: 'pstn', stage: 1, number: '447700900123', maxcpm: 'cheap' }] } };
		const run = await runWholesale(sandbox, { ...builder, routes: { route: [route] }, sections: {} });
		expect(run.error?.message).toMatch(/routing\.default\[0\]\[0\]\.maxcpm/);
		expect(run.error?.message).toMatch(/"cheap" is not an amount/);
		expect(run.requests).toHaveLength(0);
	});

	test('raw JSON: a simple SIP forward, and fax to e-mail', async () => {
		const sip = await runWholesale(sandbox, { resource: 'numberRouting', operation: 'set', number: '441632960001', mode: 'json', configuration: '{"routing":{"default":[[{"type":"sip","endpoint":"%e164@pbx.acme.example"}]]}}' });
		expect(sip.error).toBeUndefined();
		const fax = await runWholesale(sandbox, { resource: 'numberRouting', operation: 'set', number: '443069990000', mode: 'json', configuration: '{"routing":{"default":[[{"type":"fax","method":"mail","endpoint":"fax@acme.example"}]]}}' });
		expect(fax.error).toBeUndefined();
	});

	test.each([
		['a block parameter of another type', { routing: { default: [[{ type: 'busy', timeout: 10 }]] } }, /routing\.default\[0\]\[0\]\.timeout/],
		['fax combined with a voice block', { routing: { default: [[{ type: 'fax', method: 'mail', endpoint: 'f@x.example' }], [{ type: 'busy' }]] } }, /fax/],
		['a zoned endpoint without an unzoned one', { routing: { default: [[{ type: 'sip', endpoint: 'a@b.example', zone: 'ny' }]] } }, /routing\.default\[0\]/],
		['a routing key with no rule', { routing: { night: [[{ type: 'busy' }]] } }, /routing\.night/],
		['an unknown top-level section', { routing: { default: [[{ type: 'busy' }]] }, custom: { a: 1 } }, /custom/],
		['no routing', { meta: { key: 'x' } }, /routing/],
		['a rule name outside a-z, 0-9 and _ (the public docs)', { rules: { 'Office-Hours': [{ dow: [1, 2, 3, 4, 5] }] }, routing: { 'Office-Hours': [[{ type: 'busy' }]] } }, /rules\.Office-Hours/],
		['a rule\'s dow that is not an array (the public docs: [3] not 3)', { rules: { wednesday: [{ dow: 3 }] }, routing: { wednesday: [[{ type: 'busy' }]] } }, /rules\.wednesday\[0\]\.dow/],
	])('refused before sending: %s', async (_name, configuration, field) => {
		const run = await runWholesale(sandbox, { resource: 'numberRouting', operation: 'set', number: '441632960001', mode: 'json', configuration: JSON.stringify(configuration) });
		expect(run.error?.message).toMatch(field);
		expect(run.requests).toHaveLength(0);
	});

	test('remove the configuration', async () => {
		const run = await runWholesale(sandbox, { ...op('numberRouting', 'remove'), number: '441632960001' });
		expect(run.requests[0]).toMatchObject({ method: 'DELETE', path: '/v3/numbers/123456/allocated/441632960001/config' });
	});
});

describe('UK 999 data', () => {
	test('get; set for a business with only business fields sent', async () => {
		expect((await runWholesale(sandbox, { ...op('uk999', 'get'), number: '441632960001', output: 'raw' })).json[0]).toMatchObject({ postcode: 'LS1 4AP' });
		const run = await runWholesale(sandbox, {
			...op('uk999', 'set'),
			number: '441632960002',
			endUser: 'business',
			name: 'Acme Voice',
			bussuffix: 'Ltd',
			title: 'Mr',
			premises: 'Unit 4',
			thoroughfare: 'Wellington Street',
			locality: 'Leeds',
			postcode: 'LS1 4AP',
		});
		expect(run.error).toBeUndefined();
		expect(run.requests[0].body).toEqual({ name: 'Acme Voice', bussuffix: 'Ltd', premises: 'Unit 4', thoroughfare: 'Wellington Street', locality: 'Leeds', postcode: 'LS1 4AP' });
	});

	test.each([
		['Postcode', { postcode: 'LS14AP' }],
		['Thoroughfare', { thoroughfare: 'x'.repeat(56) }],
		['Locality', { locality: 'x'.repeat(31) }],
	])('charged, so refused before sending: %s', async (field, override) => {
		const run = await runWholesale(sandbox, {
			resource: 'uk999',
			operation: 'set',
			number: '441632960002',
			endUser: 'individual',
			name: 'Lovelace',
			forename: 'Ada',
			premises: '1',
			thoroughfare: 'Engine Street',
			locality: 'London',
			postcode: 'EC1A 1BB',
			...override,
		});
		expectRefused(run, field);
	});
});

describe('US e911', () => {
	const address = { name: 'Acme Voice NY', streetNum: '350', streetInfo: 'Fifth Avenue', location: 'Floor 21', city: 'New York', state: 'NY', postalCode: '10118', postalCodePlusFour: '' };

	test('set: the provisioned address differs and the output says so', async () => {
		const run = await runWholesale(sandbox, { ...op('e911', 'set'), number: '14155550100', ...address });
		expect(run.error).toBeUndefined();
		expect(run.requests[0].body).toEqual({ name: 'Acme Voice NY', streetNum: '350', streetInfo: 'Fifth Avenue', location: 'Floor 21', city: 'New York', state: 'NY', postalCode: '10118' });
		expect(run.json[0]).toMatchObject({ result: 'corrected', provisionedDiffers: true, provisionedDifferences: expect.arrayContaining(['streetInfo']), notice: expect.stringMatching(/differs/) });
		expect((await runWholesale(sandbox, { ...op('e911', 'get'), number: '14155550100', output: 'raw' })).json[0]).toMatchObject({ configured: true, e911Status: 'In Service' });
		expect((await runWholesale(sandbox, { ...op('e911', 'remove'), number: '14155550100' })).json[0]).toMatchObject({ configured: false });
	});

	test('validate for a number and an address without one (candidates only from the latter)', async () => {
		const forNumber = await runWholesale(sandbox, { ...op('e911', 'validateForNumber'), number: '12025550143', ...address });
		expect(forNumber.requests[0].path).toBe('/v3/numbers/123456/allocated/12025550143/e911/validate');
		expect(forNumber.json[0]).toMatchObject({ valid: true, number: '12025550143', result: 'valid', candidateAddresses: [] });
		const springfield = await runWholesale(sandbox, { ...op('e911', 'validateAddress'), streetNum: '1', streetInfo: 'Main Street', city: 'Springfield', state: 'IL', postalCode: '99999' });
		expect(springfield.error).toBeUndefined();
		expect(springfield.json).toHaveLength(1);
		expect(springfield.json[0]).toMatchObject({ valid: false, code: 'e911.address_invalid', message: expect.stringMatching(/ambiguous/) });
		expect((springfield.json[0].candidateAddresses as unknown[]).length).toBeGreaterThan(1);
	});

	test('a refused address is the verdict of a validation (with the suggestions), and an error with them for Set; other refusals stay errors', async () => {
		const wrongState = { ...address, state: 'NJ' };
		const checked = await runWholesale(sandbox, { ...op('e911', 'validateForNumber'), number: '12025550143', ...wrongState });
		expect(checked.error).toBeUndefined();
		expect(checked.json[0]).toMatchObject({ valid: false, number: '12025550143', code: 'e911.address_invalid', field: 'state', correctedAddress: expect.objectContaining({ state: 'NY' }) });
		const required = await runWholesale(sandbox, { ...op('e911', 'validateAddress'), ...address, name: undefined, location: '' });
		expect(required.json[0]).toMatchObject({ valid: false, code: 'e911.field_required', field: 'location' });
		const set = await runWholesale(sandbox, { ...op('e911', 'set'), number: '14155550100', ...wrongState }, { continueOnFail: true });
		expect(set.json[0]).toMatchObject({ code: 'e911.address_invalid', description: expect.stringMatching(/suggests: corrected address \{.*"state":"NY"/) });
		await admin('/e911/faults', { code: 'e911.not_enabled' });
		const notEnabled = await runWholesale(sandbox, { ...op('e911', 'validateAddress'), ...address }, { continueOnFail: true });
		expect(notEnabled.json[0]).toMatchObject({ code: 'e911.not_enabled', error: expect.stringMatching(/e911\.not_enabled/) });
	});

	test('the platform code reaches the user; partially_applied is not retried; retry codes are', async () => {
		await admin('/e911/faults', { code: 'e911.partially_applied' });
		const partial = await runWholesale(sandbox, { resource: 'e911', operation: 'set', number: '14155550100', ...address }, { continueOnFail: true });
		expect(partial.requests).toHaveLength(1);
		expect(partial.json[0]).toMatchObject({ code: 'e911.partially_applied', description: expect.stringMatching(/read the current e911 record first/) });
		await admin('/e911/faults', { code: 'e911.retry', count: 1 });
		const retried = await runWholesale(sandbox, { resource: 'e911', operation: 'get', number: '12025550143' }, { maxRateLimitWait: 5 });
		expect(retried.error).toBeUndefined();
		expect(retried.requests.map((r) => r.status)).toEqual([503, 200]);
	});

	test.each([
		['Street', { streetInfo: '350 Fifth Ave #21' }],
		['State', { state: 'New York' }],
		['ZIP+4', { postalCodePlusFour: '12-3' }],
		['Postal Code', { postalCode: '101' }],
	])('refused before sending: %s', async (field, override) => {
		expectRefused(await runWholesale(sandbox, { resource: 'e911', operation: 'set', number: '14155550100', ...address, ...override }), field);
	});

	test('a number that is not a US number is refused before sending', async () => {
		expectRefused(await runWholesale(sandbox, { resource: 'e911', operation: 'get', number: '441632960001' }), 'Number');
	});
});

describe('Porting', () => {
	const submission = {
		mode: 'fields',
		mbn: '01632 960200',
		lcp: '001|BT',
		portType: 'multi',
		lines: 2,
		channels: 2,
		contactEmail: 'porting@acme.example',
		billingPostcode: 'LS1 4AP',
		customer: { name: 'Lovelace', company: 'Acme', premises: 'Unit 4', thoroughfare: 'Wellington Street', locality: 'Leeds', postcode: 'LS1 4AP' },
		numbers: { number: [{ number: '01632960201', type: 'associated', action: 'port' }] },
	};

	test('losing providers (also the dropdown), submit (MBN listed first), get many, get with events', async () => {
		const lcps = await runWholesale(sandbox, { ...op('port', 'getLosingProviders'), returnAll: true });
		expect(lcps.json[0]).toMatchObject({ cpName: expect.any(String), cupid: expect.any(String) });
		const options = await listLoadOptions(sandbox, 'getLosingProviders');
		expect(options[0]).toMatchObject({ value: `${lcps.json[0].cupid}|${lcps.json[0].cpName}` });
		const cp = lcps.json.find((c) => c.cupid === '001') ?? lcps.json[0];
		const run = await runWholesale(sandbox, { ...op('port', 'submit'), ...submission, lcp: `${cp.cupid}|${cp.cpName}` });
		expect(run.error).toBeUndefined();
		expect(run.requests[0]).toMatchObject({ method: 'POST', path: '/v3/porting/123456/gnp' });
		const body = run.requests[0].body as IDataObject;
		expect(body).toMatchObject({ mbn: '01632960200', lcp: cp.cpName, lcp_cupid: cp.cupid, type: 'multi', contact_email: 'porting@acme.example' });
		expect(body.numbers).toEqual([
			{ number: '01632960200', type: 'mbn', action: 'port' },
			{ number: '01632960201', type: 'associated', action: 'port' },
		]);
		expect(run.json[0]).toMatchObject({ success: true, ref: expect.any(Number) });
		const ports = await runWholesale(sandbox, { ...op('port', 'getAll'), returnAll: true, output: 'raw' });
		expect(ports.json.map((p) => p.ref)).toContain(run.json[0].ref);
		const one = await runWholesale(sandbox, { ...op('port', 'get'), ref: String(run.json[0].ref), output: 'raw' });
		expect(one.json[0]).toMatchObject({ mbn: '01632960200', events: expect.any(Array) });
		// A provider list that gives an integer cupid below 100: sent as the integer, not refused as text.
		const small = await runWholesale(sandbox, { ...op('port', 'submit'), ...submission, mbn: '01632960300', numbers: { number: [] }, lcp: '7|Tiny Telecom' }, { continueOnFail: true });
		expect(small.requests).toHaveLength(1);
		expect(small.requests[0].body).toMatchObject({ lcp: 'Tiny Telecom', lcp_cupid: 7 });
	});

	test.each([
		['a mobile number (needs MNP)', { mbn: '07700900123' }, /07/],
		['retain on an associated number', { numbers: { number: [{ number: '01632960201', type: 'associated', action: 'retain' }] } }, /retain/],
		['a customer without premises', { customer: { thoroughfare: 'x', locality: 'y', postcode: 'LS1 4AP' } }, /premises/],
		['a non-geographic number', { numbers: { number: [{ number: '03001234567', type: 'other', action: 'port' }] } }, /non-geographic/],
	])('charged, so refused before sending: %s', async (_name, override, message) => {
		const run = await runWholesale(sandbox, { resource: 'port', operation: 'submit', ...submission, ...override });
		expect(`${run.error?.message} ${run.error?.description}`).toMatch(message);
		expect(run.requests).toHaveLength(0);
	});

	test('JSON mode sends the submission as written, after the same checks', async () => {
		const json = { mbn: '01632960300', lcp: 'BT', lcp_cupid: '001', type: 'single', lines: 1, channels: 1, contact_email: 'p@acme.example', billing_postcode: 'LS1 4AP', customer: { premises: '1', thoroughfare: 'A Street', locality: 'Leeds', postcode: 'LS1 4AP' }, numbers: [{ number: '01632960300', type: 'mbn', action: 'port' }] };
		const run = await runWholesale(sandbox, { resource: 'port', operation: 'submit', mode: 'json', submission: JSON.stringify(json) });
		expect(run.error).toBeUndefined();
		expect(run.requests[0].body).toEqual(json);
	});
});
