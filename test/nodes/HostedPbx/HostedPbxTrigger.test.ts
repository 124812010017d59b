import type { IDataObject, INodeExecutionData, INodeParameters, INodeProperties, ITriggerResponse } from 'n8n-workflow';

import { HostedPbxTriggerV1 as HostedPbxTrigger } from '../../../nodes/HostedPbx/v1/HostedPbxTriggerV1.node';
import type { PollCursor } from '../../../nodes/HostedPbx/trigger/polling';
import { FIRST_RETRY_MS, retryTimes } from '../../../nodes/shared/triggers/refusals';
import type { Sandbox } from '../../../sandbox';
import { contexts } from '../../harness/n8n';
import { waitFor } from '../../harness/wait';
import type { PbxUserName } from './pbxTestKit';
import { locator, pbxCredentials, triggerLifecycle } from './pbxTestKit';

let sandbox: Sandbox;
const open = triggerLifecycle((started) => (sandbox = started));

/**
 * These tests stall the stream for half a second and poll ten times a second, below what the
 * trigger accepts from users (65 s, 10 s: see triggerOptions.test.ts); the declared minimums,
 * which the trigger checks at activation, are lowered for this file only.
 */
const declared = (name: string) => {
	const properties = new HostedPbxTrigger().description.properties;
	const options = properties.find((p) => p.name === 'options')!.options as INodeProperties[];
	return [...properties, ...options].find((p) => p.name === name)!;
};
beforeAll(() => {
	declared('pollIntervalSeconds').typeOptions!.minValue = 0.1;
	declared('heartbeatTimeoutSeconds').typeOptions!.minValue = 0.5;
});


interface Started {
	emitted: IDataObject[];
	errors: Error[];
	warnings: string[];
	/** What the trigger logged at error level. */
	logErrors: string[];
	response: ITriggerResponse;
	staticData: () => IDataObject;
}

async function startTrigger(
	parameters: INodeParameters,
	options: { user?: PbxUserName; password?: string; mode?: 'trigger' | 'manual'; staticData?: IDataObject; activation?: 'activate' | 'init' } = {},
): Promise<Started> {
	const emitted: IDataObject[] = [];
	const errors: Error[] = [];
	const warnings: string[] = [];
	const logErrors: string[] = [];
	const { trigger, workflow } = contexts({
		node: new HostedPbxTrigger(),
		parameters,
		credentials: pbxCredentials(sandbox, options.user, options.password),
		staticData: options.staticData,
		// One workflow per test: within a test, activations of the node share what the process keeps.
		workflowId: expect.getState().currentTestName,
	});
	const context = trigger(
		(data: INodeExecutionData[][]) => emitted.push(...data[0].map((i) => i.json)),
		(error) => errors.push(error),
		options.mode,
		options.activation,
	);
	const logger = context.logger;
	jest.spyOn(logger, 'warn').mockImplementation((message: string) => void warnings.push(message));
	jest.spyOn(logger, 'info').mockImplementation(() => undefined);
	jest.spyOn(logger, 'error').mockImplementation((message: string) => void logErrors.push(message));
	const response = await new HostedPbxTrigger().trigger.call(context);
	open.push(response);
	return { emitted, errors, warnings, logErrors, response, staticData: () => workflow.getStaticData('node', { name: 'Node Under Test' } as never) };
}

const streamCount = () => sandbox.pbx.stream.list().length;

