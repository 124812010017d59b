/**
 * Restarts and faults in n8n's queue mode (one main, two workers, one webhook processor), with
 * the sandbox producing events all along:
 *   - main is killed (SIGKILL) and started again while PBX live events, new call records and a
 *     session's analysis events keep coming: the triggers come back by themselves; the polling
 *     cursor (static data) emits no record twice and misses none; the SSE trigger resumes after
 *     its last event id (static data) with no duplicate; the PBX live stream has no replay, so
 *     what was sent while no stream was open is lost: counted and reported;
 *   - webhooks keep working while main is down (the webhook processor and the workers do not need it);
 *   - a worker is killed during an execution: what n8n does with it and what the caller and the
 *     user see, recorded.
 * Every downstream effect is an SMS to the sandbox naming the event, so counting SMS per event
 * finds losses and duplicates. See docs/scaling.md.
 */
import * as os from 'node:os';

import { httpRequest, nodeResult, type RestResponse } from '../harness';
import type { QueueCluster } from './cluster';
import {
	SMS_PATH, agentWebhooks, countBy, executionRows, holds, recordFigures, signedIn, startQueueSetup, stopQueueSetup, until, workersOf, type QueueSetup,
} from './kit';
import {
	FAULT, FAULT_SESSION, FAULT_TEAM, faultLiveWorkflow, faultMissedWorkflow, faultPollWorkflow, faultSessionWorkflow, hookOnce, ID, AGENTS, slowWebhookWorkflow,
} from './workflows';

/** Bull's lock on a job (default 60 s) and the stalled-job check (default every 30 s), shortened so that a dead worker's job is noticed within seconds. */
const LOCK = { QUEUE_WORKER_LOCK_DURATION: '20000', QUEUE_WORKER_LOCK_RENEW_TIME: '5000', QUEUE_WORKER_STALLED_INTERVAL: '5000' };
const SLOW_SECONDS = 30;

