import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { WholesaleVoice, wholesaleVoiceResources } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import type { Sandbox } from '../../../sandbox';
import { binaryBuffer, runNode } from '../../harness/n8n';

export function wholesaleCredentials(sandbox: Sandbox, account = { id: '123456', user: 'api123456', password: 'wv-demo-123456' }) {
	return {
		wholesaleVoiceApi: {
			baseUrl: sandbox.url,
			apiUsername: account.user,
			apiPassword: account.password,
			accountId: account.id,
			maxRateLimitWait: 0,
		},
	};
}

/** Runs the Wholesale Voice node once and returns its items, error and the requests the sandbox received. */
export async function runWholesale(
	sandbox: Sandbox,
	parameters: INodeParameters,
	options: { continueOnFail?: boolean; maxRateLimitWait?: number } = {},
) {
	const credentials = wholesaleCredentials(sandbox);
	if (options.maxRateLimitWait !== undefined) credentials.wholesaleVoiceApi.maxRateLimitWait = options.maxRateLimitWait;
	const since = sandbox.context.log.lastSeq;
	const run = await runNode({
		node: new WholesaleVoice(),
		parameters,
		credentials,
		continueOnFail: options.continueOnFail,
	});
	return {
		...run,
		json: run.items.map((i) => i.json as IDataObject),
		requests: sandbox.context.log.list({ since, api: 'wholesale' }),
		binary: (index = 0, property = 'data') => binaryBuffer(run.items[index], property),
	};
}

export type WholesaleRun = Awaited<ReturnType<typeof runWholesale>>;

/** The node refused the input before sending: the error names the field and the sandbox saw nothing. */
export function expectRefused(run: WholesaleRun, field: string | RegExp) {
	expect(run.error?.message).toMatch(typeof field === 'string' ? new RegExp(`^Invalid ${field.replace(/[.*+?^${}()|[\]\\>]/g, '\\$&')}:`) : field);
	expect(run.error?.description).toMatch(/Nothing was sent/);
	expect(run.requests).toHaveLength(0);
}

/**
 * Records which operations a test file exercised; after all its tests, every operation of the
 * given resources must have been used.
 */
export function operationCoverage(resourceValues: string[]) {
	const covered = new Set<string>();
	afterAll(() => {
		const all = wholesaleVoiceResources
			.filter((r) => resourceValues.includes(r.value))
			.flatMap((r) => r.operations.map((o) => `${r.value}.${o.value}`));
		expect(all.filter((name) => !covered.has(name))).toEqual([]);
	});
	return (resource: string, operation: string) => {
		covered.add(`${resource}.${operation}`);
		return { resource, operation };
	};
}
