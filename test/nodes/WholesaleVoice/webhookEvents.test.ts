import type { IDataObject } from 'n8n-workflow';

import { parseBody, parseForm, parseParsedBody } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/trigger/deliveryBody';
import {
	deliveryEvents,
	documentEvents,
	londonOffsetMinutes,
	normaliseTime,
} from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/trigger/deliveryItems';
import { ALL_EVENTS, SMS_STATUSES, categoryOf } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/trigger/events';
import { formEncode, phpJson } from '../../../sandbox/wholesale/php';
import { realDelivery } from './triggerKit';

const RECEIVED = new Date('2026-03-01T10:00:05.250Z');
const opts = (extra: Partial<{ splitCalls: boolean; query: IDataObject }> = {}) => ({ splitCalls: false, receivedAt: RECEIVED, query: {}, ...extra });

function docs(body: string | Buffer, contentType?: string): unknown[] {
	const parsed = parseBody(typeof body === 'string' ? Buffer.from(body) : body, contentType);
	if (!parsed.ok) throw new Error(parsed.reason);
	return parsed.documents;
}

function items(document: unknown, extra: Parameters<typeof opts>[0] = {}): IDataObject[] {
	const result = documentEvents(document, opts(extra));
	if ('reason' in result) throw new Error(result.reason);
	return result.items;
}

