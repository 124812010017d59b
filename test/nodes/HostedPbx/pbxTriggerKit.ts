import type { IDataObject, INodeExecutionData, INodeParameters, ITriggerResponse, WorkflowActivateMode } from 'n8n-workflow';

import { HostedPbxTrigger } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbxTrigger.node';
import type { Sandbox } from '../../../sandbox';
import { NODE_NAME, contexts } from '../../harness/n8n';
import type { PbxUserName } from './pbxTestKit';
import { locator, pbxCredentials } from './pbxTestKit';

/**
 * One Hosted PBX Trigger node as n8n holds it while its workflow is active: n8n's own trigger and
 * poll contexts on one workflow (one static data), emits and errors collected, log lines kept,
 * and what n8n stored of the static data (it saves with each emit, and only changes it saw).
 */
export interface ActiveTrigger {
	emitted: IDataObject[];
	/** The items of each execution the trigger started. */
	executions: IDataObject[][];
	errors: Error[];
	warnings: string[];
	logErrors: string[];
	/** Info lines n8n's logger received. */
	logInfo: string[];
	/** trigger(): the live stream. */
	activate: (options?: { mode?: 'trigger' | 'manual'; activation?: WorkflowActivateMode }) => Promise<ITriggerResponse>;
	/** poll(): one Poll Time; n8n stores the static data after the first (at activation) and whenever items come back. */
	poll: (mode?: 'trigger' | 'manual') => Promise<IDataObject[] | null>;
	/** poll() keeping only each item's binary data. */
	pollBinary: () => Promise<Array<INodeExecutionData['binary']> | null>;
	/** The node's static data in memory. */
	staticData: () => IDataObject;
	/** What a restart of n8n would hand the trigger. */
	stored: () => IDataObject | undefined;
}

export function triggerNode(
	sandbox: Sandbox,
	open: ITriggerResponse[],
	parameters: INodeParameters,
	options: { user?: PbxUserName; password?: string; staticData?: IDataObject; workflowId?: string } = {},
): ActiveTrigger {
	const node = new HostedPbxTrigger();
	const setup = contexts({
		node,
		parameters: { customerId: locator('me'), options: {}, ...parameters },
		credentials: pbxCredentials(sandbox, options.user ?? 'acme.admin', options.password),
		staticData: options.staticData,
		// One workflow per test unless given: activations of a node within a test share what the process keeps.
		workflowId: options.workflowId ?? expect.getState().currentTestName,
	});
	let polled = false;
	const captureLogs = <T extends { logger: { warn: unknown; info: unknown; error: unknown } }>(context: T): T => {
		jest.spyOn(context.logger as never as Console, 'warn').mockImplementation((message: string) => void active.warnings.push(message));
		jest.spyOn(context.logger as never as Console, 'info').mockImplementation((message: string) => void active.logInfo.push(message));
		jest.spyOn(context.logger as never as Console, 'error').mockImplementation((message: string) => void active.logErrors.push(message));
		return context;
	};
	const active: ActiveTrigger = {
		emitted: [],
		executions: [],
		errors: [],
		warnings: [],
		logErrors: [],
		logInfo: [],
		activate: async ({ mode = 'trigger', activation = 'activate' } = {}) => {
			const context = setup.trigger(
				(data: INodeExecutionData[][]) => {
					active.executions.push(data[0].map((item) => item.json));
					active.emitted.push(...data[0].map((item) => item.json));
				},
				(error) => active.errors.push(error),
				mode,
				activation,
			);
			captureLogs(context);
			const response = await node.trigger.call(context);
			open.push(response);
			// n8n saves the static data once the workflow is active.
			if (mode === 'trigger') setup.persist();
			return response;
		},
		poll: async (mode = 'trigger') => {
			const result = await node.poll.call(captureLogs(setup.poll(mode)));
			if (mode === 'trigger' && (result || !polled)) setup.persist();
			polled = true;
			return result ? result[0].map((item) => item.json) : null;
		},
		pollBinary: async () => {
			const result = await node.poll.call(captureLogs(setup.poll('trigger')));
			polled = true;
			return result ? result[0].map((item) => item.binary) : null;
		},
		staticData: () => setup.workflow.getStaticData('node', { name: NODE_NAME } as never),
		stored: setup.stored,
	};
	return active;
}
