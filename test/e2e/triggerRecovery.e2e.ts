/**
 * The live triggers across restarts of n8n's main process, in a real n8n, from the first lifetime
 * of freshly published workflows (what a trigger keeps is saved with each emit, or not at all):
 * - the Hosted PBX Trigger (live, missed events recovered) and the Conversation Intelligence
 *   Trigger (a session's events, resumed after the last one emitted): n8n is stopped normally
 *   (SIGTERM) and started again while the platform rings 100 times, texts 50 times and the session
 *   sends 50 events; every call, message and session event reaches the end of its workflow once,
 *   live, read back from the history or replayed, and none twice, but for an event streamed to n8n
 *   between SIGTERM and n8n closing the trigger; then the same across a kill (SIGKILL), but for the
 *   runs main was starting or running when it was killed, which die with it;
 * - the Hosted PBX Trigger with Batch Size: a batch still gathering when n8n is stopped normally is
 *   not run in the shutdown; its calls are read back after the restart, each once;
 * - the Conversation Intelligence Trigger: a session that ended stops its listener for good,
 *   says so in the execution data of its last event, and after a restart sends no request at all.
 *
 * One sandbox (in this process, on 127.0.0.1) and one n8n for the whole file.
 */
import { startSandbox, type Sandbox } from '../../sandbox/index';
import { N8nInstance, nodeResult, type N8nRun } from './harness';
import { CREDENTIALS, PKG } from './aiAgents';
import { SandboxAdmin, sandboxCredentials, triggerWorkflow } from './sandboxAdmin';

const PBX_WORKFLOW = 'e2eLiveRestart01';
const SESSION_WORKFLOW = 'e2eSessionEnd001';
const RESUME_WORKFLOW = 'e2eSessionResume';
const RESUME_TRIGGER = 'Session events (resumed)';
const RESUME = 'sess_e2e_resume';
const PBX_TRIGGER = 'Calls and messages (live)';
const BATCH_WORKFLOW = 'e2eLiveBatches01';
const BATCH_TRIGGER = 'Calls in batches (live)';
const BATCH_SIZE = 5;
const SESSION_TRIGGER = 'Session events';
const SESSION = 'sess_e2e_restart';
const { pbx: PBX, key: KEY } = CREDENTIALS;
const CALLS = 100;
const TEXTS = 50;

const callerNumber = (i: number) => `+4477009${String(10_000 + i).slice(1)}`;
const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));
/** The items that reached the end of each run. */
const endItems = (runs: N8nRun[]) => runs.flatMap((run) => nodeResult(run, 'End').json);

