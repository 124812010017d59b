/**
 * The output choice of the Wholesale Voice reads whose records the contract shows: Simplified by
 * default (the record's id first, its plain fields, nothing nested), Raw (the records exactly as the
 * API answered them, one item per record, the envelope removed: what the node adds is Simplified's),
 * Selected Fields (the id and the chosen fields).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { trunk } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/actions/trunk';
import { shapeFields } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/outputShape';
import { fakeClockForFile } from '../../harness/clock';
import { runWholesale } from './wholesaleKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());
// Calls in progress cost more every second: a clock that stands still while Raw and Simplified are read.
fakeClockForFile();

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const TWO_DAYS_AGO = () => new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');

/** The records at a path as the API answers them, the `{success, data}` envelope removed. */
async function answered(path: string, key?: string): Promise<IDataObject[]> {
	const response = await fetch(`${sandbox.url}${path}`, { headers: { Authorization: `Basic ${Buffer.from('api123456:wv-demo-123456').toString('base64')}` } });
	const body = (await response.json()) as IDataObject;
	const data = key ? body[key] : 'success' in body && 'data' in body ? body.data : body;
	return (Array.isArray(data) ? data : [data]) as IDataObject[];
}

interface Case {
	name: string;
	parameters: INodeParameters;
	/** Where the API answers the same records (GET), and the list's key when it is not `data`. */
	path: string;
	key?: string;
	/** Where the id comes from, when the record has one. */
	id?: string | ((record: IDataObject) => unknown);
	/** The Simplified form of the first record. */
	simplified: IDataObject;
	chosen: [string, string];
}

const many = (resource: string, operation: string, extra: INodeParameters = {}) => ({ resource, operation, returnAll: true, ...extra });

