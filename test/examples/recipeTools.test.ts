/**
 * What a recipe's tool tells a model is what the tool gives. Every tool node of the recipes in
 * examples/ (MCP server, AI Agent tools) runs here through n8n's execution code against the
 * sandbox, with the parameters of the recipe and each `$fromAI` answered by the example its own
 * description gives ("e.g. …") or, where it gives none, by a value below. Then:
 * - every field of the record that the tool description names, as a word, is in every item;
 * - a description that speaks of E.164 says what is E.164, and that is so (an answer's field, or
 *   the input the model gives);
 * - a description that gives an order ("oldest first") is the order of the items.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters, INodeType } from 'n8n-workflow';

import { HostedPbx } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { WholesaleVoice } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import type { Sandbox } from '../../sandbox';
import { fakeClockForFile } from '../harness/clock';
import { runNode } from '../harness/n8n';
import { sandboxForFile } from '../harness/sandboxForFile';
import { pbxCredentials } from '../nodes/HostedPbx/pbxTestKit';
import { wholesaleCredentials } from '../nodes/WholesaleVoice/wholesaleKit';

const time = fakeClockForFile();
let sandbox: Sandbox;
sandboxForFile((started) => (sandbox = started));

/**
 * Besides the demo data: two calls of the last hour from the number the recipes' examples give (an
 * order to see), and a contact saved in national form, as the phone book keeps what it was given.
 */
