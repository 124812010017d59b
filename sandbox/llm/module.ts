import type { ServerResponse } from 'node:http';

import type { SandboxRequest } from '../core/http';
import { HttpError, Router, jsonBody, queryValue, send } from '../core/http';
import type { SandboxContext, SandboxModule } from '../core/server';
import { routeHandler } from '../core/server';
import type { TemplateContext } from './template';
import { TemplateError, matchToolName, renderText, renderValue } from './template';
import type { TranscriptionRecord } from './transcription';
import { TRANSCRIPTION_BODY_BYTES, transcribe } from './transcription';
import { currentTime } from '../core/clock';

/**
 * A scripted model (`/llm/v1`): an OpenAI-compatible Chat Completions endpoint (and the
 * Responses endpoint of newer OpenAI Chat Model nodes) that answers from a script a test sets
 * through the admin API instead of thinking: "call tool X with these arguments", "answer with
 * this text, quoting the last tool result". It records every request (the tools offered with
 * their JSON schemas, the messages) so tests can assert on what n8n sent to the model. No real
 * model, no network. It also transcribes audio (`/audio/transcriptions`, see transcription.ts).
 */

export const LLM_PREFIX = '/llm/v1';
export const DEFAULT_MODEL = 'scripted-model';

/** One tool call the model makes: the tool by exact name, `/regex/flags` or loosely (case and punctuation ignored). */
export interface ScriptToolCall {
	tool: string;
	/** Arguments, with `{{ … }}` placeholders (see template.ts). Default `{}`. */
	args?: Record<string, unknown>;
}

/**
 * One answer of the model:
 * - `{tool, args}`: call one tool;
 * - `{calls: [{tool, args}, …], text?}`: call several tools at once (with optional text);
 * - `{text}`: answer with text (the agent's final answer), placeholders filled;
 * - `{error: {status?, message?}}`: fail like a provider does (default 500).
 * Any step may wait `delayMs` before answering (a slow model).
 */
export interface ScriptStep {
	tool?: string;
	args?: Record<string, unknown>;
	calls?: ScriptToolCall[];
	text?: string;
	error?: { status?: number; message?: string; type?: string };
	delayMs?: number;
}

export interface ScriptMatch {
	/** The newest user message contains this text, or matches this `/regex/flags`. */
	user?: string;
	/** The system message contains this text, or matches this `/regex/flags`. */
	system?: string;
	/** One of the offered tools matches this tool reference. */
	tool?: string;
	/** The requested model is this one. */
	model?: string;
}

/**
 * `queue`: steps are used one per request, in order, across every conversation, until none is left.
 * `conversation`: the step is chosen by how many times the model already answered since the
 * newest user message (0 for a fresh agent run), so the script replays for every agent run.
 */
export type ScriptMode = 'queue' | 'conversation';

export interface Script {
	id: string;
	name: string;
	mode: ScriptMode;
	match: ScriptMatch;
	steps: ScriptStep[];
	/** queue mode: the next step. */
	next: number;
	/** Requests this script answered. */
	answered: number;
	createdAt: string;
}

export interface OfferedTool {
	name: string;
	description: string;
	/** The JSON schema of the arguments, as sent. */
	parameters: Record<string, unknown>;
}

export interface ModelMessage {
	role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
	content: string;
	/** assistant: the tool calls it made. */
	toolCalls?: Array<{ id: string; name: string; arguments: string }>;
	/** tool: the call it answers, and the tool that call named. */
	toolCallId?: string;
	toolName?: string;
}

export interface ModelAnswer {
	kind: 'tool_calls' | 'text' | 'error';
	text?: string;
	toolCalls?: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
	status: number;
	error?: string;
}

export interface ModelRequestRecord {
	seq: number;
	time: string;
	/** `chat` (`/chat/completions`) or `responses` (`/responses`). */
	api: 'chat' | 'responses';
	model: string;
	stream: boolean;
	/** The messages as sent, normalised to one shape for both APIs. */
	messages: ModelMessage[];
	tools: OfferedTool[];
	toolChoice: unknown;
	/** The newest user message (handy to tell agent runs apart). */
	user: string;
	/** Which script and step answered; null when none did. */
	script: string | null;
	step: number | null;
	answer: ModelAnswer;
	elapsedMs: number;
	/** The request body as received. */
	body: unknown;
}