describe('live events', () => {
	test('a stream that cannot be opened (an outage, a wrong Base URL) is reported once it persists, not on every attempt, nor again after n8n activates the trigger again', async () => {
		sandbox.pbx.restartStream({ downMs: 60_000 });
		const streamRequests = () => sandbox.context.log.list({ pathPrefix: '/api/v1/stream' }).length;
		const first = await startTrigger({ source: 'live', events: ['incomingcall'] });
		await waitFor(() => first.errors.length === 1, 15_000);
		expect(first.errors[0].message).toBe('The Hosted PBX API live event stream cannot be opened: HTTP 503');
		expect((first.errors[0] as Error & { description?: string }).description).toMatch(/^5 attempts in a row failed\. The trigger keeps trying .* every 15 minutes/);
		expect(streamRequests()).toBe(5);
		expect(first.warnings.filter((w) => w.startsWith('Hosted PBX stream: HTTP 503; reconnecting'))).toHaveLength(4);
		expect(first.logErrors).toEqual([expect.stringMatching(/HTTP 503; reconnecting in \d+ ms \(5 failed attempts in a row\)$/)]);
		// n8n answers the error by activating the trigger again: it goes on trying and does not report again.
		await first.response.closeFunction?.();
		const again = await startTrigger({ source: 'live', events: ['incomingcall'] });
		await waitFor(() => again.logErrors.length === 1, 15_000);
		expect(again.errors).toHaveLength(0);
		expect(streamRequests()).toBe(10);
	});

	test('an incoming call becomes one flat item; unselected events are not emitted', async () => {
		const { emitted } = await startTrigger({ source: 'live', events: ['incomingcall'] });
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectInboundSms({ body: 'not wanted' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900555', callerIdName: 'Jane Caller', endpointId: '202' });
		await waitFor(() => emitted.length === 1);
		expect(emitted[0]).toEqual({
			event: 'incomingcall',
			callerIdNumber: '+447700900555',
			callerIdName: 'Jane Caller',
			endpoint: `${sandbox.url}/api/v1/customers/1001/endpoints/202`,
			endpointId: '202',
			location: null,
			receivedAt: expect.any(String),
		});
	});

	test.each([
		['concatenated', 'bytewise'],
		['padded', 'random'],
		['newline', 'random'],
	])('%s objects split %s arrive whole and in order, multi-byte characters too', async (framing, chunking) => {
		sandbox.pbx.stream.settings = { ...sandbox.pbx.stream.settings, framing: framing as never, chunking: chunking as never, chunkDelayMs: 1 };
		const { emitted } = await startTrigger({ source: 'live', events: ['incomingcall', 'smsreceived'] });
		await waitFor(() => streamCount() === 1);
		for (let i = 0; i < 5; i++) {
			sandbox.pbx.injectIncomingCall({ callerIdName: `Zoë ${i} 📞 Ærø`, from: `+44770090010${i}` });
			sandbox.pbx.injectInboundSms({ body: `ça va? ${i} ✓` });
		}
		await waitFor(() => emitted.length === 10, 10000);
		expect(emitted.filter((e) => e.event === 'incomingcall').map((e) => e.callerIdName)).toEqual(
			[0, 1, 2, 3, 4].map((i) => `Zoë ${i} 📞 Ærø`),
		);
		expect(emitted.filter((e) => e.event === 'smsreceived').map((e) => e.excerpt)).toEqual([0, 1, 2, 3, 4].map((i) => `ça va? ${i} ✓`));
	});

	test('each malformed object is skipped and logged once as an incident; the stream goes on', async () => {
		const { emitted, warnings } = await startTrigger({ source: 'live', events: ['incomingcall'] });
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.stream.applyFaults({ malformed: true });
		sandbox.pbx.injectIncomingCall({ callerIdName: 'after one' });
		sandbox.pbx.stream.applyFaults({ malformed: true });
		sandbox.pbx.injectIncomingCall({ callerIdName: 'after two' });
		await waitFor(() => emitted.length === 2);
		expect(emitted.map((e) => e.callerIdName)).toEqual(['after one', 'after two']);
		expect(warnings).toHaveLength(2);
		expect(warnings[0]).toMatch(/skipped bytes that are not a JSON object/);
	});

	test('heartbeats keep a quiet connection alive', async () => {
		sandbox.pbx.stream.settings = { ...sandbox.pbx.stream.settings, heartbeatMs: 100 };
		await startTrigger({ source: 'live', events: ['incomingcall'], options: { heartbeatTimeoutSeconds: 0.5 } });
		const [connection] = await waitFor(() => streamCount() === 1 && sandbox.pbx.stream.list());
		await new Promise((resolve) => setTimeout(resolve, 1500));
		expect(sandbox.pbx.stream.list()).toEqual([expect.objectContaining({ id: connection.id })]);
	});

	test('a stalled connection (no bytes past the window) is replaced', async () => {
		sandbox.pbx.stream.settings = { ...sandbox.pbx.stream.settings, heartbeatMs: 100 };
		const { emitted } = await startTrigger({ source: 'live', events: ['incomingcall'], options: { heartbeatTimeoutSeconds: 0.5 } });
		const [stalled] = await waitFor(() => streamCount() === 1 && sandbox.pbx.stream.list());
		sandbox.pbx.stream.applyFaults({ stall: true });
		const replaced = await waitFor(() => sandbox.pbx.stream.list().find((c) => !c.stalled && c.id > stalled.id), 5000);
		expect(replaced.id).toBeGreaterThan(stalled.id);
		sandbox.pbx.injectIncomingCall({ callerIdName: 'after the stall' });
		await waitFor(() => emitted.length === 1);
		expect(emitted[0].callerIdName).toBe('after the stall');
	});

	test('a dropped connection is reopened at once and events keep coming', async () => {
		const { emitted } = await startTrigger({ source: 'live', events: ['incomingcall'] });
		const [first] = await waitFor(() => streamCount() === 1 && sandbox.pbx.stream.list());
		sandbox.pbx.stream.applyFaults({ dropAfter: 2 });
		sandbox.pbx.injectIncomingCall({ callerIdName: 'one' });
		sandbox.pbx.injectIncomingCall({ callerIdName: 'two' });
		await waitFor(() => emitted.length === 2);
		const reopened = await waitFor(() => sandbox.pbx.stream.list().find((c) => c.id > first.id));
		expect(reopened).toBeDefined();
		sandbox.pbx.injectIncomingCall({ callerIdName: 'three' });
		await waitFor(() => emitted.length === 3);
		expect(emitted.map((e) => e.callerIdName)).toEqual(['one', 'two', 'three']);
	});

	test('401 at activation fails the activation, saying when it tries again; activations before then send nothing', async () => {
		const streamRequests = () => sandbox.context.log.list({ pathPrefix: '/api/v1/stream' }).length;
		await expect(startTrigger({ source: 'live', events: ['incomingcall'] }, { password: 'wrong' })).rejects.toThrow(
			/refused the credentials \(401\).*tries again at .* \(or at once when the credential changes\)/s,
		);
		expect(streamRequests()).toBe(1);
		// n8n activates a failed trigger again a second later, and keeps retrying: none of it reaches the platform.
		for (let i = 0; i < 5; i++) {
			await expect(startTrigger({ source: 'live', events: ['incomingcall'] }, { password: 'wrong' })).rejects.toThrow(/401/);
		}
		expect(streamRequests()).toBe(1);
		// The user fixes the password: the next activation connects at once.
		const { emitted } = await startTrigger({ source: 'live', events: ['incomingcall'] });
		expect(streamRequests()).toBe(2);
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectIncomingCall({ callerIdName: 'after the fix' });
		await waitFor(() => emitted.length === 1);
	});

	test('401 while streaming (a password changed) reaches n8n once through emitError; n8n\'s reactivation succeeds, sends nothing until the wait is over, then recovers by itself', async () => {
		retryTimes.firstMs = 1500;
		try {
			const { errors, response } = await startTrigger({ source: 'live', events: ['incomingcall'] });
			await waitFor(() => streamCount() === 1);
			const fault = sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 401, count: 1000 });
			sandbox.pbx.stream.closeAll();
			await waitFor(() => errors.length === 1);
			expect(errors[0].message).toMatch(/401.*tries again at/s);
			const before = sandbox.context.log.list({ pathPrefix: '/api/v1/stream' }).length;
			// n8n deactivates the trigger and activates it again: that activation succeeds and waits.
			await response.closeFunction?.();
			const again = await startTrigger({ source: 'live', events: ['incomingcall'] });
			await new Promise((resolve) => setTimeout(resolve, 300));
			expect(sandbox.context.log.list({ pathPrefix: '/api/v1/stream' }).length).toBe(before);
			expect(errors).toHaveLength(1);
			// The password works again: after the wait the stream opens, without the user publishing again.
			sandbox.context.faults.remove(fault.id);
			await waitFor(() => streamCount() === 1, 5000);
			sandbox.pbx.injectIncomingCall({ from: '+447700900123' });
			await waitFor(() => again.emitted.length === 1);
		} finally {
			retryTimes.firstMs = FIRST_RETRY_MS;
		}
	});

	test('closing releases the connection', async () => {
		const { response } = await startTrigger({ source: 'live', events: ['incomingcall'] });
		await waitFor(() => streamCount() === 1);
		await response.closeFunction?.();
		await waitFor(() => streamCount() === 0);
	});

	test('a test run emits the first event and closes the stream itself', async () => {
		const { emitted } = await startTrigger({ source: 'live', events: ['smsreceived'] }, { mode: 'manual' });
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectInboundSms({ body: 'first' });
		sandbox.pbx.injectInboundSms({ body: 'second' });
		await waitFor(() => emitted.length >= 1);
		await waitFor(() => streamCount() === 0);
		expect(emitted.map((e) => e.excerpt)).toEqual(['first']);
	});
});

