/**
 * Helpers for the AI Agent end-to-end tests (`aiTools.e2e.ts`): workflows of an AI Agent with
 * the OpenAI Chat Model pointed at the sandbox's scripted model and this package's nodes as
 * tools, `$fromAI(...)` parameters, the scripted model's admin API, and percentiles.
 */
import type { SandboxAdmin, SandboxLoggedRequest } from './sandboxAdmin';

export const PKG = 'n8n-nodes-telephony-platform';
export const AGENT_TYPE = '@n8n/n8n-nodes-langchain.agent';
export const MODEL_TYPE = '@n8n/n8n-nodes-langchain.lmChatOpenAi';
/** Version 3 of the AI Agent exists in n8n 1.123 and 2.x (2.x also has 3.1). */
export const AGENT_VERSION = 3;
/** 1.2 speaks Chat Completions; 1.3 uses the Responses API by default. */
export const MODEL_VERSION = 1.2;

export const CREDENTIALS = {
	pbx: { hostedPbxApi: { id: 'sandboxPbxCred01', name: 'Sandbox Hosted PBX' } },
	key: { platformApiKeyApi: { id: 'sandboxKeyCred01', name: 'Sandbox Platform API Key' } },
	llm: { openAiApi: { id: 'sandboxLlmCred01', name: 'Sandbox Scripted Model' } },
	wholesale: { wholesaleVoiceApi: { id: 'e2eWholesaleCred1', name: 'Sandbox Wholesale Voice' } },
};

/**
 * `={{ $fromAI('key', 'description', 'type') }}`, as the editor writes it when a parameter is
 * left to the model (✨), with the description filled in. The quote is one the text does not use.
 */
export function fromAI(key: string, description: string, type: 'string' | 'number' | 'boolean' | 'json' = 'string'): string {
	const quote = ["'", '"', '`'].find((q) => !description.includes(q));
	if (!quote) throw new Error(`description uses every quote: ${description}`);
	return `={{ $fromAI('${key}', ${quote}${description}${quote}, '${type}') }}`;
}

/** What n8n names a tool after its node (`nodeNameToToolName`): runs of other characters become `_`, at most 64. */
export function toolNameOf(nodeName: string): string {
	let name = nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_');
	if (name.length > 64) name = name.slice(0, 64).replace(/[_-]+$/, '');
	return name;
}

/** The name the editor gives a new tool node of an operation: "<action> in <node>". */
export function defaultToolNodeName(action: string, nodeDisplayName: string): string {
	return `${action} in ${nodeDisplayName}`;
}

export interface ToolNodeSpec {
	name: string;
	/** The package node's name, e.g. `hostedPbx` (the tool type is `<package>.hostedPbxTool`). */
	node: string;
	resource: string;
	operation: string;
	parameters?: Record<string, unknown>;
	credentials: Record<string, unknown>;
	/** "Set Manually" with this text; the default is n8n's automatic description. */
	description?: string;
	/** 'continueRegularOutput': a failure goes back to the model as the tool result. */
	onError?: string;
}

export function toolNode(spec: ToolNodeSpec, position: [number, number]): Record<string, unknown> {
	return {
		id: `tool-${toolNameOf(spec.name)}`.slice(0, 60),
		name: spec.name,
		type: `${PKG}.${spec.node}Tool`,
		typeVersion: 1,
		position,
		parameters: {
			...(spec.description !== undefined ? { descriptionType: 'manual', toolDescription: spec.description } : {}),
			resource: spec.resource,
			operation: spec.operation,
			...(spec.parameters ?? {}),
		},
		credentials: spec.credentials,
		...(spec.onError ? { onError: spec.onError } : {}),
	};
}

export function modelNode(name: string, position: [number, number], version = MODEL_VERSION): Record<string, unknown> {
	return {
		id: `model-${toolNameOf(name)}`,
		name,
		type: MODEL_TYPE,
		typeVersion: version,
		position,
		parameters: { model: { __rl: true, mode: 'id', value: 'scripted-model' }, options: {} },
		credentials: CREDENTIALS.llm,
	};
}

/**
 * Manual Trigger → AI Agent (prompt `prompt`), with the scripted model and the tools. Run it
 * with `n8n execute`.
 */
