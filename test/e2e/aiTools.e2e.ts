/**
 * The action nodes as AI Agent tools, end to end in a real n8n, with the sandbox's scripted
 * model (`sandbox/llm`) as the OpenAI Chat Model: every operation of the four action nodes is
 * offered to the model as a tool; the script calls at least one operation per resource; the
 * tests read what n8n sent the model (tool names, descriptions, JSON schemas, the `tool`
 * messages) from the model's request records, and what the tools sent the platform from the
 * sandbox's request log. Charged and routing-changing operations get bad arguments from the
 * model and must send nothing. Then the two AI recipes of `examples/ai-agents/` run with their
 * triggers active, and the receptionist's answer time is measured over 50 calls.
 *
 * One sandbox (in this process, 127.0.0.1) and one n8n (started, so triggers listen; the tool
 * workflows run with `n8n execute` beside it).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { INodeProperties } from 'n8n-workflow';

import { ConversationIntelligence, conversationIntelligenceResources } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import { HostedPbx, hostedPbxResources } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import type { ResourceSpec } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import { VoiceAgent, voiceAgentResources } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { WholesaleVoice, wholesaleVoiceResources } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { startSandbox, type Sandbox } from '../../sandbox/index';
import {
	CREDENTIALS,
	PKG,
	addScript,
	agentWorkflow,
	defaultToolNodeName,
	fromAI,
	lastModelSeq,
	modelRequests,
	percentile,
	requestsBetweenModelCalls,
	toolNameOf,
	toolResult,
	type ModelRequest,
	type ScriptStep,
	type ToolNodeSpec,
} from './aiAgents';
import { N8nInstance, REPO_ROOT, nodeResult, runError, type CredentialImport, type N8nRun } from './harness';
import { EXAMPLES_DIR, SandboxAdmin, sandboxCredentials, type SandboxLoggedRequest } from './sandboxAdmin';

const TARGET = process.env.TELEPHONY_N8N_TARGET ?? '2';
const AI_EXAMPLES = path.join(EXAMPLES_DIR, 'ai-agents');
const AGENT = 'agent_ai_receptionist';
const ALICE = '+447700900001';
const DANA = '+447700900555';
const SMS_PATH = '/api/v1/customers/me/sms';
const TIMED_CALLS = 50;
/** The editor's default name for the tool node of Conversation Intelligence → Configuration → Upgrade Operators. */
const LONG_DEFAULT_NAME = 'Upgrade configuration operators in Conversation Intelligence';

const ID = {
	hostedPbx: 'e2eAiToolsPbx001',
	wholesaleVoice: 'e2eAiToolsWsv001',
	voiceAgent: 'e2eAiToolsVag001',
	conversationIntelligence: 'e2eAiToolsCi0001',
	safety: 'e2eAiToolsSafe01',
	defaultErrors: 'e2eAiToolsErr001',
	responsesApi: 'e2eAiToolsResp01',
	longToolName: 'e2eAiToolsLong01',
	receptionist: 'tpAiReceptionist',
	afterCall: 'tpAfterCallAsst1',
};

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const ME = rl('me');

// ---- the nodes under test --------------------------------------------------------------

interface NodeUnderTest {
	key: 'hostedPbx' | 'wholesaleVoice' | 'voiceAgent' | 'conversationIntelligence';
	displayName: string;
	description: string;
	properties: INodeProperties[];
	resources: ResourceSpec[];
	credentials: Record<string, unknown>;
	/** The platform API in the sandbox's request log. */
	api: string;
}

const NODES: NodeUnderTest[] = [
	{ key: 'hostedPbx', type: new HostedPbx(), resources: hostedPbxResources, credentials: CREDENTIALS.pbx, api: 'pbx' },
	{ key: 'wholesaleVoice', type: new WholesaleVoice(), resources: wholesaleVoiceResources, credentials: CREDENTIALS.wholesale, api: 'wholesale' },
	{ key: 'voiceAgent', type: new VoiceAgent(), resources: voiceAgentResources, credentials: CREDENTIALS.key, api: 'convai' },
	{ key: 'conversationIntelligence', type: new ConversationIntelligence(), resources: conversationIntelligenceResources, credentials: CREDENTIALS.key, api: 'intelligence' },
].map(({ type, ...rest }) => ({
	...rest,
	displayName: type.description.displayName,
	description: type.description.description,
	properties: type.description.properties,
})) as NodeUnderTest[];

const nodeOf = (key: NodeUnderTest['key']) => NODES.find((n) => n.key === key)!;

function operationOf(node: NodeUnderTest, resource: string, operation: string) {
	const spec = node.resources.find((r) => r.value === resource)?.operations.find((o) => o.value === operation);
	if (!spec) throw new Error(`${node.key} has no ${resource}.${operation}`);
	return spec;
}

/**
 * The tool node's name, and hence its tool name: the editor's default ("<action> in <node>"),
 * or the action alone when the default makes a tool name longer than OpenAI's 64 characters
 * (one operation; see the long-name test).
 */
function toolNodeName(node: NodeUnderTest, resource: string, operation: string): string {
	const { action } = operationOf(node, resource, operation);
	const name = defaultToolNodeName(action, node.displayName);
	return rawToolName(name).length > 64 ? action : name;
}

/** The tool name before n8n 2.x shortens it to 64 characters (n8n 1.x sends it like this). */
const rawToolName = (nodeName: string) => nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_');

/** Every parameter name the node uses internally, at any depth (a model should never see these). */
function internalNames(properties: INodeProperties[]): Set<string> {
	const names = new Set<string>();
	const visit = (list: Array<Record<string, any>>) => {
		for (const p of list) {
			if (typeof p.name === 'string' && p.type !== undefined) names.add(p.name);
			if (Array.isArray(p.options)) visit(p.options.filter((o: Record<string, any>) => o && typeof o === 'object' && 'type' in o));
			if (Array.isArray(p.options)) for (const o of p.options) if (Array.isArray(o?.values)) visit(o.values);
		}
	};
	visit(properties as unknown as Array<Record<string, any>>);
	return names;
}

/**
 * Operations that cost money or change live routing (or what emergency services see), with the
 * words their description must use to say so.
 */
const UNSAFE: Array<[NodeUnderTest['key'], string, string, RegExp]> = [
	['hostedPbx', 'sms', 'send', /charged/],
	['hostedPbx', 'call', 'originate', /charged/],
	['wholesaleVoice', 'uk999', 'set', /charged/],
	['wholesaleVoice', 'e911', 'set', /emergency calls from it carry this address at once/],
	['wholesaleVoice', 'port', 'submit', /charged/],
	['wholesaleVoice', 'numberRouting', 'set', /Changes live routing at once/],
	['wholesaleVoice', 'numberRouting', 'remove', /Changes live routing at once/],
	['wholesaleVoice', 'number', 'remove', /stop being routed at once/],
	['wholesaleVoice', 'notification', 'addRecipient', /charged/],
];

