import type { INodeExecutionData, INodeParameters, INodeProperties } from 'n8n-workflow';

import { HostedPbxTrigger } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbxTrigger.node';
import { advanceCursor, cursorFloor } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/trigger/history';
import { HEARTBEAT_INTERVAL_SECONDS } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/trigger/live';
import { ReconnectingStream } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/streams/reconnectingStream';
import type { Sandbox } from '../../../sandbox';
import { fakeClockForFile } from '../../harness/clock';
import { contexts } from '../../harness/n8n';
import { locator, pbxCredentials, triggerLifecycle } from './pbxTestKit';

/**
 * The numeric options of the Hosted PBX Trigger come from expressions too, past
 * the editor's limits: each is refused before anything is sent unless it is a finite number within
 * its declared range (blank is the default).
 */

let sandbox: Sandbox;
const open = triggerLifecycle((started) => (sandbox = started));
const time = fakeClockForFile();

const requests = () => sandbox.context.log.list({ pathPrefix: '/api/v1' }).length;

function setup(node: HostedPbxTrigger, parameters: INodeParameters) {
	const { trigger, poll } = contexts({
		node,
		parameters: { customerId: locator('me'), options: {}, ...parameters },
		credentials: pbxCredentials(sandbox, 'acme.admin'),
		workflowId: expect.getState().currentTestName,
	});
	return {
		trigger: async (mode: 'trigger' | 'manual' = 'trigger') => {
			const context = trigger((_data: INodeExecutionData[][]) => undefined, () => undefined, mode);
			const response = await node.trigger.call(context);
			open.push(response);
			return response;
		},
		poll: async (mode: 'trigger' | 'manual' = 'trigger') => await node.poll.call(poll(mode)),
	};
}

const v2 = (parameters: INodeParameters) => setup(new HostedPbxTrigger(), parameters);

describe('Look-Back Window (Minutes)', () => {
	test.each([
		['"10 min" (an expression giving text)', '10 min', /"10 min" is not a finite number/],
		['a negative number', -5, /-5 is out of range/],
		['less than a minute', 0.5, /0\.5 is out of range/],
		['more than a day', 1e9, /1000000000 is out of range/],
	])('%s is refused before any request, naming the field and the rule', async (_name, value, problem) => {
		const node = v2({ events: ['inboundSms'], options: { lookbackMinutes: value } });
		const refusal = node.poll().then(
			() => undefined,
			(error: Error & { description?: string }) => error,
		);
		const error = await refusal;
		expect(error?.message).toMatch(/^Invalid Look-Back Window \(Minutes\): /);
		expect(error?.message).toMatch(problem);
		expect(error?.description).toMatch(/Rule: a number from 1 to 1440/);
		expect(requests()).toBe(0);
		// A test run says so too, before the workflow is published.
		await expect(node.poll('manual')).rejects.toThrow(/Invalid Look-Back Window/);
		expect(requests()).toBe(0);
	});

	test('history is never replayed: a text value cannot turn every poll into the whole inbound SMS list', async () => {
		for (let i = 0; i < 30; i++) sandbox.pbx.injectInboundSms({ body: `old ${i}`, created: new Date(time.clock.now() - 3_600_000 + i * 1000).toISOString() });
		const node = v2({ events: ['inboundSms'], options: { lookbackMinutes: '10 min' } });
		const emitted: number[] = [];
		for (let poll = 0; poll < 3; poll++) emitted.push(((await node.poll().catch(() => null)) ?? [[]])[0].length);
		expect(emitted).toEqual([0, 0, 0]);
	});

	test('a number given as text, or a blank value (the default, 10), is accepted', async () => {
		await expect(v2({ events: ['missedCall'], options: { lookbackMinutes: ' 15 ' } }).poll()).resolves.toBeNull();
		await expect(v2({ events: ['missedCall'], options: { lookbackMinutes: '' } }).poll()).resolves.toBeNull();
		const query = sandbox.context.log.list({ pathPrefix: '/api/v1/customers/me/calls' }).map((r) => Date.parse(String(r.query.createdAfter)));
		expect(query).toHaveLength(2);
		expect(query.map((at) => time.clock.now() - at)).toEqual([15 * 60_000, 10 * 60_000]);
	});

	test('the cursor itself refuses a window that is no positive number (NaN would keep no id as seen)', () => {
		const cursor = { since: new Date().toISOString(), seen: [], key: 'k' };
		expect(() => cursorFloor(cursor, NaN, Date.now())).toThrow(RangeError);
		expect(() => advanceCursor(cursor, [], -60_000)).toThrow(RangeError);
	});
});

