/**
 * The hostile-input battery: every operation of every action node, generated from the specs (a new
 * operation is covered without a new test), run through n8n's execution code against the sandbox.
 *
 * For each operation, a valid example is run first (the baseline: it passes validation and sends).
 * Then each of its fields, and each option of its collections, gets what an attacker or a careless
 * expression sends. A value of the wrong type (an object or list where text is expected, a boolean
 * or NaN in a text, NaN, 1.5, 1e21 or a boolean for a number, a value that is no option, a day
 * that does not exist or an invalid Date, `undefined` in a required, yes/no, number or options
 * field) and text with a control character (a line break too, in a single-line field) or a
 * bidirectional override or isolate must be refused before anything is sent, naming the field, the
 * problem and the rule. A value that would be a hostile path segment (empty, `.`, `..`, `a/b`, `?`,
 * `#`, `%`, control characters) must be refused when the field reaches the path; when it does not
 * (an SMS body), the requests must go to exactly the baseline's paths. An optional text or date
 * left `undefined` must stay unset (never sent as "undefined"); a phone number written with the
 * national trunk `(0)` after its country code must never be sent with the 0 kept; and a Base URL
 * with a query or a fragment must be refused before anything is sent.
 */
import fc from 'fast-check';
import type { IDataObject, INodeProperties, INodePropertyCollection, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox';
import { printFigure } from '../harness/figures';
import type { BatteryRun, OperationUnderTest } from './kit';
import { OPERATIONS, exampleOf, locator, runOperation } from './kit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());

const figures = {
	tried: 0,
	refused: 0,
	refusedByN8n: 0,
	refusedByTheOperation: 0,
	sentToTheSamePaths: 0,
	operations: 0,
	pathBoundFields: 0,
	leftUnset: 0,
	trunkPrefixes: 0,
	baseUrls: 0,
};

/** Values that must never become a path segment. */
const SEGMENT_HOSTILE: Array<[string, unknown]> = [
	['empty', ''],
	['blank', '   '],
	['dot', '.'],
	['dot dot', '..'],
	['parent path', '../x'],
	['nested path', 'a/b'],
	['query', 'a?b=1'],
	['fragment', 'a#b'],
	['encoded dots', '%2e%2e'],
	['encoded slash', 'a%2Fb'],
	['backslash', 'a\\b'],
	['NUL', 'a\u0000b'],
	['line break', 'a\r\nb'],
	['very long', 'x'.repeat(300)],
];

const OBJECT = { t: 1 };

/** An expression given as code, for values JSON cannot write (`new Date("x")`, `undefined`). */
class Code {
	constructor(readonly code: string) {}
}
const UNDEFINED = new Code('undefined');

/** The code of an expression that gives `value`. */
function codeOf(value: unknown): string {
	if (value instanceof Code) return value.code;
	if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
	// `}}` would end n8n's expression early: in text it is written as the escape \u007d, between
	// an object's closing braces as two braces with a space.
	// The line and paragraph separators as escapes too: n8n's expression parser ends a line at them.
	const text = typeof value === 'string' ? JSON.stringify(value).replace(/\}/g, '\\u007d') : JSON.stringify(value).replace(/\}\}/g, '} }');
	return text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * A value as an expression gives it, the way hostile values reach a node in practice (n8n cleans
 * stored parameters of the wrong type, but not what an expression returns).
 */
function viaExpression(value: unknown): string {
	return `={{ ${codeOf(value)} }}`;
}

/** The values as one expression: item i of an execution reads the i-th (through $itemIndex). */
function perItem(values: Array<[string, unknown]>): string {
	return `={{ [${values.map(([, value]) => codeOf(value)).join(', ')}][$itemIndex] }}`;
}

/** Whether n8n shows (and so the node reads) a field for these parameters. */
function shown(field: INodeProperties, parameters: IDataObject): boolean {
	return NodeHelpers.displayParameter(parameters as INodeParameters, field, { typeVersion: 1 }, null, parameters as INodeParameters);
}

