/**
 * The hostile input an acceptance run in a real n8n got through, one case per finding, run through
 * n8n's execution code against the sandbox: what the sandbox received, the items and the errors.
 * The generated battery (hostileInputs.test.ts) covers each kind for every operation; these are the
 * very values reported.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox';
import { runNode } from '../harness/n8n';
import type { BatteryRun, OperationUnderTest } from './kit';
import { OPERATIONS, exampleOf, locator, runOperation } from './kit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const op = (name: string): OperationUnderTest => OPERATIONS.find((candidate) => candidate.name === name)!;
const run = async (name: string, overrides: IDataObject): Promise<BatteryRun> =>
	await runOperation(sandbox, op(name), { ...exampleOf(op(name)), ...overrides } as INodeParameters);

/** Refused before sending: the message names the field, the description gives the rule, nothing reached the sandbox. */
function expectRefused(result: BatteryRun, field: string, problem: RegExp): void {
	expect({ message: result.error?.message, requests: result.requests }).toEqual({ message: expect.stringMatching(new RegExp(`^Invalid ${field}: `)), requests: [] });
	expect(result.error?.message).toMatch(problem);
	expect(result.error?.description).toMatch(/Rule: .+\n(.*\n)*Nothing was sent\./);
}

describe('Voice Agent > Webhook > Create: request headers are checked', () => {
	const withHeaders = (...pairs: Array<{ name: string; value: string }>) => ({ additionalFields: { requestHeaders: { pairs } } });

	test.each([
		['a CRLF in a value', { name: 'X-Secret', value: 'a\r\nX-Injected: 1' }, 'Value', /contains U\+000D, a line break/],
		['a NUL in a value', { name: 'X-Secret', value: 'a\u0000b' }, 'Value', /contains U\+0000, a control character/],
		['a TAB in a value', { name: 'X-Secret', value: 'a\tb' }, 'Value', /contains U\+0009, a control character/],
		['a value beyond Latin-1', { name: 'X-Secret', value: 'pa\u017Fs' }, 'Request Headers > Value', /header 1 \(X-Secret\) contains U\+017F/],
		['a name beyond Latin-1', { name: 'X-Ключ', value: 'hdr-S3cret' }, 'Request Headers > Name', /"X-Ключ" is not a header name/],
		['a name with a space and a colon', { name: 'Bad Header:', value: 'hdr-S3cret' }, 'Request Headers > Name', /"Bad Header:" is not a header name/],
		['an empty name, which would drop the secret', { name: '', value: 's3cret-value' }, 'Request Headers > Name', /header 1 has no name \(it would be dropped, its value with it\)/],
		['a NUL in a name', { name: 'X-\u0000', value: 'hdr-S3cret' }, 'Name', /contains U\+0000/],
	])('%s is refused, no webhook is created', async (_what, pair, field, problem) => {
		const result = await run('voiceAgent webhook.create', withHeaders(pair));
		expectRefused(result, field.replace(/[>]/g, '\\>'), problem);
		expect(sandbox.convai.webhooks).toEqual([]);
		// A header value is a shared secret: never quoted (the node's own parameters aside, which n8n attaches).
		const { message, description, context } = result.error ?? {};
		expect(JSON.stringify({ message, description, context })).not.toContain(JSON.stringify(pair.value).slice(1, -1));
	});

	test('the same name twice (names ignore case) is refused', async () => {
		const result = await run('voiceAgent webhook.create', withHeaders({ name: 'X-Secret', value: 'a' }, { name: 'x-secret', value: 'b' }));
		expectRefused(result, 'Request Headers \\> Name', /header 2: "x-secret" is given twice/);
	});

	test('token names and Latin-1 values are sent as they are', async () => {
		const result = await run('voiceAgent webhook.create', withHeaders({ name: "X-Shared_Secret.1!#$%&'*+^`|~", value: 's3cret value é ÿ' }));
		expect(result.error).toBeUndefined();
		expect(sandbox.convai.webhooks.map((w) => w.request_headers)).toEqual([{ "X-Shared_Secret.1!#$%&'*+^`|~": 's3cret value é ÿ' }]);
	});
});

