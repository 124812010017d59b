/**
 * The output choice of every Hosted PBX Get and Get Many: Simplified by default (the record's id,
 * plain fields, no URIs or links), Raw (the records exactly as answered: the id Simplified takes from
 * the URI is not added), Selected Fields (the id and the chosen fields). The credit status has no id: its URI ends in a word.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import type { PbxUserName } from './pbxTestKit';
import { locator, runPbx } from './pbxTestKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const PASSWORDS: Record<PbxUserName, string> = {
	reseller: 'reseller-secret',
	'acme.admin': 'acme-admin-secret',
	'acme.201': 'acme-201-secret',
	'bright.admin': 'bright-admin-secret',
};

/** The records of a path as the API answers them. */
async function answered(path: string, user: PbxUserName = 'acme.admin'): Promise<IDataObject[]> {
	const response = await fetch(`${sandbox.url}/api/v1${path}`, {
		headers: { Authorization: `Basic ${Buffer.from(`${user}:${PASSWORDS[user]}`).toString('base64')}`, Accept: 'application/json' },
	});
	const body = (await response.json()) as IDataObject;
	const records = Array.isArray(body.items) ? (body.items as IDataObject[]) : [body];
	return records;
}

interface Case {
	name: string;
	parameters: INodeParameters;
	/** What the API answers at, for the Raw comparison. */
	path: string;
	user?: PbxUserName;
	/** The Simplified form of one record (by id), exactly. */
	simplified: IDataObject;
	/** Two raw fields for Selected Fields. */
	chosen: [string, string];
}

const many = (resource: string, extra: INodeParameters = {}) => ({ resource, operation: 'getAll', returnAll: true, ...extra });
const one = (resource: string, idName: string, id: string) => ({ resource, operation: 'get', [idName]: locator(id) });

