/**
 * The carriers' recipe (examples/wholesale/cdr-hourly-to-postgres.json) in a real n8n: the
 * Wholesale Voice node requests the day's voice CDR report, waits, collects it and outputs it in
 * groups of 1,000 rows; n8n's own Postgres node writes each group with one statement into a
 * throwaway PostgreSQL. Every row is written once, and running the same hour again adds none.
 *
 * The recipe runs in the started n8n (main mode), as its schedule would run it: a Webhook trigger
 * beside the schedule starts it now. The memory is the n8n process's resident size, sampled every
 * 100 ms during the run. In CI: 1,000 rows. Measured on demand (docs/scaling.md), e.g.:
 *   TELEPHONY_CDR_ROWS=10000,100000 node scripts/n8n/e2e.mjs --target 2 test/e2e/cdrPull.e2e.ts
 */
import { startSandbox, type Sandbox } from '../../sandbox/index';
import { CDR_RECIPE_ID as RECIPE, CDR_TABLE as TABLE, cdrDatabaseCredential, cdrRecipe, createCdrTableSql } from './cdrRecipe';
import { N8nInstance, memoryOf, nodeResult, runError, type N8nRun } from './harness';
import { PostgresServer } from './queue/cluster';
import { SandboxAdmin, wholesaleCredentials } from './sandboxAdmin';

const SIZES = (process.env.TELEPHONY_CDR_ROWS ?? '1000').split(',').map(Number);
/** Measured on demand beside the recipe: the same report as one item per row, collected and nothing more. */
const PER_ROW = 'e2eCdrPerRow0001';
const HOOK: Record<string, string> = { [RECIPE]: 'e2e-cdr-pull-now', [PER_ROW]: 'e2e-cdr-per-row-now' };

/** The workflow with a Webhook trigger beside its schedule, that starts it now. */
function startedByWebhook(workflow: Record<string, any>, path: string, webhookId: string): Record<string, any> {
	const webhook = {
		id: `e2e-${path}`, name: 'Run now', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 200], webhookId,
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
	return { ...workflow, nodes: [...workflow.nodes, webhook], connections: { ...workflow.connections, 'Run now': workflow.connections['Every hour'] } };
}

function perRowWorkflow(recipe: Record<string, any>): Record<string, any> {
	const nodes = recipe.nodes
		.filter((n: Record<string, any>) => n.type !== 'n8n-nodes-base.postgres' && n.type !== 'n8n-nodes-base.stickyNote')
		.map((n: Record<string, any>) => (n.name === 'CDRs of the day so far' ? { ...n, parameters: { ...n.parameters, rowsPerItem: 1 } } : n));
	return { ...recipe, id: PER_ROW, name: 'e2e: the CDR report, one item per row', nodes, connections: { 'Every hour': recipe.connections['Every hour'] } };
}

const rss = (pid: number) => memoryOf(pid, 'VmRSS');

