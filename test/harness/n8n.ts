/**
 * Runs this package's nodes through n8n's own execution code (n8n-core's WorkflowExecute and
 * node contexts), with real credential handling: the credential type's `authenticate`
 * applied as n8n applies it, and n8n's `httpRequestWithAuthentication`. Tests state parameters and
 * assert on the requests the sandbox received and on the items returned.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'n8n-telephony-test-'));
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
// n8n's logger prints every node error it sees; the tests assert on errors themselves, so a test
// run stays readable (N8N_LOG_LEVEL=info npm test shows them again).
process.env.N8N_LOG_LEVEL ??= 'silent';

import {
	ExecutionLifecycleHooks,
	HookContext,
	LoadOptionsContext,
	PollContext,
	TriggerContext,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	ITaskData,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentialsHelper, Workflow } from 'n8n-workflow';

import { HostedPbxApi } from '../../packages/n8n-nodes-telephony-platform/credentials/HostedPbxApi.credentials';
import { PlatformApiKeyApi } from '../../packages/n8n-nodes-telephony-platform/credentials/PlatformApiKeyApi.credentials';
import { WholesaleVoiceApi } from '../../packages/n8n-nodes-telephony-platform/credentials/WholesaleVoiceApi.credentials';

export const CREDENTIAL_TYPES: Record<string, ICredentialType> = Object.fromEntries(
	[new HostedPbxApi(), new WholesaleVoiceApi(), new PlatformApiKeyApi()].map((c) => [c.name, c]),
);

class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly values: Record<string, ICredentialDataDecryptedObject>) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	/** As n8n's CredentialsHelper applies a credential type's `authenticate` function. */
	async authenticate(credentials: ICredentialDataDecryptedObject, typeName: string, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		const authenticate = CREDENTIAL_TYPES[typeName]?.authenticate;
		if (typeof authenticate !== 'function') throw new Error(`No authenticate function for ${typeName}`);
		return await authenticate(credentials, requestOptions);
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<never> {
		throw new Error('not used by these tests');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const values = this.values[type];
		if (!values) throw new Error(`The test gave no credentials of type ${type}`);
		return { ...values };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties() {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}
}

export interface NodeSetup {
	node: INodeType;
	parameters: INodeParameters;
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	continueOnFail?: boolean;
	/** Shared by successive contexts of one test (trigger restarts keep their static data). */
	staticData?: IDataObject;
	/** Another workflow id, so that what a node keeps in the process for its workflow does not carry over between tests. */
	workflowId?: string;
}

function nodeTypesFor(node: INodeType): INodeTypes {
	return {
		getByName: () => node,
		getByNameAndVersion: () => node,
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
}

export const NODE_NAME = 'Node Under Test';

export function buildWorkflow(setup: NodeSetup): { workflow: Workflow; node: INode } {
	const { description } = setup.node;
	const node: INode = {
		id: 'node-under-test',
		name: NODE_NAME,
		type: `n8n-nodes-telephony-platform.${description.name}`,
		typeVersion: Array.isArray(description.version) ? description.version[0] : description.version,
		position: [0, 0],
		parameters: setup.parameters,
		credentials: Object.fromEntries(
			(description.credentials ?? []).map((c) => [c.name, { id: `cred-${c.name}`, name: c.name }]),
		),
		...(setup.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};
	const workflow = new Workflow({
		id: setup.workflowId ?? 'test-workflow',
		name: 'Test workflow',
		nodes: [node],
		connections: {},
		nodeTypes: nodeTypesFor(setup.node),
		active: false,
		staticData: setup.staticData ? { [`node:${NODE_NAME}`]: setup.staticData } : undefined,
	});
	// Parameters with their defaults filled in, as n8n stores them.
	const withDefaults = workflow.getNode(NODE_NAME)!;
	return { workflow, node: withDefaults };
}

export function additionalDataFor(
	credentials: Record<string, ICredentialDataDecryptedObject> = {},
	hooks?: ExecutionLifecycleHooks,
	currentNodeParameters?: INodeParameters,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: new TestCredentialsHelper(credentials),
		hooks,
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not used');
		},
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		currentNodeParameters,
		executionTimeoutTimestamp: undefined,
		userId: 'test-user',
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('task runners are not used');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

export interface NodeRun {
	items: INodeExecutionData[];
	/** The node's error when it failed (the execution stopped), with its message and description. */
	error?: { message: string; description?: string | null; context?: IDataObject; httpCode?: string | null };
	task: ITaskData;
}

/** Executes the node once with the given input items, as n8n does in a workflow run. */
export async function runNode(
	setup: NodeSetup,
	input: INodeExecutionData[] = [{ json: {} }],
	mode: WorkflowExecuteMode = 'manual',
): Promise<NodeRun> {
	const { workflow, node } = buildWorkflow(setup);
	const hooks = new ExecutionLifecycleHooks(mode, 'test-execution', {
		id: 'test-workflow',
		name: 'Test workflow',
		nodes: [],
		connections: {},
		active: false,
		settings: {},
	} as never);
	let finished: (run: IRun) => void = () => {};
	const done = new Promise<IRun>((resolve) => (finished = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => finished(run));
	const runData: IRunExecutionData = {
		resultData: { runData: {} },
		executionData: {
			metadata: {},
			contextData: {},
			waitingExecution: {},
			waitingExecutionSource: null,
			nodeExecutionStack: [{ node, data: { main: [input] }, source: null }],
		},
	} as unknown as IRunExecutionData;
	const execute = new WorkflowExecute(additionalDataFor(setup.credentials, hooks), mode, runData);
	await execute.processRunExecutionData(workflow);
	const run = await done;
	const task = run.data.resultData.runData[NODE_NAME]?.[0];
	if (!task) throw new Error(`The node did not run: ${JSON.stringify(run.data.resultData.error)}`);
	const items = task.data?.main?.[0] ?? [];
	const error = task.error as NodeRun['error'] | undefined;
	return { items, error, task };
}

/** Executes and fails the test with the node's own error text when the node failed. */
export async function runNodeOk(
	setup: NodeSetup,
	input?: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const { items, error } = await runNode(setup, input);
	if (error) throw new Error(`Node failed: ${error.message}\n${error.description ?? ''}`);
	return items;
}

export function binaryBuffer(item: INodeExecutionData, property = 'data'): Buffer {
	const binary = item.binary?.[property];
	if (!binary) throw new Error(`No binary property "${property}"`);
	return Buffer.from(binary.data, 'base64');
}

/** n8n's own contexts for triggers, pollers, webhooks and list searches, on the same workflow. */
export function contexts(setup: NodeSetup) {
	const { workflow, node } = buildWorkflow(setup);
	const additionalData = additionalDataFor(setup.credentials, undefined, node.parameters);
	// What n8n has stored of the node's static data: it saves with each emit, and only a change it saw.
	let stored = setup.staticData ? (JSON.parse(JSON.stringify(setup.staticData)) as IDataObject) : undefined;
	const persist = () => {
		const root = workflow.staticData as IDataObject & { __dataChanged?: boolean };
		if (!root.__dataChanged) return;
		stored = JSON.parse(JSON.stringify(root[`node:${NODE_NAME}`] ?? {})) as IDataObject;
		root.__dataChanged = false;
	};
	return {
		workflow,
		node,
		/** Saves the static data as n8n does when a poll returns items (a trigger's emit saves by itself). */
		persist,
		/** The node's static data as n8n stored it last: what a restart of n8n would hand the trigger. */
		stored: () => stored,
		trigger: (
			emit: (data: INodeExecutionData[][]) => void,
			emitError: (error: Error) => void,
			mode: WorkflowExecuteMode = 'trigger',
			activation: WorkflowActivateMode = 'activate',
		) =>
			new TriggerContext(workflow, node, additionalData, mode, activation, ((data: INodeExecutionData[][]) => (emit(data), persist())) as never, emitError),
		poll: (mode: WorkflowExecuteMode = 'trigger') =>
			new PollContext(workflow, node, additionalData, mode, 'activate'),
		hook: (webhookData?: IWebhookData, mode: WorkflowExecuteMode = 'trigger') =>
			new HookContext(workflow, node, additionalData, mode, 'activate', webhookData),
		webhook: (
			webhookData: IWebhookData,
			request: Record<string, unknown>,
			response: Record<string, unknown>,
			mode: WorkflowExecuteMode = 'trigger',
		) =>
			new WebhookContext(
				workflow,
				node,
				{ ...additionalData, httpRequest: request, httpResponse: response } as unknown as IWorkflowExecuteAdditionalData,
				mode,
				webhookData,
				[],
				null,
			),
		loadOptions: () => new LoadOptionsContext(workflow, node, additionalData, 'parameters'),
	};
}

/**
 * What n8n 2.x does once webhook() has returned, unless the trigger answered itself: with
 * responseMode onReceived it stores the execution, then answers the trigger's webhookResponse; a
 * failure to store is answered 500 and nothing runs. Returns whether the execution was stored.
 */
export function answerAsN8n(
	result: IWebhookResponseData,
	answered: boolean,
	response: { status: (code: number) => { json: (body: unknown) => void } },
	storeFails: () => boolean = () => false,
): boolean {
	const stored = answered || !result.workflowData || !storeFails();
	if (answered) return stored;
	if (result.noWebhookResponse) response.status(500).json({ message: 'the trigger said it answers, and did not' });
	else if (!stored) response.status(500).json({ message: 'Error in workflow' });
	else response.status(200).json(result.webhookResponse ?? { message: 'Workflow was started' });
	return stored;
}

/** A node that declares every credential of the package, for tests of the shared transport. */
export class AllCredentialsNode implements INodeType {
	description = {
		displayName: 'All Credentials',
		name: 'allCredentials',
		group: ['transform'],
		version: 1,
		description: 'Test node',
		defaults: { name: 'All Credentials' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: Object.keys(CREDENTIAL_TYPES).map((name) => ({ name, required: false })),
		properties: [],
	} as unknown as INodeType['description'];
}
