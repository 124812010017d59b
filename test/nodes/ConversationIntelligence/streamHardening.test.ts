/**
 * The session stream against a server that misbehaves: stream-token answers of every shape, a
 * token or events URL that always fails, `retry:` values past any timer, ids that cannot go back
 * as a Last-Event-ID header, and `id:`-only messages. Stream rules are checked on the stream with
 * scripted connections; node behaviour through n8n's execution code against the sandbox (its
 * request faults script the answers) or a scripted server.
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject, INodeExecutionData, ITriggerResponse } from 'n8n-workflow';

import { ConversationIntelligence } from '../../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import { ConversationIntelligenceTrigger } from '../../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node';
import type { SessionStreamOptions } from '../../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/sessionStream';
import { SessionEventStream } from '../../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/sessionStream';
import type { StreamResponse } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import { SseParser } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/streams/sse';
import type { Sandbox } from '../../../sandbox';
import { fakeClockForFile } from '../../harness/clock';
import { contexts, runNode } from '../../harness/n8n';
import { platformCredentials } from '../../harness/platformKit';
import type { ReceivedRequest, TestServer } from '../../harness/testServer';
import { json, startTestServer } from '../../harness/testServer';
import { waitFor } from '../../harness/wait';
import { sessionTestBed } from './sessionKit';

let sandbox: Sandbox;
sessionTestBed((started) => (sandbox = started));
// Reconnection waits, watchdogs and Time Limits run on it: a test moves it on where it waits for them.
const time = fakeClockForFile();

const SESSION = 'sess_demo_transcript';
const TOKEN_PATH = `/intelligence/v1/sessions/${SESSION}/stream-token`;
const EVENTS_PATH = `/intelligence/v1/sessions/${SESSION}/events`;

/** Every matching request is answered with `status` and `body` (JSON unless a string) until the sandbox is reset. */
function fault(pathPrefix: string, status: number, body: unknown, contentType?: string) {
	sandbox.context.faults.add({ api: 'intelligence', pathPrefix, status, body, persist: true, headers: contentType ? { 'Content-Type': contentType } : undefined });
}

// ---- the stream itself, with scripted connections ----------------------------------------

/** A connection that delivers `text` and then closes. */
function sse(text: string): StreamResponse {
	const chunks = [new TextEncoder().encode(text)];
	const body = Object.assign(
		(async function* () {
			yield* chunks;
		})(),
		{ destroy: () => undefined },
	);
	return { ok: true, status: 200, headers: {}, body };
}

interface Scripted {
	opens: Array<string | undefined>;
	delays: number[];
	failures: Array<{ reason: string; failedAttempts: number }>;
	unusable: string[];
	resumePoints: string[];
	events: IDataObject[];
	stream: SessionEventStream;
}

/** A stream whose n-th connection is `connections[n]` (the last repeats); it stops after `stopAfter` reconnection waits. */
async function scripted(connections: Array<StreamResponse | Error>, stopAfter: number, extra: Partial<SessionStreamOptions> = {}): Promise<Scripted> {
	const seen: Omit<Scripted, 'stream'> = { opens: [], delays: [], failures: [], unusable: [], resumePoints: [], events: [] };
	let stopped: () => void = () => undefined;
	const finished = new Promise<void>((resolve) => (stopped = resolve));
	const stream: SessionEventStream = new SessionEventStream({
		fetchToken: async () => 'tok_secret_123',
		open: async (_token, lastEventId) => {
			const next = connections[Math.min(seen.opens.length, connections.length - 1)];
			seen.opens.push(lastEventId);
			if (next instanceof Error) throw next;
			return next;
		},
		heartbeatWindowMs: 60_000,
		backoff: { baseMs: 1, maxMs: 1 },
		onEvent: (event) => seen.events.push(event),
		onEnded: () => stopped(),
		onRefused: () => 1000,
		onTransientFailure: (reason, retryInMs, failedAttempts) => {
			seen.delays.push(retryInMs);
			seen.failures.push({ reason, failedAttempts });
			if (seen.delays.length >= stopAfter) {
				// Stopped here, before the loop goes on: a wait of 0 ms would let one more attempt start.
				void stream.stop();
				stopped();
			}
		},
		onUnusableId: (problem) => seen.unusable.push(problem),
		onResumePoint: (id) => seen.resumePoints.push(id),
		...extra,
	});
	stream.start();
	await time.clock.finish(finished, { stepMs: 10 });
	await stream.stop();
	return { ...seen, stream };
}