// ---- one tool call per resource, per node ------------------------------------------------

/** One call the scripted model makes: the tool's parameters, the model's arguments, what must reach the platform. */
interface PlannedCall {
	resource: string;
	operation: string;
	parameters?: Record<string, unknown>;
	args?: Record<string, unknown>;
	expect: { method: string; path: RegExp };
	/** More checks on the tool result the model got back. */
	check?: (json: unknown, content: string) => void;
	/** The operation answers no items (an empty list). */
	empty?: boolean;
	/** Known gap: a list with no default limit (more than 50 items reach the model). */
}

const PLANS: Record<NodeUnderTest['key'], PlannedCall[]> = {
	hostedPbx: [
		{ resource: 'customer', operation: 'get', parameters: { customerId: ME }, expect: { method: 'GET', path: /^\/api\/v1\/customers\/me$/ } },
		{ resource: 'creditStatus', operation: 'get', parameters: { customerId: ME }, expect: { method: 'GET', path: /\/creditstatus$/ } },
		{
			resource: 'phoneBook',
			operation: 'getAll',
			parameters: { customerId: ME },
			expect: { method: 'GET', path: /\/phonebook$/ },
			// 123 entries in the sandbox's phone book: the default limit keeps the conversation small.
			check: (json) => expect((json as unknown[]).length).toBe(50),
		},
		{
			resource: 'phoneBook',
			operation: 'create',
			parameters: {
				customerId: ME,
				name: fromAI('Name', "The contact's full name, e.g. Dana Fox"),
				phoneNumber: fromAI('Phone_Number', "The contact's number in E.164, e.g. +447700900555"),
				additionalFields: {},
			},
			args: { Name: 'Eve Adams', Phone_Number: '+447700900666' },
			expect: { method: 'POST', path: /\/phonebook$/ },
			check: (json) => expect(json).toEqual([expect.objectContaining({ name: 'Eve Adams', phoneNumber: '+447700900666', id: expect.any(String) })]),
		},
		{
			resource: 'call',
			operation: 'getAll',
			parameters: { customerId: ME, filters: { from: fromAI('From', 'Only calls from this number, in E.164, e.g. +447700900002') } },
			args: { From: '+447700900002' },
			expect: { method: 'GET', path: /\/calls$/ },
			check: (json) => expect((json as Array<Record<string, unknown>>).every((c) => String(c.from).includes('+447700900002'))).toBe(true),
		},
		{ resource: 'sms', operation: 'getAll', parameters: { customerId: ME }, expect: { method: 'GET', path: /\/sms$/ } },
		{
			resource: 'recording',
			operation: 'download',
			parameters: { customerId: ME, recordingId: rl(fromAI('Recording_ID', 'The ID of a call recording, from Get many call recordings, e.g. 1')) },
			args: { Recording_ID: '1' },
			expect: { method: 'GET', path: /\/recordings\/1$/ },
			// The WAV stays in n8n: the model gets what the file is, not its bytes.
			check: (json, content) => {
				expect(json).toEqual([expect.objectContaining({ fileName: expect.stringMatching(/\.wav$/), mimeType: 'audio/wav' })]);
				expect(content.length).toBeLessThan(500);
				expect(content).not.toMatch(/UklGR|RIFF|"data"/);
			},
		},
		{ resource: 'sound', operation: 'getAll', parameters: { customerId: ME }, expect: { method: 'GET', path: /\/sounds$/ } },
		{ resource: 'phoneNumber', operation: 'getAll', parameters: { customerId: ME }, expect: { method: 'GET', path: /\/phonenumbers$/ } },
		{ resource: 'outgoingCallerId', operation: 'getAll', parameters: { customerId: ME }, expect: { method: 'GET', path: /\/outgoingcallerids$/ } },
		{ resource: 'callBundle', operation: 'getAll', parameters: { customerId: ME }, expect: { method: 'GET', path: /\/callbundles$/ } },
		{
			resource: 'endpoint',
			operation: 'getDnd',
			parameters: { customerId: ME, endpointId: rl(fromAI('Extension', 'The extension (endpoint) number, e.g. 201')) },
			args: { Extension: '203' },
			expect: { method: 'GET', path: /\/endpoints\/203\b/ },
			check: (json) => expect(json).toEqual([expect.objectContaining({ dndActive: true })]),
		},
		{ resource: 'authToken', operation: 'generate', expect: { method: 'GET', path: /\/tokengenerator$/ } },
	],
	wholesaleVoice: [
		{ resource: 'account', operation: 'getType', expect: { method: 'GET', path: /\/type$/ } },
		{ resource: 'invoice', operation: 'getAll', parameters: { status: 'all' }, expect: { method: 'GET', path: /\/credit\/invoices\/all$/ } },
		{
			resource: 'invoice',
			operation: 'download',
			parameters: { invoiceNumber: fromAI('Invoice_Number', 'The invoice number: the id of an invoice, from Get many invoices') },
			args: { Invoice_Number: '{{ tool:Get many invoices | find:id | first }}' },
			expect: { method: 'GET', path: /invoice/ },
			// The PDF stays in n8n.
			check: (json, content) => {
				expect(json).toEqual([expect.objectContaining({ mimeType: 'application/pdf' })]);
				expect(content.length).toBeLessThan(500);
				expect(content).not.toMatch(/%PDF|JVBERi/);
			},
		},
		{ resource: 'notification', operation: 'getAvailableTypes', expect: { method: 'GET', path: /\/notifications\/available$/ } },
		{
			resource: 'number',
			operation: 'validate',
			parameters: { number: fromAI('Number', 'The phone number to check, in E.164, e.g. 441632960001') },
			args: { Number: '441632960001' },
			expect: { method: 'GET', path: /441632960001/ },
			check: (json) => expect(json).toEqual([expect.objectContaining({ valid: true })]),
		},
		{ resource: 'port', operation: 'getAll', expect: { method: 'GET', path: /^\/v3\/porting\// } },
		{ resource: 'prepay', operation: 'getBalance', expect: { method: 'GET', path: /\/balance$/ } },
		{
			resource: 'rate',
			operation: 'getDestinationRate',
			parameters: { number: fromAI('Number', 'The number to price a call to, in E.164, e.g. 447700900123') },
			args: { Number: '447700900123' },
			expect: { method: 'GET', path: /\/rate\/447700900123$/ },
		},
		// No report is waiting: an operation with no items reaches the model as "" (n8n's observation for no output).
		{ resource: 'report', operation: 'listFiles', expect: { method: 'GET', path: /^\/v3\/files\/123456$/ }, empty: true },
		// Known gap: no default limit (Max Results defaults to the API's 9999): every row reaches the model.
		{ resource: 'summary', operation: 'get', parameters: { key: 'destination' }, expect: { method: 'POST', path: /\/summary\/destination$/ } },
		{ resource: 'tool', operation: 'time', expect: { method: 'GET', path: /^\/v3\/tools\/time$/ } },
		{ resource: 'trunk', operation: 'getAll', expect: { method: 'GET', path: /trunk/ } },
		{
			resource: 'uk999',
			operation: 'get',
			parameters: { number: fromAI('Number', 'The UK number, in E.164, e.g. 441632960001') },
			args: { Number: '441632960001' },
			expect: { method: 'GET', path: /\/441632960001\/999$/ },
		},
		{
			resource: 'e911',
			operation: 'get',
			parameters: { number: fromAI('Number', 'The US number, in E.164, e.g. 12025550143') },
			args: { Number: '12025550143' },
			expect: { method: 'GET', path: /\/12025550143\/e911$/ },
		},
		{ resource: 'voice', operation: 'getCallsInProgress', expect: { method: 'GET', path: /\/inprogress/ } },
	],
	voiceAgent: [
		{
			resource: 'webhook',
			operation: 'create',
			parameters: {
				eventType: 'conversation.completed',
				url: fromAI('URL', 'Where the service posts conversation.completed events: an http or https URL'),
				agentId: 'agent_e2e_tools',
				additionalFields: {},
			},
			args: { URL: 'https://hooks.example.com/e2e-ai-tool' },
			expect: { method: 'POST', path: /^\/convai\/v1\/webhooks$/ },
		},
		{
			resource: 'webhook',
			operation: 'getAll',
			parameters: { filters: { agentId: fromAI('Agent_ID', 'Only the webhooks of this voice agent, e.g. agent_demo_support') } },
			args: { Agent_ID: 'agent_e2e_tools' },
			expect: { method: 'GET', path: /^\/convai\/v1\/webhooks$/ },
			check: (json) => expect(json).toEqual([expect.objectContaining({ url: 'https://hooks.example.com/e2e-ai-tool', agent_id: 'agent_e2e_tools' })]),
		},
	],
	conversationIntelligence: [
		{
			resource: 'session',
			operation: 'getStreamToken',
			parameters: { sessionId: fromAI('Session_ID', 'The ID of the analysed call session, e.g. sess_demo_transcript') },
			args: { Session_ID: 'sess_demo_quiet' },
			expect: { method: 'GET', path: /\/sessions\/sess_demo_quiet\/stream-token$/ },
		},
		{
			resource: 'configuration',
			operation: 'upgradeOperators',
			parameters: { configurationId: fromAI('Configuration_UUID', 'The UUID of the analysis configuration whose operators to upgrade'), upgrade: 'all' },
			args: { Configuration_UUID: '7c9e6679-7425-40de-944b-e07fc1f90ae7' },
			expect: { method: 'POST', path: /\/upgrade-operators$/ },
		},
	],
};

/** Every operation of a node as a tool node; the planned ones with their parameters. */
function nodeToolSpecs(node: NodeUnderTest): ToolNodeSpec[] {
	return node.resources.flatMap((resource) =>
		resource.operations.map((operation) => {
			const planned = PLANS[node.key].find((p) => p.resource === resource.value && p.operation === operation.value);
			return {
				name: toolNodeName(node, resource.value, operation.value),
				node: node.key,
				resource: resource.value,
				operation: operation.value,
				parameters: planned?.parameters,
				credentials: node.credentials,
			};
		}),
	);
}

const PROMPT = (node: NodeUnderTest) => `e2e tools: ${node.displayName}. Use each tool you are told to.`;

function nodeScript(node: NodeUnderTest): ScriptStep[] {
	return [
		...PLANS[node.key].map((call) => ({ tool: toolNameOf(toolNodeName(node, call.resource, call.operation)), args: call.args ?? {} })),
		{ text: 'Done: {{ tools | count }} tools offered; the last one answered {{ last_tool_result | count }} item(s).' },
	];
}

// ---- charged and routing-changing operations under a model ---------------------------------

interface SafetyCall {
	node: NodeUnderTest['key'];
	resource: string;
	operation: string;
	parameters: Record<string, unknown>;
	bad: Record<string, unknown>;
	/** The field the refusal names. */
	field: RegExp;
	good?: Record<string, unknown>;
	goodRequest?: { method: string; path: RegExp };
}

const UK_ADDRESS = { Surname: 'Lovelace', Premises: '1', Thoroughfare: 'Engine Street', Locality: 'London', Postcode: 'EC1A 1BB' };
const US_ADDRESS = { Subscriber_Name: 'Acme Voice NY', Street_Number: '350', Street: 'Fifth Avenue', City: 'New York', State: 'NY', Postal_Code: '10118' };

const SAFETY: SafetyCall[] = [
	{
		node: 'hostedPbx',
		resource: 'sms',
		operation: 'send',
		parameters: {
			customerId: ME,
			from: rl('+441632960001'),
			to: fromAI('To', 'The number to text, in E.164, e.g. +447700900123'),
			body: fromAI('Message', 'The text of the SMS, at most 300 characters'),
		},
		bad: { To: 'call me maybe', Message: 'Your order has shipped.' },
		field: /^To$/,
		good: { To: '+447700900123', Message: 'Your order has shipped.' },
		goodRequest: { method: 'POST', path: /^\/api\/v1\/customers\/me\/sms$/ },
	},
	{
		node: 'hostedPbx',
		resource: 'call',
		operation: 'originate',
		parameters: { customerId: ME, endpointId: rl('201'), to: fromAI('Destination', 'The number to call once extension 201 answers, e.g. +447700900123') },
		bad: { Destination: 'the customer' },
		field: /^Destination$/,
	},
	{
		node: 'wholesaleVoice',
		resource: 'uk999',
		operation: 'set',
		parameters: {
			number: fromAI('Number', 'The UK number, in E.164, e.g. 441632960002'),
			endUser: 'individual',
			name: fromAI('Surname', "The subscriber's surname, e.g. Lovelace"),
			premises: fromAI('Premises', 'The number or name of the premises'),
			thoroughfare: fromAI('Thoroughfare', 'The street name, e.g. Engine Street'),
			locality: fromAI('Locality', 'The village or area, and the town'),
			postcode: fromAI('Postcode', 'The full postcode, e.g. EC1A 1BB'),
		},
		bad: { Number: '441632960002', ...UK_ADDRESS, Postcode: 'EC1A1BB' },
		field: /Postcode/,
	},
	{
		node: 'wholesaleVoice',
		resource: 'e911',
		operation: 'set',
		parameters: {
			number: fromAI('Number', 'The US number, in E.164, e.g. 14155550100'),
			name: fromAI('Subscriber_Name', 'The subscriber or business name'),
			streetNum: fromAI('Street_Number', 'The house or building number, e.g. 350'),
			streetInfo: fromAI('Street', 'The street name, without the unit, e.g. Fifth Avenue'),
			city: fromAI('City', 'The city of the address, e.g. New York'),
			state: fromAI('State', 'The two-letter state code, e.g. NY'),
			postalCode: fromAI('Postal_Code', 'The five-digit ZIP code'),
		},
		bad: { Number: '14155550100', ...US_ADDRESS, State: 'New York' },
		field: /State/,
	},
	{
		node: 'wholesaleVoice',
		resource: 'port',
		operation: 'submit',
		parameters: {
			mode: 'fields',
			mbn: fromAI('Main_Billing_Number', 'The main billing number to port, UK format, e.g. 01632960200'),
			lcp: '001|BT',
			portType: 'single',
			lines: 1,
			channels: 1,
			contactEmail: fromAI('Contact_Email', 'The e-mail address of whoever submits the port'),
			billingPostcode: 'LS1 4AP',
			customer: { name: 'Lovelace', premises: 'Unit 4', thoroughfare: 'Wellington Street', locality: 'Leeds', postcode: 'LS1 4AP' },
			numbers: {},
			additionalFields: {},
		},
		bad: { Main_Billing_Number: '07700900123', Contact_Email: 'porting@acme.example' },
		// Port refusals name the field as the node shows it, not the API key ("mbn").
		field: /^Main Billing Number$/,
	},
	{
		node: 'wholesaleVoice',
		resource: 'numberRouting',
		operation: 'set',
		parameters: {
			number: fromAI('Number', 'The number whose calls to route, in E.164, e.g. 441632960002'),
			mode: 'builder',
			routes: {
				route: [
					{
						rule: 'default',
						blocks: { block: [{ type: 'sip', stage: 1, endpoint: fromAI('SIP_Endpoint', 'Where the calls go: user@host[:port], without sip:, e.g. sales@pbx.acme.example') }] },
					},
				],
			},
			sections: {},
		},
		bad: { Number: '441632960002', SIP_Endpoint: 'sip:sales@pbx.acme.example' },
		field: /endpoint/,
		good: { Number: '441632960002', SIP_Endpoint: 'sales@pbx.acme.example' },
		goodRequest: { method: 'PUT', path: /^\/v3\/numbers\/123456\/allocated\/441632960002\/config$/ },
	},
	{
		node: 'wholesaleVoice',
		resource: 'notification',
		operation: 'addRecipient',
		parameters: { type: 'low_balance', method: 'sms', destination: fromAI('Recipient', 'The mobile number to text, in E.164, e.g. 447700900123') },
		bad: { Recipient: 'ops at acme' },
		field: /Recipient/,
	},
];

const safetyToolName = (call: SafetyCall) => toolNodeName(nodeOf(call.node), call.resource, call.operation);

function safetySpecs(): ToolNodeSpec[] {
	return SAFETY.map((call) => ({
		name: safetyToolName(call),
		node: call.node,
		resource: call.resource,
		operation: call.operation,
		parameters: call.parameters,
		credentials: nodeOf(call.node).credentials,
		// "Set Manually" with the operation's own description: it says what the call costs or changes.
		description: operationOf(nodeOf(call.node), call.resource, call.operation).description,
		onError: 'continueRegularOutput',
	}));
}

const SAFETY_STEPS: ScriptStep[] = [
	...SAFETY.map((call) => ({ tool: toolNameOf(safetyToolName(call)), args: call.bad })),
	...SAFETY.filter((call) => call.good).map((call) => ({ tool: toolNameOf(safetyToolName(call)), args: call.good })),
	{ text: 'Refused: {{ last_tool_result | count }}' },
];

// ---- the tests ---------------------------------------------------------------------------

describe(`the action nodes as AI Agent tools, with a scripted model (target ${TARGET})`, () => {
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	let n8n: N8nInstance;
	const fileStarted = Date.now();
	/** The first model request of each node's run: the tools as the model saw them. */
	const offered: Record<string, ModelRequest['tools']> = {};
	/** Platform resources whose operations worked as tools (node → resources). */
	const worked: Record<string, Set<string>> = Object.fromEntries(NODES.map((n) => [n.key, new Set<string>()]));

	const smsSent = async (since: number, to: string, count = 1) =>
		await admin.waitForRequests({ api: 'pbx', method: 'POST', pathPrefix: SMS_PATH, since }, (r) => r.status === 201 && r.body?.to === to, { count });

	/** Runs a Manual Trigger → AI Agent workflow with `n8n execute`; returns the run, its model requests and the request-log windows. */
	async function runAgent(workflowId: string, script: string) {
		const since = await admin.lastSeq();
		const t0 = Date.now();
		const run = await n8n.execute(workflowId);
		console.log(`n8n execute ${workflowId}: ${Date.now() - t0} ms`);
		const requests = await modelRequests(admin, { script });
		const log = await admin.requests({ since });
		return { run, requests, log, windows: requestsBetweenModelCalls(log) };
	}

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		admin = new SandboxAdmin(sandbox.url);
		// 50 receptionist runs make about 200 PBX requests: lift the 1,200 requests/hour limit.
		await admin.post('/pbx/settings', { rateLimit: 1_000_000, smsDelayMs: 50 });

		n8n = await N8nInstance.create();
		const wholesale: CredentialImport = {
			id: CREDENTIALS.wholesale.wholesaleVoiceApi.id,
			name: CREDENTIALS.wholesale.wholesaleVoiceApi.name,
			type: 'wholesaleVoiceApi',
			data: { baseUrl: sandbox.url, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456', maxRateLimitWait: 30 },
		};
		await n8n.importCredentials([...sandboxCredentials(sandbox.url), wholesale]);
		const pbx = nodeOf('hostedPbx');
		await n8n.importWorkflows([
			...NODES.map((node) =>
				agentWorkflow({ id: ID[node.key], name: `e2e: every ${node.displayName} operation as a tool`, prompt: PROMPT(node), tools: nodeToolSpecs(node) }),
			),
			agentWorkflow({ id: ID.safety, name: 'e2e: charged and routing-changing tools', prompt: 'e2e safety: try the charged tools.', tools: safetySpecs() }),
			agentWorkflow({
				id: ID.defaultErrors,
				name: 'e2e: a refused SMS with default error handling',
				prompt: 'e2e default errors: text the customer.',
				tools: [{ ...safetySpecs()[0], description: undefined, onError: undefined }],
			}),
			agentWorkflow({
				id: ID.responsesApi,
				name: 'e2e: OpenAI Chat Model 1.3 (Responses API)',
				prompt: 'e2e responses api: what is the balance?',
				modelVersion: 1.3,
				tools: [{ name: toolNodeName(pbx, 'creditStatus', 'get'), node: 'hostedPbx', resource: 'creditStatus', operation: 'get', parameters: { customerId: ME }, credentials: CREDENTIALS.pbx }],
			}),
			agentWorkflow({
				id: ID.longToolName,
				name: 'e2e: a tool node named by default with more than 64 characters',
				prompt: 'e2e long tool name: hello',
				tools: [
					{
						name: LONG_DEFAULT_NAME,
						node: 'conversationIntelligence',
						resource: 'configuration',
						operation: 'upgradeOperators',
						parameters: { configurationId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', upgrade: 'all' },
						credentials: CREDENTIALS.key,
					},
				],
			}),
			loadAiExample('ai-receptionist.json'),
			loadAiExample('after-call-assistant.json'),
		]);
		await n8n.start();
		await n8n.setupOwner();
		console.log(`n8n ${n8n.n8nVersion} ready after ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`);
	});

	afterAll(async () => {
		await n8n?.dispose();
		await sandbox?.close();
		console.log(`AI tools suite: ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`);
	});

	test('n8n offers each action node as a tool type (<package>.<node>Tool) whose description defaults to the node description', async () => {
		const types = await n8n.rest.get<Array<Record<string, any>>>('/types/nodes.json');
		for (const node of NODES) {
			const tool = types.find((t) => t.name === `${PKG}.${node.key}Tool`);
			expect(tool).toBeDefined();
			expect(tool!.outputs).toEqual(['ai_tool']);
			expect(tool!.displayName).toBe(`${node.displayName} Tool`);
			const descriptionType = tool!.properties.find((p: Record<string, any>) => p.name === 'descriptionType');
			expect(descriptionType.default).toBe('auto');
			expect(tool!.properties.find((p: Record<string, any>) => p.name === 'toolDescription').default).toBe(node.description);
			// The operations n8n serves are the ones the tests build from the node's specs; n8n 1.x adds
			// its own "Custom API Call" (__CUSTOM_API_CALL__) to nodes whose credential the HTTP Request node can use.
			const served = tool!.properties
				.filter((p: Record<string, any>) => p.name === 'operation')
				.flatMap((p: Record<string, any>) => p.options.filter((o: Record<string, any>) => o.value !== '__CUSTOM_API_CALL__').map((o: Record<string, any>) => `${p.displayOptions.show.resource[0]}.${o.value}|${o.action}|${o.description}`));
			const built = node.resources.flatMap((r) => r.operations.map((o) => `${r.value}.${o.value}|${o.action}|${o.description}`));
			expect(served.sort()).toEqual(built.sort());
		}
		for (const trigger of ['hostedPbxTrigger', 'voiceAgentTrigger', 'conversationIntelligenceTrigger']) {
			expect(types.some((t) => t.name === `${PKG}.${trigger}Tool`)).toBe(false);
		}
	});

	describe.each(NODES.map((node) => [node.displayName, node] as const))('%s', (_name, node) => {
		let run: N8nRun;
		let requests: ModelRequest[];
		let windows: SandboxLoggedRequest[][];
		const plan = PLANS[node.key];

		beforeAll(async () => {
			if (node.key === 'hostedPbx') await admin.post('/pbx/phonebook/bulk', { count: 120 });
			await addScript(admin, { name: `tools-${node.key}`, match: { user: PROMPT(node) }, steps: nodeScript(node) });
			({ run, requests, windows } = await runAgent(ID[node.key], `tools-${node.key}`));
			offered[node.key] = requests[0]?.tools ?? [];
		});

		test('the agent ran every planned tool and finished with the model\'s answer', () => {
			expect(runError(run)).toBeUndefined();
			expect(requests.map((r) => r.step)).toEqual([...plan.map((_c, i) => i), plan.length]);
			const operations = node.resources.reduce((n, r) => n + r.operations.length, 0);
			expect(nodeResult(run, 'AI Agent').json).toEqual([{ output: expect.stringMatching(new RegExp(`^Done: ${operations} tools offered`)) }]);
			// Every tool node that was called ran once in n8n, as its own node.
			for (const call of plan) expect(nodeResult(run, toolNodeName(node, call.resource, call.operation)).ran).toBe(true);
		});

		test('every operation is offered as a tool named after its node, described as "<action> in <node>"', () => {
			const expected = node.resources.flatMap((r) =>
				r.operations.map((o) => ({ name: toolNameOf(toolNodeName(node, r.value, o.value)), description: `${o.action} in ${node.displayName}` })),
			);
			expect(offered[node.key].map((t) => ({ name: t.name, description: t.description })).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
				expected.sort((a, b) => a.name.localeCompare(b.name)),
			);
			for (const tool of offered[node.key]) {
				// One imperative phrase: a capitalised verb first, no sentence break, short.
				expect(tool.description).toMatch(/^[A-Z][a-z]+ [^.]+ in [A-Z]/);
				expect(tool.description.length).toBeLessThanOrEqual(90);
				expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
			}
		});

		test('the parameters the model fills have clear names and descriptions, never internal names', () => {
			const internal = internalNames(node.properties);
			const filled = offered[node.key].filter((t) => Object.keys(t.parameters.properties ?? {}).length > 0);
			expect(filled.length).toBe(plan.filter((c) => c.args && Object.keys(c.args).length).length);
			for (const tool of filled) {
				for (const [key, schema] of Object.entries(tool.parameters.properties ?? {})) {
					expect([tool.name, key, internal.has(key)]).toEqual([tool.name, key, false]);
					expect(key).toMatch(/^[A-Z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)*$/);
					expect((schema.description ?? '').length).toBeGreaterThanOrEqual(15);
					expect(schema.type).toBeDefined();
				}
				expect(tool.parameters.required?.sort()).toEqual(Object.keys(tool.parameters.properties ?? {}).sort());
			}
		});

		test('each call reached the platform and its result came back to the model as a tool message, compact', () => {
			plan.forEach((call, i) => {
				const name = toolNameOf(toolNodeName(node, call.resource, call.operation));
				const [toolCall] = requests[i].answer.toolCalls ?? [];
				expect([i, toolCall?.name]).toEqual([i, name]);
				// The platform request of this call, between this model request and the next.
				const reached = windows[i].filter((r) => r.api === node.api);
				expect([name, reached.map((r) => `${r.method} ${r.path}`)]).toEqual([name, [expect.stringMatching(new RegExp(`^${call.expect.method} `))]]);
				expect(reached[0].path).toMatch(call.expect.path);
				expect(reached[0].status).toBeGreaterThanOrEqual(200);
				expect(reached[0].status).toBeLessThan(300);
				// The next model request carries the result as a `tool` message for that call.
				const result = toolResult(requests[i + 1], toolCall.id);
				expect([name, result !== undefined]).toEqual([name, true]);
				if (call.empty) {
					expect([name, result!.content]).toEqual([name, '""']);
					worked[node.key].add(call.resource);
					return;
				}
				expect([name, result!.content]).toEqual([name, expect.stringMatching(/^\[/)]);
				const items = result!.json as Array<Record<string, unknown>>;
				for (const item of items) {
					// Envelopes removed: no list wrapper, no {success, data}, no error.
					expect([name, Object.keys(item).filter((k) => ['items', 'nextPage', 'totalItems', 'error'].includes(k))]).toEqual([name, []]);
					expect([name, 'success' in item && 'data' in item]).toEqual([name, false]);
				}
				// Lists are limited by default: no result is more than the default 50 items or ~40 kB.
				expect([name, items.length <= 50]).toEqual([name, true]);
				expect(result!.content.length).toBeLessThan(40_000);
				call.check?.(result!.json, result!.content);
				worked[node.key].add(call.resource);
			});
		});
	});

	describe('charged and routing-changing operations under a model', () => {
		let run: N8nRun;
		let requests: ModelRequest[];
		let windows: SandboxLoggedRequest[][];

		beforeAll(async () => {
			await addScript(admin, { name: 'safety', match: { user: 'e2e safety' }, steps: SAFETY_STEPS });
			({ run, requests, windows } = await runAgent(ID.safety, 'safety'));
		});

		test('their descriptions (used with "Set Manually") say that they cost money or change live routing', () => {
			for (const [key, resource, operation, words] of UNSAFE) {
				expect([key, resource, operation, operationOf(nodeOf(key), resource, operation).description]).toEqual([key, resource, operation, expect.stringMatching(words)]);
			}
			// ...and that is what the model received.
			for (const call of SAFETY) {
				const tool = requests[0].tools.find((t) => t.name === toolNameOf(safetyToolName(call)));
				expect(tool?.description).toBe(operationOf(nodeOf(call.node), call.resource, call.operation).description);
				expect(tool?.description).toMatch(/charged|Changes live routing|emergency calls/);
			}
		});

		test('a bad argument from the model is refused locally: the model gets the error with the rule, nothing reaches the platform', () => {
			expect(runError(run)).toBeUndefined();
			SAFETY.forEach((call, i) => {
				const name = toolNameOf(safetyToolName(call));
				const [toolCall] = requests[i].answer.toolCalls ?? [];
				expect([i, toolCall?.name]).toEqual([i, name]);
				expect([name, windows[i].filter((r) => r.api !== 'llm')]).toEqual([name, []]);
				const result = toolResult(requests[i + 1], toolCall.id);
				const [refusal] = result!.json as Array<{ error: string; description: string; issues: Array<{ field: string; problem: string; rule: string }> }>;
				expect([name, refusal.error]).toEqual([name, expect.stringMatching(/^Invalid /)]);
				expect(refusal.description).toMatch(/Nothing was sent\.$/);
				expect(refusal.issues.length).toBeGreaterThan(0);
				expect(refusal.issues[0].field).toMatch(call.field);
				expect(refusal.issues[0].rule.length).toBeGreaterThan(5);
			});
		});

		test('the same tools with good arguments reach the platform (one SMS, one routing change)', () => {
			const good = SAFETY.filter((call) => call.good);
			good.forEach((call, j) => {
				const i = SAFETY.length + j;
				const name = toolNameOf(safetyToolName(call));
				const [toolCall] = requests[i].answer.toolCalls ?? [];
				expect(toolCall?.name).toBe(name);
				const reached = windows[i].filter((r) => r.api !== 'llm');
				expect([name, reached.map((r) => r.method)]).toEqual([name, [call.goodRequest!.method]]);
				expect(reached[0].path).toMatch(call.goodRequest!.path);
				expect(reached[0].status).toBeLessThan(300);
				const [item] = toolResult(requests[i + 1], toolCall.id)!.json as Array<Record<string, unknown>>;
				expect(item.error).toBeUndefined();
				worked[call.node].add(call.resource);
			});
			// In all, the platform saw exactly those two writes.
			const writes = windows.flat().filter((r) => r.api !== 'llm' && r.method !== 'GET');
			expect(writes.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${SMS_PATH}`, 'PUT /v3/numbers/123456/allocated/441632960002/config']);
		});

		test(`without "continue on error", a refusal ${TARGET === '1' ? 'fails the run (n8n 1.x)' : 'still goes back to the model, message only (n8n 2.x)'}; nothing is sent either way`, async () => {
			await addScript(admin, { name: 'default-errors', match: { user: 'e2e default errors' }, steps: [{ tool: 'Send an SMS', args: SAFETY[0].bad }, { text: 'could not send' }] });
			const { run: errorRun, requests: errorRequests, log } = await runAgent(ID.defaultErrors, 'default-errors');
			expect(log.filter((r) => r.api !== 'llm')).toEqual([]);
			if (n8n.major >= 2) {
				expect(runError(errorRun)).toBeUndefined();
				const [toolCall] = errorRequests[0].answer.toolCalls ?? [];
				expect(toolResult(errorRequests[1], toolCall.id)!.json).toEqual([{ error: 'Invalid To: "call me maybe" is not a phone number' }]);
			} else {
				expect(runError(errorRun)?.message).toBe('Invalid To: "call me maybe" is not a phone number');
				expect(errorRequests).toHaveLength(1);
			}
		});
	});

	test('every resource of every action node worked as a tool', () => {
		for (const node of NODES) {
			expect([node.key, node.resources.map((r) => r.value).filter((r) => !worked[node.key].has(r))]).toEqual([node.key, []]);
		}
	});

	test('by default ("Set Automatically") a charged or routing-changing tool warns the model', () => {
		// n8n builds the automatic tool description from the operation's `action` ("<action> in
		// <node>"), not from its `description`: the actions of these operations carry the warning.
		// "Send an SMS" is named as people search for it; docs/ai-agents.md says to paste its
		// description, which warns (checked above and in test/nodes/toolNames.test.ts).
		for (const [key, resource, operation] of UNSAFE.filter(([, r, o]) => `${r}.${o}` !== 'sms.send')) {
			const name = toolNameOf(toolNodeName(nodeOf(key), resource, operation));
			const tool = offered[key].find((t) => t.name === name);
			expect([name, tool?.description]).toEqual([name, expect.stringMatching(/charg|cost|bill|rout|emergency/i)]);
		}
	});

	test('automatic tool descriptions read well ("Get an outgoing caller ID", "Get an SMS message")', () => {
		for (const node of NODES) for (const tool of offered[node.key]) expect(tool.description).not.toMatch(/\ba (?!one\b|one-|US\b|uni|use)(?:[aeiou]|SMS\b)/i);
	});

	test('the longest default tool name fits in 64 characters and reaches the model whole', async () => {
		expect(defaultToolNodeName(operationOf(nodeOf('conversationIntelligence'), 'configuration', 'upgradeOperators').action, 'Conversation Intelligence')).toBe(LONG_DEFAULT_NAME);
		await addScript(admin, { name: 'long-name', match: { user: 'e2e long tool name' }, steps: [{ text: 'hello' }] });
		const since = await lastModelSeq(admin);
		const { run } = await runAgent(ID.longToolName, 'long-name');
		const [request] = (await modelRequests(admin, { since })).filter((r) => r.user.startsWith('e2e long tool name'));
		expect(runError(run)).toBeUndefined();
		expect(request.tools.map((t) => t.name)).toEqual([toolNameOf(LONG_DEFAULT_NAME)]);
		expect(toolNameOf(LONG_DEFAULT_NAME)).toBe('Upgrade_configuration_operators_in_Conversation_Intelligence');
	});

	test('OpenAI Chat Model 1.3 talks to the scripted model through the Responses API, tools included', async () => {
		await addScript(admin, { name: 'responses', match: { user: 'e2e responses api' }, steps: [{ tool: 'credit status' }, { text: 'Balance: {{ tool:credit status | find:balance | first }} GBP' }] });
		const { run, requests, windows } = await runAgent(ID.responsesApi, 'responses');
		expect(runError(run)).toBeUndefined();
		expect(requests.map((r) => r.api)).toEqual(['responses', 'responses']);
		expect(windows[0].map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/customers/me/creditstatus']);
		expect(nodeResult(run, 'AI Agent').json).toEqual([{ output: 'Balance: 42.5 GBP' }]);
	});

	// ---- the recipes -------------------------------------------------------------------

	describe('recipes: AI receptionist and after-call assistant, triggers active', () => {
		let timeoutMs = 0;

		beforeAll(async () => {
			const scripts = JSON.parse(fs.readFileSync(path.join(AI_EXAMPLES, 'scripted-model.json'), 'utf8')) as unknown[];
			await admin.post('/llm/scripts', scripts);
			const t0 = Date.now();
			await n8n.activateNow(ID.receptionist);
			await n8n.activateNow(ID.afterCall);
			console.log(`activation of the two AI recipes: ${Date.now() - t0} ms`);
			timeoutMs = loadAiExample('ai-receptionist.json').nodes.find((n: Record<string, any>) => n.name === 'Call is starting').parameters.timeoutMs;
		});

		test('the recipe files: fixed ids, this package, n8n-nodes-base and n8n\'s AI nodes only, the sandbox credentials', () => {
			// mcp-telephony-server.json is the MCP suite's (mcp.e2e.ts).
			expect(fs.readdirSync(AI_EXAMPLES).sort()).toEqual(['after-call-assistant.json', 'ai-receptionist.json', 'mcp-telephony-server.json', 'scripted-model.json']);
			for (const file of ['ai-receptionist.json', 'after-call-assistant.json']) {
				const wf = loadAiExample(file);
				expect(wf.id).toMatch(/^[0-9A-Za-z]{16}$/);
				for (const node of wf.nodes as Array<Record<string, any>>) {
					expect(node.type).toMatch(new RegExp(`^(${PKG}\\.|n8n-nodes-base\\.|@n8n/n8n-nodes-langchain\\.(agent|lmChatOpenAi)$)`));
					for (const [type, ref] of Object.entries((node.credentials ?? {}) as Record<string, { id: string; name: string }>)) {
						expect([
							['hostedPbxApi', 'sandboxPbxCred01', 'Sandbox Hosted PBX'],
							['platformApiKeyApi', 'sandboxKeyCred01', 'Sandbox Platform API Key'],
							['openAiApi', 'sandboxLlmCred01', 'Sandbox Scripted Model'],
						]).toContainEqual([type, ref.id, ref.name]);
					}
				}
			}
			const credentials = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, 'sandbox-credentials.json'), 'utf8')) as CredentialImport[];
			expect(credentials.find((c) => c.type === 'openAiApi')).toEqual({
				id: 'sandboxLlmCred01',
				name: 'Sandbox Scripted Model',
				type: 'openAiApi',
				data: { apiKey: expect.any(String), url: 'http://127.0.0.1:4010/llm/v1', header: false },
			});
		});

		test('activation registered both webhooks for the agent', async () => {
			const webhooks = await admin.until('two agent webhooks', async () => {
				const list = (await admin.get<Array<Record<string, any>>>('/convai/webhooks')).filter((w) => w.agent_id === AGENT);
				return list.length >= 2 && list;
			});
			expect(webhooks.map((w) => [w.event_type, w.status]).sort()).toEqual([
				['conversation.completed', 'active'],
				['conversation.initiating', 'active'],
			]);
			expect(webhooks.find((w) => w.event_type === 'conversation.initiating')!.timeout_ms).toBe(timeoutMs);
		});

		test('AI receptionist: a known caller -> the agent looks them up with three tools -> dynamic variables within timeout_ms', async () => {
			await admin.post('/pbx/calls/incoming', { from: ALICE, callerIdName: 'ALICE J', outcome: 'ANSWERED' });
			const before = (await n8n.executions(ID.receptionist)).length;
			const modelSince = await lastModelSeq(admin);
			const conversation = await admin.post('/convai/conversations', { agent_id: AGENT, completed: false });
			const [delivery] = conversation.deliveries as Array<Record<string, any>>;
			expect(delivery).toMatchObject({ eventType: 'conversation.initiating', outcome: 'delivered', response: { status: 200, timedOut: false } });
			expect(delivery.attempts).toHaveLength(1);
			expect(delivery.response.elapsedMs).toBeLessThan(timeoutMs);
			console.log(`receptionist, first call: answered in ${delivery.response.elapsedMs} ms`);
			expect(conversation.dynamic_variables).toEqual({
				caller_number: ALICE,
				customer_name: 'Alice Jones',
				first_name: 'Alice',
				known_customer: true,
				recent_calls: 1,
				account_type: 'PREPAID',
				balance_gbp: 42.5,
			});

			// The model's view: three turns; the second asked for three tools at once; the tools
			// arrived described as the recipe says, with the one parameter it leaves to the model.
			const turns = (await modelRequests(admin, { script: 'ai-receptionist', since: modelSince })).filter((r) => r.user.includes(conversation.conversation_id));
			expect(turns.map((r) => r.step)).toEqual([0, 1, 2]);
			expect(turns[1].answer.toolCalls!.map((c) => c.name)).toEqual(['Recent_calls', 'Phone_book', 'Credit_status']);
			expect(turns[1].answer.toolCalls![0].arguments).toEqual({ From: ALICE });
			expect(turns[0].tools.map((t) => t.name).sort()).toEqual(['Credit_status', 'Phone_book', 'Recent_calls']);
			expect(turns[0].tools.find((t) => t.name === 'Recent_calls')!.parameters.properties).toEqual({ From: { type: 'string', description: expect.stringMatching(/E\.164/) } });
			expect(turns[2].messages.filter((m) => m.role === 'tool').map((m) => m.toolName)).toEqual(['Recent_calls', 'Recent_calls', 'Phone_book', 'Credit_status']);

			const runs = await n8n.waitForExecutions(ID.receptionist, before + 1);
			const run = runs[runs.length - 1];
			expect(runError(run)).toBeUndefined();
			expect(nodeResult(run, 'Answer the agent').json).toEqual([{ dynamic_variables: conversation.dynamic_variables }]);
		});

		test('after-call assistant: a new caller asks for a text -> the agent adds them to the phone book and texts them, once', async () => {
			const since = await admin.lastSeq();
			await admin.post('/pbx/calls/incoming', { from: DANA, callerIdName: 'D FOX', outcome: 'ANSWERED' });
			const before = (await n8n.executions(ID.afterCall)).length;
			const conversation = await admin.post('/convai/conversations', {
				agent_id: AGENT,
				waitForCompleted: true,
				transcript: [
					{ role: 'agent', message: 'Hello, thanks for calling Acme Widgets. How can I help?', time_in_call_secs: 0 },
					{ role: 'user', message: 'Hi, this is Dana Fox. Could you text me your opening hours? And please keep my number for next time.', time_in_call_secs: 3.5 },
					{ role: 'agent', message: "Of course, Dana. I'll send you a text with our opening hours right after this call.", time_in_call_secs: 9.2 },
					{ role: 'user', message: 'Great, thanks. Bye!', time_in_call_secs: 12.8 },
				],
				analysis: { transcript_summary: 'Dana Fox asked for the opening hours by text and to be kept as a contact.' },
			});
			// The receptionist did not know her.
			expect(conversation.dynamic_variables).toMatchObject({ caller_number: DANA, known_customer: false, customer_name: '', recent_calls: 1 });
			const completed = (conversation.deliveries as Array<Record<string, any>>).find((d) => d.eventType === 'conversation.completed');
			expect(completed).toMatchObject({ outcome: 'delivered', response: { status: 200 } });

			const [sms] = await smsSent(since, DANA);
			expect(sms.body).toEqual({ type: 'smsmessage', from: '+441632960001', to: DANA, body: 'Hi Dana, our opening hours are Monday to Friday, 9:00 to 17:30. - Acme Widgets' });
			const [entry] = await admin.waitForRequests({ api: 'pbx', method: 'POST', pathPrefix: '/api/v1/customers/me/phonebook', since }, (r) => r.status === 201);
			expect(entry.body).toEqual({ type: 'phonebookentry', name: 'Dana Fox', phoneNumber: DANA });

			const runs = await n8n.waitForExecutions(ID.afterCall, before + 1);
			const run = runs[runs.length - 1];
			expect(runError(run)).toBeUndefined();
			expect(nodeResult(run, 'After-call assistant').json).toEqual([
				{ output: `Added Dana Fox (${DANA}) to the phone book and texted them our opening hours (SMS PENDING).` },
			]);
			// Exactly one SMS and one new contact.
			await new Promise((r) => setTimeout(r, 1000));
			expect((await admin.requests({ api: 'pbx', method: 'POST', since })).map((r) => r.path).sort()).toEqual(['/api/v1/customers/me/phonebook', SMS_PATH]);
		});

		test(`AI receptionist: the answer time over ${TIMED_CALLS} calls (p50, p99), every one within timeout_ms`, async () => {
			await admin.post('/pbx/calls/incoming', { from: ALICE, callerIdName: 'ALICE J', outcome: 'ANSWERED' });
			const loadBefore = os.loadavg().map((l) => Number(l.toFixed(2)));
			const samples: Array<{ elapsedMs: number; waitedMs: number }> = [];
			for (let i = 0; i < TIMED_CALLS; i++) {
				const conversation = await admin.post('/convai/conversations', { agent_id: AGENT, completed: false });
				const [delivery] = conversation.deliveries as Array<Record<string, any>>;
				expect([i, delivery.outcome, delivery.attempts.length, conversation.dynamic_variables.customer_name]).toEqual([i, 'delivered', 1, 'Alice Jones']);
				samples.push({ elapsedMs: delivery.response.elapsedMs, waitedMs: conversation.waitedMs });
			}
			const elapsed = samples.map((s) => s.elapsedMs);
			const summary = {
				what: 'AI receptionist recipe answering conversation.initiating (sandbox delivery elapsedMs: POST to n8n until its answer), scripted model, 3 model turns and 4 tool calls per call',
				n8nVersion: n8n.n8nVersion,
				target: TARGET,
				timeoutMs,
				calls: TIMED_CALLS,
				p50: percentile(elapsed, 50),
				p90: percentile(elapsed, 90),
				p99: percentile(elapsed, 99),
				min: Math.min(...elapsed),
				max: Math.max(...elapsed),
				mean: Math.round(elapsed.reduce((a, b) => a + b, 0) / elapsed.length),
				machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown cpu'}, Node ${process.version} (test), n8n on its own Node`,
				loadAverage: { before: loadBefore, after: os.loadavg().map((l) => Number(l.toFixed(2))) },
				measuredAt: new Date().toISOString(),
				command: `node scripts/n8n/e2e.mjs --target ${TARGET} --skip-build aiTools`,
				samples: elapsed,
			};
			console.log(`AI receptionist over ${TIMED_CALLS} calls (n8n ${n8n.n8nVersion}): p50 ${summary.p50} ms, p90 ${summary.p90} ms, p99 ${summary.p99} ms, min ${summary.min} ms, max ${summary.max} ms, mean ${summary.mean} ms (timeout_ms ${timeoutMs}; load average ${loadBefore.join(' ')} before)`);
			const dir = path.join(REPO_ROOT, 'test-results', 'e2e');
			fs.mkdirSync(dir, { recursive: true });
			fs.writeFileSync(path.join(dir, `ai-receptionist-timings-n8n${n8n.major}.json`), `${JSON.stringify(summary, null, 2)}\n`);
			expect(summary.max).toBeLessThan(timeoutMs);
		});
	});

	test('n8n logged no activation or trigger problem', () => {
		expect(n8n.logs()).not.toMatch(/There was a problem (activating|with the trigger)|Failed to load package|Error loading/i);
	});
});

function loadAiExample(file: string): Record<string, any> {
	return JSON.parse(fs.readFileSync(path.join(AI_EXAMPLES, file), 'utf8')) as Record<string, any>;
}
