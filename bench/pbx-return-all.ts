/**
 * Return All over 10,000 phone book entries through n8n's execution code: the requests the Hosted
 * PBX node makes, which the API's budget counts (1,200 requests per user per 60 minutes): one per
 * page of 200, so 50; and the execution's wall time (best of five), for the record.
 * Run: npm run bench -- pbx-return-all
 */
import { runNode } from '../test/harness/n8n';
import { nodeModule, num, report, run, sized, startSandboxProcess, summary } from './lib';

const ENTRIES = sized(10_000, 1000);
const PAGE_SIZE = 200;
const HOURLY_BUDGET = 1200;

const { HostedPbx } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node')>('nodes/HostedPbx/HostedPbx.node');

run(async () => {
	const sandbox = await startSandboxProcess();
	await sandbox.admin('/pbx/phonebook/bulk', { customerId: '1001', count: ENTRIES, replace: true });
	await sandbox.admin('/pbx/settings', { rateLimit: 1_000_000 });
	const credentials = { hostedPbxApi: { baseUrl: `${sandbox.url}/api/v1`, username: 'acme.admin', password: 'acme-admin-secret' } };

	const viaNode = async () => {
		const start = performance.now();
		const execution = await runNode({
			node: new HostedPbx(),
			parameters: { resource: 'phoneBook', operation: 'getAll', customerId: { __rl: true, mode: 'id', value: 'me' }, returnAll: true },
			credentials,
		});
		if (execution.error) throw new Error(`the node failed: ${execution.error.message}`);
		if (execution.items.length !== ENTRIES) throw new Error(`node returned ${execution.items.length} of ${ENTRIES} entries`);
		return performance.now() - start;
	};

	await sandbox.admin('/requests', undefined, 'DELETE');
	await viaNode();
	const requests = ((await sandbox.admin('/requests?pathPrefix=/api/v1/customers/me/phonebook', undefined, 'GET')) as unknown[]).length;
	const times: number[] = [];
	for (let round = 0; round < sized(5, 1); round++) times.push(await viaNode());
	await sandbox.stop();
	const pages = Math.ceil(ENTRIES / PAGE_SIZE);
	const best = Math.min(...times);
	const figures = report(`Hosted PBX Return All over ${ENTRIES} phone book entries`, [
		{ name: 'requests made by the node', value: requests, unit: `(of ${HOURLY_BUDGET} an hour)`, target: String(pages), met: requests === pages, exact: true },
		{ name: `execution through n8n (best of ${times.length})`, value: best, unit: 'ms' },
		{ name: 'entries per second', value: ENTRIES / (best / 1000), unit: 'entries/s' },
	]);
	summary(
		`${requests} requests for ${num(ENTRIES)} entries (${((requests / HOURLY_BUDGET) * 100).toFixed(1)} % of the hourly budget of ${num(HOURLY_BUDGET)}), ${num(best)} ms through n8n`,
		`target ${pages} requests, one per page of ${PAGE_SIZE}`,
		figures,
	);
});
