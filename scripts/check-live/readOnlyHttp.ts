/**
 * The check's only way to the network: GET and HEAD, and nothing else, refused before a byte is sent.
 * It stands in for n8n's request helper under the package's own transport (`createClient`), so the
 * check reads the platform exactly as the nodes do: their path checks, 429 waits, size bounds, error
 * texts and redaction.
 */
import http from 'node:http';
import https from 'node:https';

import type { ICredentialDataDecryptedObject, IDataObject, IHttpRequestOptions, INode } from 'n8n-workflow';

import type { ApiDefinition, RequestContext } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import type { RawResponse } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/body';

export const READ_METHODS = ['GET', 'HEAD'];

/** A request the check will not send: anything but a read. */
export class NotARead extends Error {
	constructor(method: string, url: string) {
		super(`check-live sends only ${READ_METHODS.join(' and ')} requests: ${method} ${new URL(url).pathname} was refused before sending`);
	}
}

function withQuery(url: string, qs: IDataObject | undefined): string {
	const target = new URL(url);
	for (const [name, value] of Object.entries(qs ?? {})) {
		if (value === undefined || value === null) continue;
		if (Array.isArray(value)) for (const each of value) target.searchParams.append(`${name}[]`, String(each));
		else target.searchParams.append(name, String(value));
	}
	return target.toString();
}

/** Sends one read (redirects are never followed, as the nodes do), its body handed over unread. */
export async function readOnlyRequest(options: IHttpRequestOptions, authorization?: string): Promise<RawResponse> {
	const method = String(options.method ?? 'GET').toUpperCase();
	const url = withQuery(options.url, options.qs);
	if (!READ_METHODS.includes(method)) throw new NotARead(method, url);
	const headers: Record<string, string> = Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name, String(value)]));
	if (authorization) headers.Authorization = authorization;
	const send = url.startsWith('https:') ? https.request : http.request;
	return await new Promise<RawResponse>((resolve, reject) => {
		const request = send(url, { method, headers, signal: options.abortSignal as AbortSignal | undefined, timeout: options.timeout }, (response) => {
			resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: response });
		});
		request.on('timeout', () => request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
		request.on('error', reject);
		request.end();
	});
}

/** The node the transport names in its errors. */
const CHECK_NODE: INode = { id: 'check-live', name: 'check-live', type: 'check-live', typeVersion: 1, position: [0, 0], parameters: {} };

/**
 * What `createClient` needs of n8n, and no more: the credential, the node, and a request helper that
 * signs with the credential's Authorization (the one its Test sends) and sends only reads.
 */
export function readOnlyContext(api: ApiDefinition, credentials: ICredentialDataDecryptedObject): RequestContext {
	const authorization = api.credentialTest.authorization(credentials);
	return {
		getNode: () => CHECK_NODE,
		getCredentials: async () => credentials,
		helpers: {
			httpRequest: async (options: IHttpRequestOptions) => await readOnlyRequest(options),
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => await readOnlyRequest(options, authorization),
		},
	} as unknown as RequestContext;
}
