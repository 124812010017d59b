import type { Sandbox } from '../../sandbox/index';
import { startSandbox } from '../../sandbox/index';
import { sandboxClockForFile } from '../harness/fakeClock';
import type { Receiver } from './helpers';
import { startReceiver, waitFor } from './helpers';
import { A, B, DAY, formFields, gmtText, startOfUtcDay, wholesaleClient } from './wholesaleKit';

/**
 * The Wholesale Voice sandbox's asynchronous side: reports and files (lifecycle, dedup,
 * expiry, callbacks, forced rows and malformed content), inline summaries, porting, and
 * everything the platform pushes (webhooks in all their forms, SMS reports, inbound SMS).
 */

let sandbox: Sandbox;
let receiver: Receiver;
const { call, admin } = wholesaleClient(() => sandbox);

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
	receiver = await startReceiver();
});

afterAll(async () => {
	await receiver.close();
	await sandbox.close();
});

beforeEach(async () => {
	sandbox.reset();
	receiver.requests.length = 0;
	receiver.respond((_req, res) => {
		res.end();
	});
	await admin('POST', '/settings', { reportReadyMs: 150 });
});

type Rec = Record<string, unknown>;
const list = (answer: { body: Rec }) => answer.body.data as Rec[];
const today = () => new Date().toISOString().slice(0, 10);
const yesterday = () => new Date(startOfUtcDay() - DAY).toISOString().slice(0, 10);