describe('a national trunk (0) after the country code is dropped, never kept', () => {
	test('Number > Allocate +44 (0) 20 7946 0123 allocates 442079460123', async () => {
		const result = await run('wholesaleVoice number.allocate', { number: '+44 (0) 20 7946 0123' });
		expect(result.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /v3/numbers/123456/allocated/442079460123']);
		expect(result.items.map((item) => item.json.number)).toEqual(['442079460123']);
	});

	test.each([['+44(0)2079460123'], ['44 (0) 20 7946 0123']])('Number > Get %s reads 442079460123', async (number) => {
		const result = await run('wholesaleVoice number.get', { number });
		expect(result.requests.map((r) => r.path)).toEqual(['/v3/numbers/123456/allocated/442079460123']);
	});

	test('a (0) anywhere else cannot be told and is refused', async () => {
		expectRefused(await run('wholesaleVoice number.allocate', { number: '4420 (0) 7946 0123' }), 'Number', /has a national 0 in brackets that does not follow a country code/);
		expectRefused(await run('hostedPbx sms.send', { to: '(0)7700 900123' }), 'To', /national 0 in brackets/);
	});

	test('Hosted PBX: an SMS to, a call destination and a phone book number are sent without it', async () => {
		await run('hostedPbx sms.send', { to: '+44 (0) 7700 900123' });
		await run('hostedPbx call.originate', { to: '+44 (0)20 7946 0123' });
		await run('hostedPbx phoneBook.create', { name: 'Trunk', phoneNumber: '+44 (0) 20 7946 0123' });
		const bodies = sandbox.context.log.list().map((r) => r.body as IDataObject);
		expect(bodies.map((body) => body?.to ?? body?.phoneNumber)).toEqual(['+447700900123', '+442079460123', '+44 20 7946 0123']);
	});
});

describe('undefined, booleans and NaN are refused where they would become a value', () => {
	test('Set Do Not Disturb with ={{ undefined }} is refused (it was sent as dndActive: false); null too', async () => {
		expectRefused(await run('hostedPbx endpoint.setDnd', { dndActive: '={{ undefined }}' }), 'Do Not Disturb', /it is undefined \(an expression that returned nothing\?\)/);
		expectRefused(await run('hostedPbx endpoint.setDnd', { dndActive: '={{ null }}' }), 'Do Not Disturb', /it is null, not true or false/);
	});

	test('an optional field left undefined stays unset', async () => {
		const result = await run('hostedPbx call.getAll', { filters: { from: '={{ undefined }}', direction: 'in' } });
		expect(result.error).toBeUndefined();
		expect(result.requests[0].query).toEqual({ direction: 'in', pageSize: '50', page: '1' });
	});

	test.each([
		['an SMS body ={{ false }} (it was sent, charged, as "false")', 'hostedPbx sms.send', { body: '={{ false }}' }, 'Message'],
		['an SMS sender ={{ true }}', 'hostedPbx sms.send', { from: locator('={{ true }}') }, 'From'],
		['an endpoint ={{ true }} (it built /endpoints/true)', 'hostedPbx call.originate', { endpointId: locator('={{ true }}') }, 'Endpoint'],
		['a trunk ={{ true }} (it built DELETE …/trunks/654321-true)', 'wholesaleVoice trunk.delete', { trunk: locator('={{ true }}') }, 'Trunk Name'],
		['an SMS body ={{ NaN }}', 'hostedPbx sms.send', { body: '={{ NaN }}' }, 'Message'],
	])('%s is refused', async (_what, name, overrides, field) => {
		expectRefused(await run(name, overrides), field, /(it is a boolean \((true|false)\), not text|NaN is not a finite number, nor text)/);
	});
});

describe('Hosted PBX date filters are real calendar dates', () => {
	test.each([
		['2026-02-30', /"2026-02-30" is not a date that exists/],
		['2025-02-29', /"2025-02-29" is not a date that exists/],
		['yesterday 1', /"yesterday 1" is not a date-time/],
		['12', /"12" is not a date-time/],
		['={{ new Date("x") }}', /it is an invalid date/],
	])('Created After %s is refused, naming the field', async (value, problem) => {
		const result = await run('hostedPbx call.getAll', { filters: { createdAfter: value } });
		expectRefused(result, 'Created After', problem);
		expect(result.error?.message).not.toMatch(/Invalid time value/);
	});

	test('a real date is sent as that day', async () => {
		const result = await run('hostedPbx recording.getAll', { filters: { startedAfter: '2024-02-29', createdBefore: '2026-11-22T09:30:00+01:00' } });
		expect(result.requests[0].query).toMatchObject({ startedAfter: '2024-02-29T00:00:00Z', createdBefore: '2026-11-22T08:30:00Z' });
	});
});

describe('control and bidirectional characters are refused in names, senders, addresses, ids and bodies', () => {
	test.each([
		['an SMS body NUL (it was charged)', 'hostedPbx sms.send', { body: '\u0000' }, 'Message', /contains U\+0000, a control character/],
		['a phone number with CRLF', 'hostedPbx phoneBook.create', { phoneNumber: '+447700900123\r\n' }, 'Phone Number', /contains U\+000D, a line break/],
		['a name with NUL', 'hostedPbx phoneBook.create', { name: 'Ali\u0000ce' }, 'Name', /contains U\+0000/],
		['a name with ESC', 'hostedPbx phoneBook.create', { name: '\u001b[2JAlice' }, 'Name', /contains U\+001B/],
		['an SMS sender Bank\u202E', 'hostedPbx sms.send', { from: locator('Bank\u202E') }, 'From', /contains U\+202E, a bidirectional override/],
		['an e911 city New \u202EYork', 'wholesaleVoice e911.set', { city: 'New \u202EYork' }, 'City', /contains U\+202E, a bidirectional override/],
		['a C1 control in a 999 name', 'wholesaleVoice uk999.set', { name: 'Acme\u0085Widgets' }, 'Business Name', /contains U\+0085, a control character/],
		['an isolate in a trunk name', 'wholesaleVoice trunk.create', { trunk: '123456-a\u2067b' }, 'Trunk Name', /contains U\+2067, a bidirectional isolate/],
	])('%s', async (_what, name, overrides, field, problem) => {
		const result = await run(name, overrides);
		expectRefused(result, field, problem);
		// The message shows the character escaped, never as itself.
		expect(result.error?.message).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u0085\u202a-\u202e\u2066-\u2069]/);
	});

	test('line breaks and tabs in a message, and the zero-width joiner of an emoji, are text', async () => {
		const body = 'Hello\r\n\tteam 👩\u200D💻';
		const result = await run('hostedPbx sms.send', { body });
		expect(result.error).toBeUndefined();
		expect((result.requests[0].body as IDataObject).body).toBe(body);
	});
});

