import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
	method: string;
	url: string;
	headers: IncomingMessage['headers'];
	body: string;
}

export interface TestServer {
	url: string;
	requests: ReceivedRequest[];
	/** What the next requests get; the last answer repeats. */
	answer(...handlers: Array<(req: ReceivedRequest, res: ServerResponse) => void>): void;
	close(): Promise<void>;
}

/** A scripted HTTP server on 127.0.0.1 for transport tests. */
export async function startTestServer(): Promise<TestServer> {
	const requests: ReceivedRequest[] = [];
	let handlers: Array<(req: ReceivedRequest, res: ServerResponse) => void> = [
		(_req, res) => res.end('{}'),
	];
	const server = createServer((raw, res) => {
		const chunks: Buffer[] = [];
		raw.on('data', (chunk: Buffer) => chunks.push(chunk));
		raw.on('end', () => {
			const req = { method: raw.method ?? 'GET', url: raw.url ?? '/', headers: raw.headers, body: Buffer.concat(chunks).toString('utf8') };
			requests.push(req);
			const handler = handlers.length > 1 ? handlers.shift()! : handlers[0];
			handler(req, res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests,
		answer: (...next) => {
			handlers = next;
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/**
 * One scripted server for the test file, handed over through `started`; before each test its
 * record of requests is cleared and, given `reset`, it answers that until a test scripts otherwise.
 */
export function scriptedServerForFile(started: (server: TestServer) => void, reset?: (req: ReceivedRequest, res: ServerResponse) => void): void {
	let server: TestServer;
	beforeAll(async () => started((server = await startTestServer())));
	afterAll(async () => await server.close());
	beforeEach(() => {
		server.requests.length = 0;
		if (reset) server.answer(reset);
	});
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}) {
	return (_req: ReceivedRequest, res: ServerResponse) => {
		res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
		res.end(typeof body === 'string' ? body : JSON.stringify(body));
	};
}