const data = (n: number) => `data: {"event_type":"operator_result","n":${n}}\n`;

test('the SSE parser reports the last event ID string at each dispatch that changes it, data or not, before the event', () => {
	const seen: string[] = [];
	const parser = new SseParser({ onLastEventId: (id) => seen.push(`id ${id}`), onEvent: (e) => seen.push(`event ${e.data}`) });
	parser.push(new TextEncoder().encode('id: 1\ndata: a\n\nid: 17\n\ndata: b\n\nid: 18\nid: 19\n\nid\n\n: only a comment\n\n'));
	expect(seen).toEqual(['id 1', 'event a', 'id 17', 'event b', 'id 19', 'id ']);
});

describe('the session stream', () => {
	test('retry: is capped at 5 minutes before it reaches a timer (3000000000 ms would be 34 days, or 1 ms on Node.js)', async () => {
		const run = await scripted([sse(`retry: 3000000000\n${data(1)}\n`)], 1);
		expect(run.delays).toEqual([300_000]);
	});

	test('retry: persists across connections, as the standard says: a failed connection after it still waits that long', async () => {
		const failing: StreamResponse = { ok: false, status: 503, headers: {}, text: '', message: 'The service is unavailable (503)' };
		const run = await scripted([sse(`retry: 40\n${data(1)}\n`), failing], 3);
		expect(run.delays).toEqual([40, 40, 40]);
	});

	test('an id-only message moves the resume point (the standard sets the last event ID at every dispatch)', async () => {
		const run = await scripted([sse(`id: 1\n${data(1)}\nid: 17\n\n`), sse('')], 2);
		expect(run.events).toHaveLength(1);
		expect(run.opens).toEqual([undefined, '17']);
		expect(run.stream.lastEventId).toBe('17');
	});

	test('ids that cannot be sent back as they are never become the resume point: said once, events still delivered', async () => {
		const huge = 'x'.repeat(1025);
		const text = `id: 5\n${data(1)}\nid: 事件-1\n${data(2)}\nid: a\u0001b\n${data(3)}\nid: ${huge}\n${data(4)}\nid: ok-6\n${data(5)}\n`;
		const run = await scripted([sse(text), sse('')], 2);
		expect(run.events.map((e) => e.n)).toEqual([1, 2, 3, 4, 5]);
		expect(run.resumePoints).toEqual(['5', 'ok-6']);
		expect(run.opens).toEqual([undefined, 'ok-6']);
		expect(run.unusable).toHaveLength(1);
		expect(run.unusable[0]).toMatch(/not used to resume \(it holds characters other than printable ASCII\)/);
		expect(run.unusable[0]).not.toContain('事件');
	});

	test('a saved resume id that cannot be sent is not sent; a replay of events seen before is dropped', async () => {
		const run = await scripted([sse(`id: 事件-1\n${data(1)}\n`), sse(`id: 事件-1\n${data(1)}\nid: 事件-2\n${data(2)}\n`), sse('')], 3, { lastEventId: 'y'.repeat(2000) });
		expect(run.opens).toEqual([undefined, undefined, undefined]);
		expect(run.events.map((e) => e.n)).toEqual([1, 2]);
		expect(run.unusable).toHaveLength(1);
	});

	test('attempts that never get a stream are counted, the last failure kept, and a token echoed by the server masked', async () => {
		const failing: StreamResponse = { ok: false, status: 400, headers: {}, text: '', message: 'The service refused token tok_secret_123 (400)' };
		const run = await scripted([failing], 5);
		expect(run.failures.map((f) => f.failedAttempts)).toEqual([1, 2, 3, 4, 5]);
		expect(run.stream.everConnected).toBe(false);
		expect(run.stream.lastFailure).toEqual({ reason: 'The service refused token *** (400)', status: 400 });
	});

	test('a stream that opens resets the count', async () => {
		const failing = new Error('connection reset');
		const run = await scripted([failing, failing, sse(data(1)), failing], 4);
		expect(run.failures.map((f) => f.failedAttempts)).toEqual([1, 2, 0, 1]);
		expect(run.stream.everConnected).toBe(true);
	});
});

