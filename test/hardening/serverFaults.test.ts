/**
 * A server that hangs, trickles, answers huge bodies, non-JSON or empty 2xx answers, redirects
 * elsewhere or asks for an immediate retry: each request ends within its timeout, nothing is held
 * whole past the stated limit, nothing is made up, and the credential never leaves its host.
 * Run through n8n's execution code with a scripted server (the sandbox plays the same faults for
 * the node suites and the demo).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import { HostedPbx } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { WholesaleVoice } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { useClock } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/timers';
import { MAX_DOWNLOAD_BYTES } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/body';
import { MIN_RETRY_DELAY_MS } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { FakeClock } from '../harness/clock';
import { runNode } from '../harness/n8n';
import type { TestServer } from '../harness/testServer';
import { json, startTestServer } from '../harness/testServer';
import { waitFor } from '../harness/wait';

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(async () => await server.close());
beforeEach(() => {
	server.requests.length = 0;
});

const ME = { __rl: true, mode: 'id', value: 'me' };

function pbx(overrides: ICredentialDataDecryptedObject = {}) {
	return { hostedPbxApi: { baseUrl: `${server.url}/api/v1`, username: 'fault-user', password: 'fault-password-123', maxRateLimitWait: 5, ...overrides } };
}

async function runPbx(parameters: INodeParameters, credentials = pbx()) {
	const started = performance.now();
	const run = await runNode({ node: new HostedPbx(), parameters, credentials });
	return { ...run, seconds: (performance.now() - started) / 1000 };
}

const getCustomer = { resource: 'customer', operation: 'get', customerId: ME };
const downloadRecording = { resource: 'recording', operation: 'download', customerId: ME, recordingId: { __rl: true, mode: 'id', value: '1' }, binaryPropertyName: 'data' };

/**
 * Real-time tests: a request's timeout bounds real I/O (it stays real under a test's clock), so
 * these wait for it on the machine's time. Each asserts how the request ended (the timeout or the
 * rate check, named in the error); the elapsed time is bounded only generously, well below the
 * credential's default timeout of 30 s, so that a busy machine passes while a request the 1 s
 * timeout did not end would still fail.
 */
const ENDED_BY_THE_TIMEOUT_S = 15;

describe('every request ends', () => {
	test('a server that accepts and never answers fails the item within the timeout plus a second, saying it timed out', async () => {
		server.answer(() => {
			// never answers
		});
		const run = await runPbx(getCustomer, pbx({ timeout: 1 }));
		expect(run.error?.message).toMatch(/did not answer GET \/api\/v1\/customers\/me within 1 s \(timed out\)/);
		expect(run.seconds).toBeLessThan(ENDED_BY_THE_TIMEOUT_S);
	});

	test('a server that sends headers and then one byte a second never finishes: the timeout still ends it', async () => {
		server.answer((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.write('{');
			const drip = setInterval(() => res.write(' '), 200);
			res.on('close', () => clearInterval(drip));
		});
		const run = await runPbx(getCustomer, pbx({ timeout: 1 }));
		expect(run.error?.message).toMatch(/timed out/);
		expect(run.seconds).toBeLessThan(ENDED_BY_THE_TIMEOUT_S);
	});

	test('a server that sends headers and a byte, then nothing at all: the timeout still ends it', async () => {
		server.answer((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.write('{');
		});
		const run = await runPbx(getCustomer, pbx({ timeout: 1 }));
		expect(run.error?.message).toMatch(/did not answer GET \/api\/v1\/customers\/me within 1 s \(timed out\)/);
		expect(run.seconds).toBeLessThan(ENDED_BY_THE_TIMEOUT_S);
	});

	test('a file download that stalls after its first bytes fails within the timeout, not never', async () => {
		server.answer((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'audio/wav' });
			res.write('RIFF');
		});
		const run = await runPbx(downloadRecording, pbx({ timeout: 1 }));
		expect(run.error?.message).toMatch(/timed out/);
		expect(run.seconds).toBeLessThan(ENDED_BY_THE_TIMEOUT_S);
	});

	test('a file download that drips a byte now and then (never silent for the timeout) fails once it is slower than the minimum rate', async () => {
		server.answer((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'audio/wav' });
			res.write('RIFF');
			const drip = setInterval(() => res.write('.'), 200);
			res.on('close', () => clearInterval(drip));
		});
		const run = await runPbx(downloadRecording, pbx({ timeout: 1 }));
		expect(run.error?.message).toMatch(/slower than 4 KiB\/s on average/);
		expect(run.seconds).toBeLessThan(ENDED_BY_THE_TIMEOUT_S);
	});

	test('a timeout that is not a number from 1 to 3600 is refused before sending', async () => {
		const run = await runPbx(getCustomer, pbx({ timeout: -5 }));
		expect(run.error?.message).toMatch(/Timeout \(seconds\) is -5; it must be a number from 1 to 3600/);
		expect(server.requests).toHaveLength(0);
	});

	test('a negative Max Wait When Rate Limited is refused before sending', async () => {
		const run = await runPbx(getCustomer, pbx({ maxRateLimitWait: -1 }));
		expect(run.error?.message).toMatch(/Max Wait When Rate Limited \(seconds\) is -1/);
		expect(server.requests).toHaveLength(0);
	});
});

