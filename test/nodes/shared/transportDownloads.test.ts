/**
 * Files and text asked for may come back as the API's JSON failure envelope with a 200
 * (`{success: false, errors: [...]}` for an invoice PDF): the transport raises the same error it
 * raises for that envelope as JSON, never hands it on as the file. Anything else stays the file,
 * JSON report files and a listed status's body included.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { hostedPbxApi, wholesaleVoiceApi } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/apis';
import type { ApiDefinition } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { createClient } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { WholesaleVoice } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { AllCredentialsNode, contexts, runNode } from '../../harness/n8n';
import type { ReceivedRequest, TestServer } from '../../harness/testServer';
import { json, startTestServer } from '../../harness/testServer';
import type { ServerResponse } from 'node:http';

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(async () => await server.close());
beforeEach(() => {
	server.requests.length = 0;
});

const WHOLESALE = { baseUrl: '', apiUsername: 'ws-user', apiPassword: 'canary-Pa55word-7f3e', accountId: '123456', maxRateLimitWait: 0 };

function clientFor(api: ApiDefinition, overrides: ICredentialDataDecryptedObject = {}) {
	const credentials: Record<string, ICredentialDataDecryptedObject> = {
		wholesaleVoiceApi: { ...WHOLESALE, baseUrl: server.url, ...overrides },
		hostedPbxApi: { baseUrl: `${server.url}/api/v1`, username: 'u', password: 'canary-Pa55word-7f3e', maxRateLimitWait: 0 },
	};
	const { loadOptions } = contexts({ node: new AllCredentialsNode(), parameters: {}, credentials: { [api.credentialType]: credentials[api.credentialType] } });
	return createClient(loadOptions(), api);
}

function raw(status: number, contentType: string, body: string | Buffer) {
	return (_req: ReceivedRequest, res: ServerResponse) => {
		res.writeHead(status, { 'Content-Type': contentType });
		res.end(body);
	};
}

async function failureOf(promise: Promise<unknown>) {
	try {
		await promise;
	} catch (error) {
		return error as Error & { description?: string; httpCode?: string };
	}
	throw new Error('expected a failure');
}

const ENVELOPE = JSON.stringify({ success: false, errors: ['No such invoice'] });

describe('a failure envelope where a file was asked for', () => {
	test.each([
		['application/json', ENVELOPE],
		['application/pdf', ENVELOPE],
		['text/csv', `\uFEFF \r\n${ENVELOPE}`],
	])('200 %s holding {success: false} is the API error, for binary and text answers', async (contentType, body) => {
		for (const responseType of ['binary', 'text'] as const) {
			server.answer(raw(200, contentType, body));
			const error = await failureOf(clientFor(wholesaleVoiceApi).request({ method: 'GET', path: '/v3/accounts/{ACCOUNT}/credit/invoices/INV1.pdf', responseType }));
			expect(error.message).toBe('The Wholesale Voice API refused the request (200): No such invoice');
			expect(error.httpCode).toBe('200');
		}
	});

	test('Invoice > Download gives the error, not a "PDF" holding it', async () => {
		server.answer(json(200, { success: false, errors: ['No such invoice'] }));
		const run = await runNode({
			node: new WholesaleVoice(),
			parameters: { resource: 'invoice', operation: 'download', invoiceNumber: 'INV1', binaryPropertyName: 'data' },
			credentials: { wholesaleVoiceApi: { ...WHOLESALE, baseUrl: server.url } },
		});
		expect(run.error?.message).toMatch(/refused the request \(200\): No such invoice/);
		expect(run.items).toEqual([]);
	});
});

describe('files that are not a failure envelope stay files', () => {
	test.each([
		['a JSON report file', 'application/json', JSON.stringify({ rows: [{ success: false, cli: '441632960000' }] })],
		['a JSON object saying success', 'application/json', JSON.stringify({ success: true, data: [] })],
		['a CSV', 'text/csv', 'prefix,rate\r\n44,0.01\r\n'],
		['text starting with { that is not JSON', 'text/plain', '{not json, success: false'],
		['a PDF', 'application/pdf', '%PDF-1.4\n%\u00e2\u00e3\n'],
	])('%s', async (_name, contentType, body) => {
		server.answer(raw(200, contentType, body));
		const response = await clientFor(wholesaleVoiceApi).request<Buffer>({ method: 'GET', path: '/v3/files/{ACCOUNT}/abc', responseType: 'binary', accept: '*/*' });
		expect(response.body.toString('utf8')).toBe(body);
	});

	test('a status the call lists as an answer (a report file gone: 404) keeps its envelope for the call', async () => {
		server.answer(json(404, { success: false, errors: ['File not found'] }));
		const response = await clientFor(wholesaleVoiceApi).request<Buffer>({ method: 'GET', path: '/v3/files/{ACCOUNT}/abc', okStatuses: [204, 404], responseType: 'binary', accept: '*/*' });
		expect(response.status).toBe(404);
	});

	test('an API without failure envelopes (Hosted PBX) reads {success: false} in a CSV as the file', async () => {
		server.answer(raw(200, 'text/csv', ENVELOPE));
		const response = await clientFor(hostedPbxApi).request<Buffer>({ method: 'GET', path: '/customers/me/calls', responseType: 'binary', accept: 'text/csv' });
		expect(response.body.toString('utf8')).toBe(ENVELOPE);
	});
});