describe('absurd magnitudes are refused with the rule', () => {
	test.each([
		['a balance alert of 1e21', 'wholesaleVoice prepay.setBalanceAlert', { alertBalance: 1e21 }, 'Alert Balance', /from 0 to 10000000/],
		['a summary limit of 1e21', 'wholesaleVoice summary.get', { additionalFields: { maxResults: 1e21 } }, 'Max Results', /from 1 to 100000/],
		['a 10,000-character e-mail recipient', 'wholesaleVoice notification.addRecipient', { destination: `${'a'.repeat(9990)}@example.com` }, 'Recipient', /at most 254 characters/],
		['a port order for 10,000,000 channels (charged)', 'wholesaleVoice port.submit', { channels: 10_000_000 }, 'Channels', /from 1 to 10000/],
		['a webhook timeout of a day', 'voiceAgent webhook.create', { additionalFields: { timeoutMs: 86_400_000 } }, 'Timeout \\(Milliseconds\\)', /from 1 to 60000/],
	])('%s', async (_what, name, overrides, field, rule) => {
		const result = await run(name, overrides);
		expectRefused(result, field, /out of range|characters long|is more than/);
		expect(result.error?.description).toMatch(rule);
	});
});

describe('messages that name something', () => {
	test('a number of 1e309 says it is not a finite number, without "null"', async () => {
		const result = await run('hostedPbx phoneBook.getAll', { returnAll: false, limit: '={{ 1e309 }}' });
		expect(result.error?.message).toBe('Invalid Limit: "Infinity" is not a finite number');
	});

	test.each([['?x='], ['#frag']])('a Base URL ending %s is refused; nothing is sent', async (tail) => {
		const since = sandbox.context.log.lastSeq;
		const result = await runNode({
			node: op('hostedPbx customer.get').node.type(),
			parameters: exampleOf(op('hostedPbx customer.get')),
			credentials: { hostedPbxApi: { baseUrl: `${sandbox.url}/api/v1${tail}`, username: 'acme.admin', password: 'acme-admin-secret' } },
		});
		expect(result.error?.message).toMatch(/^The Base URL of the Hosted PBX API credential contains a (query|fragment)/);
		expect(sandbox.context.log.list({ since })).toEqual([]);
	});
});