/** Text no name, sender, address, ID or body may hold; line breaks and tabs are refused only where a field is one line. */
const TEXT_HOSTILE: Array<[string, string]> = [
	['NUL', 'a\u0000b'],
	['ESC', 'a\u001b[31mb'],
	['DEL', 'a\u007fb'],
	['a C1 control (NEL)', 'a\u0085b'],
	['a right-to-left override', 'Bank\u202E'],
	['a left-to-right embedding', '\u202Aab'],
	['a first-strong isolate', 'a\u2068b'],
];
/** Line breaks, tabs and invisible marks: a message may hold them, a name, sender, address or ID not. */
const LINE_HOSTILE: Array<[string, string]> = [
	['CRLF', 'a\r\nX-Injected: 1'],
	['a tab', 'a\tb'],
	['a right-to-left mark', 'Bank\u200F'],
	['a zero-width space', 'Ac\u200Bme'],
	['a tag character', 'Acme\u{E0041}'],
	['a line separator', 'a\u2028b'],
];

/** Dates that do not exist, or are not dates, that Date would read as some other day. */
const DATE_HOSTILE: Array<[string, unknown]> = [
	['30 February', '2026-02-30'],
	['29 February of a common year', '2025-02-29'],
	['words and a number', 'yesterday 1'],
	['a bare number as text', '12'],
	['hour 24', '2026-11-22T24:00:00Z'],
	['an invalid Date', new Code('new Date("x")')],
	['an invalid DateTime', new Code('DateTime.fromISO("x")')],
];

/** Values of the wrong type for a field, by its declared type: each must be refused. `topLevel` for a field outside collections. */
function typeHostile(field: INodeProperties, topLevel: boolean): Array<[string, unknown]> {
	const options = (field.options ?? []) as Array<{ value?: unknown }>;
	const dynamicOptions = field.typeOptions?.loadOptionsMethod !== undefined || field.typeOptions?.loadOptions !== undefined;
	// undefined would be sent as false, 0, nothing chosen, or no value where one is required.
	const notThere: Array<[string, unknown]> = field.required || (topLevel && ['boolean', 'number', 'options', 'multiOptions'].includes(field.type)) ? [['undefined', UNDEFINED]] : [];
	const text: Array<[string, unknown]> = [
		['true', true],
		['false', false],
		['NaN', Number.NaN],
		['a BigInt', new Code('BigInt(10) ** BigInt(700)')],
		...TEXT_HOSTILE,
		...(field.typeOptions?.rows === undefined ? LINE_HOSTILE : []),
	];
	switch (field.type) {
		case 'string':
			return [...notThere, ['an object', OBJECT], ['a list', [1, 2]], ['an object as text', '[object Object]'], ...text];
		case 'resourceLocator':
			return [...notThere, ['an object', OBJECT], ['a list', [1]], ...text];
		case 'dateTime':
			return [...notThere, ['a list', [2026]], ['a number', 12], ['true', true], ...DATE_HOSTILE];
		case 'number': {
			const { minValue, maxValue, numberPrecision } = field.typeOptions ?? {};
			return [
				...notThere,
				['NaN', Number.NaN],
				['Infinity', Number.POSITIVE_INFINITY],
				['1e309', new Code('1e309')],
				['an absurd magnitude (1e21)', 1e21],
				['true', true],
				['text', 'abc'],
				['an object', OBJECT],
				...(numberPrecision === 0 ? [['a fraction', 1.5] as [string, unknown]] : []),
				...(minValue !== undefined ? [['below the minimum', minValue - 1] as [string, unknown]] : []),
				...(maxValue !== undefined ? [['above the maximum', maxValue + 1] as [string, unknown]] : []),
			];
		}
		case 'boolean':
			return [...notThere, ['text', 'yes'], ['text "false"', 'false'], ['a number', 1], ['null', null], ['an object', OBJECT]];
		case 'options':
			return [
				...notThere,
				['an object', OBJECT],
				['true', true],
				...(dynamicOptions || options.length === 0 ? [] : [['no option', 'not-an-option-value'] as [string, unknown]]),
			];
		case 'multiOptions':
			return [...notThere, ['text', 'x'], ...(dynamicOptions ? [] : [['no option', ['not-an-option-value']] as [string, unknown]])];
		case 'json':
			return [['a right-to-left override in a string', '{"note": "Bank\u202E"}']];
		// A whole collection cannot be an expression in n8n (it stores only objects there): its options are tried one by one below.
		default:
			return [];
	}
}

