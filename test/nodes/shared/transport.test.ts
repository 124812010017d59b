import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { hostedPbxApi, platformApi, wholesaleVoiceApi } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/apis';
import type { ApiDefinition } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { createClient } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { rateLimitWaitMs } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/failures';
import { rebase } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/urls';
import { AllCredentialsNode, contexts } from '../../harness/n8n';
import type { TestServer } from '../../harness/testServer';
import { json, scriptedServerForFile } from '../../harness/testServer';

const CANARY = 'canary-Pa55word-7f3e';
const KEY = `tpk_${'ab12'.repeat(12)}`;

let server: TestServer;
scriptedServerForFile((started) => (server = started), json(200, { ok: true }));

function credentialsFor(api: ApiDefinition, overrides: ICredentialDataDecryptedObject = {}) {
	const base = { baseUrl: `${server.url}/base///`, maxRateLimitWait: 5 };
	const byType: Record<string, ICredentialDataDecryptedObject> = {
		hostedPbxApi: { ...base, username: 'api-user', password: CANARY },
		wholesaleVoiceApi: { ...base, apiUsername: 'ws-user', apiPassword: CANARY, accountId: '123456' },
		platformApiKeyApi: { ...base, apiKey: KEY },
	};
	return { [api.credentialType]: { ...byType[api.credentialType], ...overrides } };
}

function clientFor(api: ApiDefinition, overrides: ICredentialDataDecryptedObject = {}, sleeps: number[] = []) {
	const { loadOptions } = contexts({
		node: new AllCredentialsNode(),
		parameters: {},
		credentials: credentialsFor(api, overrides),
	});
	return createClient(loadOptions(), api, {
		sleep: async (ms) => {
			sleeps.push(ms);
		},
	});
}

async function failureOf(promise: Promise<unknown>) {
	try {
		await promise;
	} catch (error) {
		return error as Error & { description?: string; context: Record<string, unknown>; httpCode?: string };
	}
	throw new Error('expected a failure');
}

function expectNoSecret(text: unknown) {
	const serialised = JSON.stringify(text);
	expect(serialised).not.toContain(CANARY);
	expect(serialised).not.toContain(Buffer.from(CANARY).toString('base64'));
	expect(serialised).not.toContain(Buffer.from(`api-user:${CANARY}`).toString('base64'));
	expect(serialised).not.toContain(KEY);
}

describe('authentication and URLs', () => {
	test('Hosted PBX: Basic header, base URL trailing slashes removed', async () => {
		await clientFor(hostedPbxApi).request({ method: 'GET', path: '/customers', qs: { pageSize: 1 } });
		const [req] = server.requests;
		expect(req.url).toBe('/base/customers?pageSize=1');
		expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`api-user:${CANARY}`).toString('base64')}`);
		expect(req.headers.accept).toBe('application/json');
	});

	test('Wholesale: Basic header with the API user, {ACCOUNT} filled from the credential', async () => {
		await clientFor(wholesaleVoiceApi).request({ method: 'PUT', path: '/v3/accounts/{ACCOUNT}/prepay/balance/alert', body: { alert_balance: 5 } });
		const [req] = server.requests;
		expect(req.url).toBe('/base/v3/accounts/123456/prepay/balance/alert');
		expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`ws-user:${CANARY}`).toString('base64')}`);
		expect(req.headers['content-type']).toBe('application/json');
		expect(JSON.parse(req.body)).toEqual({ alert_balance: 5 });
	});

	test('Platform: Bearer key', async () => {
		await clientFor(platformApi).request({ method: 'GET', path: '/convai/v1/webhooks' });
		expect(server.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
	});

	test('an account id that is not digits fails before sending', async () => {
		const error = await failureOf(clientFor(wholesaleVoiceApi, { accountId: '12a456' }).request({ method: 'GET', path: '/v3/accounts/{ACCOUNT}/type' }));
		expect(error.message).toMatch(/Account ID must be digits only/);
		expect(server.requests).toHaveLength(0);
	});

	test('a key without its 48 hex characters fails before sending and is not repeated', async () => {
		const bad = 'tpk_not-a-real-key-zzz';
		const error = await failureOf(clientFor(platformApi, { apiKey: bad }).request({ method: 'GET', path: '/convai/v1/webhooks' }));
		expect(error.message).toMatch(/48 hexadecimal characters/);
		expect(JSON.stringify(error)).not.toContain(bad);
		expect(server.requests).toHaveLength(0);
	});

	test('a nextPage link on another host is re-based onto the credential origin', () => {
		expect(rebase('https://internal.example:8443/api/v1/customers?page=2', 'http://127.0.0.1:9/api/v1')).toBe(
			'http://127.0.0.1:9/api/v1/customers?page=2',
		);
	});

	test('a link cannot choose the port, a user name or another scheme: only its path and query are kept', () => {
		const base = 'https://pbx.example.com/api/v1';
		expect(rebase('https://evil.example:8443/api/v1/x?page=2', base)).toBe('https://pbx.example.com/api/v1/x?page=2');
		expect(rebase('https://u:p@evil.example/api/v1/x', base)).toBe('https://pbx.example.com/api/v1/x');
		expect(rebase('/api/v1/x#frag', base)).toBe('https://pbx.example.com/api/v1/x');
		expect(() => rebase('mailto:someone@example.com', base)).toThrow(/not a web address/);
		expect(() => rebase('file:///etc/passwd', base)).toThrow(/not a web address/);
	});
});