describe('reports and files', () => {
	// Reports become ready, and expire, on the sandbox's clock: a fake one, moved on by the tests.
	const time = sandboxClockForFile();

	/** Moves the clock on until the report is ready (a large one is then still built, in real time), then collects it. */
	async function collect(hash: string, account = A) {
		await time.clock.advanceUntil(() => sandbox.wholesale.reports.reports.get(hash)?.state === 'ready', { stepMs: 50 });
		return await call('GET', `/v3/files/${account.id}/${hash}`, { as: account });
	}

	test('handle, 204 while running, listed when ready, 200 once, then 404', async () => {
		// Yesterday is a whole day of seeded calls; today has none yet in the minutes after midnight UTC.
		const day = yesterday();
		const handle = await call('POST', '/v3/accounts/123456/reports/voice/cdr/day', { json: { date: day } });
		expect(handle.status).toBe(200);
		const hash = String(handle.body.hash);
		expect(handle.body).toEqual({ mode: 'day', date: day, type: 'voice_cdr', account: '123456', format: 'json', hash, link: `/v3/files/123456/${hash}` });
		expect(hash).toMatch(/^[0-9a-f]{32}$/);
		expect(handle.text).toContain(`"link":"\\/v3\\/files\\/123456\\/${hash}"`);

		const running = await call('GET', `/v3/files/123456/${hash}`);
		expect(running.status).toBe(204);
		expect(running.text).toBe('');
		expect((await call('GET', '/v3/files/123456')).text).toBe('{}');

		await time.clock.advance(149);
		expect((await call('GET', `/v3/files/123456/${hash}`)).status).toBe(204);
		await time.clock.advance(1);
		const listed = (await call('GET', '/v3/files/123456')).body[hash] as Rec;
		expect(listed).toEqual({ name: `voice_cdr_day_${day}.json`, content_type: 'application/json', length: expect.any(Number), uri: `/v3/files/123456/${hash}` });

		const file = await call('GET', `/v3/files/123456/${hash}`);
		expect(file.status).toBe(200);
		expect(file.headers.get('content-type')).toBe('application/json');
		expect(file.bytes.length).toBe(listed.length);
		const rows = file.json as Rec[];
		const account = sandbox.wholesale.data.accounts.get('123456')!;
		expect(rows).toHaveLength(account.cdrs.filter((c) => c.calldate >= startOfUtcDay() - DAY && c.calldate < startOfUtcDay()).length);
		expect(Object.keys(rows[0])).toEqual([
			'call_id', 'cdr_id', 'calldate', 'direction', 'nts_source', 'trunk', 'tag', 'from', 'to', 'dest_id', 'todesc', 'iso',
			'secs_call', 'secs_billed', 'chg_total', 'currency',
		]);
		expect(rows.every((r) => String(r.calldate).startsWith(day))).toBe(true);

		const again = await call('GET', `/v3/files/123456/${hash}`);
		expect(again.status).toBe(404);
		expect(again.body.success).toBe(false);
		expect((await call('GET', '/v3/files/123456')).text).toBe('{}');
	});

	test('an identical request while uncollected answers the same handle; after collection a new report runs', async () => {
		const first = await call('POST', '/v3/accounts/123456/reports/voice/summary/day/out', { json: {} });
		const second = await call('POST', '/v3/accounts/123456/reports/voice/summary/day/out', { form: `date=${today()}` });
		expect(second.body.hash).toBe(first.body.hash);
		const other = await call('POST', '/v3/accounts/123456/reports/voice/summary/day/in');
		expect(other.body.hash).not.toBe(first.body.hash);
		const ready = await collect(String(first.body.hash));
		expect(ready.status).toBe(200);
		expect((await call('POST', '/v3/accounts/123456/reports/voice/summary/day/out')).body.hash).not.toBe(first.body.hash);
	});

	test('a ready file expires after the retention time: 404 and no longer listed', async () => {
		await admin('POST', '/settings', { reportReadyMs: 50, reportRetentionMs: 200 });
		const hash = String((await call('POST', '/v3/accounts/123456/reports/sms/cdr/latest/100')).body.hash);
		await time.clock.advance(50);
		expect((await call('GET', '/v3/files/123456')).body[hash]).toBeDefined();
		await time.clock.advance(199);
		expect((await call('GET', '/v3/files/123456')).body[hash]).toBeDefined();
		await time.clock.advance(1);
		expect((await call('GET', '/v3/files/123456')).text).toBe('{}');
		expect((await call('GET', `/v3/files/123456/${hash}`)).status).toBe(404);
		const next = await call('POST', '/v3/accounts/123456/reports/sms/cdr/latest/100');
		expect(next.body.hash).not.toBe(hash);
	});

	test('the callback URL gets payload={"app":"reports","id":hash,"data":null} as a form post', async () => {
		const hash = String((await call('POST', '/v3/accounts/123456/reports/voice/cdr/latest/10', { json: { callback: `${receiver.url}?k=1` } })).body.hash);
		expect(receiver.requests).toEqual([]);
		await time.clock.advance(150);
		const received = await waitFor(() => receiver.requests[0], 5000, 'the callback');
		expect(received.method).toBe('POST');
		expect(received.path).toBe('/hook?k=1');
		expect(received.headers['content-type']).toBe('application/x-www-form-urlencoded');
		expect(JSON.parse(formFields(received.body).payload)).toEqual({ app: 'reports', id: hash, data: null });
		const file = await call('GET', `/v3/files/123456/${hash}`);
		expect(file.json).toHaveLength(10);
		const deliveries = (await admin('GET', '/deliveries?source=report')).json as Rec[];
		expect(deliveries).toEqual([expect.objectContaining({ app: 'reports', messageId: hash, status: 200, outcome: 'delivered', elapsedMs: expect.any(Number) })]);
		expect((await call('POST', '/v3/accounts/123456/reports/voice/cdr/latest/10', { json: { callback: 'ftp://x' } })).status).toBe(400);
	});

	test('every report type: latest N, SMS CDRs, summaries, the prepay summary; dates and counts checked', async () => {
		const latest = await call('POST', '/v3/accounts/123456/reports/voice/cdr/latest/100');
		expect(latest.body).toMatchObject({ mode: 'latest', type: 'voice_cdr', date: today() });
		const latestRows = (await collect(String(latest.body.hash))).json as Rec[];
		const account = sandbox.wholesale.data.accounts.get('123456')!;
		expect(latestRows.map((r) => r.cdr_id)).toEqual(account.cdrs.slice(-100).map((c) => c.cdr_id));

		const smsDay = await call('POST', '/v3/accounts/123456/reports/sms/cdr/day', { json: { date: new Date(Date.now() - DAY).toISOString().slice(0, 10) } });
		const sms = (await collect(String(smsDay.body.hash))).json as Rec[];
		expect(sms.length).toBeGreaterThan(10);
		expect(Object.keys(sms[0])).toEqual(['sms_id', 'datetime', 'direction', 'from', 'to', 'dest_id', 'desc', 'iso', 'parts', 'status', 'chg_total', 'currency']);
		const smsLatest = await call('POST', '/v3/accounts/123456/reports/sms/cdr/latest/10');
		expect((await collect(String(smsLatest.body.hash))).json).toHaveLength(10);

		const summary = await call('POST', '/v3/accounts/123456/reports/voice/summary/day/out', { json: { date: new Date(Date.now() - DAY).toISOString().slice(0, 10) } });
		const summaryRows = (await collect(String(summary.body.hash))).json as Rec[];
		expect(summaryRows[0]).toEqual({
			destination: expect.any(String), dest_id: expect.any(Number), iso: expect.any(String), calls: expect.any(Number),
			secs_call: expect.any(Number), secs_billed: expect.any(Number), minutes: expect.any(Number), chg_total: expect.any(Number), currency: 'GBP',
		});

		const from = new Date(Date.now() - 3 * DAY).toISOString().slice(0, 10);
		const prepay = await call('POST', '/v3/accounts/123456/prepay/summary', { json: { from_date: from, to_date: today() } });
		expect(prepay.body).toMatchObject({ mode: null, from, to: today(), type: 'balance_summary', account: '123456', format: 'json' });
		expect(prepay.body).not.toHaveProperty('date');
		const days = (await collect(String(prepay.body.hash))).json as Rec[];
		expect(days.map((d) => d.date)).toHaveLength(4);
		expect(days[days.length - 1].closing_balance).toBe(1234.5678);
		for (let i = 1; i < days.length; i++) expect(days[i].opening_balance).toBeCloseTo(Number(days[i - 1].closing_balance), 4);

		expect((await call('POST', '/v3/accounts/123456/reports/voice/cdr/latest/50')).status).toBe(404);
		expect((await call('POST', '/v3/accounts/123456/reports/voice/summary/day/both')).status).toBe(404);
		const old = await call('POST', '/v3/accounts/123456/reports/voice/cdr/day', { json: { date: new Date(Date.now() - 95 * DAY).toISOString().slice(0, 10) } });
		expect(old.status).toBe(400);
		expect(old.body.errors).toEqual([expect.stringMatching(/more than 90 days ago/)]);
		expect((await call('POST', '/v3/accounts/123456/reports/voice/cdr/day', { json: { date: '2099-01-01' } })).status).toBe(400);
		expect((await call('POST', '/v3/accounts/123456/prepay/summary', { json: { from_date: today(), to_date: from } })).status).toBe(400);
	});

	test('admin: forced row count (the 100,000-row benchmark report) and readiness delay', async () => {
		await admin('POST', '/reports/next', { type: 'voice_cdr', rows: 100_000, readyMs: 400 });
		const day = today();
		const hash = String((await call('POST', '/v3/accounts/123456/reports/voice/cdr/day')).body.hash);
		expect((await call('GET', `/v3/files/123456/${hash}`)).status).toBe(204);
		await time.clock.advance(399);
		expect((await call('GET', `/v3/files/123456/${hash}`)).status).toBe(204);
		const file = await collect(hash);
		const rows = file.json as Rec[];
		expect(rows).toHaveLength(100_000);
		expect(new Set(rows.map((r) => r.cdr_id)).size).toBe(100_000);
		expect(rows.every((r) => String(r.calldate).startsWith(day))).toBe(true);
		// The override was used up: the next report is the account's own data again.
		const next = String((await call('POST', '/v3/accounts/123456/reports/voice/cdr/latest/10')).body.hash);
		expect((await collect(next)).json).toHaveLength(10);
	}, 120_000); // 100,000 rows made and read: 8 s quiet, several times that on a busy machine.

	test('admin: malformed content is served once like any file, and is not JSON', async () => {
		await admin('POST', '/reports/next', { malformed: true });
		const hash = String((await call('POST', '/v3/accounts/123456/reports/voice/cdr/latest/100')).body.hash);
		const file = await collect(hash);
		expect(file.status).toBe(200);
		expect(file.text.length).toBeGreaterThan(100);
		expect(() => JSON.parse(file.text)).toThrow();
		expect((await call('GET', `/v3/files/123456/${hash}`)).status).toBe(404);
	});

	test('admin: finish a report now; files are per account', async () => {
		await admin('POST', '/settings', { reportReadyMs: 60_000 });
		const hash = String((await call('POST', '/v3/accounts/123456/reports/voice/cdr/latest/10')).body.hash);
		expect((await call('GET', `/v3/files/123456/${hash}`)).status).toBe(204);
		expect((await admin('POST', `/reports/${hash}/ready`)).body).toMatchObject({ hash, state: 'ready' });
		expect((await call('GET', `/v3/files/654321/${hash}`, { as: B })).status).toBe(404);
		expect((await call('GET', `/v3/files/123456/${hash}`)).status).toBe(200);
		const reports = (await admin('GET', '/reports')).body.reports as Rec[];
		expect(reports).toEqual([expect.objectContaining({ hash, state: 'collected', account: '123456', type: 'voice_cdr' })]);
	});
});

