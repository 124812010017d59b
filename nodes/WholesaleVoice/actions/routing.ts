import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Params, ResourceSpec, ValidationIssue } from '../../shared/operation';
import { isBlank } from '../../shared/validation';
import { e164Digits, numberField, numberIssue, numberPath, wholesaleItems } from '../fields';
import { validateNumberConfiguration } from '../validation/routing';
import { amount } from '../validation/common';

/**
 * Number routing: a configuration of `routing` (required), `options`, `rules` and `meta`.
 * Written with a builder (routes of blocks, each block with only its type's parameters) or as
 * raw JSON; both go through the same validator before anything is sent, because a write
 * changes how live calls are routed at once.
 */

const showFor = (...types: string[]) => ({ show: { type: types } });

/**
 * Highest stage number of the builder. Stages are tried one after another, each waiting for its
 * timeout, so a real plan has a handful; the cap keeps a mistyped 1e10 from being dropped or
 * costing seconds of work, and leaves room for numbering with gaps (10, 20, 30).
 */
export const MAX_STAGE = 100;

const BLOCK_PARAMETERS: INodeProperties[] = [
	{
		displayName: 'Type',
		name: 'type',
		type: 'options',
		default: 'sip',
		options: [
			{ name: 'Busy', value: 'busy', description: 'Play busy' },
			{ name: 'Fax', value: 'fax', description: 'Receive faxes by e-mail or HTTP; a fax number has no other block' },
			{ name: 'PSTN', value: 'pstn', description: 'Forward to a phone number (charged as an outbound call)' },
			{ name: 'SIP Endpoint', value: 'sip', description: 'Send to a SIP URI' },
			{ name: 'SIP Registration', value: 'reg', description: 'Send to a registered SIP user; skipped when not registered' },
			{ name: 'Teams', value: 'teams', description: 'Microsoft Teams, routed from the number' },
		],
	},
	{
		displayName: 'Stage',
		name: 'stage',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_STAGE, numberPrecision: 0 },
		default: 1,
		description: `Stages are tried in order; blocks of one stage ring together. 1 to ${MAX_STAGE}; gaps are closed (stages 1 and 5 are sent as the first and second).`,
	},
	{
		displayName: 'Endpoint',
		name: 'endpoint',
		type: 'string',
		default: '',
		placeholder: '%e164@pbx.example.com:5060',
		description: 'SIP: user@host[:port][;transport=tcp], %e164 or %ukn stand for the number. Fax: an e-mail address or an HTTP POST URL.',
		displayOptions: showFor('sip', 'fax'),
	},
	{ displayName: 'User', name: 'user', type: 'string', default: '', description: 'The SIP registration user', displayOptions: showFor('reg') },
	{ displayName: 'Number', name: 'number', type: 'string', default: '', placeholder: '447700900123', description: 'E.164 number to call', displayOptions: showFor('pstn') },
	{
		displayName: 'Fax Delivery',
		name: 'method',
		type: 'options',
		default: 'mail',
		options: [
			{ name: 'E-Mail', value: 'mail' },
			{ name: 'HTTP POST', value: 'http' },
		],
		displayOptions: showFor('fax'),
	},
	{
		displayName: 'SRTP (SDES)',
		name: 'sdes',
		type: 'options',
		default: '',
		options: [
			{ name: 'API Default', value: '' },
			{ name: 'None', value: 'none', description: 'SIP endpoints only' },
			{ name: 'Optional', value: 'optional' },
			{ name: 'Required', value: 'required' },
		],
		displayOptions: showFor('sip', 'reg'),
	},
	{
		displayName: 'Opus',
		name: 'opus',
		type: 'options',
		default: '',
		options: [
			{ name: 'API Default', value: '' },
			{ name: 'Always (With G.722 and G.711)', value: 'always' },
			{ name: 'Never', value: 'never' },
			{ name: 'Only', value: 'only' },
		],
		displayOptions: showFor('sip', 'reg'),
	},
	{
		displayName: 'Zone',
		name: 'zone',
		type: 'options',
		default: '',
		options: [
			{ name: 'LON', value: 'lon' },
			{ name: 'None', value: '' },
			{ name: 'NY', value: 'ny' },
			{ name: 'SJ', value: 'sj' },
			{ name: 'SLO', value: 'slo' },
		],
		description: 'Calls entering in this zone go here first; a stage with a zoned endpoint needs one without a zone too',
		displayOptions: showFor('sip'),
	},
	{ displayName: 'Max Cost per Minute', name: 'maxcpm', type: 'string', default: '', description: 'In the billing currency', displayOptions: showFor('pstn') },
	{ displayName: 'Max Connection Cost', name: 'maxcpc', type: 'string', default: '', description: 'With Max Cost per Minute', displayOptions: showFor('pstn') },
	{ displayName: 'Caller ID', name: 'cli', type: 'string', default: '', description: 'The CLI presented; the caller\'s by default', displayOptions: showFor('pstn') },
	{ displayName: 'Trunk', name: 'trunk', type: 'string', default: '', placeholder: '123456-L002', description: 'Trunk for billing and CDRs of the forwarded leg', displayOptions: showFor('pstn') },
	{ displayName: 'Delay (Seconds)', name: 'delay', type: 'number', typeOptions: { minValue: 0, numberPrecision: 0 }, default: 0, description: 'Wait before this leg starts; 0 for none' },
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 0,
		description: 'Seconds to wait for an answer; 0 for the default',
		displayOptions: showFor('sip', 'reg', 'pstn', 'teams'),
	},
];