const CASES: Case[] = [
	{
		name: 'customer get',
		parameters: { resource: 'customer', operation: 'get' },
		path: '/customers/me',
		simplified: {
			id: '1001', company: 'Acme Widgets Ltd', accountType: 'business', contactName: 'Ada Lovelace', email: 'ada@acme.example',
			telephone: '+441632960001', address: '1 Engine Street, Unit 4, London, EC1A 1BB, GB',
		},
		chosen: ['links', 'properties'],
	},
	{
		name: 'customer getAll (a list omits the country)',
		parameters: many('customer'),
		path: '/customers?pageSize=200',
		user: 'reseller',
		simplified: {
			id: '1002', company: 'Brightside Dental', accountType: 'residential', contactName: 'Grace Hopper', email: 'grace@brightside.example',
			telephone: '+441632960002', address: '22 Molar Road, Leeds, LS1 4AP',
		},
		chosen: ['created', 'postcode'],
	},
	{
		name: 'phoneBook get (no speed dial: left out)',
		parameters: one('phoneBook', 'entryId', '3'),
		path: '/customers/me/phonebook/3',
		simplified: { id: '3', name: 'Carol White', phoneNumber: '+441632960123' },
		chosen: ['created', 'uri'],
	},
	{
		name: 'phoneBook getAll',
		parameters: many('phoneBook'),
		path: '/customers/me/phonebook?pageSize=200',
		simplified: { id: '1', name: 'Alice Jones', phoneNumber: '+447700900001', speedDial: 1 },
		chosen: ['speedDial', 'type'],
	},
	{
		name: 'sms get (an outgoing message, delivered)',
		parameters: one('sms', 'smsId', '2'),
		path: '/customers/me/sms/2',
		simplified: { id: '2', direction: 'OUT', from: 'Acme', to: '+447700900001', body: 'Sure, calling at 3pm', created: expect.stringMatching(ISO_UTC), status: 'delivered to handset' },
		chosen: ['sendStatus', 'deliveryStatus'],
	},
	{
		name: 'sms getAll (an inbound message)',
		parameters: many('sms'),
		path: '/customers/me/sms?pageSize=200',
		simplified: { id: '1', direction: 'IN', from: '+447700900001', to: '+441632960001', body: 'Can you call me back?', created: expect.stringMatching(ISO_UTC), status: 'received' },
		chosen: ['cost', 'body'],
	},
	{
		name: 'call getAll',
		parameters: many('call'),
		path: '/customers/me/calls?pageSize=200',
		simplified: { id: '1', direction: 'IN', from: '+447700900001', to: '201', started: expect.stringMatching(ISO_UTC), duration: 125, outcome: 'ANSWERED', cost: 0 },
		chosen: ['callId', 'links'],
	},
	{
		name: 'recording get',
		parameters: one('recording', 'recordingId', '1'),
		path: '/customers/me/recordings/1',
		simplified: { id: '1', direction: 'IN', party: '+447700900001', started: expect.stringMatching(ISO_UTC), callId: 'c-1000', linkedId: 'c-1000', endpointId: '201' },
		chosen: ['size', 'endpoint'],
	},
	{
		name: 'recording getAll',
		parameters: many('recording', { filters: {} }),
		path: '/customers/me/recordings?pageSize=200',
		simplified: { id: '3', direction: 'OUT', party: '202', started: expect.stringMatching(ISO_UTC), callId: 'c-2000', linkedId: 'c-2000', endpointId: '201' },
		chosen: ['partyId', 'started'],
	},
	{
		name: 'sound get (music says whether it plays)',
		parameters: one('sound', 'soundId', '3'),
		path: '/customers/me/sounds/3',
		simplified: { id: '3', name: 'Hold music', type: 'music', enabled: true },
		chosen: ['size', 'name'],
	},
	{
		name: 'sound getAll',
		parameters: many('sound', { type: '' }),
		path: '/customers/me/sounds?pageSize=200',
		simplified: { id: '1', name: 'Welcome greeting', type: 'prompt' },
		chosen: ['size', 'created'],
	},
	{
		name: 'phoneNumber get',
		parameters: one('phoneNumber', 'phoneNumberId', '1'),
		path: '/customers/me/phonenumbers/1',
		simplified: { id: '1', number: '+441632960001', label: 'Main line', endpointId: '201', smsEnabled: true, faxEnabled: false },
		chosen: ['routingRules', 'destination'],
	},
	{
		name: 'phoneNumber getAll (no label: left out)',
		parameters: many('phoneNumber'),
		path: '/customers/me/phonenumbers?pageSize=200',
		simplified: { id: '2', number: '+441632960011', endpointId: '202', smsEnabled: false, faxEnabled: false },
		chosen: ['identifier', 'smsAllowIncoming'],
	},
	{
		name: 'outgoingCallerId get',
		parameters: one('outgoingCallerId', 'callerIdId', '2'),
		path: '/customers/me/outgoingcallerids/2',
		simplified: { id: '2', number: '+441632960099', allowCalls: true, allowSms: true },
		chosen: ['allowSms', 'created'],
	},
	{
		name: 'outgoingCallerId getAll',
		parameters: many('outgoingCallerId'),
		path: '/customers/me/outgoingcallerids?pageSize=200',
		simplified: { id: '1', number: 'Acme', allowCalls: false, allowSms: true },
		chosen: ['number', 'uri'],
	},
	{
		name: 'callBundle get',
		parameters: one('callBundle', 'bundleId', '1'),
		path: '/customers/me/callbundles/1',
		simplified: {
			id: '1', name: 'UK 1000', status: 'ACTIVE', inclusiveMins: 1000, usedMins: 420, availableMins: 580,
			validFrom: expect.stringMatching(ISO_UTC), validTo: expect.stringMatching(ISO_UTC), autoRenew: true, priceMonthly: 10,
		},
		chosen: ['availableMins', 'validTo'],
	},
	{
		name: 'callBundle getAll',
		parameters: many('callBundle'),
		path: '/customers/me/callbundles?pageSize=200',
		simplified: {
			id: '2', name: 'Mobile 500', status: 'EXPIRED', inclusiveMins: 500, usedMins: 500, availableMins: 0,
			validFrom: expect.stringMatching(ISO_UTC), validTo: expect.stringMatching(ISO_UTC), autoRenew: false, priceMonthly: 8,
		},
		chosen: ['status', 'autoRenew'],
	},
	{
		name: 'endpoint getDnd',
		parameters: { resource: 'endpoint', operation: 'getDnd', endpointId: locator('203') },
		path: '/customers/me/endpoints/203/phonestatus',
		simplified: { id: '203', endpointId: '203', dndActive: true },
		chosen: ['parent', 'dndActive'],
	},
];

