/**
 * The errors the Hosted PBX Trigger gives n8n declare their cause too (docs/failures.md): a refused
 * credential at activation, in a poll and while streaming, and a stream that cannot be opened.
 */
import type { Sandbox } from '../../../sandbox';
import { fakeClockForFile } from '../../harness/clock';
import { waitFor } from '../../harness/wait';
import { triggerLifecycle } from './pbxTestKit';
import { triggerNode } from './pbxTriggerKit';

let sandbox: Sandbox;
const open = triggerLifecycle((started) => (sandbox = started));
const time = fakeClockForFile();

const causeOf = (error: unknown) => (error as { failure?: { cause?: string } }).failure?.cause;
const calls = { events: ['incomingcall'] };

test('a refused credential: credential-invalid, at activation, in a poll and while streaming', async () => {
	const refusedActivation = await triggerNode(sandbox, open, calls, { password: 'wrong' }).activate().then(() => undefined, (error: Error) => error);
	expect(causeOf(refusedActivation)).toBe('credential-invalid');

	const poller = triggerNode(sandbox, open, { events: ['missedCall'] }, { workflowId: 'poll' });
	await poller.poll();
	const fault = sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/customers/me/calls', status: 401, count: 1000 });
	expect(causeOf(await poller.poll().then(() => undefined, (error: Error) => error))).toBe('credential-invalid');
	sandbox.context.faults.remove(fault.id);

	const streaming = triggerNode(sandbox, open, calls, { workflowId: 'stream' });
	await streaming.activate();
	await waitFor(() => sandbox.pbx.stream.list().length === 1);
	sandbox.context.faults.add({ api: 'pbx', pathPrefix: '/api/v1/stream', status: 403, count: 1000 });
	sandbox.pbx.stream.closeAll();
	await waitFor(() => streaming.errors.length === 1);
	expect(causeOf(streaming.errors[0])).toBe('credential-invalid');
});

test('a stream that cannot be opened (503): temporarily-unavailable, once it persists', async () => {
	sandbox.pbx.restartStream({ downMs: 3_600_000 });
	const active = triggerNode(sandbox, open, calls);
	await active.activate();
	await time.clock.advanceUntil(() => active.errors.length === 1, { stepMs: 5000 });
	expect(active.errors[0].message).toMatch(/\(503\)/);
	expect(causeOf(active.errors[0])).toBe('temporarily-unavailable');
});