describe('missed events recovered from the history', () => {
	const both = { source: 'live', events: ['incomingcall', 'smsreceived'] };

	test('after a drop, calls and messages made while the stream was down are emitted once, marked recovered; what arrived live is not repeated', async () => {
		const { emitted } = await startTrigger(both);
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900111', callerIdName: 'Live Caller' });
		await waitFor(() => emitted.length === 1);
		// The platform goes away for a few seconds: every reconnect is refused until then.
		sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 503, count: 2 });
		sandbox.pbx.stream.closeAll();
		await waitFor(() => streamCount() === 0);
		// The live caller rings again while the stream is down: a second call, not the first one again.
		sandbox.pbx.injectIncomingCall({ from: '+447700900111', callerIdName: 'Missed One' });
		sandbox.pbx.injectInboundSms({ from: '+447700900333', to: '+441632960001', body: 'Sent while you were away' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900444', callerIdName: 'Missed Two' });
		await waitFor(() => emitted.length === 4, 15_000);
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(emitted).toHaveLength(4);
		expect(emitted[0]).toMatchObject({ callerIdName: 'Live Caller' });
		expect(emitted[0].recovered).toBeUndefined();
		// Oldest first; records of one second (timestamps may have whole seconds only) in any order.
		expect(emitted.slice(1)).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ event: 'incomingcall', callerIdNumber: '+447700900111', callerIdName: 'Missed One', recovered: true }),
				expect.objectContaining({ event: 'smsreceived', from: '+447700900333', body: 'Sent while you were away', recovered: true }),
				expect.objectContaining({ event: 'incomingcall', callerIdNumber: '+447700900444', recovered: true }),
			]),
		);
	}, 20_000);

	test('a call from before the workflow was published is never read back, even within the minutes a gap is widened by', async () => {
		sandbox.pbx.injectIncomingCall({ from: '+447700900151', callerIdName: 'Before Publishing' });
		await new Promise((resolve) => setTimeout(resolve, 1100));
		const { emitted } = await startTrigger({ source: 'live', events: ['incomingcall'] });
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900152', callerIdName: 'Live Caller' });
		await waitFor(() => emitted.length === 1);
		sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 503, count: 2 });
		sandbox.pbx.stream.closeAll();
		await waitFor(() => streamCount() === 0);
		sandbox.pbx.injectIncomingCall({ from: '+447700900153', callerIdName: 'Missed' });
		await waitFor(() => emitted.length === 2, 15_000);
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(emitted.map((e) => [e.callerIdNumber, e.recovered ?? false])).toEqual([
			['+447700900152', false],
			['+447700900153', true],
		]);
	}, 20_000);

	test('after a refusal, n8n\'s reactivation reads back the calls made while it held, even from a stale copy of the static data (n8n 1.x); what arrived live is not repeated', async () => {
		retryTimes.firstMs = 1500;
		try {
			const first = await startTrigger({ source: 'live', events: ['incomingcall'] });
			await waitFor(() => streamCount() === 1);
			sandbox.pbx.injectIncomingCall({ from: '+447700900141', callerIdName: 'Live Caller' });
			await waitFor(() => first.emitted.length === 1);
			const fault = sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 401, count: 1000 });
			sandbox.pbx.stream.closeAll();
			await waitFor(() => first.errors.length === 1);
			await first.response.closeFunction?.();
			sandbox.pbx.injectIncomingCall({ from: '+447700900142', callerIdName: 'While Refused' });
			// n8n activates the trigger again; n8n 1.x hands it the static data of its first activation (none here).
			const again = await startTrigger({ source: 'live', events: ['incomingcall'] });
			sandbox.context.faults.remove(fault.id);
			await waitFor(() => again.emitted.length === 1, 8000);
			await new Promise((resolve) => setTimeout(resolve, 500));
			expect(again.emitted).toEqual([expect.objectContaining({ event: 'incomingcall', callerIdNumber: '+447700900142', recovered: true })]);
		} finally {
			retryTimes.firstMs = FIRST_RETRY_MS;
		}
	}, 15_000);

	test('after a restart of n8n, the gap since the last event is read back; events emitted before it are not repeated', async () => {
		const minute = (ago: number) => new Date(Date.now() - ago * 60_000).toISOString();
		sandbox.pbx.injectIncomingCall({ from: '+447700900555', callerIdName: 'Before the restart', created: minute(3) });
		sandbox.pbx.injectIncomingCall({ from: '+447700900666', callerIdName: 'During the restart', created: minute(1) });
		const staticData: IDataObject = {
			lastSeenAt: Date.now() - 3 * 60_000 + 1000,
			live: { 'incomingcall|447700900555': [Date.now() - 3 * 60_000 + 500] },
		};
		const { emitted } = await startTrigger(both, { staticData, activation: 'init' });
		await waitFor(() => emitted.length === 1, 10_000);
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(emitted).toEqual([expect.objectContaining({ callerIdName: 'During the restart', recovered: true })]);
	});

	test('a user publishing the workflow again does not replay the time it was off; nor does a trigger with recovery turned off', async () => {
		sandbox.pbx.injectIncomingCall({ from: '+447700900777', created: new Date(Date.now() - 60_000).toISOString() });
		const off = { lastSeenAt: Date.now() - 120_000 };
		const published = await startTrigger(both, { staticData: { ...off }, activation: 'activate' });
		const disabled = await startTrigger({ ...both, options: { recoverMissedEvents: false } }, { staticData: { ...off }, activation: 'init' });
		await new Promise((resolve) => setTimeout(resolve, 3000));
		expect([published.emitted, disabled.emitted]).toEqual([[], []]);
	});
});

