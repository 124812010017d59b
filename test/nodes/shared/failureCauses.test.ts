/**
 * Every error a request ends in declares why (`failure` on n8n 2.40's NodeApiError): n8n's durable
 * poll scheduler backs off by it. docs/failures.md says what each cause means for a trigger.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { HostedPbx } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { hostedPbxApi, wholesaleVoiceApi } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/apis';
import type { ApiDefinition } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { createClient } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { failureOfStatus } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/failures';
import { AllCredentialsNode, contexts, runNode } from '../../harness/n8n';
import type { TestServer } from '../../harness/testServer';
import { json, scriptedServerForFile } from '../../harness/testServer';

let server: TestServer;
scriptedServerForFile((started) => (server = started), json(200, { ok: true }));

function clientFor(api: ApiDefinition, overrides: ICredentialDataDecryptedObject = {}) {
	const byType: Record<string, ICredentialDataDecryptedObject> = {
		hostedPbxApi: { baseUrl: `${server.url}/api/v1`, username: 'u', password: 'p-123456789', maxRateLimitWait: 5 },
		wholesaleVoiceApi: { baseUrl: server.url, apiUsername: 'u', apiPassword: 'p-123456789', accountId: '123456', maxRateLimitWait: 5 },
	};
	const { loadOptions } = contexts({ node: new AllCredentialsNode(), parameters: {}, credentials: { [api.credentialType]: { ...byType[api.credentialType], ...overrides } } });
	return createClient(loadOptions(), api, { sleep: async () => undefined });
}

/** The `failure` of the error a request ends in. */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
	try {
		await promise;
	} catch (error) {
		return (error as { failure?: unknown }).failure;
	}
	throw new Error('expected a failure');
}

const getCustomers = { method: 'GET' as const, path: '/customers' };

describe('the cause of each status', () => {
	test.each([
		[401, 'credential-invalid'],
		[403, 'credential-invalid'],
		[404, 'configuration-invalid'],
		[400, 'configuration-invalid'],
		[409, 'configuration-invalid'],
		[408, 'temporarily-unavailable'],
		[500, 'temporarily-unavailable'],
		[503, 'temporarily-unavailable'],
	])('%i: %s', (status, cause) => {
		expect(failureOfStatus(status)).toEqual({ cause });
	});

	test('429 carries the wait and when it ends, where the API said', () => {
		expect(failureOfStatus(429, 30_000, 1_000_000)).toEqual({ cause: 'rate-limited', retryAfterMs: 30_000, resetsAtEpochMs: 1_030_000 });
		expect(failureOfStatus(429)).toEqual({ cause: 'rate-limited' });
		expect(failureOfStatus(429, 1e308)).toEqual({ cause: 'rate-limited' });
	});
});

describe('every error of the transport declares its cause', () => {
	test('429 past the longest wait: rate-limited, with the wait the API asked for', async () => {
		server.answer(json(429, {}, { 'Retry-After': '1800' }));
		const before = Date.now();
		const failure = (await failureOf(clientFor(hostedPbxApi).request(getCustomers))) as { cause: string; retryAfterMs: number; resetsAtEpochMs: number };
		expect(failure).toMatchObject({ cause: 'rate-limited', retryAfterMs: 1_800_000 });
		expect(failure.resetsAtEpochMs).toBeGreaterThanOrEqual(before + 1_800_000);
		expect(failure.resetsAtEpochMs).toBeLessThanOrEqual(Date.now() + 1_800_000);
	});

	test.each([
		[401, 'credential-invalid'],
		[403, 'credential-invalid'],
		[404, 'configuration-invalid'],
		[400, 'configuration-invalid'],
		[500, 'temporarily-unavailable'],
		[503, 'temporarily-unavailable'],
	])('%i: %s', async (status, cause) => {
		server.answer(json(status, { message: 'no' }));
		expect(await failureOf(clientFor(hostedPbxApi).request({ method: 'GET', path: '/customers/{customerId}', pathParams: { customerId: '77' } }))).toEqual({ cause });
	});

	test('an e911 failure worth a retry that outlasts its retries: temporarily unavailable, whatever its status', async () => {
		server.answer(json(400, { success: false, errors: [{ code: 'e911.upstream', field: null, message: 'later' }] }));
		expect(await failureOf(clientFor(wholesaleVoiceApi).request({ method: 'GET', path: '/v3/numbers/{ACCOUNT}/allocated/12025550123/e911' }))).toEqual({ cause: 'temporarily-unavailable' });
		expect(server.requests).toHaveLength(4);
	});

	test('a 200 that says it failed is the request refused', async () => {
		server.answer(json(200, { success: false, errors: ['routing is mandatory'] }));
		expect(await failureOf(clientFor(wholesaleVoiceApi).request({ method: 'GET', path: '/v3/accounts/{ACCOUNT}/type' }))).toEqual({ cause: 'configuration-invalid' });
	});

	test('an answer that is not JSON, or empty: temporarily unavailable', async () => {
		server.answer((_req, res) => res.end('<html>maintenance</html>'));
		expect(await failureOf(clientFor(hostedPbxApi).request(getCustomers))).toEqual({ cause: 'temporarily-unavailable' });
		server.answer((_req, res) => res.end(''));
		expect(await failureOf(clientFor(hostedPbxApi).request(getCustomers))).toEqual({ cause: 'temporarily-unavailable' });
	});

	test('an answer over the download limit: narrow the request', async () => {
		server.answer((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(200 * 1024 * 1024) });
			res.write('[');
		});
		expect(await failureOf(clientFor(hostedPbxApi).request(getCustomers))).toEqual({ cause: 'configuration-invalid' });
	});

	test('a timeout and a closed port: temporarily unavailable', async () => {
		server.answer(() => undefined);
		expect(await failureOf(clientFor(hostedPbxApi, { timeout: 1 }).request(getCustomers))).toEqual({ cause: 'temporarily-unavailable' });
		expect(await failureOf(clientFor(hostedPbxApi, { baseUrl: 'http://127.0.0.1:1/api/v1' }).request(getCustomers))).toEqual({ cause: 'temporarily-unavailable' });
	});

	test('refused before sending: a credential that cannot work, a parameter that cannot be sent', async () => {
		expect(await failureOf(clientFor(wholesaleVoiceApi, { accountId: 'abc' }).request(getCustomers))).toEqual({ cause: 'credential-invalid' });
		expect(await failureOf(clientFor(hostedPbxApi).request({ method: 'GET', path: '/customers/{customerId}', pathParams: { customerId: '..' } }))).toEqual({ cause: 'configuration-invalid' });
		expect(server.requests).toHaveLength(0);
	});

	test("the cause survives n8n's execution of a node", async () => {
		server.answer(json(404, { message: 'Customer not found' }));
		const run = await runNode({
			node: new HostedPbx(),
			parameters: { resource: 'customer', operation: 'get', customerId: { __rl: true, mode: 'id', value: '4040' } },
			credentials: { hostedPbxApi: { baseUrl: `${server.url}/api/v1`, username: 'u', password: 'p-123456789' } },
		});
		expect(run.error?.message).toMatch(/\(404\)/);
		expect((run.error as { failure?: unknown }).failure).toEqual({ cause: 'configuration-invalid' });
	});
});