describe('platform errors', () => {
	test('PBX 400 keeps the field and message of the body', async () => {
		server.answer(json(400, { status: 400, message: 'Validation failed', errors: [{ field: 'speedDial', message: 'must be between 1 and 9999' }] }));
		const error = await failureOf(clientFor(hostedPbxApi).request({ method: 'POST', path: '/customers/me/phonebook', body: {} }));
		expect(error.message).toBe('The Hosted PBX API refused the request as invalid (400): speedDial: must be between 1 and 9999');
		expect(error.httpCode).toBe('400');
	});

	test('PBX 401 says what to check', async () => {
		server.answer(json(401, { message: 'Authentication required' }));
		const error = await failureOf(clientFor(hostedPbxApi).request({ method: 'GET', path: '/customers' }));
		expect(error.message).toMatch(/refused the credentials \(401\)/);
		expect(error.description).toMatch(/username and password/);
	});

	test('wholesale {success:false, errors:[...]} joins the platform messages', async () => {
		server.answer(json(200 + 200, { success: false, errors: ['routing is mandatory', 'invalid rule name'] }));
		const error = await failureOf(clientFor(wholesaleVoiceApi).request({ method: 'PUT', path: '/v3/numbers/{ACCOUNT}/allocated/441632960000/config', body: {} }));
		expect(error.message).toBe('The Wholesale Voice API refused the request as invalid (400): routing is mandatory; invalid rule name');
	});

	test('e911 errors keep code and field', async () => {
		server.answer(
			json(400, {
				success: false,
				http_code: 400,
				errors: [{ code: 'e911.field_invalid', field: 'streetInfo', message: '# is not allowed' }],
				data: {},
			}),
		);
		const error = await failureOf(clientFor(wholesaleVoiceApi).request({ method: 'PUT', path: '/v3/numbers/{ACCOUNT}/allocated/12025550123/e911', body: {} }));
		expect(error.message).toContain('e911.field_invalid (streetInfo): # is not allowed');
		expect(error.context.code).toBe('e911.field_invalid');
		expect(error.context.field).toBe('streetInfo');
	});

	test('e911.partially_applied is not retried and says to read the state first', async () => {
		server.answer(json(500, { success: false, http_code: 500, errors: [{ code: 'e911.partially_applied', field: null, message: 'partial' }] }));
		const error = await failureOf(clientFor(wholesaleVoiceApi).request({ method: 'PUT', path: '/v3/numbers/{ACCOUNT}/allocated/12025550123/e911', body: {} }));
		expect(server.requests).toHaveLength(1);
		expect(error.context.code).toBe('e911.partially_applied');
		expect(error.description).toMatch(/Do not retry it blindly/);
	});

	test('e911.retry is retried within the budget', async () => {
		const sleeps: number[] = [];
		server.answer(
			json(503, { success: false, http_code: 503, errors: [{ code: 'e911.retry', field: null, message: 'later' }] }),
			json(200, { success: true, data: { configured: true } }),
		);
		const response = await clientFor(wholesaleVoiceApi, {}, sleeps).request({ method: 'GET', path: '/v3/numbers/{ACCOUNT}/allocated/12025550123/e911' });
		expect(response.body).toEqual({ success: true, data: { configured: true } });
		expect(server.requests).toHaveLength(2);
		expect(sleeps).toEqual([1000]);
	});

	test('platform 403 names the missing scope', async () => {
		server.answer(json(403, { detail: 'forbidden' }));
		const error = await failureOf(clientFor(platformApi).request({ method: 'POST', path: '/intelligence/v1/configurations/x/upgrade-operators', body: { all: true } }));
		expect(error.message).toMatch(/^The API key lacks the scope intelligence:write \(403\)/);
	});

	test('a body that is not JSON is reported, not swallowed', async () => {
		server.answer((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'text/html' });
			res.end('<html>maintenance</html>');
		});
		const error = await failureOf(clientFor(hostedPbxApi).request({ method: 'GET', path: '/customers' }));
		expect(error.message).toMatch(/text\/html that is not JSON: <html>maintenance/);
	});
});

