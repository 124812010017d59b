import type { IDataObject } from 'n8n-workflow';

import { hostedPbxResources } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { listSearchMethods } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/search';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { binaryBuffer } from '../../harness/n8n';
import { locator, outboundCalls, pbxLoadOptions, runPbx } from './pbxTestKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const json = (run: { items: Array<{ json: IDataObject }> }) => run.items.map((i) => i.json);

function expectValidationError(run: Awaited<ReturnType<typeof runPbx>>, field: string) {
	expect(run.error?.message).toMatch(new RegExp(`^Invalid ${field.replace(/[>]/g, '\\$&')}:`));
	expect(run.error?.description).toMatch(/Rule: /);
	expect(run.error?.description).toMatch(/Nothing was sent/);
	expect(run.requests).toHaveLength(0);
}

describe('every resource and operation is covered by a test below', () => {
	const covered = new Set<string>();
	afterAll(() => {
		const all = hostedPbxResources.flatMap((r) => r.operations.map((op) => `${r.value}.${op.value}`));
		expect(all.filter((op) => !covered.has(op))).toEqual([]);
	});
	const op = (resource: string, operation: string) => {
		covered.add(`${resource}.${operation}`);
		return { resource, operation };
	};

	describe('Customer', () => {
		test('get me as a company admin', async () => {
			const run = await runPbx(sandbox, { ...op('customer', 'get'), output: 'raw' });
			expect(run.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/customers/me']);
			// Raw: as answered, the record named by its URI (Simplified takes the id from it).
			expect(json(run)).toEqual([expect.objectContaining({ uri: expect.stringMatching(/\/customers\/1001$/), company: 'Acme Widgets Ltd', country: 'GB' })]);
			expect(json(run)[0]).not.toHaveProperty('id');
			expect(run.items[0].pairedItem).toEqual({ item: 0 });
		});

		test('get many as a reseller returns every owned account, one item each', async () => {
			const run = await runPbx(sandbox, { ...op('customer', 'getAll'), returnAll: true }, { user: 'reseller' });
			expect(json(run).map((c) => c.id)).toEqual(['1001', '1002', '1003']);
			expect(run.requests[0].query).toEqual({ pageSize: '200', page: '1' });
		});

		test('get by URL extracts the id', async () => {
			const run = await runPbx(
				sandbox,
				{ ...op('customer', 'get'), customerId: locator(`${sandbox.url}/api/v1/customers/1002`, 'url') },
				{ user: 'reseller' },
			);
			expect(run.requests[0].path).toBe('/api/v1/customers/1002');
			expect(json(run)[0].company).toBe('Brightside Dental');
		});
	});

	describe('Phone Book', () => {
		test('create sends the representation and returns the created entry', async () => {
			const run = await runPbx(sandbox, {
				...op('phoneBook', 'create'),
				name: 'Dana Scully',
				phoneNumber: '+44 7700 900555',
				additionalFields: { speedDial: 55 },
			});
			expect(run.error).toBeUndefined();
			expect(run.requests[0]).toMatchObject({
				method: 'POST',
				path: '/api/v1/customers/me/phonebook',
				body: { type: 'phonebookentry', name: 'Dana Scully', phoneNumber: '+44 7700 900555', speedDial: 55 },
			});
			expect(run.requests[0].headers['content-type']).toBe('application/json');
			expect(json(run)).toEqual([expect.objectContaining({ id: '5', name: 'Dana Scully', speedDial: 55 })]);
		});

		test.each([0, 10000, 2.5])('speed dial %p is refused before sending', async (speedDial) => {
			const run = await runPbx(sandbox, {
				resource: 'phoneBook',
				operation: 'create',
				name: 'X',
				phoneNumber: '+447700900555',
				additionalFields: { speedDial },
			});
			expectValidationError(run, 'Speed Dial');
			expect(run.error?.description).toMatch(/a whole number from 1 to 9999/);
		});

		test('get, get many with a limit, update (only what changed), delete', async () => {
			const get = await runPbx(sandbox, { ...op('phoneBook', 'get'), entryId: locator('2') });
			expect(json(get)[0]).toMatchObject({ id: '2', name: 'Bob Smith' });

			const many = await runPbx(sandbox, { ...op('phoneBook', 'getAll'), returnAll: false, limit: 2 });
			expect(json(many).map((e) => e.name)).toEqual(['Alice Jones', 'Bob Smith']);
			expect(many.requests.map((r) => r.query)).toEqual([{ pageSize: '2', page: '1' }]);

			const update = await runPbx(sandbox, {
				...op('phoneBook', 'update'),
				entryId: locator('2'),
				updateFields: { phoneNumber: '+447700900777', removeSpeedDial: true },
			});
			expect(update.requests.map((r) => r.method)).toEqual(['GET', 'PUT']);
			expect(update.requests[1].body).toEqual({ type: 'phonebookentry', name: 'Bob Smith', phoneNumber: '+447700900777' });
			expect(json(update)[0]).toMatchObject({ name: 'Bob Smith', phoneNumber: '+447700900777' });
			expect(json(update)[0].speedDial ?? null).toBeNull();
			// Entry 2 now comes back with `speedDial: null`: a later update keeps it absent, not 0.
			const again = await runPbx(sandbox, { ...op('phoneBook', 'update'), entryId: locator('2'), updateFields: { name: 'Robert Smith' } });
			expect(json(await runPbx(sandbox, { ...op('phoneBook', 'get'), entryId: locator('2'), output: 'raw' }))[0]).toMatchObject({ speedDial: null });
			expect(again.requests[1].body).toEqual({ type: 'phonebookentry', name: 'Robert Smith', phoneNumber: '+447700900777' });

			const remove = await runPbx(sandbox, { ...op('phoneBook', 'delete'), entryId: locator('2') });
			expect(remove.requests.map((r) => `${r.method} ${r.status}`)).toEqual(['DELETE 204']);
			expect(json(remove)).toEqual([{ deleted: true, id: '2' }]);
			const after = await runPbx(sandbox, { resource: 'phoneBook', operation: 'get', entryId: locator('2') });
			expect(after.error?.message).toMatch(/Nothing found at \/api\/v1\/customers\/me\/phonebook\/2 \(404\)/);
		});

		test('update with no field chosen is refused', async () => {
			expectValidationError(await runPbx(sandbox, { resource: 'phoneBook', operation: 'update', entryId: locator('1') }), 'Update Fields');
		});

		test('Return All over 450 entries takes 3 requests of 200', async () => {
			sandbox.pbx.data.phonebook = sandbox.pbx.data.phonebook.filter((e) => e.customerId !== '1001');
			for (let i = 0; i < 450; i++) {
				sandbox.pbx.data.phonebook.push({ id: String(100 + i), customerId: '1001', name: `C${i}`, phoneNumber: '+447700900000', created: new Date() });
			}
			const run = await runPbx(sandbox, { resource: 'phoneBook', operation: 'getAll', returnAll: true });
			expect(run.items).toHaveLength(450);
			expect(run.requests.map((r) => r.query.page)).toEqual(['1', '2', '3']);
			expect(run.requests.every((r) => r.query.pageSize === '200')).toBe(true);
		});
	});

	describe('SMS', () => {
		test('send posts the message and returns it as created (PENDING)', async () => {
			const run = await runPbx(sandbox, {
				...op('sms', 'send'),
				from: locator('Acme', 'list'),
				to: '+44 (7700) 900-001',
				body: 'We missed your call',
			});
			expect(run.requests[0]).toMatchObject({
				method: 'POST',
				path: '/api/v1/customers/me/sms',
				body: { type: 'smsmessage', from: 'Acme', to: '+447700900001', body: 'We missed your call' },
			});
			expect(json(run)[0]).toMatchObject({ direction: 'OUT', sendStatus: 'PENDING', to: '+447700900001', partsEstimate: { encoding: 'GSM-7', units: 19, parts: 1, estimate: true } });
		});

		test('a text over Maximum Parts (3 by default) is refused with the estimate and the rule; nothing is sent', async () => {
			const long = await runPbx(sandbox, { ...op('sms', 'send'), from: locator('Acme'), to: '+447700900001', body: 'a'.repeat(2000) });
			expectValidationError(long, 'Message');
			expect(long.error?.message).toMatch(/about 14 parts \(2000 GSM-7 characters\), more than Maximum Parts \(3\)/);
			expect(long.error?.description).toMatch(/153 per part/);
			const unicode = await runPbx(sandbox, { ...op('sms', 'send'), from: locator('Acme'), to: '+447700900001', body: 'ć'.repeat(71), maxParts: 1 });
			expectValidationError(unicode, 'Message');
			expect(unicode.error?.message).toMatch(/about 2 parts \(71 UCS-2 code units\), more than Maximum Parts \(1\)/);
			const fits = await runPbx(sandbox, { ...op('sms', 'send'), from: locator('Acme'), to: '+447700900001', body: 'a'.repeat(459) });
			expect(json(fits)[0]).toMatchObject({ partsEstimate: { parts: 3 } });
		});

		test('a national number is refused with the rule, unless Default Country Code converts it; the output shows the number used', async () => {
			const national = await runPbx(sandbox, { ...op('sms', 'send'), from: locator('Acme'), to: '07700 900123', body: 'x' });
			expectValidationError(national, 'To');
			expect(national.error?.message).toMatch(/"07700 900123" is a national number/);
			expect(national.error?.description).toMatch(/Default Country Code/);
			const converted = await runPbx(sandbox, { ...op('sms', 'send'), from: locator('Acme'), to: '07700 900123', body: 'x', defaultCountryCode: '44' });
			expect(converted.requests[0].body).toMatchObject({ to: '+447700900123' });
			expect(json(converted)[0]).toMatchObject({ to: '+447700900123' });
			const call = await runPbx(sandbox, { ...op('call', 'originate'), endpointId: locator('201'), to: '020 7946 0999', defaultCountryCode: '+44' });
			expect([call.requests[0].body, json(call)[0].to]).toEqual([expect.objectContaining({ to: '+442079460999' }), '+442079460999']);
			expectValidationError(await runPbx(sandbox, { ...op('call', 'originate'), endpointId: locator('201'), to: '020 7946 0999' }), 'Destination');
			// Extensions are no national numbers: they are dialled as they are.
			expect((await runPbx(sandbox, { ...op('call', 'originate'), endpointId: locator('201'), to: '202' })).requests[0].body).toMatchObject({ to: '202' });
			expectValidationError(await runPbx(sandbox, { ...op('sms', 'send'), from: locator('Acme'), to: '07700 900123', body: 'x', defaultCountryCode: 'UK' }), 'Default Country Code');
		});

		test('an invalid recipient costs nothing', async () => {
			const run = await runPbx(sandbox, { resource: 'sms', operation: 'send', from: locator('Acme'), to: 'call me', body: 'x' });
			expectValidationError(run, 'To');
		});

		test('get and get many', async () => {
			expect(json(await runPbx(sandbox, { ...op('sms', 'get'), smsId: locator('2'), output: 'raw' }))[0]).toMatchObject({ uri: expect.stringMatching(/\/sms\/2$/), sendStatus: 'SENT' });
			const many = await runPbx(sandbox, { ...op('sms', 'getAll'), returnAll: true });
			expect(json(many).map((m) => m.direction)).toEqual(['IN', 'OUT']);
		});
	});

	describe('Call', () => {
		test('get many sends every history filter', async () => {
			const run = await runPbx(sandbox, {
				...op('call', 'getAll'),
				returnAll: true,
				output: 'raw',
				filters: {
					createdAfter: '2020-01-01T00:00:00',
					startedBefore: '2099-01-01T10:00:00.000+01:00',
					direction: 'in',
					includeLocal: true,
					endpointId: '201',
					from: '+447700900001',
				},
			});
			expect(run.error).toBeUndefined();
			expect(run.requests[0].query).toEqual({
				createdAfter: new Date('2020-01-01T00:00:00').toISOString().replace('.000Z', 'Z'),
				startedBefore: '2099-01-01T09:00:00Z',
				direction: 'in',
				includeLocal: 'true',
				endpointId: '201',
				from: '+447700900001',
				pageSize: '200',
				page: '1',
			});
			expect(json(run)).toEqual([expect.objectContaining({ direction: 'IN', outcome: 'ANSWERED', callId: 'c-1000' })]);
		});

		test('internal calls appear only with Include Internal Calls, outbound record only', async () => {
			const without = await runPbx(sandbox, { resource: 'call', operation: 'getAll', returnAll: true, output: 'raw' });
			const withLocal = await runPbx(sandbox, { resource: 'call', operation: 'getAll', returnAll: true, output: 'raw', filters: { includeLocal: true } });
			expect(json(without).filter((c) => c.scope === 'LOCAL')).toEqual([]);
			expect(json(withLocal).filter((c) => c.scope === 'LOCAL').map((c) => c.direction)).toEqual(['OUT']);
		});

		test('an endpoint filter that is not a number is refused', async () => {
			expectValidationError(await runPbx(sandbox, { resource: 'call', operation: 'getAll', filters: { endpointId: 'reception' } }), 'Filters > Endpoint ID');
		});

		test('export as CSV gives a text/csv file', async () => {
			const run = await runPbx(sandbox, { ...op('call', 'exportCsv'), filters: { direction: 'out' } });
			expect(run.requests[0].headers.accept).toBe('text/csv');
			expect(run.requests[0].query).toEqual({ direction: 'out', pageSize: '200', page: '1' });
			const [item] = run.items;
			expect(item.binary?.data.mimeType).toBe('text/csv');
			expect(item.binary?.data.fileName).toMatch(/^call-history-me-\d{4}-\d{2}-\d{2}\.csv$/);
			const csv = binaryBuffer(item).toString('utf8');
			expect(csv.split('\r\n')[0]).toBe('callId,linkedId,created,callStarted,scope,direction,from,to,outcome,duration,cost');
			expect(item.json).toMatchObject({ rows: 1, mimeType: 'text/csv' });
		});

		test.each([
			['a header on every page', 'header', ['1', '2', '3']],
			['the header on page 1 only', 'firstHeader', ['1', '2', '3']],
			['no paging (every row at once)', 'unpaged', ['1']],
		] as const)('export as CSV over 450 calls, %s: each call once under one header', async (_name, csvPages, pages) => {
			const saved = sandbox.pbx.data.calls;
			sandbox.pbx.data.calls = outboundCalls(450, 'bulk');
			sandbox.pbx.settings.csvPages = csvPages;
			try {
				const run = await runPbx(sandbox, { ...op('call', 'exportCsv'), filters: {} });
				expect(run.error).toBeUndefined();
				expect(run.requests.map((r) => r.query.page)).toEqual(pages);
				const lines = binaryBuffer(run.items[0]).toString('utf8').trimEnd().split('\r\n');
				expect(lines.filter((l) => l.startsWith('callId,'))).toHaveLength(1);
				const ids = lines.slice(1).map((l) => l.split(',')[0]);
				expect(new Set(ids).size).toBe(450);
				expect(ids).toHaveLength(450);
				expect(run.items[0].json).toMatchObject({ rows: 450 });
			} finally {
				sandbox.pbx.data.calls = saved;
				sandbox.pbx.settings.csvPages = 'header';
			}
		});

		test('make a call sends the endpoint as an absolute URI, and the call lands in the history', async () => {
			const run = await runPbx(sandbox, { ...op('call', 'originate'), endpointId: locator('202'), to: '+447700900321' });
			expect(run.error).toBeUndefined();
			expect(run.requests[0].body).toEqual({
				type: 'call',
				endpoint: `${sandbox.url}/api/v1/customers/me/endpoints/202`,
				to: '+447700900321',
			});
			expect(json(run)).toEqual([{ success: true, endpointId: '202', to: '+447700900321' }]);
			const history = await runPbx(sandbox, { resource: 'call', operation: 'getAll', returnAll: true, filters: { direction: 'out' } });
			// Simplified: the number called, without the platform's angle brackets.
			expect(json(history).map((c) => c.to)).toContain('+447700900321');
		});
	});

	describe('Endpoint', () => {
		test('get and set Do Not Disturb', async () => {
			const get = await runPbx(sandbox, { ...op('endpoint', 'getDnd'), endpointId: locator('203') });
			expect(json(get)).toEqual([{ id: '203', endpointId: '203', dndActive: true }]);
			const set = await runPbx(sandbox, { ...op('endpoint', 'setDnd'), endpointId: locator('203'), dndActive: false });
			expect(set.requests[0]).toMatchObject({
				method: 'PUT',
				path: '/api/v1/customers/me/endpoints/203/phonestatus',
				body: { type: 'phonestatus', dndActive: false },
			});
			expect(json(set)[0]).toMatchObject({ dndActive: false });
		});
	});

	describe('Sound', () => {
		test('get many with a type filter, get, download the WAV', async () => {
			const music = await runPbx(sandbox, { ...op('sound', 'getAll'), returnAll: true, type: 'music' });
			expect(music.requests[0].query.type).toBe('music');
			expect(json(music).map((s) => s.name)).toEqual(['Hold music']);

			expect(json(await runPbx(sandbox, { ...op('sound', 'get'), soundId: locator('1') }))[0]).toMatchObject({ type: 'prompt', name: 'Welcome greeting' });

			const download = await runPbx(sandbox, { ...op('sound', 'download'), soundId: locator('3'), binaryPropertyName: 'audio' });
			expect(download.requests[0].headers.accept).toBe('audio/wav');
			const [item] = download.items;
			const wav = binaryBuffer(item, 'audio');
			expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
			expect(wav.subarray(8, 12).toString('ascii')).toBe('WAVE');
			expect(item.binary?.audio).toMatchObject({ mimeType: 'audio/wav', fileName: 'sound-3.wav' });
			expect(item.json).toEqual({ id: '3', fileName: 'sound-3.wav', mimeType: 'audio/wav', fileSize: wav.length });
		});
	});

	describe('Recording', () => {
		test('get many by linked ID, get, download', async () => {
			const many = await runPbx(sandbox, { ...op('recording', 'getAll'), returnAll: true, filters: { linkedId: 'c-2000' } });
			expect(many.requests[0].query.linkedId).toBe('c-2000');
			expect(json(many).map((r) => r.id)).toEqual(['3']);
			expect(json(await runPbx(sandbox, { ...op('recording', 'get'), recordingId: locator('1') }))[0]).toMatchObject({ callId: 'c-1000' });
			const download = await runPbx(sandbox, { ...op('recording', 'download'), recordingId: locator('1'), binaryPropertyName: 'data' });
			expect(binaryBuffer(download.items[0]).subarray(0, 4).toString('ascii')).toBe('RIFF');
			expect(download.items[0].binary?.data.fileName).toBe('recording-1.wav');
		});

		test('a one-time download link works once, without credentials', async () => {
			const run = await runPbx(sandbox, { ...op('recording', 'createDownloadLink'), recordingId: locator('1') });
			const [link] = json(run);
			expect(link).toMatchObject({ recordingId: '1', singleUse: true });
			expect(String(link.url)).toMatch(new RegExp(`^${sandbox.url}/api/v1/customers/me/recordings/1\\.wav\\?tokenid=[0-9a-f]{32}$`));
			const first = await fetch(String(link.url));
			expect(first.status).toBe(200);
			expect(first.headers.get('content-type')).toBe('audio/wav');
			expect((await fetch(String(link.url))).status).toBe(401);
		});
	});

	describe('read-only collections', () => {
		test.each([
			['phoneNumber', 'phoneNumberId', '1', { number: '+441632960001', type: 'did' }],
			['outgoingCallerId', 'callerIdId', '2', { number: '+441632960099', allowCalls: true }],
			['callBundle', 'bundleId', '1', { name: 'UK 1000', availableMins: 580 }],
		])('%s get and get many', async (resource, idName, id, expected) => {
			const one = await runPbx(sandbox, { ...op(resource, 'get'), [idName]: locator(id), output: 'raw' });
			expect(json(one)[0]).toMatchObject({ uri: expect.stringMatching(new RegExp(`/${id}$`)), ...expected });
			const many = await runPbx(sandbox, { ...op(resource, 'getAll'), returnAll: true });
			expect(json(many).length).toBeGreaterThanOrEqual(2);
		});

		test('credit status', async () => {
			expect(json(await runPbx(sandbox, { ...op('creditStatus', 'get'), output: 'raw' }))).toEqual([
				expect.objectContaining({ type: 'creditstatus', accountType: 'PREPAID', balance: 42.5 }),
			]);
		});

		test('auth token', async () => {
			const [token] = json(await runPbx(sandbox, { ...op('authToken', 'generate') }));
			expect(token).toMatchObject({ type: 'authtoken', id: expect.stringMatching(/^[0-9a-f]{32}$/) });
		});
	});
});

describe('executor behaviour', () => {
	test('one output item per record for every input item, with pairedItem', async () => {
		const run = await runPbx(sandbox, { resource: 'phoneBook', operation: 'get', entryId: locator('={{ $json.entry }}') }, {
			input: [{ json: { entry: '1' } }, { json: { entry: '3' } }],
		});
		expect(json(run).map((e) => e.name)).toEqual(['Alice Jones', 'Carol White']);
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('Continue On Fail turns a failing item into an error item and goes on', async () => {
		const run = await runPbx(
			sandbox,
			{ resource: 'phoneBook', operation: 'get', entryId: locator('={{ $json.entry }}') },
			{ input: [{ json: { entry: '999' } }, { json: { entry: '1' } }], continueOnFail: true },
		);
		expect(run.error).toBeUndefined();
		expect(json(run)[0]).toMatchObject({ error: expect.stringMatching(/Nothing found .* \(404\)/), httpCode: '404' });
		expect(json(run)[1]).toMatchObject({ name: 'Alice Jones' });
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('a wrong password is a clear 401 without the password in it', async () => {
		const run = await runPbx(sandbox, { resource: 'customer', operation: 'get' }, { password: 'wrong-canary-pw' });
		expect(run.error?.message).toMatch(/refused the credentials \(401\)/);
		expect(JSON.stringify(run.error)).not.toContain('wrong-canary-pw');
	});

	test('a user level that may not write gets the platform answer', async () => {
		const run = await runPbx(sandbox, { resource: 'phoneBook', operation: 'delete', entryId: locator('1') }, { user: 'acme.201' });
		expect(run.error?.message).toMatch(/\(401\): Extension users may not change this resource/);
	});
});

describe('list searches', () => {
	test('customers: "me" first, then the accounts the user sees, filtered by text', async () => {
		const context = pbxLoadOptions(sandbox, {}, 'reseller');
		const all = await listSearchMethods.searchCustomers.call(context);
		expect(all.results.map((r) => r.value)).toEqual(['me', '1001', '1002', '1003']);
		const filtered = await listSearchMethods.searchCustomers.call(context, 'dental');
		expect(filtered.results).toEqual([expect.objectContaining({ name: 'Brightside Dental (1002)', value: '1002' })]);
	});

	test('endpoints come from the numbers that ring them', async () => {
		const context = pbxLoadOptions(sandbox, { resource: 'endpoint', operation: 'getDnd', customerId: locator('me') });
		const found = await listSearchMethods.searchEndpoints.call(context);
		expect(found.results.map((r) => r.value)).toEqual(['201', '202']);
	});

	test('SMS senders: SMS-enabled numbers, then approved numbers, then names, which say they cannot receive replies', async () => {
		const context = pbxLoadOptions(sandbox, { resource: 'sms', operation: 'send', customerId: locator('me') });
		const found = await listSearchMethods.searchSmsSenders.call(context);
		expect(found.results.map((r) => [r.value, r.name])).toEqual([
			['+441632960001', '+441632960001 (SMS-enabled number)'],
			['+441632960099', '+441632960099 (approved caller ID)'],
			['Acme', 'Acme (a name: cannot receive replies)'],
		]);
	});

	test('phone book entries of the chosen customer', async () => {
		const context = pbxLoadOptions(sandbox, { resource: 'phoneBook', operation: 'get', customerId: locator('1002', 'list') }, 'reseller');
		const found = await (listSearchMethods as Record<string, (this: unknown, f?: string) => Promise<{ results: Array<{ name: string }> }>>).searchPhonebook.call(context);
		expect(found.results.map((r) => r.name)).toEqual(['Dr Dee (+447700900004)']);
	});
});