/** Another valid value of a field, to see whether it reaches the path. */
function alternative(value: unknown): unknown {
	if (typeof value === 'string') return `${value}9`;
	if (value && typeof value === 'object' && (value as IDataObject).__rl) return locator(`${(value as IDataObject).value}9`);
	return undefined;
}

const pathsOf = (run: BatteryRun) => run.requests.map((r) => `${r.method} ${r.path}`);

function describeRun(run: BatteryRun): string {
	return `error: ${run.error?.message ?? 'none'}; requests: ${pathsOf(run).join(', ') || 'none'}`;
}

/**
 * Refused before sending, saying which field, what is wrong and the rule. Every condition is
 * checked, and one expectation per run shows the ones that failed (thousands of runs: Jest's
 * expect() itself was a good part of the battery's time).
 */
function expectRefused(run: BatteryRun, names: string[], what: string): void {
	const message = run.error?.message ?? '';
	const description = run.error?.description ?? '';
	const failed: string[] = [];
	if (run.requests.length !== 0) failed.push(`sent ${run.requests.length} requests`);
	if (run.refusedByN8n) {
		// n8n itself refused to run the node ("Parameter X is required"): nothing was sent either.
		figures.refusedByN8n++;
	} else {
		if (!/^Invalid .+: .+/.test(message)) failed.push('not refused as invalid');
		// A number that is no number is named as written (JSON would show Infinity as "null").
		if (/"null" is not/.test(message)) failed.push('a value named "null"');
		if (!names.some((name) => message.includes(name))) failed.push(`the field (${names.join(' or ')}) not named`);
		if (!/Rule: .+/.test(description)) failed.push('no rule in the description');
		if (!/Nothing was sent\./.test(description)) failed.push('the description does not say nothing was sent');
	}
	if (failed.length) expect({ context: `${what}: ${describeRun(run)}; description: ${description || 'none'}`, failed }).toEqual({ context: expect.any(String), failed: [] });
	figures.refused++;
}

async function attempt(op: OperationUnderTest, parameters: INodeParameters, credentials?: Parameters<typeof runOperation>[3]): Promise<BatteryRun> {
	figures.tried++;
	return await runOperation(sandbox, op, parameters, credentials);
}

/**
 * Values that must each be refused, tried in one n8n execution of as many items: item i gets the
 * i-th value (through an expression on $itemIndex), and Continue On Fail makes each refusal its
 * item's own output. Each item takes the executor's path a run of its own takes (read, check,
 * refuse), without a workflow built and run per value. Where n8n itself refuses the parameters,
 * the node fails outright, or anything at all was sent, each value gets a run of its own, so that
 * what was sent is seen per value.
 */
async function expectEachRefused(op: OperationUnderTest, values: Array<[string, unknown]>, withValue: (expression: string) => INodeParameters, names: string[], label: string): Promise<void> {
	if (!values.length) return;
	const batch = await runOperation(sandbox, op, withValue(perItem(values)), undefined, { items: values.length, continueOnFail: true });
	if (batch.refusedByN8n || batch.error || batch.requests.length > 0) {
		for (const [what, value] of values) expectRefused(await attempt(op, withValue(viaExpression(value))), names, `${label} = ${what}`);
		return;
	}
	values.forEach(([what], index) => {
		figures.tried++;
		const output = batch.items.filter((item) => (item.pairedItem as { item: number } | undefined)?.item === index);
		const error = output.length === 1 && typeof output[0].json.error === 'string' ? { message: output[0].json.error, description: output[0].json.description as string | undefined } : undefined;
		expectRefused({ ...batch, error, requests: [] }, names, `${label} = ${what}`);
	});
}

