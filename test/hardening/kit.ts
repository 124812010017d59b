/**
 * Every operation of every action node, generated from the resource specs, with one valid example
 * of its parameters against the seeded sandbox: the baseline the hostile-input battery varies.
 * Examples are keyed by parameter name (most fields share names across operations), with a few
 * per-operation overrides; a new operation whose fields are already known needs nothing here.
 */
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters, INodeProperties, INodeType } from 'n8n-workflow';

import { ConversationIntelligence, conversationIntelligenceResources } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import { HostedPbx, hostedPbxResources } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { VoiceAgent, voiceAgentResources } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { WholesaleVoice, wholesaleVoiceResources } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { operationFields } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/describe';
import type { OperationSpec, ResourceSpec } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import type { Sandbox } from '../../sandbox';
import type { NodeRun } from '../harness/n8n';
import { runNode } from '../harness/n8n';

export const locator = (value: string) => ({ __rl: true, mode: 'id', value });

export interface NodeUnderTest {
	key: 'hostedPbx' | 'wholesaleVoice' | 'voiceAgent' | 'conversationIntelligence';
	/** The node type: one instance for every run, as n8n keeps one per type (building its description costs). */
	type: () => INodeType;
	resources: ResourceSpec[];
	credentials: (sandbox: Sandbox) => Record<string, ICredentialDataDecryptedObject>;
}

function once(make: () => INodeType): () => INodeType {
	let made: INodeType | undefined;
	return () => (made ??= make());
}