describe('inline summaries', () => {
	test('by destination, trunk, tag, day and hour; both directions or one; limit and sort', async () => {
		const since = gmtText(startOfUtcDay() - 2 * DAY);
		const destinations = list(await call('POST', '/v3/accounts/123456/summary/destination', { json: { date_start: since } }));
		expect(destinations.length).toBeGreaterThan(20);
		expect(destinations[0]).toEqual({
			destination: expect.any(String), dest_id: expect.any(Number), iso: expect.any(String), calls: expect.any(Number),
			secs_call: expect.any(Number), secs_billed: expect.any(Number), minutes: expect.any(Number), chg_total: expect.any(Number), currency: 'GBP',
		});
		const names = destinations.map((d) => String(d.destination));
		expect(names).toEqual([...names].sort((x, y) => x.localeCompare(y)));

		const top = list(await call('GET', `/v3/accounts/123456/summary/out/destination?date_start=${encodeURIComponent(since)}&sort=chg_total&limit=5`));
		expect(top).toHaveLength(5);
		for (let i = 1; i < top.length; i++) expect(Number(top[i - 1].chg_total)).toBeGreaterThanOrEqual(Number(top[i].chg_total));

		const both = list(await call('GET', `/v3/accounts/123456/summary/trunk?date_start=${encodeURIComponent(since)}`));
		const out = list(await call('GET', `/v3/accounts/123456/summary/out/trunk?date_start=${encodeURIComponent(since)}`));
		const inbound = list(await call('GET', `/v3/accounts/123456/summary/in/trunk?date_start=${encodeURIComponent(since)}`));
		const calls = (rows: Rec[]) => rows.reduce((sum, r) => sum + Number(r.calls), 0);
		expect(calls(both)).toBe(calls(out) + calls(inbound));
		expect(inbound.map((r) => r.trunk)).toEqual(['123456-L001']);

		const days = list(await call('GET', `/v3/accounts/123456/summary/day?date_start=${encodeURIComponent(since)}`));
		// Three days from midnight two days ago, unless the run is so soon after midnight that today has no call yet.
		const account = sandbox.wholesale.data.accounts.get('123456')!;
		const daysWithCalls = new Set(account.cdrs.filter((c) => c.calldate >= startOfUtcDay() - 2 * DAY).map((c) => new Date(c.calldate).toISOString().slice(0, 10)));
		expect(daysWithCalls.size).toBeGreaterThanOrEqual(2);
		expect(days.map((d) => d.day)).toHaveLength(daysWithCalls.size);
		expect(list(await call('GET', '/v3/accounts/123456/summary/hour'))[0]).toHaveProperty('hour');
		expect(list(await call('GET', '/v3/accounts/123456/summary/tag'))[0]).toHaveProperty('tag');
	});

	test('filter from a JSON body only; unknown keys and sorts refused', async () => {
		const since = gmtText(startOfUtcDay() - 2 * DAY);
		const filtered = list(await call('POST', '/v3/accounts/123456/summary/country', { json: { date_start: since, filter: { toISO: 'US' } } }));
		expect(filtered.map((r) => r.country)).toEqual(['US']);
		const asArray = list(await call('POST', '/v3/accounts/123456/summary/country', { json: { date_start: since, filter: [{ toISO: 'US' }] } }));
		expect(asArray).toEqual(filtered);
		const viaQuery = list(await call('GET', `/v3/accounts/123456/summary/country?date_start=${encodeURIComponent(since)}&filter[toISO]=US`));
		expect(viaQuery.length).toBeGreaterThan(1);
		expect((await call('GET', '/v3/accounts/123456/summary/colour')).status).toBe(404);
		expect((await call('GET', '/v3/accounts/123456/summary/trunk?sort=size')).status).toBe(400);
		expect((await call('GET', `/v3/accounts/123456/summary/trunk?date_start=${encodeURIComponent(gmtText(Date.now() - 100 * DAY))}`)).status).toBe(400);
	});
});

