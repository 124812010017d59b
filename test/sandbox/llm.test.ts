/**
 * The sandbox's scripted model (`/llm/v1`): OpenAI-compatible Chat Completions and Responses,
 * answered from scripts set through `/_sandbox/llm`, with every request recorded.
 */
import fs from 'node:fs';
import path from 'node:path';

import type { Sandbox } from '../../sandbox/index';
import { startSandbox } from '../../sandbox/index';
import type { TemplateContext } from '../../sandbox/llm/template';
import { evaluate, matchToolName, renderText, renderValue } from '../../sandbox/llm/template';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

type Json = Record<string, any>;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: 'Bearer sk-anything' }): Promise<{ status: number; body: Json; text: string; type: string }> {
	const response = await fetch(`${sandbox.url}${path}`, {
		method,
		headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	let parsed: Json = {};
	try {
		parsed = text ? (JSON.parse(text) as Json) : {};
	} catch {
		parsed = {};
	}
	return { status: response.status, body: parsed, text, type: response.headers.get('content-type') ?? '' };
}

const admin = (method: string, path: string, body?: unknown) => call(method, `/_sandbox/llm${path}`, body, {});
const chat = (body: Json) => call('POST', '/llm/v1/chat/completions', { model: 'scripted-model', stream: false, ...body });

const TOOLS = [
	{
		type: 'function',
		function: {
			name: 'Get_many_phone_book_entries_in_Hosted_PBX',
			description: 'Get many phone book entries in Hosted PBX',
			parameters: { type: 'object', properties: {}, additionalProperties: false },
		},
	},
	{
		type: 'function',
		function: {
			name: 'Send_an_SMS_in_Hosted_PBX',
			description: 'Send an SMS in Hosted PBX',
			parameters: {
				type: 'object',
				properties: { To: { type: 'string', description: 'The number to text' }, Message: { type: 'string', description: 'The text' } },
				required: ['To', 'Message'],
			},
		},
	},
];

const PHONE_BOOK = JSON.stringify([
	{ id: '1', name: 'Alice Jones', phoneNumber: '+447700900001' },
	{ id: '2', name: 'Bob Smith', phoneNumber: '+447700900002' },
]);

/** A conversation as an agent sends it after one phone book call. */
function afterPhoneBook(user = 'Who is +44 7700 900002?'): Json[] {
	return [
		{ role: 'system', content: 'You are the receptionist of Acme Widgets. Opening hours are 9:00 to 17:30.' },
		{ role: 'user', content: user },
		{ role: 'assistant', content: '', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'Get_many_phone_book_entries_in_Hosted_PBX', arguments: '{}' } }] },
		{ role: 'tool', tool_call_id: 'call_a', content: PHONE_BOOK },
	];
}