const json = (run: { items: Array<{ json: IDataObject }> }) => run.items.map((item) => item.json);

describe.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
	test('Simplified by default: the id first, plain fields, no URIs, links or types', async () => {
		const run = await runPbx(sandbox, c.parameters, { user: c.user });
		expect(run.error).toBeUndefined();
		const items = json(run);
		expect(items.length).toBeGreaterThan(0);
		expect(items.find((item) => item.id === c.simplified.id)).toEqual(c.simplified);
		for (const item of items) {
			expect(Object.keys(item)[0]).toBe('id');
			// URIs and links (the endpoints they name become endpointId); a type only where it says something (a sound: prompt or music).
			const plumbing = ['uri', 'links', 'parent', 'destination', 'endpoint', ...(c.parameters.resource === 'sound' ? [] : ['type'])];
			expect(Object.keys(item).filter((key) => plumbing.includes(key))).toEqual([]);
			expect(Object.values(item).some((value) => value !== null && typeof value === 'object')).toBe(false);
		}
		expect(run.items.map((item) => item.pairedItem)).toEqual(items.map(() => ({ item: 0 })));
	});

	test('Raw: the records exactly as the API answers them, nothing added', async () => {
		const run = await runPbx(sandbox, { ...c.parameters, output: 'raw' }, { user: c.user });
		expect(run.error).toBeUndefined();
		const raw = await answered(c.path, c.user);
		expect(json(run)).toEqual(raw);
		expect(json(run).map((item) => Object.keys(item))).toEqual(raw.map((record) => Object.keys(record)));
		expect(json(run).every((item) => typeof item.uri === 'string')).toBe(true);
	});

	test('Selected Fields: the id and the chosen fields, as the API names them', async () => {
		const run = await runPbx(sandbox, { ...c.parameters, output: 'fields', fields: c.chosen }, { user: c.user });
		expect(run.error).toBeUndefined();
		const raw = await answered(c.path, c.user);
		const simplified = json(await runPbx(sandbox, c.parameters, { user: c.user }));
		expect(json(run)).toEqual(raw.map((record, at) => ({ id: simplified[at].id, ...Object.fromEntries(c.chosen.filter((key) => key in record).map((key) => [key, record[key]])) })));
		expect(json(run).every((item) => item.id !== undefined && c.chosen.some((key) => key in item))).toBe(true);
	});
});

test('the type of a sound stays (it says prompt or music); other types are left out', async () => {
	const [prompt] = json(await runPbx(sandbox, one('sound', 'soundId', '1')));
	expect(prompt).toEqual({ id: '1', name: 'Welcome greeting', type: 'prompt' });
	const [entry] = json(await runPbx(sandbox, one('phoneBook', 'entryId', '1')));
	expect(entry).not.toHaveProperty('type');
});

