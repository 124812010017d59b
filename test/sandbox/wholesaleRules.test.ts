import type { Sandbox } from '../../sandbox/index';
import { startSandbox } from '../../sandbox/index';
import { wholesaleClient } from './wholesaleKit';

/**
 * The Wholesale Voice sandbox's own checks of writes, case by case against the contract's tables
 * (routing blocks and stages, meta, 999, e911, ports, trunk rate limits, notification
 * destinations, channel limits), and what it accepts where the contract is silent (a `%did`
 * endpoint, a `meta` of `[]`, the real API's own examples). Failures answer in the contract's
 * shapes: `{success: false, errors: [text…]}` with the old configuration kept, or the e911 shape.
 */

let sandbox: Sandbox;
const { call } = wholesaleClient(() => sandbox);

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
	await sandbox.close();
});
beforeEach(() => sandbox.reset());

type Rec = Record<string, unknown>;
const NUMBER = '/v3/numbers/123456/allocated/441632960001';

async function writeConfig(config: unknown) {
	return await call('PUT', `${NUMBER}/config`, { json: config });
}

async function expectRefused(config: unknown, pattern: RegExp) {
	const before = (await call('GET', NUMBER)).body.data;
	const answer = await writeConfig(config);
	expect(answer.status).toBe(400);
	expect(answer.body.success).toBe(false);
	expect((answer.body.errors as string[]).join('\n')).toMatch(pattern);
	expect((await call('GET', NUMBER)).body.data).toEqual(before);
}

const sip = (endpoint: string, extra: Rec = {}) => ({ routing: { default: [[{ type: 'sip', endpoint, ...extra }]] } });

describe('number configuration: accepted where the contract allows or is silent', () => {
	test.each([
		['%did in a sip endpoint (a substitution the contract does not forbid)', sip('%did@sip.example.com')],
		['%e164 with port and transport', sip('%e164@pbx.example.com:5060:transport=tcp')],
		['%ukn and ;transport=', sip('%ukn@10.0.0.5;transport=udp')],
		['meta [] (PHP empty object)', { routing: { default: [[{ type: 'busy' }]] }, meta: [] }],
		['options [] and rules []', { routing: { default: [[{ type: 'teams' }]] }, options: [], rules: [] }],
		['meta of exactly 512 bytes with a 40-character key', { routing: { default: [[{ type: 'busy' }]] }, meta: { key: 'k'.repeat(40), note: 'x'.repeat(512 - JSON.stringify({ key: 'k'.repeat(40), note: '' }).length) } }],
		['options not listed by the contract', { routing: { default: [[{ type: 'busy' }]] }, options: { icr: false, beta_in: true } }],
		['a rule name with digits, times as text', { rules: { mon__fri_0700__1700: [{ dow: [1, 2, 3, 4, 5], time: ['0700', '1700'] }] }, routing: { mon__fri_0700__1700: [[{ type: 'busy' }]] } }],
		['the public docs\' rule entries: days and months of the year, times as numbers', { rules: { christmasholiday: [{ month: [12], day: [25, 26] }, { month: [1], day: [1, 2] }], officehours: [{ dow: [1, 2, 3, 4, 5], time: [900, 1700] }] }, routing: { officehours: [[{ type: 'busy' }]], christmasholiday: [[{ type: 'busy' }]] } }],
		['zoned endpoints beside one without a zone', { routing: { default: [[{ type: 'sip', endpoint: 'a@lon.example', zone: 'lon' }, { type: 'sip', endpoint: 'b@any.example' }]] } }],
		['pstn with maxcpm, maxcpc, cli, trunk, delay and timeout', { routing: { default: [[{ type: 'pstn', number: '447700900123', maxcpm: 0.1, maxcpc: '0.05', cli: '442921202120', trunk: '123456-office', delay: 2, timeout: 30 }]] } }],
		['fax alone', { routing: { default: [[{ type: 'fax', method: 'mail', endpoint: 'fax@acme.example' }]] } }],
		['the real API example: sip then pstn with maxcpm', { routing: { default: [[{ type: 'sip', endpoint: 'user@host.com', timeout: 20 }], [{ type: 'pstn', number: '447700900123', cli: '442921202120', maxcpm: 0.02 }]] } }],
		['the real API example read back: sip and reg together, then pstn', { routing: { default: [[{ type: 'sip', endpoint: '441632960000@pbx.simwood.com' }, { type: 'reg', user: '930XXX-SIPUSER' }], [{ type: 'pstn', number: '447700900123' }]] } }],
	])('%s', async (_name, config) => {
		expect((await writeConfig(config)).body).toEqual({ success: true });
		expect((await call('GET', NUMBER)).body.data).toEqual(config);
	});
});

