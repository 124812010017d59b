import type { INodeExecutionData, INodeParameters, ITriggerResponse } from 'n8n-workflow';

import { HostedPbx } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { resetTriggers } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/triggers/lifecycle';
import type { Sandbox } from '../../../sandbox';
import { DEMO_USERS } from '../../../sandbox/pbx/seed';
import type { NodeRun } from '../../harness/n8n';
import { contexts, runNode } from '../../harness/n8n';
import { sandboxForFile } from '../../harness/sandboxForFile';

/**
 * What every trigger test file sets up: one sandbox for the file (handed over through `started`),
 * reset with what the process keeps of triggers forgotten before each test, and the triggers a test opened (pushed
 * to the list returned) closed after it.
 */
export function triggerLifecycle(started: (sandbox: Sandbox) => void): ITriggerResponse[] {
	const open: ITriggerResponse[] = [];
	sandboxForFile(started);
	beforeEach(() => resetTriggers());
	afterEach(async () => {
		for (const response of open.splice(0)) await response.closeFunction?.();
	});
	return open;
}

/** `count` answered outbound calls of customer 1001, all at one time, ids from 9000 and call ids `c-<label>-<i>`. */
export function outboundCalls(count: number, label: string) {
	const at = new Date('2026-01-05T10:00:00Z');
	return Array.from({ length: count }, (_, i) => ({
		id: String(9000 + i), customerId: '1001', scope: 'EXTERNAL' as const, direction: 'OUT' as const,
		from: '"Reception" <201>', to: '<+447700900123>', fromNumber: '201', toNumber: '+447700900123', endpointIds: ['201'],
		callStarted: at, outcome: 'ANSWERED' as const, duration: 10, cost: 0.01, callId: `c-${label}-${i}`, linkedId: `c-${label}-${i}`, created: at,
	}));
}

export type PbxUserName = 'reseller' | 'acme.admin' | 'acme.201' | 'bright.admin';

export function pbxCredentials(sandbox: Sandbox, username: PbxUserName = 'acme.admin', password?: string) {
	const user = DEMO_USERS.find((u) => u.username === username)!;
	return {
		hostedPbxApi: {
			baseUrl: `${sandbox.url}/api/v1/`,
			username,
			password: password ?? user.password,
			maxRateLimitWait: 0,
		},
	};
}

/** A resource locator value as n8n stores it. */
export function locator(value: string, mode = 'id') {
	return { __rl: true, mode, value };
}

export interface PbxRun extends NodeRun {
	/** What the sandbox received during this run. */
	requests: ReturnType<Sandbox['context']['log']['list']>;
}

/** Runs the Hosted PBX node once against the sandbox and returns its items with the requests it made. */
export async function runPbx(
	sandbox: Sandbox,
	parameters: INodeParameters,
	options: { user?: PbxUserName; password?: string; input?: INodeExecutionData[]; continueOnFail?: boolean } = {},
): Promise<PbxRun> {
	const since = sandbox.context.log.lastSeq;
	const run = await runNode(
		{
			node: new HostedPbx(),
			parameters: { customerId: locator('me'), ...parameters },
			credentials: pbxCredentials(sandbox, options.user, options.password),
			continueOnFail: options.continueOnFail,
		},
		options.input,
	);
	return { ...run, requests: sandbox.context.log.list({ since }) };
}

export function pbxLoadOptions(sandbox: Sandbox, parameters: INodeParameters, user: PbxUserName = 'acme.admin') {
	return contexts({ node: new HostedPbx(), parameters, credentials: pbxCredentials(sandbox, user) }).loadOptions();
}