describe('bodies as the platform sends them', () => {
	const document = { app: 'rate_update', id: 'a1', data: { rate_type: 'voice', url: 'https://x.example/v3/rates/csv/default', desc: 'Côte d’Ivoire 😀' } };

	test('text/json with PHP escaping: \\/ and \\uXXXX (astral characters as a surrogate pair)', () => {
		const body = phpJson(document);
		expect(body).toContain('https:\\/\\/x.example\\/v3');
		expect(body).toContain('C\\u00f4te d\\u2019Ivoire \\ud83d\\ude00');
		expect(docs(body, 'text/json')).toEqual([document]);
	});

	test('the same document as application/json, with a charset, without a content type, with a BOM', () => {
		const body = phpJson(document);
		expect(docs(body, 'application/json')).toEqual([document]);
		expect(docs(body, 'text/json; charset=UTF-8')).toEqual([document]);
		expect(docs(body)).toEqual([document]);
		expect(docs(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]), 'text/json')).toEqual([document]);
		expect(docs(`\n  ${body}\n`, 'text/json')).toEqual([document]);
	});

	test('a form post with the document in payload (report callbacks, SMS reports, webhooks sent as forms)', () => {
		const body = formEncode({ payload: phpJson({ app: 'reports', id: 'f'.repeat(32), data: null }) });
		expect(body.startsWith('payload=%7B%22app%22')).toBe(true);
		const parsed = parseBody(Buffer.from(body), 'application/x-www-form-urlencoded');
		expect(parsed).toEqual({ ok: true, encoding: 'payload', documents: [{ app: 'reports', id: 'f'.repeat(32), data: null }] });
		// Declared wrongly, or not at all: still a form.
		expect(docs(body, 'text/json')).toEqual([{ app: 'reports', id: 'f'.repeat(32), data: null }]);
		expect(docs(body)).toEqual([{ app: 'reports', id: 'f'.repeat(32), data: null }]);
	});

	test('a flat form (inbound SMS, mode http); PHP-style keys nest; + is a space', () => {
		expect(docs('id=abc&from=447700900321&to=447700900123&message=Hello+there%21&received=2026-03-01+10%3A00%3A00', 'application/x-www-form-urlencoded')).toEqual([
			{ id: 'abc', from: '447700900321', to: '447700900123', message: 'Hello there!', received: '2026-03-01 10:00:00' },
		]);
		expect(parseForm('app=sms_send_status&id=m1&data%5Bdtime%5D=2026-03-01+10%3A00%3A00&data[status]=11&n[]=a&n[]=b&deep[a][b]=c')).toEqual({
			app: 'sms_send_status',
			id: 'm1',
			data: { dtime: '2026-03-01 10:00:00', status: '11' },
			n: ['a', 'b'],
			deep: { a: { b: 'c' } },
		});
	});

	test('hostile form keys: a key naming a prototype is dropped (no object anywhere changes); an index past the end of a list makes it an object', () => {
		const fields = parseForm('__proto__[polluted]=yes&a[__proto__][x]=1&constructor[prototype][y]=2&toString[z]=3&from=1&text=hi');
		expect(({} as IDataObject).polluted).toBeUndefined();
		expect(({} as IDataObject).x).toBeUndefined();
		expect(({} as IDataObject).y).toBeUndefined();
		expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
		expect(fields).toEqual({ constructor: { prototype: { y: '2' } }, toString: { z: '3' }, from: '1', text: 'hi' });
		// Through the whole body path too, beside a payload document.
		const parsed = parseBody(Buffer.from('payload=%7B%22app%22%3A%22cdr%22%2C%22id%22%3A%221%22%7D&__proto__[isAdmin]=true'), 'application/x-www-form-urlencoded');
		expect(parsed.ok && parsed.documents).toEqual([{ app: 'cdr', id: '1' }]);
		expect(({} as IDataObject).isAdmin).toBeUndefined();

		const sparse = parseForm('a[]=1&a[20000000]=x&b[]=1&b[1]=2&b[0]=0');
		expect(sparse.a).toEqual({ 0: '1', 20000000: 'x' });
		expect(sparse.b).toEqual(['0', '2']);
		expect(JSON.stringify(parseForm('a[]=1&a[4294967294]=x')).length).toBeLessThan(40);
	});

	test('a delivery of 300,000 calls split per call: every call an item (spreading them into a list overflowed the call stack)', () => {
		const calls = Array.from({ length: 300_000 }, (_v, i) => ({ callid: `c${i}` }));
		const split = items({ app: 'inprogress_summary', id: 's', data: { calls } }, { splitCalls: true });
		expect(split).toHaveLength(300_000);
		expect(split[299_999]).toMatchObject({ callid: 'c299999', callIndex: 299_999 });
	});

	test('a JSON field named __proto__ never becomes the item\'s prototype', () => {
		const cdr = JSON.parse('{"app":"cdr","id":"c1","data":{"__proto__":{"chg_total":999},"call_id":"x","app":"y"}}') as IDataObject;
		const [item] = items(cdr);
		expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
		expect(item.chg_total).toBeUndefined();
		expect(item).toMatchObject({ app: 'cdr', id: 'c1', call_id: 'x', data_app: 'y' });
		const sms = JSON.parse('{"id":"m1","from":"447700900321","__proto__":{"spoofed":true}}') as IDataObject;
		expect(items(sms)[0].spoofed).toBeUndefined();
		const status = JSON.parse('{"app":"sms_send_status","id":"m2","data":{"status":11,"__proto__":{"final":false}}}') as IDataObject;
		expect(items(status)[0]).toMatchObject({ status: 11, final: true });
		const summary = JSON.parse('{"app":"inprogress_summary","id":"s","data":{"__proto__":{"forged":1},"calls":[]}}') as IDataObject;
		expect(items(summary)[0].forged).toBeUndefined();
	});

	test('form bytes that are not UTF-8 are read as Latin-1 (the legacy mode has no Unicode); a Latin-1 charset is honoured', () => {
		expect(docs('message=Caf%E9+ouvert', 'application/x-www-form-urlencoded')).toEqual([{ message: 'Café ouvert' }]);
		expect(docs('message=Caf%C3%A9', 'application/x-www-form-urlencoded')).toEqual([{ message: 'Café' }]);
		expect(docs(Buffer.from('{"message":"Caf\xe9"}', 'latin1'), 'application/json; charset=ISO-8859-1')).toEqual([{ message: 'Café' }]);
	});

	test('variants: a top-level array is several documents; a JSON string holding JSON is unwrapped; {payload: "<json>"} is unwrapped', () => {
		expect(docs('[{"app":"cdr","id":"1"},{"app":"cdr","id":"2"}]', 'text/json')).toHaveLength(2);
		expect(docs(JSON.stringify(JSON.stringify({ app: 'cdr', id: '1' })), 'text/json')).toEqual([{ app: 'cdr', id: '1' }]);
		const wrapped = deliveryEvents(docs(JSON.stringify({ payload: JSON.stringify({ app: 'cdr', id: '9', data: { call_id: 'c' } }) })), opts());
		expect(wrapped.ok && wrapped.documents[0].items[0]).toMatchObject({ app: 'cdr', id: '9', call_id: 'c' });
	});

	test('an empty body gives no documents; what cannot be read gives a short reason', () => {
		expect(parseBody(Buffer.alloc(0), 'text/json')).toEqual({ ok: true, documents: [], encoding: 'empty' });
		expect(parseBody(undefined)).toEqual({ ok: true, documents: [], encoding: 'empty' });
		const broken = parseBody(Buffer.from('{"app":"cdr","id":'), 'text/json');
		expect(broken.ok).toBe(false);
		expect(!broken.ok && broken.reason).toMatch(/^the body is not valid JSON \(/);
		const badPayload = parseBody(Buffer.from('payload=%7B%22app'), 'application/x-www-form-urlencoded');
		expect(!badPayload.ok && badPayload.reason).toMatch(/^the payload field is not valid JSON/);
		expect(parseBody(Buffer.from('hello'), 'text/plain')).toEqual({ ok: false, reason: 'the body is neither JSON nor a form (text/plain)' });
		expect(parseBody(Buffer.from('hello'), 'text/json')).toMatchObject({ ok: false, reason: expect.stringMatching(/not valid JSON/) });
	});

	test('a body n8n already parsed (no raw bytes): objects, form fields with payload, text', () => {
		expect(parseParsedBody({ app: 'cdr', id: '1' }, 'application/json')).toEqual({ ok: true, documents: [{ app: 'cdr', id: '1' }], encoding: 'json' });
		expect(parseParsedBody({ payload: '{"app":"reports","id":"h","data":null}' }, 'application/x-www-form-urlencoded')).toEqual({
			ok: true,
			documents: [{ app: 'reports', id: 'h', data: null }],
			encoding: 'payload',
		});
		expect(parseParsedBody('{"app":"cdr"}', 'text/plain')).toMatchObject({ ok: true, documents: [{ app: 'cdr' }] });
		expect(parseParsedBody({}, 'text/json')).toEqual({ ok: true, documents: [], encoding: 'empty' });
		expect(parseParsedBody(undefined)).toEqual({ ok: true, documents: [], encoding: 'empty' });
	});
});