export const NODES: NodeUnderTest[] = [
	{
		key: 'hostedPbx',
		type: once(() => new HostedPbx()),
		resources: hostedPbxResources,
		credentials: (s) => ({ hostedPbxApi: { baseUrl: `${s.url}/api/v1`, username: 'acme.admin', password: 'acme-admin-secret', maxRateLimitWait: 0 } }),
	},
	{
		key: 'wholesaleVoice',
		type: once(() => new WholesaleVoice()),
		resources: wholesaleVoiceResources,
		credentials: (s) => ({
			wholesaleVoiceApi: { baseUrl: s.url, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456', maxRateLimitWait: 0 },
		}),
	},
	{
		key: 'voiceAgent',
		type: once(() => new VoiceAgent()),
		resources: voiceAgentResources,
		credentials: (s) => ({ platformApiKeyApi: { baseUrl: s.url, apiKey: s.convai.keys.demo('full-access'), maxRateLimitWait: 0 } }),
	},
	{
		key: 'conversationIntelligence',
		type: once(() => new ConversationIntelligence()),
		resources: conversationIntelligenceResources,
		credentials: (s) => ({ platformApiKeyApi: { baseUrl: s.url, apiKey: s.convai.keys.demo('full-access'), maxRateLimitWait: 0 } }),
	},
];

export interface OperationUnderTest {
	node: NodeUnderTest;
	resource: string;
	spec: OperationSpec;
	fields: INodeProperties[];
	/** `hostedPbx phoneBook.delete`, for test names. */
	name: string;
}

export const OPERATIONS: OperationUnderTest[] = NODES.flatMap((node) =>
	node.resources.flatMap((resource) =>
		resource.operations.map((spec) => ({
			node,
			resource: resource.value,
			spec,
			fields: operationFields(spec),
			name: `${node.key} ${resource.value}.${spec.value}`,
		})),
	),
);

const E911 = { name: 'Jane Doe', streetNum: '1600', streetInfo: 'Pennsylvania Ave NW', city: 'Washington', state: 'DC', postalCode: '20500' };

/** A valid value for each parameter name, whatever the operation (resource locators in their stored form). */
const BY_NAME: IDataObject = {
	customerId: locator('me'),
	entryId: locator('1'),
	smsId: locator('1'),
	recordingId: locator('1'),
	soundId: locator('1'),
	bundleId: locator('1'),
	callerIdId: locator('1'),
	phoneNumberId: locator('1'),
	endpointId: locator('201'),
	phoneNumber: '+447700900123',
	to: '+447700900123',
	body: 'Hello from the battery',
	from: locator('Acme'),
	invoiceNumber: '700017',
	destination: 'ops@example.com',
	number: '441632960001',
	endpoint: 'https://sms.example.com/inbound',
	trunk: locator('123456-office'),
	ref: '100001',
	mbn: '01632960100',
	contactEmail: 'ports@example.com',
	billingPostcode: 'SW1A 1AA',
	alertBalance: 5,
	balance: 5,
	hash: '0123456789abcdef0123456789abcdef',
	key: 'destination',
	callId: 'call-1',
	limitIn: 5,
	limitOut: 5,
	url: 'https://n8n.example.com/webhook/agent',
	webhookId: 'wh_0123456789',
	configurationId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
	operators: 'sentiment',
	sessionId: 'sess_demo_quiet',
	maxEvents: 1,
	timeLimitSeconds: 1,
	waitForResult: false,
	...E911,
};

/** Where one operation needs more than the shared names. */
const BY_OPERATION: Record<string, IDataObject> = {
	'wholesaleVoice notification.addRecipient': { type: 'low_balance', method: 'email' },
	'wholesaleVoice notification.removeRecipient': { type: 'low_balance', method: 'email' },
	'wholesaleVoice notification.getRecipients': { type: 'low_balance' },
	'wholesaleVoice notification.getRecipientsByMethod': { type: 'low_balance', method: 'email' },
	'wholesaleVoice notification.getRecipient': { type: 'low_balance', method: 'email' },
	'wholesaleVoice voice.getCdr': { day: new Date().toISOString().slice(0, 10), reference: '100001' },
	'wholesaleVoice notification.removeAll': { type: 'low_balance' },
	'wholesaleVoice number.setSmsEndpoint': { number: '447700900123', mode: 'http_json' },
	'wholesaleVoice number.getSmsEndpoint': { number: '447700900123' },
	'wholesaleVoice number.removeSmsEndpoint': { number: '447700900123' },
	'wholesaleVoice number.allocate': { number: '441632960777' },
	'wholesaleVoice trunk.create': { trunk: '123456-battery', type: 'auth' },
	'wholesaleVoice uk999.set': { endUser: 'business', name: 'Acme Widgets', premises: '1', thoroughfare: 'High Street', locality: 'Leeds', postcode: 'LS1 1AA' },
	'wholesaleVoice e911.get': { number: '12025550123' },
	'wholesaleVoice e911.remove': { number: '12025550123' },
	'wholesaleVoice e911.set': { number: '12025550123' },
	'wholesaleVoice e911.validateForNumber': { number: '12025550123' },
	'wholesaleVoice voice.getCdrs': { period: 'range' },
	'wholesaleVoice port.submit': {
		lcp: '123|BT',
		customer: { name: 'Jones', premises: '1', thoroughfare: 'High Street', locality: 'Leeds', postcode: 'LS1 1AA' },
		numbers: { number: [{ number: '01632960101', type: 'associated', action: 'port' }] },
	},
	'hostedPbx phoneBook.update': { updateFields: { name: 'Alice Renamed' } },
	'wholesaleVoice numberRouting.set': { mode: 'json', configuration: '{"routing":{"default":[[{"type":"busy"}]]}}' },
	'wholesaleVoice trunk.update': { options: { enabled: true } },
	'wholesaleVoice voice.setLimits': { limitIn: 15, limitOut: 15 },
	'conversationIntelligence configuration.upgradeOperators': { upgrade: 'all' },
};

/** Parameters of a valid run of the operation: the resource and operation, then every field with a known example. */
export function exampleOf(op: OperationUnderTest): INodeParameters {
	const parameters: IDataObject = { resource: op.resource, operation: op.spec.value };
	for (const field of op.fields) {
		if (field.name in BY_NAME) parameters[field.name] = BY_NAME[field.name];
	}
	return { ...parameters, ...(BY_OPERATION[op.name] ?? {}) } as INodeParameters;
}

export interface BatteryRun extends NodeRun {
	requests: Array<{ method: string; path: string; query: unknown; body: unknown }>;
	/** n8n refused the parameters before the node ran (its "node has issues" check). */
	refusedByN8n?: boolean;
}

/**
 * Runs one operation through n8n's execution code against the sandbox; `requests` are what the
 * sandbox received. `items` input items (one by default), with Continue On Fail when asked.
 */
export async function runOperation(
	sandbox: Sandbox,
	op: OperationUnderTest,
	parameters: INodeParameters,
	credentials: (given: ICredentialDataDecryptedObject) => ICredentialDataDecryptedObject = (given) => given,
	options: { items?: number; continueOnFail?: boolean } = {},
): Promise<BatteryRun> {
	const since = sandbox.context.log.lastSeq;
	const requests = () => sandbox.context.log.list({ since }).map((r) => ({ method: r.method, path: r.path, query: r.query, body: r.body }));
	try {
		const given = op.node.credentials(sandbox);
		const input = Array.from({ length: options.items ?? 1 }, () => ({ json: {} }));
		const run = await runNode(
			{ node: op.node.type(), parameters, credentials: Object.fromEntries(Object.entries(given).map(([type, values]) => [type, credentials(values)])), continueOnFail: options.continueOnFail },
			input,
		);
		return { ...run, requests: requests() };
	} catch (error) {
		// n8n's own parameter check (a required field empty, an option that does not exist) stops the run before the node.
		if ((error as Error).name !== 'WorkflowHasIssuesError') throw error;
		return { items: [], error: { message: (error as Error).message }, refusedByN8n: true, task: undefined as never, requests: requests() };
	}
}