export interface LlmSettings {
	/** When set, requests must carry `Authorization: Bearer <apiKey>`; otherwise any Bearer key is accepted. */
	apiKey: string | null;
	/** Added to every answer (ms), before a step's own delayMs. */
	latencyMs: number;
	/** Model ids `GET /models` lists (any id is accepted in requests). */
	models: string[];
	/** The step used when no script has one for a request; null answers 400 (the test sees it). */
	fallback: ScriptStep | null;
	/**
	 * Refuse tool names OpenAI refuses (more than 64 characters, or characters other than
	 * letters, digits, `_` and `-`) with OpenAI's 400, as the real API does.
	 */
	strictToolNames: boolean;
}

export const DEFAULT_LLM_SETTINGS: LlmSettings = {
	apiKey: null,
	latencyMs: 0,
	models: [DEFAULT_MODEL],
	fallback: null,
	strictToolNames: true,
};

const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/** OpenAI's answer to a tool name it refuses, or undefined when every name is fine. */
function toolNameProblem(api: 'chat' | 'responses', tools: OfferedTool[]): string | undefined {
	for (const [i, tool] of tools.entries()) {
		const where = api === 'chat' ? `tools[${i}].function.name` : `tools[${i}].name`;
		if (tool.name.length > 64) {
			return `Invalid '${where}': string too long. Expected a string with maximum length 64, but got a string with length ${tool.name.length} instead.`;
		}
		if (!TOOL_NAME.test(tool.name)) {
			return `Invalid '${where}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
		}
	}
	return undefined;
}

const MAX_RECORDS = 5_000;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function openAiError(status: number, message: string, type = 'invalid_request_error', code: string | null = null): HttpError {
	return new HttpError(status, { error: { message, type, param: null, code } });
}

/** Text of a message content: a string, or the text parts of an array of parts. */
function contentText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) {
		return content
			.map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' ? part.text : ''))
			.join('');
	}
	return content === undefined || content === null ? '' : JSON.stringify(content);
}

function textMatches(text: string, pattern: string | undefined): boolean {
	if (pattern === undefined) return true;
	const regex = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
	return regex ? new RegExp(regex[1], regex[2]).test(text) : text.includes(pattern);
}

function estimateTokens(text: string): number {
	return Math.max(1, Math.ceil(text.length / 4));
}

/** Chat Completions: messages and tools as sent. */
function normaliseChat(body: Json): { messages: ModelMessage[]; tools: OfferedTool[] } {
	const messages: ModelMessage[] = [];
	for (const raw of Array.isArray(body.messages) ? body.messages : []) {
		if (!isRecord(raw)) continue;
		const role = String(raw.role ?? 'user') as ModelMessage['role'];
		const message: ModelMessage = { role, content: contentText(raw.content) };
		if (Array.isArray(raw.tool_calls)) {
			message.toolCalls = raw.tool_calls.filter(isRecord).map((call) => {
				const fn = isRecord(call.function) ? call.function : {};
				return { id: String(call.id ?? ''), name: String(fn.name ?? ''), arguments: String(fn.arguments ?? '') };
			});
		}
		if (typeof raw.tool_call_id === 'string') message.toolCallId = raw.tool_call_id;
		messages.push(message);
	}
	const tools: OfferedTool[] = [];
	for (const raw of Array.isArray(body.tools) ? body.tools : []) {
		if (!isRecord(raw)) continue;
		const fn = isRecord(raw.function) ? raw.function : raw;
		tools.push({
			name: String(fn.name ?? ''),
			description: String(fn.description ?? ''),
			parameters: isRecord(fn.parameters) ? fn.parameters : {},
		});
	}
	return { messages, tools };
}

/** Responses: `instructions` and `input` items folded into the same message shape. */
function normaliseResponses(body: Json): { messages: ModelMessage[]; tools: OfferedTool[] } {
	const messages: ModelMessage[] = [];
	if (typeof body.instructions === 'string' && body.instructions) messages.push({ role: 'system', content: body.instructions });
	const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
	for (const item of input) {
		if (!isRecord(item)) continue;
		const type = item.type ?? 'message';
		if (type === 'message') {
			messages.push({ role: String(item.role ?? 'user') as ModelMessage['role'], content: contentText(item.content) });
		} else if (type === 'function_call') {
			const call = { id: String(item.call_id ?? item.id ?? ''), name: String(item.name ?? ''), arguments: String(item.arguments ?? '') };
			const last = messages[messages.length - 1];
			// One model turn: its text (if any) and the calls that follow it.
			if (last?.role === 'assistant') (last.toolCalls ??= []).push(call);
			else messages.push({ role: 'assistant', content: '', toolCalls: [call] });
		} else if (type === 'function_call_output') {
			messages.push({ role: 'tool', content: contentText(item.output), toolCallId: String(item.call_id ?? '') });
		}
	}
	const tools: OfferedTool[] = [];
	for (const raw of Array.isArray(body.tools) ? body.tools : []) {
		if (!isRecord(raw) || (raw.type !== undefined && raw.type !== 'function')) continue;
		tools.push({
			name: String(raw.name ?? ''),
			description: String(raw.description ?? ''),
			parameters: isRecord(raw.parameters) ? raw.parameters : {},
		});
	}
	return { messages, tools };
}

/** Names each tool message after the tool its call named. */
function linkToolResults(messages: ModelMessage[]): void {
	const names = new Map<string, string>();
	for (const message of messages) {
		for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
		if (message.role === 'tool' && message.toolCallId) message.toolName = names.get(message.toolCallId) ?? '';
	}
}

function templateContext(messages: ModelMessage[], tools: OfferedTool[]): TemplateContext {
	const users = messages.filter((m) => m.role === 'user');
	const parseArgs = (text: string): unknown => {
		try {
			return JSON.parse(text) as unknown;
		} catch {
			return text;
		}
	};
	return {
		toolResults: messages.filter((m) => m.role === 'tool').map((m) => ({ tool: m.toolName ?? '', content: m.content })),
		toolCalls: messages.flatMap((m) => (m.toolCalls ?? []).map((c) => ({ tool: c.name, args: parseArgs(c.arguments) }))),
		user: users[users.length - 1]?.content ?? '',
		system: messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => m.content).join('\n'),
		tools: tools.map((t) => t.name),
	};
}

/**
 * How many times the model answered since the newest user message. n8n's agent replays an
 * answer with several tool calls as one assistant message per call, so assistant messages whose
 * calls came from the same answer (`turnOfCall`: call id → the answer that made it) count once.
 */
function turnsSinceUser(messages: ModelMessage[], turnOfCall: Map<string, number>): number {
	let lastUser = -1;
	messages.forEach((m, i) => {
		if (m.role === 'user') lastUser = i;
	});
	const turns = new Set<string>();
	messages.slice(lastUser + 1).forEach((m, i) => {
		if (m.role !== 'assistant') return;
		const answer = m.toolCalls?.map((c) => turnOfCall.get(c.id)).find((t) => t !== undefined);
		turns.add(answer === undefined ? `message ${i}` : `answer ${answer}`);
	});
	return turns.size;
}

function checkStep(step: unknown, where: string): ScriptStep {
	if (!isRecord(step)) throw new HttpError(400, { message: `${where}: a step is an object` });
	const kinds = ['tool', 'calls', 'text', 'error'].filter((k) => step[k] !== undefined);
	if (kinds.length === 0) throw new HttpError(400, { message: `${where}: give tool (with args), calls, text or error` });
	if (step.tool !== undefined && step.calls !== undefined) throw new HttpError(400, { message: `${where}: give tool or calls, not both` });
	if (step.error !== undefined && kinds.length > 1) throw new HttpError(400, { message: `${where}: an error step has nothing else` });
	if (step.tool !== undefined && (typeof step.tool !== 'string' || step.tool === '')) throw new HttpError(400, { message: `${where}: tool is a tool name or /regex/` });
	if (step.args !== undefined && !isRecord(step.args)) throw new HttpError(400, { message: `${where}: args is an object` });
	if (step.calls !== undefined) {
		if (!Array.isArray(step.calls) || step.calls.length === 0) throw new HttpError(400, { message: `${where}: calls is a non-empty array` });
		step.calls.forEach((call, i) => {
			if (!isRecord(call) || typeof call.tool !== 'string' || call.tool === '') throw new HttpError(400, { message: `${where}: calls[${i}].tool is required` });
			if (call.args !== undefined && !isRecord(call.args)) throw new HttpError(400, { message: `${where}: calls[${i}].args is an object` });
		});
	}
	if (step.text !== undefined && typeof step.text !== 'string') throw new HttpError(400, { message: `${where}: text is a string` });
	if (step.error !== undefined && !isRecord(step.error)) throw new HttpError(400, { message: `${where}: error is an object {status?, message?}` });
	if (step.delayMs !== undefined && !(typeof step.delayMs === 'number' && step.delayMs >= 0)) throw new HttpError(400, { message: `${where}: delayMs is a number of milliseconds` });
	return step as ScriptStep;
}

class ToolNameRefused extends Error {}

export class LlmSandbox implements SandboxModule {
	readonly name = 'llm';
	readonly prefix = LLM_PREFIX;
	/** Room for an audio file as large as OpenAI takes (25 MB) and the form around it. */
	readonly maxBodyBytes = TRANSCRIPTION_BODY_BYTES;
	readonly admin: Router;
	settings: LlmSettings = { ...DEFAULT_LLM_SETTINGS };
	scripts: Script[] = [];
	records: ModelRequestRecord[] = [];
	/** The `/audio/transcriptions` requests; `seq` is shared with `records`, so both sort into one order. */
	transcriptions: TranscriptionRecord[] = [];
	private seq = 0;
	private scriptSeq = 0;
	private callSeq = 0;
	/** Which answer (request seq) made each tool call id, to count model turns in replayed histories. */
	private turnOfCall = new Map<string, number>();
	private timers = new Set<NodeJS.Timeout>();
	private readonly api: Router;

	constructor(_context: SandboxContext) {
		this.api = this.buildApi();
		this.admin = this.buildAdmin();
	}

	info(baseUrl: string): Record<string, unknown> {
		return {
			baseUrl: `${baseUrl}${LLM_PREFIX}`,
			auth: 'Authorization: Bearer <any key> (the OpenAI credential: API Key anything, Base URL this baseUrl)',
			models: this.settings.models,
			scripts: this.scripts.length,
		};
	}

	reset(): void {
		this.clearTimers();
		this.settings = { ...DEFAULT_LLM_SETTINGS, models: [...DEFAULT_LLM_SETTINGS.models] };
		this.scripts = [];
		this.records = [];
		this.transcriptions = [];
		this.seq = 0;
		this.scriptSeq = 0;
		this.callSeq = 0;
		this.turnOfCall.clear();
	}

	close(): void {
		this.clearTimers();
	}

	private clearTimers(): void {
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
	}

	private sleep(ms: number): Promise<void> {
		if (ms <= 0) return Promise.resolve();
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				resolve();
			}, ms);
			timer.unref();
			this.timers.add(timer);
		});
	}

	async handle(req: SandboxRequest, res: ServerResponse): Promise<void> {
		this.authorize(req);
		await routeHandler(this.api)(req, res);
	}

	private authorize(req: SandboxRequest): void {
		const header = String(req.headers.authorization ?? '');
		const key = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
		if (!key) {
			throw openAiError(401, 'You didn\'t provide an API key. Send "Authorization: Bearer <key>" (any key works for the sandbox\'s scripted model).', 'invalid_request_error', 'missing_api_key');
		}
		if (this.settings.apiKey !== null && key !== this.settings.apiKey) {
			throw openAiError(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
		}
		req.principal = 'bearer';
	}

	// ---- scripts ------------------------------------------------------------------------

	addScript(input: unknown): Script {
		const script = this.parseScript(input);
		this.scripts.push(script);
		return script;
	}

	/** A script checked and numbered, not yet added. */
	private parseScript(input: unknown): Script {
		if (!isRecord(input)) throw new HttpError(400, { message: 'A script is a JSON object {steps, mode?, match?, name?}' });
		if (!Array.isArray(input.steps) || input.steps.length === 0) throw new HttpError(400, { message: 'steps is a non-empty array' });
		const mode = input.mode ?? 'queue';
		if (mode !== 'queue' && mode !== 'conversation') throw new HttpError(400, { message: 'mode is queue or conversation' });
		if (input.match !== undefined && !isRecord(input.match)) throw new HttpError(400, { message: 'match is an object {user?, system?, tool?, model?}' });
		for (const key of Object.keys(input.match ?? {})) {
			if (!['user', 'system', 'tool', 'model'].includes(key)) throw new HttpError(400, { message: `match.${key}: unknown (user, system, tool, model)` });
		}
		const steps = input.steps.map((step, i) => checkStep(step, `steps[${i}]`));
		const id = `script_${++this.scriptSeq}`;
		const script: Script = {
			id,
			name: typeof input.name === 'string' && input.name ? input.name : id,
			mode,
			match: (input.match as ScriptMatch | undefined) ?? {},
			steps,
			next: 0,
			answered: 0,
			createdAt: new Date(currentTime()).toISOString(),
		};
		return script;
	}

	private matches(script: Script, model: string, tools: OfferedTool[], context: TemplateContext): boolean {
		const { match } = script;
		if (match.model !== undefined && match.model !== model) return false;
		if (!textMatches(context.user, match.user)) return false;
		if (!textMatches(context.system, match.system)) return false;
		return match.tool === undefined || matchToolName(match.tool, tools.map((t) => t.name)) !== undefined;
	}

	/** The script and step that answer a request; the queue advances. */
	private pick(model: string, messages: ModelMessage[], tools: OfferedTool[], context: TemplateContext): { script: Script; index: number; step: ScriptStep } | undefined {
		for (const script of this.scripts) {
			if (!this.matches(script, model, tools, context)) continue;
			const index = script.mode === 'queue' ? script.next : turnsSinceUser(messages, this.turnOfCall);
			const step = script.steps[index];
			if (!step) continue;
			if (script.mode === 'queue') script.next += 1;
			script.answered += 1;
			return { script, index, step };
		}
		return undefined;
	}

	private toolCalls(step: ScriptStep, tools: OfferedTool[], context: TemplateContext): Array<{ id: string; name: string; arguments: Record<string, unknown> }> {
		const wanted: ScriptToolCall[] = step.calls ?? (step.tool !== undefined ? [{ tool: step.tool, args: step.args }] : []);
		const names = tools.map((t) => t.name);
		return wanted.map((call) => {
			const name = matchToolName(call.tool, names);
			if (!name) throw new TemplateError(`no offered tool matches "${call.tool}"; the tools offered are: ${names.join(', ') || 'none'}`);
			const args = renderValue(call.args ?? {}, context);
			return { id: `call_sbx_${++this.callSeq}`, name, arguments: isRecord(args) ? args : {} };
		});
	}

	/** Everything both APIs share: normalise, pick the step, build the answer, record. */
	private async answer(api: 'chat' | 'responses', req: SandboxRequest): Promise<{ record: ModelRequestRecord; model: string }> {
		const started = performance.now();
		const body = jsonBody<unknown>(req);
		if (!isRecord(body)) throw openAiError(400, 'The body is a JSON object');
		const model = typeof body.model === 'string' && body.model ? body.model : DEFAULT_MODEL;
		const { messages, tools } = api === 'chat' ? normaliseChat(body) : normaliseResponses(body);
		if (api === 'chat' && messages.length === 0) throw openAiError(400, "'messages' must contain at least one message");
		linkToolResults(messages);
		const context = templateContext(messages, tools);

		let answer: ModelAnswer;
		let picked: ReturnType<LlmSandbox['pick']> = undefined;
		const refused = this.settings.strictToolNames ? toolNameProblem(api, tools) : undefined;
		try {
			if (refused) throw new ToolNameRefused(refused);
			picked = this.pick(model, messages, tools, context);
			const step = picked?.step ?? this.settings.fallback ?? undefined;
			if (!step) {
				const offered = tools.map((t) => t.name).join(', ') || 'none';
				answer = {
					kind: 'error',
					status: 400,
					error: `sandbox scripted model: no script step for this request (${this.scripts.length} script(s); ${turnsSinceUser(messages, this.turnOfCall)} model turn(s) since the user message; tools offered: ${offered}). Set one with POST /_sandbox/llm/script.`,
				};
			} else {
				await this.sleep(this.settings.latencyMs + (step.delayMs ?? 0));
				if (step.error) {
					answer = { kind: 'error', status: step.error.status ?? 500, error: step.error.message ?? 'The scripted model failed on purpose' };
				} else {
					const toolCalls = this.toolCalls(step, tools, context);
					const text = step.text !== undefined ? renderText(step.text, context) : undefined;
					answer = toolCalls.length ? { kind: 'tool_calls', toolCalls, text, status: 200 } : { kind: 'text', text: text ?? '', status: 200 };
				}
			}
		} catch (error) {
			if (error instanceof ToolNameRefused) answer = { kind: 'error', status: 400, error: error.message };
			else if (error instanceof TemplateError) answer = { kind: 'error', status: 400, error: `sandbox scripted model: ${error.message}` };
			else throw error;
		}
		const users = messages.filter((m) => m.role === 'user');
		const seq = ++this.seq;
		for (const call of answer.toolCalls ?? []) this.turnOfCall.set(call.id, seq);
		if (this.turnOfCall.size > 100_000) this.turnOfCall.clear();
		const record: ModelRequestRecord = {
			seq,
			time: new Date(currentTime()).toISOString(),
			api,
			model,
			stream: body.stream === true,
			messages,
			tools,
			toolChoice: body.tool_choice ?? null,
			user: users[users.length - 1]?.content ?? '',
			script: picked?.script.name ?? null,
			step: picked?.index ?? null,
			answer,
			elapsedMs: Math.round(performance.now() - started),
			body,
		};
		this.records.push(record);
		if (this.records.length > MAX_RECORDS) this.records.splice(0, this.records.length - MAX_RECORDS);
		if (answer.kind === 'error') {
			const status = answer.status;
			throw openAiError(status, answer.error ?? 'error', status >= 500 ? 'server_error' : 'invalid_request_error', 'sandbox_script');
		}
		return { record, model };
	}

	private usage(record: ModelRequestRecord): { prompt: number; completion: number } {
		const prompt = estimateTokens(JSON.stringify(record.messages) + JSON.stringify(record.tools));
		const completion = estimateTokens(JSON.stringify(record.answer.toolCalls ?? '') + (record.answer.text ?? ''));
		return { prompt, completion };
	}

	private async chatCompletions(req: SandboxRequest, res: ServerResponse): Promise<void> {
		const { record, model } = await this.answer('chat', req);
		const id = `chatcmpl-sbx${record.seq}`;
		const created = Math.floor(currentTime() / 1000);
		const toolCalls = (record.answer.toolCalls ?? []).map((call) => ({
			id: call.id,
			type: 'function',
			function: { name: call.name, arguments: JSON.stringify(call.arguments) },
		}));
		const content = record.answer.text ?? (toolCalls.length ? null : '');
		const finish = toolCalls.length ? 'tool_calls' : 'stop';
		const { prompt, completion } = this.usage(record);
		const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
		if (!record.stream) {
			send(res, 200, {
				id,
				object: 'chat.completion',
				created,
				model,
				choices: [
					{
						index: 0,
						message: { role: 'assistant', content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), refusal: null },
						logprobs: null,
						finish_reason: finish,
					},
				],
				usage,
				system_fingerprint: 'sandbox',
			});
			return;
		}
		// Streaming: the same answer as Server-Sent Events chunks, then [DONE].
		res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
		const chunk = (delta: Json, finishReason: string | null, extra: Json = {}) =>
			res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...extra })}\n\n`);
		chunk({ role: 'assistant', content: content ?? '' }, null);
		if (toolCalls.length) chunk({ tool_calls: toolCalls.map((call, index) => ({ index, ...call })) }, null);
		chunk({}, finish);
		const body = record.body as Json;
		if (isRecord(body.stream_options) && body.stream_options.include_usage === true) {
			res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
		}
		res.end('data: [DONE]\n\n');
	}

	private async responses(req: SandboxRequest, res: ServerResponse): Promise<void> {
		const peek = jsonBody<Json>(req);
		if (isRecord(peek) && peek.stream === true) {
			throw openAiError(400, 'The sandbox scripted model does not stream on /responses; turn streaming off (or use Chat Completions)');
		}
		const { record, model } = await this.answer('responses', req);
		const output: Json[] = [];
		if (record.answer.text) {
			output.push({
				type: 'message',
				id: `msg_sbx${record.seq}`,
				status: 'completed',
				role: 'assistant',
				content: [{ type: 'output_text', text: record.answer.text, annotations: [] }],
			});
		}
		for (const call of record.answer.toolCalls ?? []) {
			output.push({ type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: JSON.stringify(call.arguments), status: 'completed' });
		}
		if (output.length === 0) {
			output.push({ type: 'message', id: `msg_sbx${record.seq}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: '', annotations: [] }] });
		}
		const { prompt, completion } = this.usage(record);
		send(res, 200, {
			id: `resp_sbx${record.seq}`,
			object: 'response',
			created_at: Math.floor(currentTime() / 1000),
			status: 'completed',
			error: null,
			incomplete_details: null,
			model,
			output,
			parallel_tool_calls: true,
			tool_choice: (record.body as Json).tool_choice ?? 'auto',
			tools: (record.body as Json).tools ?? [],
			usage: { input_tokens: prompt, output_tokens: completion, total_tokens: prompt + completion },
			metadata: {},
		});
	}

	/** `POST /audio/transcriptions`: answered and recorded (errors too), after `latencyMs`. */
	private async transcription(req: SandboxRequest, res: ServerResponse): Promise<void> {
		const started = performance.now();
		const answer = transcribe(String(req.headers['content-type'] ?? ''), req.body);
		await this.sleep(this.settings.latencyMs);
		this.transcriptions.push({ seq: ++this.seq, time: new Date(currentTime()).toISOString(), ...answer.record, elapsedMs: Math.round(performance.now() - started) });
		if (this.transcriptions.length > MAX_RECORDS) this.transcriptions.splice(0, this.transcriptions.length - MAX_RECORDS);
		send(res, answer.status, answer.body, typeof answer.body === 'string' ? { 'Content-Type': 'text/plain; charset=utf-8' } : {});
	}

	private buildApi(): Router {
		const r = new Router();
		const modelRep = (id: string) => ({ id, object: 'model', created: 1_767_225_600, owned_by: 'sandbox' });
		r.add('GET', '/models', (_req, res) => send(res, 200, { object: 'list', data: this.settings.models.map(modelRep) }));
		r.add('GET', '/models/:model', (req, res) => {
			if (!this.settings.models.includes(req.params.model)) throw openAiError(404, `The model '${req.params.model}' does not exist`, 'invalid_request_error', 'model_not_found');
			send(res, 200, modelRep(req.params.model));
		});
		r.add('POST', '/chat/completions', async (req, res) => await this.chatCompletions(req, res));
		r.add('POST', '/responses', async (req, res) => await this.responses(req, res));
		r.add('POST', '/audio/transcriptions', async (req, res) => await this.transcription(req, res));
		return r;
	}

	// ---- admin --------------------------------------------------------------------------

	private scriptRep(script: Script): Json {
		return {
			...script,
			remaining: script.mode === 'queue' ? script.steps.length - script.next : script.steps.length,
		};
	}

	private buildAdmin(): Router {
		const r = new Router();
		r.add('POST', '/script', (req, res) => {
			const body = jsonBody<unknown>(req);
			this.scripts = [];
			send(res, 200, this.scriptRep(this.addScript(body)));
		});
		// One script, or an array of them (e.g. a file of scripts: curl -d @scripts.json).
		r.add('POST', '/scripts', (req, res) => {
			const body = jsonBody<unknown>(req);
			if (!Array.isArray(body)) {
				send(res, 201, this.scriptRep(this.addScript(body)));
				return;
			}
			// All or nothing: every script is checked before any is added.
			const scripts = body.map((script, i) => {
				try {
					return this.parseScript(script);
				} catch (error) {
					if (error instanceof HttpError) throw new HttpError(400, { message: `[${i}]: ${(error.body as { message?: string }).message}` });
					throw error;
				}
			});
			this.scripts.push(...scripts);
			send(res, 201, scripts.map((script) => this.scriptRep(script)));
		});
		r.add('GET', '/scripts', (_req, res) => send(res, 200, this.scripts.map((s) => this.scriptRep(s))));
		r.add('DELETE', '/scripts', (_req, res) => {
			this.scripts = [];
			send(res, 204);
		});
		r.add('DELETE', '/scripts/:id', (req, res) => {
			const index = this.scripts.findIndex((s) => s.id === req.params.id || s.name === req.params.id);
			if (index < 0) throw new HttpError(404, { message: `No script ${req.params.id}` });
			this.scripts.splice(index, 1);
			send(res, 204);
		});
		r.add('GET', '/requests', (req, res) => {
			const since = Number(queryValue(req.query, 'since') ?? 0) || 0;
			const script = queryValue(req.query, 'script');
			const user = queryValue(req.query, 'user');
			send(
				res,
				200,
				this.records.filter((record) => record.seq > since && (!script || record.script === script) && (!user || record.user.includes(user))),
			);
		});
		r.add('DELETE', '/requests', (_req, res) => {
			this.records = [];
			send(res, 204);
		});
		r.add('GET', '/transcriptions', (req, res) => {
			const since = Number(queryValue(req.query, 'since') ?? 0) || 0;
			send(res, 200, this.transcriptions.filter((record) => record.seq > since));
		});
		r.add('DELETE', '/transcriptions', (_req, res) => {
			this.transcriptions = [];
			send(res, 204);
		});
		r.add('GET', '/settings', (_req, res) => send(res, 200, this.settings));
		r.add('POST', '/settings', (req, res) => {
			const body = jsonBody<unknown>(req) ?? {};
			if (!isRecord(body)) throw new HttpError(400, { message: 'A JSON object body is required' });
			const next: LlmSettings = { ...this.settings };
			for (const [key, value] of Object.entries(body)) {
				if (key === 'apiKey') {
					if (value !== null && (typeof value !== 'string' || value === '')) throw new HttpError(400, { message: 'apiKey is a string or null', field: key });
					next.apiKey = value as string | null;
				} else if (key === 'latencyMs') {
					if (typeof value !== 'number' || !(value >= 0)) throw new HttpError(400, { message: 'latencyMs is a non-negative number', field: key });
					next.latencyMs = value;
				} else if (key === 'models') {
					if (!Array.isArray(value) || value.length === 0 || !value.every((m) => typeof m === 'string' && m)) throw new HttpError(400, { message: 'models is a non-empty array of ids', field: key });
					next.models = value as string[];
				} else if (key === 'strictToolNames') {
					if (typeof value !== 'boolean') throw new HttpError(400, { message: 'strictToolNames is true or false', field: key });
					next.strictToolNames = value;
				} else if (key === 'fallback') {
					next.fallback = value === null ? null : checkStep(value, 'fallback');
				} else {
					throw new HttpError(400, { message: `Unknown setting ${key}`, field: key });
				}
			}
			this.settings = next;
			send(res, 200, this.settings);
		});
		return r;
	}
}

export const llmModule = (context: SandboxContext) => new LlmSandbox(context);
