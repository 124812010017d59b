/**
 * The Hosted PBX Trigger's polled events on n8n's own polling (issue 20), in a real n8n:
 * - a test run (`n8n execute`, n8n's manual mode) returns the newest matching record;
 * - an active workflow polls at its Poll Times (every minute, n8n's shortest) for missed calls,
 *   finished calls and texts: the first poll at activation replays no history; records that share a
 *   timestamp each reach the end once; from the first lifetime on, n8n stopped normally and then
 *   killed replays nothing and picks up what was made while it was down;
 * - live and polled events in one node: the stream opens with the workflow and closes with it.
 *
 * One sandbox (in this process, on 127.0.0.1) and one n8n for the whole file. Three to six minutes:
 * each poll waits for n8n's next whole minute.
 */
import { startSandbox, type Sandbox } from '../../sandbox/index';
import { N8nInstance, nodeResult } from './harness';
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

const v2Trigger = (id: string, events = ['missedCall']) => ({
	id, name: TRIGGER, type: `${PKG}.hostedPbxTrigger`, typeVersion: 2, position: [0, 0],
	parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, events, customerId: ME, filters: { outcomes: ['ANSWERED'] }, options: {} }, credentials: PBX,
});

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
			triggerWorkflow(ACTIVE, 'e2e: missed calls, finished calls and texts, polled by n8n', v2Trigger('pm1', ['missedCall', 'callRecord', 'inboundSms'])),
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

	test('at the Poll Times, from the first lifetime of a freshly published workflow: no history replayed, records sharing a timestamp each once, nothing replayed and everything made while n8n was down picked up after a normal stop and after a kill', async () => {
		/** What reached the end of the workflow so far, as `event:number` (or `event:text`), in order of the runs. */
		const reached = async () =>
			(await Promise.all((await n8n.executions(ACTIVE)).filter((e) => e.status === 'success').map(async (e) => await n8n.execution(String(e.id)))))
				.flatMap((run) => nodeResult(run, 'End').json)
				.map((item) => `${String(item.event)}:${String(item.event === 'inboundSms' ? item.body : item.fromNumber)}`);
		const polls = async () => (await admin.requests({ api: 'pbx', since: 0 })).filter((r) => r.path === '/api/v1/customers/me/calls' && r.query.createdAfter !== undefined).length;
		/**
		 * Waits until `expected` all reached the end; in the last round also for one more poll that
		 * started after that, so a repeat from any round would show (the runs of every round count).
		 */
		const settled = async (expected: string[], last = false) => {
			await admin.until(`${expected.join(', ')} to reach the end`, async () => {
				const got = await reached();
				return expected.every((key) => got.includes(key));
			}, POLL_WAIT_MS);
			if (!last) return await reached();
			const after = await polls();
			await admin.until('one more poll', async () => (await polls()) > after + 1, POLL_WAIT_MS);
			return await reached();
		};
		const make = async (round: number) => {
			const sameTime = new Date().toISOString();
			await admin.post('/pbx/calls/incoming', { from: `+4477009007${round}1`, outcome: 'NO_ANSWER', created: sameTime });
			await admin.post('/pbx/calls/incoming', { from: `+4477009007${round}2`, outcome: 'BUSY', created: sameTime });
			await admin.post('/pbx/calls/incoming', { from: `+4477009007${round}3`, outcome: 'ANSWERED', created: sameTime });
			await admin.post('/pbx/sms/inbound', { from: `+4479009007${round}4`, body: `Text ${round}` });
			return [`missedCall:+4477009007${round}1`, `missedCall:+4477009007${round}2`, `callRecord:+4477009007${round}3`, `inboundSms:Text ${round}`];
		};

		const beforeActivation = await admin.lastSeq();
		await n8n.activateNow(ACTIVE);
		// The poll n8n runs at activation marks what exists as history: the records below come after it.
		await admin.waitForRequests({ api: 'pbx', since: beforeActivation }, (r) => r.path === '/api/v1/customers/me/calls' && r.query.createdAfter !== undefined, { timeoutMs: POLL_WAIT_MS });
		const first = await make(1);
		expect((await settled(first)).sort()).toEqual([...first].sort());

		// A normal stop: the cursor n8n saved with the last emit is where the next lifetime goes on.
		await n8n.stop();
		const second = await make(2);
		await n8n.start();
		await n8n.login();
		expect((await settled([...first, ...second])).sort()).toEqual([...first, ...second].sort());

		// A kill, with no run in flight: the same.
		await n8n.kill('SIGKILL');
		const third = await make(3);
		await n8n.start();
		await n8n.login();
		expect((await settled([...first, ...second, ...third], true)).sort()).toEqual([...first, ...second, ...third].sort());
		// Three rounds of whole-minute polls and two starts of n8n: 3 to 5 minutes on a quiet machine, more on a busy one.
	}, 12 * 60_000);

	test('live and polled events in one node: the stream opens with the workflow, delivers, and closes with it', async () => {
		await n8n.activateNow(COMBINED);
		// Recovery is off here: a call published while n8n 2.x replaces the first activation's stream would reach no trigger.
		await admin.untilOneStreamSettled();
		const { delivered } = await admin.post<{ delivered: number }>('/pbx/calls/incoming', { from: '+447700900801', callerIdName: 'Live Caller', outcome: 'ANSWERED' });
		expect({ delivered }).toEqual({ delivered: 1 });
		const [run] = await n8n.waitForExecutions(COMBINED, 1, { timeoutMs: 30_000 });
		expect(nodeResult(run, 'End').json).toEqual([expect.objectContaining({ event: 'incomingcall', callerIdNumber: '+447700900801' })]);
		await n8n.deactivateNow(COMBINED);
		await admin.until('the live stream to close', async () => ((await admin.get<unknown[]>('/pbx/streams')) ?? []).length === 0);
	});
});