const builderFields: INodeProperties[] = [
	{
		displayName: 'Routes',
		name: 'routes',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Route',
		default: {},
		displayOptions: { show: { mode: ['builder'] } },
		description: 'One route per rule; "default" applies when no rule does',
		options: [
			{
				displayName: 'Route',
				name: 'route',
				values: [
					{ displayName: 'Rule', name: 'rule', type: 'string', default: 'default', description: '"default", or the name of a rule defined under Rules (a-z, 0-9 and _)' },
					{
						displayName: 'Blocks',
						name: 'blocks',
						type: 'fixedCollection',
						typeOptions: { multipleValues: true },
						placeholder: 'Add Block',
						default: {},
						options: [{ displayName: 'Block', name: 'block', values: BLOCK_PARAMETERS }],
					},
				],
			},
		],
	},
	{
		displayName: 'Additional Sections',
		name: 'sections',
		type: 'collection',
		placeholder: 'Add Section',
		default: {},
		displayOptions: { show: { mode: ['builder'] } },
		options: [
			{ displayName: 'Meta (JSON)', name: 'meta', type: 'json', default: '{}', description: 'Free-form data kept with the number (about 512 bytes), not shown in the portal' },
			{ displayName: 'Meta Key', name: 'metaKey', type: 'string', default: '', description: 'Searchable key of the meta data, at most 40 characters' },
			{ displayName: 'Options (JSON)', name: 'options', type: 'json', default: '{}', description: 'The options section, as the API takes it' },
			{ displayName: 'Rules (JSON)', name: 'rules', type: 'json', default: '{}', description: 'Time-dependent rules by name, e.g. {"office_hours": [{"dow": [1,2,3,4,5], "time": ["0900","1700"]}]}' },
		],
	},
	{
		displayName: 'Configuration (JSON)',
		name: 'configuration',
		type: 'json',
		default: '{\n  "routing": {\n    "default": [[{ "type": "sip", "endpoint": "%e164@pbx.example.com" }]]\n  }\n}',
		displayOptions: { show: { mode: ['json'] } },
		description: 'The whole configuration: routing (required), options, rules, meta',
	},
];

function parseJson(field: string, value: unknown): { value?: unknown; issue?: ValidationIssue } {
	if (typeof value !== 'string') return { value };
	if (value.trim() === '') return { value: undefined };
	try {
		return { value: JSON.parse(value) as unknown };
	} catch (error) {
		return { issue: { field, problem: `it is not valid JSON (${(error as Error).message})`, rule: 'a JSON object' } };
	}
}

const BLOCK_KEYS = BLOCK_PARAMETERS.map((p) => p.name).filter((name) => name !== 'stage');

/** Amounts the API takes as JSON numbers (the docs' example: `"maxcpm": 0.02`), typed as text in the builder. */
const AMOUNTS = ['maxcpm', 'maxcpc'];

/**
 * A builder value as the API takes it: numbers as numbers, an amount typed as a number as one
 * (anything else is left as typed, for the validator to name), an E.164 number as digits.
 */
function blockValue(parameter: INodeProperties, value: unknown): unknown {
	if (parameter.type === 'number') return Number(value);
	if (AMOUNTS.includes(parameter.name)) return amount(value) ?? value;
	return parameter.name === 'number' ? e164Digits(value) : value;
}

/** A builder block as the API takes it: only its type's parameters, empty ones left out. */
function blockOf(block: IDataObject): IDataObject {
	const allowed = BLOCK_PARAMETERS.filter((p) => !p.displayOptions || (p.displayOptions.show?.type as string[]).includes(String(block.type)));
	const out: IDataObject = {};
	for (const parameter of allowed) {
		const value = block[parameter.name];
		if (parameter.name === 'stage' || !BLOCK_KEYS.includes(parameter.name) || isBlank(value)) continue;
		if ((parameter.name === 'delay' || parameter.name === 'timeout') && Number(value) === 0) continue;
		out[parameter.name] = blockValue(parameter, value) as IDataObject[string];
	}
	return out;
}

