import type { IDataObject, INodeExecutionData, INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { HostedPbxTrigger } from '../../../nodes/HostedPbx/HostedPbxTrigger.node';
import { HostedPbxTriggerV2 } from '../../../nodes/HostedPbx/HostedPbxTrigger.node';
import { FIRST_RETRY_MS, retryTimes } from '../../../nodes/shared/triggers/refusals';
import type { Sandbox } from '../../../sandbox';
import { NODE_NAME, contexts } from '../../harness/n8n';
import { waitFor } from '../../harness/wait';
import { locator, pbxCredentials, triggerLifecycle } from './pbxTestKit';

let sandbox: Sandbox;
const open = triggerLifecycle((started) => (sandbox = started));


const node = new HostedPbxTriggerV2();
const callsPath = '/api/v1/customers/me/calls';
const requestsTo = (path: string) => sandbox.context.log.list({ pathPrefix: path }).length;

/** One node as n8n holds it while the workflow is active: the same static data for every poll. */
function activeNode(parameters: INodeParameters, options: { password?: string; staticData?: IDataObject } = {}) {
	const setup = contexts({
		node,
		parameters: { customerId: locator('me'), options: {}, ...parameters },
		credentials: pbxCredentials(sandbox, 'acme.admin', options.password),
		staticData: options.staticData,
	});
	const emitted: IDataObject[] = [];
	const errors: Error[] = [];
	return {
		emitted,
		errors,
		poll: async (mode: 'trigger' | 'manual' = 'trigger') => {
			const result = await node.poll.call(setup.poll(mode));
			return result ? result[0].map((item) => item.json) : null;
		},
		trigger: async (mode: 'trigger' | 'manual' = 'trigger') => {
			const context = setup.trigger((data: INodeExecutionData[][]) => emitted.push(...data[0].map((i) => i.json)), (error) => errors.push(error), mode);
			const response = await node.trigger.call(context);
			open.push(response);
			return response;
		},
		staticData: () => setup.workflow.getStaticData('node', { name: NODE_NAME } as never),
		globalStaticData: () => setup.workflow.getStaticData('global'),
	};
}
const callers = (items: IDataObject[] | null) => (items ?? []).map((item) => item.fromNumber);

describe("n8n's node panel", () => {
	test('new nodes are version 2, whose one Events parameter lists every event, live and polled, as a panel entry', () => {
		const versioned = new HostedPbxTrigger();
		expect(versioned.description.defaultVersion).toBe(2);
		const latest = versioned.getNodeType();
		expect(latest.description.polling).toBe(true);
		// n8n's node creator takes the first parameter named Event, Events or Trigger On.
		const eventParameters = latest.description.properties.filter((p: INodeProperties) => ['event', 'events', 'trigger on'].includes(p.displayName.toLowerCase()));
		expect(eventParameters).toHaveLength(1);
		const entries = (eventParameters[0].options as INodePropertyOptions[]).map((o) => [o.action, o.value]);
		expect(entries).toEqual([
			['On call finished', 'callRecord'],
			['On inbound SMS with full text', 'inboundSms'],
			['On incoming call', 'incomingcall'],
			['On missed call', 'missedCall'],
			['On SMS delivered', 'smsdelivered'],
			['On SMS received', 'smsreceived'],
		]);
	});

	test('version 1 stays available with its parameters, so saved workflows run as before', () => {
		const v1 = new HostedPbxTrigger().getNodeType(1);
		expect(v1.description.version).toBe(1);
		expect(v1.description.polling).toBeUndefined();
		expect(v1.description.properties.map((p: INodeProperties) => p.name)).toEqual(expect.arrayContaining(['source', 'events', 'pollEvent', 'pollIntervalSeconds']));
		expect(v1.trigger).toBeDefined();
	});
});

describe("polled events on n8n's polling", () => {
	const missedCalls = { events: ['missedCall'] };

	test('the first poll (at activation) replays no history; a new missed call is returned once', async () => {
		const active = activeNode(missedCalls);
		expect(await active.poll()).toBeNull();
		expect(requestsTo(callsPath)).toBe(1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900201', outcome: 'NO_ANSWER' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900202', outcome: 'ANSWERED' });
		const items = await active.poll();
		expect(callers(items)).toEqual(['+447700900201']);
		expect(items![0]).toMatchObject({ event: 'missedCall', direction: 'IN', outcome: 'NO_ANSWER', fromName: 'Demo Caller' });
		expect(await active.poll()).toBeNull();
	});

	test('records sharing a timestamp, and one arriving late, are each returned exactly once', async () => {
		const active = activeNode(missedCalls);
		await active.poll();
		const sameTime = new Date().toISOString();
		sandbox.pbx.injectIncomingCall({ from: '+447700900301', created: sameTime });
		sandbox.pbx.injectIncomingCall({ from: '+447700900302', created: sameTime });
		expect(callers(await active.poll()).sort()).toEqual(['+447700900301', '+447700900302']);
		sandbox.pbx.injectIncomingCall({ from: '+447700900303', created: new Date(Date.now() - 120_000).toISOString() });
		sandbox.pbx.injectIncomingCall({ from: '+447700900304', created: sameTime });
		expect(callers(await active.poll()).sort()).toEqual(['+447700900303', '+447700900304']);
		expect(await active.poll()).toBeNull();
	});

	test('after a restart the stored cursor replays nothing and picks up what came in between', async () => {
		const first = activeNode(missedCalls);
		await first.poll();
		sandbox.pbx.injectIncomingCall({ from: '+447700900401' });
		expect(callers(await first.poll())).toEqual(['+447700900401']);
		// What n8n saved with the execution of that poll.
		const saved = JSON.parse(JSON.stringify(first.staticData())) as IDataObject;
		sandbox.pbx.injectIncomingCall({ from: '+447700900402' });
		const restarted = activeNode(missedCalls, { staticData: saved });
		expect(callers(await restarted.poll())).toEqual(['+447700900402']);
	});

	test('several polled events in one node each keep their own cursor', async () => {
		const active = activeNode({ events: ['missedCall', 'inboundSms', 'callRecord'], filters: { direction: 'in', outcomes: ['ANSWERED'] } });
		expect(await active.poll()).toBeNull();
		sandbox.pbx.injectIncomingCall({ from: '+447700900501', outcome: 'BUSY' });
		sandbox.pbx.injectIncomingCall({ from: '+447700900502', outcome: 'ANSWERED' });
		sandbox.pbx.injectInboundSms({ from: '+447700900503', body: 'Please call me back' });
		const items = (await active.poll())!;
		expect(items.map((item) => [item.event, item.fromNumber])).toEqual([
			['missedCall', '+447700900501'],
			['inboundSms', '+447700900503'],
			['callRecord', '+447700900502'],
		]);
		expect(Object.keys(active.staticData().cursors as IDataObject).sort()).toEqual(['callRecord', 'inboundSms', 'missedCall']);
		expect(await active.poll()).toBeNull();
	});

	test('a changed filter starts afresh instead of replaying what the old one skipped', async () => {
		const active = activeNode({ events: ['callRecord'], filters: { outcomes: ['ANSWERED'] } });
		await active.poll();
		sandbox.pbx.injectIncomingCall({ from: '+447700900511', outcome: 'BUSY' });
		expect(await active.poll()).toBeNull();
		const saved = JSON.parse(JSON.stringify(active.staticData())) as IDataObject;
		const changed = activeNode({ events: ['callRecord'], filters: { outcomes: ['BUSY'] } }, { staticData: saved });
		expect(await changed.poll()).toBeNull();
	});

	test('a test run returns the newest matching record of each polled event', async () => {
		const active = activeNode(missedCalls);
		const items = await active.poll('manual');
		// The seed's newest unanswered inbound call was busy: busy counts as missed.
		expect(items).toEqual([expect.objectContaining({ event: 'missedCall', direction: 'IN', outcome: 'BUSY', fromNumber: '+447700900009' })]);
		expect(active.staticData().cursors).toBeUndefined();
	});

	test('a test run of live events only waits for the first live event', async () => {
		const active = activeNode({ events: ['incomingcall'] });
		const run = active.poll('manual');
		await waitFor(() => sandbox.pbx.stream.list().length === 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900555', callerIdName: 'Jane Caller', endpointId: '202' });
		expect(await run).toEqual([expect.objectContaining({ event: 'incomingcall', callerIdNumber: '+447700900555' })]);
		await waitFor(() => sandbox.pbx.stream.list().length === 0);
	});

	test('only live events chosen: a poll sends nothing', async () => {
		const active = activeNode({ events: ['incomingcall', 'smsreceived'] });
		expect(await active.poll()).toBeNull();
		expect(sandbox.context.log.list({ pathPrefix: '/api/v1/' }).length).toBe(0);
	});

	test('two schedules of one node (n8n 2.40 may activate a node twice), each with its own copy of the static data, return each record once', async () => {
		const first = activeNode(missedCalls);
		await first.poll();
		const copy = JSON.parse(JSON.stringify(first.staticData())) as IDataObject;
		const second = activeNode(missedCalls, { staticData: copy });
		sandbox.pbx.injectIncomingCall({ from: '+447700900311', outcome: 'NO_ANSWER' });
		const [a, b] = await Promise.all([first.poll(), second.poll()]);
		expect([...callers(a), ...callers(b)]).toEqual(['+447700900311']);
		sandbox.pbx.injectIncomingCall({ from: '+447700900312', outcome: 'NO_ANSWER' });
		expect(callers(await second.poll())).toEqual(['+447700900312']);
		expect(await first.poll()).toBeNull();
	});

	test('a refused credential fails the poll once, saying when it tries again; polls before then send nothing; then it recovers by itself', async () => {
		retryTimes.firstMs = 1500;
		try {
			const active = activeNode(missedCalls);
			await active.poll();
			const fault = sandbox.context.faults.add({ api: 'pbx', pathPrefix: callsPath, status: 401, count: 1000 });
			await expect(active.poll()).rejects.toThrow(/\(401\).*tries again at/s);
			expect(fault.hits).toBe(1);
			expect(await active.poll()).toBeNull();
			expect(await active.poll()).toBeNull();
			expect(fault.hits).toBe(1);
			sandbox.context.faults.remove(fault.id);
			sandbox.pbx.injectIncomingCall({ from: '+447700900321', outcome: 'NO_ANSWER' });
			await new Promise((resolve) => setTimeout(resolve, 1600));
			expect(callers(await active.poll())).toEqual(['+447700900321']);
		} finally {
			retryTimes.firstMs = FIRST_RETRY_MS;
		}
	});
});

describe('live events in version 2', () => {
	test('only polled events chosen: activation opens no stream', async () => {
		const active = activeNode({ events: ['missedCall'] });
		const response = await active.trigger();
		expect(response.closeFunction).toBeUndefined();
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(sandbox.pbx.stream.list()).toHaveLength(0);
	});

	test('a second activation of the same node (n8n 2.40 may do this) replaces the first: one stream, each event once', async () => {
		const first = activeNode({ events: ['incomingcall'] });
		await first.trigger();
		await waitFor(() => sandbox.pbx.stream.list().length === 1);
		const firstStream = sandbox.pbx.stream.list()[0].id;
		const second = activeNode({ events: ['incomingcall'] });
		await second.trigger();
		await waitFor(() => sandbox.pbx.stream.list().length === 1 && sandbox.pbx.stream.list()[0].id !== firstStream);
		sandbox.pbx.injectIncomingCall({ from: '+447700900557' });
		await waitFor(() => second.emitted.length === 1);
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(first.emitted).toEqual([]);
		expect(sandbox.pbx.stream.list()).toHaveLength(1);
	});

	test('live and polled events in one node: the stream emits live events, and keeps its state apart from the poll cursors', async () => {
		const active = activeNode({ events: ['incomingcall', 'missedCall'] });
		await active.trigger();
		await active.poll();
		await waitFor(() => sandbox.pbx.stream.list().length === 1);
		sandbox.pbx.injectIncomingCall({ from: '+447700900556', outcome: 'NO_ANSWER' });
		await waitFor(() => active.emitted.length === 1);
		expect(active.emitted[0]).toMatchObject({ event: 'incomingcall', callerIdNumber: '+447700900556' });
		expect(callers(await active.poll())).toEqual(['+447700900556']);
		expect(Object.keys(active.staticData())).toEqual(['cursors']);
		expect(active.globalStaticData()['liveStream:node-under-test']).toMatchObject({ lastSeenAt: expect.any(Number) });
	});
});
