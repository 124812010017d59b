import { createHash } from 'node:crypto';

import type { Sandbox } from '../../sandbox/index';
import { startSandbox } from '../../sandbox/index';
import { A, B, DAY, gmtText, parseCsv, startOfUtcDay, wholesaleClient } from './wholesaleKit';

/**
 * The Wholesale Voice API v3 sandbox: authentication, PHP-style output, method leniency and
 * parameters, account and billing, rates, notifications, voice, trunks, numbers (routing
 * configuration, SMS, 999, e911) and number validation. Reports, porting and webhooks are in
 * wholesale-events.test.ts.
 */

let sandbox: Sandbox;
const { call, admin } = wholesaleClient(() => sandbox);

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
});

afterAll(async () => {
	await sandbox.close();
});

beforeEach(() => {
	sandbox.reset();
});

type Rec = Record<string, unknown>;
const data = (answer: { body: Rec }) => answer.body.data as Rec;
const list = (answer: { body: Rec }) => answer.body.data as Rec[];

describe('authentication', () => {
	test('no credentials: 401 with a Basic challenge and the error envelope', async () => {
		const answer = await call('GET', '/v3/accounts/123456/type', { as: null });
		expect(answer.status).toBe(401);
		expect(answer.headers.get('www-authenticate')).toBe('Basic realm="Wholesale Voice API"');
		expect(answer.body.success).toBe(false);
		expect(answer.body.errors).toEqual([expect.stringMatching(/Authentication required/)]);
	});

	test('a wrong password is 401 too', async () => {
		expect((await call('GET', '/v3/accounts/123456/type', { as: [A.username, 'nope'] })).status).toBe(401);
	});

	test("one account's credentials on the other account's paths: 403 on every account-linked root", async () => {
		for (const path of ['/v3/accounts/654321/type', '/v3/voice/654321/limits', '/v3/numbers/654321/validate/441632960001', '/v3/porting/654321/gnp', '/v3/files/654321']) {
			const answer = await call('GET', path);
			expect([path, answer.status]).toEqual([path, 403]);
			expect(answer.body).toEqual({ success: false, errors: ['These API credentials do not give access to account 654321'] });
		}
		expect((await call('GET', '/v3/accounts/654321/type', { as: B })).status).toBe(200);
		expect((await call('GET', '/v3/accounts/123456/type', { as: B })).status).toBe(403);
	});

	test('unknown paths: 401 without credentials, 404 with them', async () => {
		expect((await call('GET', '/v3/nothing/here', { as: null })).status).toBe(401);
		const answer = await call('GET', '/v3/nothing/here');
		expect(answer.status).toBe(404);
		expect(answer.body.success).toBe(false);
	});

	test('tools need no authentication', async () => {
		const ip = await call('GET', '/v3/tools/myip', { as: null });
		expect(ip.body).toEqual({ ip: '127.0.0.1' });
		const time = await call('GET', '/v3/tools/time', { as: null });
		expect(Number.isInteger(time.body.timestamp)).toBe(true);
		expect(Math.abs(Number(time.body.timestamp) - Date.now() / 1000)).toBeLessThan(5);
		expect(time.body.rfc).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
		const explain = await call('PATCH', '/v3/tools/explain?x=1', { as: null, json: { y: 2 } });
		expect(explain.status).toBe(200);
		expect(explain.body).toMatchObject({ method: 'PATCH', path: '/v3/tools/explain', body_format: 'json', parameters: { x: '1', y: 2 } });
	});

	test('both demo accounts and their credentials are in info()', async () => {
		const info = (await (await fetch(`${sandbox.url}/_sandbox/info`)).json()) as { apis: { wholesale: { baseUrl: string; accounts: Rec[] } } };
		expect(info.apis.wholesale.baseUrl).toBe(`${sandbox.url}/v3`);
		expect(info.apis.wholesale.accounts).toEqual([
			expect.objectContaining({ accountId: A.id, username: A.username, password: A.password, nanpa: true }),
			expect.objectContaining({ accountId: B.id, username: B.username, password: B.password, nanpa: false }),
		]);
	});
});

describe('output', () => {
	test('minimal JSON, slashes escaped, non-ASCII as \\uXXXX, application/json', async () => {
		const tariffs = await call('GET', '/v3/accounts/123456/rates/tariffs');
		expect(tariffs.headers.get('content-type')).toBe('application/json');
		expect(tariffs.text).toContain('"url":"\\/v3\\/accounts\\/123456\\/rates\\/csv\\/platinum"');
		expect(tariffs.text).not.toMatch(/[ \n]"/);
		const lcps = await call('GET', '/v3/porting/123456/lcps');
		expect(lcps.text).toContain('O2 (Telef\\u00f3nica UK)');
		expect(lcps.text).not.toMatch(/[^\x00-\x7f]/);
		expect((lcps.json as { cps: Rec[] }).cps).toContainEqual({ cpName: 'O2 (Telefónica UK)', cupid: '018' });
	});

	test('?pretty=true formats with four spaces', async () => {
		const answer = await call('GET', '/v3/accounts/123456/type?pretty=true');
		expect(answer.text).toBe(
			'{\n    "success": true,\n    "data": {\n        "account_type": "developer",\n        "number_limit": 10,\n        "channel_limit": 30,\n        "min_prepay": 0\n    }\n}',
		);
	});
});

describe('methods and parameters', () => {
	test('POST is accepted in place of PUT, GET in place of POST', async () => {
		const put = await call('POST', '/v3/accounts/123456/prepay/balance/alert', { json: { alert_balance: 75 } });
		expect(put.json).toEqual([{ account: '123456', alert_balance: 75 }]);
		const report = await call('GET', '/v3/accounts/123456/reports/voice/cdr/latest/10');
		expect(report.status).toBe(200);
		expect(report.body).toMatchObject({ type: 'voice_cdr', format: 'json' });
		const log = (await (await fetch(`${sandbox.url}/_sandbox/requests?api=wholesale`)).json()) as Array<{ method: string; rawMethod: string; path: string }>;
		expect(log).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ rawMethod: 'POST', method: 'PUT', path: '/v3/accounts/123456/prepay/balance/alert' }),
				expect.objectContaining({ rawMethod: 'GET', method: 'POST', path: '/v3/accounts/123456/reports/voice/cdr/latest/10' }),
			]),
		);
	});

	test('DELETE is never substituted: POST on a GET/DELETE resource is 405', async () => {
		const callId = sandbox.wholesale.data.accounts.get('123456')?.calls[0].call_id;
		const answer = await call('POST', `/v3/voice/123456/inprogress/${callId}`);
		expect(answer.status).toBe(405);
		expect(answer.headers.get('allow')).toBe('GET, DELETE');
		expect(answer.body.success).toBe(false);
		expect((await call('GET', `/v3/voice/123456/inprogress/${callId}`)).status).toBe(200);
	});

	test('_method overrides: in the query of a POST, in a JSON body, in a form body, in the query of a GET', async () => {
		expect((await call('POST', '/v3/accounts/123456/prepay/balance/locked?_method=put', { json: { balance: 10 } })).json).toEqual([
			expect.objectContaining({ locked: 10 }),
		]);
		expect((await call('POST', '/v3/accounts/123456/prepay/balance/locked', { json: { _method: 'PUT', balance: 20 } })).json).toEqual([
			expect.objectContaining({ locked: 20 }),
		]);
		expect((await call('POST', '/v3/accounts/123456/prepay/balance/locked', { form: '_method=delete' })).json).toEqual([
			expect.objectContaining({ locked: 0 }),
		]);
		const hash = (await call('GET', '/v3/accounts/123456/notifications/trunk/email')).body.data as Rec[];
		const gone = await call('GET', `/v3/accounts/123456/notifications/trunk/email/${String(hash[0].hash)}?_method=DELETE`);
		expect(gone.body).toEqual({ success: true });
		expect(list(await call('GET', '/v3/accounts/123456/notifications/trunk/email'))).toEqual([]);
	});

	test('form bodies are read as PHP reads them: a[]=x, a[0]=x, nested keys, dots to underscores', async () => {
		const answer = await call('POST', '/v3/tools/explain?q[]=1&q[]=2', {
			as: null,
			form: 'a[]=x&a[]=y&b[0]=z&filter[to]=4420&filter[trunk]=123456-office&c.d=1&deep[x][][y]=v&plain=hello+world%21',
		});
		expect(answer.body.body_format).toBe('form');
		expect(answer.body.parameters).toEqual({
			q: ['1', '2'],
			a: ['x', 'y'],
			b: ['z'],
			filter: { to: '4420', trunk: '123456-office' },
			c_d: '1',
			deep: { x: [{ y: 'v' }] },
			plain: 'hello world!',
		});
	});

	test('the same write as JSON and as a form body', async () => {
		expect((await call('PUT', '/v3/accounts/123456/prepay/balance/alert', { json: { alert_balance: 12.5 } })).json).toEqual([{ account: '123456', alert_balance: 12.5 }]);
		expect((await call('PUT', '/v3/accounts/123456/prepay/balance/alert', { form: 'alert_balance=13.75' })).json).toEqual([{ account: '123456', alert_balance: 13.75 }]);
	});

	test('a body that says JSON but is not: 400 in the error envelope', async () => {
		const answer = await call('PUT', '/v3/accounts/123456/prepay/balance/alert', { form: '{"alert_balance":', headers: { 'Content-Type': 'application/json' } });
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual({ success: false, errors: ['The request body is not valid JSON'] });
	});

	test('the request log shows form bodies as parsed (nested, repeated keys kept)', async () => {
		await call('PUT', '/v3/numbers/123456/allocated/447700900456/config', {
			form: 'routing[default][0][0][type]=sip&routing[default][0][0][endpoint]=a%40pbx.example&routing[default][1][]=x',
		});
		const log = (await (await fetch(`${sandbox.url}/_sandbox/requests?api=wholesale`)).json()) as Array<{ body: unknown; principal?: string }>;
		const entry = log[log.length - 1];
		expect(entry.body).toEqual({ routing: { default: [[{ type: 'sip', endpoint: 'a@pbx.example' }], ['x']] } });
		expect(entry.principal).toBe('api123456 (account 123456)');
	});
});