/** The configuration a set operation sends, and any JSON that could not be read. */
export function configurationOf(params: Params): { configuration?: IDataObject; issues: ValidationIssue[] } {
	if (params.mode === 'json') {
		const parsed = parseJson('Configuration (JSON)', params.configuration);
		return parsed.issue ? { issues: [parsed.issue] } : { configuration: parsed.value as IDataObject, issues: [] };
	}
	const found: ValidationIssue[] = [];
	const routing: IDataObject = {};
	const ruleOfRoute = new Map<string, number>();
	const routes = ((params.routes as IDataObject | undefined)?.route ?? []) as IDataObject[];
	for (const [at, route] of routes.entries()) {
		const field = `Routes > Route ${at + 1} > Rule`;
		// Left out, the field is its default; typed blank, it is a mistake: read as "default" it would replace the default route.
		const rule = route.rule === undefined || route.rule === null ? 'default' : String(route.rule).trim();
		if (rule === '') {
			found.push({ field, problem: 'it is empty (an expression that gave no rule name?)', rule: '"default", or the name of a rule defined under Rules; a blank is not taken as "default"' });
			continue;
		}
		if (ruleOfRoute.has(rule)) {
			// Two routes with one key would overwrite each other in the JSON object: one route's blocks would silently vanish.
			found.push({ field, problem: `"${rule}" is also the rule of route ${ruleOfRoute.get(rule)}`, rule: 'one route per rule: put every block of a rule in one route, staged with Stage' });
			continue;
		}
		ruleOfRoute.set(rule, at + 1);
		const byStage = new Map<number, IDataObject[]>();
		for (const block of ((route.blocks as IDataObject | undefined)?.block ?? []) as IDataObject[]) {
			const stage = Number(block.stage ?? 1);
			byStage.set(stage, [...(byStage.get(stage) ?? []), blockOf(block)]);
		}
		// The stages in order of their numbers, gaps closed: what matters is the sequence.
		routing[rule] = [...byStage.keys()].sort((a, b) => a - b).map((stage) => byStage.get(stage) as IDataObject[]);
	}
	const configuration: IDataObject = { routing };
	const sections = (params.sections ?? {}) as IDataObject;
	for (const name of ['options', 'rules'] as const) {
		const parsed = parseJson(`Additional Sections > ${name[0].toUpperCase()}${name.slice(1)} (JSON)`, sections[name]);
		if (parsed.issue) found.push(parsed.issue);
		else if (parsed.value && Object.keys(parsed.value as object).length) configuration[name] = parsed.value as IDataObject;
	}
	const meta = parseJson('Additional Sections > Meta (JSON)', sections.meta);
	if (meta.issue) found.push(meta.issue);
	const metaObject = { ...((meta.value as IDataObject | undefined) ?? {}), ...(isBlank(sections.metaKey) ? {} : { key: String(sections.metaKey) }) };
	if (Object.keys(metaObject).length) configuration.meta = metaObject;
	return { configuration, issues: found };
}

export const routing: ResourceSpec = {
	value: 'numberRouting',
	name: 'Number Routing',
	description: 'How calls to a number are routed (changes live routing at once)',
	operations: [
		{
			value: 'remove',
			name: 'Remove Configuration',
			action: 'Remove number routing, changing live routing',
			description: 'Remove a number\'s configuration (routing stops), keeping the number on the account. Changes live routing at once.',
			fields: [numberField],
			validate: (p) => numberIssue('Number', p.number),
			request: (p) => ({ method: 'DELETE', ...numberPath(p, '/config'), emptyBody: 'allowed' }),
			output: wholesaleItems,
		},
		{
			value: 'set',
			name: 'Set Configuration',
			action: 'Set number routing, changing live routing',
			description:
				'Write a number\'s routing configuration (replaces the current one; checked against every routing rule first). Changes live routing at once.',
			fields: [
				numberField,
				{
					displayName: 'Write With',
					name: 'mode',
					type: 'options',
					default: 'builder',
					options: [
						{ name: 'Builder', value: 'builder', description: 'Routes of SIP, registration, PSTN, Teams, fax and busy blocks' },
						{ name: 'JSON', value: 'json', description: 'The whole configuration as JSON' },
					],
				},
				...builderFields,
			],
			validate: (p, env) => {
				const { configuration, issues } = configurationOf(p);
				return [
					...numberIssue('Number', p.number),
					...issues,
					...(configuration ? validateNumberConfiguration(configuration, { accountId: env.variables.ACCOUNT }) : []),
				];
			},
			request: (p) => ({ method: 'PUT', ...numberPath(p, '/config'), body: configurationOf(p).configuration }),
			output: (response, p) => [{ number: e164Digits(p.number), ...(wholesaleItems(response)[0] as object), configuration: configurationOf(p).configuration ?? null }],
		},
	],
};