describe(`the live triggers across restarts of n8n (target ${process.env.TELEPHONY_N8N_TARGET ?? '2'})`, () => {
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	let n8n: N8nInstance;

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		admin = new SandboxAdmin(sandbox.url);
		await admin.post('/pbx/settings', { rateLimit: 1_000_000 });
		await admin.post('/intelligence/sessions', { session_id: SESSION });
		await admin.post('/intelligence/sessions', { session_id: RESUME });
		// n8n's default graceful-shutdown timeout (the harness shortens it to 5 s): a normal restart
		// here is one as deployed, where n8n waits up to 30 s for the runs in flight. Debug logs show
		// each activation of the trigger and n8n 2.x re-publishing workflows, for a failure's account.
		n8n = await N8nInstance.create({ env: { N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '30', N8N_LOG_LEVEL: 'debug' } });
		await n8n.importCredentials(sandboxCredentials(sandbox.url));
		await n8n.importWorkflows([
			triggerWorkflow(PBX_WORKFLOW, 'e2e: live calls and messages across a restart', {
				id: 'lr1', name: PBX_TRIGGER, type: `${PKG}.hostedPbxTrigger`, typeVersion: 2, position: [0, 0],
				parameters: { events: ['incomingcall', 'smsreceived'], options: {} }, credentials: PBX,
			}),
			// Activated by its test: Batch Window 20 s, longer than ringing a partial batch and stopping n8n take.
			triggerWorkflow(BATCH_WORKFLOW, 'e2e: live calls in batches across a restart', {
				id: 'lb1', name: BATCH_TRIGGER, type: `${PKG}.hostedPbxTrigger`, typeVersion: 2, position: [0, 0],
				parameters: { events: ['incomingcall'], options: { batchSize: BATCH_SIZE, batchWindowMs: 20_000 } }, credentials: PBX,
			}),
			triggerWorkflow(RESUME_WORKFLOW, 'e2e: session events across a restart', {
				id: 'sr1', name: RESUME_TRIGGER, type: `${PKG}.conversationIntelligenceTrigger`, typeVersion: 1, position: [0, 0],
				parameters: { sessionId: RESUME, eventTypes: ['operator_result'], options: {} }, credentials: KEY,
			}),
			triggerWorkflow(SESSION_WORKFLOW, 'e2e: a session that ends', {
				id: 'se1', name: SESSION_TRIGGER, type: `${PKG}.conversationIntelligenceTrigger`, typeVersion: 1, position: [0, 0],
				parameters: { sessionId: SESSION, eventTypes: [], options: {} }, credentials: KEY,
			}),
		]);
		await n8n.start();
		await n8n.setupOwner();
		await n8n.activateNow(PBX_WORKFLOW);
		await n8n.activateNow(SESSION_WORKFLOW);
		await n8n.activateNow(RESUME_WORKFLOW);
		await admin.until('the live stream to open', async () => ((await admin.get<unknown[]>('/pbx/streams')) ?? []).length > 0);
		await admin.until('both session streams to open', async () => ((await admin.get<unknown[]>('/intelligence/streams')) ?? []).length === 2);
	});

	afterAll(async () => {
		await n8n?.dispose();
		await sandbox?.close();
	});

	/**
	 * Rings CALLS times and texts TEXTS times over about 30 s, each from its own number (`round`
	 * keeps the rounds apart), restarts main a third of the way in with `restart`, and waits until
	 * the runs stop growing. Returns what reached the end of the workflow in this round.
	 */
	async function restartWhileEventsFlow(round: number, restart: () => Promise<void>) {
		const caller = (i: number) => callerNumber(round * 1000 + i);
		const text = (i: number) => `Text ${round}-${i}`;
		/** When the driver began to post each event, when the platform had taken it, and whether the platform wrote it to an open live stream. */
		const rungAt = new Map<string, number>();
		const postedAt = new Map<string, number>();
		const streamed = new Set<string>();
		const ring = async (key: string, path: string, body: Record<string, unknown>) => {
			rungAt.set(key, Date.now());
			const { delivered } = await admin.post<{ delivered: number }>(path, body);
			postedAt.set(key, Date.now());
			if (delivered > 0) streamed.add(key);
		};
		const said = (i: number) => `Said ${round}-${i}`;
		// The second half rings from the restart on, however long n8n takes to list its runs before it
		// (20 s on n8n 1.x once, after which the first version of this test had rung everything).
		let restartBegins = () => {};
		const restarting = new Promise<void>((resolve) => (restartBegins = resolve));
		const driver = (async () => {
			for (let i = 0; i < CALLS; i++) {
				if (i === CALLS / 2) await restarting;
				await ring(caller(i), '/pbx/calls/incoming', { from: caller(i), callerIdName: `Caller ${i}` });
				if (i % 2 === 0) {
					await ring(text(i / 2), '/pbx/sms/inbound', { from: `+4479009${String(10_000 + round * 1000 + i / 2).slice(1)}`, body: text(i / 2) });
					// The session keeps its events: whatever n8n missed is replayed after the last event id it saved.
					rungAt.set(said(i / 2), Date.now());
					await admin.post(`/intelligence/sessions/${RESUME}/script`, { events: [{ event_type: 'operator_result', trigger_text: said(i / 2) }], intervalMs: 0, wait: true });
					postedAt.set(said(i / 2), Date.now());
				}
				await sleep(200);
			}
		})();
		const succeededBefore = (await n8n.executions(PBX_WORKFLOW)).filter((e) => e.status === 'success').length;
		await sleep(8000);
		// What n8n itself had in flight just before the restart: its runs not yet ended.
		const askedAt = Date.now();
		const inFlight = async (workflow: string) => (await n8n.executions(workflow)).filter((e) => ['new', 'running', 'unknown'].includes(String(e.status))).length;
		const [runningAtRestart, sessionRunsAtRestart] = [await inFlight(PBX_WORKFLOW), await inFlight(RESUME_WORKFLOW)];
		const restartedAt = Date.now();
		restartBegins();
		await restart();
		const stoppedAt = Date.now();
		await sleep(3000);
		await n8n.start();
		await n8n.login();
		await driver;
		/** The caller's number of a call, the text of a message: what the driver posted it as. */
		const keyOf = (i: Record<string, unknown>) => String(i.event === 'incomingcall' ? i.callerIdNumber : (i.body ?? i.excerpt));
		const mine = (i: Record<string, unknown>) => postedAt.has(keyOf(i));
		const runs = await n8n.waitForExecutions(PBX_WORKFLOW, 1, { timeoutMs: 10_000 });
		expect(runs.length).toBeGreaterThan(0);
		// Every event is one run. After the restart the trigger first reads the history back, then
		// starts a run per missed event, all at once (tens of runs, seconds each on a busy machine).
		// Done when every event of the round has a successful run, or when for 30 s no run of either
		// workflow was unfinished and no more succeeded (events n8n lost in the stop never come).
		const succeeded = async () => (await n8n.executions(PBX_WORKFLOW)).filter((e) => e.status === 'success').length;
		const unfinished = async () =>
			(await Promise.all([PBX_WORKFLOW, RESUME_WORKFLOW].map(async (id) => await n8n.executions(id)))).flat().filter((e) => ['new', 'running', 'waiting'].includes(String(e.status))).length;
		let quietSince = Date.now();
		let count = -1;
		await admin.until(
			'the runs of the round to finish',
			async () => {
				const now = await succeeded();
				if (now >= succeededBefore + CALLS + TEXTS) return true;
				if (now !== count || (await unfinished()) > 0) quietSince = Date.now();
				count = now;
				return Date.now() - quietSince >= 30_000;
			},
			300_000,
		);
		// The successful runs themselves (not the first `count` that ended: a crashed one would push out the newest).
		const summaries = await n8n.executions(PBX_WORKFLOW);
		const successful = summaries.filter((e) => e.status === 'success');
		const all = await Promise.all(successful.map(async (e) => await n8n.execution(String(e.id))));
		const items = endItems(all).filter(mine);
		// How long a live event took from the platform to the end of its run before the restart
		// (when its last node finished, from the run data): how long a run is in flight on this
		// machine now. The 95th percentile: a run that n8n recovers at startup (it finished, but was
		// not saved as finished before the kill) carries the times of its recovery (26 s seen).
		const runTimes = all.flatMap((run) => {
			const end = nodeResult(run, 'End').task;
			return endItems([run])
				.filter((i) => mine(i) && i.recovered !== true && (postedAt.get(keyOf(i)) ?? Infinity) < restartedAt)
				.map((i) => (end ? end.startTime + end.executionTime : NaN) - (postedAt.get(keyOf(i)) ?? 0));
		});
		const finite = runTimes.filter(Number.isFinite).sort((a, b) => a - b);
		const slowestRunMs = finite.length ? finite[Math.floor(0.95 * (finite.length - 1))] : 0;
		const calls = items.filter((i) => i.event === 'incomingcall').map((i) => String(i.callerIdNumber));
		const texts = items.filter((i) => i.event === 'smsreceived').map((i) => String(i.body ?? i.excerpt));
		const recovered = items.filter((i) => i.recovered === true).length;
		const failed = summaries.filter((e) => e.status !== 'success');
		// What the runs n8n shows as not successful (crashed with main, failed in a shutdown) were
		// started for, and why they failed. (n8n 1.x keeps no data for a run that crashed before its
		// first node finished, and answers 500 for it.)
		const failedRuns = (await Promise.all(failed.map(async (e) => await n8n.execution(String(e.id)).catch(() => undefined)))).filter(
			(run): run is N8nRun => run !== undefined && nodeResult(run, PBX_TRIGGER).json.some(mine),
		);
		const failedFor = failedRuns.flatMap((run) => nodeResult(run, PBX_TRIGGER).json.filter(mine).map(keyOf));
		const failedWith = [...new Set(failedRuns.map((run) => String(run.data?.resultData?.error?.message ?? 'no error recorded')))];
		const sessionRuns = await Promise.all((await n8n.executions(RESUME_WORKFLOW)).filter((e) => e.status === 'success').map(async (e) => await n8n.execution(String(e.id))));
		const saids = sessionRuns.flatMap((run) => nodeResult(run, RESUME_TRIGGER).json).map((i) => String(i.trigger_text)).filter((t) => postedAt.has(t));
		const missing = [
			...Array.from({ length: CALLS }, (_v, i) => caller(i)).filter((number) => !calls.includes(number)),
			...Array.from({ length: TEXTS }, (_v, i) => text(i)).filter((t) => !texts.includes(t)),
		];
		// Session events are replayed by the service: one can be missing only if its run was in flight
		// at the stop (n8n saved its id with the emit, then lost the run).
		const missingSaid = Array.from({ length: TEXTS }, (_v, i) => said(i)).filter((t) => !saids.includes(t));
		/** An event with when it was rung, from the restart: what a failed assertion shows. */
		const described = (m: string) =>
			`${m} rung ${(rungAt.get(m) ?? 0) - restartedAt} to ${(postedAt.get(m) ?? 0) - restartedAt} ms from the restart, ${streamed.has(m) ? 'streamed' : 'not streamed'}`;
		console.log(
			`restart (round ${round}): ${calls.length} call and ${texts.length} SMS runs reached the end (${recovered} recovered from the history); ` +
				`runs not successful: ${JSON.stringify(failed.map((e) => e.status))} for ${JSON.stringify(failedFor)} (${JSON.stringify(failedWith)}); missing: ${JSON.stringify(missing.map(described))}; ` +
				`n8n had ${runningAtRestart} PBX and ${sessionRunsAtRestart} session runs in flight ${restartedAt - askedAt} ms before the restart, which took ${stoppedAt - restartedAt} ms; ` +
				`live runs before the restart took up to ${slowestRunMs} ms (95th percentile)`,
		);
		const duplicates = (list: string[]) => list.filter((v, i) => list.indexOf(v) !== i);
		return {
			missing,
			failedFor,
			recovered,
			duplicates: [...duplicates(calls), ...duplicates(texts), ...duplicates(saids)],
			missingSaid,
			replayed: saids.filter((t) => (postedAt.get(t) ?? 0) > restartedAt).length,
			rungAt,
			streamed,
			askedAt,
			runningAtRestart,
			sessionRunsAtRestart,
			restartedAt,
			stoppedAt,
			slowestRunMs,
			described,
		};
	}

	/** Session events missing for no reason the test allows: sent outside the moment a stop can lose a run in flight. */
	const unexplained = (missingSaid: string[], rungAt: Map<string, number>, from: number, to: number) => missingSaid.filter((m) => (rungAt.get(m) ?? 0) < from || (rungAt.get(m) ?? 0) > to);
	/**
	 * How long before n8n listed its runs a session event's run may have started and still be among them: the
	 * runs' 95th percentile is no bound for every run (once on CI: an event rung 1.6 s before the listing, 95th
	 * percentile 1.4 s), so twice it. How many may be missing is n8n's own count, checked apart.
	 */
	const sessionRunTail = (listedWithin: number) => 2 * listedWithin;

	test(`a normal restart of main (SIGTERM, as a deployment does) while the platform rings ${CALLS} times and texts ${TEXTS} times: each reaches the end of the workflow exactly once, but for an event streamed in n8n's shutdown moment or whose run n8n had in flight`, async () => {
		const { missing, missingSaid, replayed, recovered, duplicates, rungAt, streamed, askedAt, runningAtRestart, restartedAt, stoppedAt, slowestRunMs, described } = await restartWhileEventsFlow(
			1,
			async () => await n8n.stop(),
		);
		// n8n stopped by itself: the harness did not have to kill it.
		expect(n8n.logs()).not.toMatch(/did not stop within \d+ s of SIGTERM/);
		console.log(n8n.logs().match(/n8n stopped \d+ ms after SIGTERM/g)?.at(-1));
		// Exactly once, but for one moment n8n gives no trigger a chance at: on SIGTERM, n8n runs its
		// shutdown handlers before it closes the triggers, so a run the trigger starts then fails (n8n
		// 1.x: a run with the event, ended in error) or is lost without a trace (n8n 2.x: "Driver has
		// already been released" in its log), and the trigger counts the event as delivered. Only an
		// event the platform streamed to n8n in that moment may be missing: rung before n8n exited,
		// and after SIGTERM or so shortly before it that n8n may have read it after (within the time
		// a run took in this round, at least half a second). A node cannot see SIGTERM (n8n Cloud's
		// scan forbids \`process\`).
		// On a loaded machine n8n 1.x also exits before runs it had in flight end (1 s after SIGTERM, with
		// 76 runs listed in flight, two events streamed 53 s earlier never ran, at load average 8.9):
		// beyond the moment, what is missing must be streamed and no more than n8n listed in flight, as
		// in the kill round below.
		const momentStart = restartedAt - Math.max(500, slowestRunMs);
		const inTheShutdownMoment = (m: string) => streamed.has(m) && (rungAt.get(m) ?? 0) >= momentStart && (rungAt.get(m) ?? 0) <= stoppedAt;
		const beyondTheMoment = missing.filter((m) => !inTheShutdownMoment(m));
		const inFlight = beyondTheMoment.filter((m) => streamed.has(m) && (rungAt.get(m) ?? 0) < stoppedAt);
		const listedWithin = Math.max(1000, slowestRunMs);
		expect({
			duplicates,
			notStreamedBeforeTheStop: beyondTheMoment.filter((m) => !inFlight.includes(m)).map(described),
			moreThanN8nHadInFlight: inFlight.length <= runningAtRestart ? [] : [`n8n listed ${runningAtRestart} runs in flight`, ...inFlight.map(described)],
			sessionEventsNotInFlight: unexplained(missingSaid, rungAt, Math.min(momentStart, askedAt - sessionRunTail(listedWithin)), stoppedAt).map(described),
		}).toEqual({ duplicates: [], notStreamedBeforeTheStop: [], moreThanN8nHadInFlight: [], sessionEventsNotInFlight: [] });
		expect([recovered > 0, replayed > 0]).toEqual([true, true]);
	});

	test(`kill and restart main while the platform rings ${CALLS} times and texts ${TEXTS} times: each reaches the end of the workflow once, none twice`, async () => {
		const { missing, missingSaid, replayed, failedFor, recovered, duplicates, rungAt, streamed, askedAt, runningAtRestart, sessionRunsAtRestart, stoppedAt, slowestRunMs, described } = await restartWhileEventsFlow(
			2,
			async () => await n8n.kill('SIGKILL'),
		);
		// Exactly once, but for n8n's own limit: a run that main was starting or running when it was
		// killed dies with it (regular mode runs in main), and the trigger cannot tell it from one that
		// finished, as n8n saves a trigger's memory only when it emits (docs/hosted-pbx.md). So:
		// - nothing twice;
		// - nothing is missing that the platform did not stream to the main that was killed: what rang
		//   while main was down is read back from the history, every event once;
		// - what is missing had a run in flight at the kill: a run n8n lists as not successful, or one of
		//   the runs n8n listed as in flight just before the kill, or an event rung so shortly before
		//   that n8n may not have listed its run yet (within the time a run took in this round, at least
		//   a second). How many runs are in flight depends on the machine's load (a second's worth,
		//   seven, on the CI machine once), so their number is n8n's own, not a constant.
		const listedWithin = Math.max(1000, slowestRunMs);
		const diedInARun = missing.filter((m) => !failedFor.includes(m) && streamed.has(m) && (rungAt.get(m) ?? 0) < stoppedAt);
		const beforeListed = diedInARun.filter((m) => (rungAt.get(m) ?? 0) < askedAt - listedWithin);
		expect({
			duplicates,
			notStreamedToTheKilledMain: missing.filter((m) => !failedFor.includes(m) && !diedInARun.includes(m)).map(described),
			moreThanN8nHadInFlight: beforeListed.length <= runningAtRestart ? [] : [`n8n listed ${runningAtRestart} runs in flight`, ...beforeListed.map(described)],
			// As for calls: sent no earlier than a run takes before n8n listed its runs (listing them took 36 s once, under load).
			sessionEventsNotInFlight: unexplained(missingSaid, rungAt, askedAt - sessionRunTail(listedWithin), stoppedAt).map(described),
		}).toEqual({ duplicates: [], notStreamedToTheKilledMain: [], moreThanN8nHadInFlight: [], sessionEventsNotInFlight: [] });
		// Counted as for calls: only what rang before n8n listed its runs can be among those it listed.
		expect(missingSaid.filter((m) => (rungAt.get(m) ?? 0) < askedAt - listedWithin).length).toBeLessThanOrEqual(Math.max(1, sessionRunsAtRestart));
		expect([recovered > 0, replayed > 0]).toEqual([true, true]);
	});

	test(`a normal restart of main (SIGTERM) while a batch of live calls gathers: the batch is not run in the shutdown, its calls are read back after the restart, every call once`, async () => {
		// Only the batched trigger listens from here on (the platform streams every call to each trigger).
		await n8n.deactivateNow(PBX_WORKFLOW);
		await admin.until('the unbatched stream to close', async () => ((await admin.get<unknown[]>('/pbx/streams')) ?? []).length === 0);
		await n8n.activateNow(BATCH_WORKFLOW);
		await admin.until('the batched stream to open', async () => ((await admin.get<unknown[]>('/pbx/streams')) ?? []).length === 1);
		const caller = (i: number) => callerNumber(3000 + i);
		const ring = async (i: number) => (await admin.post<{ delivered: number }>('/pbx/calls/incoming', { from: caller(i), callerIdName: `Batched ${i}` })).delivered;
		const delivered: number[] = [];
		for (let i = 0; i < BATCH_SIZE; i++) delivered.push(await ring(i));
		expect(delivered).toEqual(Array.from({ length: BATCH_SIZE }, () => 1));
		const [full] = await n8n.waitForExecutions(BATCH_WORKFLOW, 1, { timeoutMs: 60_000 });
		expect(nodeResult(full, 'End').json.map((i) => i.callerIdNumber)).toEqual(Array.from({ length: BATCH_SIZE }, (_v, i) => caller(i)));
		// Three calls gather in the next batch (its window is 20 s); n8n is stopped while they do.
		for (let i = BATCH_SIZE; i < BATCH_SIZE + 3; i++) delivered.push(await ring(i));
		expect(delivered).toEqual(Array.from({ length: BATCH_SIZE + 3 }, () => 1));
		await sleep(1500);
		await n8n.stop();
		expect(n8n.logs()).not.toMatch(/did not stop within \d+ s of SIGTERM/);
		await n8n.start();
		await n8n.login();
		// The read-back 2 s after the stream opens, then the batch window: done when all eight reached the end, then a while longer for any repeat.
		const itemsOfRuns = async () => {
			const runs = await Promise.all((await n8n.executions(BATCH_WORKFLOW)).filter((e) => e.status === 'success').map(async (e) => await n8n.execution(String(e.id))));
			return endItems(runs);
		};
		await admin.until('every call of the batches to reach the end', async () => (await itemsOfRuns()).length >= BATCH_SIZE + 3, 120_000).catch(async (error: Error) => {
			// What the next look needs: which calls ended, every run's status, what the trigger logged.
			const ended = (await itemsOfRuns()).map((i) => [i.callerIdNumber, i.recovered ?? false]);
			const runs = (await n8n.executions(BATCH_WORKFLOW)).map((e) => [e.id, e.status, e.mode]);
			console.log(`batched SIGTERM case failed: ended ${JSON.stringify(ended)}; runs ${JSON.stringify(runs)}\n${n8n.logs().split('\n').filter((l) => /Hosted PBX|crash|SIGTERM|Re-publishing/i.test(l)).slice(-40).join('\n')}`);
			throw error;
		});
		await sleep(5000);
		const items = await itemsOfRuns();
		const summaries = await n8n.executions(BATCH_WORKFLOW);
		expect({
			calls: items.map((i) => [i.callerIdNumber, i.recovered ?? false]).sort(([a], [b]) => String(a).localeCompare(String(b))),
			notSuccessful: summaries.filter((e) => e.status !== 'success').map((e) => e.status),
		}).toEqual({
			calls: Array.from({ length: BATCH_SIZE + 3 }, (_v, i) => [caller(i), i >= BATCH_SIZE]),
			notSuccessful: [],
		});
	});

	test('an ended session stops its listener for good: its last event says so, and after a restart no request is sent', async () => {
		await admin.post(`/intelligence/sessions/${SESSION}/script`, { events: [{ event_type: 'transcript', data: { text: 'hello' } }], intervalMs: 0, wait: true });
		await admin.post(`/intelligence/sessions/${SESSION}/end`);
		const last = await admin.until('the session_ended run', async () => {
			const summaries = await n8n.executions(SESSION_WORKFLOW);
			const runs = await Promise.all(summaries.filter((e) => e.status === 'success').map(async (e) => await n8n.execution(e.id)));
			return runs.map((run) => nodeResult(run, SESSION_TRIGGER).json[0]).find((item) => item?.event_type === 'session_ended');
		});
		expect(last).toMatchObject({ event_type: 'session_ended', listening: false });
		await admin.until('the session stream to close', async () => !((await admin.get<Array<{ sessionId: string }>>('/intelligence/streams')) ?? []).some((s) => s.sessionId === SESSION));
		expect(n8n.logs()).toMatch(/Conversation Intelligence Trigger: .*ended/);

		// n8n activating the trigger again after its error (n8n 1.x with the static data of its first
		// activation, a second later) and the restart below both ask the service nothing.
		const since = await admin.lastSeq();
		await sleep(4000);
		await n8n.stop();
		await n8n.start();
		await n8n.login();
		await sleep(5000);
		// The other session's trigger reconnects after the restart, as it should.
		const requests = (await admin.requests({ api: 'intelligence', since })).filter((r) => r.path.includes(`/sessions/${SESSION}/`));
		expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
	});
});