describe('invisible marks are refused where a name, sender, address or id is expected', () => {
	test.each([
		['a sender Bank\u200F (a right-to-left mark)', 'hostedPbx sms.send', { from: locator('Bank\u200F') }, 'From', /contains U\+200F, a direction mark/],
		['a sender Ac\u200Bme (a zero-width space)', 'hostedPbx sms.send', { from: locator('Ac\u200Bme') }, 'From', /contains U\+200B, a zero-width space/],
		['a sender with tag characters', 'hostedPbx sms.send', { from: locator('Acme\u{E0041}\u{E0042}') }, 'From', /contains U\+E0041, a tag character/],
		['an e911 city New\u200EYork', 'wholesaleVoice e911.set', { city: 'New\u200EYork' }, 'City', /contains U\+200E, a direction mark/],
		['a name with U+061C', 'hostedPbx phoneBook.create', { name: 'Sam\u061CRivera' }, 'Name', /contains U\+061C, a direction mark/],
		['a name with U+2028', 'hostedPbx phoneBook.create', { name: 'Sam\u2028Rivera' }, 'Name', /contains U\+2028, a line separator/],
		['a 999 name with U+2029', 'wholesaleVoice uk999.set', { name: 'Acme\u2029Widgets' }, 'Business Name', /contains U\+2029, a paragraph separator/],
		['a trunk name with U+2060', 'wholesaleVoice trunk.create', { trunk: '123456-a\u2060b' }, 'Trunk Name', /contains U\+2060, a zero-width space/],
		['an agent id with U+FEFF', 'voiceAgent webhook.create', { agentId: '\uFEFFagent_1' }, 'Agent ID', /contains U\+FEFF, a zero-width space/],
	])('%s', async (_what, name, overrides, field, problem) => {
		const result = await run(name, overrides);
		expectRefused(result, field, problem);
		// The message shows the mark escaped, never as itself.
		expect(result.error?.message).not.toMatch(/[\u061c\u200b\u200e\u200f\u2028\u2029\u2060\ufeff]|\u{E0041}/u);
	});

	test('a message keeps its marks: right-to-left text, a flag of tag characters, an emoji with its joiner', async () => {
		const body = 'שלום\u200F 🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} 👩\u200D💻';
		const result = await run('hostedPbx sms.send', { body });
		expect(result.error).toBeUndefined();
		expect((result.requests[0].body as IDataObject).body).toBe(body);
	});
});

describe('Maximum Parts holds for the text that is sent', () => {
	test('a BigInt body (={{ BigInt(10) ** BigInt(700) }}) is refused, not sent as 5 parts', async () => {
		expectRefused(await run('hostedPbx sms.send', { body: '={{ BigInt(10) ** BigInt(700) }}', maxParts: 1 }), 'Message', /it is a bigint, not text/);
	});

	test('a BigInt in any text field is refused', async () => {
		expectRefused(await run('hostedPbx phoneBook.create', { name: '={{ BigInt(7) }}' }), 'Name', /it is a bigint, not text/);
	});

	test('a number body is sent as the text that was estimated', async () => {
		const fits = await run('hostedPbx sms.send', { body: '={{ 424242 }}', maxParts: 1 });
		expect((fits.requests[0].body as IDataObject).body).toBe('424242');
		expect(fits.items[0].json.partsEstimate).toEqual({ encoding: 'GSM-7', units: 6, parts: 1, estimate: true });
	});
});

describe('numbers are converted by their country’s numbering plan, or refused', () => {
	test.each([
		['wholesaleVoice number.allocate', { number: '+39 (0)6 6988 3251' }, 'Number', /Italy has no national prefix and the 0 is part of the number/],
		['wholesaleVoice number.allocate', { number: '+44 (0) 020 7946 0123' }, 'Number', /is not a number of the United Kingdom in international form/],
		['wholesaleVoice number.allocate', { number: '+44 020 7946 0123' }, 'Number', /is not a number of the United Kingdom in international form/],
		['hostedPbx sms.send', { to: '+44 07902 000000' }, 'To', /is not a number of the United Kingdom in international form/],
		['hostedPbx sms.send', { to: '+44 0 7902 000000' }, 'To', /is not a number of the United Kingdom in international form/],
		['hostedPbx call.originate', { to: '+44 07902 000000' }, 'Destination', /is not a number of the United Kingdom in international form/],
		['hostedPbx sms.send', { to: '0612345678', defaultCountryCode: '212' }, 'To', /a country code whose national prefix the numbering plan does not hold/],
		['hostedPbx sms.send', { to: '912 345 67 89', defaultCountryCode: '7' }, 'To', /not a national number of Russia and Kazakhstan/],
	])('%s %j is refused', async (name, overrides, field, problem) => {
		const result = await run(name, overrides);
		expectRefused(result, field, problem);
		expect(result.error?.description).toMatch(/Rule: .*(no 0 after the country code|national prefix|numbering plan)/);
	});

	test.each([
		['39', '06 6988 3251', '+390669883251'],
		['36', '06 1 234 5678', '+3612345678'],
		['7', '8 (912) 345-67-89', '+79123456789'],
		['1', '(212) 555-0142', '+12125550142'],
	])('with Default Country Code %s, %s is sent to %s', async (defaultCountryCode, to, sent) => {
		const result = await run('hostedPbx sms.send', { to, defaultCountryCode });
		expect(result.requests.map((r) => (r.body as IDataObject).to)).toEqual([sent]);
	});
});