/** An optional text or date field: left `undefined` by an expression, it stays unset. */
function leftOptional(field: INodeProperties): boolean {
	return !field.required && (field.type === 'string' || field.type === 'dateTime' || field.type === 'resourceLocator');
}

/** `undefined` in an optional field is not refused for being undefined, and is never sent as the text "undefined". */
async function expectUnset(op: OperationUnderTest, parameters: INodeParameters, what: string): Promise<void> {
	const run = await attempt(op, parameters);
	expect({ what, refusedForIt: /it is undefined/.test(run.error?.message ?? ''), sentAsText: JSON.stringify(run.requests).includes('undefined') }).toEqual({
		what,
		refusedForIt: false,
		sentAsText: false,
	});
	figures.leftUnset++;
}

/** A number written `+44 (0) 20…` is refused or sent without the national 0 (`kept` are its digits with the 0). */
async function expectTrunkDropped(op: OperationUnderTest, parameters: INodeParameters, what: string, kept: string): Promise<void> {
	const run = await attempt(op, parameters);
	const sentDigits = JSON.stringify(run.requests).replace(/[\s().+-]/g, '');
	expect({ what, keptTheZero: sentDigits.includes(kept) }).toEqual({ what, keptTheZero: false });
	figures.trunkPrefixes++;
}

describe.each(OPERATIONS.map((op) => [op.name, op] as const))('%s', (_name, op) => {
	test('hostile values of every field are refused before sending, or never change the path', async () => {
		sandbox.reset();
		const example = exampleOf(op);
		const baseline = await runOperation(sandbox, op, example);
		expect({ baseline: describeRun(baseline), sent: baseline.requests.length > 0 && !/^Invalid /.test(baseline.error?.message ?? '') }).toMatchObject({
			sent: true,
		});
		figures.operations++;
		const basePaths = pathsOf(baseline).sort();

		// A Base URL with a query or a fragment would put every path after it.
		for (const tail of ['?x=', '#frag']) {
			const run = await attempt(op, example, (credentials) => ({ ...credentials, baseUrl: `${String(credentials.baseUrl)}${tail}` }));
			expect({ tail, message: run.error?.message ?? 'none', requests: run.requests.length }).toEqual({
				tail,
				message: expect.stringMatching(/^The Base URL of the .+ credential contains a (query|fragment)/),
				requests: 0,
			});
			figures.refused++;
			figures.baseUrls++;
		}

		const asExpression = (field: INodeProperties, expression: string) => (field.type === 'resourceLocator' ? locator(expression) : expression);
		const asValue = (field: INodeProperties, value: unknown) => asExpression(field, viaExpression(value));
		for (const field of op.fields) {
			if (field.type === 'notice' || !shown(field, example)) continue;
			const withField = (expression: string) => ({ ...example, [field.name]: asExpression(field, expression) }) as INodeParameters;
			await expectEachRefused(op, typeHostile(field, true), withField, [field.displayName], field.name);
			if (leftOptional(field)) await expectUnset(op, { ...example, [field.name]: asValue(field, UNDEFINED) } as INodeParameters, field.name);
			const phone = /^\+?([1-9]\d)(\d{5,13})$/.exec(typeof example[field.name] === 'string' ? (example[field.name] as string) : '');
			if (phone) await expectTrunkDropped(op, { ...example, [field.name]: `+${phone[1]} (0) ${phone[2]}` } as INodeParameters, field.name, `${phone[1]}0${phone[2]}`);

			const isText = field.type === 'string' || field.type === 'resourceLocator';
			const current = example[field.name];
			if (!isText || current === undefined) continue;
			const other = await runOperation(sandbox, op, { ...example, [field.name]: alternative(current) } as INodeParameters);
			const formatChecked = /^Invalid /.test(other.error?.message ?? '') && other.requests.length === 0;
			const pathBound = formatChecked || pathsOf(other).sort().join() !== basePaths.join();
			if (pathBound) {
				figures.pathBoundFields++;
				await expectEachRefused(op, SEGMENT_HOSTILE, withField, [field.displayName], field.name);
				continue;
			}
			for (const [what, hostile] of SEGMENT_HOSTILE) {
				const run = await attempt(op, { ...example, [field.name]: asValue(field, hostile) } as INodeParameters);
				if (run.requests.length > 0) {
					// Not a path value (a message text, a name): it may be sent, but only to the baseline's paths.
					expect({ field: field.name, what, paths: pathsOf(run).filter((p) => !basePaths.includes(p)) }).toEqual({ field: field.name, what, paths: [] });
					figures.sentToTheSamePaths++;
				} else {
					figures.refusedByTheOperation++;
				}
			}
		}

		// Every option of a collection, and every value of a fixed collection's rows, gets the same treatment.
		for (const field of op.fields) {
			if (!shown(field, example)) continue;
			if (field.type === 'collection') {
				for (const option of (field.options ?? []) as INodeProperties[]) {
					const withOption = (expression: string) => ({ ...example, [field.name]: { ...((example[field.name] as IDataObject) ?? {}), [option.name]: expression } }) as INodeParameters;
					await expectEachRefused(op, typeHostile(option, false), withOption, [option.displayName], `${field.name}.${option.name}`);
					// An option of a collection is optional whatever its type: undefined leaves it unset.
					if (!option.required && option.type !== 'collection' && option.type !== 'fixedCollection') await expectUnset(op, withOption(viaExpression(UNDEFINED)), `${field.name}.${option.name}`);
				}
			}
			if (field.type === 'fixedCollection') {
				for (const group of (field.options ?? []) as INodePropertyCollection[]) {
					for (const property of group.values) {
						const withRow = (expression: string) => {
							const row = { [property.name]: expression };
							return { ...example, [field.name]: { [group.name]: field.typeOptions?.multipleValues ? [row] : row } } as INodeParameters;
						};
						await expectEachRefused(op, typeHostile(property, false), withRow, [property.displayName], `${field.name}.${group.name}.${property.name}`);
					}
				}
			}
		}
	}, 120_000);
});