describe('polling', () => {
	const missedCalls = { source: 'poll', pollEvent: 'missedCall', customerId: locator('me'), pollIntervalSeconds: 0.1 };
	const emittedCallers = (started: Started) => started.emitted.map((e) => e.fromNumber);

	test('the first activation does not replay history; a new missed call is emitted once', async () => {
		const started = await startTrigger(missedCalls);
		await waitFor(() => sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/calls' }).length >= 2);
		expect(started.emitted).toEqual([]);
		sandbox.pbx.injectIncomingCall({ from: '+447700900201', outcome: 'NO_ANSWER' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900202', outcome: 'ANSWERED' });
		await waitFor(() => started.emitted.length === 1);
		await new Promise((resolve) => setTimeout(resolve, 400));
		expect(emittedCallers(started)).toEqual(['+447700900201']);
		expect(started.emitted[0]).toMatchObject({ event: 'missedCall', direction: 'IN', outcome: 'NO_ANSWER', fromName: 'Demo Caller' });
		const query = sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/calls' }).at(-1)!.query;
		expect(query).toMatchObject({ direction: 'in', createdAfter: expect.any(String) });
	});

	test('records sharing a timestamp, and one arriving late, are each emitted exactly once', async () => {
		const started = await startTrigger(missedCalls);
		await waitFor(() => sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/calls' }).length >= 1);
		const sameTime = new Date().toISOString();
		sandbox.pbx.injectIncomingCall({ from: '+447700900301', created: sameTime });
		sandbox.pbx.injectIncomingCall({ from: '+447700900302', created: sameTime });
		await waitFor(() => started.emitted.length === 2);
		// Written to the history later than calls already emitted, with an earlier timestamp.
		sandbox.pbx.injectIncomingCall({ from: '+447700900303', created: new Date(Date.now() - 120_000).toISOString() });
		sandbox.pbx.injectIncomingCall({ from: '+447700900304', created: sameTime });
		await waitFor(() => started.emitted.length === 4);
		await new Promise((resolve) => setTimeout(resolve, 400));
		expect(emittedCallers(started).sort()).toEqual(['+447700900301', '+447700900302', '+447700900303', '+447700900304']);
	});

	test('a restart with the stored cursor emits nothing old and picks up what came in between', async () => {
		const first = await startTrigger(missedCalls);
		sandbox.pbx.injectIncomingCall({ from: '+447700900401' });
		await waitFor(() => first.emitted.length === 1);
		await first.response.closeFunction?.();
		const cursor = JSON.parse(JSON.stringify(first.staticData().cursor)) as PollCursor;
		expect(cursor.seen.length).toBeGreaterThan(0);
		sandbox.pbx.injectIncomingCall({ from: '+447700900402' });
		const second = await startTrigger(missedCalls, { staticData: { cursor } });
		await waitFor(() => second.emitted.length === 1);
		await new Promise((resolve) => setTimeout(resolve, 400));
		expect(emittedCallers(second)).toEqual(['+447700900402']);
	});

	test('a second activation of the same node (n8n 2.40 may do this) stops the first loop: each record once', async () => {
		const first = await startTrigger(missedCalls);
		const second = await startTrigger(missedCalls);
		sandbox.pbx.injectIncomingCall({ from: '+447700900411', outcome: 'NO_ANSWER' });
		await waitFor(() => second.emitted.length === 1);
		await new Promise((resolve) => setTimeout(resolve, 400));
		expect([...emittedCallers(first), ...emittedCallers(second)]).toEqual(['+447700900411']);
	});

	test('new call records filtered by outcome', async () => {
		const started = await startTrigger({
			...missedCalls,
			pollEvent: 'callRecord',
			filters: { direction: 'in', outcomes: ['ANSWERED'] },
		});
		await waitFor(() => sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/calls' }).length >= 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900501', outcome: 'BUSY' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900502', outcome: 'ANSWERED' });
		await waitFor(() => started.emitted.length === 1);
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(emittedCallers(started)).toEqual(['+447700900502']);
		expect(started.emitted[0].event).toBe('callRecord');
	});

	test('new inbound SMS, read from the newest end of the list', async () => {
		for (let i = 0; i < 450; i++) sandbox.pbx.injectInboundSms({ body: `old ${i}`, created: new Date(Date.now() - 3_600_000 + i).toISOString() });
		const started = await startTrigger({ ...missedCalls, pollEvent: 'inboundSms' });
		await waitFor(() => sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/sms' }).length >= 2);
		sandbox.context.log.clear();
		sandbox.pbx.injectInboundSms({ from: '+447700900601', body: 'Please call me back' });
		await waitFor(() => started.emitted.length === 1);
		expect(started.emitted[0]).toMatchObject({ event: 'inboundSms', direction: 'IN', body: 'Please call me back', fromNumber: '+447700900601' });
		// Oldest-first list of 454 messages: the poll reads page 1 and then the last page only.
		const pages = sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/sms' }).slice(0, 2).map((r) => r.query.page);
		expect(pages).toEqual(['1', '3']);
	});

	test('a test run shows the newest matching record', async () => {
		const started = await startTrigger(missedCalls, { mode: 'manual' });
		expect(started.emitted).toHaveLength(1);
		// The seed's newest unanswered inbound call was busy: busy counts as missed.
		expect(started.emitted[0]).toMatchObject({ event: 'missedCall', direction: 'IN', outcome: 'BUSY', fromNumber: '+447700900009' });
	});

	test('the cursor is primed and stored before activation returns, so a restart before the first event keeps it', async () => {
		const started = await startTrigger(missedCalls);
		// n8n saves static data right after activation: the cursor must already be there.
		expect(started.staticData().cursor).toMatchObject({ key: expect.any(String), since: expect.any(String) });
		await started.response.closeFunction?.();
		const cursor = JSON.parse(JSON.stringify(started.staticData().cursor)) as PollCursor;
		sandbox.pbx.injectIncomingCall({ from: '+447700900403' });
		const restarted = await startTrigger(missedCalls, { staticData: { cursor } });
		await waitFor(() => restarted.emitted.length === 1);
		expect(emittedCallers(restarted)).toEqual(['+447700900403']);
	});

	test('401 at activation fails the activation with the error; nothing is left running', async () => {
		await expect(startTrigger(missedCalls, { password: 'wrong' })).rejects.toThrow(/\(401\)/);
	});

	test('401 while polling is reported once through emitError; later polls wait for the refusal gate and recover by themselves', async () => {
		retryTimes.firstMs = 1500;
		try {
			const first = await startTrigger(missedCalls);
			await first.response.closeFunction?.();
			const cursor = JSON.parse(JSON.stringify(first.staticData().cursor)) as PollCursor;
			// The platform refuses the credential while the trigger polls (here every 0.1 s).
			const fault = sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/customers/me/calls', status: 401, count: 1000 });
			const started = await startTrigger(missedCalls, { staticData: { cursor } });
			await waitFor(() => started.errors.length === 1);
			expect(started.errors[0].message).toMatch(/\(401\).*tries again at/s);
			const refusedPolls = fault.hits;
			await new Promise((resolve) => setTimeout(resolve, 800));
			expect(fault.hits).toBe(refusedPolls);
			sandbox.context.faults.remove(fault.id);
			sandbox.pbx.injectIncomingCall({ from: '+447700900321', outcome: 'NO_ANSWER' });
			await waitFor(() => started.emitted.length === 1, 6000);
			expect(started.errors).toHaveLength(1);
		} finally {
			retryTimes.firstMs = FIRST_RETRY_MS;
		}
	});

	test('reactivated after a refusal with the first copy of its static data (n8n 1.x): a missed call made meanwhile is emitted, not taken as history', async () => {
		retryTimes.firstMs = 1500;
		try {
			const first = await startTrigger(missedCalls);
			await waitFor(() => sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/calls' }).length >= 2);
			const fault = sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/customers/me/calls', status: 401, count: 1000 });
			await waitFor(() => first.errors.length === 1);
			await first.response.closeFunction?.();
			sandbox.pbx.injectIncomingCall({ from: '+447700900331', outcome: 'NO_ANSWER' });
			// n8n 1.x activates the trigger again from the workflow data of its first activation: no cursor in it.
			const again = await startTrigger(missedCalls);
			sandbox.context.faults.remove(fault.id);
			await waitFor(() => again.emitted.length === 1, 6000);
			await new Promise((resolve) => setTimeout(resolve, 300));
			expect(emittedCallers(again)).toEqual(['+447700900331']);
		} finally {
			retryTimes.firstMs = FIRST_RETRY_MS;
		}
	});
});
