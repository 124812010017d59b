/**
 * The credentials' Test buttons explain themselves. n8n's CredentialsTester (packages/cli/src/
 * services/credentials-tester.service.ts, n8n 2.40 and 1.123 alike) tests a credential without a
 * `test` of its own through the `methods.credentialTest` function that a node using it names in
 * `testedBy`, called in n8n-core's CredentialTestContext (whose only helper is `request`); the
 * message it returns is what the dialog shows. Here it runs the same way against the sandbox, real
 * servers and closed ports on 127.0.0.1 (the unknown host is under .invalid, which no DNS resolves).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { CredentialTestContext } from 'n8n-core';
import type { ICredentialDataDecryptedObject, ICredentialTestFunction, IHttpRequestOptions, INodeCredentialTestResult, INodeType } from 'n8n-workflow';

import { ConversationIntelligence } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import { ConversationIntelligenceTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node';
import { HostedPbx } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { HostedPbxTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbxTrigger.node';
import { VoiceAgent } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { VoiceAgentTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgentTrigger.node';
import { WholesaleVoice } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { WholesaleVoiceTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoiceTrigger.node';
import { startSandbox, type Sandbox } from '../../sandbox';
import { CREDENTIAL_TYPES } from '../harness/n8n';
import { json, startTestServer } from '../harness/testServer';
import type { TlsFault } from '../harness/tlsServers';
import { closedPort, startTlsServer, trustTestAuthority } from '../harness/tlsServers';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());

const NODES: INodeType[] = [
	new HostedPbx(),
	new HostedPbxTrigger(),
	new WholesaleVoice(),
	new WholesaleVoiceTrigger(),
	new VoiceAgent(),
	new VoiceAgentTrigger(),
	new ConversationIntelligence(),
	new ConversationIntelligenceTrigger(),
];

/** The Test function of each node that uses a credential type, as n8n looks it up (`testedBy`, then `methods.credentialTest`). */
function testsOf(type: string): Array<ICredentialTestFunction | undefined> {
	return NODES.flatMap((node) =>
		(node.description.credentials ?? []).filter((c) => c.name === type).map((c) => node.methods?.credentialTest?.[c.testedBy as string]),
	);
}

/** What the credential dialog says, n8n finding the Test through any node that uses the credential. */
async function credentialTest(type: string, data: ICredentialDataDecryptedObject): Promise<INodeCredentialTestResult> {
	const test = testsOf(type)[0]!;
	return await test.call(new CredentialTestContext({} as never), { id: 'credential', name: 'Test', type, data });
}

test('every node that uses a credential names its one Test; no credential has a `test` of its own (n8n would run that instead)', () => {
	for (const type of Object.keys(CREDENTIAL_TYPES)) {
		const tests = testsOf(type);
		expect([type, tests.length > 1, tests.every((test) => typeof test === 'function' && test === tests[0])]).toEqual([type, true, true]);
		expect(CREDENTIAL_TYPES[type].test).toBeUndefined();
	}
});

test("each credential sets its Authorization header itself, keeping the request's other headers (a trimmed key for Bearer)", async () => {
	const values = { username: 'u', password: 'p:1', apiUsername: 'u', apiPassword: 'p:1', apiKey: ' key\n' };
	const headers = await Promise.all(
		Object.entries(CREDENTIAL_TYPES).map(async ([type, credential]) => {
			const authenticate = credential.authenticate as (c: ICredentialDataDecryptedObject, o: IHttpRequestOptions) => Promise<IHttpRequestOptions>;
			return [type, (await authenticate(values, { url: '/x', headers: { Accept: 'application/json' } })).headers];
		}),
	);
	const basic = `Basic ${Buffer.from('u:p:1').toString('base64')}`;
	expect(Object.fromEntries(headers)).toEqual({
		hostedPbxApi: { Accept: 'application/json', Authorization: basic },
		wholesaleVoiceApi: { Accept: 'application/json', Authorization: basic },
		platformApiKeyApi: { Accept: 'application/json', Authorization: 'Bearer key' },
	});
});