describe('porting', () => {
	const submission = {
		mbn: '01632960500',
		lcp: 'BT',
		lcp_cupid: '001',
		contact_email: 'porting@reseller.example.com',
		account_number: 'BT-1234',
		billing_postcode: 'LS1 4AP',
		type: 'multi',
		lines: 2,
		channels: 4,
		customer: { name: 'Smith', company: 'Acme Widgets', premises: 'Unit 4', thoroughfare: 'Wellington Street', locality: 'Leeds', postcode: 'LS1 4AP' },
		numbers: [
			{ number: '01632960500', type: 'mbn', action: 'port' },
			{ number: '01632960501', type: 'associated', action: 'port' },
		],
	};

	test('LCP list, and the port list: outstanding and finished within 90 days', async () => {
		const lcps = (await call('GET', '/v3/porting/123456/lcps')).body;
		expect(lcps.success).toBe(true);
		expect(lcps.cps).toContainEqual({ cpName: 'BT', cupid: '001' });
		const ports = list(await call('GET', '/v3/porting/123456/gnp'));
		expect(ports.map((p) => p.ref)).toEqual([40001, 40002, 40003]);
		expect(ports[0]).toEqual({ ref: 40001, mbn: '01632960100', date: expect.any(String), crd: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), status_code: 'comp', status: 'complete' });
		expect(list(await call('GET', '/v3/porting/123456/ports'))).toEqual(ports);
		expect(list(await call('GET', '/v3/porting/654321/gnp', { as: B }))).toEqual([]);
	});

	test('one port with its events; other accounts and unknown refs are 404', async () => {
		const port = (await call('GET', '/v3/porting/123456/gnp/40002')).body.data as Rec;
		expect(port).toMatchObject({ mbn: '01632960200', status: 'rejected_lcp', status_code: 'rej_lcp', lcp: 'Virgin Media', rh: 'Ofcom reserved', billing_postcode: 'LS2 7EW', type: 'single' });
		expect(port.events).toEqual([
			{ date: expect.any(String), status_code: 'rcvd', status: 'received' },
			{ date: expect.any(String), status_code: 'sub_lcp', status: 'submitted_lcp' },
			{ date: expect.any(String), status_code: 'rej_lcp', status: 'rejected_lcp', info: expect.stringMatching(/Postcode/) },
		]);
		expect((await call('GET', '/v3/porting/123456/gnp/39990')).status).toBe(200);
		expect((await call('GET', '/v3/porting/654321/gnp/40002', { as: B })).status).toBe(404);
	});

	test('submission: validated, charged, a new order with ref and url; /ports is the same', async () => {
		const account = sandbox.wholesale.data.accounts.get('123456')!;
		const balance = account.balance;
		const created = await call('POST', '/v3/porting/123456/gnp', { json: submission });
		expect(created.body).toEqual({ success: true, ref: 40004, url: '/v3/porting/123456/gnp/40004' });
		expect(account.balance).toBeCloseTo(balance - 5, 4);
		const detail = (await call('GET', '/v3/porting/123456/ports/40004')).body.data as Rec;
		expect(detail).toMatchObject({ mbn: '01632960500', status: 'received', status_code: 'rcvd', customer: submission.customer, numbers: submission.numbers, lines: 2, channels: 4 });
		expect(detail.events).toEqual([{ date: expect.any(String), status_code: 'rcvd', status: 'received' }]);
		const busy = await call('POST', '/v3/porting/123456/ports', { json: submission });
		expect(busy.status).toBe(400);
		expect(busy.body.errors).toEqual([expect.stringMatching(/already in progress \(ref 40004\)/)]);
	});

	test('invalid submissions: {success:false, errors:[text]} and nothing charged', async () => {
		const account = sandbox.wholesale.data.accounts.get('123456')!;
		const balance = account.balance;
		const answer = await call('POST', '/v3/porting/123456/gnp', {
			json: { ...submission, mbn: '07700900123', type: 'bulk', numbers: [{ number: '01632960500', type: 'mbn', action: 'retain' }], lcp_cupid: '999' },
		});
		expect(answer.status).toBe(400);
		expect(answer.body.success).toBe(false);
		const errors = answer.body.errors as string[];
		expect(errors.length).toBeGreaterThanOrEqual(3);
		expect(errors.every((e) => typeof e === 'string')).toBe(true);
		expect(errors.join('\n')).toMatch(/^mbn: /m);
		expect(errors.join('\n')).toMatch(/^type: /m);
		expect(errors.join('\n')).toMatch(/^lcp_cupid: /m);
		expect((await call('POST', '/v3/porting/123456/gnp', { json: [] })).status).toBe(400);
		expect(account.balance).toBe(balance);
	});

	test('a form-encoded submission with PHP arrays', async () => {
		const form = new URLSearchParams({
			mbn: '01632960600', lcp: 'TalkTalk', billing_postcode: 'LS1 4AP', type: 'single',
			'customer[name]': 'Jones', 'customer[premises]': '1', 'customer[thoroughfare]': 'Park Row', 'customer[locality]': 'Leeds', 'customer[postcode]': 'LS1 5HD',
			'numbers[0][number]': '01632960600', 'numbers[0][type]': 'mbn', 'numbers[0][action]': 'port',
		}).toString();
		const created = await call('POST', '/v3/porting/123456/gnp', { form });
		expect(created.body).toMatchObject({ success: true, ref: 40004 });
		expect(((await call('GET', '/v3/porting/123456/gnp/40004')).body.data as Rec).numbers).toEqual([{ number: '01632960600', type: 'mbn', action: 'port' }]);
	});

	test('resubmission: without orig_ref a new charged order; with orig_ref of a rejected port, not charged', async () => {
		const account = sandbox.wholesale.data.accounts.get('123456')!;
		const rejected = { ...submission, mbn: '01632960200', numbers: [{ number: '01632960200', type: 'mbn', action: 'port' }] };
		const balance = account.balance;
		const resubmitted = await call('POST', '/v3/porting/123456/gnp', { json: { ...rejected, orig_ref: 40002 } });
		expect(resubmitted.body).toMatchObject({ success: true, ref: 40004 });
		expect(account.balance).toBe(balance);
		expect(((await call('GET', '/v3/porting/123456/gnp/40004')).body.data as Rec).events).toEqual([
			{ date: expect.any(String), status_code: 'rcvd', status: 'received', info: 'Resubmission of 40002' },
		]);
		const again = await call('POST', '/v3/porting/123456/gnp', { json: { ...submission, orig_ref: '40001' } });
		expect(again.body.errors).toEqual([expect.stringMatching(/only a rejected port can be resubmitted/)]);
		sandbox.reset();
		const fresh = await call('POST', '/v3/porting/123456/gnp', { json: rejected });
		expect(fresh.body).toMatchObject({ success: true, ref: 40004 });
		expect(sandbox.wholesale.data.accounts.get('123456')!.balance).toBeCloseTo(1234.5678 - 5, 4);
	});

	test('admin advance: events appended in sequence, and the porting webhook pushed', async () => {
		await admin('POST', '/webhooks', { account: '123456', app: 'porting', url: receiver.url, headers: { 'X-Secret': 's3' } });
		await call('POST', '/v3/porting/123456/gnp', { json: { ...submission, type: 'sub_single' } });
		const statuses: string[] = [];
		for (let i = 0; i < 6; i++) statuses.push(String((await admin('POST', '/ports/40004/advance', {})).body.status));
		expect(statuses).toEqual(['submitted_lcp', 'accepted_lcp', 'submitted_rh', 'accepted_rh', 'accepted', 'complete']);
		expect((await admin('POST', '/ports/40004/advance', {})).status).toBe(409);
		const detail = (await call('GET', '/v3/porting/123456/gnp/40004')).body.data as Rec;
		expect((detail.events as Rec[]).map((e) => e.status_code)).toEqual(['rcvd', 'sub_lcp', 'acc_lcp', 'sub_rh', 'acc_rh', 'acc', 'comp']);
		await waitFor(() => receiver.requests.length >= 6, 5000, 'porting webhooks');
		const first = receiver.requests[0];
		expect(first.headers['content-type']).toBe('text/json');
		expect(first.headers['x-secret']).toBe('s3');
		expect(first.json).toEqual({ app: 'porting', id: expect.any(String), timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/), data: { orderid: 40004, status: 'submitted_lcp', port_date: '', reason: '', comments: '' } });
		const rejection = await admin('POST', '/ports/40003/advance', { status: 'rejected_rh', reason: 'Range holder refused' });
		expect(rejection.body.status).toBe('rejected_rh');
		const pushed = await waitFor(() => receiver.requests.find((r) => (r.json as { data: Rec }).data.orderid === 40003), 5000, 'the rejection');
		expect((pushed.json as { data: Rec }).data).toMatchObject({ status: 'rejected_rh', reason: 'Range holder refused' });
		const history = (await call('GET', '/v3/accounts/123456/notifications/history?class=porting')).json as Rec[];
		expect(history.some((h) => (h.data as Rec).orderid === 40004)).toBe(true);
	});
});