beforeEach(async () => {
	const post = async (path: string, body: IDataObject, auth?: string) => {
		const response = await fetch(`${sandbox.url}${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {}) },
			body: JSON.stringify(body),
		});
		expect(response.status).toBeLessThan(300);
	};
	for (const minutesAgo of [40, 10]) {
		await post('/_sandbox/pbx/calls/incoming', { from: '+447700900001', outcome: 'ANSWERED', duration: 60, created: new Date(time.clock.now() - minutesAgo * 60_000).toISOString() });
	}
	const { username, password } = pbxCredentials(sandbox).hostedPbxApi;
	await post('/api/v1/customers/me/phonebook', { type: 'phonebookentry', name: 'Dana Fox', phoneNumber: '020 7946 0112' }, `${username}:${password}`);
});

const EXAMPLES = join(__dirname, '..', '..', 'examples');
const PACKAGE = 'n8n-nodes-telephony-platform.';

interface RecipeNode {
	name: string;
	type: string;
	parameters: INodeParameters;
}

/** Every tool node of this package in the recipes, with the file it is in. */
const tools = ['', 'ai-agents', 'wholesale'].flatMap((folder) =>
	readdirSync(join(EXAMPLES, folder))
		.filter((file) => file.endsWith('.json'))
		.flatMap((file) => {
			const workflow = JSON.parse(readFileSync(join(EXAMPLES, folder, file), 'utf8')) as { nodes?: RecipeNode[] };
			return (workflow.nodes ?? []).filter((node) => node.type.startsWith(PACKAGE) && node.type.endsWith('Tool')).map((node) => ({ recipe: join(folder, file), node }));
		}),
);

/** `$fromAI` values for descriptions that give no example, by recipe tool and key. */
const ANSWERS: Record<string, Record<string, string>> = {
	'Send SMS': { Message: 'We are open Monday to Friday, 9:00 to 17:30. - Acme Widgets' },
	send_sms: { text: 'Your parcel leaves today. - Acme Widgets' },
	// The day of a report: yesterday (a whole day of seeded calls), within the last 90 days whatever the date.
	cdrs_for_day: { day: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) },
};

/**
 * What each description that speaks of E.164 means by it: the answer's fields whose every value is
 * E.164, or `input` where only the number the model gives must be.
 */
const E164: Record<string, string[] | 'input'> = {
	'Recent calls': 'input',
};

const E164_NUMBER = /^\+[1-9]\d{6,14}$/;

/** The `$fromAI` calls of a parameter value: key and description. */
function fromAiCalls(value: string): Array<{ key: string; description: string }> {
	const calls: Array<{ key: string; description: string }> = [];
	const inner = /^=\{\{\s*([\s\S]*)\s*\}\}$/.exec(value)?.[1];
	if (!inner || !inner.includes('$fromAI')) return calls;
	// The recipe's own expression, run with a $fromAI that notes its arguments.
	new Function('$fromAI', `return ${inner};`)((key: string, description = '') => {
		calls.push({ key, description });
		return '';
	});
	return calls;
}

/** The example a `$fromAI` description gives: "e.g. +447700900001" gives +447700900001. */
function exampleOf(description: string): string | undefined {
	return /\be\.g\. ([^\s,;]+)/.exec(description)?.[1];
}

/** The parameters with each `$fromAI` expression replaced by its answer. */
function answered(tool: string, parameters: INodeParameters): INodeParameters {
	const walk = (value: unknown): unknown => {
		if (typeof value === 'string') {
			const [call, ...more] = fromAiCalls(value);
			if (!call) return value;
			expect(more).toEqual([]);
			const answer = ANSWERS[tool]?.[call.key] ?? exampleOf(call.description);
			if (answer === undefined) throw new Error(`${tool}: $fromAI('${call.key}') gives no example; add its answer to ANSWERS`);
			return answer;
		}
		if (Array.isArray(value)) return value.map(walk);
		if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
		return value;
	};
	const { descriptionType: _type, toolDescription: _description, ...rest } = parameters;
	return walk(rest) as INodeParameters;
}

function nodeFor(type: string): { node: INodeType; credentials: Record<string, ICredentialDataDecryptedObject> } {
	if (type === `${PACKAGE}hostedPbxTool`) return { node: new HostedPbx(), credentials: pbxCredentials(sandbox) };
	if (type === `${PACKAGE}wholesaleVoiceTool`) return { node: new WholesaleVoice(), credentials: wholesaleCredentials(sandbox) };
	throw new Error(`no runner for ${type}`);
}

/** The record fields a description names: the words that are keys of what the tool's operation answers (Raw). */
function namedFields(description: string, rawKeys: Set<string>): string[] {
	return [...new Set(description.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])].filter((word) => rawKeys.has(word));
}

/** A field the description says some records lack: "speedDial (where it has one)". */
const optional = (description: string, field: string) => new RegExp(`\\b${field} \\(where [^)]*\\)`).test(description);

test('the recipes have tool nodes to check', () => {
	expect(tools.map(({ node }) => node.name).sort()).toEqual(
		['Add to phone book', 'Credit status', 'Phone book', 'Recent calls', 'Send SMS', 'calls_in_progress', 'cdrs_for_day', 'lookup_caller', 'recent_calls', 'send_sms'].sort(),
	);
});

describe.each(tools.map(({ recipe, node }) => [`${recipe} › ${node.name}`, node] as const))('%s', (_name, recipeNode) => {
	const description = String(recipeNode.parameters.toolDescription ?? '');

	async function run(output?: 'raw') {
		const { node, credentials } = nodeFor(recipeNode.type);
		const parameters = answered(recipeNode.name, recipeNode.parameters);
		const run = await time.clock.finish(runNode({ node, parameters: output ? { ...parameters, output } : parameters, credentials }), { stepMs: 5_000, maxAdvanceMs: 600_000 });
		expect(run.error).toBeUndefined();
		return run.items.map((item) => item.json);
	}

	test('its description says what it does, and its $fromAI examples are accepted', async () => {
		expect(description.length).toBeGreaterThan(20);
		expect((await run()).length).toBeGreaterThan(0);
	});

	test('every field of the record its description names is in every item it gives', async () => {
		const items = await run();
		const raw = await run('raw');
		const rawKeys = new Set([...raw, ...items].flatMap((item) => Object.keys(item)));
		const missing = namedFields(description, rawKeys).filter((field) => (optional(description, field) ? items.every((item) => !(field in item)) : items.some((item) => !(field in item))));
		expect(missing).toEqual([]);
	});

	test('what it calls E.164 is E.164', async () => {
		if (!/E\.164/.test(description)) return;
		const claim = E164[recipeNode.name];
		expect(claim).toBeDefined();
		if (claim === 'input') {
			const inputs = JSON.stringify(recipeNode.parameters).match(/\$fromAI\([^)]*E\.164[^)]*\)/g) ?? [];
			expect(inputs.length).toBeGreaterThan(0);
			return;
		}
		const items = await run();
		const wrong = items.flatMap((item) => (claim ?? []).filter((field) => !E164_NUMBER.test(String(item[field]))).map((field) => `${field}: ${String(item[field])}`));
		expect(wrong).toEqual([]);
	});

	test('the order it gives is the order of the items', async () => {
		const order = /oldest first/i.test(description) ? 1 : /most recent|newest first|latest first/i.test(description) ? -1 : 0;
		if (!order) return;
		const started = (await run()).map((item) => Date.parse(String(item.started)));
		expect(started.every((t) => !Number.isNaN(t))).toBe(true);
		expect(started).toEqual([...started].sort((a, b) => order * (a - b)));
	});
});
