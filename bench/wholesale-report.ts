/**
 * Wholesale report flow: a voice CDR report of 100,000 rows that the sandbox makes ready after
 * 60 s, requested by the Wholesale Voice node with "Wait for the Result" through n8n's execution
 * code. Prints the polls made while waiting (requests the account spends), the delay from ready
 * to collected (what the user waits beyond the platform), and the heap with the items held; then
 * the core of the hourly CDR recipe: the same report ready at once, collected as one item per row
 * and in groups of 1,000 (Rows per Item), each with its time and heap.
 * Run: npm run bench -- wholesale-report   (takes about 80 s)
 */
import { runNode, type NodeSetup } from '../test/harness/n8n';
import { nodeModule, num, report, run, sized, startSandboxProcess, summary } from './lib';

const { WholesaleVoice } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node')>('nodes/WholesaleVoice/WholesaleVoice.node');

const ROWS = sized(100_000, 1000);
const READY_MS = sized(60_000, 500);

/** The report ready at once, collected with Rows per Item `rowsPerItem`: seconds from request to items, and the heap they hold. */
async function collected(sandbox: Awaited<ReturnType<typeof startSandboxProcess>>, credentials: NodeSetup['credentials'], rowsPerItem: number) {
	await sandbox.admin('/wholesale/reports/next', { type: 'voice_cdr', rows: ROWS, readyMs: 0 });
	const baseHeap = process.memoryUsage().heapUsed;
	const started = Date.now();
	const execution = await runNode({
		node: new WholesaleVoice(),
		parameters: { resource: 'report', operation: 'request', reportType: 'voiceCdrDay', waitForResult: true, maxWaitSeconds: 240, rowsPerItem, callback: '' },
		credentials,
	});
	const seconds = (Date.now() - started) / 1000;
	const heldMb = (process.memoryUsage().heapUsed - baseHeap) / 1e6;
	if (execution.error) throw new Error(`the node failed: ${execution.error.message}`);
	const rows = execution.items.reduce((sum, item) => sum + (rowsPerItem === 1 ? 1 : Number(item.json.rowCount)), 0);
	if (rows !== ROWS) throw new Error(`expected ${ROWS} rows, got ${rows}`);
	return { seconds, heldMb, items: execution.items.length };
}

run(async () => {
	const sandbox = await startSandboxProcess();
	const credentials = { wholesaleVoiceApi: { baseUrl: sandbox.url, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456' } };
	await sandbox.admin('/wholesale/reports/next', { type: 'voice_cdr', rows: ROWS, readyMs: READY_MS });
	let peakHeap = 0;
	const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 50);
	const baseHeap = process.memoryUsage().heapUsed;
	const started = Date.now();
	const execution = await runNode({
		node: new WholesaleVoice(),
		parameters: { resource: 'report', operation: 'request', reportType: 'voiceCdrDay', waitForResult: true, maxWaitSeconds: 240, callback: '' },
		credentials,
	});
	const seconds = (Date.now() - started) / 1000;
	clearInterval(sampler);
	const heldHeap = process.memoryUsage().heapUsed;
	if (execution.error) throw new Error(`the node failed: ${execution.error.message}`);
	if (execution.items.length !== ROWS) throw new Error(`expected ${ROWS} items, got ${execution.items.length}`);
	const log = (await sandbox.admin('/requests?pathPrefix=/v3/files/123456/', undefined, 'GET')) as Array<{ time: string; status: number }>;
	const reports = (await sandbox.admin('/wholesale/reports', undefined, 'GET')) as { reports: Array<{ readyAt: string | null }> };
	const readyAt = Date.parse(reports.reports.find((r) => r.readyAt)?.readyAt ?? '');
	const collectedAt = Date.parse(log.find((r) => r.status === 200)?.time ?? '');
	const perRow = await collected(sandbox, credentials, 1);
	const grouped = await collected(sandbox, credentials, 1000);
	await sandbox.stop();
	const polls = log.length;
	const delay = (collectedAt - readyAt) / 1000;
	const figures = report(`Wholesale voice CDR report: ${ROWS} rows, ready after ${READY_MS / 1000} s`, [
		{ name: 'items output by the node', value: execution.items.length, unit: '' },
		{ name: 'polls of files/{hash} while waiting', value: polls, unit: '', target: '<= 15', met: polls <= 15 },
		{ name: 'delay from ready to collected', value: delay, unit: 's', target: '<= 5 s', met: delay <= 5 },
		{ name: 'whole run, request to items', value: seconds, unit: 's' },
		{ name: `heap with the ${num(ROWS)} items held (above start)`, value: (heldHeap - baseHeap) / 1e6, unit: 'MB' },
		{ name: 'peak heap sampled every 50 ms (above start)', value: (Math.max(peakHeap, heldHeap) - baseHeap) / 1e6, unit: 'MB' },
		{ name: 'ready at once, one item per row: request to items', value: perRow.seconds, unit: 's' },
		{ name: 'ready at once, one item per row: heap with the items held', value: perRow.heldMb, unit: 'MB' },
		{ name: `ready at once, groups of 1,000 (${num(grouped.items)} items): request to items`, value: grouped.seconds, unit: 's' },
		{ name: 'ready at once, groups of 1,000: heap with the items held', value: grouped.heldMb, unit: 'MB' },
	]);
	summary(
		`${polls} polls while waiting, collected ${num(delay, 3)} s after ready, heap ${num((heldHeap - baseHeap) / 1e6)} MB with the ${num(ROWS)} items held; ready at once: ${num(perRow.seconds)} s and ${num(perRow.heldMb)} MB one item per row, ${num(grouped.seconds)} s and ${num(grouped.heldMb)} MB in groups of 1,000`,
		'target ≤ 15 polls, ≤ 5 s',
		figures,
	);
});