describe('account and billing', () => {
	test('account type: developer to startup is allowed; back, and interconnect types, are refused', async () => {
		expect(data(await call('GET', '/v3/accounts/123456/type'))).toEqual({ account_type: 'developer', number_limit: 10, channel_limit: 30, min_prepay: 0 });
		const interconnect = await call('PUT', '/v3/accounts/123456/type', { json: { account_type: 'virtual_interconnect' } });
		expect(interconnect.status).toBe(400);
		expect(interconnect.body).toEqual({ success: false, errors: [expect.stringMatching(/cannot be selected online/)] });
		const up = await call('PUT', '/v3/accounts/123456/type', { json: { account_type: 'startup' } });
		expect(up.body).toEqual({ success: true, data: { account_type: 'startup', number_limit: 100, channel_limit: 60, min_prepay: 50 } });
		const down = await call('PUT', '/v3/accounts/123456/type', { form: 'account_type=developer' });
		expect(down.status).toBe(400);
		expect(down.body.errors).toEqual([expect.stringMatching(/cannot be changed back to developer/)]);
		expect((await call('PUT', '/v3/accounts/123456/type', { json: { account_type: 'gold' } })).status).toBe(400);
		expect((await call('PUT', '/v3/accounts/123456/type', { json: {} })).status).toBe(400);
	});

	test('invoices: unpaid, paid and all with money as decimal text, TotalDue and TotalOverDue', async () => {
		const unpaid = (await call('GET', '/v3/accounts/123456/credit/invoices/unpaid')).body;
		const invoices = unpaid.Invoices as Array<Record<string, string>>;
		expect(invoices).toHaveLength(2);
		for (const invoice of invoices) {
			expect(Object.keys(invoice)).toEqual(['InvoiceNumber', 'Date', 'DueDate', 'Currency', 'Net', 'VAT', 'Total', 'AmountPaid', 'AmountCredited', 'AmountDue']);
			for (const key of ['Net', 'VAT', 'Total', 'AmountPaid', 'AmountCredited', 'AmountDue']) expect(invoice[key]).toMatch(/^\d+\.\d{2}$/);
			expect(invoice.Date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
		}
		const due = invoices.reduce((sum, i) => sum + Number(i.AmountDue), 0);
		expect((unpaid.TotalDue as Rec).GBP).toBeCloseTo(due, 2);
		expect((unpaid.TotalOverDue as Rec).GBP).toBeCloseTo(Number(invoices[1].AmountDue), 2);
		const all = (await call('GET', '/v3/accounts/123456/credit/invoices/all')).body.Invoices as Rec[];
		const paid = (await call('GET', '/v3/accounts/123456/credit/invoices/paid')).body.Invoices as Rec[];
		expect(all).toHaveLength(18);
		expect(paid).toHaveLength(16);
		expect(all.some((i) => i.AmountCredited === '10.00')).toBe(true);
		const other = (await call('GET', '/v3/accounts/654321/credit/invoices/unpaid', { as: B })).body;
		expect(other).toEqual({ Invoices: [], TotalDue: { USD: 0 }, TotalOverDue: null });
	});

	test('invoice PDF with and without .pdf: a real PDF whose xref offset is right', async () => {
		const number = String(((await call('GET', '/v3/accounts/123456/credit/invoices/all')).body.Invoices as Rec[])[0].InvoiceNumber);
		for (const path of [number, `${number}.pdf`]) {
			const answer = await call('GET', `/v3/accounts/123456/credit/invoices/${path}`);
			expect(answer.status).toBe(200);
			expect(answer.headers.get('content-type')).toBe('application/pdf');
			const text = answer.bytes.toString('latin1');
			expect(text.startsWith('%PDF-1.4\n')).toBe(true);
			expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
			const startxref = Number(/startxref\n(\d+)\n%%EOF/.exec(text)?.[1]);
			expect(text.slice(startxref, startxref + 4)).toBe('xref');
			const offsets = [...text.matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
			offsets.forEach((offset, index) => expect(text.slice(offset).startsWith(`${index + 1} 0 obj`)).toBe(true));
			expect(text).toContain(`(Invoice ${number}) Tj`);
		}
		expect((await call('GET', '/v3/accounts/123456/credit/invoices/999999.pdf')).status).toBe(404);
	});

	test('prepayments and transfers: all and latest 1 or 10, newest first', async () => {
		const all = (await call('GET', '/v3/accounts/123456/prepay/prepayments/all')).json as Rec[];
		expect(all).toHaveLength(14);
		expect(all[0]).toEqual({ id: expect.any(String), datetime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/), amount: expect.stringMatching(/^\d+\.\d{2}$/), currency: 'GBP', method: expect.any(String), reference: expect.any(String) });
		expect(String(all[0].datetime) > String(all[1].datetime)).toBe(true);
		expect((await call('GET', '/v3/accounts/123456/prepay/prepayments/latest/1')).json).toEqual([all[0]]);
		expect((await call('GET', '/v3/accounts/123456/prepay/prepayments/latest/10')).json).toEqual(all.slice(0, 10));
		expect((await call('GET', '/v3/accounts/123456/prepay/prepayments/latest/5')).status).toBe(404);
		const transfers = (await call('GET', '/v3/accounts/123456/prepay/transfers/all')).json as Rec[];
		expect(transfers).toHaveLength(4);
		expect(transfers[0]).toMatchObject({ from_account: expect.any(String), to_account: expect.any(String), amount: expect.stringMatching(/^\d+\.\d{2}$/) });
		expect((await call('GET', '/v3/accounts/123456/prepay/transfers/latest/1')).json).toEqual([transfers[0]]);
		expect((await call('GET', '/v3/accounts/654321/prepay/transfers/all', { as: B })).json).toEqual([]);
	});

	test('balance, alert and locked balance', async () => {
		expect((await call('GET', '/v3/accounts/123456/prepay/balance')).json).toEqual([{ balance: '1234.5678', currency: 'GBP' }]);
		expect((await call('GET', '/v3/accounts/123456/prepay/balance/alert')).json).toEqual([{ account: '123456', alert_balance: 50 }]);
		expect((await call('PUT', '/v3/accounts/123456/prepay/balance/alert', { json: { alert_balance: -1 } })).status).toBe(400);
		expect((await call('GET', '/v3/accounts/123456/prepay/balance/locked')).json).toEqual([{ account: '123456', balance: 1234.5678, locked: 100, available: 1134.5678 }]);
		expect((await call('PUT', '/v3/accounts/123456/prepay/balance/locked', { json: { balance: 200 } })).json).toEqual([{ account: '123456', balance: 1234.5678, locked: 200, available: 1034.5678 }]);
		const tooMuch = await call('PUT', '/v3/accounts/123456/prepay/balance/locked', { json: { balance: 5000 } });
		expect(tooMuch.status).toBe(400);
		expect((await call('DELETE', '/v3/accounts/123456/prepay/balance/locked')).json).toEqual([{ account: '123456', balance: 1234.5678, locked: 0, available: 1234.5678 }]);
	});
});

describe('rates', () => {
	test('tariffs', async () => {
		const answer = await call('GET', '/v3/accounts/123456/rates/tariffs');
		expect(answer.body.success).toBe(true);
		expect(list(answer)).toContainEqual({ description: 'Silver', servicelevel: 3, quality: 'standard', prefix: 9003, default: true, url: '/v3/accounts/123456/rates/csv/silver' });
		expect(list(answer).map((t) => t.url)).toContain('/v3/accounts/123456/rates/csv/cli-routes-2026');
	});

	test('rate card CSV: Effective line, header, a few hundred rows, quoted commas and quotes', async () => {
		for (const deck of ['default', 'silver', 'gold', 'platinum', 'cli-routes-2026']) {
			const answer = await call('GET', `/v3/accounts/123456/rates/csv/${deck}`);
			expect(answer.status).toBe(200);
			expect(answer.headers.get('content-type')).toMatch(/^text\/csv/);
			const [first, header, ...rows] = parseCsv(answer.text);
			expect(first[0]).toMatch(/^Effective: \d{4}-\d{2}-01$/);
			expect(header).toEqual(['prefix', 'location', 'day', 'evening', 'weekend', 'connection', 'minimum_sec', 'increment_sec']);
			expect(rows.length).toBeGreaterThan(250);
			for (const row of rows) {
				expect(row).toHaveLength(8);
				expect(row[0]).toMatch(/^\d+$/);
				expect(row[2]).toMatch(/^\d+\.\d{4}$/);
			}
			const locations = rows.map((r) => r[1]);
			expect(locations).toContain('Korea, Republic of - Mobile');
			expect(locations).toContain('United Kingdom - Premium Rate "09"');
			expect(locations).toContain("Côte d'Ivoire - Fixed");
		}
		const csv = (await call('GET', '/v3/accounts/123456/rates/csv/silver')).text;
		expect(csv).toContain('"Korea, Republic of - Mobile"');
		expect(csv).toContain('"United Kingdom - Premium Rate ""09"""');
		const gold = parseCsv((await call('GET', '/v3/accounts/123456/rates/csv/gold')).text);
		const silver = parseCsv(csv);
		expect(Number(gold[2][2])).toBeGreaterThan(Number(silver[2][2]));
		expect((await call('GET', '/v3/accounts/123456/rates/csv/bronze')).status).toBe(404);
	});

	test('destination rate: desc and decks 1, 2, 3 with p/o/w/c decimal strings', async () => {
		const answer = await call('GET', '/v3/accounts/123456/rate/447700900123');
		expect(answer.body.desc).toBe('United Kingdom - Mobile, Other');
		const rates = answer.body.rates as Record<string, Record<string, string>>;
		expect(Object.keys(rates)).toEqual(['1', '2', '3']);
		for (const deck of Object.values(rates)) {
			expect(Object.keys(deck)).toEqual(['p', 'o', 'w', 'c']);
			for (const value of Object.values(deck)) expect(value).toMatch(/^\d+\.\d{4}$/);
		}
		expect(Number(rates['1'].p)).toBeGreaterThan(Number(rates['3'].p));
		expect((await call('GET', '/v3/accounts/123456/rate/12025550143')).body.desc).toBe('United States');
		expect((await call('GET', '/v3/accounts/123456/rate/abc')).status).toBe(400);
	});
});

describe('notifications', () => {
	test('types, the account list, recipients of a type and of a method', async () => {
		const available = list(await call('GET', '/v3/accounts/123456/notifications/available'));
		expect(available.map((t) => t.type)).toEqual(['low_balance', 'billing', 'trunk', 'porting']);
		const all = list(await call('GET', '/v3/accounts/123456/notifications'));
		expect(all.find((t) => t.type === 'low_balance')?.recipients).toHaveLength(2);
		const lowBalance = list(await call('GET', '/v3/accounts/123456/notifications/low_balance'));
		expect(lowBalance.map((r) => r.method).sort()).toEqual(['email', 'sms']);
		expect(list(await call('GET', '/v3/accounts/123456/notifications/low_balance/sms'))).toEqual([
			{ type: 'low_balance', method: 'sms', destination: '447700900999', hash: createHash('md5').update('447700900999').digest('hex') },
		]);
		expect((await call('GET', '/v3/accounts/123456/notifications/fraud')).status).toBe(404);
		expect((await call('GET', '/v3/accounts/123456/notifications/trunk/fax')).status).toBe(404);
	});

	test('add returns the md5 of the address; get and delete by that hash; delete all of a type', async () => {
		const md5 = (s: string) => createHash('md5').update(s).digest('hex');
		const added = await call('POST', '/v3/accounts/123456/notifications/billing/email', { json: { destination: 'finance@acme.example' } });
		expect(added.body).toEqual({ success: true, data: { type: 'billing', method: 'email', destination: 'finance@acme.example', hash: md5('finance@acme.example') } });
		const sms = await call('POST', '/v3/accounts/123456/notifications/billing/sms', { form: 'destination=447700900111' });
		expect(data(sms).hash).toBe(md5('447700900111'));
		expect(data(await call('GET', `/v3/accounts/123456/notifications/billing/email/${md5('finance@acme.example')}`)).destination).toBe('finance@acme.example');
		expect((await call('DELETE', `/v3/accounts/123456/notifications/billing/email/${md5('finance@acme.example')}`)).body).toEqual({ success: true });
		expect((await call('GET', `/v3/accounts/123456/notifications/billing/email/${md5('finance@acme.example')}`)).status).toBe(404);
		expect((await call('DELETE', '/v3/accounts/123456/notifications/billing')).body).toEqual({ success: true });
		expect(list(await call('GET', '/v3/accounts/123456/notifications/billing'))).toEqual([]);
		const bad = await call('POST', '/v3/accounts/123456/notifications/billing/email', { json: { destination: 'not-an-address' } });
		expect(bad.status).toBe(400);
		expect(bad.body.errors).toEqual([expect.stringMatching(/^destination: /)]);
	});

	test('history: last 60 days by default, class filter, passwords shown as ######, window enforced', async () => {
		const history = (await call('GET', '/v3/accounts/123456/notifications/history')).json as Rec[];
		const earliest = startOfUtcDay() - 60 * DAY;
		expect(history.length).toBeGreaterThan(10);
		expect(history.length).toBeLessThan(sandbox.wholesale.data.accounts.get('123456')?.history.length ?? 0);
		for (const item of history) {
			expect(item.data).toEqual(expect.any(Object));
			expect(Date.parse(`${String(item.datetime).replace(' ', 'T')}Z`)).toBeGreaterThanOrEqual(earliest);
		}
		const trunk = (await call('GET', '/v3/accounts/123456/notifications/history?class=trunk')).json as Rec[];
		expect(trunk.length).toBeGreaterThan(0);
		expect(trunk.every((item) => item.class === 'trunk' && (item.data as Rec).password === '######')).toBe(true);
		const tooOld = await call('GET', `/v3/accounts/123456/notifications/history?date_start=${encodeURIComponent(gmtText(Date.now() - 70 * DAY))}`);
		expect(tooOld.status).toBe(400);
		const window = await call('GET', `/v3/accounts/123456/notifications/history?date_start=${encodeURIComponent(gmtText(Date.now() - 10 * DAY))}&date_end=${encodeURIComponent(gmtText(Date.now()))}`);
		expect((window.json as Rec[]).length).toBeLessThan(history.length);
	});
});

describe('voice', () => {
	test('limits: named fields with the dynamic block; in + out must equal the allocation', async () => {
		expect(data(await call('GET', '/v3/voice/123456/limits'))).toEqual({
			limit_concurrent_in: 10,
			limit_concurrent_out: 20,
			channel_allocation: 30,
			channel_allocation_adjustable: true,
			channel_allocation_global_numbers: 4,
			dynamic: { active: false, reason: null, limit_concurrent_in: null, limit_concurrent_out: null, limit_rate_out: null },
		});
		const wrong = await call('PUT', '/v3/voice/123456/limits', { json: { limit_concurrent_in: 10, limit_concurrent_out: 25 } });
		expect(wrong.status).toBe(400);
		expect(wrong.body.errors).toEqual(['limit_concurrent_in 10 and limit_concurrent_out 25 total 35; they must total the channel allocation, 30']);
		expect(data(await call('GET', '/v3/voice/123456/limits')).limit_concurrent_out).toBe(20);
		const right = await call('PUT', '/v3/voice/123456/limits', { form: 'limit_concurrent_in=12&limit_concurrent_out=18' });
		expect(data(right)).toMatchObject({ limit_concurrent_in: 12, limit_concurrent_out: 18 });
		const dynamic = await call('GET', '/v3/voice/654321/limits', { as: B });
		expect(data(dynamic).dynamic).toEqual({ active: true, reason: 'low_balance', limit_concurrent_in: null, limit_concurrent_out: 2, limit_rate_out: '1/10s' });
		const notAdjustable = await call('PUT', '/v3/voice/654321/limits', { as: B, json: { limit_concurrent_in: 1, limit_concurrent_out: 1 } });
		expect(notAdjustable.status).toBe(400);
	});

	test('channels: current is an array of one; history has about 24 hours at 1m, 5m (default) or 1h', async () => {
		const current = (await call('GET', '/v3/voice/123456/channels/current')).json as Rec[];
		expect(current).toEqual([{ datetime: expect.any(String), in: 1, out: 2, total: 3 }]);
		const five = (await call('GET', '/v3/voice/123456/channels/history')).json as Rec[];
		expect(five).toHaveLength(288);
		expect(Date.parse(`${String(five[1].datetime).replace(' ', 'T')}Z`) - Date.parse(`${String(five[0].datetime).replace(' ', 'T')}Z`)).toBe(300_000);
		expect((await call('GET', '/v3/voice/123456/channels/history?interval=1m')).json).toHaveLength(1440);
		expect((await call('GET', '/v3/voice/123456/channels/history?interval=1h')).json).toHaveLength(24);
		for (const sample of five) expect(Number(sample.total)).toBe(Number(sample.in) + Number(sample.out));
		expect((await call('GET', '/v3/voice/123456/channels/history?interval=15m')).status).toBe(400);
	});

	test('calls in progress: calls and countries are objects keyed by id and country', async () => {
		const record = (await call('GET', '/v3/voice/123456/inprogress/current')).body;
		expect(Object.keys(record)).toEqual([
			'account', 'answeredcount', 'approx_seconds_remaining', 'balance', 'balance_available', 'balance_locked', 'callcount',
			'calls', 'countries', 'currency', 'datetime', 'percent_available', 'total',
		]);
		expect(record).toMatchObject({ account: '123456', callcount: 3, answeredcount: 2, currency: 'GBP', balance_locked: 100 });
		expect(Array.isArray(record.calls)).toBe(false);
		expect(Object.keys(record.countries as Rec).sort()).toEqual(['FR', 'GB']);
		for (const entry of Object.values(record.calls as Record<string, Rec>)) {
			expect(Object.keys(entry)).toEqual(['answeredcount', 'callcount', 'country', 'location', 'total']);
		}
		sandbox.wholesale.data.accounts.get('654321')!.calls = [];
		const empty = (await call('GET', '/v3/voice/654321/inprogress/current', { as: B })).text;
		expect(empty).toContain('"calls":{},"countries":{}');
	});

	test('one call, and DELETE ends it leaving a CDR (charged)', async () => {
		const account = sandbox.wholesale.data.accounts.get('123456')!;
		const callId = account.calls[0].call_id;
		const one = data(await call('GET', `/v3/voice/123456/inprogress/${callId}`));
		expect(one).toMatchObject({ call_id: callId, status: 'answered', to: '447700900555', trunk: '123456-office', tag: 'sales' });
		const balance = account.balance;
		expect((await call('DELETE', `/v3/voice/123456/inprogress/${callId}`)).body).toEqual({ success: true });
		expect((await call('GET', `/v3/voice/123456/inprogress/${callId}`)).status).toBe(404);
		expect((await call('GET', '/v3/voice/123456/inprogress/current')).body.callcount).toBe(2);
		const cdrs = list(await call('POST', '/v3/voice/123456/cdr', { json: { date_start: gmtText(Date.now() - 2 * DAY), filter: { to: '447700900555' } } }));
		expect(cdrs).toEqual([expect.objectContaining({ call_id: callId, direction: 'out', to: '447700900555', trunk: '123456-office', tag: 'sales' })]);
		// started 95 s ago, answered after 6 s ringing
		expect(Number(cdrs[0].secs_call)).toBeGreaterThanOrEqual(88);
		expect(account.balance).toBeLessThan(balance);
	});

	test('inline CDRs: fields, paging with start/limit, filters only from a JSON body, the 90-day window', async () => {
		const dateStart = gmtText(startOfUtcDay() - DAY);
		const whole = list(await call('POST', '/v3/voice/123456/cdr', { json: { date_start: dateStart, limit: 5000 } }));
		expect(whole.length).toBeGreaterThan(400);
		expect(Object.keys(whole[0])).toEqual([
			'call_id', 'cdr_id', 'calldate', 'direction', 'nts_source', 'trunk', 'tag', 'from', 'to', 'dest_id', 'todesc', 'iso',
			'secs_call', 'secs_billed', 'chg_total', 'currency',
		]);
		const pages: Rec[] = [];
		for (let start = 0; ; start += 100) {
			const page = list(await call('GET', `/v3/voice/123456/cdr?date_start=${encodeURIComponent(dateStart)}&limit=100&start=${start}`));
			pages.push(...page);
			if (page.length < 100) break;
		}
		expect(pages.map((c) => c.cdr_id)).toEqual(whole.map((c) => c.cdr_id));
		const defaultLimit = list(await call('POST', '/v3/voice/123456/cdr', { json: { date_start: dateStart } }));
		expect(defaultLimit).toHaveLength(Math.min(500, whole.length));

		const filtered = list(await call('POST', '/v3/voice/123456/cdr', { json: { date_start: dateStart, limit: 5000, filter: { trunk: '123456-office', toISO: 'gb' } } }));
		expect(filtered.length).toBeGreaterThan(0);
		expect(filtered.every((c) => c.trunk === '123456-office' && c.iso === 'GB')).toBe(true);
		const viaQuery = list(await call('GET', `/v3/voice/123456/cdr?date_start=${encodeURIComponent(dateStart)}&limit=5000&filter[trunk]=123456-office`));
		expect(viaQuery).toHaveLength(whole.length);
		const viaForm = list(await call('POST', '/v3/voice/123456/cdr', { form: `date_start=${encodeURIComponent(dateStart)}&limit=5000&filter[trunk]=123456-office` }));
		expect(viaForm).toHaveLength(whole.length);
		const unknownKey = await call('POST', '/v3/voice/123456/cdr', { json: { filter: { colour: 'blue' } } });
		expect(unknownKey.status).toBe(400);

		const old = await call('POST', '/v3/voice/123456/cdr', { json: { date_start: gmtText(Date.now() - 91 * DAY) } });
		expect(old.status).toBe(400);
		expect(old.body.errors).toEqual([expect.stringMatching(/outside the last 90 days/)]);
		expect((await call('POST', '/v3/voice/123456/cdr', { json: { date_start: '2026-02-30 00:00:00' } })).status).toBe(400);
	});

	test('CDRs of a day, the reference lookup that is unavailable, and the window', async () => {
		const yesterday = new Date(startOfUtcDay() - DAY).toISOString().slice(0, 10);
		const day = list(await call('POST', `/v3/voice/123456/cdr/${yesterday}`, { json: { limit: 5000 } }));
		expect(day.length).toBeGreaterThan(200);
		expect(day.every((c) => String(c.calldate).startsWith(yesterday))).toBe(true);
		expect(list(await call('GET', `/v3/voice/123456/cdr/${yesterday}?limit=10&start=5`))).toEqual(day.slice(5, 15));
		const old = new Date(startOfUtcDay() - 95 * DAY).toISOString().slice(0, 10);
		expect((await call('GET', `/v3/voice/123456/cdr/${old}`)).status).toBe(400);
		const reference = await call('GET', `/v3/voice/123456/cdr/${yesterday}/${String(day[0].cdr_id)}`);
		expect(reference.status).toBe(503);
		expect(reference.body.errors).toEqual([expect.stringMatching(/temporarily unavailable/)]);
	});

	test('rejected calls: today and yesterday only, and by reason', async () => {
		const all = list(await call('GET', '/v3/voice/123456/rejected'));
		expect(all).toHaveLength(9);
		const since = startOfUtcDay() - DAY;
		expect(all.every((r) => Date.parse(`${String(r.datetime).replace(' ', 'T')}Z`) >= since)).toBe(true);
		const cli = list(await call('GET', '/v3/voice/123456/rejected/cli'));
		expect(cli.length).toBeGreaterThan(0);
		expect(cli.every((r) => r.reason === 'cli')).toBe(true);
		expect(list(await call('GET', '/v3/voice/123456/rejected/nothing'))).toEqual([]);
	});
});

describe('trunks', () => {
	test('list and one trunk', async () => {
		const trunks = list(await call('GET', '/v3/voice/123456/trunks'));
		expect(trunks.map((t) => t.name)).toEqual(['123456-L001', '123456-office', '123456-dialler']);
		const dialler = data(await call('GET', '/v3/voice/123456/trunks/123456-dialler'));
		expect(dialler).toMatchObject({ type: 'auth', username: '123456-dialler', limit_concurrent_out: 10, limit_rate_out: '5/10s', limit_concurrent_in: null, enabled: 1 });
		expect(dialler).not.toHaveProperty('password');
		expect((await call('GET', '/v3/voice/123456/trunks/123456-none')).status).toBe(404);
	});

	test('PUT creates: an auth trunk (the default) shows its password once; an IP trunk has none', async () => {
		const created = await call('PUT', '/v3/voice/123456/trunks/123456-branch', { json: {} });
		expect(created.body.success).toBe(true);
		expect(data(created)).toMatchObject({ name: '123456-branch', type: 'auth', username: '123456-branch', password: expect.stringMatching(/^[A-Za-z0-9]{16}$/) });
		const again = data(await call('GET', '/v3/voice/123456/trunks/123456-branch'));
		expect(again).not.toHaveProperty('password');
		expect(JSON.stringify(list(await call('GET', '/v3/voice/123456/trunks')))).not.toContain(String(data(created).password));
		const update = await call('PUT', '/v3/voice/123456/trunks/123456-branch', { json: { limit_concurrent_out: 4 } });
		expect(data(update)).not.toHaveProperty('password');
		const ip = data(await call('PUT', '/v3/voice/123456/trunks/123456-gateway', { form: 'type=IP' }));
		expect(ip).toMatchObject({ type: 'IP', username: null });
		expect(ip).not.toHaveProperty('password');
		expect((await call('PUT', '/v3/voice/123456/trunks/123456-x', { json: { type: 'sip' } })).status).toBe(400);
		expect((await call('PUT', '/v3/voice/123456/trunks/654321-mine', { json: {} })).status).toBe(400);
		expect((await call('PUT', '/v3/voice/123456/trunks/123456-gateway', { json: { type: 'auth' } })).status).toBe(400);
		const history = (await call('GET', '/v3/accounts/123456/notifications/history?class=trunk')).json as Rec[];
		expect(history.some((h) => (h.data as Rec).trunk === '123456-branch' && (h.data as Rec).password === '######')).toBe(true);
	});

	test('update options are validated one by one; a refused update changes nothing', async () => {
		const ok = await call('PUT', '/v3/voice/123456/trunks/123456-office', {
			json: { enabled_out: 0, enable_in: '1', limit_concurrent_out: 6, limit_concurrent_in: null, limit_rate_out: '5/10s', limit_rate_out_international: '100/12h', cli_format: 'national' },
		});
		expect(data(ok)).toMatchObject({ enabled_out: 0, enable_in: 1, limit_concurrent_out: 6, limit_concurrent_in: null, limit_rate_out: '5/10s', limit_rate_out_international: '100/12h', cli_format: 'national' });
		const cleared = await call('PUT', '/v3/voice/123456/trunks/123456-office', { form: 'limit_rate_out=null&limit_concurrent_out=' });
		expect(data(cleared)).toMatchObject({ limit_rate_out: null, limit_concurrent_out: null });
		const refused = await call('PUT', '/v3/voice/123456/trunks/123456-office', {
			json: { enabled: 2, limit_concurrent_out: -1, limit_rate_out: '5/5m', limit_rate_out_per_number: '0/1s', cli_format: 'weird', colour: 'red', limit_concurrent_in: 3 },
		});
		expect(refused.status).toBe(400);
		expect(refused.body.errors).toEqual([
			'enabled must be 1 or 0',
			'limit_concurrent_out must be a whole number of 0 or more, or null for no limit',
			'limit_rate_out must be calls/duration with a duration of 12h, 10s or 1s (e.g. 5/10s), or null for no limit',
			'limit_rate_out_per_number must be calls/duration with a duration of 12h, 10s or 1s (e.g. 5/10s), or null for no limit',
			'cli_format must be one of e164, +e164, national',
			'Unknown option colour',
		]);
		expect(data(await call('GET', '/v3/voice/123456/trunks/123456-office')).limit_concurrent_in).toBeNull();
	});

	test('the default trunk cannot be deleted or renamed; others can', async () => {
		const del = await call('DELETE', '/v3/voice/123456/trunks/123456-L001');
		expect(del.status).toBe(400);
		expect(del.body.errors).toEqual(['The default trunk 123456-L001 cannot be deleted']);
		const rename = await call('PUT', '/v3/voice/123456/trunks/123456-L001', { json: { name: '123456-main' } });
		expect(rename.status).toBe(400);
		expect(rename.body.errors).toEqual(['The default trunk 123456-L001 cannot be renamed']);
		const renamed = await call('PUT', '/v3/voice/123456/trunks/123456-dialler', { json: { name: '123456-campaigns' } });
		expect(data(renamed).name).toBe('123456-campaigns');
		expect((await call('DELETE', '/v3/voice/123456/trunks/123456-campaigns')).body).toEqual({ success: true });
		expect((await call('GET', '/v3/voice/123456/trunks/123456-campaigns')).status).toBe(404);
		expect((await call('DELETE', '/v3/voice/123456/trunks/123456-campaigns')).status).toBe(404);
	});

	test('the deprecated /outbound answers like /trunks without the inbound options', async () => {
		const outbound = list(await call('GET', '/v3/voice/123456/outbound'));
		expect(outbound.map((t) => t.name)).toEqual(['123456-L001', '123456-office', '123456-dialler']);
		expect(outbound[0]).not.toHaveProperty('enable_in');
		expect(outbound[0]).not.toHaveProperty('limit_concurrent_in');
		expect(data(await call('GET', '/v3/voice/123456/outbound/123456-office')).name).toBe('123456-office');
		const inbound = await call('PUT', '/v3/voice/123456/outbound/123456-office', { json: { enable_in: 0 } });
		expect(inbound.status).toBe(400);
		expect(data(await call('PUT', '/v3/voice/123456/outbound/123456-office', { json: { limit_concurrent_out: 3 } })).limit_concurrent_out).toBe(3);
	});
});

describe('numbers', () => {
	const validConfig = {
		rules: { night: [{ days: 'mon-sun', from: '18:00', to: '08:00' }] },
		routing: {
			default: [[{ type: 'sip', endpoint: 'desk@pbx.acme.example', timeout: 20 }], [{ type: 'pstn', number: '447700900123', maxcpm: 0.1, trunk: '123456-office' }]],
			night: [[{ type: 'busy' }]],
		},
		meta: { key: 'desk', floor: 3 },
	};

	test('GET returns the configuration; PUT allocates; DELETE de-configures and removes', async () => {
		expect(data(await call('GET', '/v3/numbers/123456/allocated/442079460123'))).toEqual({ routing: { default: [[{ type: 'teams' }]] } });
		expect((await call('GET', '/v3/numbers/123456/allocated/447700900456')).body).toEqual({ success: true, data: null });
		expect((await call('GET', '/v3/numbers/123456/allocated/441632960999')).status).toBe(404);
		const allocated = await call('PUT', '/v3/numbers/123456/allocated/441632960999');
		expect(allocated.body).toEqual({ success: true, data: { number: '441632960999', allocated: expect.stringMatching(/\+00:00$/) } });
		expect((await call('PUT', '/v3/numbers/123456/allocated/441632960999')).body.success).toBe(true);
		expect((await call('PUT', '/v3/numbers/123456/allocated/441632960998')).body.success).toBe(true);
		const limit = await call('PUT', '/v3/numbers/123456/allocated/441632960997');
		expect(limit.status).toBe(400);
		expect(limit.body.errors).toEqual(['The number limit of the account (10) is reached']);
		expect((await call('PUT', '/v3/numbers/123456/allocated/441134960000')).body.errors).toEqual(['Number 441134960000 is not available']);
		expect((await call('DELETE', '/v3/numbers/123456/allocated/441632960999')).body).toEqual({ success: true });
		expect((await call('GET', '/v3/numbers/123456/allocated/441632960999')).status).toBe(404);
		expect((await call('PUT', '/v3/numbers/654321/allocated/12125550100', { as: B })).body.errors).toEqual(['NANPA (US) numbering is not enabled on this account']);
	});

	test('configuration writes: valid JSON is stored; an invalid one is refused whole and the old one kept', async () => {
		const path = '/v3/numbers/123456/allocated/441632960001';
		const before = data(await call('GET', path));
		const invalid = await call('PUT', `${path}/config`, {
			json: {
				routing: { default: [[{ type: 'sip', endpoint: 'sip:desk@pbx', timeout: 0 }]], evening: [[{ type: 'busy' }]] },
				custom: { x: 1 },
			},
		});
		expect(invalid.status).toBe(400);
		expect(invalid.body.success).toBe(false);
		const errors = invalid.body.errors as string[];
		expect(errors.every((e) => typeof e === 'string')).toBe(true);
		expect(errors.join('\n')).toMatch(/^custom: /m);
		expect(errors.join('\n')).toMatch(/routing\.default\[0\]\[0\]\.timeout/);
		expect(errors.join('\n')).toMatch(/routing\.evening/);
		expect(data(await call('GET', path))).toEqual(before);
		const noRouting = await call('PUT', `${path}/config`, { json: { meta: { key: 'x' } } });
		expect(noRouting.body.errors).toEqual([expect.stringMatching(/^routing: /)]);
		const unknownTrunk = await call('PUT', `${path}/config`, { json: { routing: { default: [[{ type: 'pstn', number: '447700900123', trunk: '123456-nothere' }]] } } });
		expect(unknownTrunk.body.errors).toEqual(['routing.default[0][0].trunk: no trunk 123456-nothere on account 123456']);
		expect((await call('PUT', `${path}/config`, { json: validConfig })).body).toEqual({ success: true });
		expect(data(await call('GET', path))).toEqual(validConfig);
		expect((await call('DELETE', `${path}/config`)).body).toEqual({ success: true });
		expect((await call('GET', path)).body).toEqual({ success: true, data: null });
		expect(sandbox.wholesale.data.accounts.get('123456')?.numbers.has('441632960001')).toBe(true);
	});

	test('a configuration sent as a form body with PHP nested keys', async () => {
		const form = [
			'routing[default][0][0][type]=sip',
			'routing[default][0][0][endpoint]=%25e164%40pbx.acme.example%3A5060',
			'routing[default][0][0][timeout]=25',
			'routing[default][1][0][type]=pstn',
			'routing[default][1][0][number]=447700900123',
			'meta[key]=form-made',
		].join('&');
		expect((await call('PUT', '/v3/numbers/123456/allocated/447700900456/config', { form })).body).toEqual({ success: true });
		expect(data(await call('GET', '/v3/numbers/123456/allocated/447700900456'))).toEqual({
			routing: { default: [[{ type: 'sip', endpoint: '%e164@pbx.acme.example:5060', timeout: '25' }], [{ type: 'pstn', number: '447700900123' }]] },
			meta: { key: 'form-made' },
		});
	});

	test('trunk association', async () => {
		const path = '/v3/numbers/123456/allocated/442079460123/trunk';
		expect((await call('GET', path)).body).toEqual({ success: true, data: { trunk: '123456-office' } });
		expect((await call('PUT', path, { json: { trunk: '123456-dialler' } })).body).toEqual({ success: true, data: { trunk: '123456-dialler' } });
		expect((await call('PUT', path, { json: { trunk: '123456-ghost' } })).status).toBe(400);
		expect((await call('DELETE', path)).body).toEqual({ success: true, data: { trunk: null } });
		expect((await call('GET', path)).body).toEqual({ success: true, data: { trunk: null } });
	});

	test('inbound SMS: mobile or OTT numbers only; http cannot post to https', async () => {
		const path = '/v3/numbers/123456/allocated/447700900123/sms';
		expect((await call('GET', path)).body).toEqual({ success: true, data: { mode: 'http_json', endpoint: 'https://sms.acme.example/inbound' } });
		const legacyTls = await call('PUT', path, { json: { mode: 'http', endpoint: 'https://sms.acme.example/in' } });
		expect(legacyTls.status).toBe(400);
		expect(legacyTls.body.errors).toEqual(['endpoint: the legacy mode http cannot post to TLS endpoints: use http_json for https']);
		expect((await call('PUT', path, { form: 'mode=http&endpoint=http%3A%2F%2F127.0.0.1%3A9%2Fsms' })).body).toEqual({
			success: true,
			data: { mode: 'http', endpoint: 'http://127.0.0.1:9/sms' },
		});
		expect((await call('DELETE', path)).body).toEqual({ success: true });
		expect((await call('GET', path)).body).toEqual({ success: true, data: { mode: null, endpoint: null } });
		expect((await call('GET', '/v3/numbers/123456/allocated/441632960001/sms')).status).toBe(400);
	});

	test('999 data: validated, charged, UK numbers only', async () => {
		const path = '/v3/numbers/123456/allocated/441632960002/999';
		expect((await call('GET', path)).body).toEqual({ success: true, data: null });
		const account = sandbox.wholesale.data.accounts.get('123456')!;
		const balance = account.balance;
		const bad = await call('PUT', path, { json: { name: 'Smith', title: 'Dr', premises: '12', thoroughfare: 'High Street', locality: 'Leeds', postcode: 'LS14AP' } });
		expect(bad.status).toBe(400);
		expect(bad.body.errors).toEqual(['postcode: "LS14AP" is not a full postcode (out-code, space, in-code)']);
		const business = await call('PUT', path, { json: { name: 'Acme', bussuffix: 'Ltd', title: 'Dr', premises: '12', thoroughfare: 'High Street', locality: 'Leeds', postcode: 'LS1 4AP' } });
		expect(business.body.errors).toEqual([expect.stringMatching(/^title: /)]);
		expect(account.balance).toBe(balance);
		const good = { title: 'Dr', forename: 'Ann', name: 'Smith', premises: '12', thoroughfare: 'High Street', locality: 'Headingley, Leeds', postcode: 'LS6 3AA' };
		expect((await call('PUT', path, { json: good })).body).toEqual({ success: true, data: good });
		expect((await call('GET', path)).body).toEqual({ success: true, data: good });
		expect(account.balance).toBeCloseTo(balance - 1.5, 4);
		expect((await call('GET', '/v3/numbers/123456/allocated/12025550143/999')).status).toBe(400);
	});
});

describe('e911', () => {
	const path = '/v3/numbers/123456/allocated/14155550100/e911';
	const address = { name: 'Acme West', streetNum: '101', streetInfo: 'Market Street', location: 'Suite 400', city: 'San Francisco', state: 'CA', postalCode: '94105' };

	test('GET registered (a record without a provisioned form of its own) and unregistered', async () => {
		expect((await call('GET', '/v3/numbers/123456/allocated/12025550143/e911')).body).toEqual({
			success: true,
			data: {
				number: '12025550143',
				configured: true,
				e911Status: 'In Service',
				activatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/),
				address: { name: 'Acme Voice DC Office', streetNum: '1600', streetInfo: 'Pennsylvania Ave NW', location: 'Suite 200', city: 'Washington', state: 'DC', postalCode: '20500' },
				provisionedAddress: null,
			},
		});
		expect((await call('GET', path)).body).toEqual({
			success: true,
			data: { number: '14155550100', configured: false, e911Status: null, activatedAt: null, address: null, provisionedAddress: null },
		});
	});

	test('PUT: the provisioned address may differ (corrected); an exact one is valid; DELETE removes', async () => {
		const put = await call('PUT', path, { json: { ...address, postalCodePlusFour: '' } });
		expect(put.status).toBe(200);
		expect(put.body).toEqual({
			success: true,
			data: {
				number: '14155550100',
				configured: true,
				result: 'corrected',
				address,
				provisionedAddress: { name: 'Acme West', streetNum: '101', streetInfo: 'Market St', location: 'Ste 400', city: 'San Francisco', state: 'CA', postalCode: '94105', postalCodePlusFour: '1804' },
			},
		});
		const got = data(await call('GET', path));
		expect(got).toMatchObject({ configured: true, e911Status: 'In Service', address, provisionedAddress: expect.objectContaining({ streetInfo: 'Market St' }) });
		const exact = { name: 'Acme West', streetNum: '9', streetInfo: 'Elm St', city: 'Sausalito', state: 'CA', postalCode: '94965' };
		expect(data(await call('PUT', path, { form: new URLSearchParams(exact).toString() }))).toMatchObject({ result: 'valid', address: exact, provisionedAddress: exact });
		expect((await call('DELETE', path)).body).toEqual({ success: true, data: { number: '14155550100', configured: false } });
		expect(data(await call('GET', path)).configured).toBe(false);
	});

	test('field errors: missing, invalid, and # in streetInfo (address check), in the e911 shape', async () => {
		const missing = await call('PUT', path, { json: { ...address, name: '', city: undefined } });
		expect(missing.status).toBe(400);
		expect(missing.body).toEqual({
			success: false,
			http_code: 400,
			errors: [
				{ code: 'e911.missing_field', field: 'name', message: 'name is required' },
				{ code: 'e911.missing_field', field: 'city', message: 'city is required' },
			],
			data: {},
		});
		const invalid = await call('PUT', path, { json: { ...address, state: 'ca', postalCode: '941', postalCodePlusFour: '12-4', location: 'x'.repeat(21) } });
		expect((invalid.body.errors as Rec[]).map((e) => [e.code, e.field])).toEqual([
			['e911.invalid_field', 'location'],
			['e911.invalid_field', 'state'],
			['e911.invalid_field', 'postalCode'],
			['e911.invalid_field', 'postalCodePlusFour'],
		]);
		const hash = await call('PUT', path, { json: { ...address, streetInfo: 'Market Street #4' } });
		expect(hash.body).toMatchObject({ success: false, http_code: 400, errors: [{ code: 'e911.field_invalid', field: 'streetInfo' }] });
		expect(data(await call('GET', path)).configured).toBe(false);
	});

	test('number errors: not US, not NANP-valid, not allocated; NANPA not enabled', async () => {
		const notUs = await call('GET', '/v3/numbers/123456/allocated/441632960001/e911');
		expect(notUs.body).toMatchObject({ http_code: 400, errors: [{ code: 'e911.invalid_field', field: 'number' }] });
		const tn = await call('GET', '/v3/numbers/123456/allocated/11255550100/e911');
		expect(tn.body).toMatchObject({ http_code: 400, errors: [{ code: 'e911.tn_invalid', field: 'number' }] });
		const notFound = await call('PUT', '/v3/numbers/123456/allocated/12125550123/e911', { json: address });
		expect(notFound.status).toBe(404);
		expect(notFound.body).toMatchObject({ success: false, http_code: 404, errors: [{ code: 'e911.not_found', field: 'number' }], data: {} });
		const disabled = await call('GET', '/v3/numbers/654321/allocated/12125550199/e911', { as: B });
		expect(disabled.status).toBe(400);
		expect(disabled.body).toEqual({ success: false, http_code: 400, errors: [{ code: 'e911.not_enabled', field: null, message: 'NANPA numbering is not enabled on account 654321' }], data: {} });
	});

	test('validate: the number-scoped check registers nothing and never returns candidates', async () => {
		const ok = await call('POST', `${path}/validate`, { json: address });
		expect(ok.body).toEqual({
			success: true,
			data: { result: 'valid', address, correctedAddress: expect.objectContaining({ streetInfo: 'Market St', location: 'Ste 400' }), candidateAddresses: [] },
		});
		expect(data(await call('GET', path)).configured).toBe(false);
		const ambiguous = await call('POST', `${path}/validate`, { json: { ...address, streetNum: '100', streetInfo: 'Main St', city: 'Springfield', state: 'IL', postalCode: '62999' } });
		expect(ambiguous.body).toEqual({ success: false, http_code: 400, errors: [{ code: 'e911.address_invalid', field: null, message: expect.any(String) }], data: {} });
	});

	test('the account-level validate: no name, candidate addresses, corrected addresses, not found, field required', async () => {
		const noName = { ...address };
		delete (noName as Partial<typeof address>).name;
		const ok = await call('POST', '/v3/numbers/123456/e911/validate', { json: noName });
		expect(ok.body).toMatchObject({ success: true, data: { result: 'valid', address: noName, candidateAddresses: [] } });
		const ambiguous = await call('POST', '/v3/numbers/123456/e911/validate', { json: { streetNum: '100', streetInfo: 'Main Street', city: 'Springfield', state: 'IL', postalCode: '62999' } });
		expect(ambiguous.body).toMatchObject({ success: false, http_code: 400, errors: [{ code: 'e911.address_invalid' }] });
		expect(((ambiguous.body.data as Rec).candidateAddresses as Rec[]).map((c) => c.state)).toEqual(['IL', 'MA', 'MO']);
		const wrongState = await call('POST', '/v3/numbers/123456/e911/validate', { json: { ...noName, state: 'NV' } });
		expect(wrongState.body).toMatchObject({
			errors: [{ code: 'e911.address_invalid', field: 'state' }],
			data: { correctedAddress: expect.objectContaining({ state: 'CA', streetInfo: 'Market St' }), candidateAddresses: [expect.objectContaining({ state: 'CA' })] },
		});
		const nowhere = await call('POST', '/v3/numbers/123456/e911/validate', { json: { ...noName, streetInfo: 'Nowhere Road' } });
		expect(nowhere.body).toMatchObject({ errors: [{ code: 'e911.address_not_found', field: null }] });
		const units = await call('POST', '/v3/numbers/123456/e911/validate', { json: { streetNum: '350', streetInfo: 'Fifth Avenue', city: 'New York', state: 'NY', postalCode: '10118' } });
		expect(units.body).toMatchObject({ errors: [{ code: 'e911.field_required', field: 'location' }] });
		const disabled = await call('POST', '/v3/numbers/654321/e911/validate', { as: B, json: noName });
		expect(disabled.body).toMatchObject({ errors: [{ code: 'e911.not_enabled' }] });
	});

	test('injected upstream codes answer the next e911 call with their status', async () => {
		const cases: Array<[string, number]> = [
			['e911.retry', 503],
			['e911.upstream', 500],
			['e911.upstream_unavailable', 503],
			['e911.internal_error', 500],
		];
		for (const [code, status] of cases) {
			expect((await admin('POST', '/e911/faults', { code })).status).toBe(200);
			const answer = await call('GET', path);
			expect([code, answer.status]).toEqual([code, status]);
			expect(answer.body).toEqual({ success: false, http_code: status, errors: [{ code, field: null, message: expect.any(String) }], data: {} });
			expect((await call('GET', path)).status).toBe(200);
		}
		await admin('POST', '/e911/faults', { code: 'e911.retry', count: 2 });
		expect((await call('POST', '/v3/numbers/123456/e911/validate', { json: address })).status).toBe(503);
		expect((await call('DELETE', path)).status).toBe(503);
		expect((await call('DELETE', path)).status).toBe(200);
		expect((await admin('POST', '/e911/faults', { code: 'e911.nonsense' })).status).toBe(400);
	});

	test('e911.partially_applied on PUT: 500, and GET then shows the half-applied state', async () => {
		await admin('POST', '/e911/faults', { code: 'e911.partially_applied' });
		const answer = await call('PUT', path, { json: address });
		expect(answer.status).toBe(500);
		expect(answer.body).toMatchObject({ success: false, http_code: 500, errors: [{ code: 'e911.partially_applied' }] });
		expect(data(await call('GET', path))).toMatchObject({ configured: true, e911Status: 'Pending', address, provisionedAddress: null });
		expect(data(await call('PUT', path, { json: address }))).toMatchObject({ result: 'corrected' });
		expect(data(await call('GET', path)).e911Status).toBe('In Service');
	});
});