describe('Heartbeat Timeout (Seconds)', () => {
	test('its range agrees with the spec: longer than the 60 s heartbeat interval, the default within it', () => {
		for (const node of [new HostedPbxTrigger()]) {
			const options = node.description.properties.find((p) => p.name === 'options')!.options as INodeProperties[];
			const heartbeat = options.find((o) => o.name === 'heartbeatTimeoutSeconds')!;
			expect(HEARTBEAT_INTERVAL_SECONDS).toBe(60);
			expect(heartbeat.typeOptions?.minValue).toBeGreaterThan(HEARTBEAT_INTERVAL_SECONDS);
			expect(heartbeat.default).toBeGreaterThanOrEqual(heartbeat.typeOptions!.minValue!);
			expect(heartbeat.default).toBeLessThanOrEqual(heartbeat.typeOptions!.maxValue!);
		}
	});

	test.each([
		['shorter than the heartbeat interval (cuts a quiet, healthy stream)', 30, /30 is out of range/],
		['0 (would never notice a dead connection)', 0, /0 is out of range/],
		['negative', -1, /-1 is out of range/],
		['huge', 1e12, /1000000000000 is out of range/],
	])('%s is refused at activation, before the stream opens', async (_name, value, problem) => {
		for (const node of [v2({ events: ['incomingcall'], options: { heartbeatTimeoutSeconds: value } })]) {
			const error = await node.trigger().then(
				() => undefined,
				(failure: Error & { description?: string }) => failure,
			);
			expect(error?.message).toMatch(/^Invalid Heartbeat Timeout \(Seconds\): /);
			expect(error?.message).toMatch(problem);
			expect(error?.description).toMatch(/Rule: a number from 65 to 600/);
		}
		expect(sandbox.pbx.stream.list()).toHaveLength(0);
		expect(requests()).toBe(0);
	});

	// The old code froze the whole process here: the watchdog's check interval became NaN and its loop never slept.
	test('"90s" from an expression is refused at activation and in a test run, before the stream opens', async () => {
		const node = v2({ events: ['incomingcall'], options: { heartbeatTimeoutSeconds: '90s' } });
		await expect(node.trigger()).rejects.toThrow(/^Invalid Heartbeat Timeout \(Seconds\): "90s" is not a finite number/);
		await expect(node.poll('manual')).rejects.toThrow(/^Invalid Heartbeat Timeout \(Seconds\)/);
		expect(sandbox.pbx.stream.list()).toHaveLength(0);
	});

	test('a value within the range, given as text, opens the stream', async () => {
		await v2({ events: ['incomingcall'], options: { heartbeatTimeoutSeconds: '65' } }).trigger();
		expect(sandbox.pbx.stream.list()).toHaveLength(1);
	});

	test('the live stream itself refuses a heartbeat window that is no positive, finite number', () => {
		for (const heartbeatWindowMs of [NaN, 0, -1000, Infinity]) {
			expect(
				() => new ReconnectingStream({ connect: async () => await Promise.reject(new Error('not opened')), framing: () => ({ push: () => {}, end: () => {} }), heartbeatWindowMs, onRefused: () => 0 }),
			).toThrow(RangeError);
		}
	});
});
