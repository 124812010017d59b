import { HEADER_MAX_COUNT, URL_MAX_LENGTH, headerIssues, httpUrl, textIssue } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/validation';

const problem = (url: string, webhook = true) => httpUrl('URL', url, { webhook })?.problem;

describe('a URL the service is to call', () => {
	test.each([
		['http://169.254.169.254/latest/meta-data/', /cloud metadata address/],
		['http://metadata.google.internal./computeMetadata/v1/', /cloud metadata address/],
		['http://METADATA.google.internal/', /cloud metadata address/],
		['http://[fd00:ec2::254]/', /cloud metadata address/],
		['http://100.100.100.200/latest/meta-data/', /cloud metadata address/],
		['http://169.254.1.1/', /link-local address/],
		['http://[fe80::1%25eth0]/', /link-local address|not an http\(s\) URL/],
		['http://2130706433/', /names the IPv4 address 127\.0\.0\.1 in another form \(2130706433\)/],
		['http://0x7f.0.0.1/', /in another form \(0x7f\.0\.0\.1\)/],
		['http://0x7f000001/', /in another form/],
		['http://017700000001/', /in another form/],
		['http://127.1/', /in another form \(127\.1\)/],
		['http://%31%32%37.0.0.1/', /in another form/],
		['http://hooks.example.com@169.254.169.254/', /user name or password before the host/],
		['https://user:pass@hooks.example.com/', /user name or password before the host/],
		['http://localhost:5678/webhook/x', /loopback address/],
		['http://api.localhost/x', /loopback address/],
		['http://127.0.0.2/x', /loopback address/],
		['http://0.0.0.0/x', /loopback address/],
		['http://[::1]/x', /loopback address/],
		['http://[::ffff:127.0.0.1]/x', /loopback address/],
	])('%s is refused', (url, expected) => {
		expect(problem(url)).toMatch(expected);
		expect(httpUrl('URL', url, { webhook: true })?.rule).toMatch(/at most 2048 characters; a host the service can deliver to/);
	});

	test.each([
		['https://n8n.example.com/webhook/agent'],
		['http://192.168.1.20:5678/webhook/agent'],
		['http://10.0.0.7/hook'],
		['https://[2001:db8::1]/hook'],
		['https://hooks.example.com/path?with=query&and#fragment'],
	])('%s is a target', (url) => {
		expect(problem(url)).toBeUndefined();
	});

	test(`at most ${URL_MAX_LENGTH} characters`, () => {
		const base = 'https://hooks.example.com/';
		expect(problem(`${base}${'a'.repeat(URL_MAX_LENGTH - base.length)}`)).toBeUndefined();
		expect(problem(`${base}${'a'.repeat(URL_MAX_LENGTH - base.length + 1)}`)).toBe('it is 2049 characters long');
		expect(problem(`${base}${'a'.repeat(10_000)}`)).toBe('it is 10026 characters long');
	});

	test('loopback is refused for a webhook only: a callback to the own n8n may be on loopback, a metadata address never', () => {
		expect(problem('http://127.0.0.1:5678/webhook/x/wholesale-voice', false)).toBeUndefined();
		expect(problem('http://localhost:5678/webhook/x', false)).toBeUndefined();
		expect(problem('http://169.254.169.254/', false)).toMatch(/cloud metadata address/);
		expect(httpUrl('URL', 'http://169.254.169.254/')?.rule).not.toMatch(/loopback/);
	});
});

describe('webhook request headers', () => {
	const pairs = (count: number, length: number) => Array.from({ length: count }, (_, i) => ({ name: `X-H${i}`, value: 'v'.repeat(length) }));

	test(`at most ${HEADER_MAX_COUNT} headers, each value at most 1024 characters`, () => {
		expect(headerIssues('Request Headers', pairs(HEADER_MAX_COUNT, 1024))).toEqual([]);
		expect(headerIssues('Request Headers', pairs(300, 8000))).toEqual([{ field: 'Request Headers', problem: 'there are 300 headers', rule: 'at most 20 headers' }]);
		expect(headerIssues('Request Headers', pairs(1, 1025))).toEqual([
			{ field: 'Request Headers > Value', problem: 'the value of header 1 (X-H0) is 1025 characters long', rule: expect.stringMatching(/at most 1024 characters/) },
		]);
	});
});

describe('invisible characters in one line of text', () => {
	test.each([
		['Bank\u200F', 'U+200F, a direction mark'],
		['Bank\u200E', 'U+200E, a direction mark'],
		['Bank\u061C', 'U+061C, a direction mark'],
		['Ac\u200Bme', 'U+200B, a zero-width space'],
		['Ac\u2060me', 'U+2060, a zero-width space'],
		['\uFEFFAcme', 'U+FEFF, a zero-width space'],
		['Acme\u{E0001}', 'U+E0001, a tag character'],
		['Acme\u{E007F}', 'U+E007F, a tag character'],
		['Sam\u2028Rivera', 'U+2028, a line separator'],
		['Sam\u2029Rivera', 'U+2029, a paragraph separator'],
	])('%j is refused, the character named and escaped', (value, named) => {
		const issue = textIssue('Name', value);
		expect(issue?.problem).toContain(`contains ${named}`);
		expect(issue?.rule).toMatch(/direction marks .* zero-width spaces .* tag characters .* line and paragraph separators/);
		expect(issue?.problem).not.toMatch(/[\u061c\u200b\u200e\u200f\u2028\u2029\u2060\ufeff]|[\u{E0000}-\u{E007F}]/u);
	});

	test('a message keeps them, and an emoji joiner is text in a name too', () => {
		expect(textIssue('Message', 'مرحبا\u200F\u2028🏴\u{E0067}\u{E0062}\u{E007F}', true)).toBeUndefined();
		expect(textIssue('Name', 'Team 👩\u200D💻')).toBeUndefined();
		expect(textIssue('Name', 'Zoë Ørsted')).toBeUndefined();
	});
});
