import { BlockList, isIP } from 'node:net';

import fc from 'fast-check';

import {
	PLATFORM_NETWORKS,
	addressAllowed,
	checkCaller,
	normaliseAddress,
	parseNetworks,
	sameSecret,
	settingsProblems,
} from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/trigger/security';

describe('source networks', () => {
	test("the spec's five /31 networks: both addresses of each are in, their neighbours are not", () => {
		const inside = ['178.22.139.84', '178.22.139.85', '185.63.140.84', '185.63.140.85', '185.63.142.84', '185.63.142.85', '185.63.141.84', '185.63.141.85', '185.63.143.84', '185.63.143.85'];
		const outside = ['178.22.139.83', '178.22.139.86', '185.63.140.86', '185.63.144.84', '127.0.0.1', '10.0.0.1', '::1'];
		for (const address of inside) expect([address, addressAllowed(address, PLATFORM_NETWORKS)]).toEqual([address, true]);
		for (const address of outside) expect([address, addressAllowed(address, PLATFORM_NETWORKS)]).toEqual([address, false]);
	});

	test('an IPv4 client on a dual-stack socket (::ffff:a.b.c.d) is its IPv4 address; nonsense is never allowed', () => {
		expect(normaliseAddress('::ffff:178.22.139.84')).toBe('178.22.139.84');
		expect(normaliseAddress('[fe80::1%eth0]')).toBe('fe80::1');
		expect(addressAllowed('::ffff:178.22.139.84', PLATFORM_NETWORKS)).toBe(true);
		expect(addressAllowed(undefined, PLATFORM_NETWORKS)).toBe(false);
		expect(addressAllowed('', ['0.0.0.0/0'])).toBe(false);
		expect(addressAllowed('not-an-ip', ['0.0.0.0/0'])).toBe(false);
		// A forged header value is not an address.
		expect(addressAllowed('178.22.139.84, 127.0.0.1', PLATFORM_NETWORKS)).toBe(false);
	});

	test('custom lists: CIDR or single addresses, IPv4 or IPv6, any separator; invalid entries named', () => {
		expect(parseNetworks('203.0.113.0/24, 198.51.100.7\n2001:db8::/32;  ::1 ')).toEqual({
			networks: ['203.0.113.0/24', '198.51.100.7/32', '2001:db8::/32', '::1/128'],
			invalid: [],
		});
		expect(parseNetworks('10.0.0.0/33, 300.1.1.1, example.com, 10.0.0.0/8/1, 10.0.0.0/x').invalid).toEqual(['10.0.0.0/33', '300.1.1.1', 'example.com', '10.0.0.0/8/1', '10.0.0.0/x']);
		const { networks } = parseNetworks('203.0.113.0/24, 2001:db8::/32, 127.0.0.1');
		expect(addressAllowed('203.0.113.200', networks)).toBe(true);
		expect(addressAllowed('203.0.114.1', networks)).toBe(false);
		expect(addressAllowed('2001:db8:1::5', networks)).toBe(true);
		expect(addressAllowed('2001:db9::5', networks)).toBe(false);
		expect(addressAllowed('127.0.0.1', networks)).toBe(true);
		expect(addressAllowed('::ffff:127.0.0.1', networks)).toBe(true);
	});
});