test('a record that echoes the password: masked, says so beside its data, and Simplified still has its id', async () => {
	const created = await fetch(`${sandbox.url}/api/v1/customers/me/phonebook`, {
		method: 'POST',
		headers: { Authorization: `Basic ${Buffer.from(`acme.admin:${PASSWORDS['acme.admin']}`).toString('base64')}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ type: 'phonebookentry', name: `Echo ${PASSWORDS['acme.admin']}`, phoneNumber: '+447700900077' }),
	});
	const id = String(((await created.json()) as IDataObject).uri).split('/').pop()!;
	const get = (output: string) => runPbx(sandbox, { ...one('phoneBook', 'entryId', id), output, fields: ['name'] });
	expect(json(await get('simple'))).toEqual([{ id, name: 'Echo ***', phoneNumber: '+447700900077', redacted: true }]);
	expect(json(await get('fields'))).toEqual([{ id, name: 'Echo ***', redacted: true }]);
	const [raw] = json(await get('raw'));
	expect([raw.id, raw.name, raw.redacted]).toEqual([undefined, 'Echo ***', true]);
});

test('Selected Fields with none chosen gives the id alone; a field a record lacks is left out', async () => {
	expect(json(await runPbx(sandbox, { ...one('phoneBook', 'entryId', '1'), output: 'fields', fields: [] }))).toEqual([{ id: '1' }]);
	expect(json(await runPbx(sandbox, { ...one('phoneBook', 'entryId', '3'), output: 'fields', fields: ['speedDial', 'name'] }))).toEqual([{ id: '3', name: 'Carol White' }]);
});

test('a field that is not one of the record\'s is refused before anything is sent', async () => {
	const run = await runPbx(sandbox, { ...one('phoneBook', 'entryId', '1'), output: 'fields', fields: ['name', 'password'] });
	expect(run.error?.message).toMatch(/^Invalid Fields: "password" is not one of the options/);
	expect(run.requests).toHaveLength(0);
	const output = await runPbx(sandbox, { ...one('phoneBook', 'entryId', '1'), output: 'everything' });
	expect(output.error?.message).toMatch(/^Invalid Output:/);
	expect(output.requests).toHaveLength(0);
});

test('Limit applies before the shape: 2 simplified entries from one request of 2', async () => {
	const run = await runPbx(sandbox, { resource: 'phoneBook', operation: 'getAll', returnAll: false, limit: 2 });
	expect(json(run)).toEqual([
		{ id: '1', name: 'Alice Jones', phoneNumber: '+447700900001', speedDial: 1 },
		{ id: '2', name: 'Bob Smith', phoneNumber: '+447700900002', speedDial: 2 },
	]);
	expect(run.requests.map((r) => r.query)).toEqual([{ pageSize: '2', page: '1' }]);
});

test('a call history of 50 calls: Simplified is at most a third of Raw (JSON bytes of the items)', async () => {
	await fetch(`${sandbox.url}/_sandbox/pbx/bulk`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ collection: 'calls', count: 50, replace: true }) });
	const history = async (output: string) => json(await runPbx(sandbox, { resource: 'call', operation: 'getAll', returnAll: false, limit: 50, output }));
	const simplified = await history('simple');
	const raw = await history('raw');
	expect([simplified.length, raw.length]).toEqual([50, 50]);
	expect(simplified.map((call) => call.id)).toEqual(raw.map((call) => String(call.uri).split('/').pop()));
	const ratio = JSON.stringify(simplified).length / JSON.stringify(raw).length;
	expect(ratio).toBeLessThanOrEqual(1 / 3);
});

describe('the credit status: no id (its URI ends in the word creditstatus), and Raw as answered', () => {
	const parameters = { resource: 'creditStatus', operation: 'get' };
	const CREDIT_PATH = '/api/v1/customers/me/creditstatus';

	test('Simplified: prepaid or postpaid and the balance, nothing made up; Selected Fields: the chosen fields alone', async () => {
		expect(json(await runPbx(sandbox, parameters))).toEqual([{ accountType: 'PREPAID', balance: 42.5 }]);
		expect(json(await runPbx(sandbox, { ...parameters, output: 'fields', fields: ['balance', 'type'] }))).toEqual([{ balance: 42.5, type: 'creditstatus' }]);
	});

	test('Raw: the answer exactly, without an id; the balance named creditRemaining is read by Simplified, not added to Raw', async () => {
		const [record] = await answered('/customers/me/creditstatus');
		const asAnswered = { ...record };
		delete asAnswered.id;
		expect(json(await runPbx(sandbox, { ...parameters, output: 'raw' }))).toEqual([asAnswered]);
		const sample = { type: 'creditstatus', uri: `${sandbox.url}${CREDIT_PATH}`, accountType: 'POSTPAID', creditRemaining: 12.5 };
		const answer = () => sandbox.context.faults.add({ api: 'pbx', method: 'GET', pathPrefix: CREDIT_PATH, status: 200, body: sample, headers: { 'Content-Type': 'application/json' } });
		answer();
		expect(json(await runPbx(sandbox, { ...parameters, output: 'raw' }))).toEqual([sample]);
		answer();
		expect(json(await runPbx(sandbox, parameters))).toEqual([{ accountType: 'POSTPAID', balance: 12.5 }]);
	});
});