describe('times', () => {
	test('ISO forms are exact; plain date-times are UTC; epoch seconds are accepted', () => {
		expect(normaliseTime('2026-03-01T10:00:00Z')).toBe('2026-03-01T10:00:00Z');
		expect(normaliseTime('2026-03-01T10:00:00+00:00')).toBe('2026-03-01T10:00:00Z');
		expect(normaliseTime('2026-07-01T11:00:00+01:00')).toBe('2026-07-01T10:00:00Z');
		expect(normaliseTime('2026-03-01T10:00:00.123Z')).toBe('2026-03-01T10:00:00.123Z');
		expect(normaliseTime('2026-07-01 10:00:00')).toBe('2026-07-01T10:00:00Z');
		expect(normaliseTime('2026-07-01T10:00:00')).toBe('2026-07-01T10:00:00Z');
		expect(normaliseTime(1772359200)).toBe('2026-03-01T10:00:00Z');
		expect(normaliseTime('1772359200')).toBe('2026-03-01T10:00:00Z');
	});

	test('UK local time: GMT in winter, BST in summer, the doubled hour read as BST, the skipped hour as GMT', () => {
		expect(normaliseTime('2026-01-15 12:00:00', 'uk')).toBe('2026-01-15T12:00:00Z');
		expect(normaliseTime('2026-07-01 12:00:00', 'uk')).toBe('2026-07-01T11:00:00Z');
		// Clocks go back at 02:00 BST on 25 October 2026: 01:30 happens twice.
		expect(normaliseTime('2026-10-25 01:30:00', 'uk')).toBe('2026-10-25T00:30:00Z');
		expect(normaliseTime('2026-10-25 02:30:00', 'uk')).toBe('2026-10-25T02:30:00Z');
		// Clocks go forward at 01:00 GMT on 29 March 2026: 01:30 does not exist.
		expect(normaliseTime('2026-03-29 01:30:00', 'uk')).toBe('2026-03-29T01:30:00Z');
		expect(normaliseTime('2026-03-29 02:30:00', 'uk')).toBe('2026-03-29T01:30:00Z');
		expect(londonOffsetMinutes(Date.UTC(2026, 6, 1))).toBe(60);
		expect(londonOffsetMinutes(Date.UTC(2026, 0, 1))).toBe(0);
	});

	// From 1990: until 1995 UK clocks went back on the day after the fourth Saturday of October, not the last Sunday.
	test('the UK offset agrees with the time zone database, 1990 to 2037, around every change', () => {
		const format = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', hourCycle: 'h23', hour: '2-digit', minute: '2-digit' });
		const byDatabase = (ms: number) => {
			const [h, m] = format.format(new Date(ms)).split(':').map(Number);
			const utc = new Date(ms);
			return (((h * 60 + m - (utc.getUTCHours() * 60 + utc.getUTCMinutes())) % 1440) + 1440) % 1440;
		};
		for (let year = 1990; year <= 2037; year++) {
			for (const month of [2, 9]) {
				for (let day = 20; day <= 31; day++) {
					for (const minutes of [59, 60, 61]) {
						const ms = Date.UTC(year, month, day, 0, minutes);
						expect([year, month, day, minutes, londonOffsetMinutes(ms)]).toEqual([year, month, day, minutes, byDatabase(ms)]);
					}
				}
			}
			for (let m = 0; m < 12; m++) expect(londonOffsetMinutes(Date.UTC(year, m, 10, 12))).toBe(byDatabase(Date.UTC(year, m, 10, 12)));
		}
	});

	test('what is not a date-time', () => {
		for (const value of ['', 'yesterday', '2026-02-30 10:00:00', '2026-13-01 00:00:00', null, undefined, {}, -5]) {
			expect(normaliseTime(value)).toBeUndefined();
		}
	});
});