describe('number validation and lookup', () => {
	test('UK numbers carry ofcom; 09 is valid but not a valid CLI', async () => {
		const geo = data(await call('GET', '/v3/numbers/123456/validate/441632960001'));
		expect(geo).toEqual({
			valid: true,
			country_code: 44,
			iso: 'GB',
			national_number: '1632960001',
			type: 'fixed_line',
			carrier: 'Ofcom reserved',
			timezones: ['Europe/London'],
			formatted: { e164: '+441632960001', national: '01632 960001', international: '+44 1632 960001' },
			ofcom: { status: 'Allocated', use: 'Geographic (drama)', rh: 'Ofcom reserved', date: '2003-01-01', valid_cli: true },
		});
		const premium = data(await call('GET', '/v3/numbers/123456/validate/449098790123'));
		expect(premium).toMatchObject({ valid: true, type: 'premium_rate', ofcom: { valid_cli: false } });
		expect(data(await call('GET', '/v3/numbers/123456/validate/+442079460123')).formatted).toEqual({ e164: '+442079460123', national: '020 7946 0123', international: '+44 20 7946 0123' });
		const us = data(await call('GET', '/v3/numbers/123456/validate/12025550143'));
		expect(us).toMatchObject({ valid: true, iso: 'US', type: 'fixed_line_or_mobile', timezones: ['America/New_York'], formatted: { national: '(202) 555-0143' } });
		expect(us).not.toHaveProperty('ofcom');
		expect(data(await call('GET', '/v3/numbers/123456/validate/4412'))).toMatchObject({ valid: false });
		expect(data(await call('GET', '/v3/numbers/123456/validate/hello'))).toMatchObject({ valid: false });
	});

	test('lookup: success, formatted and the range block with its holder', async () => {
		expect((await call('GET', '/v3/numbers/123456/lookup/442079460123')).body).toEqual({
			success: true,
			formatted: '020 7946 0123',
			data: { code: '020', prefix: '02079460', rh: 'Gamma Telecom' },
		});
		expect((await call('GET', '/v3/numbers/123456/lookup/12025550143')).status).toBe(400);
	});
});