const CASES: Case[] = [
	{
		name: 'invoice getAll (its number is the id; the envelope\'s totals due are on no invoice)',
		parameters: many('invoice', 'getAll', { status: 'all' }),
		path: '/v3/accounts/123456/credit/invoices/all',
		key: 'Invoices',
		id: 'InvoiceNumber',
		simplified: { id: expect.any(String), date: expect.any(String), due_date: expect.any(String), currency: 'GBP', total: expect.any(String), amount_due: expect.any(String) },
		chosen: ['Total', 'AmountDue'],
	},
	{
		name: 'port getAll',
		parameters: many('port', 'getAll'),
		path: '/v3/porting/123456/gnp',
		id: 'ref',
		simplified: { id: 40001, mbn: '01632960100', status: 'complete', date: expect.stringMatching(ISO_UTC), crd: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) },
		chosen: ['status_code', 'crd'],
	},
	{
		name: 'port get (customer, numbers and the port date on one line each)',
		parameters: { resource: 'port', operation: 'get', ref: '40001' },
		path: '/v3/porting/123456/gnp/40001',
		id: 'ref',
		simplified: {
			id: 40001, mbn: '01632960100', status: 'complete', type: 'multi', lcp: 'BT', port_date: expect.stringMatching(ISO_UTC),
			customer: 'Acme Widgets Ltd', numbers: '01632960100, 01632960101, 01632960102',
		},
		chosen: ['events', 'rh'],
	},
	{
		name: 'rate getTariffs (the deck, from the rate card URL, is the id)',
		parameters: many('rate', 'getTariffs'),
		path: '/v3/accounts/123456/rates/tariffs',
		id: (r) => String(r.url).split('/').pop(),
		simplified: { id: 'platinum', description: 'Platinum', servicelevel: 1, quality: 'premium' },
		chosen: ['url', 'prefix'],
	},
	{
		name: 'rate getDestinationRate (each deck\'s peak rate and connection charge flat, named)',
		parameters: { resource: 'rate', operation: 'getDestinationRate', number: '447700900123' },
		path: '/v3/accounts/123456/rate/447700900123',
		simplified: {
			description: expect.any(String),
			...Object.fromEntries(['platinum', 'gold', 'silver'].flatMap((deck) => ['peak', 'connection'].map((rate) => [`${deck}_${rate}`, expect.stringMatching(/^\d+\.\d+$/)]))),
		},
		chosen: ['rates', 'desc'],
	},
	{
		name: 'trunk getAll (limits without a value left out)',
		parameters: many('trunk', 'getAll'),
		path: '/v3/voice/123456/trunks',
		id: (r) => r.trunk ?? r.name,
		simplified: { id: '123456-L001', type: 'IP', cli_format: 'e164', enabled: 1, enable_in: 1, enabled_out: 1 },
		chosen: ['limit_concurrent_out', 'enabled'],
	},
	{
		name: 'trunk get',
		parameters: { resource: 'trunk', operation: 'get', trunk: { __rl: true, mode: 'name', value: 'office' } },
		path: '/v3/voice/123456/trunks/123456-office',
		id: (r) => r.trunk ?? r.name,
		simplified: { id: '123456-office', type: 'auth', cli_format: 'e164', enabled: 1, enable_in: 1, enabled_out: 1 },
		chosen: ['type', 'cli_format'],
	},
	{
		name: 'voice getCdrs (the cdr_id is the id)',
		parameters: { resource: 'voice', operation: 'getCdrs', period: 'range', dateStart: TWO_DAYS_AGO(), returnAll: false, limit: 20, filters: {} },
		path: `/v3/voice/123456/cdr?date_start=${encodeURIComponent(TWO_DAYS_AGO())}&limit=20`,
		id: 'cdr_id',
		simplified: {
			id: expect.any(String), direction: expect.stringMatching(/^(in|out)$/), from: expect.any(String), to: expect.any(String), destination: expect.any(String),
			started: expect.stringMatching(ISO_UTC), duration: expect.any(Number), cost: expect.any(Number), currency: 'GBP',
		},
		chosen: ['call_id', 'secs_billed'],
	},
	{
		name: 'voice getLimits (the dynamic block flat)',
		parameters: { resource: 'voice', operation: 'getLimits' },
		path: '/v3/voice/123456/limits',
		simplified: {
			limit_concurrent_in: 10, limit_concurrent_out: 20, channel_allocation: 30, channel_allocation_adjustable: true, channel_allocation_global_numbers: 4, dynamic_active: false,
		},
		chosen: ['dynamic', 'channel_allocation'],
	},
	{
		name: 'voice getCallsInProgress (the totals, the destinations on one line)',
		parameters: { resource: 'voice', operation: 'getCallsInProgress' },
		path: '/v3/voice/123456/inprogress/current',
		simplified: {
			callcount: 3, answeredcount: 2, total: expect.any(Number), currency: 'GBP', balance_available: expect.any(Number), approx_seconds_remaining: expect.any(Number),
			datetime: expect.any(String), destinations: 'United Kingdom - Fixed: 1 (0 answered), United Kingdom - Mobile, Other: 1 (1 answered), France - Mobile: 1 (1 answered)',
		},
		chosen: ['balance', 'countries'],
	},
	{
		name: 'uk999 get (name and address on one line each)',
		parameters: { resource: 'uk999', operation: 'get', number: '441632960001' },
		path: '/v3/numbers/123456/allocated/441632960001/999',
		simplified: { name: 'Acme Voice Ltd', address: 'Unit 4, Wellington Street, Leeds, LS1 4AP' },
		chosen: ['postcode', 'bussuffix'],
	},
	{
		name: 'e911 get (the number is the id; the address in force on one line)',
		parameters: { resource: 'e911', operation: 'get', number: '12025550143' },
		path: '/v3/numbers/123456/allocated/12025550143/e911',
		id: 'number',
		simplified: {
			id: '12025550143', configured: true, status: 'In Service', activated: expect.stringMatching(ISO_UTC), name: 'Acme Voice DC Office',
			address: '1600 Pennsylvania Ave NW, Suite 200, Washington, DC 20500',
		},
		chosen: ['provisionedAddress', 'e911Status'],
	},
	{
		name: 'notification getAll (the type is the id)',
		parameters: many('notification', 'getAll'),
		path: '/v3/accounts/123456/notifications',
		id: 'type',
		simplified: { id: 'low_balance', class: 'billing', description: expect.stringMatching(/balance/), recipients: 'ops@acme.example (email), 447700900999 (sms)' },
		chosen: ['recipients', 'class'],
	},
];

describe.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
	test('Simplified by default: the id first, plain fields, nothing nested', async () => {
		const run = await runWholesale(sandbox, c.parameters);
		expect(run.error).toBeUndefined();
		expect(run.json.length).toBeGreaterThan(0);
		expect(run.json[0]).toEqual(c.simplified);
		for (const item of run.json) {
			if (c.id) expect(Object.keys(item)[0]).toBe('id');
			expect(Object.values(item).some((value) => value !== null && typeof value === 'object')).toBe(false);
			expect(Object.keys(item).filter((key) => ['url', 'uri', 'links'].includes(key))).toEqual([]);
		}
	});

	test('Raw: the records exactly as the API answered them; Simplified is no larger (JSON bytes)', async () => {
		const run = await runWholesale(sandbox, { ...c.parameters, output: 'raw' });
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual(await answered(c.path, c.key));
		const simplified = (await runWholesale(sandbox, c.parameters)).json;
		expect(JSON.stringify(simplified).length).toBeLessThanOrEqual(JSON.stringify(run.json).length);
	});

	test('Selected Fields: the id and the chosen fields, as the API names them', async () => {
		const raw = (await runWholesale(sandbox, { ...c.parameters, output: 'raw' })).json;
		const run = await runWholesale(sandbox, { ...c.parameters, output: 'fields', fields: c.chosen });
		expect(run.error).toBeUndefined();
		const idOf = (record: IDataObject) => (typeof c.id === 'function' ? c.id(record) : c.id && record[c.id]);
		const pick = (record: IDataObject) => ({ ...(c.id ? { id: idOf(record) } : {}), ...Object.fromEntries(c.chosen.filter((key) => key in record).map((key) => [key, record[key]])) });
		expect(run.json).toEqual(raw.map(pick));
	});
});

