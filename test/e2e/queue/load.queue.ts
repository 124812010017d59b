/**
 * Load in n8n's queue mode (one main, two workers, one webhook processor, Postgres, Redis, all on
 * one 2-core machine), each event ending in a downstream request to the sandbox (an SMS naming it):
 *   - 1,000 Wholesale Voice webhook deliveries at 50/s, through the webhook processor;
 *   - 1,000 Hosted PBX live-stream events at 100/s, through main's trigger, one execution each;
 *   - Hosted PBX live events for 60 s in batches of 100 (one execution and one SMS naming its
 *     events per batch), at 100/s and at 1,000/s;
 *   - Hosted PBX live events for 60 s at 1,000/s, one execution each: more than this machine runs,
 *     so what it reached within a bound is recorded (the backlog is left to the teardown).
 * Counted: executions (n8n's database) and downstream SMS per event: none lost, none twice.
 * Measured: throughput, executions/s, the webhook processor's answer time, and end-to-end latency
 * per event (the sandbox sends the event -> the sandbox receives the SMS). See docs/scaling.md.
 * First, the carriers' hourly CDR pull (examples/wholesale/cdr-hourly-to-postgres.json) on a
 * worker: 100,000 CDRs ($TELEPHONY_QUEUE_CDR_ROWS) into a table of the cluster's Postgres, run
 * twice; counted in the table, timed from the report ready to the last row written, with the
 * peak memory of the worker that ran it.
 */
import * as os from 'node:os';

import { CDR_RECIPE_ID, CDR_TABLE, cdrDatabaseCredential, cdrRecipe, createCdrTableSql } from '../cdrRecipe';
import { httpRequest, peakRss } from '../harness';
import type { QueueCluster } from './cluster';
import {
	SMS_PATH, countBy, executionRows, holds, paced, recordFigures, startQueueSetup, stopQueueSetup, summarize, until, waitForFinished, type QueueSetup,
} from './kit';
import { LOAD, LOAD_BATCH_SIZE, LOAD_HOOK, LOAD_TEAM, loadPbxBatchWorkflow, loadPbxWorkflow, loadWholesaleWorkflow } from './workflows';

const COUNT = 1000;
const CDR_ROWS = Number(process.env.TELEPHONY_QUEUE_CDR_ROWS ?? 100_000);

/** The recipe as imported: its hourly schedule every minute, so that activating it runs it within one. */
function cdrRecipeEveryMinute(): Record<string, unknown> {
	const recipe = cdrRecipe();
	recipe.nodes.find((n: Record<string, any>) => n.type === 'n8n-nodes-base.scheduleTrigger').parameters.rule = { interval: [{ field: 'minutes', minutesInterval: 1 }] };
	return recipe;
}
const POOL = { DB_POSTGRESDB_POOL_SIZE: '10' };
/** How long each stream run (batches, and one per execution at 1,000/s) publishes, in seconds. */
const SECONDS = 60;
/** How long, once a run has published, the one-execution-per-event run at 1,000/s may drain. */
const DRAIN_BOUND_MS = 5 * 60_000;

type Report = { words: string[]; at: number };

