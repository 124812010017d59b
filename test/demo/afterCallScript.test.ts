/**
 * The after-call assistant's scripts (examples/ai-agents/scripted-model.json) act only on what
 * the caller said: the agent's own lines and the summary do not count, a caller whose number is
 * unknown gets nothing, and every SMS greets with a name the caller gave or none at all.
 * (test/sandbox/llm.test.ts has the four main cases; these are the edges the demo's guide relies on.)
 */
import fs from 'node:fs';
import path from 'node:path';

import type { Sandbox } from '../../sandbox/index';
import { startSandbox } from '../../sandbox/index';

type Json = Record<string, any>;

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const SYSTEM =
	'You follow up on calls to Acme Widgets after the voice agent hangs up. Our opening hours are Monday to Friday, 9:00 to 17:30; our address is 1 Engine Street, Leeds.';
const TOOLS = ['Send_SMS', 'Add_to_phone_book'].map((name) => ({
	type: 'function',
	function: { name, description: name, parameters: { type: 'object', properties: {}, additionalProperties: true } },
}));

async function post(url: string, body: unknown): Promise<Json> {
	const res = await fetch(`${sandbox.url}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-any' }, body: JSON.stringify(body) });
	expect(res.status).toBeLessThan(300);
	return (await res.json()) as Json;
}

/** The recipe's prompt for one call, and what the scripted model does first. */
async function firstAnswer(options: { number?: string; known?: string; summary?: string; transcript: string }) {
	const scripts = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'ai-agents', 'scripted-model.json'), 'utf8')) as unknown;
	await post('/_sandbox/llm/scripts', scripts);
	const prompt = `The call conv_1 has ended (20 s, success).\nCaller number: ${options.number ?? '+447700900777'}\nKnown customer: ${options.known ?? 'false'}\nSummary: ${options.summary ?? 'none'}\nTranscript:\n${options.transcript}`;
	const answer = await post('/llm/v1/chat/completions', {
		model: 'scripted-model',
		stream: false,
		messages: [
			{ role: 'system', content: SYSTEM },
			{ role: 'user', content: prompt },
		],
		tools: TOOLS,
	});
	const message = answer.choices[0].message as Json;
	return { text: message.content as string | null, calls: ((message.tool_calls ?? []) as Json[]).map((c) => [c.function.name, JSON.parse(c.function.arguments)]) };
}

describe("the after-call assistant's scripts use only what the caller said", () => {
	test("the demo's call (Dana Fox, step 6 of npm run demo): added and texted, greeted by her name", async () => {
		const { calls } = await firstAnswer({
			summary: 'Dana Fox asked for the opening hours by text.',
			transcript:
				'agent: Hello, thanks for calling Acme Widgets. How can I help?\nuser: Hi, this is Dana Fox. Could you text me your opening hours?\nagent: Of course, Dana. I will send you a text right after this call.',
		});
		expect(calls).toEqual([
			['Add_to_phone_book', { Name: 'Dana Fox', Phone_Number: '+447700900777' }],
			['Send_SMS', { To: '+447700900777', Message: 'Hi Dana, our opening hours are Monday to Friday, 9:00 to 17:30. - Acme Widgets' }],
		]);
	});

	test('the agent offering the hours by text, or naming itself, is not the caller asking or giving a name', async () => {
		const { calls, text } = await firstAnswer({
			transcript: "agent: Hi, this is Acme Widgets. I can text you our opening hours if you like.\nuser: No thanks, I'd like to check on my order.",
		});
		expect(calls).toEqual([]);
		expect(text).toMatch(/^Nothing to do/);
	});

	test('the summary alone does not count as a request', async () => {
		const { calls } = await firstAnswer({ summary: 'The caller may want the opening hours by text.', transcript: 'user: Hello, is my order on its way?' });
		expect(calls).toEqual([]);
	});

	test('"the opening hours by SMS" is a request too; no name given: a greeting without a blank', async () => {
		const { calls } = await firstAnswer({ transcript: 'user: Could you send me the opening hours by SMS, please?' });
		expect(calls).toEqual([['Send_SMS', { To: '+447700900777', Message: 'Hello, our opening hours are Monday to Friday, 9:00 to 17:30. - Acme Widgets' }]]);
		for (const [, args] of calls) expect(String(args.Message)).not.toMatch(/Hi ,|Hello ,/);
	});

	test('a caller whose number is unknown: nothing sent, nobody added, and the answer says why', async () => {
		const { calls, text } = await firstAnswer({ number: 'unknown', known: 'unknown', transcript: 'user: Hi, this is Dana Fox. Could you text me your opening hours?' });
		expect(calls).toEqual([]);
		expect(text).toMatch(/number is unknown/);
	});
});