describe('restarts and faults in queue mode', () => {
	let setup: QueueSetup;
	let cluster: QueueCluster;
	const admin = () => setup.admin;
	const fileStarted = Date.now();

	/** The SMS bodies the workflows sent since `since`, for one kind (`fault live|poll|sse`). */
	const reports = async (kind: string, since: number) =>
		(await admin().requests({ api: 'pbx', method: 'POST', pathPrefix: SMS_PATH, since }))
			.filter((r) => r.status === 201 && r.body?.to === FAULT_TEAM && String(r.body?.body).startsWith(`fault ${kind} `))
			.map((r) => String(r.body.body).slice(`fault ${kind} `.length).split(' ')[0]);
	const pbxStreams = async () => await admin().get<unknown[]>('/pbx/streams');
	const sessionStreams = async () => (await admin().get<Array<Record<string, any>>>('/intelligence/streams')).filter((s) => s.sessionId === FAULT_SESSION);

	beforeAll(async () => {
		setup = await startQueueSetup([faultLiveWorkflow(), faultPollWorkflow(), faultMissedWorkflow(), faultSessionWorkflow(), slowWebhookWorkflow(SLOW_SECONDS), hookOnce()], { env: LOCK });
		cluster = setup.cluster;
		await admin().post('/intelligence/sessions', { session_id: FAULT_SESSION });
		for (const id of [...Object.values(FAULT), ID.hook]) await cluster.main.activateNow(id);
		await until('the PBX stream and the session stream open', async () => (await pbxStreams()).length === 1 && (await sessionStreams()).length === 1);
		// n8n 2.x publishes after the activate call returns; a main killed before the Voice Agent
		// Trigger registered its webhook keeps n8n's own row and does not register it again (docs/scaling.md).
		await until('the Voice Agent webhook registered', async () => (await agentWebhooks(admin())).some((w) => w.agent_id === AGENTS.hook));
		// Both pollers primed and polled at least once.
		await admin().waitForRequests({ api: 'pbx', method: 'GET', pathPrefix: '/api/v1/customers/me/calls' }, () => true, { count: 4 });
	});

	afterAll(async () => {
		await stopQueueSetup(setup);
		console.log(`faults suite: ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`);
	});

	// n8n stores a trigger's static data after activation and then only when it emits: the Hosted
	// PBX Trigger primes its polling cursor before trigger() returns, so the stored cursor exists
	// from the start and a record created while main is down is new, not history.
	test('a poller that has not emitted yet when main restarts: a missed call that comes while main is down is still texted', async () => {
		// The trigger primed its cursor at activation. What n8n has stored for it:
		const stored = await cluster.sql(`select "staticData" from workflow_entity where id = '${FAULT.missed}'`);
		const since = await admin().lastSeq();
		await cluster.get('main').kill('SIGKILL');
		const from = '+447700900606';
		await admin().post('/pbx/calls/incoming', { from, callerIdName: 'While Main Was Down', outcome: 'NO_ANSWER' });
		await cluster.startProcess('main');
		const readyAt = Date.now();
		// Main polls every 10 s again; the record is new to this trigger, so it must be texted.
		const polled = await until('six polls after the restart', async () => {
			const gets = (await admin().requests({ api: 'pbx', method: 'GET', pathPrefix: '/api/v1/customers/me/calls', since })).filter((r) => Date.parse(r.time) > readyAt);
			return gets.length >= 6 ? gets.length : undefined;
		}, 120_000);
		const texted = await until('the SMS for the missed call', async () => (await reports('missed', since)).length > 0 || undefined, 15_000).then(() => true, () => false);
		recordFigures('poller restarted before its first emit', {
			command: 'npm run test:queue -- faults',
			staticDataBeforeRestart: stored,
			staticDataAfterRestart: await cluster.sql(`select "staticData" from workflow_entity where id = '${FAULT.missed}'`),
			pollsAfterRestart: polled,
			missedCallWhileMainDownTexted: texted,
		});
		expect(texted).toBe(true);
	});

	test('main killed (SIGKILL) and started again while events keep coming: triggers come back by themselves; polling and SSE repeat nothing and lose nothing but what main was handing over; PBX live loses what came while no stream was open', async () => {
		const since = await admin().lastSeq();
		const LIVE = 200;
		const SSE = 200;
		const CALLS = 80;
		const t0 = Date.now();
		// 40 s of production: 5 PBX live events/s and 2 new call records/s; the session's events for
		// 80 s (2.5/s). The session ends only once main is back: an ended session does not reopen.
		const live = admin().post<{ published: number; delivered: number; seconds: number }>('/pbx/events', {
			event: 'smsreceived', values: { from: '+447700900100', to: '+441632960001', excerpt: 'fault test' }, count: LIVE, ratePerSecond: 5,
		});
		const sse = admin().post(`/intelligence/sessions/${FAULT_SESSION}/script`, { generate: SSE, intervalMs: 400, end: false, wait: true }, 120_000);
		const callNumbers: string[] = [];
		const calls = (async () => {
			const start = Date.now();
			for (let i = 0; i < CALLS; i++) {
				const due = start + i * 500 - Date.now();
				if (due > 0) await new Promise((r) => setTimeout(r, due));
				const from = `+4477009${String(20000 + i)}`;
				callNumbers.push(from);
				await admin().post('/pbx/calls/incoming', { from, callerIdName: `Fault ${i}`, outcome: 'ANSWERED' });
			}
		})();

		// Once the pipeline is visibly flowing (a few events of each kind done), main dies.
		await until('events flowing through main and the workers', async () => (await reports('live', since)).length >= 20 && (await reports('sse', since)).length >= 20 && (await reports('poll', since)).length >= 5, 120_000);
		const killAt = Date.now();
		await cluster.get('main').kill('SIGKILL');
		const killedAt = Date.now();

		// While main is down, the webhook processor and the workers still answer webhooks.
		const during = await admin().post('/convai/conversations', { agent_id: AGENTS.hook, completed: false });
		const webhookDuringDowntime = { outcome: during.deliveries?.[0]?.outcome, status: during.deliveries?.[0]?.response?.status, ms: during.deliveries?.[0]?.response?.elapsedMs };

		// Main comes back; nobody touches the triggers: they reopen by themselves.
		await cluster.startProcess('main');
		const readyAt = Date.now();
		await until('the PBX live stream and the session stream reopened', async () => (await pbxStreams()).length === 1 && (await sessionStreams()).length === 1, 120_000, 100);
		const reconnectedAt = Date.now();
		const resumedFrom = (await sessionStreams())[0]?.resumedFrom ?? null;

		const [liveResult] = await Promise.all([live, sse, calls]);
		const sessionEnd = await admin().post<{ state: string }>(`/intelligence/sessions/${FAULT_SESSION}/end`, {});
		const producedFor = Date.now() - t0;

		// Drain: every call record and every session event gives its SMS; the live count settles.
		await until(`${CALLS} poll reports`, async () => new Set(await reports('poll', since)).size >= CALLS, 180_000, 1000);
		// The session reports: all of them, or as many as come (a lost one is judged below).
		let sseSeen = -1;
		let sseChangedAt = Date.now();
		await until(`${SSE} session reports, or no more`, async () => {
			const n = new Set(await reports('sse', since)).size;
			if (n !== sseSeen) [sseSeen, sseChangedAt] = [n, Date.now()];
			return n >= SSE || Date.now() - sseChangedAt > 20_000;
		}, 240_000, 1000);
		/** Every event of the session in the order it was sent, and the operator results among them (each reported by a run). */
		const sessionOrder = (await admin().get<Array<Record<string, any>>>(`/intelligence/sessions/${FAULT_SESSION}/events`)).map((e) => ({ id: String(e.event_id), type: e.event_type }));
		const sseOrder = sessionOrder.filter((e) => e.type === 'operator_result').map((e) => e.id);
		const sseReports = await reports('sse', since);
		const sseReported = new Set(sseReports);
		const sseMissing = sseOrder.filter((id) => !sseReported.has(id));
		// Where the missing ones were lost: never handed to n8n, or handed over and their run failed.
		await signedIn(cluster);
		const sseRuns = await Promise.all((await cluster.main.executions(FAULT.sse)).map(async (e) => ({ e, run: await cluster.main.execution(String(e.id)).catch(() => undefined) })));
		const sseCarried = sseRuns.flatMap(({ e, run }) => (run ? nodeResult(run, 'Session event').json : []).map((j) => ({ id: String(j.event_id), status: e.status, error: run ? nodeResult(run, 'Report').error?.message : undefined })));
		if (sseMissing.length) {
			console.log(
				`SSE: ${sseReported.size} of ${sseOrder.length} reported; missing ${JSON.stringify(sseMissing)}; their runs ${JSON.stringify(sseCarried.filter((x) => sseMissing.includes(x.id)))}; ` +
					`runs ${sseRuns.length} (${JSON.stringify(countBy(sseRuns.map(({ e }) => String(e.status))))}), killed at ${killAt - t0} ms, resumed from ${resumedFrom}`,
			);
		}
		let liveSeen = 0;
		await until('the live reports to settle', async () => {
			const n = (await reports('live', since)).length;
			const settled = n === liveSeen;
			liveSeen = n;
			return settled && n > 0;
		}, 180_000, 3000);
		await holds('no more reports', async () => (await reports('live', since)).length === liveSeen, 5000, 1000);

		const dupes = (list: string[]) => Object.entries(countBy(list)).filter(([, n]) => n > 1).map(([k, n]) => `${k}×${n}`);
		const liveReports = await reports('live', since);
		const pollReports = await reports('poll', since);
		const pollRecords = new Set(pollReports);
		const liveSeqs = new Set(liveReports.map(Number));
		const lostLive = Array.from({ length: LIVE }, (_, i) => i).filter((i) => !liveSeqs.has(i));
		const figures = {
			command: 'npm run test:queue -- faults',
			mainDownMs: readyAt - killAt,
			killMs: killedAt - killAt,
			triggersBackAfterReadyMs: reconnectedAt - readyAt,
			producedForMs: producedFor,
			pbxLive: {
				published: liveResult.published,
				deliveredToAStream: liveResult.delivered,
				executions: liveReports.length,
				lost: lostLive.length,
				lostSeqRange: lostLive.length ? [lostLive[0], lostLive[lostLive.length - 1]] : [],
				lostInFlight: liveResult.delivered - liveSeqs.size,
				duplicates: dupes(liveReports).length,
			},
			pbxPolling: { records: CALLS, reported: pollRecords.size, duplicates: dupes(pollReports).length },
			sse: { events: sseOrder.length, reported: sseReported.size, lost: sseMissing, duplicates: dupes(sseReports).length, resumedFrom },
			webhookWhileMainDown: webhookDuringDowntime,
			loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
		};
		recordFigures('main killed while events flow', figures);

		// The live stream: nothing twice; what was lost is what came while no stream was open (plus any in flight at the kill).
		expect(dupes(liveReports)).toEqual([]);
		expect(liveResult.published).toBe(LIVE);
		expect(lostLive.length).toBe(LIVE - liveSeqs.size);
		expect(liveSeqs.size).toBeLessThanOrEqual(liveResult.delivered);
		// Polling: every record exactly once, including those created while main was down.
		expect(dupes(pollReports)).toEqual([]);
		expect(callNumbers.length).toBe(CALLS);
		expect(pollRecords.size).toBe(CALLS);
		// SSE: every operator result exactly once, but for what main was handing over when it was
		// killed: n8n stores the trigger's last event id and hands the run to the queue side by side
		// (docs/scaling.md), so an event whose id was stored and whose run was not is lost. Such an
		// event has no run, and is one of the last main received: at most a second's worth (five) up
		// to the id the new connection resumed after.
		expect(sseOrder).toHaveLength(SSE);
		expect(sessionEnd.state).toBe('ended');
		expect(dupes(sseReports)).toEqual([]);
		expect(resumedFrom).toMatch(/^evt_/);
		const position = (id: unknown) => sessionOrder.findIndex((e) => e.id === String(id));
		const handedOverAtTheKill = (id: string) => position(id) <= position(resumedFrom) && position(id) > position(resumedFrom) - 5 && !sseCarried.some((x) => x.id === id);
		expect({ missingBeyondTheHandover: sseMissing.filter((id) => !handedOverAtTheKill(id)), reportedButNotSent: [...sseReported].filter((id) => !sseOrder.includes(id)) }).toEqual({
			missingBeyondTheHandover: [],
			reportedButNotSent: [],
		});
		// Webhooks kept working without main.
		expect(webhookDuringDowntime).toMatchObject({ outcome: 'delivered', status: 200 });
	});

	test('a worker killed (SIGKILL) during an execution: what n8n does with it, and what the caller and the user see', async () => {
		await signedIn(cluster);
		const before = (await executionRows(cluster, FAULT.slow)).length;
		const sent = Date.now();
		let answered: { at: number; res?: RestResponse<unknown>; error?: string } | undefined;
		void httpRequest(cluster.webhookUrl('queue-slow'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 600_000 }).then(
			(res) => (answered = { at: Date.now(), res }),
			(e: Error) => (answered = { at: Date.now(), error: e.message }),
		);
		const row = await until('the slow execution running', async () => (await executionRows(cluster, FAULT.slow)).slice(before).find((r) => r.status === 'running'), 120_000);
		const [victim] = await workersOf(cluster, row.id);
		const survivor = victim === 'worker1' ? 'worker2' : 'worker1';
		const jobId = /Enqueued execution \d+ \(job (\d+)\)/.exec(cluster.logs('webhook1').split('\n').find((l) => l.includes(`Enqueued execution ${row.id} (`)) ?? '')?.[1];
		// Bull keeps a job as a hash `<prefix>:<queue>:<id>` while it is waiting or active (n8n removes finished ones).
		const jobKey = jobId ? (await cluster.redis.cli('--scan', '--pattern', `*:${jobId}`)).split('\n').find((k) => /:jobs:\d+$/.test(k)) : undefined;
		const killAt = Date.now();
		await cluster.get(victim as 'worker1').kill('SIGKILL');

		// Watch: the execution's status, the queue's job, the caller.
		const timeline: Array<[number, string]> = [];
		let lastState = '';
		const state = async () => {
			const [r] = (await executionRows(cluster, FAULT.slow)).filter((e) => e.id === row.id);
			let job = 'unknown';
			if (jobKey) {
				const [exists, processedOn, failedReason] = [await cluster.redis.cli('EXISTS', jobKey), ...(await cluster.redis.cli('HMGET', jobKey, 'processedOn', 'failedReason')).split('\n')];
				job = exists === '1' ? `${jobKey} ${failedReason ? `failed: ${failedReason}` : processedOn ? 'active (taken by a worker)' : 'waiting'}` : `${jobKey} removed from Redis`;
			}
			const s = `execution ${r.status}; job ${job}; caller ${answered ? (answered.res ? `got ${answered.res.status}` : `error ${answered.error}`) : 'waiting'}`;
			if (s !== lastState) timeline.push([Date.now() - killAt, s]);
			lastState = s;
			return r;
		};
		const ended = await until('the killed execution to end one way or another', async () => {
			const r = await state();
			return r.status !== 'running' && r.status !== 'new' && answered ? r : undefined;
		}, 300_000, 1000);
		const endedAfter = Date.now() - killAt;
		const run = await cluster.main.execution(row.id);
		const error = run.data?.resultData?.error?.message;
		// The other worker never took it over (Bull's maxStalledCount is 0 in n8n: no retry).
		await holds('no other worker ran it', () => cluster.processesThatRan(row.id).length === 1, 3000);
		const problem = cluster.logs('webhook1').split('\n').find((l) => l.includes(`execution ${row.id}`) && /Problem|stalled/i.test(l));

		// The worker comes back and the cluster runs the same workflow normally.
		await cluster.startProcess(victim as 'worker1');
		const again = await httpRequest(cluster.webhookUrl('queue-slow'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 300_000 });

		recordFigures('worker killed during an execution', {
			command: 'npm run test:queue -- faults',
			settings: { ...LOCK, note: 'defaults: lock 60000 ms, renew 10000 ms, stalled check every 30000 ms' },
			executionTakes: `${SLOW_SECONDS} s (a Wait node on the worker)`,
			killedAfterMs: killAt - sent,
			execution: { id: row.id, worker: victim, finalStatus: ended.status, error, endedAfterKillMs: endedAfter, retriedOn: cluster.processesThatRan(row.id).filter((p) => p !== victim) },
			caller: answered?.res ? { status: answered.res.status, body: answered.res.body, afterKillMs: answered.at - killAt } : { error: answered?.error },
			webhookProcessorLog: problem?.replace(/^\[[^\]]+\] /, ''),
			timeline: timeline.map(([ms, s]) => `+${(ms / 1000).toFixed(1)} s ${s}`),
			afterRestart: { status: again.status, body: again.body },
		});
		expect(ended.status).toBe('error');
		expect(cluster.processesThatRan(row.id)).toEqual([victim]);
		expect(cluster.processesThatRan(row.id)).not.toContain(survivor);
		expect(again.status).toBe(200);
		expect(again.body).toEqual({ done: true });
	});
});
