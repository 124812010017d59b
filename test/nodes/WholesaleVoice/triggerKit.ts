/**
 * The Wholesale Voice Trigger as n8n hosts it: a small HTTP server standing in for n8n's webhook
 * endpoint hands each delivery to the node's webhook() through n8n's own WebhookContext, with the
 * request as n8n's Express stack prepares it (the raw body, the body n8n parses itself for the
 * types it knows, `req.ip` computed the way Express does for N8N_PROXY_HOPS), then runs the
 * node's execute() on what it emitted through n8n's WorkflowExecute, as the execution's first step.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse as parseQueryString } from 'node:querystring';

import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData, INodeParameters, IWebhookData, IWebhookResponseData } from 'n8n-workflow';

import { WholesaleVoiceTrigger } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoiceTrigger.node';
import type { Sandbox } from '../../../sandbox';
import { answerAsN8n, contexts, runNode } from '../../harness/n8n';

export const WEBHOOK_DATA = { webhookDescription: { name: 'default', httpMethod: 'POST', path: 'wholesale-voice' } } as unknown as IWebhookData;

/** Lets every test delivery in (the server sees 127.0.0.1), with no secret. */
export const OPEN = { sourceNetworks: 'custom', customNetworks: '127.0.0.1/32' };

export function wholesaleCredentials(sandbox: Sandbox): Record<string, ICredentialDataDecryptedObject> {
	return {
		wholesaleVoiceApi: { baseUrl: sandbox.url, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456', maxRateLimitWait: 30 },
	};
}

/**
 * `req.ip` as Express computes it with `trust proxy` set to a hop count (n8n's N8N_PROXY_HOPS):
 * the socket address, or the address that many hops back in X-Forwarded-For.
 */
export function expressIp(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, hops: number): string | undefined {
	const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
		.split(',')
		.map((a) => a.trim())
		.filter(Boolean)
		.reverse();
	const addresses = [socketAddress, ...chain];
	return addresses[Math.min(hops, addresses.length - 1)];
}

/**
 * What n8n's body parser leaves in `req.body` for the types it knows (application/json, forms,
 * text/plain); a multipart form n8n reads itself, as `{data: fields, files}`, with no raw body.
 */
async function n8nParsedBody(contentType: string, fullContentType: string, raw: Buffer): Promise<unknown> {
	if (contentType === 'multipart/form-data') {
		const form = await new Response(raw, { headers: { 'content-type': fullContentType } }).formData();
		const data: Record<string, string> = {};
		form.forEach((value, key) => {
			if (typeof value === 'string') data[key] = value;
		});
		return { data, files: {} };
	}
	if (!raw.length) return undefined;
	if (contentType === 'application/json') return JSON.parse(raw.toString('utf8')) as unknown;
	if (contentType === 'application/x-www-form-urlencoded') return parseQueryString(raw.toString('utf8'));
	if (contentType === 'text/plain') return raw.toString('utf8');
	return undefined;
}

export interface HostedDelivery {
	status: number;
	body: unknown;
	result: IWebhookResponseData;
	/** The items webhook() emitted (no execution when empty). */
	emitted: IDataObject[];
}

export interface HostOptions {
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	proxyHops?: number;
	/** Run execute() on what webhook() emitted, as n8n does (default true). */
	execute?: boolean;
	/**
	 * Whether n8n fails to store the execution of a delivery (its database unreachable): n8n 2.x
	 * then answers 500 instead of the trigger's response, and starts nothing.
	 */
	storeFails?: () => boolean;
}

export async function hostTrigger(parameters: INodeParameters, options: HostOptions = {}) {
	const node = new WholesaleVoiceTrigger();
	const built = contexts({ node, parameters, credentials: options.credentials });
	const deliveries: HostedDelivery[] = [];
	/** The output of each execution (execute() on the emitted items). */
	const runs: INodeExecutionData[][] = [];
	const pending: Array<Promise<void>> = [];
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', async () => {
			const rawBody = Buffer.concat(chunks);
			const url = new URL(req.url ?? '/', 'http://127.0.0.1');
			const query = parseQueryString(url.search.slice(1));
			const contentType = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
			let status = 200;
			let sent: unknown;
			const response = {
				status: (code: number) => ((status = code), response),
				// Every answer passes through writeHead, as with Express.
				writeHead: (code: number, headers: Record<string, string>) => res.writeHead(code, headers),
				json: (body: unknown) => {
					sent = body;
					response.writeHead(status, { 'content-type': 'application/json' });
					res.end(JSON.stringify(body));
				},
			};
			const request = {
				method: req.method,
				headers: req.headers,
				query,
				body: await n8nParsedBody(contentType, String(req.headers['content-type'] ?? ''), rawBody),
				rawBody: contentType === 'multipart/form-data' ? undefined : rawBody,
				ip: expressIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], options.proxyHops ?? 0),
				socket: req.socket,
			};
			const context = built.webhook(WEBHOOK_DATA, request, response);
			const result = await node.webhook.call(context);
			const stored = answerAsN8n(result, res.headersSent, response, options.storeFails);
			const emitted = stored ? (result.workflowData?.[0] ?? []).map((i) => i.json) : [];
			deliveries.push({ status, body: sent, result, emitted });
			if (stored && result.workflowData && options.execute !== false) {
				const run = runNode({ node, parameters, credentials: options.credentials }, result.workflowData[0], 'webhook').then((r) => {
					if (r.error) throw new Error(`execute failed: ${r.error.message}`);
					runs.push(r.items);
				});
				pending.push(run);
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/wholesale-voice`;
	return {
		url,
		deliveries,
		runs,
		node,
		built,
		/** Every emitted item of every delivery, in order. */
		emitted: () => deliveries.flatMap((d) => d.emitted),
		/** Waits for the executions started so far. */
		settled: async () => {
			await Promise.all(pending);
		},
		hook: () => built.hook(WEBHOOK_DATA),
		close: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

export type HostedTrigger = Awaited<ReturnType<typeof hostTrigger>>;

/** Sends deliveries through the sandbox's admin API (`POST /_sandbox/wholesale/deliveries`) and returns its records. */
export async function sandboxDeliver(sandbox: Sandbox, order: Record<string, unknown>): Promise<Array<Record<string, any>>> {
	const response = await fetch(`${sandbox.url}/_sandbox/wholesale/deliveries`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(order),
	});
	const body = (await response.json()) as { deliveries?: Array<Record<string, any>>; message?: string };
	if (!response.ok) throw new Error(`deliveries answered ${response.status}: ${JSON.stringify(body)}`);
	return body.deliveries ?? [];
}

/** A delivery of our own: exact bytes and headers. */
export async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
	const response = await fetch(url, { method: 'POST', headers, body });
	const text = await response.text();
	return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** A form-encoded HTTP POST of the public docs, as kept in the real-API fixtures. */
export function realDelivery(name: string): { body: string; contentType: string } {
	const file = join(__dirname, '../../fixtures/real-api/wholesale/http-post.json');
	const fixture = (JSON.parse(readFileSync(file, 'utf8')) as Array<{ name: string; body: string; contentType: string }>).find((f) => f.name === name);
	if (!fixture) throw new Error(`no fixture ${name}`);
	return fixture;
}
