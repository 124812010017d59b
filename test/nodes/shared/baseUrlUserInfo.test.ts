/**
 * A Base URL with a user name or password in it (`https://api:secret@host/api/v1`) is refused for
 * every credential: by the transport before any request, and by the credential's Test. The
 * message never repeats the secret part. So is one with a query or a fragment (`…/api/v1?x=`,
 * `…#frag`), which would send every request elsewhere.
 */
import { CredentialTestContext } from 'n8n-core';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { hostedPbxApi, platformApi, wholesaleVoiceApi } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/apis';
import type { ApiDefinition } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { createClient } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { credentialTestOf } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/credentialTest';
import { baseUrlProblem } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/urls';
import { AllCredentialsNode, contexts } from '../../harness/n8n';
import type { TestServer } from '../../harness/testServer';
import { json, scriptedServerForFile } from '../../harness/testServer';

const SECRET = 'Url-S3cret-4kq9';
const KEY = `tpk_${'ab12'.repeat(12)}`;

let server: TestServer;
scriptedServerForFile((started) => (server = started), json(200, { ok: true }));

function credentialsOf(type: string, baseUrl: string): ICredentialDataDecryptedObject {
	const byType: Record<string, ICredentialDataDecryptedObject> = {
		hostedPbxApi: { baseUrl, username: 'api', password: 'pbx-password-1', maxRateLimitWait: 0 },
		wholesaleVoiceApi: { baseUrl, apiUsername: 'ws', apiPassword: 'ws-password-1', accountId: '123456', maxRateLimitWait: 0 },
		platformApiKeyApi: { baseUrl, apiKey: KEY, maxRateLimitWait: 0 },
	};
	return byType[type];
}

const withUserInfo = () => server.url.replace('://', `://api:${SECRET}@`);

const APIS: Array<[string, ApiDefinition, string]> = [
	['Hosted PBX', hostedPbxApi, '/customers'],
	['Wholesale Voice', wholesaleVoiceApi, '/v3/accounts/{ACCOUNT}/type'],
	['Platform', platformApi, '/convai/v1/webhooks'],
];

/** The credential's Test as n8n runs it, in n8n's credential-test context. */
async function credentialTest(api: ApiDefinition, data: ICredentialDataDecryptedObject) {
	const test = credentialTestOf(api);
	return await test.call(new CredentialTestContext({} as never), { id: '1', name: 'c', type: api.credentialType, data });
}

describe.each(APIS)('%s', (_name, api, path) => {
	test('the transport refuses it before sending, without the secret', async () => {
		const { loadOptions } = contexts({ node: new AllCredentialsNode(), parameters: {}, credentials: { [api.credentialType]: credentialsOf(api.credentialType, withUserInfo()) } });
		const client = createClient(loadOptions(), api);
		let error: (Error & { description?: string }) | undefined;
		try {
			await client.request({ method: 'GET', path });
		} catch (caught) {
			error = caught as Error & { description?: string };
		}
		expect(error?.message).toMatch(new RegExp(`^The Base URL of the ${api.label} credential contains a user name or password`));
		expect(error?.description).toMatch(/Nothing was sent/);
		expect(JSON.stringify({ message: error?.message, description: error?.description })).not.toContain(SECRET);
		expect(server.requests).toHaveLength(0);
		await expect(client.environment()).rejects.toThrow(/contains a user name or password/);
	});

	test("the credential's Test refuses it without the secret, sending nothing; a plain Base URL passes", async () => {
		const refused = await credentialTest(api, credentialsOf(api.credentialType, `${withUserInfo()}/api`));
		expect(refused.message).toMatch(/^The Base URL of the .+ credential contains a user name or password/);
		expect(refused.message).not.toContain(SECRET);
		expect(server.requests).toHaveLength(0);
		expect(await credentialTest(api, credentialsOf(api.credentialType, server.url))).toMatchObject({ status: 'OK' });
	});
});

test('only the host part counts: an @ in the path or query is not a password', () => {
	for (const url of ['https://api:pw@pbx.example.com/api/v1', ' https://user@pbx.example.com', 'https:\\\\u:p@pbx.example.com/api']) {
		expect(baseUrlProblem('Hosted PBX API', url)).toMatch(/contains a user name or password/);
	}
	for (const url of ['https://pbx.example.com/api/v1', 'https://pbx.example.com/api/@v1', '', undefined]) {
		expect(baseUrlProblem('Hosted PBX API', url)).toBeUndefined();
	}
	expect(baseUrlProblem('Hosted PBX API', 'http://127.0.0.1:9/x?a=b@c')).toMatch(/contains a query/);
});

describe.each(APIS)('%s: a Base URL with a query or a fragment', (_name, api, path) => {
	test.each([['a query', '?x='], ['a fragment', '#frag'], ['an empty query', '?']])('with %s: the transport refuses it before sending', async (what, tail) => {
		const { loadOptions } = contexts({ node: new AllCredentialsNode(), parameters: {}, credentials: { [api.credentialType]: credentialsOf(api.credentialType, `${server.url}/base${tail}`) } });
		const error = await createClient(loadOptions(), api)
			.request({ method: 'GET', path })
			.then(() => undefined, (caught: Error & { description?: string }) => caught);
		expect(error?.message).toBe(`The Base URL of the ${api.label} credential contains ${what === 'a fragment' ? 'a fragment (text from a #)' : 'a query (text from a ?)'}: every request's path would come after it. Remove it; the Base URL ends with the path the API lives under`);
		expect(error?.description).toMatch(/Nothing was sent/);
		expect(server.requests).toHaveLength(0);
	});

	test('the credential\'s Test refuses it, sending nothing', async () => {
		for (const tail of ['?x=', '/#frag']) {
			expect((await credentialTest(api, credentialsOf(api.credentialType, `${server.url}/api${tail}`))).message).toMatch(/Base URL of the .+ credential contains a (query|fragment)/);
		}
		expect(server.requests).toHaveLength(0);
	});
});
