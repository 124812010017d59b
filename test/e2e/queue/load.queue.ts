/**
 * Load in n8n's queue mode (one main, two workers, one webhook processor, Postgres, Redis, all on
 * one 2-core machine), each event ending in a downstream request to the sandbox (an SMS naming it):
 *   - 1,000 Wholesale Voice webhook deliveries at 50/s, through the webhook processor;
 *   - 1,000 Hosted PBX live-stream events at 100/s, through main's trigger.
 * Counted: executions (n8n's database) and downstream SMS per event: none lost, none twice.
 * Measured: throughput, the webhook processor's answer time, and end-to-end latency (the sandbox
 * sends the event -> the sandbox receives the SMS). See docs/scaling.md.
 */
import * as os from 'node:os';

import type { QueueCluster } from './cluster';
import {
	SMS_PATH, countBy, executionRows, holds, paced, recordFigures, startQueueSetup, stopQueueSetup, summarize, until, type QueueSetup,
} from './kit';
import { LOAD, LOAD_HOOK, LOAD_TEAM, loadPbxWorkflow, loadWholesaleWorkflow } from './workflows';

const COUNT = 1000;
const POOL = { DB_POSTGRESDB_POOL_SIZE: '10' };

describe('load in queue mode: webhook deliveries at 50/s and 5/s, 1,000 stream events at 100/s', () => {
	let setup: QueueSetup;
	let cluster: QueueCluster;
	const admin = () => setup.admin;
	const fileStarted = Date.now();

	/** The load SMS since `since`: [body words after the prefix, time the sandbox received it (ms)]. */
	const reports = async (prefix: string, since: number) =>
		(await admin().requests({ api: 'pbx', method: 'POST', pathPrefix: SMS_PATH, since }))
			.filter((r) => r.status === 201 && r.body?.to === LOAD_TEAM && String(r.body?.body).startsWith(prefix))
			.map((r) => ({ words: String(r.body.body).slice(prefix.length).trim().split(' '), at: Date.parse(r.time) }));

	/**
	 * Waits until every event has its downstream request, or until nothing has moved (no new
	 * execution, no new downstream request) for 20 s: what arrived by then is what arrives.
	 */
	const settle = async (prefix: string, since: number, workflowId: string, key: (words: string[]) => string, expected = COUNT) => {
		let last = '';
		let stillSince = Date.now();
		await until(`${expected} downstream requests (${prefix}), or no progress for 20 s`, async () => {
			const got = await reports(prefix, since);
			const rows = await executionRows(cluster, workflowId);
			const unfinished = rows.filter((r) => ['new', 'running', 'waiting'].includes(r.status)).length;
			const now = `${got.length}/${rows.length}/${unfinished}`;
			if (now !== last) {
				last = now;
				stillSince = Date.now();
			}
			return (new Set(got.map((r) => key(r.words))).size >= expected && unfinished === 0) || Date.now() - stillSince > 20_000;
		}, 15 * 60_000, 1000);
		// A duplicate would come late: the count must stay put.
		const n = (await reports(prefix, since)).length;
		await holds('no further downstream requests', async () => (await reports(prefix, since)).length === n, 5000, 1000);
		return await reports(prefix, since);
	};

	beforeAll(async () => {
		// n8n's default of 2 database connections per process times out under these rates
		// ("timeout exceeded when trying to connect"): 10 each (docs/scaling.md).
		setup = await startQueueSetup([loadWholesaleWorkflow(), loadPbxWorkflow()], { env: POOL });
		cluster = setup.cluster;
		for (const id of Object.values(LOAD)) await cluster.main.activateNow(id);
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
		const all = await settle('load wholesale', since, LOAD.wholesale, (w) => w[0], count);
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

	test('1,000 Wholesale Voice webhook deliveries at 50/s (one webhook processor): whatever it acknowledges runs exactly once; what it cannot take is counted', async () => {
		const { figures } = await deliverWholesale(COUNT, 20, 'fast');
		recordFigures('load: wholesale webhooks at 50/s', figures);
		// Nothing twice, nothing acknowledged (200) and then dropped, every execution successful.
		expect(figures.duplicates).toBe(0);
		expect(figures.acknowledgedButLost).toBe(0);
		expect(figures.executions).toBe(figures.allDownstreamRequests);
		expect(figures.executionStatuses).toEqual({ success: figures.executions });
	});

	test('300 Wholesale Voice webhook deliveries at 5/s: every one acknowledged, run once, its downstream request made: none lost, none twice', async () => {
		const { figures } = await deliverWholesale(300, 200, 'calm');
		recordFigures('load: wholesale webhooks at 5/s', figures);
		expect(figures).toMatchObject({ answered200: 300, executions: 300, downstreamRequests: 300, lost: 0, duplicates: 0, executionStatuses: { success: 300 } });
	});

	test('1,000 Hosted PBX live events at 100/s: 1,000 executions, 1,000 downstream requests, none lost, none twice', async () => {
		const run = `r${Date.now().toString(36)}`;
		const since = await admin().lastSeq();
		const before = (await executionRows(cluster, LOAD.pbx)).length;
		const published = await admin().post<{ published: number; delivered: number; seconds: number }>('/pbx/events', {
			event: 'incomingcall', values: { run, callerIdNumber: '+447700900123', callerIdName: 'LOAD TEST' }, count: COUNT, ratePerSecond: 100,
		});
		const got = (await settle(`load pbx ${run}`, since, LOAD.pbx, (w) => w[0])).map((r) => ({ seq: Number(r.words[0]), sentAt: Number(r.words[1]), at: r.at }));
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
});