describe('addresses without node:net (n8n Cloud refuses it in the node): node:net is the reference here', () => {
	test('IPv6 clients, other IPv4-in-IPv6 forms and the neighbours of the /31s are refused by the platform list', () => {
		const refused = [
			'::1', '::', '2001:db8::1', 'fe80::1%eth0', '[2001:db8::1]',
			// IPv4-compatible, IPv4-translated and NAT64 forms are other addresses than the IPv4 one.
			'::178.22.139.84', '::ffff:0:178.22.139.84', '64:ff9b::178.22.139.84', '::fffe:178.22.139.84',
			'178.22.139.83', '178.22.139.86', '185.63.143.83', '185.63.143.86', '0.0.0.0', '255.255.255.255',
		];
		for (const address of refused) expect([address, addressAllowed(address, PLATFORM_NETWORKS)]).toEqual([address, false]);
	});

	test('an IPv4-mapped client is its IPv4 address in every IPv6 spelling', () => {
		for (const mapped of ['::ffff:178.22.139.84', '::FFFF:178.22.139.85', '::ffff:b216:8b54', '0:0:0:0:0:ffff:b216:8b55', '0000:0000:0000:0000:0000:ffff:178.22.139.84', '[::ffff:178.22.139.84]']) {
			expect([mapped, addressAllowed(mapped, PLATFORM_NETWORKS)]).toEqual([mapped, true]);
		}
		expect(normaliseAddress('::ffff:b216:8b54')).toBe('178.22.139.84');
		expect(normaliseAddress('::ffff:0.0.0.0')).toBe('0.0.0.0');
		expect(addressAllowed('::ffff:b216:8b56', PLATFORM_NETWORKS)).toBe(false);
	});

	test('malformed addresses are never allowed, even by 0.0.0.0/0 and ::/0', () => {
		const everything = ['0.0.0.0/0', '::/0'];
		const malformed = [
			'1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.04', '256.1.1.1', '1.2.3.-1', '1..2.3', '1.2.3.4.', '.1.2.3.4', '0x7f.0.0.1', '2130706433',
			'1::2::3', ':::', ':1::', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8::', '12345::', 'g::1', '::ffff:999.1.1.1',
			'1.2.3.4::', '::1.2.3', '1:2:3:4:5:6:7:1.2.3.4', '[::1', '::1]', 'localhost', '1.2.3.4, 5.6.7.8',
		];
		for (const address of malformed) {
			expect([address, addressAllowed(address, everything), isIP(normaliseAddress(address))]).toEqual([address, false, 0]);
		}
		expect(addressAllowed('::1', ['0.0.0.0/0'])).toBe(false);
		expect(addressAllowed('10.0.0.1', ['::/0'])).toBe(false);
		expect(parseNetworks('0.0.0.0/-1, 1.2.3.4/, ::/129, ::1/1.5, 01.2.3.4/8').invalid).toEqual(['0.0.0.0/-1', '1.2.3.4/', '::/129', '::1/1.5', '01.2.3.4/8']);
	});

	/** Address-like text: valid addresses of every kind, and strings of address characters. */
	const addressText = fc.oneof(
		fc.ipV4(),
		fc.ipV6(),
		fc.ipV4Extended(),
		fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF:.'), maxLength: 45 }),
		fc.tuple(fc.ipV6(), fc.nat(45), fc.constantFrom(':', '.', '::', '0', 'f', '')).map(([ip, at, insert]) => ip.slice(0, at) + insert + ip.slice(at)),
	);

	test('what is an address: the same answer as isIP', () => {
		fc.assert(
			// A plain comparison per run (fast-check shows the text it fails on): 20,000 Jest expectations cost seconds.
			fc.property(addressText, (text) => (parseNetworks([text]).networks.length === 1) === (isIP(normaliseAddress(text)) !== 0)),
			{ numRuns: 20_000 },
		);
	});

	/** A network and addresses in and around it, as eight 16-bit groups or four octets written out in full. */
	const ipv4Case = fc.tuple(fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }), fc.nat(32), fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }), fc.nat(4));
	const ipv6Case = fc.tuple(fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }), fc.nat(128), fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }), fc.nat(8));

	test('IPv4 membership: the same answer as BlockList', () => {
		fc.assert(
			fc.property(ipv4Case, ([network, prefix, other, keep]) => {
				// The address shares the network's first `keep` octets, so that both answers occur.
				const address = [...network.slice(0, keep), ...other.slice(keep)].join('.');
				const reference = new BlockList();
				reference.addSubnet(network.join('.'), prefix, 'ipv4');
				const { networks } = parseNetworks(`${network.join('.')}/${prefix}`);
				return addressAllowed(address, networks) === reference.check(address, 'ipv4');
			}),
			{ numRuns: 5_000 },
		);
	});

	test('IPv6 membership: the same answer as BlockList', () => {
		fc.assert(
			fc.property(ipv6Case, fc.boolean(), ([network, prefix, other, keep], compress) => {
				const text = (groups: number[]) => {
					const full = groups.map((g) => g.toString(16)).join(':');
					return compress ? full.replace(/(^|:)0(:0)+(:|$)/, '::') : full;
				};
				const networkText = text(network);
				const address = text([...network.slice(0, keep), ...other.slice(keep)]);
				// Mapped IPv4 is checked as IPv4 (above); here both sides are IPv6.
				fc.pre(normaliseAddress(networkText) === networkText && normaliseAddress(address) === address);
				const reference = new BlockList();
				reference.addSubnet(networkText, prefix, 'ipv6');
				const { networks } = parseNetworks(`${networkText}/${prefix}`);
				return addressAllowed(address, networks) === reference.check(address, 'ipv6');
			}),
			{ numRuns: 5_000 },
		);
	});
});

