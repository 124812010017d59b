import type { INodeExecutionData, INodeParameters, ITriggerResponse } from 'n8n-workflow';

import { HostedPbx } from '../../../nodes/HostedPbx/HostedPbx.node';
import { forgetRefusals } from '../../../nodes/shared/streams/refusals';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { DEMO_USERS } from '../../../sandbox/pbx/seed';
import type { NodeRun } from '../../harness/n8n';
import { contexts, runNode } from '../../harness/n8n';

/**
 * What every trigger test file sets up: one sandbox for the file (handed over through `started`),
 * reset with the refusal gates forgotten before each test, and the triggers a test opened (pushed
 * to the list returned) closed after it.
 */
export function triggerLifecycle(started: (sandbox: Sandbox) => void): ITriggerResponse[] {
	let sandbox: Sandbox;
	const open: ITriggerResponse[] = [];
	beforeAll(async () => started((sandbox = await startSandbox())));
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.reset();
		forgetRefusals();
	});
	afterEach(async () => {
		for (const response of open.splice(0)) await response.closeFunction?.();
	});
	return open;
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
