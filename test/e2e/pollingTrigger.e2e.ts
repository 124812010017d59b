/**
 * The Hosted PBX Trigger's polled events on n8n's own polling (issue 20), in a real n8n:
 * - a test run (`n8n execute`, n8n's manual mode) returns the newest matching record;
 * - an active workflow polls at its Poll Times (every minute, n8n's shortest): the first poll at
 *   activation replays no history; missed calls that share a timestamp each start the workflow
 *   once; n8n killed and started again replays nothing and picks up the call made while it was down;
 * - live and polled events in one node: the stream opens with the workflow and closes with it.
 * (Version 1, with its own polling loop, keeps its coverage in the recipe and fault suites.)
 *
 * One sandbox (in this process, on 127.0.0.1) and one n8n for the whole file. About three minutes:
 * each poll waits for n8n's next whole minute.
 */
import { startSandbox, type Sandbox } from '../../sandbox/index';
import { N8nInstance, nodeResult, type N8nRun } from './harness';
import { CREDENTIALS, PKG } from './aiAgents';
import { SandboxAdmin, sandboxCredentials, triggerWorkflow } from './sandboxAdmin';

const ACTIVE = 'e2ePollMissed001';
const TEST_RUN = 'e2ePollTestRun01';
const COMBINED = 'e2ePollAndLive01';
const TRIGGER = 'Missed call';
const ME = { __rl: true, mode: 'id', value: 'me' };
const { pbx: PBX } = CREDENTIALS;
/** n8n polls on whole minutes: a call is picked up within about 60 s; allow for a loaded machine. */
const POLL_WAIT_MS = 150_000;

const v2Trigger = (id: string) => ({
	id, name: TRIGGER, type: `${PKG}.hostedPbxTrigger`, typeVersion: 2, position: [0, 0],
	parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, events: ['missedCall'], customerId: ME, options: {} }, credentials: PBX,
});
const callers = (runs: N8nRun[]) => runs.flatMap((run) => nodeResult(run, 'End').json).map((item) => String(item.fromNumber));