export function agentWorkflow(options: {
	id: string;
	name: string;
	prompt: string;
	system?: string;
	tools: ToolNodeSpec[];
	modelVersion?: number;
}): Record<string, unknown> {
	const tools = options.tools.map((spec, i) => toolNode(spec, [200 + (i % 6) * 220, 260 + Math.floor(i / 6) * 160]));
	return {
		id: options.id,
		name: options.name,
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'agent',
				name: 'AI Agent',
				type: AGENT_TYPE,
				typeVersion: AGENT_VERSION,
				position: [240, 0],
				parameters: { promptType: 'define', text: options.prompt, options: { systemMessage: options.system ?? 'You operate the telephony platform with the tools given.', maxIterations: 40 } },
			},
			modelNode('Scripted model', [0, 260], options.modelVersion),
			...tools,
		],
		connections: {
			Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'Scripted model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
			...Object.fromEntries(options.tools.map((t) => [t.name, { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] }])),
		},
		settings: { executionOrder: 'v1' },
	};
}

// ---- the scripted model's admin API ----------------------------------------------------

export interface ModelMessage {
	role: string;
	content: string;
	toolCalls?: Array<{ id: string; name: string; arguments: string }>;
	toolCallId?: string;
	toolName?: string;
}

export interface ModelRequest {
	seq: number;
	api: 'chat' | 'responses';
	model: string;
	stream: boolean;
	messages: ModelMessage[];
	tools: Array<{ name: string; description: string; parameters: { properties?: Record<string, { type?: string; description?: string }>; required?: string[] } & Record<string, unknown> }>;
	user: string;
	script: string | null;
	step: number | null;
	answer: { kind: string; text?: string; toolCalls?: Array<{ id: string; name: string; arguments: Record<string, unknown> }>; status: number; error?: string };
}

export interface ScriptStep {
	tool?: string;
	args?: Record<string, unknown>;
	calls?: Array<{ tool: string; args?: Record<string, unknown> }>;
	text?: string;
	error?: { status?: number; message?: string };
	delayMs?: number;
}

export async function addScript(
	admin: SandboxAdmin,
	script: { name: string; mode?: 'queue' | 'conversation'; match?: Record<string, string>; steps: ScriptStep[] },
): Promise<void> {
	await admin.post('/llm/scripts', { mode: 'conversation', ...script });
}

export async function modelRequests(admin: SandboxAdmin, filter: { script?: string; since?: number } = {}): Promise<ModelRequest[]> {
	const query = new URLSearchParams(
		Object.entries(filter)
			.filter(([, v]) => v !== undefined)
			.map(([k, v]): [string, string] => [k, String(v)]),
	);
	return await admin.get<ModelRequest[]>(`/llm/requests${query.size ? `?${query}` : ''}`);
}

/** The newest model request's seq (0 when none): "since now" for `modelRequests`. */
export async function lastModelSeq(admin: SandboxAdmin): Promise<number> {
	const all = await modelRequests(admin);
	return all.length ? all[all.length - 1].seq : 0;
}

/**
 * The platform requests made by each tool call of one agent run, read from the sandbox's shared
 * request log: the model's requests are in it too (api `llm`), so what other APIs received
 * between the model request that asked for a call and the next model request belongs to that
 * call (the scripted runs make one call per step).
 */
export function requestsBetweenModelCalls(log: SandboxLoggedRequest[]): SandboxLoggedRequest[][] {
	const windows: SandboxLoggedRequest[][] = [];
	let current: SandboxLoggedRequest[] | undefined;
	for (const entry of [...log].sort((a, b) => a.seq - b.seq)) {
		if (entry.api === 'llm') {
			if (current) windows.push(current);
			current = [];
		} else if (current) {
			current.push(entry);
		}
	}
	return windows;
}

/** The tool message answering a call, parsed when it is JSON. */
export function toolResult(request: ModelRequest, callId: string): { content: string; json: unknown } | undefined {
	const message = request.messages.find((m) => m.role === 'tool' && m.toolCallId === callId);
	if (!message) return undefined;
	try {
		return { content: message.content, json: JSON.parse(message.content) as unknown };
	} catch {
		return { content: message.content, json: undefined };
	}
}

/** Nearest-rank percentile of a list of numbers. */
export function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
	return sorted[rank - 1];
}