// ---- Get Stream Token --------------------------------------------------------------------

async function run(parameters: IDataObject) {
	const result = await runNode({ node: new ConversationIntelligence(), parameters: { resource: 'session', sessionId: SESSION, ...parameters }, credentials: platformCredentials(sandbox) });
	return { ...result, json: result.items.map((i) => i.json as IDataObject) };
}

describe('Get Stream Token: the answer\'s shape is not shown in the spec, so every reasonable one is read', () => {
	test.each([
		['streamToken', { streamToken: 'tok_a1' }, undefined],
		['data.access_token', { data: { access_token: 'tok_a1' } }, undefined],
		['jwt', { jwt: 'tok_a1' }, undefined],
		['the only text field besides a date', { value: 'tok_a1', expires_at: '2030-01-01T00:00:00Z', ttl: 60 }, undefined],
		['a JSON string', '"tok_a1"', 'application/json'],
		['text/plain', 'tok_a1\n', 'text/plain'],
	])('%s', async (_name, body, contentType) => {
		fault(TOKEN_PATH, 200, body, contentType);
		const result = await run({ operation: 'getStreamToken' });
		expect(result.error).toBeUndefined();
		expect(result.json).toHaveLength(1);
		expect(result.json[0]).toMatchObject({ session_id: SESSION, token: 'tok_a1' });
		// Never an item made of a string's characters.
		expect(result.json[0]).not.toHaveProperty('0');
	});

	test.each([
		['two text fields', { status: 'ready', kind: 'tok_secret', expires_at: '2026-01-01T00:00:00Z' }, /an object with the fields status, kind, expires_at/],
		['a sentence', { message: 'no token for you, tok_secret' }, /an object with the fields message/],
		['an HTML page', '<html><body>Service tok_secret unavailable</body></html>', /text that is not a token/],
	])('no token in %s: an error naming what came, never its values', async (_name, body, held) => {
		fault(TOKEN_PATH, 200, body);
		const result = await run({ operation: 'getStreamToken' });
		expect(result.error?.message).toMatch(/^Get a stream token: The stream-token answer held no token/);
		expect(result.error?.message).toMatch(held);
		expect(`${result.error?.message} ${result.error?.description}`).not.toContain('tok_secret');
		expect(result.json).toHaveLength(0);
	});
});

// ---- Watch Events ------------------------------------------------------------------------

const WATCH = { operation: 'watchEvents', eventTypes: ['operator_result'], operatorNames: '', includeInterim: false, maxEvents: 10, timeLimitSeconds: 25 };

describe('Watch Events', () => {
	test.each([
		['the token endpoint always answers 500', TOKEN_PATH, 500, { message: 'boom' }, /stream token request failed: .*500/],
		['the token answer never holds a token', TOKEN_PATH, 200, { expires_at: '2030-01-01T00:00:00Z', ttl_seconds: 60 }, /held no token: it was an object with the fields expires_at, ttl_seconds/],
		['the events URL always answers 431', EVENTS_PATH, 431, { message: 'header fields too large' }, /431/],
	])('%s: the run fails with the last error, early, rather than zero items at its Time Limit', async (_name, path, status, body, reason) => {
		fault(path, status, body);
		const started = time.clock.now();
		const result = await time.clock.finish(run(WATCH));
		expect(result.error?.message).toMatch(new RegExp(`^Could not open the event stream of session ${SESSION}: `));
		expect(result.error?.message).toMatch(reason);
		expect(result.error?.description).toMatch(/No attempt got a stream/);
		expect(result.json).toHaveLength(0);
		// Early on the run's own clock: after its failed attempts' backoff, well before its 25 s Time Limit.
		expect(time.clock.now() - started).toBeLessThan(20_000);
	});

	test('a stream_event_id that cannot be sent as Last-Event-ID is refused before anything is sent', async () => {
		const since = sandbox.context.log.lastSeq;
		for (const lastEventId of ['事件-1', 'x'.repeat(1025)]) {
			const result = await run({ ...WATCH, lastEventId });
			expect(`${result.error?.message} ${result.error?.description}`).toMatch(/Resume After Event ID.*cannot be sent as Last-Event-ID: .*printable ASCII/s);
		}
		expect(sandbox.context.log.list({ since })).toHaveLength(0);
	});
});