describe(`polled events on n8n's polling (target ${process.env.TELEPHONY_N8N_TARGET ?? '2'})`, () => {
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	let n8n: N8nInstance;

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		admin = new SandboxAdmin(sandbox.url);
		n8n = await N8nInstance.create();
		await n8n.importCredentials(sandboxCredentials(sandbox.url));
		await n8n.importWorkflows([
			triggerWorkflow(ACTIVE, 'e2e: missed calls, polled by n8n', v2Trigger('pm1')),
			triggerWorkflow(TEST_RUN, 'e2e: a test run of the polled trigger', v2Trigger('pt1')),
			triggerWorkflow(COMBINED, 'e2e: live and polled events in one node', {
				...v2Trigger('pc1'),
				parameters: { pollTimes: { item: [{ mode: 'everyHour', minute: 0 }] }, events: ['incomingcall', 'missedCall'], customerId: ME, options: { recoverMissedEvents: false } },
			}),
		]);
		await n8n.start();
		await n8n.setupOwner();
	});

	afterAll(async () => {
		await n8n?.dispose();
		await sandbox?.close();
	});

	test('a test run returns the newest matching record', async () => {
		// What the editor sends for "Fetch Test Event" on the trigger.
		const workflowData = await n8n.rest.get<Record<string, unknown>>(`/rest/workflows/${TEST_RUN}`);
		await n8n.rest.post(`/rest/workflows/${TEST_RUN}/run`, { workflowData, triggerToStartFrom: { name: TRIGGER } });
		const [run] = await n8n.waitForExecutions(TEST_RUN, 1, { timeoutMs: 60_000 });
		// The seed's newest unanswered inbound call (busy counts as missed).
		expect(nodeResult(run, TRIGGER).json).toEqual([expect.objectContaining({ event: 'missedCall', direction: 'IN', outcome: 'BUSY', fromNumber: '+447700900009' })]);
	});

	test('at the Poll Times: no history replayed, calls sharing a timestamp each once, nothing replayed after a restart and the call made while n8n was down picked up', async () => {
		const beforeActivation = await admin.lastSeq();
		await n8n.activateNow(ACTIVE);
		// The poll n8n runs at activation marks what exists as history: the calls below come after it.
		await admin.waitForRequests(
			{ api: 'pbx', since: beforeActivation },
			(r) => r.path === '/api/v1/customers/me/calls' && r.query.createdAfter !== undefined,
			{ timeoutMs: POLL_WAIT_MS },
		);
		const sameTime = new Date().toISOString();
		await admin.post('/pbx/calls/incoming', { from: '+447700900701', outcome: 'NO_ANSWER', created: sameTime });
		await admin.post('/pbx/calls/incoming', { from: '+447700900702', outcome: 'BUSY', created: sameTime });
		await admin.post('/pbx/calls/incoming', { from: '+447700900703', outcome: 'ANSWERED' });
		const first = await n8n.waitForExecutions(ACTIVE, 1, { timeoutMs: POLL_WAIT_MS });
		expect(callers(first).sort()).toEqual(['+447700900701', '+447700900702']);

		await n8n.kill('SIGKILL');
		await admin.post('/pbx/calls/incoming', { from: '+447700900704', outcome: 'NO_ANSWER' });
		await n8n.start();
		await n8n.login();
		const second = await n8n.waitForExecutions(ACTIVE, 2, { timeoutMs: POLL_WAIT_MS });
		expect(callers(second.slice(1))).toEqual(['+447700900704']);
		// One more poll: nothing new, nothing repeated.
		const polls = await admin.requests({ api: 'pbx', since: 0 });
		const pollsBefore = polls.filter((r) => r.path === '/api/v1/customers/me/calls' && r.query.createdAfter !== undefined).length;
		await admin.until(
			'the next poll',
			async () => (await admin.requests({ api: 'pbx', since: 0 })).filter((r) => r.path === '/api/v1/customers/me/calls' && r.query.createdAfter !== undefined).length > pollsBefore + 1,
			POLL_WAIT_MS,
		);
		const all = await n8n.waitForExecutions(ACTIVE, 2, { timeoutMs: 5_000 });
		expect((await n8n.executions(ACTIVE)).length).toBe(2);
		expect(callers(all).sort()).toEqual(['+447700900701', '+447700900702', '+447700900704']);
	});

	test('live and polled events in one node: the stream opens with the workflow, delivers, and closes with it', async () => {
		await n8n.activateNow(COMBINED);
		// The stream this activation keeps: one connection, still the same a second later. n8n 2.40
		// may start a node's trigger twice in a row (see nodes/shared/streams/activations.ts), the
		// second replacing the first's stream; recovery is off here, so a call published in between
		// would reach no trigger (one CI run under load saw no run at all).
		let open: { id: number; since: number } | undefined;
		await admin.until('one live stream, open for a second', async () => {
			const streams = (await admin.get<Array<{ id: number }>>('/pbx/streams')) ?? [];
			if (streams.length !== 1) return (open = undefined) !== undefined;
			if (open?.id !== streams[0].id) open = { id: streams[0].id, since: Date.now() };
			return Date.now() - open.since >= 1000;
		});
		const { delivered } = await admin.post<{ delivered: number }>('/pbx/calls/incoming', { from: '+447700900801', callerIdName: 'Live Caller', outcome: 'ANSWERED' });
		expect({ delivered }).toEqual({ delivered: 1 });
		const [run] = await n8n.waitForExecutions(COMBINED, 1, { timeoutMs: 30_000 });
		expect(nodeResult(run, 'End').json).toEqual([expect.objectContaining({ event: 'incomingcall', callerIdNumber: '+447700900801' })]);
		await n8n.deactivateNow(COMBINED);
		await admin.until('the live stream to close', async () => ((await admin.get<unknown[]>('/pbx/streams')) ?? []).length === 0);
	});
});