describe('path values: any text with a character a segment cannot hold is refused (property-based)', () => {
	const forbidden = fc.constantFrom('/', '?', '#', '%', '\\', '\u0000', '\n', '\r', '\t', '\u007f');
	const hostileSegment = fc
		.tuple(fc.string({ maxLength: 12 }), forbidden, fc.string({ maxLength: 12 }))
		.map(([before, bad, after]) => `${before}${bad}${after}`);
	const cases: Array<[string, string]> = [
		['hostedPbx phoneBook.delete', 'entryId'],
		['hostedPbx endpoint.setDnd', 'endpointId'],
		['wholesaleVoice voice.hangUp', 'callId'],
		['wholesaleVoice trunk.delete', 'trunk'],
		['voiceAgent webhook.delete', 'webhookId'],
		['conversationIntelligence session.getStreamToken', 'sessionId'],
	];
	test.each(cases)('%s, %s', async (name, fieldName) => {
		const op = OPERATIONS.find((candidate) => candidate.name === name)!;
		const field = op.fields.find((candidate) => candidate.name === fieldName)!;
		await fc.assert(
			fc.asyncProperty(hostileSegment, async (segment) => {
				const value = field.type === 'resourceLocator' ? locator(viaExpression(segment)) : viaExpression(segment);
				expectRefused(await attempt(op, { ...exampleOf(op), [fieldName]: value } as INodeParameters), [field.displayName], JSON.stringify(segment));
			}),
			{ numRuns: 40 },
		);
	}, 60_000);
});

