/**
 * Return All over 10,000 phone book entries: the requests the Hosted PBX node makes (must be
 * 50 at pageSize 200) and its wall time through n8n's execution code, as a ratio to a bare
 * undici loop over the same pages (best of several alternating rounds).
 * Run: npm run bench -- pbx-return-all
 */
import { request } from 'undici';

import { runNode } from '../test/harness/n8n';
import { nodeModule, report, startSandboxProcess } from './lib';

const ENTRIES = 10_000;

const { HostedPbx } = nodeModule<typeof import('../nodes/HostedPbx/HostedPbx.node')>('nodes/HostedPbx/HostedPbx.node');

async function main(): Promise<void> {
	const sandbox = await startSandboxProcess();
	await sandbox.admin('/pbx/phonebook/bulk', { customerId: '1001', count: ENTRIES, replace: true });
	await sandbox.admin('/pbx/settings', { rateLimit: 1_000_000 });
	const credentials = { hostedPbxApi: { baseUrl: `${sandbox.url}/api/v1`, username: 'acme.admin', password: 'acme-admin-secret' } };
	const authorization = `Basic ${Buffer.from('acme.admin:acme-admin-secret').toString('base64')}`;

	const viaNode = async () => {
		const start = performance.now();
		const run = await runNode({
			node: new HostedPbx(),
			parameters: { resource: 'phoneBook', operation: 'getAll', customerId: { __rl: true, mode: 'id', value: 'me' }, returnAll: true },
			credentials,
		});
		if (run.items.length !== ENTRIES) throw new Error(`node returned ${run.items.length}`);
		return performance.now() - start;
	};
	// keepAlive false: a new connection per page, as n8n's request helper makes (it builds a fresh agent per request).
	const bare = async (keepAlive = true) => {
		const start = performance.now();
		let url: string | undefined = `${sandbox.url}/api/v1/customers/me/phonebook?pageSize=200&page=1`;
		let count = 0;
		while (url) {
			const response = await request(url, { reset: !keepAlive, headers: { authorization, accept: 'application/json' } });
			const body = (await response.body.json()) as { items: unknown[]; nextPage?: string };
			count += body.items.length;
			url = body.nextPage;
		}
		if (count !== ENTRIES) throw new Error(`bare loop got ${count}`);
		return performance.now() - start;
	};

	await sandbox.admin('/requests', undefined, 'DELETE');
	await viaNode();
	const requests = ((await sandbox.admin('/requests?pathPrefix=/api/v1/customers/me/phonebook', undefined, 'GET')) as unknown[]).length;
	await bare();
	const nodeTimes: number[] = [];
	const bareTimes: number[] = [];
	const closeTimes: number[] = [];
	for (let round = 0; round < 5; round++) {
		nodeTimes.push(await viaNode());
		bareTimes.push(await bare());
		closeTimes.push(await bare(false));
	}
	await sandbox.stop();
	const ratio = Math.min(...nodeTimes) / Math.min(...bareTimes);
	report(`Hosted PBX Return All over ${ENTRIES} phone book entries`, [
		{ name: 'requests made by the node', value: requests, unit: '', target: '50', met: requests === 50 },
		{ name: 'node through n8n (best of 5)', value: Math.min(...nodeTimes), unit: 'ms' },
		{ name: 'bare undici loop (best of 5)', value: Math.min(...bareTimes), unit: 'ms' },
		{ name: 'ratio node / bare loop', value: ratio, unit: '', target: '<= 1.2', met: ratio <= 1.2 },
		{ name: 'bare loop, new connection per page (best of 5)', value: Math.min(...closeTimes), unit: 'ms' },
		{ name: 'ratio node / bare loop without keep-alive', value: Math.min(...nodeTimes) / Math.min(...closeTimes), unit: '' },
	]);
	process.exit(0);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