describe('nothing is held whole past the limit', () => {
	test('an answer that declares more than the limit is refused before its body is read', async () => {
		server.answer((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(MAX_DOWNLOAD_BYTES + 1) });
			res.write('[');
		});
		const run = await runPbx(getCustomer);
		expect(run.error?.message).toMatch(/answer to GET \/api\/v1\/customers\/me is larger than 64 MiB, the download limit; it was not read further/);
	});

	/** The server sends 1 MiB chunks as fast as they are read, `total` bytes in all (without end if not given); gives the count sent. */
	function pumping(contentType: string, total = Number.POSITIVE_INFINITY): () => number {
		const chunk = Buffer.alloc(1024 * 1024, 0x20);
		let sent = 0;
		server.answer((_req, res) => {
			res.writeHead(200, { 'Content-Type': contentType });
			const pump = () => {
				while (!res.destroyed && sent < total && res.write(chunk)) sent += chunk.length;
				if (res.destroyed) return;
				if (sent >= total) res.end();
				else res.once('drain', pump);
			};
			pump();
		});
		return () => sent;
	}

	test('a chunked answer that never ends is cut at the limit, with memory bounded by it', async () => {
		const sent = pumping('application/json');
		const heapBefore = process.memoryUsage().heapUsed;
		const run = await runPbx(getCustomer);
		expect(run.error?.message).toMatch(/larger than 64 MiB/);
		// The node stopped reading at the limit: the server could not push much past it.
		expect(sent()).toBeLessThan(MAX_DOWNLOAD_BYTES + 32 * 1024 * 1024);
		expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(256 * 1024 * 1024);
	});

	test('a file download past the same 64 MiB bound fails while it streams, naming the bound', async () => {
		// 72 MiB, then the end: more than the bound, far less than any older one.
		pumping('audio/wav', 72 * 1024 * 1024);
		const run = await runPbx(downloadRecording);
		expect(run.error?.message).toBe('The Hosted PBX API answer to GET /api/v1/customers/me/recordings/1 is larger than 64 MiB, the download limit; it was not read further');
		expect(run.error?.description).toMatch(/limited to 64 MiB \(MAX_DOWNLOAD_MIB\)/);
		expect(run.items).toEqual([]);
	});
});

describe('odd answers are errors, not inventions', () => {
	test('a 2xx HTML page where JSON is expected names the operation and status', async () => {
		server.answer((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'text/html' });
			res.end('<html><body>Maintenance</body></html>');
		});
		const run = await runPbx(getCustomer);
		expect(run.error?.message).toMatch(/answered GET \/api\/v1\/customers\/me with text\/html that is not JSON: <html><body>Maintenance/);
		expect(run.error?.httpCode).toBe('200');
	});

	test('an empty 2xx body where the contract shows one is an error, not {success: true} or an empty list', async () => {
		server.answer((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end();
		});
		const get = await runPbx(getCustomer);
		expect(get.error?.message).toMatch(/answered GET \/api\/v1\/customers\/me with an empty body \(200\) where it should send one/);
		const list = await runPbx({ resource: 'phoneBook', operation: 'getAll', customerId: ME, returnAll: true });
		expect(list.error?.message).toMatch(/empty body/);
		expect(list.items).toEqual([]);
	});

	test('a 204 where the contract promises no body (delete) is an answer', async () => {
		server.answer((_req, res) => {
			res.writeHead(204);
			res.end();
		});
		const run = await runPbx({ resource: 'phoneBook', operation: 'delete', customerId: ME, entryId: { __rl: true, mode: 'id', value: '7' } });
		expect(run.error).toBeUndefined();
		expect(run.items.map((i) => i.json)).toEqual([{ deleted: true, id: '7' }]);
	});

	test('Retry-After: 0 still waits a second before the retry', async () => {
		// The wait is on the package's clock: a fake one here, so the second is exact and costs nothing.
		const clock = new FakeClock();
		useClock(clock);
		try {
			server.answer(json(429, { message: 'slow down' }, { 'Retry-After': '0' }), json(200, { id: 'me', company: 'Acme' }));
			const running = runPbx(getCustomer);
			await waitFor(() => clock.pending === 1);
			await clock.advance(MIN_RETRY_DELAY_MS - 1);
			expect(server.requests).toHaveLength(1);
			await clock.advance(1);
			const run = await running;
			expect(run.error).toBeUndefined();
			expect(server.requests).toHaveLength(2);
		} finally {
			useClock(undefined);
		}
	});
});

describe('credentials stay on their host', () => {
	test('a redirect to another host is not followed: the other host sees nothing', async () => {
		const elsewhere: IncomingMessage[] = [];
		const other = createServer((req: IncomingMessage, res: ServerResponse) => {
			elsewhere.push(req);
			res.end('{}');
		});
		await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
		const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/steal`;
		server.answer((_req, res) => {
			res.writeHead(302, { Location: otherUrl });
			res.end();
		});
		const run = await runPbx(getCustomer);
		other.close();
		expect(elsewhere).toHaveLength(0);
		expect(run.error?.message).toMatch(/\(302\)/);
	});

	test('the wholesale tools, which need no authentication, are sent without the credential', async () => {
		server.answer(json(200, { timestamp: 1, rfc: 'x' }));
		const run = await runNode({
			node: new WholesaleVoice(),
			parameters: { resource: 'tool', operation: 'time' },
			credentials: { wholesaleVoiceApi: { baseUrl: server.url, apiUsername: 'u', apiPassword: 'p4ssw0rd-tools', accountId: '123456' } },
		});
		expect(run.error).toBeUndefined();
		expect(server.requests[0].url).toBe('/v3/tools/time');
		expect(server.requests[0].headers.authorization).toBeUndefined();
	});
});