describe('structured fields: hand-written hostile cases', () => {
	const op = (name: string) => OPERATIONS.find((candidate) => candidate.name === name)!;
	const cases: Array<[string, string, IDataObject, string[]]> = [
		['routing with no route (JSON)', 'wholesaleVoice numberRouting.set', { mode: 'json', configuration: '{"routing":{}}' }, ['routing']],
		['routing builder with no route', 'wholesaleVoice numberRouting.set', { mode: 'builder', routes: {} }, ['routing']],
		['a route with no stage', 'wholesaleVoice numberRouting.set', { mode: 'json', configuration: '{"routing":{"default":[]}}' }, ['routing.default']],
		['a stage with no block', 'wholesaleVoice numberRouting.set', { mode: 'json', configuration: '{"routing":{"default":[[]]}}' }, ['routing.default[0]']],
		[
			'stage 0 in the builder',
			'wholesaleVoice numberRouting.set',
			{ mode: 'builder', routes: { route: [{ rule: 'default', blocks: { block: [{ type: 'busy', stage: 0 }] } }] } },
			['Stage'],
		],
		['fax mixed with SIP', 'wholesaleVoice numberRouting.set', { mode: 'json', configuration: '{"routing":{"default":[[{"type":"fax","method":"mail","endpoint":"f@example.com"},{"type":"sip","endpoint":"a@b.example"}]]}}' }, ['routing']],
		['routing that is not JSON', 'wholesaleVoice numberRouting.set', { mode: 'json', configuration: '{routing:' }, ['Configuration (JSON)']],
		['an unknown section', 'wholesaleVoice numberRouting.set', { mode: 'json', configuration: '{"routing":{"default":[[{"type":"busy"}]]},"extra":{}}' }, ['extra']],
		['meta larger than 512 bytes', 'wholesaleVoice numberRouting.set', { mode: 'json', configuration: JSON.stringify({ routing: { default: [[{ type: 'busy' }]] }, meta: { note: 'x'.repeat(600) } }) }, ['meta']],
		['an ftp callback', 'wholesaleVoice report.request', { callback: 'ftp://example.com/x' }, ['Callback URL']],
		['a callback that is words', 'wholesaleVoice report.request', { callback: 'not a url' }, ['Callback URL']],
		['a javascript: callback', 'wholesaleVoice prepay.requestSummary', { callback: 'javascript:alert(1)' }, ['Callback URL']],
		['a webhook URL without a host', 'voiceAgent webhook.create', { url: 'https:///path' }, ['URL']],
		['an agent ID with a space', 'voiceAgent webhook.create', { agentId: 'agent one' }, ['Agent ID']],
		['an agent ID that is a path', 'voiceAgent webhook.create', { agentId: '../agents' }, ['Agent ID']],
		['an e911 postal code of letters', 'wholesaleVoice e911.set', { postalCode: 'ABCDE' }, ['postalCode', 'Postal Code']],
		['an e911 street with #', 'wholesaleVoice e911.set', { streetInfo: 'Main St #4' }, ['streetInfo', 'Street']],
		['an e911 state that is not a code', 'wholesaleVoice e911.set', { state: 'Texas' }, ['state', 'State']],
		['a 999 postcode without its in-code', 'wholesaleVoice uk999.set', { postcode: 'LS1' }, ['postcode', 'Postcode']],
		['a port MBN that is a mobile', 'wholesaleVoice port.submit', { mbn: '07700900123' }, ['mbn', 'Main Billing Number']],
		['an SMS endpoint over TLS in http mode', 'wholesaleVoice number.setSmsEndpoint', { mode: 'http', endpoint: 'https://sms.example.com/in' }, ['mode', 'Mode']],
		['an SMS endpoint that is not a URL', 'wholesaleVoice number.setSmsEndpoint', { endpoint: 'sms.example.com' }, ['endpoint', 'Endpoint']],
		['a trunk rate limit in minutes', 'wholesaleVoice trunk.update', { options: { limit_rate_out: '5/1m' } }, ['limit_rate_out', 'Rate']],
		['a notification SMS to a landline-looking text', 'wholesaleVoice notification.addRecipient', { method: 'sms', destination: 'call me' }, ['Recipient']],
		['a Last Event ID with a line break', 'conversationIntelligence session.watchEvents', { lastEventId: '12\r\n13' }, ['Resume After Event ID']],
		['an unknown upgrade mode', 'conversationIntelligence configuration.upgradeOperators', { upgrade: 'everything' }, ['Upgrade']],
		['named upgrade without names', 'conversationIntelligence configuration.upgradeOperators', { upgrade: 'named', operators: ' , ' }, ['Operator Names']],
		['a configuration UUID that is a path', 'conversationIntelligence configuration.upgradeOperators', { configurationId: '../configurations' }, ['Configuration UUID']],
		['a customer of an empty expression', 'hostedPbx phoneBook.get', { customerId: locator('') }, ['Customer']],
		['a speed dial of 0', 'hostedPbx phoneBook.create', { additionalFields: { speedDial: 0 } }, ['Speed Dial']],
		['a speed dial of 1.5', 'hostedPbx phoneBook.create', { additionalFields: { speedDial: 1.5 } }, ['Speed Dial']],
		['a limit of 0', 'hostedPbx phoneBook.getAll', { returnAll: false, limit: 0 }, ['Limit']],
		['a limit of -1', 'wholesaleVoice trunk.getAll', { returnAll: false, limit: -1 }, ['Limit']],
		['a limit of 1.5', 'voiceAgent webhook.getAll', { returnAll: false, limit: 1.5 }, ['Limit']],
		['a limit of NaN', 'wholesaleVoice port.getAll', { returnAll: false, limit: Number.NaN }, ['Limit']],
		['a limit past the Return All cap (1,000,000)', 'wholesaleVoice voice.getCdrs', { returnAll: false, limit: 1_000_000 }, ['Limit']],
		['a max wait of -1', 'wholesaleVoice report.request', { waitForResult: true, maxWaitSeconds: -1 }, ['Max Wait']],
		['an SMS body of an object', 'hostedPbx sms.send', { body: '={{ { t: 1 } }}' }, ['Message', 'Body']],
		['an SMS to of a list', 'hostedPbx sms.send', { to: '={{ ["+447700900123"] }}' }, ['To']],
		['a (0) that follows no country code', 'wholesaleVoice number.allocate', { number: '4420 (0) 7946 0123' }, ['Number']],
		['a request header named "Bad Header:"', 'voiceAgent webhook.create', { additionalFields: { requestHeaders: { pairs: [{ name: 'Bad Header:', value: 'x' }] } } }, ['Request Headers']],
		['a request header without a name', 'voiceAgent webhook.create', { additionalFields: { requestHeaders: { pairs: [{ name: '', value: 'secret' }] } } }, ['Request Headers']],
		['a request header value beyond Latin-1', 'voiceAgent webhook.create', { additionalFields: { requestHeaders: { pairs: [{ name: 'X-Key', value: '\u20ac5' }] } } }, ['Request Headers']],
		['a request header named twice', 'voiceAgent webhook.create', { additionalFields: { requestHeaders: { pairs: [{ name: 'X-Key', value: 'a' }, { name: 'x-key', value: 'b' }] } } }, ['Request Headers']],
	];
	test.each(cases)('%s', async (_what, name, overrides, names) => {
		const target = op(name);
		expectRefused(await attempt(target, { ...exampleOf(target), ...overrides } as INodeParameters), names, _what);
	});
});

afterAll(() => {
	// The README's Figures quote these: printed with TELEPHONY_FIGURES=1 only, so that npm test prints nothing but Jest's lines.
	printFigure(
		`hostile-input battery: ${figures.tried} inputs tried over ${figures.operations} operations (${figures.pathBoundFields} path fields); ` +
			`${figures.refused} refused before sending (${figures.refusedByN8n} of them by n8n's own parameter check, ${figures.baseUrls} Base URLs with a query or fragment); ` +
			`of the text values that are not path values, ${figures.refusedByTheOperation} refused by the operation's own rules and ${figures.sentToTheSamePaths} sent only to the operation's own paths; ` +
			`${figures.leftUnset} optional fields left undefined stayed unset; ${figures.trunkPrefixes} numbers written with a national (0) never sent with it`,
	);
});

test('the battery is large enough to mean something', () => {
	// Runs after the generated cases above (jest runs a file's tests in order).
	expect(figures.tried).toBeGreaterThanOrEqual(400);
	expect(figures.refused).toBeGreaterThanOrEqual(400);
});