// ---- the trigger -------------------------------------------------------------------------

const open: ITriggerResponse[] = [];
afterEach(async () => {
	for (const response of open.splice(0)) await response.closeFunction?.();
});

async function startTrigger(credentials: ReturnType<typeof platformCredentials>, staticData?: IDataObject) {
	const emitted: IDataObject[] = [];
	const errors: Error[] = [];
	const built = contexts({
		node: new ConversationIntelligenceTrigger(),
		parameters: { sessionId: SESSION, eventTypes: ['operator_result'], operatorNames: '', includeInterim: false },
		credentials,
		staticData,
	});
	const context = built.trigger(
		(out: INodeExecutionData[][]) => emitted.push(...out[0].map((i) => i.json)),
		(error) => errors.push(error),
	);
	const logs = {
		info: jest.spyOn(context.logger, 'info').mockImplementation(() => undefined),
		warn: jest.spyOn(context.logger, 'warn').mockImplementation(() => undefined),
		error: jest.spyOn(context.logger, 'error').mockImplementation(() => undefined),
	};
	const response = await new ConversationIntelligenceTrigger().trigger.call(context);
	open.push(response);
	return { emitted, errors, logs, response, staticData: () => built.workflow.getStaticData('node', built.node) as IDataObject };
}

describe('Conversation Intelligence Trigger', () => {
	test('a token answer that never holds a token: warnings, then a trigger error once the failure persists', async () => {
		fault(TOKEN_PATH, 200, { expires_at: '2030-01-01T00:00:00Z', ttl_seconds: 60 });
		const { errors, logs } = await startTrigger(platformCredentials(sandbox));
		await time.clock.advanceUntil(() => errors.length === 1);
		expect(errors[0].message).toMatch(new RegExp(`^The event stream of session ${SESSION} cannot be opened: stream token request failed: The stream-token answer held no token`));
		expect((errors[0] as Error & { description?: string }).description).toMatch(/5 attempts in a row failed. The trigger keeps trying/);
		expect(logs.warn).toHaveBeenCalledWith(expect.stringMatching(/held no token.*reconnecting in/));
		expect(logs.error).toHaveBeenCalled();
		expect(logs.info).not.toHaveBeenCalledWith(expect.stringMatching(/held no token/));
	});

	describe('with a scripted server', () => {
		let server: TestServer;
		beforeAll(async () => (server = await startTestServer()));
		afterAll(async () => await server.close());

		const credentials = () => ({ platformApiKeyApi: { baseUrl: server.url, apiKey: `tpk_${'ab'.repeat(24)}`, maxRateLimitWait: 0 } });
		/** Token requests get a token; the events URL gets `text` on its first connection and is held open (later ones stay open and silent). */
		function serve(text: string) {
			server.requests.length = 0;
			let connections = 0;
			server.answer((req: ReceivedRequest, res: ServerResponse) => {
				if (req.url.includes('/stream-token')) return json(200, { token: 'tok_1' })(req, res);
				res.writeHead(200, { 'Content-Type': 'text/event-stream' });
				if (connections++ === 0) res.write(text);
			});
		}

		test('an event id that cannot be sent back is never saved', async () => {
			const event = (n: number) => `data: {"event_type":"operator_result","n":${n}}\n\n`;
			serve(`id: 5\n${event(1)}id: 事件-6\n${event(2)}`);
			const first = await startTrigger(credentials());
			await waitFor(() => first.emitted.length === 2);
			expect((first.staticData().session as IDataObject).lastEventId).toBe('5');
			expect(first.logs.warn).toHaveBeenCalledWith(expect.stringMatching(/event id is not used to resume/));
		});
	});
});