describe(`the hourly CDR pull into PostgreSQL (target ${process.env.TELEPHONY_N8N_TARGET ?? '2'}): ${SIZES.join(', ')} rows`, () => {
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	let postgres: PostgresServer;
	let n8n: N8nInstance;

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		admin = new SandboxAdmin(sandbox.url);
		postgres = await PostgresServer.start();
		const recipe = cdrRecipe();
		await postgres.sql(createCdrTableSql(recipe));
		n8n = await N8nInstance.create();
		const others = wholesaleCredentials(sandbox.url).filter((c) => c.type !== 'postgres');
		await n8n.importCredentials([...others, cdrDatabaseCredential(sandbox.url, postgres.port, postgres.database)]);
		await n8n.importWorkflows([startedByWebhook(recipe, HOOK[RECIPE], 'e2e00000-0042-4c0d-8e01-000000000001'), startedByWebhook(perRowWorkflow(recipe), HOOK[PER_ROW], 'e2e00000-0042-4c0d-8e01-000000000002')]);
		for (const id of [RECIPE, PER_ROW]) await n8n.activate(id);
		await n8n.start();
		await n8n.setupOwner();
	}, 300_000);

	afterAll(async () => {
		await n8n?.dispose();
		await postgres?.stop();
		await sandbox?.close();
	});

	const count = async () => Number(await postgres.sql(`select count(*) from ${TABLE}`));

	/** One run on a report of `rows` CDRs (the same CDR ids every time, as a real day re-read is): the run, its time, n8n's RSS before and its peak meanwhile. */
	const pull = async (rows: number, workflowId = RECIPE): Promise<{ run: N8nRun; ms: number; peakRssBytes: number; rssBeforeBytes: number }> => {
		await admin.post('/wholesale/reports/next', { type: 'voice_cdr', rows, readyMs: 0 });
		const since = (await n8n.executions(workflowId))[0]?.id;
		const pid = n8n.serverPid!;
		const rssBeforeBytes = rss(pid);
		let peakRssBytes = rssBeforeBytes;
		const sampler = setInterval(() => (peakRssBytes = Math.max(peakRssBytes, rss(pid))), 100);
		const started = Date.now();
		try {
			// n8n 2.x registers a published workflow's webhooks a moment after it starts answering.
			const answer = await n8n.waitForWebhook(HOOK[workflowId], { method: 'POST', body: {} });
			expect(answer.status).toBe(200);
			const [run] = await n8n.waitForExecutions(workflowId, 1, { since, timeoutMs: 15 * 60_000 });
			const error = runError(run);
			if (error) throw new Error(`the recipe failed in ${error.node?.name}: ${error.message} ${error.description ?? ''}`);
			return { run, ms: Date.now() - started, peakRssBytes, rssBeforeBytes };
		} finally {
			clearInterval(sampler);
		}
	};

	test.each(SIZES)('%i CDRs: every row written once, in groups of 1,000; the same hour again adds none', async (rows) => {
		await postgres.sql(`truncate ${TABLE}`);
		const first = await pull(rows);
		const groups = Math.ceil(rows / 1000);
		expect(nodeResult(first.run, 'CDRs of the day so far').json).toHaveLength(groups);
		// One statement per group; the Postgres node answers {success: true} for the batch.
		expect(nodeResult(first.run, 'Write new CDRs').json).toContainEqual({ success: true });
		expect(await count()).toBe(rows);
		expect(Number(await postgres.sql(`select count(distinct cdr_id) from ${TABLE}`))).toBe(rows);
		// The row as typed columns: a timestamp, integers and a numeric, not text.
		const [calldate, secs, charge] = (await postgres.sql(`select pg_typeof(calldate), pg_typeof(secs_billed), pg_typeof(chg_total) from ${TABLE} limit 1`)).split('\t');
		expect([calldate, secs, charge]).toEqual(['timestamp without time zone', 'integer', 'numeric']);

		const ready = (await admin.get<{ reports: Array<{ readyAt: string | null }> }>('/wholesale/reports')).reports.map((r) => Date.parse(r.readyAt ?? '')).filter(Number.isFinite);
		const lastWritten = Date.parse(await postgres.sql(`select to_json(max(written_at))#>>'{}' from ${TABLE}`));
		const readyToWrittenS = (lastWritten - Math.max(...ready)) / 1000;

		const second = await pull(rows);
		expect(await count()).toBe(rows);
		console.log(
			`CDR pull, ${rows} rows (n8n ${n8n.major}.x, main mode): ready -> last row written ${readyToWrittenS.toFixed(1)} s; ` +
				`whole run ${(first.ms / 1000).toFixed(1)} s; RSS of n8n ${(first.rssBeforeBytes / 1e6).toFixed(0)} MB before, ${(first.peakRssBytes / 1e6).toFixed(0)} MB at the peak of the run ` +
				`(second run, nothing new: ${(second.ms / 1000).toFixed(1)} s, ${(second.peakRssBytes / 1e6).toFixed(0)} MB)`,
		);
	}, 40 * 60_000);

	// On demand only (TELEPHONY_CDR_ROWS set): what the groups spare.
	if (process.env.TELEPHONY_CDR_ROWS) {
		test.each(SIZES)('%i CDRs as one item per row (collected, nothing written): for comparison', async (rows) => {
			const { run, ms, peakRssBytes, rssBeforeBytes } = await pull(rows, PER_ROW);
			expect(nodeResult(run, 'CDRs of the day so far').json).toHaveLength(rows);
			console.log(`CDR report, ${rows} rows as ${rows} items (n8n ${n8n.major}.x, main mode): whole run ${(ms / 1000).toFixed(1)} s; RSS of n8n ${(rssBeforeBytes / 1e6).toFixed(0)} MB before, ${(peakRssBytes / 1e6).toFixed(0)} MB at the peak of the run`);
		}, 40 * 60_000);
	}
});
