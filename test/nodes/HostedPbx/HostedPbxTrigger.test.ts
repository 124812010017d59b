import type { IDataObject, INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { HostedPbxTrigger } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbxTrigger.node';
import { resetTriggers } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/triggers/lifecycle';
import type { Sandbox } from '../../../sandbox';
import { fakeClockForFile } from '../../harness/clock';
import { waitFor } from '../../harness/wait';
import { runPbx, triggerLifecycle } from './pbxTestKit';
import type { ActiveTrigger } from './pbxTriggerKit';
import { triggerNode } from './pbxTriggerKit';

let sandbox: Sandbox;
const open = triggerLifecycle((started) => (sandbox = started));
const time = fakeClockForFile();

const node = (parameters: INodeParameters, options: Parameters<typeof triggerNode>[3] = {}) => triggerNode(sandbox, open, parameters, options);
const streamCount = () => sandbox.pbx.stream.list().length;
const streamRequests = () => sandbox.context.log.list({ pathPrefix: '/api/v1/stream' }).length;
const callsPath = '/api/v1/customers/me/calls';
const callRequests = () => sandbox.context.log.list({ pathPrefix: callsPath }).length;
const callers = (items: IDataObject[] | null) => (items ?? []).map((item) => item.fromNumber);
/** The id of a record the sandbox answered with (the last segment of its uri). */
const idOf = (rep: { uri?: unknown }) => String(rep.uri).split('/').pop()!;
/** A sandbox record time this many seconds before the clock's now. */
const ago = (seconds: number) => new Date(time.clock.now() - seconds * 1000).toISOString();

describe("n8n's node panel", () => {
	test('one Events parameter lists every event, live and polled, each an entry of its own', () => {
		const { description } = new HostedPbxTrigger();
		expect(description.polling).toBe(true);
		// n8n's node creator takes the first parameter named Event, Events or Trigger On.
		const eventParameters = description.properties.filter((p: INodeProperties) => ['event', 'events', 'trigger on'].includes(p.displayName.toLowerCase()));
		expect(eventParameters).toHaveLength(1);
		expect((eventParameters[0].options as INodePropertyOptions[]).map((o) => [o.action, o.value])).toEqual([
			['On call finished', 'callRecord'],
			['On credit low', 'creditLow'],
			['On incoming call ringing', 'incomingcall'],
			['On missed call', 'missedCall'],
			['On new call recording', 'newRecording'],
			['On SMS delivery receipt', 'smsdelivered'],
			['On SMS received instantly', 'smsreceived'],
			['On SMS received with full text', 'inboundSms'],
			['On text failed or delivered', 'textStatus'],
		]);
	});
});

describe('live events', () => {
	const calls = { events: ['incomingcall'] };

	test('an incoming call becomes one flat item; unselected events are not emitted', async () => {
		const active = node(calls);
		await active.activate();
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectInboundSms({ body: 'not wanted' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900555', callerIdName: 'Jane Caller', endpointId: '202' });
		await waitFor(() => active.emitted.length === 1);
		expect(active.emitted[0]).toEqual({
			event: 'incomingcall',
			callerIdNumber: '+447700900555',
			callerIdName: 'Jane Caller',
			endpoint: `${sandbox.url}/api/v1/customers/1001/endpoints/202`,
			endpointId: '202',
			location: null,
			receivedAt: new Date(time.clock.now()).toISOString(),
		});
	});

	test.each([
		['concatenated', 'bytewise'],
		['padded', 'random'],
		['newline', 'random'],
	])('%s objects split %s arrive whole and in order, multi-byte characters too', async (framing, chunking) => {
		sandbox.pbx.stream.settings = { ...sandbox.pbx.stream.settings, framing: framing as never, chunking: chunking as never, chunkDelayMs: 1 };
		const active = node({ events: ['incomingcall', 'smsreceived'] });
		await active.activate();
		await waitFor(() => streamCount() === 1);
		for (let i = 0; i < 5; i++) {
			sandbox.pbx.injectIncomingCall({ callerIdName: `Zoë ${i} 📞 Ærø`, from: `+44770090010${i}` });
			sandbox.pbx.injectInboundSms({ body: `ça va? ${i} ✓` });
		}
		await waitFor(() => active.emitted.length === 10, 15_000);
		expect(active.emitted.filter((e) => e.event === 'incomingcall').map((e) => e.callerIdName)).toEqual([0, 1, 2, 3, 4].map((i) => `Zoë ${i} 📞 Ærø`));
		expect(active.emitted.filter((e) => e.event === 'smsreceived').map((e) => e.excerpt)).toEqual([0, 1, 2, 3, 4].map((i) => `ça va? ${i} ✓`));
	});

	test('each malformed object is skipped and logged once as an incident; the stream goes on', async () => {
		const active = node(calls);
		await active.activate();
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.stream.applyFaults({ malformed: true });
		sandbox.pbx.injectIncomingCall({ callerIdName: 'after one' });
		sandbox.pbx.stream.applyFaults({ malformed: true });
		sandbox.pbx.injectIncomingCall({ callerIdName: 'after two' });
		await waitFor(() => active.emitted.length === 2);
		expect(active.emitted.map((e) => e.callerIdName)).toEqual(['after one', 'after two']);
		expect(active.warnings).toEqual([expect.stringMatching(/skipped bytes that are not a JSON object/), expect.stringMatching(/skipped bytes/)]);
	});

	test('heartbeats keep a quiet connection alive past the Heartbeat Timeout; a stalled one is replaced after it', async () => {
		sandbox.pbx.stream.settings = { ...sandbox.pbx.stream.settings, heartbeatMs: 20 };
		const active = node({ ...calls, options: { heartbeatTimeoutSeconds: 65 } });
		await active.activate();
		const [connection] = await waitFor(() => streamCount() === 1 && sandbox.pbx.stream.list());
		// Four minutes of the trigger's time, a heartbeat read in each window (the trigger notes when it last heard anything).
		const heardAt = () => (active.staticData().live as IDataObject | undefined)?.lastSeenAt;
		for (let i = 0; i < 4; i++) {
			await time.clock.advance(60_000);
			await waitFor(() => heardAt() === time.clock.now());
		}
		expect(sandbox.pbx.stream.list()).toEqual([expect.objectContaining({ id: connection.id })]);
		sandbox.pbx.stream.applyFaults({ stall: true });
		await time.clock.advance(66_000);
		const replaced = await waitFor(() => sandbox.pbx.stream.list().find((c) => !c.stalled && c.id > connection.id));
		expect(active.logErrors).toEqual([]);
		sandbox.pbx.injectIncomingCall({ callerIdName: 'after the stall' });
		await waitFor(() => active.emitted.length === 1);
		expect([replaced.id > connection.id, active.emitted[0].callerIdName]).toEqual([true, 'after the stall']);
	});

	test('a dropped connection is reopened at once and events keep coming', async () => {
		const active = node(calls);
		await active.activate();
		const [first] = await waitFor(() => streamCount() === 1 && sandbox.pbx.stream.list());
		sandbox.pbx.stream.applyFaults({ dropAfter: 2 });
		sandbox.pbx.injectIncomingCall({ callerIdName: 'one' });
		sandbox.pbx.injectIncomingCall({ callerIdName: 'two' });
		await waitFor(() => active.emitted.length === 2);
		// No time passes on the trigger's clock: the reconnect is immediate.
		await waitFor(() => sandbox.pbx.stream.list().find((c) => c.id > first.id));
		sandbox.pbx.injectIncomingCall({ callerIdName: 'three' });
		await waitFor(() => active.emitted.length === 3);
		expect(active.emitted.map((e) => e.callerIdName)).toEqual(['one', 'two', 'three']);
	});

	test('a stream that cannot be opened (an outage, a wrong Base URL) is reported once it persists, not on every attempt, nor again after n8n activates the trigger again', async () => {
		sandbox.pbx.restartStream({ downMs: 3_600_000 });
		const first = node(calls);
		const response = await first.activate();
		await time.clock.advanceUntil(() => first.errors.length === 1, { stepMs: 5000 });
		expect(first.errors[0].message).toMatch(/^The Hosted PBX API live event stream cannot be opened: .*\(503\)/);
		expect((first.errors[0] as Error & { description?: string }).description).toMatch(/^5 attempts in a row failed\. The trigger keeps trying .* every 15 minutes/);
		expect(streamRequests()).toBe(5);
		expect(first.warnings.filter((w) => /^Hosted PBX stream: .*\(503\).*; reconnecting in \d+ ms$/.test(w))).toHaveLength(4);
		expect(first.logErrors).toEqual([expect.stringMatching(/\(503\).*; reconnecting in \d+ ms \(5 failed attempts in a row\)$/)]);
		// n8n answers the error by activating the trigger again: it goes on trying and does not report again.
		await response.closeFunction?.();
		const again = node(calls);
		await again.activate();
		await time.clock.advanceUntil(() => again.logErrors.length === 1, { stepMs: 5000 });
		expect(again.errors).toHaveLength(0);
		expect(streamRequests()).toBe(10);
	});

	test('401 at activation fails the activation, saying when it tries again; activations before then send nothing; a fixed password connects at once', async () => {
		await expect(node(calls, { password: 'wrong' }).activate()).rejects.toThrow(/refused the credentials \(401\).*tries again at .* \(or at once when the credential changes\)/s);
		expect(streamRequests()).toBe(1);
		// n8n activates a failed trigger again a second later, and keeps retrying: none of it reaches the platform.
		for (let i = 0; i < 5; i++) await expect(node(calls, { password: 'wrong' }).activate()).rejects.toThrow(/401/);
		expect(streamRequests()).toBe(1);
		const fixed = node(calls);
		await fixed.activate();
		expect(streamRequests()).toBe(2);
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectIncomingCall({ callerIdName: 'after the fix' });
		await waitFor(() => fixed.emitted.length === 1);
	});

	test("401 while streaming (a password changed) reaches n8n once through emitError; n8n's reactivation sends nothing until the wait is over, then recovers by itself", async () => {
		const first = node(calls);
		const response = await first.activate();
		await waitFor(() => streamCount() === 1);
		const fault = sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 401, count: 1000 });
		sandbox.pbx.stream.closeAll();
		await waitFor(() => first.errors.length === 1);
		expect(first.errors[0].message).toMatch(/401.*tries again at/s);
		const before = streamRequests();
		// n8n deactivates the trigger and activates it again: that activation succeeds and waits.
		await response.closeFunction?.();
		const again = node(calls);
		await again.activate();
		await time.clock.advance(59_000);
		expect([streamRequests(), first.errors.length, again.errors.length]).toEqual([before, 1, 0]);
		// The password works again: after the wait the stream opens, without the user publishing again.
		sandbox.context.faults.remove(fault.id);
		await time.clock.advance(2000);
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900123' });
		await waitFor(() => again.emitted.length === 1);
	});

	test('closing releases the connection', async () => {
		const response = await node(calls).activate();
		await waitFor(() => streamCount() === 1);
		await response.closeFunction?.();
		await waitFor(() => streamCount() === 0);
	});

	test('a test run emits the first event and closes the stream itself', async () => {
		const active = node({ events: ['smsreceived'] });
		await active.activate({ mode: 'manual' });
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectInboundSms({ body: 'first' });
		sandbox.pbx.injectInboundSms({ body: 'second' });
		await waitFor(() => active.emitted.length >= 1);
		await waitFor(() => streamCount() === 0);
		expect(active.emitted.map((e) => e.excerpt)).toEqual(['first']);
	});

	test('a second activation of the same node (n8n 2.40 may do this) replaces the first: one stream, each event once', async () => {
		const first = node(calls);
		await first.activate();
		const [firstStream] = await waitFor(() => streamCount() === 1 && sandbox.pbx.stream.list());
		const second = node(calls);
		await second.activate();
		await waitFor(() => streamCount() === 1 && sandbox.pbx.stream.list()[0].id !== firstStream.id);
		sandbox.pbx.injectIncomingCall({ from: '+447700900557' });
		await waitFor(() => second.emitted.length === 1);
		expect([first.emitted, streamCount()]).toEqual([[], 1]);
	});

	test('only polled events chosen: activation opens no stream', async () => {
		const response = await node({ events: ['missedCall'] }).activate();
		expect(response.closeFunction).toBeUndefined();
		expect(streamRequests()).toBe(0);
	});
});

describe('missed live events read back from the history', () => {
	const both = { events: ['incomingcall', 'smsreceived'] };

	test('after a drop, calls and messages made while the stream was down are emitted once, marked recovered; what arrived live is not repeated', async () => {
		const active = node(both);
		await active.activate();
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900111', callerIdName: 'Live Caller' });
		await waitFor(() => active.emitted.length === 1);
		// The platform goes away: the next two reconnects are refused.
		sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 503, count: 2 });
		sandbox.pbx.stream.closeAll();
		await waitFor(() => streamRequests() >= 2);
		await time.clock.advance(1000);
		// The live caller rings again while the stream is down: a second call, not the first one again.
		sandbox.pbx.injectIncomingCall({ from: '+447700900111', callerIdName: 'Missed One' });
		sandbox.pbx.injectInboundSms({ from: '+447700900333', to: '+441632960001', body: 'Sent while you were away' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900444', callerIdName: 'Missed Two' });
		await time.clock.advanceUntil(() => active.emitted.length === 4, { maxAdvanceMs: 30_000 });
		await time.clock.advance(5000);
		expect(active.emitted).toHaveLength(4);
		expect(active.emitted[0]).toMatchObject({ callerIdName: 'Live Caller' });
		expect(active.emitted[0].recovered).toBeUndefined();
		expect(active.emitted.slice(1)).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ event: 'incomingcall', callerIdNumber: '+447700900111', callerIdName: 'Missed One', recovered: true }),
				expect.objectContaining({ event: 'smsreceived', from: '+447700900333', body: 'Sent while you were away', recovered: true }),
				expect.objectContaining({ event: 'incomingcall', callerIdNumber: '+447700900444', recovered: true }),
			]),
		);
	});

	test('a call from before the workflow was published is never read back, even within the minutes a gap is widened by', async () => {
		sandbox.pbx.injectIncomingCall({ from: '+447700900151', callerIdName: 'Before Publishing', created: ago(2) });
		const active = node({ events: ['incomingcall'] });
		await active.activate();
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900152', callerIdName: 'Live Caller' });
		await waitFor(() => active.emitted.length === 1);
		sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 503, count: 2 });
		sandbox.pbx.stream.closeAll();
		await waitFor(() => streamRequests() >= 2);
		await time.clock.advance(1000);
		sandbox.pbx.injectIncomingCall({ from: '+447700900153', callerIdName: 'Missed' });
		await time.clock.advanceUntil(() => active.emitted.length === 2, { maxAdvanceMs: 30_000 });
		await time.clock.advance(5000);
		expect(active.emitted.map((e) => [e.callerIdNumber, e.recovered ?? false])).toEqual([
			['+447700900152', false],
			['+447700900153', true],
		]);
	});

	test('n8n activating a just-published node again before anything came on the stream (n8n 2.x publishes twice): a call between the two activations is read back once', async () => {
		const first = node({ events: ['incomingcall'] }, { workflowId: 'published-twice' });
		await first.activate({ activation: 'activate' });
		await waitFor(() => streamCount() === 1);
		// The second activation's stream cannot open at first: a call comes while neither listens.
		sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 503, count: 1 });
		const again = node({ events: ['incomingcall'] }, { workflowId: 'published-twice' });
		await again.activate({ activation: 'activate' });
		expect(streamCount()).toBe(0);
		sandbox.pbx.injectIncomingCall({ from: '+447700900161', callerIdName: 'Between Activations' });
		await time.clock.advanceUntil(() => again.emitted.length === 1, { maxAdvanceMs: 30_000 });
		await time.clock.advance(5000);
		expect([first.emitted, again.emitted.map((e) => [e.callerIdNumber, e.recovered ?? false])]).toEqual([[], [['+447700900161', true]]]);
	});

	test("after a refusal, n8n's reactivation reads back the calls made while it held, even from a stale copy of the static data (n8n 1.x); what arrived live is not repeated", async () => {
		const first = node({ events: ['incomingcall'] }, { workflowId: 'refused' });
		const response = await first.activate();
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900141', callerIdName: 'Live Caller' });
		await waitFor(() => first.emitted.length === 1);
		const fault = sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 401, count: 1000 });
		sandbox.pbx.stream.closeAll();
		await waitFor(() => first.errors.length === 1);
		await response.closeFunction?.();
		await time.clock.advance(1000);
		sandbox.pbx.injectIncomingCall({ from: '+447700900142', callerIdName: 'While Refused' });
		// n8n activates the trigger again; n8n 1.x hands it the static data of its first activation (none here).
		const again = node({ events: ['incomingcall'] }, { workflowId: 'refused' });
		await again.activate();
		sandbox.context.faults.remove(fault.id);
		await time.clock.advanceUntil(() => again.emitted.length === 1, { stepMs: 5000, maxAdvanceMs: 90_000 });
		await time.clock.advance(5000);
		expect(again.emitted).toEqual([expect.objectContaining({ event: 'incomingcall', callerIdNumber: '+447700900142', recovered: true })]);
	});

	test('in the first lifetime of a freshly published workflow, every emit stores the state: after a restart, what came while n8n was down is emitted once, nothing emitted before comes again', async () => {
		const first = node(both, { workflowId: 'fresh' });
		const response = await first.activate();
		await waitFor(() => streamCount() === 1);
		for (const from of ['+447700900161', '+447700900162', '+447700900163']) sandbox.pbx.injectIncomingCall({ from });
		sandbox.pbx.injectInboundSms({ from: '+447700900164', body: 'live text' });
		await waitFor(() => first.emitted.length === 4);
		await response.closeFunction?.();
		const stored = first.stored();
		expect(stored?.live).toMatchObject({ lastSeenAt: expect.any(Number), listeningSince: expect.any(Number), live: expect.any(Object) });
		// n8n is down for a minute: two calls and a text come in.
		await time.clock.advance(60_000);
		sandbox.pbx.injectIncomingCall({ from: '+447700900165' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900161' });
		sandbox.pbx.injectInboundSms({ from: '+447700900166', body: 'while down' });
		// n8n starts again: a new process (nothing remembered) with what it stored.
		resetTriggers();
		const restarted = node(both, { workflowId: 'fresh', staticData: stored });
		await restarted.activate({ activation: 'init' });
		await time.clock.advanceUntil(() => restarted.emitted.length === 3, { maxAdvanceMs: 10_000 });
		await time.clock.advance(5000);
		expect(restarted.emitted).toHaveLength(3);
		expect(restarted.emitted.map((e) => [e.event, e.callerIdNumber ?? e.from, e.recovered])).toEqual(
			expect.arrayContaining([
				['incomingcall', '+447700900165', true],
				['incomingcall', '+447700900161', true],
				['smsreceived', '+447700900166', true],
			]),
		);
	});

	test('a user publishing the workflow again does not replay the time it was off; nor does a trigger with recovery turned off', async () => {
		sandbox.pbx.injectIncomingCall({ from: '+447700900777', created: ago(60) });
		const off = { live: { lastSeenAt: time.clock.now() - 120_000 } };
		const published = node(both, { staticData: off, workflowId: 'published' });
		await published.activate({ activation: 'activate' });
		const disabled = node({ ...both, options: { recoverMissedEvents: false } }, { staticData: off, workflowId: 'disabled' });
		await disabled.activate({ activation: 'init' });
		await waitFor(() => streamCount() === 2);
		await time.clock.advance(10_000);
		expect([published.emitted, disabled.emitted, callRequests()]).toEqual([[], [], 0]);
	});
});

