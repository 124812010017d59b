/**
 * The credentials' Test buttons explain themselves (issue 20). Each credential's test request is
 * sent to the sandbox as n8n's CredentialsTester sends it (packages/cli/src/services/
 * credentials-tester.service.ts, n8n 2.40 and 1.123 alike): the credential's `authenticate`
 * applied, `baseURL` and `url` resolved from the credential's values; an answer outside 2xx is
 * matched against the test's `responseCode` rules, whose message the dialog then shows (without a
 * rule, only the status text). A connection that fails shows n8n's own error code (ECONNREFUSED,
 * ENOTFOUND): no rule applies to it, docs/*.md list what each means.
 */
import type { ICredentialDataDecryptedObject, ICredentialType, IHttpRequestOptions } from 'n8n-workflow';

import { HostedPbxApi } from '../../credentials/HostedPbxApi.credentials';
import { PlatformApiKeyApi } from '../../credentials/PlatformApiKeyApi.credentials';
import { WholesaleVoiceApi } from '../../credentials/WholesaleVoiceApi.credentials';
import { startSandbox, type Sandbox } from '../../sandbox';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());

/** The two expressions the tests use, resolved as n8n resolves them for these values. */
function resolve(template: string, credentials: ICredentialDataDecryptedObject): string {
	return template
		.replace(/^=/, '')
		.replace('{{ String($credentials.baseUrl).trim().replace(/\\/+$/, "") }}', String(credentials.baseUrl).trim().replace(/\/+$/, ''))
		.replace('{{ String($credentials.accountId).trim() }}', String(credentials.accountId).trim());
}

/** What the credential dialog says: "OK", a rule's message, or the status text. */
async function credentialTest(type: ICredentialType, credentials: ICredentialDataDecryptedObject): Promise<string> {
	const test = type.test!;
	const request = test.request as IHttpRequestOptions & { baseURL: string; url: string };
	const options = await (type.authenticate as (c: ICredentialDataDecryptedObject, o: IHttpRequestOptions) => Promise<IHttpRequestOptions>)(credentials, {
		url: '',
		headers: {},
	});
	const url = new URL(`${resolve(request.baseURL, credentials)}${resolve(request.url, credentials)}`);
	for (const [key, value] of Object.entries(request.qs ?? {})) url.searchParams.set(key, String(value));
	const response = await fetch(url, { headers: options.headers as Record<string, string> });
	await response.arrayBuffer();
	if (response.ok) return 'OK';
	const rule = (test.rules ?? []).find((r) => r.type === 'responseCode' && r.properties.value === response.status);
	return rule ? (rule.properties as { message: string }).message : response.statusText || `Received HTTP status code: ${response.status}`;
}

describe('Hosted PBX API', () => {
	const good = () => ({ baseUrl: `${sandbox.url}/api/v1/`, username: 'acme.admin', password: 'acme-admin-secret' });

	test('right credentials pass', async () => {
		expect(await credentialTest(new HostedPbxApi(), good())).toBe('OK');
	});
	test('a wrong password says so', async () => {
		expect(await credentialTest(new HostedPbxApi(), { ...good(), password: 'wrong' })).toMatch(/^Wrong username or password: .*\(401\)/);
	});
	test('a Base URL without the API version names that mistake', async () => {
		expect(await credentialTest(new HostedPbxApi(), { ...good(), baseUrl: sandbox.url })).toMatch(/\(404\): it must end with the API version, as in https:\/\/pbx\.example\.com\/api\/v1/);
	});
});

describe('Wholesale Voice API', () => {
	const good = () => ({ baseUrl: sandbox.url, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456' });

	test('right credentials pass', async () => {
		expect(await credentialTest(new WholesaleVoiceApi(), good())).toBe('OK');
	});
	test('a wrong password says so', async () => {
		expect(await credentialTest(new WholesaleVoiceApi(), { ...good(), apiPassword: 'wrong' })).toMatch(/^Wrong API username or password: .*\(401\)/);
	});
	test('a wrong account id names the Account ID', async () => {
		expect(await credentialTest(new WholesaleVoiceApi(), { ...good(), accountId: '999999' })).toMatch(/Account ID/);
	});
	test('a Base URL with the version in it names that mistake', async () => {
		expect(await credentialTest(new WholesaleVoiceApi(), { ...good(), baseUrl: `${sandbox.url}/v3` })).toMatch(/\(404\).*without \/v3/);
	});
});

describe('Voice Agent and Conversation Intelligence API', () => {
	const key = (scopes: string[]) => {
		return sandbox.convai.keys.create(`test-${scopes.join('-')}`, scopes).key;
	};

	test('a key with the scopes passes', async () => {
		expect(await credentialTest(new PlatformApiKeyApi(), { baseUrl: sandbox.url, apiKey: sandbox.convai.keys.demo('full-access') })).toBe('OK');
	});
	test('a revoked key says so', async () => {
		const revoked = key(['convai:read']);
		sandbox.convai.keys.revoke(revoked);
		expect(await credentialTest(new PlatformApiKeyApi(), { baseUrl: sandbox.url, apiKey: revoked })).toMatch(/^The API key was refused \(401\): it was revoked or mistyped/);
	});
	test('a key without the scope names the scope', async () => {
		expect(await credentialTest(new PlatformApiKeyApi(), { baseUrl: sandbox.url, apiKey: key(['intelligence:read']) })).toMatch(/lacks a scope \(403\).*convai:read/);
	});
	test('a Base URL with the service path in it names that mistake', async () => {
		expect(await credentialTest(new PlatformApiKeyApi(), { baseUrl: `${sandbox.url}/convai/v1`, apiKey: sandbox.convai.keys.demo('full-access') })).toMatch(/\(404\).*without \/convai\/v1/);
	});
});

describe('a Base URL with a query or a fragment fails the Test with the reason, sending nothing', () => {
	const cases: Array<[string, ICredentialType, (baseUrl: string) => ICredentialDataDecryptedObject]> = [
		['Hosted PBX API', new HostedPbxApi(), (baseUrl) => ({ baseUrl, username: 'acme.admin', password: 'acme-admin-secret' })],
		['Wholesale Voice API', new WholesaleVoiceApi(), (baseUrl) => ({ baseUrl, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456' })],
		['Platform API Key', new PlatformApiKeyApi(), (baseUrl) => ({ baseUrl, apiKey: sandbox.convai.keys.demo('full-access') })],
	];
	test.each(cases)('%s', async (_name, type, credentials) => {
		const since = sandbox.context.log.lastSeq;
		const base = type instanceof HostedPbxApi ? `${sandbox.url}/api/v1` : sandbox.url;
		await expect(credentialTest(type, credentials(`${base}?x=`))).rejects.toThrow(/contains a query \(text from a \?\)/);
		await expect(credentialTest(type, credentials(`${base}#frag`))).rejects.toThrow(/contains a fragment \(text from a #\)/);
		expect(sandbox.context.log.list({ since })).toEqual([]);
	});
});