describe('items: one flat item per event', () => {
	test('wrapper first, then the data fields at the top level; the original timestamp kept beside the normalised time', () => {
		const [item] = items({ app: 'cdr', id: 'm1', timestamp: '2026-03-01 09:59:58', data: { call_id: 'c1', secs_call: 60, chg_total: 0.012, currency: 'GBP' } });
		expect(item).toEqual({
			app: 'cdr',
			id: 'm1',
			timestamp: '2026-03-01 09:59:58',
			eventTime: '2026-03-01T09:59:58Z',
			eventTimeSource: 'timestamp',
			receivedAt: '2026-03-01T10:00:05.250Z',
			call_id: 'c1',
			secs_call: 60,
			chg_total: 0.012,
			currency: 'GBP',
		});
	});

	test('no timestamp (rate_update): timestamp null, the time of receipt as eventTime', () => {
		const [item] = items({ app: 'rate_update', id: 'r1', data: { rate_type: 'voice', date_effective: '2026-04-01 00:00:00', url: 'u' } });
		expect(item).toMatchObject({ timestamp: null, eventTime: '2026-03-01T10:00:05.250Z', eventTimeSource: 'receivedAt', date_effective: '2026-04-01 00:00:00' });
	});

	test('data as an array: one element is the object form; several are one item each with dataIndex', () => {
		const one = items({ app: 'porting', id: 'p', data: [{ orderid: 40003, status: 'accepted' }] });
		expect(one).toEqual(items({ app: 'porting', id: 'p', data: { orderid: 40003, status: 'accepted' } }));
		const two = items({ app: 'porting', id: 'p', data: [{ orderid: 1 }, { orderid: 2 }] });
		expect(two.map((i) => [i.orderid, i.dataIndex])).toEqual([
			[1, 0],
			[2, 1],
		]);
	});

	test('a data field named like a wrapper field is kept as data_<name>', () => {
		const [item] = items({ app: 'cdr', id: 'm', timestamp: 't', data: { id: 'inner', app: 'x', receivedAt: 'y' } });
		expect(item).toMatchObject({ app: 'cdr', id: 'm', data_id: 'inner', data_app: 'x', data_receivedAt: 'y' });
	});

	test('every app of the spec is its own category; anything else is Other Apps', () => {
		// The spec's Webhooks table, in its order.
		const webhookApps = ['call_inbound', 'call_outbound', 'call_blocked', 'call_warning', 'inprogress_summary', 'cdr', 'rate_update', 'eha_missing_data', 'porting', 'export'];
		for (const app of webhookApps) expect(categoryOf(app)).toBe(app);
		expect(categoryOf('reports')).toBe('reports');
		expect(categoryOf('sms_send_status')).toBe('sms_send_status');
		expect(categoryOf('trunk_update')).toBe('other');
		expect(ALL_EVENTS).toHaveLength(14);
	});

	test('SMS delivery reports: every status with its name and whether it is final', () => {
		const seen = Object.keys(SMS_STATUSES).map((code) => {
			const [item] = items({ app: 'sms_send_status', id: 'sms1', data: { dtime: '2026-03-01 10:00:00', status: Number(code) } });
			return [item.status, item.statusName, item.final];
		});
		expect(seen).toEqual([
			[1, 'Received', false],
			[2, 'Submitted', false],
			[11, 'Delivered', true],
			[12, 'Rejected', true],
			[13, 'Error', true],
			[14, 'Queued', false],
			[18, 'SMSCa', false],
			[26, 'SMSCr', true],
		]);
		const [item] = items({ app: 'sms_send_status', id: 'sms1', data: { dtime: '2026-03-01 10:00:00', status: '13' } });
		expect(item).toMatchObject({ status: 13, statusName: 'Error', final: true, eventTime: '2026-03-01T10:00:00Z', eventTimeSource: 'dtime', timestamp: null });
		const [unknown] = items({ app: 'sms_send_status', id: 'sms1', data: { status: 99 } });
		expect(unknown).toMatchObject({ status: 99, statusName: null, final: null });
	});

	test('SMS delivery reports: %id% and %status% substituted into the query fill what the body lacks; unreplaced ones are ignored', () => {
		const [item] = items({ app: 'sms_send_status', data: { dtime: '2026-03-01 10:00:00' } }, { query: { id: 'm77', status: '11' } });
		expect(item).toMatchObject({ id: 'm77', status: 11, statusName: 'Delivered', query: { id: 'm77', status: '11' } });
		const [raw] = items({ app: 'sms_send_status', data: {} }, { query: { id: '%id%', status: '%status%' } });
		expect(raw).toMatchObject({ id: null, status: null, statusName: null });
		const fromQuery = deliveryEvents([], opts({ query: { id: 'm78', status: '2' } }));
		expect(fromQuery.ok && fromQuery.documents[0].items[0]).toMatchObject({ app: 'sms_send_status', id: 'm78', status: 2, statusName: 'Submitted', final: false });
		expect(deliveryEvents([], opts())).toEqual({ ok: false, reason: 'the body is empty' });
	});

	test('report ready: the hash as id and hash, no timestamp', () => {
		const hash = 'ab'.repeat(16);
		expect(items({ app: 'reports', id: hash, data: null })).toEqual([
			{ app: 'reports', id: hash, hash, timestamp: null, eventTime: '2026-03-01T10:00:05.250Z', eventTimeSource: 'receivedAt', receivedAt: '2026-03-01T10:00:05.250Z' },
		]);
	});

	test('inbound SMS (no app): marked sms_inbound, the message fields at the top level, its received time as eventTime', () => {
		expect(items({ id: 'in1', from: '447700900321', to: '447700900123', message: 'Hi', received: '2026-03-01 09:00:00' })).toEqual([
			{
				app: 'sms_inbound',
				id: 'in1',
				timestamp: null,
				eventTime: '2026-03-01T09:00:00Z',
				eventTimeSource: 'received',
				receivedAt: '2026-03-01T10:00:05.250Z',
				from: '447700900321',
				to: '447700900123',
				message: 'Hi',
				received: '2026-03-01 09:00:00',
			},
		]);
	});

	test('inbound SMS with the time real payloads carry: `time` is the event time', () => {
		const [item] = items({ app: 'sms_inbound', id: 'si_1', data: { originator: '447700900321', destination: '447700900123', message: 'Hi', time: '2026-03-01 09:30:00' } });
		expect(item).toMatchObject({ app: 'sms_inbound', eventTime: '2026-03-01T09:30:00Z', eventTimeSource: 'time', time: '2026-03-01 09:30:00' });
	});

	test('a document without app counts as an inbound SMS only with a field one carries; else it cannot be read', () => {
		const reason = 'a document has no app and no field of an inbound SMS';
		const bodies: Array<[string, string]> = [
			['{}', 'text/json'],
			['{}', 'application/json'],
			['[{"app":"cdr","id":"c1"},{}]', 'text/json'],
			['{"id":"x1","timestamp":"2026-03-01T10:00:00Z"}', 'text/json'],
			['foo=bar', 'application/x-www-form-urlencoded'],
			['{"payload":"not json"}', 'text/json'],
		];
		for (const [body, type] of bodies) expect({ body, result: deliveryEvents(docs(body, type), opts()) }).toEqual({ body, result: { ok: false, reason } });
		// One field is enough: the public docs' (originator, destination, message, length, time), the sandbox's (from, to, received), or inside data.
		const documents: IDataObject[] = [
			{ originator: '447700900321' },
			{ destination: '447700900123' },
			{ message: '' },
			{ length: 0 },
			{ time: '2026-03-01 09:30:00' },
			{ from: '447700900321' },
			{ to: '447700900123' },
			{ received: '2026-03-01 09:00:00' },
			{ id: 'si_2', data: { originator: '447700900321', message: 'Hi' } },
		];
		for (const document of documents) expect(documentEvents(document, opts())).toMatchObject({ app: 'sms_inbound', category: 'sms_inbound' });
	});

	test('a received fax in the legacy form (public docs): the hash that fetches it kept, and its id, so a retry is a repeat; an impossible time is not the event time', () => {
		const fax = realDelivery('http-post-fax-inbound-legacy-form');
		const [document] = docs(fax.body, fax.contentType);
		// The same document when n8n parsed the form itself (no raw body kept).
		expect(parseParsedBody(Object.fromEntries(new URLSearchParams(fax.body)), fax.contentType)).toEqual({ ok: true, documents: [document], encoding: 'payload' });
		const result = documentEvents(document, opts());
		if ('reason' in result) throw new Error(result.reason);
		const hash = '7e2bb7bb87300ff83c657b04b07b8261';
		expect(result).toMatchObject({ app: 'fax_inbound', category: 'other', dedupeKey: `fax_inbound\n${hash}` });
		expect(result.items).toEqual([
			{
				app: 'fax_inbound',
				id: hash,
				hash,
				timestamp: null,
				// The docs' example time, 2015-02-30, is no date.
				eventTime: '2026-03-01T10:00:05.250Z',
				eventTimeSource: 'receivedAt',
				receivedAt: '2026-03-01T10:00:05.250Z',
				time: '2015-02-30 12:34:56',
				originator: '07700900123',
				destination: '443301223000',
				status_msg: 'Ok',
				station: 'MYFAX',
				duration: 31,
				pages: 1,
				url: `/v3/..../${hash}.pdf`,
			},
		]);
		// A real time is the event time; the fax's own id and a hash inside data are kept beside the wrapper's.
		const [real] = items({ app: 'fax_inbound', hash, data: { id: 'fax-9', hash: 'inner', time: '2026-03-01 09:30:00' } });
		expect(real).toMatchObject({ id: hash, hash, data_id: 'fax-9', data_hash: 'inner', eventTime: '2026-03-01T09:30:00Z', eventTimeSource: 'time' });
		// Mode http_json has an id of its own: it stays the id.
		const [json] = items({ app: 'fax_inbound', id: 'fi_4222', data: { id: 'fax-9', time: '2026-03-01 09:30:00' } });
		expect(json).toMatchObject({ id: 'fi_4222', data_id: 'fax-9', eventTimeSource: 'time' });
		expect(json.hash).toBeUndefined();
	});

	test('an outbound fax report: dtime is the event time when it is a date; each status of one fax is its own event', () => {
		const id = 'b902e8e46b91900af276f52995a3082e';
		const report = (status: number, dtime: string) => {
			const result = documentEvents({ app: 'fax_inbound', id, data: { dtime, status, status_msg: 'OK' } }, opts());
			if ('reason' in result) throw new Error(result.reason);
			return result;
		};
		const queued = report(1, '2026-03-01 09:00:00');
		const done = report(10, '2026-03-01 09:01:30');
		expect(queued.items[0]).toMatchObject({ id, status: 1, eventTime: '2026-03-01T09:00:00Z', eventTimeSource: 'dtime' });
		expect(done.items[0]).toMatchObject({ id, status: 10, eventTime: '2026-03-01T09:01:30Z', eventTimeSource: 'dtime' });
		expect([queued.dedupeKey, done.dedupeKey]).toEqual([`fax_inbound\n${id}\n1`, `fax_inbound\n${id}\n10`]);
		expect(report(5, '2015-02-30 12:34:56').items[0]).toMatchObject({ eventTime: '2026-03-01T10:00:05.250Z', eventTimeSource: 'receivedAt' });
	});

	test('the legacy inbound SMS (app mvno_inbound_sms, form payload=) is an Inbound SMS: its category, its fields untouched', () => {
		const form = 'payload=%7B%22app%22%3A%22mvno_inbound_sms%22%2C%22id%22%3A%22fi_4222%22%2C%22data%22%3A%7B%22originator%22%3A%22447700900321%22%2C%22destination%22%3A%22447700900123%22%2C%22length%22%3A12%2C%22message%22%3A%22Hello+World.%22%7D%7D';
		const [document] = docs(form, 'application/x-www-form-urlencoded');
		const result = documentEvents(document, opts());
		if ('reason' in result) throw new Error(result.reason);
		expect(result.category).toBe('sms_inbound');
		expect(categoryOf('mvno_inbound_sms')).toBe('sms_inbound');
		expect(result.dedupeKey).toBe('mvno_inbound_sms\nfi_4222');
		expect(result.items[0]).toMatchObject({ app: 'mvno_inbound_sms', id: 'fi_4222', originator: '447700900321', destination: '447700900123', length: 12, message: 'Hello World.' });
	});

	const summary = {
		account: '123456',
		answeredcount: 1,
		callcount: 2,
		calls: { '1002': { answeredcount: 0, callcount: 1, country: 'United Kingdom', location: 'UK Fixed', total: 0 }, '1023': { answeredcount: 1, callcount: 1, country: 'France', location: 'France Mobile', total: 0.04 } },
		countries: { GB: { answeredcount: 0, callcount: 1, total: 0 }, FR: { answeredcount: 1, callcount: 1, total: 0.04 } },
		currency: 'GBP',
		datetime: '2026-07-01 12:00:00',
		total: 0.04,
	};

	test('calls in progress: lists as the action node gives them, datetime (UK local time) also in UTC; no timestamp: eventTime from datetime', () => {
		const [item] = items({ app: 'inprogress_summary', id: 's1', data: summary });
		expect(item.calls).toEqual([
			{ dest_id: '1002', answeredcount: 0, callcount: 1, country: 'United Kingdom', location: 'UK Fixed', total: 0 },
			{ dest_id: '1023', answeredcount: 1, callcount: 1, country: 'France', location: 'France Mobile', total: 0.04 },
		]);
		expect(item.countries).toEqual([
			{ country_code: 'GB', answeredcount: 0, callcount: 1, total: 0 },
			{ country_code: 'FR', answeredcount: 1, callcount: 1, total: 0.04 },
		]);
		expect(item).toMatchObject({ datetime: '2026-07-01 12:00:00', datetimeUtc: '2026-07-01T11:00:00Z', eventTime: '2026-07-01T11:00:00Z', eventTimeSource: 'datetime' });
	});

	test('calls in progress, one item per call: per destination (summary form) or per call (detail form)', () => {
		const perDestination = items({ app: 'inprogress_summary', id: 's1', timestamp: '2026-07-01T11:00:00Z', data: summary }, { splitCalls: true });
		expect(perDestination).toEqual([
			expect.objectContaining({ app: 'inprogress_summary', id: 's1', account: '123456', currency: 'GBP', datetimeUtc: '2026-07-01T11:00:00Z', callIndex: 0, callCount: 2, dest_id: '1002', location: 'UK Fixed' }),
			expect.objectContaining({ callIndex: 1, dest_id: '1023', total: 0.04 }),
		]);
		expect(perDestination[0].countries).toBeUndefined();
		const detail = { ...summary, calls: [{ calldate: '2026-07-01 11:58:00', call_id: 'c1', from: '44', to: '33', dest_id: 1023, duration: 120, charge: 0.04 }] };
		expect(items({ app: 'inprogress_summary', id: 's2', data: detail }, { splitCalls: true })).toEqual([
			expect.objectContaining({ call_id: 'c1', duration: 120, callIndex: 0, callCount: 1, account: '123456' }),
		]);
		expect(items({ app: 'inprogress_summary', id: 's3', data: { ...summary, calls: {} } }, { splitCalls: true })).toEqual([]);
	});

	test('dedupe keys: app and id; SMS reports also the status (one message has several); none for report callbacks', () => {
		const key = (doc: unknown) => {
			const r = documentEvents(doc, opts());
			return 'reason' in r ? r.reason : r.dedupeKey;
		};
		expect(key({ app: 'cdr', id: 'x' })).toBe('cdr\nx');
		expect(key({ app: 'call_inbound', id: 'x' })).toBe('call_inbound\nx');
		expect(key({ app: 'sms_send_status', id: 'x', data: { status: 1 } })).toBe('sms_send_status\nx\n1');
		expect(key({ app: 'sms_send_status', id: 'x', data: { status: 11 } })).toBe('sms_send_status\nx\n11');
		expect(key({ app: 'cdr' })).toBeUndefined();
		// A report run again after collection may carry the same hash: its callback is never dropped.
		expect(key({ app: 'reports', id: '0123456789abcdef0123456789abcdef', data: null })).toBeUndefined();
		expect(key(['not', 'an', 'object'])).toBe('a document is an array, not an object');
		expect(key(42)).toBe('a document is number, not an object');
	});

	test('an app the spec does not list is emitted as it arrives, under Other Apps', () => {
		const result = documentEvents({ app: 'trunk_update', id: 't', timestamp: '2026-03-01T10:00:00Z', data: { trunk: '123456-office', change: 'limits' } }, opts());
		expect(result).toMatchObject({ app: 'trunk_update', category: 'other', items: [expect.objectContaining({ app: 'trunk_update', trunk: '123456-office', change: 'limits' })] });
	});
});