describe('events the platform keeps as records: new recordings, text statuses, credit', () => {
	test('New Recording: each recording once, several sharing a timestamp and one arriving late for a finished call; the record as it is', async () => {
		const active = node({ events: ['newRecording'] });
		expect(await active.poll()).toBeNull();
		const at = ago(0);
		sandbox.pbx.injectRecording({ partyId: '+447700900701', created: at });
		sandbox.pbx.injectRecording({ partyId: '+447700900702', created: at });
		// The seed's first call finished long ago: its recording arrives only now.
		const late = sandbox.pbx.injectRecording({ callId: 'c-1000' });
		const items = (await active.poll())!;
		expect(items.map((item) => item.partyId).sort()).toEqual(['+447700900001', '+447700900701', '+447700900702']);
		expect(items.find((item) => item.callId === 'c-1000')).toMatchObject({ event: 'newRecording', id: idOf(late), linkedId: 'c-1000', direction: 'IN', started: expect.any(String), size: expect.any(Number) });
		expect(await active.poll()).toBeNull();
	});

	test('New Recording with Include Call Details and Download Audio: the call and the WAV; a failed download keeps the event and says why', async () => {
		const active = node({ events: ['newRecording'], options: { includeCallDetails: true, downloadAudio: true } });
		await active.poll();
		sandbox.pbx.injectRecording({ callId: 'c-1000', seconds: 2 });
		sandbox.pbx.injectRecording({ partyId: '+447700900703', bytes: 64 * 1024 * 1024 + 1 });
		sandbox.context.log.clear();
		const items = (await active.poll())!;
		const withCall = items.find((item) => item.callId === 'c-1000')!;
		expect(withCall.call).toMatchObject({ callId: 'c-1000', direction: 'IN', fromNumber: '+447700900001' });
		expect(withCall.audioError).toBeUndefined();
		const noCall = items.find((item) => item.partyId === '+447700900703')!;
		expect(noCall).toMatchObject({ call: null, callError: expect.stringMatching(/No call/), audioError: expect.stringMatching(/larger than 64 MiB/) });
		// One history read per recording for its call, one download each.
		const paths = sandbox.context.log.list({ pathPrefix: '/api/v1/' }).map((r) => r.path.replace(/\/\d+$/, '/{id}'));
		expect(paths.filter((p) => p === '/api/v1/customers/me/calls')).toHaveLength(2);
		expect(paths.filter((p) => p === '/api/v1/customers/me/recordings/{id}')).toHaveLength(2);
	});

	test('New Recording as n8n runs it: the WAV arrives as binary data named after the recording', async () => {
		const active = node({ events: ['newRecording'], options: { downloadAudio: true, audioProperty: 'audio' } });
		await active.poll();
		const recording = sandbox.pbx.injectRecording({ seconds: 1 });
		const binary = await active.pollBinary();
		expect(binary).toEqual([{ audio: expect.objectContaining({ fileName: `recording-${idOf(recording)}.wav`, mimeType: 'audio/wav' }) }]);
	});

	test('Text Status Changed: a text is emitted once when it fails, is rejected or delivered, and once when its window ends without a final status', async () => {
		const active = node({ events: ['textStatus'], textOutcomes: ['failed', 'delivered', 'noFinalStatus'], options: { statusWindowMinutes: 5 } });
		const failed = sandbox.pbx.injectOutboundSms({ to: '+447700900711' }).sms;
		const delivered = sandbox.pbx.injectOutboundSms({ to: '+447700900712' }).sms;
		const stuck = sandbox.pbx.injectOutboundSms({ to: '+447700900713', sendStatus: 'SENT', deliveryStatus: 4 }).sms;
		expect(await active.poll()).toBeNull();
		sandbox.pbx.setSmsStatus(idOf(failed), { sendStatus: 'FAILED' });
		sandbox.pbx.setSmsStatus(idOf(delivered), { sendStatus: 'SENT', deliveryStatus: 1 });
		expect(((await active.poll()) ?? []).map((item) => [item.to, item.outcome, item.deliveryStatusText])).toEqual([
			['+447700900711', 'failed', null],
			['+447700900712', 'delivered', 'delivered to handset'],
		]);
		expect(await active.poll()).toBeNull();
		await time.clock.advance(5 * 60_000);
		expect(((await active.poll()) ?? []).map((item) => [item.id, item.outcome])).toEqual([[idOf(stuck), 'noFinalStatus']]);
		await time.clock.advance(60_000);
		expect(await active.poll()).toBeNull();
	});

	test('Text Status Changed shares the SMS list read with inbound SMS: one request a poll', async () => {
		const active = node({ events: ['textStatus', 'inboundSms'] });
		await active.poll();
		sandbox.context.log.clear();
		sandbox.pbx.injectInboundSms({ from: '+447700900714', body: 'hi' });
		const sent = sandbox.pbx.injectOutboundSms({ to: '+447700900715' }).sms;
		sandbox.pbx.setSmsStatus(idOf(sent), { sendStatus: 'SENT', deliveryStatus: 16 });
		expect(((await active.poll()) ?? []).map((item) => item.event).sort()).toEqual(['inboundSms', 'textStatus']);
		expect(sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/sms' })).toHaveLength(1);
	});

	test('Credit Low: once at the first poll when already low, never again while low, again after the balance was back above', async () => {
		const active = node({ events: ['creditLow'], creditThreshold: 5 });
		sandbox.pbx.setCredit('1001', { balance: 3 });
		expect(await active.poll()).toEqual([{ event: 'creditLow', balance: 3, threshold: 5, low: true, accountType: 'PREPAID', currency: 'GBP', checkedAt: expect.any(String) }]);
		sandbox.pbx.setCredit('1001', { balance: 2 });
		expect(await active.poll()).toBeNull();
		sandbox.pbx.setCredit('1001', { balance: 12 });
		expect(await active.poll()).toBeNull();
		sandbox.pbx.setCredit('1001', { balance: 4.5 });
		expect(await active.poll()).toEqual([expect.objectContaining({ balance: 4.5, low: true })]);
		// Stored with the emit: a restart while low does not alert again.
		const restarted = node({ events: ['creditLow'], creditThreshold: 5 }, { staticData: active.stored() });
		expect(await restarted.poll()).toBeNull();
	});

	test('a test run shows one item of each: the newest recording, the newest text with a final status, the balance', async () => {
		sandbox.pbx.injectRecording({ partyId: '+447700900716' });
		const sent = sandbox.pbx.injectOutboundSms({ to: '+447700900717' }).sms;
		sandbox.pbx.setSmsStatus(idOf(sent), { sendStatus: 'FAILED' });
		const items = await node({ events: ['newRecording', 'textStatus', 'creditLow'], creditThreshold: 100 }).poll('manual');
		expect(items!.map((item) => [item.event, item.partyId ?? item.to ?? item.balance])).toEqual([
			['newRecording', '+447700900716'],
			['textStatus', '+447700900717'],
			['creditLow', 42.5],
		]);
	});
});

describe('live events in batches', () => {
	const batched = (size: number, windowMs = 1000) => ({ events: ['incomingcall', 'smsreceived'], options: { batchSize: size, batchWindowMs: windowMs } });
	const calls = (from: number, count: number) => {
		for (let i = from; i < from + count; i++) sandbox.pbx.injectIncomingCall({ from: `+4477009008${String(i).padStart(2, '0')}` });
	};
	/** Calls the trigger has read from the stream, one by one (a batch gathering shows nothing else). */
	const callsRead = async (active: ActiveTrigger, from: number, count: number) => {
		for (let i = from; i < from + count; i++) {
			await time.clock.advance(10);
			calls(i, 1);
			await waitFor(() => (active.staticData().live as IDataObject | undefined)?.lastSeenAt === time.clock.now());
		}
	};

	test('one execution per batch: full batches at once, the rest when the window closes; every event once, in order', async () => {
		const active = node(batched(3, 5000));
		await active.activate();
		await waitFor(() => streamCount() === 1);
		calls(0, 7);
		await waitFor(() => active.emitted.length === 6);
		await time.clock.advance(4000);
		expect(active.executions.map((run) => run.length)).toEqual([3, 3]);
		await time.clock.advance(1000);
		await waitFor(() => active.executions.length === 3);
		expect(active.executions.map((run) => run.length)).toEqual([3, 3, 1]);
		expect(active.emitted.map((item) => item.callerIdNumber)).toEqual(Array.from({ length: 7 }, (_v, i) => `+4477009008${String(i).padStart(2, '0')}`));
	});

	test('a normal stop (n8n closes the trigger) while a batch gathers: nothing of it is counted as seen, the restart reads each event back once, what was emitted never comes again', async () => {
		const first = node({ ...batched(4, 60_000), events: ['incomingcall', 'smsreceived', 'smsdelivered'] }, { workflowId: 'batch-stop' });
		const response = await first.activate();
		await waitFor(() => streamCount() === 1);
		await callsRead(first, 30, 5);
		await time.clock.advance(10);
		sandbox.pbx.injectInboundSms({ from: '+447700900835', body: 'gathering text' });
		await waitFor(() => (first.staticData().live as IDataObject).lastSeenAt === time.clock.now());
		// A delivery receipt leaves no record to read back: it goes out with the close, the only chance it has.
		await time.clock.advance(10);
		const receipt = sandbox.pbx.injectOutboundSms({ to: '+447700900836', deliveryStatus: 1 });
		await waitFor(() => (first.staticData().live as IDataObject).lastSeenAt === time.clock.now());
		// On SIGTERM n8n closes the trigger; a run started now may never run, or be marked crashed.
		await response.closeFunction?.();
		expect(first.executions.map((run) => run.map((item) => item.callerIdNumber ?? item.from ?? item.event))).toEqual([
			['+447700900830', '+447700900831', '+447700900832', '+447700900833'],
			['smsdelivered'],
		]);
		expect(receipt.delivered).toBe(1);
		const stored = first.stored();
		// n8n is down for half a minute; then a new process starts with what n8n stored.
		await time.clock.advance(30_000);
		resetTriggers();
		const restarted = node(batched(4, 1000), { workflowId: 'batch-stop', staticData: stored });
		await restarted.activate({ activation: 'init' });
		await time.clock.advanceUntil(() => restarted.emitted.length >= 2, { maxAdvanceMs: 10_000 });
		await time.clock.advance(5000);
		expect(restarted.emitted.map((item) => [item.callerIdNumber ?? item.from, item.recovered])).toEqual([
			['+447700900834', true],
			['+447700900835', true],
		]);
	});

	test('events read back into a batch count as seen once their batch is emitted: a stop while the rest gathers reads the rest back after the restart, once', async () => {
		const first = node(batched(2, 60_000), { workflowId: 'batch-readback' });
		const response = await first.activate();
		await waitFor(() => streamCount() === 1);
		await callsRead(first, 40, 1);
		// The platform goes away until two calls came in meanwhile.
		const outage = sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 503, count: 1000 });
		sandbox.pbx.stream.closeAll();
		await waitFor(() => streamRequests() >= 2);
		await time.clock.advance(1000);
		calls(41, 1);
		await time.clock.advance(1000);
		calls(42, 1);
		sandbox.context.faults.remove(outage.id);
		await time.clock.advanceUntil(() => first.executions.length === 1, { maxAdvanceMs: 30_000 });
		expect(first.executions.map((run) => run.map((item) => [item.callerIdNumber, item.recovered ?? false]))).toEqual([
			[
				['+447700900840', false],
				['+447700900841', true],
			],
		]);
		// n8n stored the state with that emit; the second missed call gathers until n8n stops.
		await response.closeFunction?.();
		expect(first.executions).toHaveLength(1);
		const stored = first.stored();
		await time.clock.advance(30_000);
		resetTriggers();
		const restarted = node(batched(2, 1000), { workflowId: 'batch-readback', staticData: stored });
		await restarted.activate({ activation: 'init' });
		await time.clock.advanceUntil(() => restarted.emitted.length >= 1, { maxAdvanceMs: 10_000 });
		await time.clock.advance(5000);
		expect(restarted.emitted.map((item) => [item.callerIdNumber, item.recovered])).toEqual([['+447700900842', true]]);
	});

	test('a batch gathering when the user publishes the workflow again goes to the new activation, each event once', async () => {
		const first = node(batched(100, 60_000), { workflowId: 'batch-update' });
		const response = await first.activate();
		await waitFor(() => streamCount() === 1);
		await callsRead(first, 50, 2);
		await response.closeFunction?.();
		expect(first.executions).toEqual([]);
		const again = node(batched(100, 1000), { workflowId: 'batch-update' });
		await again.activate({ activation: 'update' });
		await time.clock.advanceUntil(() => again.executions.length === 1, { maxAdvanceMs: 5000 });
		await time.clock.advance(10_000);
		expect(again.executions.map((run) => run.map((item) => [item.callerIdNumber, item.recovered ?? false]))).toEqual([
			[
				['+447700900850', false],
				['+447700900851', false],
			],
		]);
	});

	test('n8n activating the node again in this process (twice at once, a retry) while a batch gathers: the new activation goes on with the batch and reads back a call that came between the two, each once', async () => {
		const first = node(batched(5, 60_000), { workflowId: 'batch-again' });
		await first.activate();
		await waitFor(() => streamCount() === 1);
		await callsRead(first, 70, 4);
		// The second activation's stream cannot open at first: a call comes while neither listens.
		sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 503, count: 1 });
		const again = node(batched(5, 60_000), { workflowId: 'batch-again' });
		await again.activate({ activation: 'activate' });
		expect([streamCount(), streamRequests()]).toEqual([0, 2]);
		calls(74, 1);
		await time.clock.advanceUntil(() => again.executions.length === 1, { maxAdvanceMs: 30_000 });
		await time.clock.advance(70_000);
		expect([first.executions, again.executions.map((run) => run.map((item) => [item.callerIdNumber, item.recovered ?? false]))]).toEqual([
			[],
			[[...[70, 71, 72, 73].map((i) => [`+4477009008${i}`, false]), ['+447700900874', true]]],
		]);
	});

	test('a reconnect while a batch gathers does not read its events back a second time', async () => {
		const active = node(batched(100, 30_000));
		await active.activate();
		await waitFor(() => streamCount() === 1);
		await callsRead(active, 60, 2);
		sandbox.pbx.stream.closeAll();
		// The gap is read back (the two calls' records are in it) while they still gather.
		await time.clock.advanceUntil(() => callRequests() >= 1, { maxAdvanceMs: 10_000 });
		await time.clock.advanceUntil(() => active.executions.length === 1, { maxAdvanceMs: 40_000 });
		await time.clock.advance(40_000);
		expect(active.executions.map((run) => run.map((item) => [item.callerIdNumber, item.recovered ?? false]))).toEqual([
			[
				['+447700900860', false],
				['+447700900861', false],
			],
		]);
	});

	test('a batch lost with n8n (killed while it gathered) is read back from the history after the restart, what was emitted is not', async () => {
		const first = node(batched(2, 60_000), { workflowId: 'batch-kill' });
		await first.activate();
		await waitFor(() => streamCount() === 1);
		calls(20, 3);
		await waitFor(() => first.executions.length === 1);
		// n8n is killed: the third call's batch never ran; what n8n stored is the state of the first emit.
		const stored = first.stored();
		sandbox.pbx.stream.closeAll();
		for (const response of open.splice(0)) await response.closeFunction?.();
		resetTriggers();
		await time.clock.advance(30_000);
		const restarted = node(batched(2, 1000), { workflowId: 'batch-kill', staticData: stored });
		await restarted.activate({ activation: 'init' });
		await time.clock.advanceUntil(() => restarted.emitted.length >= 1, { maxAdvanceMs: 10_000 });
		await time.clock.advance(5000);
		expect(restarted.emitted.map((item) => [item.callerIdNumber, item.recovered])).toEqual([['+447700900822', true]]);
	});
});