describe('webhooks and other deliveries', () => {
	const deliver = async (body: Rec) => {
		const answer = await admin('POST', '/deliveries', { url: receiver.url, ...body });
		expect(answer.status).toBe(200);
		return answer.body.deliveries as Rec[];
	};

	test('every app as text/json with the service escaping and realistic data', async () => {
		const expected: Record<string, string[]> = {
			call_inbound: ['call_id', 'sip_call_id', 'status', 'trunk', 'from', 'to', 'origin', 'route'],
			call_outbound: ['call_id', 'sip_call_id', 'status', 'trunk', 'tag', 'from', 'to', 'dest_id', 'desc', 'iso'],
			call_blocked: ['direction', 'trunk', 'tag', 'from', 'to', 'desc', 'iso', 'reason'],
			call_warning: ['direction', 'trunk', 'tag', 'from', 'to', 'reason'],
			inprogress_summary: ['account', 'answeredcount', 'approx_seconds_remaining', 'balance', 'balance_available', 'balance_locked', 'callcount', 'calls', 'countries', 'currency', 'datetime', 'percent_available', 'total'],
			cdr: ['call_id', 'cdr_id', 'calldate', 'direction', 'nts_source', 'trunk', 'tag', 'from', 'to', 'dest_id', 'todesc', 'iso', 'secs_call', 'secs_billed', 'chg_total', 'currency'],
			rate_update: ['rate_type', 'date_effective', 'url'],
			eha_missing_data: ['number', 'calldate', 'charge', 'charge_date'],
			porting: ['orderid', 'status', 'port_date', 'reason', 'comments'],
			export: ['orderid', 'order_number', 'mbn', 'status', 'order_type', 'numbers', 'port_date', 'comments'],
		};
		for (const [app, fields] of Object.entries(expected)) {
			receiver.requests.length = 0;
			const [record] = await deliver({ app });
			expect([app, record.status, record.outcome]).toEqual([app, 200, 'delivered']);
			const request = receiver.requests[0];
			expect(request.method).toBe('POST');
			expect(request.headers['content-type']).toBe('text/json');
			expect(request.body).not.toMatch(/[^\x00-\x7f]/);
			const document = request.json as { app: string; id: string; timestamp?: string; data: Rec };
			expect(document.app).toBe(app);
			expect(typeof document.id).toBe('string');
			expect(Object.keys(document.data)).toEqual(fields);
			if (app === 'rate_update') expect(document).not.toHaveProperty('timestamp');
			else expect(document.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
		}
		receiver.requests.length = 0;
		await deliver({ app: 'rate_update' });
		expect(receiver.requests[0].body).toContain('"url":"http:\\/\\/127.0.0.1:');
	});

	test('call events by status, with reason and q850 when failed', async () => {
		await deliver({ app: 'call_outbound', status: 'failed' });
		await deliver({ app: 'call_inbound', status: 'hangup' });
		const [failed, hangup] = receiver.requests.map((r) => (r.json as { data: Rec }).data);
		expect(failed).toMatchObject({ status: 'failed', reason: expect.any(String), q850: 19 });
		expect(hangup).toMatchObject({ status: 'hangup', q850: 16 });
		expect(hangup).not.toHaveProperty('reason');
	});

	test('inprogress_summary in both forms: calls as an object keyed by id, or an array of calls', async () => {
		await deliver({ app: 'inprogress_summary' });
		await deliver({ app: 'inprogress_summary', form: 'detail' });
		const [summary, detail] = receiver.requests.map((r) => (r.json as { data: Rec }).data);
		expect(Array.isArray(summary.calls)).toBe(false);
		expect(summary.datetime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
		expect(Array.isArray(detail.calls)).toBe(true);
		expect((detail.calls as Rec[])[0]).toEqual({
			calldate: expect.any(String), call_id: expect.any(String), sip_call_id: expect.any(String), from: expect.any(String), to: expect.any(String),
			dest_id: expect.any(Number), iso: expect.any(String), desc: expect.any(String), trunk: expect.any(String), tag: expect.any(String),
			duration: expect.any(Number), charge: expect.any(Number),
		});
	});

	test('timestamp forms, data as an array, form encoding, extra headers, query additions and a repeated id', async () => {
		await deliver({ app: 'cdr', timestampForm: 'plain' });
		await deliver({ app: 'cdr', timestampForm: 'none', dataForm: 'array' });
		await deliver({ app: 'rate_update', timestampForm: 'iso_offset', encoding: 'form' });
		await deliver({ app: 'call_blocked', headers: { 'X-Forwarded-For': '178.22.139.84' }, query: { secret: 'abc 123' }, repeat: 2, id: 'dup-1' });
		const [plain, none, form, first, second] = receiver.requests;
		expect((plain.json as Rec).timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
		expect(none.json).not.toHaveProperty('timestamp');
		expect(Array.isArray((none.json as Rec).data)).toBe(true);
		expect(((none.json as Rec).data as Rec[])[0]).toHaveProperty('cdr_id');
		expect(form.headers['content-type']).toBe('application/x-www-form-urlencoded');
		const payload = JSON.parse(formFields(form.body).payload) as Rec;
		expect(payload).toMatchObject({ app: 'rate_update', timestamp: expect.stringMatching(/\+00:00$/) });
		expect(formFields(form.body).payload).toContain('\\/');
		for (const request of [first, second]) {
			expect(request.headers['x-forwarded-for']).toBe('178.22.139.84');
			expect(request.path).toBe('/hook?secret=abc+123');
			expect((request.json as Rec).id).toBe('dup-1');
		}
		expect(first.body).toBe(second.body);
		const overrides = await deliver({ app: 'cdr', data: { tag: 'custom', chg_total: 1.5 } });
		expect((overrides[0].document as { data: Rec }).data).toMatchObject({ tag: 'custom', chg_total: 1.5 });
	});

	test('successive CDR webhooks carry different calls, as each call ends once', async () => {
		const ids: unknown[] = [];
		for (let i = 0; i < 20; i++) ids.push(((await deliver({ app: 'cdr' }))[0].document as { data: Rec }).data.cdr_id);
		expect(new Set(ids).size).toBe(20);
	});

	test('SMS delivery reports: payload form field, %id% and %status% in the URL, each status', async () => {
		const records = await deliver({ app: 'sms_send_status', url: `${receiver.url}/%id%/%status%`, id: 'msg-42', statuses: [1, 2, 11, 12, 13, 14, 18, 26] });
		expect(records).toHaveLength(8);
		expect(receiver.requests.map((r) => r.path)).toEqual([1, 2, 11, 12, 13, 14, 18, 26].map((s) => `/hook/msg-42/${s}`));
		const payload = JSON.parse(formFields(receiver.requests[2].body).payload) as Rec;
		expect(payload).toEqual({ app: 'sms_send_status', id: 'msg-42', data: { dtime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/), status: 11 } });
		expect((await admin('POST', '/deliveries', { url: receiver.url, app: 'sms_send_status', status: 3 })).status).toBe(400);
	});

	test("inbound SMS to a number's endpoint: mode http (form, no Unicode) and http_json", async () => {
		await call('PUT', '/v3/numbers/123456/allocated/447700900456/sms', { json: { mode: 'http', endpoint: receiver.url } });
		const legacy = await admin('POST', '/sms/inbound', { to: '447700900456', from: '447700900321', message: 'Café ☕ at 5?' });
		expect(legacy.body.delivery).toMatchObject({ status: 200, app: 'sms_inbound', source: 'sms' });
		const form = receiver.requests[0];
		expect(form.headers['content-type']).toBe('application/x-www-form-urlencoded');
		expect(formFields(form.body)).toEqual({ id: expect.any(String), from: '447700900321', to: '447700900456', message: 'Café ? at 5?', received: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/) });
		await call('PUT', '/v3/numbers/123456/allocated/447700900456/sms', { json: { mode: 'http_json', endpoint: receiver.url } });
		await admin('POST', '/sms/inbound', { to: '447700900456', message: 'Café ☕' });
		const json = receiver.requests[1];
		expect(json.headers['content-type']).toBe('application/json');
		expect(json.body).toContain('Caf\\u00e9 \\u2615');
		expect(json.json).toMatchObject({ to: '447700900456', message: 'Café ☕' });
		expect((await admin('POST', '/sms/inbound', { to: '441632960001' })).status).toBe(409);
		await deliver({ app: 'sms_inbound', mode: 'http', message: 'direct' });
		expect(formFields(receiver.requests[2].body).message).toBe('direct');
	});

	test('a call hang-up pushes the call event and the cdr event to the account webhook URL', async () => {
		await admin('POST', '/webhooks', { account: '123456', app: 'default', url: receiver.url, timestampForm: 'plain' });
		const added = await admin('POST', '/calls', { account: '123456', direction: 'out', to: '33612345678', durationSec: 42, call_id: 'call-test-1' });
		expect(added.body.call).toMatchObject({ call_id: 'call-test-1', to: '33612345678' });
		expect((await call('GET', '/v3/voice/123456/inprogress/current')).body.callcount).toBe(4);
		expect((await call('DELETE', '/v3/voice/123456/inprogress/call-test-1')).body).toEqual({ success: true });
		await waitFor(() => receiver.requests.length >= 2, 5000, 'hang-up events');
		const apps = receiver.requests.map((r) => (r.json as Rec).app);
		expect(apps.sort()).toEqual(['call_outbound', 'cdr']);
		const cdr = receiver.requests.find((r) => (r.json as Rec).app === 'cdr')!.json as { data: Rec; timestamp: string };
		expect(cdr.data).toMatchObject({ call_id: 'call-test-1', to: '33612345678', direction: 'out' });
		expect(Number(cdr.data.secs_call)).toBeGreaterThanOrEqual(42);
		expect(cdr.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
		const hangup = receiver.requests.find((r) => (r.json as Rec).app === 'call_outbound')!.json as { data: Rec };
		expect(hangup.data).toMatchObject({ call_id: 'call-test-1', status: 'hangup', q850: 16 });
		expect((await admin('DELETE', '/calls/call-test-1')).status).toBe(404);
	});

	test('deliveries are recorded with the response status and time; failures and refusals too', async () => {
		receiver.respond((_req, res) => {
			res.statusCode = 500;
			res.end('nope');
		});
		const [failed] = await deliver({ app: 'export', status: 'rejected' });
		expect(failed).toMatchObject({ status: 500, outcome: 'failed', error: 'HTTP 500', responseBody: 'nope', elapsedMs: expect.any(Number) });
		expect(((failed.document as { data: Rec }).data)).toMatchObject({ status: 'rejected', reason: expect.any(String), code: expect.any(Number) });
		const all = (await admin('GET', '/deliveries')).json as Rec[];
		expect(all).toHaveLength(1);
		expect(all[0]).toMatchObject({ app: 'export', url: receiver.url, method: 'POST', contentType: 'text/json', sentAt: expect.any(String) });
		expect((await admin('POST', '/deliveries', { url: 'http://203.0.113.9/hook', app: 'cdr' })).status).toBe(400);
		expect((await admin('POST', '/deliveries', { url: receiver.url, app: 'nothing' })).status).toBe(400);
		expect((await admin('DELETE', '/deliveries')).status).toBe(204);
		expect((await admin('GET', '/deliveries')).json).toEqual([]);
	});
});
