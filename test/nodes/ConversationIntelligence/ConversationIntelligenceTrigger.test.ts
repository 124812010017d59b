import type { IDataObject, INodeExecutionData, INodeParameters, ITriggerResponse } from 'n8n-workflow';

import { ConversationIntelligenceTrigger } from '../../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node';
import type { Sandbox } from '../../../sandbox';
import { fakeClockForFile } from '../../harness/clock';
import { contexts } from '../../harness/n8n';
import { waitFor } from '../../harness/wait';
import { platformCredentials } from '../../harness/platformKit';
import { sessionTestBed } from './sessionKit';

let sandbox: Sandbox;
sessionTestBed((started) => (sandbox = started));
// The trigger's watchdog, reconnection waits, refusal gate and end-of-session settle run on it, and
// the sandbox's token lifetimes: a test moves it on where it waits for them.
const time = fakeClockForFile();

const open: ITriggerResponse[] = [];
afterEach(async () => {
	for (const response of open.splice(0)) await response.closeFunction?.();
});

async function admin(path: string, body: unknown) {
	const response = await fetch(`${sandbox.url}/_sandbox/intelligence${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return (await response.json()) as IDataObject;
}

const ALL = ['session_started', 'operator_result', 'operator_error', 'transcript_utterance', 'session_ended'];

async function startTrigger(parameters: INodeParameters, options: { label?: string; mode?: 'trigger' | 'manual'; staticData?: IDataObject } = {}) {
	const emitted: IDataObject[] = [];
	const emittedAt: number[] = [];
	const savedWithEmit: boolean[] = [];
	const errors: Error[] = [];
	const built = contexts({
		node: new ConversationIntelligenceTrigger(),
		parameters: { eventTypes: ALL, operatorNames: '', includeInterim: false, ...parameters },
		credentials: platformCredentials(sandbox, options.label),
		staticData: options.staticData,
	});
	const root = built.workflow.staticData as IDataObject;
	const context = built.trigger(
		(data: INodeExecutionData[][]) => {
			emitted.push(...data[0].map((i) => i.json));
			emittedAt.push(time.clock.now());
			// As n8n does with each emit: save the static data if it is marked changed, and clear the mark when the save lands (later).
			savedWithEmit.push(root.__dataChanged === true);
			if (root.__dataChanged === true) void time.clock.sleep(20).then(() => (root.__dataChanged = false));
		},
		(error) => errors.push(Object.assign(error, { reportedAt: time.clock.now() })),
		options.mode,
	);
	jest.spyOn(context.logger, 'info').mockImplementation(() => undefined);
	jest.spyOn(context.logger, 'warn').mockImplementation(() => undefined);
	const response = await new ConversationIntelligenceTrigger().trigger.call(context);
	open.push(response);
	return { emitted, emittedAt, savedWithEmit, errors, response, staticData: () => built.workflow.getStaticData('node', built.node) as IDataObject };
}

const tokenRequests = () => sandbox.context.log.list({ pathPrefix: '/intelligence/v1/sessions/sess_demo_transcript/stream-token' });
const eventRequests = () => sandbox.context.log.list({ pathPrefix: '/intelligence/v1/sessions/sess_demo_transcript/events' });
const streams = () => (sandbox.intelligence as unknown as { hub: { list(): IDataObject[] } }).hub.list();

test('events of a live session become flat items; the stream closes at session_ended and stays closed', async () => {
	const { emitted } = await startTrigger({ sessionId: 'sess_demo_transcript' });
	await waitFor(() => streams().length === 1);
	await admin('/sessions/sess_demo_transcript/script', { preset: 'demo', intervalMs: 2, wait: true });
	// The end marker is emitted a second after the event before it (the static data's save settles).
	await time.clock.advanceUntil(() => emitted.at(-1)?.event_type === 'session_ended');
	await waitFor(() => streams().length === 0);
	// Stays closed: ten minutes on, no connection was opened again.
	await time.clock.advance(600_000);
	expect(eventRequests()).toHaveLength(1);
	expect(emitted[0].event_type).toBe('session_started');
	expect(emitted.filter((e) => e.event_type === 'transcript_utterance').every((e) => e.is_final)).toBe(true);
	const ids = emitted.map((e) => e.stream_event_id);
	expect(new Set(ids).size).toBe(ids.length);
});

test('filters: event types, operator names, interim transcripts', async () => {
	const { emitted } = await startTrigger({
		sessionId: 'sess_demo_transcript',
		eventTypes: ['operator_result', 'transcript_utterance'],
		operatorNames: 'sentiment',
		includeInterim: true,
	});
	await waitFor(() => streams().length === 1);
	await admin('/sessions/sess_demo_transcript/script', { preset: 'demo', intervalMs: 2, wait: true });
	await waitFor(() => streams().length === 0);
	const results = emitted.filter((e) => e.event_type === 'operator_result');
	expect(results.length).toBeGreaterThan(0);
	expect(results.every((e) => e.operator_name === 'sentiment')).toBe(true);
	expect(emitted.some((e) => e.event_type === 'transcript_utterance' && e.is_final === false)).toBe(true);
	expect(emitted.some((e) => e.event_type === 'session_ended')).toBe(false);
});

test('a dropped stream resumes with Last-Event-ID and a fresh token: nothing lost, nothing twice', async () => {
	const { emitted } = await startTrigger({ sessionId: 'sess_demo_transcript', eventTypes: ['operator_result', 'session_ended'] });
	await waitFor(() => streams().length === 1);
	await admin('/sessions/sess_demo_transcript/faults', { dropAfter: 25 });
	await admin('/sessions/sess_demo_transcript/script', { generate: 200, intervalMs: 1, wait: true });
	// The reconnection waits the stream's retry: advice (a second) on the clock, and the end marker its settle.
	await time.clock.advanceUntil(() => emitted.at(-1)?.event_type === 'session_ended');
	const results = emitted.filter((e) => e.event_type === 'operator_result');
	expect(results).toHaveLength(200);
	expect(new Set(results.map((e) => e.event_id)).size).toBe(200);
	expect(eventRequests().length).toBeGreaterThanOrEqual(2);
	expect(eventRequests()[1].headers['last-event-id']).toEqual(expect.any(String));
	const tokens = eventRequests().map((r) => r.query.token);
	expect(new Set(tokens).size).toBe(tokens.length);
	expect(tokenRequests()).toHaveLength(eventRequests().length);
});

test('an expired token is replaced on reconnect', async () => {
	await admin('/settings', { tokenLifetimeSeconds: 1 });
	const { emitted } = await startTrigger({ sessionId: 'sess_demo_transcript', eventTypes: ['operator_result'] });
	await waitFor(() => streams().length === 1);
	// Past the first token's lifetime on the sandbox's clock.
	await time.clock.advance(1200);
	await admin('/sessions/sess_demo_transcript/faults', { dropAfter: 1 });
	await admin('/sessions/sess_demo_transcript/script', { generate: 5, intervalMs: 20, wait: true });
	await time.clock.advanceUntil(() => emitted.length === 5);
	// The first connection was dropped (no status logged); no connection was refused for its token.
	expect(eventRequests().some((r) => r.status === 401)).toBe(false);
	expect(eventRequests()[1]).toMatchObject({ status: 200, headers: { 'last-event-id': expect.any(String) } });
	expect(tokenRequests().length).toBeGreaterThanOrEqual(2);
});

test.each([['not a number', '90s'], ['zero', 0], ['below 5 s', 1], ['above an hour', 1e9]])('a Heartbeat Timeout %s is refused at activation, naming the field, before any request', async (_label, value) => {
	await expect(startTrigger({ sessionId: 'sess_demo_transcript', options: { heartbeatTimeoutSeconds: value } })).rejects.toThrow(/Heartbeat Timeout/);
	expect(tokenRequests()).toHaveLength(0);
	expect(eventRequests()).toHaveLength(0);
});

test('a stalled stream is replaced after the heartbeat window', async () => {
	const { emitted } = await startTrigger({ sessionId: 'sess_demo_transcript', eventTypes: ['operator_result'], options: { heartbeatTimeoutSeconds: 5 } });
	await waitFor(() => streams().length === 1);
	await admin('/sessions/sess_demo_transcript/faults', { stall: true });
	// Within the window nothing happens; past it the watchdog replaces the connection.
	await time.clock.advance(4000);
	expect(eventRequests()).toHaveLength(1);
	await time.clock.advanceUntil(() => eventRequests().length === 2, { stepMs: 500, maxAdvanceMs: 10_000 });
	await admin('/sessions/sess_demo_transcript/script', { generate: 3, intervalMs: 5, wait: true });
	await waitFor(() => emitted.length === 3);
});

test('named events (event: lines) and a malformed data line', async () => {
	await admin('/settings', { namedEvents: true });
	const { emitted } = await startTrigger({ sessionId: 'sess_demo_transcript', eventTypes: ['operator_result'] });
	await waitFor(() => streams().length === 1);
	await admin('/sessions/sess_demo_transcript/faults', { malformed: true });
	await admin('/sessions/sess_demo_transcript/script', { generate: 4, intervalMs: 5, wait: true });
	await waitFor(() => emitted.length === 4);
});

test('a revoked key fails the activation; n8n\'s reactivations fetch no token until the wait is over', async () => {
	await expect(startTrigger({ sessionId: 'sess_demo_transcript' }, { label: 'revoked' })).rejects.toThrow(/\(401\).*tries again at/s);
	for (let i = 0; i < 3; i++) await expect(startTrigger({ sessionId: 'sess_demo_transcript' }, { label: 'revoked' })).rejects.toThrow(/401/);
	expect(tokenRequests()).toHaveLength(1);
	expect(eventRequests()).toHaveLength(0);
	// Another key (the credential fixed) is tried at once.
	await startTrigger({ sessionId: 'sess_demo_transcript' });
	await waitFor(() => streams().length === 1);
	expect(tokenRequests()).toHaveLength(2);
});

test('an unknown session fails the activation and is not asked for again', async () => {
	const staticData: IDataObject = {};
	await expect(startTrigger({ sessionId: 'sess_nope' }, { staticData })).rejects.toThrow(/Session sess_nope is over \(the session does not exist \(404\)/);
	const asked = sandbox.context.log.list({ pathPrefix: '/intelligence/v1/sessions/sess_nope' }).length;
	await expect(startTrigger({ sessionId: 'sess_nope' }, { staticData })).rejects.toThrow(/is over/);
	expect(sandbox.context.log.list({ pathPrefix: '/intelligence/v1/sessions/sess_nope' })).toHaveLength(asked);
});

test('an ended session ends: the last event says so, n8n is told once, and no token is fetched for it again, after a restart too', async () => {
	const { emitted, emittedAt, savedWithEmit, errors, staticData } = await startTrigger({ sessionId: 'sess_demo_transcript' });
	await waitFor(() => streams().length === 1);
	await admin('/sessions/sess_demo_transcript/script', { preset: 'demo', intervalMs: 2, wait: true });
	await time.clock.advanceUntil(() => errors.length === 1, { stepMs: 100 });
	expect(emitted.at(-1)).toMatchObject({ event_type: 'session_ended', listening: false });
	// n8n saves static data with each emit, unordered: the last emit (the end marker's save) comes a second after the one before it, and n8n hears of the end after that run.
	expect(emittedAt.at(-1)! - emittedAt.at(-2)!).toBeGreaterThanOrEqual(1000);
	expect((errors[0] as Error & { reportedAt: number }).reportedAt).toBeGreaterThanOrEqual(emittedAt.at(-1)!);
	// Each emit finds the static data marked changed, though the save of the emit before cleared the mark after the event's change.
	expect(savedWithEmit).toEqual(emitted.map(() => true));
	expect(errors[0].message).toMatch(/Session sess_demo_transcript is over \(the session_ended event arrived/);
	const saved = JSON.parse(JSON.stringify(staticData())) as IDataObject;
	expect((saved.session as IDataObject).ended).toEqual({ at: expect.any(String), reason: expect.stringMatching(/session_ended/) });
	const tokens = tokenRequests().length;
	// n8n activating it again, or a restart with the saved static data: fails at once, asks nothing.
	await expect(startTrigger({ sessionId: 'sess_demo_transcript' }, { staticData: saved })).rejects.toThrow(/is over/);
	expect(tokenRequests()).toHaveLength(tokens);
	// Another session id starts afresh.
	await startTrigger({ sessionId: 'sess_demo_quiet' }, { staticData: saved });
});

test('n8n 1.x activating it again with the static data of its first activation: an ended session asks nothing, a live one resumes after its last event', async () => {
	// n8n 1.x reactivates after emitError with the workflow data it first activated, whose static data predates every emit.
	const firstCopy: IDataObject = {};
	const first = await startTrigger({ sessionId: 'sess_demo_transcript', eventTypes: ['operator_result'] }, { staticData: firstCopy });
	const atActivation = JSON.parse(JSON.stringify(first.staticData())) as IDataObject;
	await waitFor(() => streams().length === 1);
	await admin('/sessions/sess_demo_transcript/script', { events: Array.from({ length: 3 }, () => ({ event_type: 'operator_result' })), intervalMs: 1, wait: true });
	await waitFor(() => first.emitted.length === 3);
	await first.response.closeFunction?.();
	await admin('/sessions/sess_demo_transcript/script', { events: [{ event_type: 'operator_result' }], intervalMs: 1, wait: true });
	const second = await startTrigger({ sessionId: 'sess_demo_transcript', eventTypes: ['operator_result'] }, { staticData: JSON.parse(JSON.stringify(atActivation)) as IDataObject });
	await waitFor(() => second.emitted.length === 1);
	// A marker event after it: whatever the resume replayed came before the marker, on the one connection.
	await admin('/sessions/sess_demo_transcript/script', { events: [{ event_type: 'operator_result' }], intervalMs: 1, wait: true });
	await waitFor(() => second.emitted.length >= 2);
	expect(second.emitted.map((e) => e.event_id)).not.toContain(first.emitted[2].event_id);
	expect(second.emitted).toHaveLength(2);

	await admin('/sessions/sess_demo_transcript/end', {});
	await time.clock.advanceUntil(() => second.errors.length === 1, { stepMs: 100 });
	const tokens = tokenRequests().length;
	await expect(startTrigger({ sessionId: 'sess_demo_transcript' }, { staticData: JSON.parse(JSON.stringify(atActivation)) as IDataObject })).rejects.toThrow(/is over/);
	expect(tokenRequests()).toHaveLength(tokens);
});

test('a restart resumes after the last event it emitted', async () => {
	const first = await startTrigger({ sessionId: 'sess_demo_transcript', eventTypes: ['operator_result'] });
	await waitFor(() => streams().length === 1);
	await admin('/sessions/sess_demo_transcript/script', { events: Array.from({ length: 5 }, () => ({ event_type: 'operator_result' })), intervalMs: 1, wait: true });
	await waitFor(() => first.emitted.length === 5);
	await first.response.closeFunction?.();
	const saved = JSON.parse(JSON.stringify(first.staticData())) as IDataObject;
	expect((saved.session as IDataObject).lastEventId).toBe(first.emitted[4].stream_event_id);
	await admin('/sessions/sess_demo_transcript/script', { events: Array.from({ length: 3 }, () => ({ event_type: 'operator_result' })), intervalMs: 1, wait: true });
	const second = await startTrigger({ sessionId: 'sess_demo_transcript', eventTypes: ['operator_result'] }, { staticData: saved });
	await waitFor(() => second.emitted.length === 3);
	// A marker event after them: whatever the resume replayed came before the marker, on the one connection.
	await admin('/sessions/sess_demo_transcript/script', { events: [{ event_type: 'operator_result' }], intervalMs: 1, wait: true });
	await waitFor(() => second.emitted.length >= 4);
	expect(second.emitted).toHaveLength(4);
	expect(second.emitted.map((e) => e.event_id)).not.toContain(first.emitted[4].event_id);
});

test('closing ends the stream', async () => {
	const { response } = await startTrigger({ sessionId: 'sess_demo_transcript' });
	await waitFor(() => streams().length === 1);
	await response.closeFunction?.();
	await waitFor(() => streams().length === 0);
});

test('a test run emits one event and closes', async () => {
	const { emitted } = await startTrigger({ sessionId: 'sess_demo_transcript', eventTypes: ['operator_result'] }, { mode: 'manual' });
	await waitFor(() => streams().length === 1);
	await admin('/sessions/sess_demo_transcript/script', { generate: 3, intervalMs: 1, wait: true });
	await waitFor(() => streams().length === 0);
	expect(emitted).toHaveLength(1);
});