describe("polled events on n8n's Poll Times", () => {
	const missedCalls = { events: ['missedCall'] };

	test('the first poll (at activation) replays no history; a new missed call is returned once', async () => {
		const active = node(missedCalls);
		expect(await active.poll()).toBeNull();
		expect(callRequests()).toBe(1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900201', outcome: 'NO_ANSWER' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900202', outcome: 'ANSWERED' });
		const items = await active.poll();
		expect(callers(items)).toEqual(['+447700900201']);
		expect(items![0]).toMatchObject({ event: 'missedCall', direction: 'IN', outcome: 'NO_ANSWER', fromName: 'Demo Caller' });
		expect(sandbox.context.log.list({ pathPrefix: callsPath }).at(-1)!.query).toMatchObject({ direction: 'in', createdAfter: expect.any(String) });
		expect(await active.poll()).toBeNull();
	});

	test('records sharing a timestamp, and one arriving late, are each returned exactly once', async () => {
		const active = node(missedCalls);
		await active.poll();
		const sameTime = ago(0);
		sandbox.pbx.injectIncomingCall({ from: '+447700900301', created: sameTime });
		sandbox.pbx.injectIncomingCall({ from: '+447700900302', created: sameTime });
		expect(callers(await active.poll()).sort()).toEqual(['+447700900301', '+447700900302']);
		// Written to the history later than calls already returned, with an earlier timestamp.
		sandbox.pbx.injectIncomingCall({ from: '+447700900303', created: ago(120) });
		sandbox.pbx.injectIncomingCall({ from: '+447700900304', created: sameTime });
		expect(callers(await active.poll()).sort()).toEqual(['+447700900303', '+447700900304']);
		expect(await active.poll()).toBeNull();
	});

	test('after a restart the stored cursor replays nothing and picks up what came in between, even when the first poll found nothing', async () => {
		const first = node(missedCalls);
		await first.poll();
		await time.clock.advance(1000);
		sandbox.pbx.injectIncomingCall({ from: '+447700900401' });
		const restarted = node(missedCalls, { staticData: first.stored() });
		expect(callers(await restarted.poll())).toEqual(['+447700900401']);
		await time.clock.advance(1000);
		sandbox.pbx.injectIncomingCall({ from: '+447700900402' });
		const again = node(missedCalls, { staticData: restarted.stored() });
		expect(callers(await again.poll())).toEqual(['+447700900402']);
	});

	test('events drawn from one list share its read: missed calls and finished calls cost one request per poll', async () => {
		const active = node({ events: ['missedCall', 'inboundSms', 'callRecord'], filters: { direction: 'in', outcomes: ['ANSWERED'] } });
		expect(await active.poll()).toBeNull();
		sandbox.context.log.clear();
		sandbox.pbx.injectIncomingCall({ from: '+447700900501', outcome: 'BUSY' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900502', outcome: 'ANSWERED' });
		sandbox.pbx.injectInboundSms({ from: '+447700900503', body: 'Please call me back' });
		const items = (await active.poll())!;
		expect(items.map((item) => [item.event, item.fromNumber])).toEqual([
			['missedCall', '+447700900501'],
			['callRecord', '+447700900502'],
			['inboundSms', '+447700900503'],
		]);
		expect([callRequests(), sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/sms' }).length]).toEqual([1, 1]);
		expect(await active.poll()).toBeNull();
	});

	test('a changed filter starts afresh instead of replaying what the old one skipped', async () => {
		const active = node({ events: ['callRecord'], filters: { direction: 'out' } });
		await active.poll();
		sandbox.pbx.injectIncomingCall({ from: '+447700900511', outcome: 'BUSY' });
		expect(await active.poll()).toBeNull();
		const changed = node({ events: ['callRecord'], filters: { direction: 'in' } }, { staticData: JSON.parse(JSON.stringify(active.staticData())) as IDataObject });
		expect(await changed.poll()).toBeNull();
	});

	test('new inbound SMS, read from the newest end of the list', async () => {
		for (let i = 0; i < 450; i++) sandbox.pbx.injectInboundSms({ body: `old ${i}`, created: ago(3600 - i) });
		const active = node({ events: ['inboundSms'] });
		await active.poll();
		sandbox.context.log.clear();
		sandbox.pbx.injectInboundSms({ from: '+447700900601', body: 'Please call me back' });
		const items = await active.poll();
		expect(items).toEqual([expect.objectContaining({ event: 'inboundSms', direction: 'IN', body: 'Please call me back', fromNumber: '+447700900601' })]);
		// An oldest-first list of 454 messages: page 1 and then the last page only.
		expect(sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/sms' }).map((r) => r.query.page)).toEqual(['1', '3']);
	});

	test('a test run returns the newest matching record of each polled event, and stores nothing', async () => {
		const active = node(missedCalls);
		// The seed's newest unanswered inbound call was busy: busy counts as missed.
		expect(await active.poll('manual')).toEqual([expect.objectContaining({ event: 'missedCall', direction: 'IN', outcome: 'BUSY', fromNumber: '+447700900009' })]);
		expect(active.staticData().poll).toBeUndefined();
	});

	test('a test run of live events only waits for the first live event', async () => {
		const run = node({ events: ['incomingcall'] }).poll('manual');
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900555', callerIdName: 'Jane Caller', endpointId: '202' });
		expect(await run).toEqual([expect.objectContaining({ event: 'incomingcall', callerIdNumber: '+447700900555' })]);
		await waitFor(() => streamCount() === 0);
	});

	test('only live events chosen: a poll sends nothing', async () => {
		expect(await node({ events: ['incomingcall', 'smsreceived'] }).poll()).toBeNull();
		expect(sandbox.context.log.list({ pathPrefix: '/api/v1/' })).toHaveLength(0);
	});

	test('two schedules of one node (n8n 2.40 may activate a node twice), each with its own copy of the static data, return each record once', async () => {
		const first = node(missedCalls, { workflowId: 'twice' });
		await first.poll();
		const second = node(missedCalls, { workflowId: 'twice', staticData: JSON.parse(JSON.stringify(first.staticData())) as IDataObject });
		sandbox.pbx.injectIncomingCall({ from: '+447700900311', outcome: 'NO_ANSWER' });
		const [a, b] = await Promise.all([first.poll(), second.poll()]);
		expect([...callers(a), ...callers(b)]).toEqual(['+447700900311']);
		sandbox.pbx.injectIncomingCall({ from: '+447700900312', outcome: 'NO_ANSWER' });
		expect(callers(await second.poll())).toEqual(['+447700900312']);
		expect(await first.poll()).toBeNull();
	});

	test('a refused credential fails the poll once, saying when it tries again; polls before then send nothing; then it recovers by itself', async () => {
		const active = node(missedCalls);
		await active.poll();
		const fault = sandbox.context.faults.add({ api: 'pbx', pathPrefix: callsPath, status: 401, count: 1000 });
		await expect(active.poll()).rejects.toThrow(/\(401\).*tries again at/s);
		expect(fault.hits).toBe(1);
		await time.clock.advance(59_000);
		expect([await active.poll(), await active.poll(), fault.hits]).toEqual([null, null, 1]);
		sandbox.context.faults.remove(fault.id);
		sandbox.pbx.injectIncomingCall({ from: '+447700900321', outcome: 'NO_ANSWER' });
		await time.clock.advance(2000);
		expect(callers(await active.poll())).toEqual(['+447700900321']);
	});

	test("with less than a tenth of the hour's request budget left, polls send nothing until the window resets; action nodes on the credential go on", async () => {
		sandbox.pbx.settings.rateLimit = 20;
		const active = node(missedCalls);
		await active.poll();
		// Action nodes on the same credential use the budget up to a tenth (1 of 20 left, said by the answer's headers).
		for (let i = 0; i < 18; i++) expect((await runPbx(sandbox, { resource: 'customer', operation: 'get' })).error).toBeUndefined();
		sandbox.pbx.injectIncomingCall({ from: '+447700900322', outcome: 'NO_ANSWER' });
		const before = callRequests();
		expect([await active.poll(), await active.poll(), callRequests() - before]).toEqual([null, null, 0]);
		expect(active.logInfo.filter((line) => /1 of 20 requests left in this hour's window; polls wait until it resets/.test(line))).toHaveLength(1);
		expect((await runPbx(sandbox, { resource: 'customer', operation: 'get' })).error).toBeUndefined();
		await time.clock.advance(60 * 60_000);
		expect(callers(await active.poll())).toEqual(['+447700900322']);
	});

	test('reactivated with the first copy of its static data (n8n 1.x): a missed call made meanwhile is returned, none twice', async () => {
		const first = node(missedCalls, { workflowId: 'stale' });
		await first.poll();
		const firstCopy = JSON.parse(JSON.stringify(first.staticData())) as IDataObject;
		sandbox.pbx.injectIncomingCall({ from: '+447700900330', outcome: 'NO_ANSWER' });
		expect(callers(await first.poll())).toEqual(['+447700900330']);
		sandbox.pbx.injectIncomingCall({ from: '+447700900331', outcome: 'NO_ANSWER' });
		const again = node(missedCalls, { workflowId: 'stale', staticData: firstCopy });
		expect(callers(await again.poll())).toEqual(['+447700900331']);
	});

	test('live and polled events in one node: the stream emits live events, the poll returns polled ones, each keeping its own state', async () => {
		const active = node({ events: ['incomingcall', 'missedCall'] });
		await active.activate();
		await active.poll();
		await waitFor(() => streamCount() === 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900556', outcome: 'NO_ANSWER' });
		await waitFor(() => active.emitted.length === 1);
		expect(active.emitted[0]).toMatchObject({ event: 'incomingcall', callerIdNumber: '+447700900556' });
		expect(callers(await active.poll())).toEqual(['+447700900556']);
		expect(Object.keys(active.staticData()).sort()).toEqual(['live', 'poll']);
	});
});