describe('number configuration: refused whole, with the existing configuration kept', () => {
	test.each([
		['no routing', { meta: { key: 'x' } }, /^routing: is mandatory/m],
		['an empty routing', { routing: {} }, /^routing: is mandatory/m],
		['an unknown section', { routing: { default: [[{ type: 'busy' }]] }, custom: {} }, /^custom: unknown section/m],
		['a routing key that matches no rule', { routing: { evening: [[{ type: 'busy' }]] } }, /^routing\.evening: matches no rule/m],
		['stages that are not an array', { routing: { default: { type: 'busy' } } }, /^routing\.default: must be an array of stages/m],
		['a stage that is not an array', { routing: { default: [{ type: 'busy' }] } }, /^routing\.default\[0\]: a stage must be an array/m],
		['no routing block at all', { routing: { default: [] } }, /^routing: holds no routing block/m],
		['a block without a type', { routing: { default: [[{ endpoint: 'a@b.example' }]] } }, /^routing\.default\[0\]\[0\]\.type: is required/m],
		['an unknown type', { routing: { default: [[{ type: 'voicemail' }]] } }, /voicemail" is not a block type/],
		['timeout 0', sip('a@b.example', { timeout: 0 }), /^routing\.default\[0\]\[0\]\.timeout: 0 is not a whole number/m],
		['delay 1.5', sip('a@b.example', { delay: 1.5 }), /\.delay: 1\.5 is not a whole number/],
		['timeout on busy', { routing: { default: [[{ type: 'busy', timeout: 10 }]] } }, /a busy block takes no timeout/],
		['timeout on fax', { routing: { default: [[{ type: 'fax', method: 'http', endpoint: 'https://fax.example/in', timeout: 10 }]] } }, /a fax block takes no timeout/],
		['fax combined with voice', { rules: { night: [{ dow: [6, 7] }] }, routing: { default: [[{ type: 'fax', method: 'mail', endpoint: 'f@x.example' }]], night: [[{ type: 'busy' }]] } }, /^routing: a number is either fax-routed or voice-routed/m],
		['a sip block without endpoint', { routing: { default: [[{ type: 'sip' }]] } }, /\.endpoint: is required for a sip block/],
		['a sip endpoint without user@', sip('pbx.example.com'), /is not user@host/],
		['a sip endpoint with a space', sip('desk 1@pbx.example.com'), /is not user@host/],
		['a sip endpoint port out of range', sip('a@b.example:70000'), /port 70000 is outside 1-65535/],
		['sdes other than optional, required, none', sip('a@b.example', { sdes: 'always' }), /\.sdes: "always" is not allowed here; use optional, required or none/],
		['opus default (not in the contract)', sip('a@b.example', { opus: 'default' }), /\.opus: "default" is not allowed here; use never, always or only/],
		['an unknown zone', sip('a@b.example', { zone: 'par' }), /\.zone: "par" is not allowed/],
		['only zoned endpoints in a stage', sip('a@b.example', { zone: 'lon' }), /needs one sip endpoint without a zone/],
		['a zoned endpoint beside a reg block only', { routing: { default: [[{ type: 'sip', endpoint: 'a@b.example', zone: 'ny' }, { type: 'reg', user: 'u1' }]] } }, /needs one sip endpoint without a zone/],
		['sdes none on reg', { routing: { default: [[{ type: 'reg', user: 'u1', sdes: 'none' }]] } }, /\.sdes: "none" is not allowed here; use optional or required/],
		['a pstn block without number', { routing: { default: [[{ type: 'pstn' }]] } }, /\.number: is required for a pstn block/],
		['a pstn number that is not E.164', { routing: { default: [[{ type: 'pstn', number: '07700 900123' }]] } }, /is not an E\.164 number/],
		['a negative maxcpm', { routing: { default: [[{ type: 'pstn', number: '447700900123', maxcpm: -1 }]] } }, /\.maxcpm: -1 is not an amount/],
		['a parameter of another type', { routing: { default: [[{ type: 'busy', endpoint: 'a@b.example' }]] } }, /a busy block has no parameter endpoint/],
		['a fax e-mail endpoint that is not an address', { routing: { default: [[{ type: 'fax', method: 'mail', endpoint: 'https://x.example' }]] } }, /is not an e-mail address/],
		['a fax method other than http or mail', { routing: { default: [[{ type: 'fax', method: 'ftp', endpoint: 'f@x.example' }]] } }, /\.method: "ftp" is not allowed/],
		['a rule name with a space', { rules: { 'office hours': [{ dow: [1] }] }, routing: { default: [[{ type: 'busy' }]] } }, /^rules\.office hours: a rule name may use/m],
		['a rule name with capitals and a dash', { rules: { 'Office-Hours': [{ dow: [1] }] }, routing: { 'Office-Hours': [[{ type: 'busy' }]] } }, /^rules\.Office-Hours: a rule name may use a-z, 0-9 and _ only/m],
		['a rule entry with dow as a number', { rules: { wednesday: [{ dow: 3 }] }, routing: { wednesday: [[{ type: 'busy' }]] } }, /^rules\.wednesday\[0\]\.dow: must be an array/m],
		['a rule entry with day, month and time as single values', { rules: { christmas: [{ month: 12, day: 25, time: '0900' }] }, routing: { christmas: [[{ type: 'busy' }]] } }, /^rules\.christmas\[0\]\.time: must be an array/m],
		['a rule that is not an array', { rules: { night: { dow: [6] } }, routing: { default: [[{ type: 'busy' }]] } }, /^rules\.night: a rule must be an array/m],
		['meta over 512 bytes', { routing: { default: [[{ type: 'busy' }]] }, meta: { note: 'x'.repeat(510) } }, /^meta: is 521 bytes of JSON; at most 512/m],
		['a meta key of 41 characters', { routing: { default: [[{ type: 'busy' }]] }, meta: { key: 'k'.repeat(41) } }, /^meta\.key: is 41 characters; at most 40/m],
		['a meta key that is not text', { routing: { default: [[{ type: 'busy' }]] }, meta: { key: 12 } }, /^meta\.key: must be text/m],
		['meta that is a list', { routing: { default: [[{ type: 'busy' }]] }, meta: ['a'] }, /^meta: must be an object/m],
		['a configuration that is not an object', ['routing'], /must be a JSON object/],
	])('%s', async (_name, config, pattern) => {
		await expectRefused(config, pattern);
	});

	test('every problem is reported at once', async () => {
		const answer = await writeConfig({ routing: { default: [[{ type: 'sip', timeout: 0 }, { type: 'pstn', number: 'x' }]] }, extra: 1 });
		expect(answer.body.errors).toEqual([
			'extra: unknown section; a configuration has routing, options, rules or meta (custom data belongs in meta)',
			'routing.default[0][0].timeout: 0 is not a whole number of seconds of 1 or more',
			'routing.default[0][0].endpoint: is required for a sip block (user@host)',
			'routing.default[0][1].number: "x" is not an E.164 number',
		]);
	});
});

describe('999 data (UK)', () => {
	const path = '/v3/numbers/123456/allocated/441632960002/999';
	const good = { name: 'Smith', premises: '12', thoroughfare: 'High Street', locality: 'Leeds', postcode: 'LS1 4AP' };

	test.each([
		['a missing mandatory field', { ...good, locality: '' }, 'locality: is required'],
		['a name of 51 characters', { ...good, name: 'n'.repeat(51) }, 'name: is 51 characters; at most 50'],
		['a locality of 31 characters', { ...good, locality: 'l'.repeat(31) }, 'locality: is 31 characters; at most 30'],
		['a postcode without the space', { ...good, postcode: 'LS14AP' }, 'postcode: "LS14AP" is not a full postcode (out-code, space, in-code)'],
		['an out-code only', { ...good, postcode: 'LS1' }, 'postcode: "LS1" is not a full postcode (out-code, space, in-code)'],
		['a forename on a business record', { ...good, bussuffix: 'Ltd', forename: 'Ann' }, 'forename: is for individual end users only; this record has a business suffix'],
	])('%s is refused and not charged', async (_name, body, error) => {
		const account = sandbox.wholesale.data.accounts.get('123456')!;
		const balance = account.balance;
		const answer = await call('PUT', path, { json: body });
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual({ success: false, errors: [error] });
		expect(account.balance).toBe(balance);
	});

	test('the longest values and a lower-case postcode are accepted (the contract sets lengths and form, not case)', async () => {
		const longest = { title: 't'.repeat(20), forename: 'f'.repeat(20), name: 'n'.repeat(50), premises: 'p'.repeat(60), thoroughfare: 't'.repeat(55), locality: 'l'.repeat(30), postcode: 'ec1a 1bb' };
		expect((await call('PUT', path, { json: longest })).body).toEqual({ success: true, data: longest });
	});
});

describe('e911 (US)', () => {
	const path = '/v3/numbers/123456/allocated/14155550100/e911';
	const address = { name: 'Acme West', streetNum: '9', streetInfo: 'Elm St', city: 'Sausalito', state: 'CA', postalCode: '94965' };

	test('the contract lengths are the limits, each refusal in the e911 shape with code and field', async () => {
		const longest = { name: 'n'.repeat(32), streetNum: '1'.repeat(10), streetInfo: 's'.repeat(48), location: 'l'.repeat(20), city: 'c'.repeat(32), state: 'CA', postalCode: '94965', postalCodePlusFour: '1234' };
		expect((await call('PUT', path, { json: longest })).body).toMatchObject({ success: true, data: { configured: true } });
		for (const [field, value] of Object.entries({ name: 'n'.repeat(33), streetNum: '1'.repeat(11), streetInfo: 's'.repeat(49), location: 'l'.repeat(21), city: 'c'.repeat(33), state: 'CAL', postalCode: '9'.repeat(11), postalCodePlusFour: '12345' })) {
			const answer = await call('PUT', path, { json: { ...address, [field]: value } });
			expect(answer.status).toBe(400);
			expect(answer.body).toEqual({ success: false, http_code: 400, errors: [{ code: 'e911.invalid_field', field, message: expect.any(String) }], data: {} });
		}
	});

	test('optional fields sent empty are absent; a postal code that is no ZIP code fails the address check', async () => {
		const answer = await call('PUT', path, { json: { ...address, location: '', postalCodePlusFour: '' } });
		expect(answer.body).toMatchObject({ success: true, data: { address } });
		for (const postalCode of ['94965-1234', '949651234']) expect((await call('PUT', path, { json: { ...address, postalCode } })).body.success).toBe(true);
		const zip = await call('PUT', path, { json: { ...address, postalCode: 'ABCDE' } });
		expect(zip.body).toMatchObject({ success: false, http_code: 400, errors: [{ code: 'e911.field_invalid', field: 'postalCode' }] });
	});
});

describe('port submissions', () => {
	const realExample = {
		mbn: '01632960100', contact_email: 'simwood.customer@example.com', lcp: 'BT', lcp_cupid: '001', account_number: 'NA1234B32', billing_postcode: 'A12 3BC', type: 'multi', lines: 1, channels: 30,
		customer: { title: 'Mr', forename: 'John', name: 'Doe', loa_initial: 'J', loa_surname: 'Doe', premises: '123', thoroughfare: 'Some Street', locality: 'Sometown', postcode: 'A12 3BC' },
		numbers: [
			{ number: '01632960100', type: 'mbn', action: 'port' },
			{ number: '01632960101', type: 'associated', action: 'port' },
			{ number: '01632960290', type: 'other', action: 'retain' },
		],
	};
	const submit = async (body: unknown) => await call('POST', '/v3/porting/123456/gnp', { json: body });

	test('the real API example is accepted and charged', async () => {
		const answer = await submit(realExample);
		expect(answer.body).toEqual({ success: true, ref: expect.any(Number), url: expect.stringMatching(/^\/v3\/porting\/123456\/gnp\/\d+$/) });
	});

	test.each([
		['no mbn', { mbn: undefined }, /^mbn: is required/m],
		['a mobile mbn', { mbn: '07700900123' }, /^mbn: "07700900123" is not a UK geographic number/m],
		['no customer', { customer: undefined }, /^customer: is required/m],
		['a customer without postcode', { customer: { ...realExample.customer, postcode: '' } }, /^customer\.postcode: is required/m],
		['a customer locality of 31 characters', { customer: { ...realExample.customer, locality: 'l'.repeat(31) } }, /^customer\.locality: is 31 characters; at most 30/m],
		['no numbers', { numbers: [] }, /^numbers: is required/m],
		['two mbn entries', { numbers: [...realExample.numbers, { number: '01632960102', type: 'mbn', action: 'port' }] }, /^numbers: exactly one number must have type mbn \(found 2\)/m],
		['the mbn missing from the numbers', { numbers: [{ number: '01632960101', type: 'mbn', action: 'port' }] }, /^numbers: the number of type mbn \(01632960101\) is not the mbn 01632960100/m],
		['retain on an associated number', { numbers: [realExample.numbers[0], { number: '01632960101', type: 'associated', action: 'retain' }] }, /^numbers\[1\]\.action: retain is only for numbers of type other/m],
		['an unknown action', { numbers: [realExample.numbers[0], { number: '01632960101', type: 'associated', action: 'keep' }] }, /^numbers\[1\]\.action: "keep" is not port, retain or drop/m],
		['a non-geographic number to port', { numbers: [realExample.numbers[0], { number: '08451234567', type: 'associated', action: 'port' }] }, /cannot be ported by API/],
		['an unknown port type', { type: 'express' }, /^type: "express" is not single, multi, sub_single or sub_multi/m],
		['a port date in another form', { port_date: '2026-03-01' }, /^port_date: "2026-03-01" is not a date-time YYYY-MM-DD hh:mm:ss/m],
		['lcp_cupid of two digits', { lcp_cupid: '01' }, /^lcp_cupid: "01" is not a provider id/m],
		['a contact e-mail that is not one', { contact_email: 'nobody' }, /^contact_email: "nobody" is not an e-mail address/m],
	])('%s is refused and not charged', async (_name, change, pattern) => {
		const account = sandbox.wholesale.data.accounts.get('123456')!;
		const balance = account.balance;
		const answer = await submit({ ...realExample, ...change });
		expect(answer.status).toBe(400);
		expect(answer.body.success).toBe(false);
		expect((answer.body.errors as string[]).join('\n')).toMatch(pattern);
		expect(account.balance).toBe(balance);
	});
});

describe('trunks, channel limits, notification destinations', () => {
	test.each(['5/12h', '5/10s', '1/1s', ' 20 / 10s '])('trunk rate limit %j is accepted', async (limit) => {
		const answer = await call('PUT', '/v3/voice/123456/trunks/123456-office', { json: { limit_rate_out: limit } });
		expect(answer.body).toMatchObject({ success: true, data: { limit_rate_out: limit.replace(/\s+/g, '') } });
	});

	test.each(['5/1m', '5/10', '0/10s', 'five/10s', '5/10S'])('trunk rate limit %j is refused', async (limit) => {
		const answer = await call('PUT', '/v3/voice/123456/trunks/123456-office', { json: { limit_rate_out: limit } });
		expect(answer.body).toEqual({ success: false, errors: ['limit_rate_out must be calls/duration with a duration of 12h, 10s or 1s (e.g. 5/10s), or null for no limit'] });
	});

	test('trunk names are {ACCOUNT}-{name}', async () => {
		expect((await call('PUT', '/v3/voice/123456/trunks/123456-branch_2.b')).body.success).toBe(true);
		for (const name of ['branch', '123456-', '654321-x', '123456-a%20b']) {
			const answer = await call('PUT', `/v3/voice/123456/trunks/${name}`);
			expect(answer.status).toBe(400);
			expect((answer.body.errors as string[])[0]).toMatch(/^Invalid trunk name .*: trunk names are 123456-\{name\}/);
		}
	});

	test('channel limits: both, whole numbers, totalling the allocation', async () => {
		const put = async (body: Rec) => await call('PUT', '/v3/voice/123456/limits', { json: body });
		expect((await put({ limit_concurrent_in: 30, limit_concurrent_out: 0 })).body).toMatchObject({ success: true, data: { limit_concurrent_in: 30, limit_concurrent_out: 0 } });
		expect((await put({ limit_concurrent_in: 10 })).body.errors).toEqual(['limit_concurrent_out: is required: in and out are set together']);
		expect((await put({ limit_concurrent_in: 10.5, limit_concurrent_out: 19.5 })).body.errors).toEqual([
			'limit_concurrent_in: 10.5 is not a whole number of channels',
			'limit_concurrent_out: 19.5 is not a whole number of channels',
		]);
		expect((await put({ limit_concurrent_in: 15, limit_concurrent_out: 16 })).body.errors).toEqual([
			'limit_concurrent_in 15 and limit_concurrent_out 16 total 31; they must total the channel allocation, 30',
		]);
	});

	test.each([
		['email', 'ops@acme.example', true],
		['email', 'ops@acme', false],
		['email', 'two words@acme.example', false],
		['sms', '447700900111', true],
		['sms', '+447700900111', true],
		['sms', '07700900111', false],
		['sms', 'ops@acme.example', false],
	])('a %s destination %j: accepted %s', async (method, destination, accepted) => {
		const answer = await call('POST', `/v3/accounts/123456/notifications/billing/${method}`, { json: { destination } });
		expect(answer.body.success).toBe(accepted);
		if (!accepted) expect(answer.body.errors).toEqual([expect.stringMatching(/^destination: /)]);
	});
});