const pbx = (baseUrl: string) => ({ baseUrl, username: 'acme.admin', password: 'acme-admin-secret' });
const message = async (type: string, data: ICredentialDataDecryptedObject) => (await credentialTest(type, data)).message;

describe('Hosted PBX API', () => {
	const good = () => pbx(`${sandbox.url}/api/v1/`);

	test('right credentials pass', async () => {
		expect(await credentialTest('hostedPbxApi', good())).toMatchObject({ status: 'OK' });
	});
	test('a wrong password says so', async () => {
		expect(await message('hostedPbxApi', { ...good(), password: 'wrong' })).toMatch(/^Wrong username or password: .*\(401\)/);
	});
	test('a Base URL without the API version names that mistake', async () => {
		expect(await message('hostedPbxApi', { ...good(), baseUrl: sandbox.url })).toMatch(/\(404\): it must end with the API version, as in https:\/\/pbx\.example\.com\/api\/v1/);
	});
});

describe('Wholesale Voice API', () => {
	const good = () => ({ baseUrl: sandbox.url, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456' });

	test('right credentials pass', async () => {
		expect(await credentialTest('wholesaleVoiceApi', good())).toMatchObject({ status: 'OK' });
	});
	test('a wrong password says so', async () => {
		expect(await message('wholesaleVoiceApi', { ...good(), apiPassword: 'wrong' })).toMatch(/^Wrong API username or password: .*\(401\)/);
	});
	test('a wrong account id names the Account ID', async () => {
		expect(await message('wholesaleVoiceApi', { ...good(), accountId: '999999' })).toMatch(/Account ID/);
	});
	test('a Base URL with the version in it names that mistake', async () => {
		expect(await message('wholesaleVoiceApi', { ...good(), baseUrl: `${sandbox.url}/v3` })).toMatch(/\(404\).*without \/v3/);
	});
	test('an Account ID that is not digits is refused before sending', async () => {
		const since = sandbox.context.log.lastSeq;
		expect(await message('wholesaleVoiceApi', { ...good(), accountId: '12a456' })).toMatch(/Account ID must be digits only/);
		expect(sandbox.context.log.list({ since })).toEqual([]);
	});
});

describe('Voice Agent and Conversation Intelligence API', () => {
	const key = (scopes: string[]) => sandbox.convai.keys.create(`test-${scopes.join('-')}`, scopes).key;

	test('a key with the scopes passes', async () => {
		expect(await credentialTest('platformApiKeyApi', { baseUrl: sandbox.url, apiKey: sandbox.convai.keys.demo('full-access') })).toMatchObject({ status: 'OK' });
	});
	test('a revoked key says so', async () => {
		const revoked = key(['convai:read']);
		sandbox.convai.keys.revoke(revoked);
		expect(await message('platformApiKeyApi', { baseUrl: sandbox.url, apiKey: revoked })).toMatch(/^The API key was refused \(401\): it was revoked or mistyped/);
	});
	test('a key for one service fails the Test, naming the service that refuses it and the scope it lacks', async () => {
		// n8n shows the Test's message only when it fails, and cannot tell which node the credential is for.
		const since = sandbox.context.log.lastSeq;
		expect(await credentialTest('platformApiKeyApi', { baseUrl: sandbox.url, apiKey: sandbox.convai.keys.demo('convai-only') })).toEqual({
			status: 'Error',
			message:
				'The API key works for Voice Agent only: Conversation Intelligence refuses it (403, it lacks the scope intelligence:read). ' +
				'Add intelligence:read and the other intelligence scopes its nodes use to the key in the customer portal, or use this credential with the Voice Agent nodes only',
		});
		expect(sandbox.context.log.list({ since }).map((r) => [r.method, r.path, r.status])).toEqual([
			['GET', '/convai/v1/webhooks', 200],
			['GET', '/intelligence/v1/sessions/credential-test/stream-token', 403],
		]);
		expect(await message('platformApiKeyApi', { baseUrl: sandbox.url, apiKey: key(['intelligence:read']) })).toMatch(
			/^The API key works for Conversation Intelligence only: Voice Agent refuses it \(403, it lacks the scope convai:read\)\. .* with the Conversation Intelligence nodes only$/,
		);
	});
	test('a key that both services refuse names the scopes of both', async () => {
		expect(await message('platformApiKeyApi', { baseUrl: sandbox.url, apiKey: key(['convai:write']) })).toMatch(/^Both services refuse the API key .*\(403\).*convai:read, intelligence:read/);
	});
	test('a key both services accept passes, read-only as the Test is', async () => {
		expect(await credentialTest('platformApiKeyApi', { baseUrl: sandbox.url, apiKey: sandbox.convai.keys.demo('read-only') })).toEqual({
			status: 'OK',
			message: expect.stringMatching(/accepted the key for Voice Agent and Conversation Intelligence$/),
		});
	});
	test('a Base URL with the service path in it names that mistake', async () => {
		expect(await message('platformApiKeyApi', { baseUrl: `${sandbox.url}/convai/v1`, apiKey: sandbox.convai.keys.demo('full-access') })).toMatch(/\(404\).*without \/convai\/v1/);
	});
	test('a malformed key is refused before sending, and not repeated', async () => {
		const since = sandbox.context.log.lastSeq;
		const reply = await message('platformApiKeyApi', { baseUrl: sandbox.url, apiKey: 'tpk_not-a-real-key-zzz' });
		expect(reply).toMatch(/should be the portal's prefix, then 48 hexadecimal characters \(0-9, a-f\), like <prefix>[0-9a-f]{48}, but/);
		expect(reply).not.toContain('not-a-real-key');
		expect(sandbox.context.log.list({ since })).toEqual([]);
	});
});

describe('a Base URL with a query or a fragment fails the Test with the reason, sending nothing', () => {
	const cases: Array<[string, (baseUrl: string) => ICredentialDataDecryptedObject]> = [
		['hostedPbxApi', pbx],
		['wholesaleVoiceApi', (baseUrl) => ({ baseUrl, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456' })],
		['platformApiKeyApi', (baseUrl) => ({ baseUrl, apiKey: sandbox.convai.keys.demo('full-access') })],
	];
	test.each(cases)('%s', async (type, credentials) => {
		const since = sandbox.context.log.lastSeq;
		const base = type === 'hostedPbxApi' ? `${sandbox.url}/api/v1` : sandbox.url;
		expect(await credentialTest(type, credentials(`${base}?x=`))).toEqual({ status: 'Error', message: expect.stringMatching(/contains a query \(text from a \?\)/) });
		expect(await message(type, credentials(`${base}#frag`))).toMatch(/contains a fragment \(text from a #\)/);
		expect(await message(type, credentials(base.replace('http://', 'http://user:pw@')))).toMatch(/contains a user name or password/);
		expect(sandbox.context.log.list({ since })).toEqual([]);
	});
});

describe('a connection that fails says which host and port, and what to check', () => {
	test('a closed port', async () => {
		const port = await closedPort();
		expect(await credentialTest('hostedPbxApi', pbx(`http://127.0.0.1:${port}/api/v1`))).toEqual({
			status: 'Error',
			message: `Could not reach the Hosted PBX API at 127.0.0.1:${port}: nothing accepts connections on that port (connection refused). Check the port in the Base URL, and that the service runs and listens on it. Code: ECONNREFUSED`,
		});
	});

	test('an unknown host', async () => {
		expect(await message('hostedPbxApi', pbx('https://no-such-pbx.invalid/api/v1'))).toMatch(
			/^Could not reach the Hosted PBX API at no-such-pbx\.invalid:443: (no such host name \(DNS found none\)\. Check the spelling of the host in the Base URL\. Code: ENOTFOUND|the host name could not be looked up .*Code: EAI_AGAIN)$/,
		);
	});

	test('a Base URL without a scheme (n8n said only ERR_INVALID_URL)', async () => {
		const hostPort = sandbox.url.replace('http://', '');
		expect(await message('wholesaleVoiceApi', { baseUrl: hostPort, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456' })).toBe(
			`The Base URL of the Wholesale Voice API credential has no scheme: write https://${hostPort} (or http:// for a server without TLS), then the path the API lives under`,
		);
	});

	test.each([
		['self-signed', "the server's TLS certificate is self-signed", 'DEPTH_ZERO_SELF_SIGNED_CERT'],
		['untrusted authority', "the server's TLS certificate comes from an authority n8n does not trust", 'SELF_SIGNED_CERT_IN_CHAIN'],
		['no intermediate', "the server's TLS certificate comes from an authority n8n does not know", 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
		['expired', "the server's TLS certificate has expired", 'CERT_HAS_EXPIRED'],
		['another host', "the server's TLS certificate is for another host name", 'ERR_TLS_CERT_ALTNAME_INVALID'],
	] as Array<[TlsFault, string, string]>)('TLS, %s', async (fault, reason, code) => {
		const server = await startTlsServer(fault);
		// An expired or wrong-host certificate shows only behind an authority n8n trusts.
		const untrust = ['expired', 'another host'].includes(fault) ? trustTestAuthority() : () => undefined;
		try {
			const reply = await message('platformApiKeyApi', { baseUrl: server.url, apiKey: `tpk_${'ab12'.repeat(12)}` });
			expect(reply).toMatch(new RegExp(`^Could not reach the Platform API at ${server.hostPort.replace(/\./g, '\\.')}: ${reason}\\. .+\\. Code: ${code}$`));
		} finally {
			untrust();
			await server.close();
		}
	});

	test('https:// to a port without TLS, and http:// to a TLS port: check the scheme', async () => {
		const plain = await startTestServer();
		const tls = await startTlsServer('no intermediate');
		try {
			const hostPort = plain.url.replace('http://', '');
			expect(await message('hostedPbxApi', pbx(`https://${hostPort}/api/v1`))).toBe(
				`Could not reach the Hosted PBX API at ${hostPort}: the server does not speak TLS on that port (wrong version number). Check the Base URL's scheme: https:// where the server speaks TLS on that port, http:// where it does not. Code: EPROTO`,
			);
			expect(await message('hostedPbxApi', pbx(`http://${tls.hostPort}/api/v1`))).toMatch(/the connection was closed without an answer \(connection reset\)\. Check the Base URL's scheme.*Code: ECONNRESET$/);
		} finally {
			await plain.close();
			await tls.close();
		}
	});

	test('a server that never answers: timed out, within the credential\'s Timeout', async () => {
		const server = createServer(() => undefined);
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
		const started = Date.now();
		try {
			expect(await message('hostedPbxApi', { ...pbx(`http://${hostPort}/api/v1`), timeout: 1 })).toBe(
				`The Hosted PBX API at ${hostPort} did not answer the test request within 1 s (timed out). Check that the Base URL's host and port are the service's`,
			);
			expect(Date.now() - started).toBeLessThan(2000);
		} finally {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});

	test('a redirect is not followed (the credential would go with it): it says where it leads', async () => {
		const server = await startTestServer();
		server.answer(json(301, {}, { Location: 'https://pbx.example.com/api/v1/customers' }));
		try {
			expect(await message('hostedPbxApi', pbx(`${server.url}/api/v1`))).toBe(
				`The Hosted PBX API at ${server.url.replace('http://', '')} answered the test request with a redirect (301) to https://pbx.example.com, which the nodes never follow: use the address it leads to as the Base URL`,
			);
			expect(server.requests).toHaveLength(1);
		} finally {
			await server.close();
		}
	});
});