describe('the shared secret', () => {
	test('exact, length-independent, never empty', () => {
		expect(sameSecret('s3cret', 's3cret')).toBe(true);
		expect(sameSecret('s3cres', 's3cret')).toBe(false);
		expect(sameSecret('s3cret-and-more', 's3cret')).toBe(false);
		expect(sameSecret(undefined, 's3cret')).toBe(false);
		expect(sameSecret(['s3cret'], 's3cret')).toBe(false);
		expect(sameSecret('', '')).toBe(false);
	});
});

describe('checkCaller', () => {
	const platform = { sourceNetworks: 'platform' as const, secretLocation: 'none' as const };
	const from = (address: string | undefined, query = {}, headers = {}) => ({ address, query, headers });

	test("default: only the platform's networks, 403 otherwise, with the reason for the log", () => {
		expect(checkCaller(platform, from('185.63.141.85'))).toEqual({ allowed: true });
		expect(checkCaller(platform, from('127.0.0.1'))).toEqual({
			allowed: false,
			status: 403,
			reason: "the client address 127.0.0.1 is not in the allowed networks (the platform's five)",
		});
		expect(checkCaller(platform, from(undefined))).toMatchObject({ allowed: false, status: 403 });
		expect(checkCaller({ sourceNetworks: 'any', secretLocation: 'none' }, from(undefined))).toEqual({ allowed: true });
	});

	test('the network first, then the secret: 403 before 401; missing and wrong secrets are both 401', () => {
		const settings = { sourceNetworks: 'custom' as const, customNetworks: '127.0.0.1', secretLocation: 'query' as const, secretName: 'token', secret: 'abc123' };
		expect(checkCaller(settings, from('10.1.1.1', { token: 'abc123' }))).toMatchObject({ status: 403 });
		expect(checkCaller(settings, from('127.0.0.1'))).toEqual({ allowed: false, status: 401, reason: 'the secret query parameter token was missing' });
		expect(checkCaller(settings, from('127.0.0.1', { token: 'abc124' }))).toEqual({ allowed: false, status: 401, reason: 'the secret query parameter token was wrong' });
		expect(checkCaller(settings, from('127.0.0.1', { token: ['abc123', 'abc123'] }))).toMatchObject({ status: 401 });
		expect(checkCaller(settings, from('127.0.0.1', { token: 'abc123' }))).toEqual({ allowed: true });
		const header = { ...settings, secretLocation: 'header' as const, secretName: 'X-Webhook-Secret' };
		expect(checkCaller(header, from('127.0.0.1', {}, { 'x-webhook-secret': 'abc123' }))).toEqual({ allowed: true });
		expect(checkCaller(header, from('127.0.0.1', { 'X-Webhook-Secret': 'abc123' }))).toMatchObject({ status: 401 });
	});

	test('settings that cannot be applied refuse everything, and say why at activation', () => {
		expect(settingsProblems({ sourceNetworks: 'custom', customNetworks: '10.0.0.0/8, nonsense', secretLocation: 'none' })).toEqual([
			'Allowed Networks: "nonsense" is not an IP address or CIDR network (e.g. 203.0.113.0/24)',
		]);
		expect(settingsProblems({ sourceNetworks: 'custom', customNetworks: ' ', secretLocation: 'none' })).toEqual([
			'Allowed Networks: the list is empty; give at least one network, or choose Any Source',
		]);
		expect(settingsProblems({ sourceNetworks: 'any', secretLocation: 'header', secretName: 'Bad Header', secret: '' })).toEqual([
			'Secret: it is empty; set a long random value, or choose no secret',
			'Secret Header: "Bad Header" is not a valid header name',
		]);
		expect(checkCaller({ sourceNetworks: 'custom', customNetworks: 'nonsense', secretLocation: 'none' }, from('127.0.0.1'))).toMatchObject({
			allowed: false,
			status: 403,
			reason: expect.stringMatching(/^the trigger's settings are invalid: Allowed Networks/),
		});
	});
});