test('calls in progress, one item per destination: Simplified adds the currency; Raw is each entry of the `calls` map with its key', async () => {
	const parameters = { resource: 'voice', operation: 'getCallsInProgress', view: 'destinations' };
	const [first] = (await runWholesale(sandbox, parameters)).json;
	expect(first).toEqual({ id: expect.any(String), callcount: expect.any(Number), answeredcount: expect.any(Number), total: expect.any(Number), currency: 'GBP', location: expect.any(String) });
	const [record] = await answered('/v3/voice/123456/inprogress/current');
	const raw = (await runWholesale(sandbox, { ...parameters, output: 'raw' })).json;
	expect(raw).toEqual(Object.entries(record.calls as IDataObject).map(([key, destination]) => ({ dest_id: key, ...(destination as IDataObject) })));
	expect(JSON.stringify((await runWholesale(sandbox, parameters)).json).length).toBeLessThanOrEqual(JSON.stringify(raw).length);
	const picked = (await runWholesale(sandbox, { ...parameters, output: 'fields', fields: ['currency', 'callcount'] })).json;
	expect(picked[0]).toEqual({ id: first.id, currency: 'GBP', callcount: first.callcount });
});

/** The next GET at `path` is answered 200 with `body` (a record the spec shows, where the sandbox shows more or other). */
function answerOnce(path: string, body: unknown) {
	sandbox.context.faults.add({ api: 'wholesale', method: 'GET', pathPrefix: path, status: 200, body, headers: { 'Content-Type': 'application/json' } });
}

describe('trunks named in `trunk`, as the API names a trunk wherever the spec shows one', () => {
	const trunkRecord = (trunk: string, type = 'IP') => ({ trunk, type, cli_format: 'e164', enabled: 1, enable_in: 1, enabled_out: 1 });
	const three = { success: true, data: [trunkRecord('123456-L001'), trunkRecord('123456-L002', 'auth'), trunkRecord('123456-L003')] };

	test('Get Many: three items told apart by their id; Raw as answered', async () => {
		answerOnce('/v3/voice/123456/trunks', three);
		const simplified = (await runWholesale(sandbox, many('trunk', 'getAll'))).json;
		expect(simplified).toEqual([
			{ id: '123456-L001', type: 'IP', cli_format: 'e164', enabled: 1, enable_in: 1, enabled_out: 1 },
			{ id: '123456-L002', type: 'auth', cli_format: 'e164', enabled: 1, enable_in: 1, enabled_out: 1 },
			{ id: '123456-L003', type: 'IP', cli_format: 'e164', enabled: 1, enable_in: 1, enabled_out: 1 },
		]);
		answerOnce('/v3/voice/123456/trunks', three);
		expect((await runWholesale(sandbox, { ...many('trunk', 'getAll'), output: 'raw' })).json).toEqual(three.data);
	});

	test('Get and Selected Fields: the id, and `trunk` offered and given', async () => {
		answerOnce('/v3/voice/123456/trunks/123456-L002', { success: true, data: trunkRecord('123456-L002', 'auth') });
		const got = (await runWholesale(sandbox, { resource: 'trunk', operation: 'get', trunk: { __rl: true, mode: 'name', value: 'L002' } })).json;
		expect(got).toEqual([{ id: '123456-L002', type: 'auth', cli_format: 'e164', enabled: 1, enable_in: 1, enabled_out: 1 }]);
		answerOnce('/v3/voice/123456/trunks', three);
		const picked = (await runWholesale(sandbox, { ...many('trunk', 'getAll'), output: 'fields', fields: ['trunk', 'type'] })).json;
		expect(picked).toEqual(three.data.map((t) => ({ id: t.trunk, trunk: t.trunk, type: t.type })));
		for (const value of ['get', 'getAll']) {
			const op = trunk.operations.find((o) => o.value === value)!;
			const offered = ((shapeFields(op)[1].options ?? []) as Array<{ value: string }>).map((o) => o.value);
			expect([value, offered.includes('trunk'), offered.includes('name')]).toEqual([value, true, false]);
		}
	});
});