describe('rate limits', () => {
	test('429 with Retry-After waits and retries', async () => {
		const sleeps: number[] = [];
		server.answer(json(429, { message: 'slow down' }, { 'Retry-After': '2' }), json(200, { items: [] }));
		await clientFor(hostedPbxApi, {}, sleeps).request({ method: 'GET', path: '/customers' });
		expect(sleeps).toEqual([2000]);
		expect(server.requests).toHaveLength(2);
	});

	test('429 with X-RateLimit-Reset (seconds until reset) waits that long', async () => {
		const sleeps: number[] = [];
		server.answer(json(429, {}, { 'X-RateLimit-Reset': '3', 'X-RateLimit-Limit': '1200' }), json(200, {}));
		await clientFor(hostedPbxApi, {}, sleeps).request({ method: 'GET', path: '/customers' });
		expect(sleeps).toEqual([3000]);
	});

	test('a wait longer than the credential allows fails at once with when to retry', async () => {
		const sleeps: number[] = [];
		server.answer(json(429, {}, { 'X-RateLimit-Reset': '1800', 'X-RateLimit-Limit': '1200' }));
		const error = await failureOf(clientFor(hostedPbxApi, {}, sleeps).request({ method: 'GET', path: '/customers' }));
		expect(sleeps).toEqual([]);
		expect(server.requests).toHaveLength(1);
		expect(error.message).toMatch(/used up \(429\)\. Try again in 1800 s/);
		expect(error.description).toMatch(/1200 requests per window/);
	});

	test('gives up after the retry budget', async () => {
		const sleeps: number[] = [];
		server.answer(json(429, {}, { 'Retry-After': '1' }));
		const error = await failureOf(clientFor(hostedPbxApi, {}, sleeps).request({ method: 'GET', path: '/customers' }));
		expect(sleeps).toEqual([1000, 1000, 1000]);
		expect(server.requests).toHaveLength(4);
		expect(error.httpCode).toBe('429');
	});

	test('a wait no date can hold is an error that says so, not a RangeError', async () => {
		for (const headers of [{ 'Retry-After': '1e308' }, { 'Retry-After': '10000000000000' }, { 'X-RateLimit-Reset': '1e20' }] as Array<Record<string, string>>) {
			server.answer(json(429, {}, headers));
			const error = await failureOf(clientFor(hostedPbxApi).request({ method: 'GET', path: '/customers' }));
			expect(error.message).toMatch(/used up \(429\)\. The API asked for a wait longer than any date; try again later/);
		}
	});

	test('Retry-After as an HTTP date, and epoch resets', () => {
		const now = Date.parse('2026-11-22T10:00:00Z');
		expect(rateLimitWaitMs({ 'retry-after': 'Sun, 22 Nov 2026 10:00:30 GMT' }, now)).toBe(30_000);
		expect(rateLimitWaitMs({ 'x-ratelimit-reset': String(now / 1000 + 12) }, now)).toBe(12_000);
		expect(rateLimitWaitMs({}, now)).toBeUndefined();
	});
});

describe('secrets never leak', () => {
	test('a server that echoes the password and the Authorization header', async () => {
		server.answer((req, res) => {
			res.writeHead(400, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify({ message: `bad password ${CANARY} in ${req.headers.authorization}` }));
		});
		const error = await failureOf(clientFor(hostedPbxApi).request({ method: 'GET', path: '/customers' }));
		expect(error.message).toContain('***');
		expectNoSecret({ message: error.message, description: error.description, context: error.context });
	});

	test('a server that echoes the Authorization header in a rate-limit header or a content type', async () => {
		server.answer((req, res) => {
			res.writeHead(429, { 'Content-Type': 'application/json', 'X-RateLimit-Limit': String(req.headers.authorization), 'Retry-After': '9999' });
			res.end('{}');
		});
		const limited = await failureOf(clientFor(hostedPbxApi).request({ method: 'GET', path: '/customers' }));
		expect(limited.description).toMatch(/The limit is not stated requests per window/);
		expectNoSecret({ message: limited.message, description: limited.description, context: limited.context });
		server.answer((req, res) => {
			res.writeHead(200, { 'Content-Type': `text/html; echo=${CANARY}; auth=${String(req.headers.authorization)}` });
			res.end('<html>hello</html>');
		});
		const html = await failureOf(clientFor(hostedPbxApi).request({ method: 'GET', path: '/customers' }));
		expect(html.message).toMatch(/that is not JSON/);
		expectNoSecret({ message: html.message, description: html.description, context: html.context });
	});

	test('a server that cannot be reached', async () => {
		const error = await failureOf(
			clientFor(hostedPbxApi, { baseUrl: 'http://127.0.0.1:9/api/v1' }).request({ method: 'GET', path: '/customers' }),
		);
		expect(error.message).toBe('Could not reach the Hosted PBX API at 127.0.0.1:9 for GET /api/v1/customers: nothing accepts connections on that port (connection refused)');
		expect(error.description).toMatch(/Code: ECONNREFUSED/);
		expectNoSecret({ message: error.message, description: error.description, context: error.context });
	});
});
