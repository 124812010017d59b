/**
 * Wholesale report flow: a voice CDR report of 100,000 rows that the sandbox makes ready after
 * 60 s, requested by the Wholesale Voice node with "Wait for the Result" through n8n's execution
 * code. Prints the polls made while waiting, the delay from ready to collected, the time from the
 * collected bytes to items as a ratio to JSON.parse of the same bytes, and the peak heap.
 * Run: npm run bench -- wholesale-report   (takes about 70 s)
 */
import type { IDataObject } from 'n8n-workflow';
import { request } from 'undici';

import { reportOutput } from '../nodes/WholesaleVoice/reports';
import { runNode } from '../test/harness/n8n';
import { nodeModule, report, startSandboxProcess } from './lib';

const { WholesaleVoice } = nodeModule<typeof import('../nodes/WholesaleVoice/WholesaleVoice.node')>('nodes/WholesaleVoice/WholesaleVoice.node');

const ROWS = 100_000;
const READY_MS = 60_000;

async function main(): Promise<void> {
	const sandbox = await startSandboxProcess();
	const credentials = { wholesaleVoiceApi: { baseUrl: sandbox.url, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456' } };
	await sandbox.admin('/wholesale/reports/next', { type: 'voice_cdr', rows: ROWS, readyMs: READY_MS });
	let peakHeap = 0;
	const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 50);
	const baseHeap = process.memoryUsage().heapUsed;
	const started = Date.now();
	const run = await runNode({
		node: new WholesaleVoice(),
		parameters: { resource: 'report', operation: 'request', reportType: 'voiceCdrDay', waitForResult: true, maxWaitSeconds: 240, callback: '' },
		credentials,
	});
	clearInterval(sampler);
	const heldHeap = process.memoryUsage().heapUsed;
	if (run.error) throw new Error(run.error.message);
	if (run.items.length !== ROWS) throw new Error(`expected ${ROWS} items, got ${run.items.length}`);
	const log = (await sandbox.admin('/requests?pathPrefix=/v3/files/123456/', undefined, 'GET')) as Array<{ time: string; status: number }>;
	const reports = (await sandbox.admin('/wholesale/reports', undefined, 'GET')) as { reports: Array<{ readyAt: string | null }> };
	const readyAt = Date.parse(reports.reports.find((r) => r.readyAt)?.readyAt ?? '');
	const collectedAt = Date.parse(log.find((r) => r.status === 200)?.time ?? '');

	// Collected bytes to items, against JSON.parse of the same bytes (a second identical report, fetched raw).
	await sandbox.admin('/wholesale/reports/next', { type: 'voice_cdr', rows: ROWS, readyMs: 0 });
	const handle = (await (
		await request(`${sandbox.url}/v3/accounts/123456/reports/voice/cdr/latest/10000`, {
			method: 'POST',
			headers: { authorization: `Basic ${Buffer.from('api123456:wv-demo-123456').toString('base64')}` },
		})
	).body.json()) as IDataObject;
	let bytes: Buffer | undefined;
	let contentType = 'application/json';
	while (!bytes) {
		const file = await request(`${sandbox.url}/v3/files/123456/${handle.hash}`, { headers: { authorization: `Basic ${Buffer.from('api123456:wv-demo-123456').toString('base64')}` } });
		if (file.statusCode === 200) {
			bytes = Buffer.from(await file.body.arrayBuffer());
			contentType = String(file.headers['content-type'] ?? contentType);
		} else {
			await file.body.dump();
			await new Promise((r) => setTimeout(r, 200));
		}
	}
	const ours: number[] = [];
	const baseline: number[] = [];
	for (let round = 0; round < 5; round++) {
		let t = performance.now();
		reportOutput(String(handle.hash), bytes, contentType, { includeRawFile: false });
		ours.push(performance.now() - t);
		t = performance.now();
		JSON.parse(bytes.toString('utf8'));
		baseline.push(performance.now() - t);
	}
	await sandbox.stop();
	const polls = log.length;
	const delay = (collectedAt - readyAt) / 1000;
	const ratio = Math.min(...ours) / Math.min(...baseline);
	report(`Wholesale voice CDR report: ${ROWS} rows, ready after ${READY_MS / 1000} s, ${(bytes.length / 1e6).toFixed(1)} MB`, [
		{ name: 'items output by the node', value: run.items.length, unit: '' },
		{ name: 'polls of files/{hash} while waiting', value: polls, unit: '', target: '<= 15', met: polls <= 15 },
		{ name: 'delay from ready to collected', value: delay, unit: 's', target: '<= 5 s', met: delay <= 5 },
		{ name: 'whole run, request to items', value: (Date.now() - started) / 1000, unit: 's' },
		{ name: 'bytes to items (best of 5)', value: Math.min(...ours), unit: 'ms' },
		{ name: 'JSON.parse of the same bytes (best of 5)', value: Math.min(...baseline), unit: 'ms' },
		{ name: 'ratio to JSON.parse', value: ratio, unit: '', target: '<= 3', met: ratio <= 3 },
		{ name: 'heap with the 100,000 items held (above start)', value: (heldHeap - baseHeap) / 1e6, unit: 'MB' },
		{ name: 'peak heap sampled every 50 ms (above start)', value: (Math.max(peakHeap, heldHeap) - baseHeap) / 1e6, unit: 'MB' },
	]);
	process.exit(0);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