test('port get: the detail as the contract shows it (no `ref`) is Raw exactly; Simplified has the reference asked for as its id', async () => {
	const detail = { mbn: '01632960100', status: 'complete', status_code: 'complete', type: 'single', lcp: 'BT', customer: { company: 'Acme' }, numbers: [], events: [] };
	answerOnce('/v3/porting/123456/gnp/40001', { success: true, data: detail });
	expect((await runWholesale(sandbox, { resource: 'port', operation: 'get', ref: '40001', output: 'raw' })).json).toEqual([detail]);
	answerOnce('/v3/porting/123456/gnp/40001', { success: true, data: detail });
	expect((await runWholesale(sandbox, { resource: 'port', operation: 'get', ref: ' 40001 ' })).json).toEqual([{ id: '40001', mbn: '01632960100', status: 'complete', type: 'single', lcp: 'BT', customer: 'Acme' }]);
});

test('e911 get: Raw as answered (nothing added); Simplified says how the address in force differs', async () => {
	const address = { name: 'Acme', streetNum: '350', streetInfo: 'Fifth Avenue', city: 'New York', state: 'NY', postalCode: '10118' };
	const registration = { number: '12025550143', configured: true, e911Status: 'In Service', activatedAt: '2025-01-02T03:04:05Z', address, provisionedAddress: { ...address, streetInfo: 'FIFTH AVE' } };
	answerOnce('/v3/numbers/123456/allocated/12025550143/e911', { success: true, data: registration });
	expect((await runWholesale(sandbox, { resource: 'e911', operation: 'get', number: '12025550143', output: 'raw' })).json).toEqual([registration]);
	answerOnce('/v3/numbers/123456/allocated/12025550143/e911', { success: true, data: registration });
	const [simplified] = (await runWholesale(sandbox, { resource: 'e911', operation: 'get', number: '12025550143' })).json;
	expect(simplified).toEqual(expect.objectContaining({ id: '12025550143', address: '350 FIFTH AVE, New York, NY 10118', notice: expect.stringMatching(/changed \(abbreviated or corrected\) in: streetInfo/) }));
});

test('destination rate: Simplified is no larger than Raw (JSON bytes), and names each deck\'s peak rate and connection charge', async () => {
	const parameters = { resource: 'rate', operation: 'getDestinationRate', number: '447700900123' };
	const [simplified] = (await runWholesale(sandbox, parameters)).json;
	const [raw] = (await runWholesale(sandbox, { ...parameters, output: 'raw' })).json;
	expect(JSON.stringify(simplified).length).toBeLessThanOrEqual(JSON.stringify(raw).length);
	const rates = raw.rates as Record<string, IDataObject>;
	expect(simplified).toEqual({
		description: raw.desc,
		platinum_peak: rates['1'].p, platinum_connection: rates['1'].c, gold_peak: rates['2'].p, gold_connection: rates['2'].c, silver_peak: rates['3'].p, silver_connection: rates['3'].c,
	});
});

test('notification get many: recipients on one line in Simplified; Raw as answered', async () => {
	const hash = '0123456789abcdef0123456789abcdef';
	const list = { success: true, data: [{ type: 'low_balance', class: 'billing', description: 'Low balance', recipients: [{ method: 'email', destination: 'ops@example.com', hash }, { method: 'sms', destination: '447700900555', hash }] }] };
	answerOnce('/v3/accounts/123456/notifications', list);
	expect((await runWholesale(sandbox, many('notification', 'getAll'))).json).toEqual([
		{ id: 'low_balance', class: 'billing', description: 'Low balance', recipients: 'ops@example.com (email), 447700900555 (sms)' },
	]);
	answerOnce('/v3/accounts/123456/notifications', list);
	expect((await runWholesale(sandbox, { ...many('notification', 'getAll'), output: 'raw' })).json).toEqual(list.data);
});

test('no 999 data: the answer is shown as it came, not as an empty item', async () => {
	const run = await runWholesale(sandbox, { resource: 'uk999', operation: 'get', number: '441632960002' });
	expect(run.json).toEqual([{ success: true, data: null }]);
});

test('a CDR history of 50 calls: Simplified is at most two thirds of Raw (JSON bytes of the items; Raw has no URIs to drop)', async () => {
	const history = async (output: string) =>
		(await runWholesale(sandbox, { resource: 'voice', operation: 'getCdrs', period: 'range', dateStart: TWO_DAYS_AGO(), returnAll: false, limit: 50, filters: {}, output })).json;
	const [simplified, raw] = [await history('simple'), await history('raw')];
	expect([simplified.length, raw.length]).toEqual([50, 50]);
	expect(simplified.map((cdr) => cdr.id)).toEqual(raw.map((cdr) => cdr.cdr_id));
	expect(JSON.stringify(simplified).length / JSON.stringify(raw).length).toBeLessThanOrEqual(2 / 3);
});