describe('webhook targets and headers are bounded', () => {
	test.each([
		['http://169.254.169.254/latest/meta-data/', /points at a cloud metadata address/],
		['http://metadata.google.internal/computeMetadata/v1/', /points at a cloud metadata address/],
		['http://[fd00:ec2::254]/latest/', /points at a cloud metadata address/],
		['http://169.254.10.1/hook', /points at a link-local address/],
		['http://[fe80::1]/hook', /points at a link-local address/],
		['http://2130706433/hook', /names the IPv4 address 127.0.0.1 in another form \(2130706433\)/],
		['http://0x7f.0.0.1/hook', /names the IPv4 address 127.0.0.1 in another form \(0x7f.0.0.1\)/],
		['http://0251.0376.0251.0376/hook', /names the IPv4 address 169.254.169.254 in another form/],
		['https://hooks.example.com@169.254.169.254/hook', /has a user name or password before the host/],
		['http://localhost:5678/webhook/x', /points at a loopback address/],
		['http://127.0.0.1:5678/webhook/x', /points at a loopback address/],
		['http://[::1]/hook', /points at a loopback address/],
		[`https://hooks.example.com/${'a'.repeat(10_000)}`, /it is 10026 characters long/],
	].map(([url, problem]): [string, string, RegExp] => [String(url).length > 80 ? `${String(url).slice(0, 40)}… (${String(url).length} characters)` : String(url), String(url), problem as RegExp]))(
		'a Voice Agent webhook to %s is refused; none is created',
		async (_shown, url, problem) => {
			const result = await run('voiceAgent webhook.create', { url });
			expectRefused(result, 'URL', problem);
			expect(result.error?.description).toMatch(/at most 2048 characters.*no link-local .* no loopback address/);
			expect(sandbox.convai.webhooks).toEqual([]);
		},
	);

	test.each([
		['http://169.254.169.254/sms', /points at a cloud metadata address/],
		['http://2130706433/sms', /in another form/],
		['http://127.0.0.1/sms', /points at a loopback address/],
	])('a Wholesale SMS endpoint %s is refused', async (endpoint, problem) => {
		expectRefused(await run('wholesaleVoice number.setSmsEndpoint', { endpoint }), 'Endpoint URL', problem);
	});

	test('a report callback may be the own n8n on loopback (the demo), never a metadata address', async () => {
		expectRefused(await run('wholesaleVoice report.request', { callback: 'http://169.254.169.254/' }), 'Callback URL', /cloud metadata address/);
		expectRefused(await run('wholesaleVoice report.request', { callback: 'http://0x7f000001/' }), 'Callback URL', /in another form/);
	});

	test('a LAN address and a name are webhook targets', async () => {
		expect((await run('voiceAgent webhook.create', { url: 'http://192.168.1.20:5678/webhook/agent' })).error).toBeUndefined();
		expect((await run('wholesaleVoice number.setSmsEndpoint', { endpoint: 'https://n8n.example.com/webhook/sms' })).error).toBeUndefined();
	});

	const headers = (count: number, length: number) => ({ additionalFields: { requestHeaders: { pairs: Array.from({ length: count }, (_, i) => ({ name: `X-H${i}`, value: 'v'.repeat(length) })) } } });

	test('300 headers are refused (at most 20), and a value of 8,000 characters (at most 1024)', async () => {
		expectRefused(await run('voiceAgent webhook.create', headers(300, 8000)), 'Request Headers', /there are 300 headers/);
		const long = await run('voiceAgent webhook.create', headers(1, 8000));
		expectRefused(long, 'Request Headers \\> Value', /is 8000 characters long/);
		expect(long.error?.description).toMatch(/at most 1024 characters/);
		expect(sandbox.convai.webhooks).toEqual([]);
	});

	test('20 headers of 1,024 characters are sent', async () => {
		const result = await run('voiceAgent webhook.create', headers(20, 1024));
		expect(result.error).toBeUndefined();
		expect(Object.keys(sandbox.convai.webhooks[0].request_headers ?? {})).toHaveLength(20);
	});
});