describe('the OpenAI-compatible API', () => {
	test('is listed in the startup info, wants a Bearer key, lists its models', async () => {
		expect((sandbox.info() as Json).apis.llm).toEqual(expect.objectContaining({ baseUrl: `${sandbox.url}/llm/v1`, models: ['scripted-model'] }));
		const anonymous = await call('GET', '/llm/v1/models', undefined, {});
		expect(anonymous.status).toBe(401);
		expect(anonymous.body.error).toEqual(expect.objectContaining({ type: 'invalid_request_error', code: 'missing_api_key' }));
		const models = await call('GET', '/llm/v1/models');
		expect(models.body).toEqual({ object: 'list', data: [expect.objectContaining({ id: 'scripted-model', object: 'model' })] });
		expect((await call('GET', '/llm/v1/models/scripted-model')).status).toBe(200);
		expect((await call('GET', '/llm/v1/models/gpt-9')).status).toBe(404);
	});

	test('a set apiKey is enforced', async () => {
		expect((await admin('POST', '/settings', { apiKey: 'sk-right' })).body.apiKey).toBe('sk-right');
		expect((await call('GET', '/llm/v1/models', undefined, { authorization: 'Bearer sk-wrong' })).body.error.code).toBe('invalid_api_key');
		expect((await call('GET', '/llm/v1/models', undefined, { authorization: 'Bearer sk-right' })).status).toBe(200);
	});

	test('without a script step it answers 400 in OpenAI form, naming the tools offered, and records the request', async () => {
		const answer = await chat({ messages: [{ role: 'user', content: 'hi' }], tools: TOOLS });
		expect(answer.status).toBe(400);
		expect(answer.body.error.message).toMatch(/no script step.*Get_many_phone_book_entries_in_Hosted_PBX, Send_an_SMS_in_Hosted_PBX/);
		const [record] = (await admin('GET', '/requests')).body as unknown as Json[];
		expect(record).toEqual(expect.objectContaining({ api: 'chat', script: null, step: null, answer: expect.objectContaining({ kind: 'error', status: 400 }) }));
	});

	test('a tool-call step answers as a chat completion with tool_calls; a text step quotes the tool result', async () => {
		await admin('POST', '/script', { steps: [{ tool: 'phone book', args: {} }, { text: 'Found {{ last_tool_result | count }} entries; Bob is {{ tool:/phone_book/i | where:phoneNumber~07700 900002 | first | get:name }}.' }] });
		const first = await chat({ messages: [{ role: 'user', content: 'Who is +44 7700 900002?' }], tools: TOOLS });
		expect(first.status).toBe(200);
		expect(first.body).toEqual(
			expect.objectContaining({
				object: 'chat.completion',
				model: 'scripted-model',
				choices: [
					{
						index: 0,
						message: {
							role: 'assistant',
							content: null,
							refusal: null,
							tool_calls: [{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'Get_many_phone_book_entries_in_Hosted_PBX', arguments: '{}' } }],
						},
						logprobs: null,
						finish_reason: 'tool_calls',
					},
				],
				usage: expect.objectContaining({ total_tokens: expect.any(Number) }),
			}),
		);
		const second = await chat({ messages: afterPhoneBook(), tools: TOOLS });
		expect(second.body.choices[0]).toEqual(expect.objectContaining({ finish_reason: 'stop', message: expect.objectContaining({ content: 'Found 2 entries; Bob is Bob Smith.' }) }));
		// The queue is used up.
		expect((await chat({ messages: afterPhoneBook(), tools: TOOLS })).status).toBe(400);
		const scripts = (await admin('GET', '/scripts')).body as unknown as Json[];
		expect(scripts[0]).toEqual(expect.objectContaining({ mode: 'queue', next: 2, answered: 2, remaining: 0 }));
	});

	test('arguments are templates: typed when a whole placeholder, text otherwise', async () => {
		await admin('POST', '/script', {
			steps: [
				{
					tool: 'Send_an_SMS_in_Hosted_PBX',
					args: {
						To: '{{ tool:phone book | where:name=Bob Smith | first | get:phoneNumber }}',
						Message: 'Hi {{ tool:phone book | find:name | last | match:^(\\w+) }}, we open until {{ system | match:to (\\d+:\\d+) }}.',
						Count: '{{ last_tool_result | count }}',
					},
				},
			],
		});
		const answer = await chat({ messages: afterPhoneBook(), tools: TOOLS });
		const [toolCall] = answer.body.choices[0].message.tool_calls;
		expect(JSON.parse(toolCall.function.arguments)).toEqual({ To: '+447700900002', Message: 'Hi Bob, we open until 17:30.', Count: 2 });
	});

	test('several tool calls in one step, with text', async () => {
		await admin('POST', '/script', { steps: [{ text: 'Looking both up.', calls: [{ tool: 'phone_book' }, { tool: '/sms/i', args: { To: '+447700900001', Message: 'hello' } }] }] });
		const answer = await chat({ messages: [{ role: 'user', content: 'go' }], tools: TOOLS });
		const message = answer.body.choices[0].message;
		expect(message.content).toBe('Looking both up.');
		expect(message.tool_calls.map((c: Json) => c.function.name)).toEqual(['Get_many_phone_book_entries_in_Hosted_PBX', 'Send_an_SMS_in_Hosted_PBX']);
		expect(new Set(message.tool_calls.map((c: Json) => c.id)).size).toBe(2);
	});

	test('a step naming a tool that is not offered answers 400 with the tools offered', async () => {
		await admin('POST', '/script', { steps: [{ tool: 'Delete_everything' }] });
		const answer = await chat({ messages: [{ role: 'user', content: 'go' }], tools: TOOLS });
		expect(answer.status).toBe(400);
		expect(answer.body.error.message).toMatch(/no offered tool matches "Delete_everything".*Send_an_SMS_in_Hosted_PBX/);
	});

	test('conversation mode replays the script for every agent run; match picks the script', async () => {
		await admin('POST', '/scripts', { name: 'receptionist', mode: 'conversation', match: { system: 'receptionist' }, steps: [{ tool: 'phone book' }, { text: 'receptionist done' }] });
		await admin('POST', '/scripts', { name: 'texter', mode: 'conversation', match: { user: '/^Text /', tool: 'sms' }, steps: [{ text: 'texter done' }] });
		for (const user of ['Who is +447700900001?', 'Who is +447700900002?']) {
			const fresh = await chat({ messages: [{ role: 'system', content: 'You are the receptionist.' }, { role: 'user', content: user }], tools: TOOLS });
			expect(fresh.body.choices[0].message.tool_calls[0].function.name).toBe('Get_many_phone_book_entries_in_Hosted_PBX');
			const after = await chat({ messages: afterPhoneBook(user), tools: TOOLS });
			expect(after.body.choices[0].message.content).toBe('receptionist done');
		}
		const texter = await chat({ messages: [{ role: 'user', content: 'Text Bob' }], tools: TOOLS });
		expect(texter.body.choices[0].message.content).toBe('texter done');
		// No script matches: no system message, and no "Text " user message.
		expect((await chat({ messages: [{ role: 'user', content: 'Hello' }], tools: TOOLS })).status).toBe(400);
		const records = (await admin('GET', '/requests?script=receptionist')).body as unknown as Json[];
		expect(records.map((r) => r.step)).toEqual([0, 1, 0, 1]);
	});

	test('conversation mode: one answer with several calls is one turn, also when the agent replays it one call per message', async () => {
		await admin('POST', '/script', { mode: 'conversation', steps: [{ calls: [{ tool: 'phone book' }, { tool: 'sms', args: { To: '+447700900001', Message: 'hi' } }] }, { text: 'second turn' }] });
		const first = await chat({ messages: [{ role: 'user', content: 'go' }], tools: TOOLS });
		const [a, b] = first.body.choices[0].message.tool_calls as Json[];
		// n8n's agent sends each call back as its own assistant message, followed by its result.
		const replayed = [
			{ role: 'user', content: 'go' },
			{ role: 'assistant', content: '', tool_calls: [a] },
			{ role: 'tool', tool_call_id: a.id, content: PHONE_BOOK },
			{ role: 'assistant', content: '', tool_calls: [b] },
			{ role: 'tool', tool_call_id: b.id, content: '[{"sendStatus":"PENDING"}]' },
		];
		const second = await chat({ messages: replayed, tools: TOOLS });
		expect(second.body.choices[0].message.content).toBe('second turn');
	});

	test('records the tools with their schemas and the messages, tool results named after their tool', async () => {
		await admin('POST', '/script', { mode: 'conversation', steps: [{ tool: 'phone book' }, { text: 'ok' }] });
		await chat({ messages: afterPhoneBook(), tools: TOOLS, tool_choice: 'auto' });
		const [record] = (await admin('GET', '/requests')).body as unknown as Json[];
		expect(record.tools).toEqual([
			{ name: 'Get_many_phone_book_entries_in_Hosted_PBX', description: 'Get many phone book entries in Hosted PBX', parameters: TOOLS[0].function.parameters },
			{ name: 'Send_an_SMS_in_Hosted_PBX', description: 'Send an SMS in Hosted PBX', parameters: TOOLS[1].function.parameters },
		]);
		expect(record.messages.map((m: Json) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
		expect(record.messages[2].toolCalls).toEqual([{ id: 'call_a', name: 'Get_many_phone_book_entries_in_Hosted_PBX', arguments: '{}' }]);
		expect(record.messages[3]).toEqual({ role: 'tool', content: PHONE_BOOK, toolCallId: 'call_a', toolName: 'Get_many_phone_book_entries_in_Hosted_PBX' });
		expect(record).toEqual(expect.objectContaining({ user: 'Who is +44 7700 900002?', toolChoice: 'auto', step: 1, stream: false, body: expect.objectContaining({ tool_choice: 'auto' }) }));
		expect((await admin('GET', `/requests?since=${record.seq}`)).body).toEqual([]);
		expect(((await admin('GET', '/requests?user=nobody')).body as unknown as Json[]).length).toBe(0);
		// The shared request log has it too, with the key redacted.
		const logged = sandbox.context.log.list({ api: 'llm' });
		expect(logged).toEqual([expect.objectContaining({ method: 'POST', path: '/llm/v1/chat/completions', status: 200 })]);
		expect(logged[0].headers.authorization).toBe('Bearer ***');
	});

	test('streams as Server-Sent Events when asked', async () => {
		await admin('POST', '/script', { steps: [{ tool: 'sms', args: { To: '+447700900001', Message: 'hi' } }, { text: 'All done' }] });
		const first = await chat({ messages: [{ role: 'user', content: 'go' }], tools: TOOLS, stream: true, stream_options: { include_usage: true } });
		expect(first.type).toMatch(/text\/event-stream/);
		const events = first.text.split('\n\n').filter(Boolean).map((e) => e.replace(/^data: /, ''));
		expect(events[events.length - 1]).toBe('[DONE]');
		const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as Json);
		expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
		expect(chunks.flatMap((c) => c.choices.map((choice: Json) => choice.delta.tool_calls ?? [])).flat()).toEqual([
			expect.objectContaining({ index: 0, type: 'function', function: { name: 'Send_an_SMS_in_Hosted_PBX', arguments: '{"To":"+447700900001","Message":"hi"}' } }),
		]);
		expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
		expect(chunks[chunks.length - 1].usage).toEqual(expect.objectContaining({ total_tokens: expect.any(Number) }));
		const second = await chat({ messages: [{ role: 'user', content: 'go' }], stream: true });
		expect(second.text).toContain('"content":"All done"');
	});

	test('the Responses API (OpenAI Chat Model 1.3): function calls out, function call outputs in', async () => {
		await admin('POST', '/script', { mode: 'conversation', steps: [{ tool: 'phone book' }, { text: 'Bob is {{ tool:phone book | where:phoneNumber=+447700900002 | first | get:name }}' }] });
		const tools = TOOLS.map((t) => ({ type: 'function', ...t.function, strict: false }));
		const first = await call('POST', '/llm/v1/responses', { model: 'scripted-model', input: [{ role: 'user', content: [{ type: 'input_text', text: 'Who is Bob?' }] }], tools });
		expect(first.body).toEqual(
			expect.objectContaining({
				object: 'response',
				status: 'completed',
				output: [expect.objectContaining({ type: 'function_call', name: 'Get_many_phone_book_entries_in_Hosted_PBX', arguments: '{}', call_id: expect.any(String) })],
				usage: expect.objectContaining({ input_tokens: expect.any(Number) }),
			}),
		);
		const callId = first.body.output[0].call_id;
		const second = await call('POST', '/llm/v1/responses', {
			model: 'scripted-model',
			instructions: 'Be brief.',
			input: [
				{ role: 'user', content: 'Who is Bob?' },
				{ type: 'function_call', call_id: callId, name: 'Get_many_phone_book_entries_in_Hosted_PBX', arguments: '{}' },
				{ type: 'function_call_output', call_id: callId, output: PHONE_BOOK },
			],
			tools,
		});
		expect(second.body.output).toEqual([expect.objectContaining({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Bob is Bob Smith', annotations: [] }] })]);
		const records = (await admin('GET', '/requests')).body as unknown as Json[];
		expect(records.map((r) => r.api)).toEqual(['responses', 'responses']);
		expect(records[1].messages).toEqual([
			{ role: 'system', content: 'Be brief.' },
			{ role: 'user', content: 'Who is Bob?' },
			{ role: 'assistant', content: '', toolCalls: [{ id: callId, name: 'Get_many_phone_book_entries_in_Hosted_PBX', arguments: '{}' }] },
			{ role: 'tool', content: PHONE_BOOK, toolCallId: callId, toolName: 'Get_many_phone_book_entries_in_Hosted_PBX' },
		]);
		expect(records[1].tools[1]).toEqual({ name: 'Send_an_SMS_in_Hosted_PBX', description: 'Send an SMS in Hosted PBX', parameters: TOOLS[1].function.parameters });
	});

	test('an error step fails like a provider; delays and latency slow the answer', async () => {
		await admin('POST', '/settings', { latencyMs: 30 });
		await admin('POST', '/script', { steps: [{ error: { status: 503, message: 'overloaded' } }, { text: 'late', delayMs: 40 }] });
		const failed = await chat({ messages: [{ role: 'user', content: 'go' }] });
		expect(failed.status).toBe(503);
		expect(failed.body.error).toEqual(expect.objectContaining({ message: 'overloaded', type: 'server_error' }));
		const started = Date.now();
		expect((await chat({ messages: [{ role: 'user', content: 'go' }] })).body.choices[0].message.content).toBe('late');
		expect(Date.now() - started).toBeGreaterThanOrEqual(65);
	});

	test('tool names OpenAI refuses (over 64 characters, other characters) get OpenAI\'s 400, unless strictToolNames is off', async () => {
		await admin('POST', '/script', { mode: 'conversation', steps: [{ text: 'fine' }] });
		const long = 'Upgrade_the_operators_of_a_configuration_in_Conversation_Intelligence';
		const tool = (name: string) => ({ type: 'function', function: { name, description: 'x', parameters: { type: 'object', properties: {} } } });
		const tooLong = await chat({ messages: [{ role: 'user', content: 'go' }], tools: [TOOLS[0], tool(long)] });
		expect(tooLong.status).toBe(400);
		expect(tooLong.body.error.message).toBe("Invalid 'tools[1].function.name': string too long. Expected a string with maximum length 64, but got a string with length 69 instead.");
		const spaces = await call('POST', '/llm/v1/responses', { input: 'go', tools: [{ type: 'function', name: 'Send SMS', parameters: {} }] });
		expect(spaces.body.error.message).toMatch(/^Invalid 'tools\[0\]\.name': string does not match pattern/);
		await admin('POST', '/settings', { strictToolNames: false });
		expect((await chat({ messages: [{ role: 'user', content: 'go' }], tools: [tool(long)] })).body.choices[0].message.content).toBe('fine');
	});

	test('a fallback step answers when no script does', async () => {
		await admin('POST', '/settings', { fallback: { text: 'I cannot help with that.' } });
		expect((await chat({ messages: [{ role: 'user', content: 'go' }] })).body.choices[0].message.content).toBe('I cannot help with that.');
	});

	test('bad scripts and settings are refused with the reason', async () => {
		expect((await admin('POST', '/script', { steps: [] })).body.message).toMatch(/steps/);
		expect((await admin('POST', '/script', { steps: [{ tool: 'a', calls: [{ tool: 'b' }] }] })).body.message).toMatch(/not both/);
		expect((await admin('POST', '/script', { steps: [{ nothing: true }] })).body.message).toMatch(/tool .*calls, text or error/);
		expect((await admin('POST', '/script', { mode: 'loop', steps: [{ text: 'x' }] })).body.message).toMatch(/mode/);
		expect((await admin('POST', '/script', { match: { colour: 'red' }, steps: [{ text: 'x' }] })).body.message).toMatch(/colour/);
		expect((await admin('POST', '/settings', { latencyMs: -1 })).status).toBe(400);
		expect((await admin('POST', '/settings', { temperature: 1 })).status).toBe(400);
		await admin('POST', '/script', { steps: [{ text: '{{ tool:nothing }}' }] });
		const answer = await chat({ messages: [{ role: 'user', content: 'go' }] });
		expect(answer.status).toBe(400);
		expect(answer.body.error.message).toMatch(/tool:nothing: no result of a matching tool yet/);
	});

	test('reset and DELETE clear scripts and records', async () => {
		await admin('POST', '/scripts', { name: 'a', steps: [{ text: 'x' }] });
		await admin('POST', '/scripts', { name: 'b', steps: [{ text: 'y' }] });
		expect((await admin('DELETE', '/scripts/a')).status).toBe(204);
		expect(((await admin('GET', '/scripts')).body as unknown as Json[]).map((s) => s.name)).toEqual(['b']);
		await chat({ messages: [{ role: 'user', content: 'go' }] });
		expect((await admin('DELETE', '/requests')).status).toBe(204);
		expect((await admin('GET', '/requests')).body).toEqual([]);
		expect((await admin('DELETE', '/scripts')).status).toBe(204);
		await admin('POST', '/script', { steps: [{ text: 'x' }] });
		await call('POST', '/_sandbox/reset', undefined, {});
		expect((await admin('GET', '/scripts')).body).toEqual([]);
		expect((await admin('GET', '/settings')).body).toEqual({ apiKey: null, latencyMs: 0, models: ['scripted-model'], fallback: null, strictToolNames: true });
	});
});

describe('the template language', () => {
	const context: TemplateContext = {
		toolResults: [
			{ tool: 'Recent_calls', content: JSON.stringify([{ from: '"Caller" <+447700900002>' }, { from: '"ALICE J" <+447700900001>' }]) },
			{ tool: 'Phone_book', content: PHONE_BOOK },
			{ tool: 'Credit_status', content: JSON.stringify([{ accountType: 'PREPAID', balance: 42.5 }]) },
		],
		toolCalls: [{ tool: 'Recent_calls', args: { From: '+447700900001', Limit: 5 } }],
		user: 'Caller number: +447700900555\nTranscript: user: this is Dana Fox, text me please',
		system: 'Opening hours are 9:00 to 17:30.',
		tools: ['Recent_calls', 'Phone_book', 'Credit_status', 'Send_SMS'],
	};

	test.each([
		['{{ tool:Recent_calls | find:from | last | phone }}', '+447700900001'],
		['{{ tool:phone book | where:phoneNumber~{{ args:Recent_calls | get:From }} | first | get:name }}', 'Alice Jones'],
		['{{ tool:Phone_book | where:phoneNumber=+447700900555 | exists }}', 'false'],
		['{{ tool:Phone_book | where:phoneNumber=+447700900555 | first | get:name | default:unknown caller }}', 'unknown caller'],
		['{{ tool:Credit_status | get:0.balance }} GBP', '42.5 GBP'],
		['{{ tool:Credit_status | get:-1.accountType | tojson }}', '"PREPAID"'],
		['{{ last_tool_result | find:balance | first }}', '42.5'],
		['{{ user | match:Caller number: (\\+\\d+) }} / {{ user | match:this is ([A-Z]\\w+ [A-Z]\\w+) }}', '+447700900555 / Dana Fox'],
		['{{ tool:Phone_book | find:name | lines }}', 'Alice Jones\nBob Smith'],
		['{{ user | match:(?:[Tt]his is|[Mm]y name is) ([A-Z][a-z]+) }}', 'Dana'],
		['{{ user | match:[|]?Caller number: (\\+\\d+) | default:none }}', '+447700900555'],
		["{{ 'a \\| b' }}", 'a | b'],
		['{{ tools | count }} tools', '4 tools'],
		['no placeholders', 'no placeholders'],
	])('%s', (template, expected) => {
		expect(renderText(template, context)).toBe(expected);
	});

	test('typed values for whole-placeholder arguments, nested too', () => {
		expect(renderValue({ n: '{{ tool:Phone_book | count }}', ok: '{{ tool:Phone_book | exists }}', list: ['{{ tool:Phone_book | find:name }}'] }, context)).toEqual({
			n: 2,
			ok: true,
			list: [['Alice Jones', 'Bob Smith']],
		});
		expect(renderValue('{{ tool:Phone_book | where:phoneNumber~{{ args:Recent_calls | get:From }} | first }}', context)).toEqual({ id: '1', name: 'Alice Jones', phoneNumber: '+447700900001' });
	});

	test('text filled in is not read again as a template', () => {
		const tricky: TemplateContext = { ...context, toolResults: [{ tool: 'X', content: 'say {{ system }}' }] };
		expect(renderText('{{ last_tool_result }}', tricky)).toBe('say {{ system }}');
	});

	test('unknown sources and filters are errors that say what exists', () => {
		expect(() => evaluate('nothing', context)).toThrow(/unknown source "nothing"/);
		expect(() => evaluate('user | shout', context)).toThrow(/unknown filter "shout"/);
		expect(() => evaluate('tool:Send_SMS', context)).toThrow(/no result of a matching tool yet \(results of: Recent_calls, Phone_book, Credit_status\)/);
	});

	test('tool names match exactly, by /regex/, or loosely', () => {
		const names = ['Send_an_SMS_in_Hosted_PBX', 'Get_many_SMS_messages_in_Hosted_PBX'];
		expect(matchToolName('Send_an_SMS_in_Hosted_PBX', names)).toBe('Send_an_SMS_in_Hosted_PBX');
		expect(matchToolName('/^Get_many_SMS/', names)).toBe('Get_many_SMS_messages_in_Hosted_PBX');
		expect(matchToolName('send an sms', names)).toBe('Send_an_SMS_in_Hosted_PBX');
		expect(matchToolName('SMS messages', names)).toBe('Get_many_SMS_messages_in_Hosted_PBX');
		expect(matchToolName('fax', names)).toBeUndefined();
	});
});

describe("the after-call assistant's script (examples/ai-agents/scripted-model.json) does only what the call supports", () => {
	const system =
		'You follow up on calls to Acme Widgets after the voice agent hangs up. Our opening hours are Monday to Friday, 9:00 to 17:30; our address is 1 Engine Street, Leeds.';
	const tools = ['Send_SMS', 'Add_to_phone_book'].map((name) => ({
		type: 'function',
		function: { name, description: name, parameters: { type: 'object', properties: {}, additionalProperties: true } },
	}));
	/** The prompt the recipe's agent sends (its Prompt field), for one call. */
	const prompt = (known: string, transcript: string) =>
		`The call conv_1 has ended (20 s, success).\nCaller number: +447700900777\nKnown customer: ${known}\nSummary: none\nTranscript:\n${transcript}`;
	const firstAnswer = async (known: string, transcript: string) => {
		const scripts = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'ai-agents', 'scripted-model.json'), 'utf8')) as unknown;
		expect((await admin('POST', '/scripts', scripts)).status).toBeLessThan(300);
		const answer = await chat({ messages: [{ role: 'system', content: system }, { role: 'user', content: prompt(known, transcript) }], tools });
		const message = answer.body.choices[0].message as Json;
		return { text: message.content as string | null, calls: ((message.tool_calls ?? []) as Json[]).map((c) => [c.function.name, JSON.parse(c.function.arguments)]) };
	};

	test('a new caller who gives their name and asks for the opening hours by text: added, and texted once', async () => {
		const { calls } = await firstAnswer('false', 'user: Hi, this is Dana Fox. Could you text me your opening hours?');
		expect(calls).toEqual([
			['Add_to_phone_book', { Name: 'Dana Fox', Phone_Number: '+447700900777' }],
			['Send_SMS', { To: '+447700900777', Message: 'Hi Dana, our opening hours are Monday to Friday, 9:00 to 17:30. - Acme Widgets' }],
		]);
	});

	test('a known caller asking for the hours by text: texted, not added again', async () => {
		const { calls } = await firstAnswer('true', 'user: This is Alice Jones, can you text me your opening hours?');
		expect(calls).toEqual([['Send_SMS', { To: '+447700900777', Message: 'Hello, our opening hours are Monday to Friday, 9:00 to 17:30. - Acme Widgets' }]]);
	});

	test('a new caller who only gives their name: added, no SMS', async () => {
		const { calls } = await firstAnswer('false', 'user: My name is Sam Lee, I wanted to ask about my order.');
		expect(calls).toEqual([['Add_to_phone_book', { Name: 'Sam Lee', Phone_Number: '+447700900777' }]]);
	});

	test('a call that asks for nothing (no name, no text): no tool at all, and the answer says so', async () => {
		const { calls, text } = await firstAnswer('false', "user: Hi, I'd like to check on my order. The number is 55231.");
		expect(calls).toEqual([]);
		expect(text).toMatch(/^Nothing to do/);
	});
});