describe('load in queue mode: webhook deliveries at 5/s and 50/s; stream events at 100/s and 1,000/s, one per execution and in batches of 100', () => {
	let setup: QueueSetup;
	let cluster: QueueCluster;
	const admin = () => setup.admin;
	const fileStarted = Date.now();

	/** The load SMS since `since`: [body words after the prefix, time the sandbox received it (ms)]. */
	const reports = async (prefix: string, since: number): Promise<Report[]> =>
		(await admin().requests({ api: 'pbx', method: 'POST', pathPrefix: SMS_PATH, since }))
			.filter((r) => r.status === 201 && r.body?.to === LOAD_TEAM && String(r.body?.body).startsWith(prefix))
			.map((r) => ({ words: String(r.body.body).slice(prefix.length).trim().split(' '), at: Date.parse(r.time) }));

	/** A workflow's executions by status (one query, whatever their number). */
	const executionCounts = async (workflowId: string) => {
		const out = await cluster.sql(`select status, count(*) from execution_entity where "workflowId" = '${workflowId}' group by status`);
		return Object.fromEntries((out ? out.split('\n') : []).map((line) => line.split('\t')).map(([status, n]) => [status, Number(n)]));
	};

	/**
	 * Waits until `done` holds for the downstream requests and no execution is unfinished, or until
	 * nothing has moved (no new execution, no new downstream request) for 20 s: what arrived by then
	 * is what arrives. With `boundMs`, also stops waiting after that long and says so (`bounded`).
	 * Unless it was bounded, the count of downstream requests must then stay put for 5 s (a
	 * duplicate would come late).
	 */
	const settle = async (prefix: string, since: number, workflowId: string, done: (got: Report[]) => boolean, options: { boundMs?: number; everyMs?: number } = {}) => {
		const { boundMs, everyMs = 1000 } = options;
		const started = Date.now();
		let last = '';
		let stillSince = Date.now();
		let bounded = false;
		await until(`the downstream requests (${prefix}), or no progress for 20 s`, async () => {
			const got = await reports(prefix, since);
			const counts = await executionCounts(workflowId);
			const unfinished = ['new', 'running', 'waiting'].reduce((sum, s) => sum + (counts[s] ?? 0), 0);
			const now = `${got.length}/${JSON.stringify(counts)}`;
			if (now !== last) {
				last = now;
				stillSince = Date.now();
			}
			bounded = boundMs !== undefined && Date.now() - started > boundMs;
			return (done(got) && unfinished === 0) || Date.now() - stillSince > 20_000 || bounded;
		}, boundMs === undefined ? 15 * 60_000 : boundMs + 60_000, everyMs);
		if (!bounded) {
			const n = (await reports(prefix, since)).length;
			await holds('no further downstream requests', async () => (await reports(prefix, since)).length === n, 5000, 1000);
		}
		return { got: await reports(prefix, since), bounded, waitedMs: Date.now() - started };
	};

	/** Publishes `rate` live events a second for `seconds` on the sandbox's stream; answers once the last is written. */
	const publish = async (values: Record<string, unknown>, rate: number, seconds: number) => {
		const count = rate * seconds;
		// SandboxAdmin's 60 s socket timeout would race the answer of a 60 s run.
		const res = await httpRequest<{ published: number; delivered: number; seconds: number }>(`${setup.sandbox.url}/_sandbox/pbx/events`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ event: 'incomingcall', values: { callerIdNumber: '+447700900123', callerIdName: 'LOAD TEST', ...values }, count, ratePerSecond: rate }),
			timeoutMs: seconds * 1000 + 60_000,
		});
		if (res.status !== 200) throw new Error(`POST /_sandbox/pbx/events answered ${res.status}: ${JSON.stringify(res.body)}`);
		return { ...res.body, publishedPerSecond: Math.round((res.body.published / res.body.seconds) * 10) / 10 };
	};

	/** The PBX workflow whose trigger holds the stream (one at a time: each stream connection gets every event). */
	let listening: string = LOAD.pbx;
	const listenWith = async (workflowId: string) => {
		if (listening === workflowId) return;
		await cluster.main.deactivateNow(listening);
		await until('no PBX live stream', async () => (await admin().get<unknown[]>('/pbx/streams')).length === 0);
		await cluster.main.activateNow(workflowId);
		listening = workflowId;
		await until('the PBX live stream', async () => (await admin().get<unknown[]>('/pbx/streams')).length === 1);
	};

	beforeAll(async () => {
		// n8n's default of 2 database connections per process times out under these rates
		// ("timeout exceeded when trying to connect"): 10 each (docs/scaling.md).
		setup = await startQueueSetup([loadWholesaleWorkflow(), loadPbxWorkflow(), loadPbxBatchWorkflow(), cdrRecipeEveryMinute()], { env: POOL });
		cluster = setup.cluster;
		await cluster.sql(createCdrTableSql(cdrRecipe()));
		await cluster.main.importCredentials([cdrDatabaseCredential(setup.sandbox.url, cluster.postgres.port, cluster.postgres.database)]);
		for (const id of [LOAD.wholesale, LOAD.pbx]) await cluster.main.activateNow(id);
		await until('the PBX live stream', async () => (await admin().get<unknown[]>('/pbx/streams')).length === 1);
		// The webhook processor serves the trigger once it has loaded it: one warm-up delivery (not counted).
		await until('the wholesale webhook answered', async () => {
			const { deliveries } = await admin().post('/wholesale/deliveries', { url: cluster.webhookUrl(`${LOAD_HOOK}/wholesale-voice`), app: 'cdr', id: `warmup${Date.now()}` });
			return deliveries[0].status === 200;
		}, 120_000, 1000);
		// A warm-up attempt that timed out may still become an execution: wait until all have ended and none come.
		let seen = -1;
		await until('the warm-up executions to settle', async () => {
			const rows = await executionRows(cluster, LOAD.wholesale);
			const settled = rows.length === seen && rows.every((r) => !['new', 'running', 'waiting'].includes(r.status));
			seen = rows.length;
			return settled;
		}, 120_000, 3000);
	});

	afterAll(async () => {
		await stopQueueSetup(setup);
		console.log(`load suite: ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`);
	});

	test(`the hourly CDR pull on a worker: ${CDR_ROWS} CDRs written once in groups of 1,000; the same hour again adds none`, async () => {
		const count = async () => Number(await cluster.sql(`select count(*) from ${CDR_TABLE}`));
		/** One scheduled run: the report queued, the recipe active until the run ended; the worker that ran it, its memory. */
		const scheduledRun = async (nth: number) => {
			await admin().post('/wholesale/reports/next', { type: 'voice_cdr', rows: CDR_ROWS, readyMs: 0 });
			const before = new Map(cluster.workers.map((w) => [w, peakRss(w.serverPid ?? 0)]));
			await cluster.main.activateNow(CDR_RECIPE_ID);
			const rows = await waitForFinished(cluster, CDR_RECIPE_ID, nth, 15 * 60_000);
			await cluster.main.deactivateNow(CDR_RECIPE_ID);
			const run = rows[nth - 1];
			const workers = cluster.workers.map((w, i) => ({ name: `worker${i + 1}`, before: before.get(w) ?? 0, after: peakRss(w.serverPid ?? 0) }));
			return { run, ranOn: cluster.processesThatRan(run.id), workers };
		};
		const first = await scheduledRun(1);
		expect(first.run.status).toBe('success');
		expect(await count()).toBe(CDR_ROWS);
		const ready = (await admin().get<{ reports: Array<{ readyAt: string | null }> }>('/wholesale/reports')).reports.map((r) => Date.parse(r.readyAt ?? '')).filter(Number.isFinite);
		const lastWritten = Date.parse(await cluster.sql(`select to_json(max(written_at))#>>'{}' from ${CDR_TABLE}`));
		const second = await scheduledRun(2);
		expect(second.run.status).toBe('success');
		expect(await count()).toBe(CDR_ROWS);
		const ran = first.workers.find((w) => first.ranOn.includes(w.name as `worker${number}`));
		recordFigures('cdrPull', {
			command: 'npm run test:queue -- load',
			rows: CDR_ROWS,
			rowsPerItem: 1000,
			readyToLastRowWrittenSeconds: Math.round((lastWritten - Math.max(...ready)) / 100) / 10,
			runSeconds: Math.round((Date.parse(first.run.stoppedAt) - Date.parse(first.run.startedAt)) / 100) / 10,
			secondRunSeconds: Math.round((Date.parse(second.run.stoppedAt) - Date.parse(second.run.startedAt)) / 100) / 10,
			ranOn: first.ranOn,
			workerPeakRssMb: ran ? Math.round(ran.after / 1e6) : null,
			workerPeakRssBeforeMb: ran ? Math.round(ran.before / 1e6) : null,
			workers: first.workers.map((w) => ({ ...w, before: Math.round(w.before / 1e6), after: Math.round(w.after / 1e6) })),
		});
	}, 40 * 60_000);

	/** `count` deliveries (app cdr, each with its own id) at one every `intervalMs`, then the accounting. */
	const deliverWholesale = async (count: number, intervalMs: number, tag: string) => {
		const url = cluster.webhookUrl(`${LOAD_HOOK}/wholesale-voice`);
		const since = await admin().lastSeq();
		const before = (await executionRows(cluster, LOAD.wholesale)).length;
		const ids = Array.from({ length: count }, (_, i) => `${tag}${i.toString(16).padStart(6, '0')}`);
		const t0 = Date.now();
		const records = (await paced(count, intervalMs, async (i) => (await admin().post('/wholesale/deliveries', { url, app: 'cdr', id: ids[i] })).deliveries[0])) as Array<Record<string, any>>;
		const sendMs = Date.now() - t0;
		const mine = new Set(ids);
		const { got: all } = await settle('load wholesale', since, LOAD.wholesale, (g) => new Set(g.map((r) => r.words[0])).size >= count);
		const got = all.filter((r) => mine.has(r.words[0]));
		const newRows = (await executionRows(cluster, LOAD.wholesale)).slice(before);

		const sentAt = new Map(records.map((r, i) => [ids[i], Date.parse(r.sentAt)]));
		const perId = countBy(got.map((r) => r.words[0]));
		const acknowledged = ids.filter((_, i) => records[i].status === 200);
		const latency = got.map((r) => r.at - sentAt.get(r.words[0])!);
		const first = Math.min(...sentAt.values());
		const last = got.length ? Math.max(...got.map((r) => r.at)) : first;
		const figures = {
			command: 'npm run test:queue -- load',
			settings: POOL,
			deliveries: count,
			targetPerSecond: Math.round(1000 / intervalMs),
			sentPerSecond: Math.round((count / sendMs) * 10000) / 10,
			answered200: acknowledged.length,
			notAnswered: countBy(records.filter((r) => r.status !== 200).map((r) => String(r.status ?? r.error ?? r.outcome))),
			webhookAnswerMs: summarize(records.map((r) => Number(r.elapsedMs))),
			executions: newRows.length,
			executionStatuses: countBy(newRows.map((r) => r.status)),
			downstreamRequests: got.length,
			// (a late warm-up delivery also counts here: executions are compared with this)
			allDownstreamRequests: all.length,
			lost: ids.filter((id) => !perId[id]).length,
			acknowledgedButLost: acknowledged.filter((id) => !perId[id]).length,
			notAcknowledgedButRun: ids.filter((id, i) => records[i].status !== 200 && perId[id]).length,
			duplicates: Object.values(perId).filter((n) => n > 1).length,
			throughputPerSecond: Math.round((got.length / Math.max(0.001, (last - first) / 1000)) * 10) / 10,
			endToEndMs: summarize(latency),
			perWorker: cluster.executionsPerWorker(),
			loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
		};
		return { figures, newRows, records };
	};

	// The calm rate first: a backlog the overload leaves behind would be measured with it.
	test('300 Wholesale Voice webhook deliveries at 5/s: every one acknowledged, run once, its downstream request made: none lost, none twice', async () => {
		const { figures } = await deliverWholesale(300, 200, 'calm');
		recordFigures('load: wholesale webhooks at 5/s', figures);
		expect(figures).toMatchObject({ answered200: 300, executions: 300, downstreamRequests: 300, lost: 0, duplicates: 0, executionStatuses: { success: 300 } });
	});

	test('1,000 Wholesale Voice webhook deliveries at 50/s (one webhook processor): whatever it acknowledges runs exactly once; what it cannot take is counted', async () => {
		const { figures } = await deliverWholesale(COUNT, 20, 'fast');
		recordFigures('load: wholesale webhooks at 50/s', figures);
		// Nothing twice, nothing acknowledged (200) and then dropped, every execution successful.
		expect(figures.duplicates).toBe(0);
		expect(figures.acknowledgedButLost).toBe(0);
		expect(figures.executions).toBe(figures.allDownstreamRequests);
		expect(figures.executionStatuses).toEqual({ success: figures.executions });
	});

	test('1,000 Hosted PBX live events at 100/s: 1,000 executions, 1,000 downstream requests, none lost, none twice', async () => {
		const run = `r${Date.now().toString(36)}`;
		const since = await admin().lastSeq();
		const before = (await executionRows(cluster, LOAD.pbx)).length;
		const published = await admin().post<{ published: number; delivered: number; seconds: number }>('/pbx/events', {
			event: 'incomingcall', values: { run, callerIdNumber: '+447700900123', callerIdName: 'LOAD TEST' }, count: COUNT, ratePerSecond: 100,
		});
		const settled = await settle(`load pbx ${run}`, since, LOAD.pbx, (g) => new Set(g.map((r) => r.words[0])).size >= COUNT);
		const got = settled.got.map((r) => ({ seq: Number(r.words[0]), sentAt: Number(r.words[1]), at: r.at }));
		const rows = await executionRows(cluster, LOAD.pbx);

		const perSeq = countBy(got.map((r) => String(r.seq)));
		const duplicates = Object.entries(perSeq).filter(([, n]) => n > 1);
		const lost = Array.from({ length: COUNT }, (_, i) => i).filter((i) => !perSeq[String(i)]);
		const latency = got.map((r) => r.at - r.sentAt);
		const first = Math.min(...got.map((r) => r.sentAt));
		const last = Math.max(...got.map((r) => r.at));
		const newRows = rows.slice(before);
		recordFigures('load: PBX live events', {
			command: 'npm run test:queue -- load',
			settings: POOL,
			events: COUNT,
			targetPerSecond: 100,
			publishedPerSecond: Math.round((published.published / published.seconds) * 10) / 10,
			deliveredToTheStream: published.delivered,
			executions: newRows.length,
			executionStatuses: countBy(newRows.map((r) => r.status)),
			executionsPerSecond: Math.round((newRows.length / ((last - first) / 1000)) * 10) / 10,
			downstreamRequests: got.length,
			lost: lost.length,
			duplicates: duplicates.length,
			throughputPerSecond: Math.round((COUNT / ((last - first) / 1000)) * 10) / 10,
			endToEndMs: summarize(latency),
			perWorker: cluster.executionsPerWorker(),
			loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
		});
		expect(published).toMatchObject({ published: COUNT, delivered: COUNT });
		expect(lost).toEqual([]);
		expect(duplicates).toEqual([]);
		expect(newRows).toHaveLength(COUNT);
		expect(newRows.filter((r) => r.status !== 'success')).toEqual([]);
	});

	/** The events a batch SMS names (`<base> <seq>+<ms> …`): seq, when the sandbox sent it, when its SMS arrived. */
	const eventsOf = (got: Report[]) =>
		got.flatMap((r) => {
			const base = Number(r.words[0]);
			return r.words.slice(1).map((w) => {
				const [seq, ms] = w.split('+');
				return { seq: Number(seq), sentAt: base + Number(ms), at: r.at };
			});
		});

	/** What the downstream requests say of `count` events numbered 0…count-1. */
	const accounting = (events: Array<{ seq: number; sentAt: number; at: number }>, count: number) => {
		const perSeq = countBy(events.map((e) => String(e.seq)));
		// (reduce: 60,000 arguments to Math.min could overflow the stack)
		const first = events.reduce((min, e) => Math.min(min, e.sentAt), Infinity);
		const last = events.reduce((max, e) => Math.max(max, e.at), -Infinity);
		return {
			seconds: (last - first) / 1000,
			lost: Array.from({ length: count }, (_, i) => i).filter((i) => !perSeq[String(i)]),
			duplicates: Object.entries(perSeq).filter(([, n]) => n > 1),
			endToEndMs: summarize(events.map((e) => e.at - e.sentAt)),
		};
	};
	const perSecond = (n: number, seconds: number) => Math.round((n / Math.max(0.001, seconds)) * 10) / 10;
	/** Live stream connections opened since `since`: a run with none kept the connection it started on. */
	const streamsOpened = async (since: number) => (await admin().requests({ api: 'pbx', method: 'GET', pathPrefix: '/api/v1/stream', since })).length;

	test.each([100, 1000])('Hosted PBX live events at %i/s for 60 s in batches of 100: one execution and one SMS per batch, every event once', async (rate) => {
		await listenWith(LOAD.pbxBatch);
		const count = rate * SECONDS;
		const run = `b${Date.now().toString(36)}`;
		const since = await admin().lastSeq();
		const before = (await executionRows(cluster, LOAD.pbxBatch)).length;
		const published = await publish({ run }, rate, SECONDS);
		const { got } = await settle(`load batch ${run}`, since, LOAD.pbxBatch, (g) => new Set(eventsOf(g).map((e) => e.seq)).size >= count);
		const events = eventsOf(got);
		const { seconds, lost, duplicates, endToEndMs } = accounting(events, count);
		const newRows = (await executionRows(cluster, LOAD.pbxBatch)).slice(before);
		const sizes = got.map((r) => r.words.length - 1);
		const reopened = await streamsOpened(since);
		recordFigures(`load: PBX live events at ${rate.toLocaleString('en-US')}/s, batches of ${LOAD_BATCH_SIZE}`, {
			command: 'npm run test:queue -- load',
			settings: POOL,
			batchSize: LOAD_BATCH_SIZE,
			batchWindowMs: 1000,
			events: count,
			seconds: SECONDS,
			targetPerSecond: rate,
			publishedPerSecond: published.publishedPerSecond,
			deliveredToTheStream: published.delivered,
			streamsOpenedDuringTheRun: reopened,
			executions: newRows.length,
			executionStatuses: countBy(newRows.map((r) => r.status)),
			executionsPerSecond: perSecond(newRows.length, seconds),
			downstreamRequests: got.length,
			eventsPerBatch: { min: Math.min(...sizes), mean: Math.round((events.length / Math.max(1, got.length)) * 10) / 10, max: Math.max(...sizes) },
			eventsDownstream: events.length,
			lost: lost.length,
			duplicates: duplicates.length,
			throughputPerSecond: perSecond(events.length, seconds),
			endToEndMs,
			perWorker: cluster.executionsPerWorker(),
			loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
		});
		expect(published.published).toBe(count);
		expect(duplicates).toEqual([]);
		// The stream has no replay, and these events have no history record to read back: the design
		// promises every event only while the connection holds (n8n restarting the trigger, or a
		// drop, loses what comes meanwhile; a trigger that closes emits the batch it was gathering).
		if (reopened === 0 && published.delivered === count) expect(lost).toEqual([]);
		// One SMS per execution, each naming at most a batch.
		expect(got).toHaveLength(newRows.length);
		expect(Math.max(...sizes)).toBeLessThanOrEqual(LOAD_BATCH_SIZE);
		expect(newRows.filter((r) => r.status !== 'success')).toEqual([]);
	});

	// Last: its backlog is more than this machine drains in the bound, and is left to the teardown.
	test('Hosted PBX live events at 1,000/s for 60 s, one execution each: what it reaches within 5 minutes, none twice', async () => {
		await listenWith(LOAD.pbx);
		const count = 1000 * SECONDS;
		const run = `o${Date.now().toString(36)}`;
		const since = await admin().lastSeq();
		const before = (await executionRows(cluster, LOAD.pbx)).length;
		const published = await publish({ run }, 1000, SECONDS);
		const settled = await settle(`load pbx ${run}`, since, LOAD.pbx, (g) => new Set(g.map((r) => r.words[0])).size >= count, { boundMs: DRAIN_BOUND_MS, everyMs: 5000 });
		const events = settled.got.map((r) => ({ seq: Number(r.words[0]), sentAt: Number(r.words[1]), at: r.at }));
		const { seconds, lost, duplicates, endToEndMs } = accounting(events, count);
		const newRows = (await executionRows(cluster, LOAD.pbx)).slice(before);
		const statuses = countBy(newRows.map((r) => r.status));
		const reopened = await streamsOpened(since);
		recordFigures('load: PBX live events at 1,000/s, one per execution', {
			command: 'npm run test:queue -- load',
			settings: POOL,
			events: count,
			seconds: SECONDS,
			targetPerSecond: 1000,
			publishedPerSecond: published.publishedPerSecond,
			deliveredToTheStream: published.delivered,
			streamsOpenedDuringTheRun: reopened,
			drainBoundSeconds: settled.bounded ? DRAIN_BOUND_MS / 1000 : null,
			waitedAfterPublishingSeconds: Math.round(settled.waitedMs / 100) / 10,
			executionsStored: newRows.length,
			executionStatuses: statuses,
			executionsPerSecond: perSecond(statuses.success ?? 0, seconds),
			downstreamRequests: events.length,
			// Not downstream when the wait ended (the bound, or 20 s without progress): still queued, or
			// dropped by n8n (main logs "timeout exceeded when trying to connect" for a run it could not store).
			notDownstream: lost.length,
			endedBy: settled.bounded ? 'the drain bound' : lost.length ? '20 s without progress' : 'all downstream',
			duplicates: duplicates.length,
			throughputPerSecond: perSecond(events.length, seconds),
			endToEndMs,
			perWorker: cluster.executionsPerWorker(),
			loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
		});
		expect(published.published).toBe(count);
		// Nothing twice. Loss is not judged: beyond what main can store, n8n drops runs (a database
		// connection not had within its timeout), and within the bound the backlog is still queued.
		expect(duplicates).toEqual([]);
	});
});
