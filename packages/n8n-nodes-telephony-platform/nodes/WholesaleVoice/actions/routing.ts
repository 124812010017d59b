import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Params, ResourceSpec, ValidationIssue } from '../../shared/operation';
import { isBlank } from '../../shared/validation';
import {
	collectionField,
	numericField,
	optionsField,
	rowsField,
	shownFor,
	textField,
} from '../../shared/fields';
import { e164Digits, firstItem, numberField, numberIssues, numberPath, operation } from '../fields';
import { validateNumberConfiguration } from '../validation/routing';
import { amount } from '../validation/common';

/** Number routing, written with a builder (routes of blocks) or as JSON; both are validated before a write, which changes live routing at once. */

const showFor = (...types: string[]) => shownFor('type', ...types);

/** Highest stage of the builder: a real plan has a handful; the cap bounds a mistyped 1e10 and leaves room for gaps (10, 20, 30). */
export const MAX_STAGE = 100;

const BLOCK_PARAMETERS: INodeProperties[] = [
	optionsField('Type', 'type', 'sip', [
		['Busy', 'busy', 'Play busy'],
		['Fax', 'fax', 'Receive faxes by e-mail or HTTP; a fax number has no other block'],
		['PSTN', 'pstn', 'Forward to a phone number (charged as an outbound call)'],
		['SIP Endpoint', 'sip', 'Send to a SIP URI'],
		['SIP Registration', 'reg', 'Send to a registered SIP user; skipped when not registered'],
		['Teams', 'teams', 'Microsoft Teams, routed from the number'],
	]),
	numericField(
		'Stage',
		'stage',
		1,
		{ minValue: 1, maxValue: MAX_STAGE, numberPrecision: 0 },
		{
			description: `Stages are tried in order; blocks of one stage ring together. 1 to ${MAX_STAGE}; gaps are closed (stages 1 and 5 are sent as the first and second).`,
		},
	),
	textField(
		'Endpoint',
		'endpoint',
		'SIP: user@host[:port][;transport=tcp], %e164 or %ukn stand for the number. Fax: an e-mail address or an HTTP POST URL.',
		{
			placeholder: 'e.g. %e164@pbx.example.com:5060',
			...showFor('sip', 'fax'),
		},
	),
	textField('User', 'user', 'The SIP registration user', showFor('reg')),
	textField('Number', 'number', 'E.164 number to call', {
		placeholder: 'e.g. 447700900555',
		...showFor('pstn'),
	}),
	optionsField(
		'Fax Delivery',
		'method',
		'mail',
		[
			['E-Mail', 'mail'],
			['HTTP POST', 'http'],
		],
		showFor('fax'),
	),
	optionsField(
		'SRTP (SDES)',
		'sdes',
		'',
		[
			['API Default', ''],
			['None', 'none', 'SIP endpoints only'],
			['Optional', 'optional'],
			['Required', 'required'],
		],
		showFor('sip', 'reg'),
	),
	optionsField(
		'Opus',
		'opus',
		'',
		[
			['API Default', ''],
			['Always (With G.722 and G.711)', 'always'],
			['Never', 'never'],
			['Only', 'only'],
		],
		showFor('sip', 'reg'),
	),
	optionsField(
		'Zone',
		'zone',
		'',
		[
			['LON', 'lon'],
			['None', ''],
			['NY', 'ny'],
			['SJ', 'sj'],
			['SLO', 'slo'],
		],
		{
			description:
				'Calls entering in this zone go here first; a stage with a zoned endpoint needs one without a zone too',
			...showFor('sip'),
		},
	),
	textField('Max Cost per Minute', 'maxcpm', 'In the billing currency', showFor('pstn')),
	textField('Max Connection Cost', 'maxcpc', 'With Max Cost per Minute', showFor('pstn')),
	textField('Caller ID', 'cli', "The CLI presented; the caller's by default", showFor('pstn')),
	textField('Trunk', 'trunk', 'Trunk for billing and CDRs of the forwarded leg', {
		placeholder: 'e.g. 123456-L002',
		...showFor('pstn'),
	}),
	numericField(
		'Delay (Seconds)',
		'delay',
		0,
		{ minValue: 0, numberPrecision: 0 },
		{ description: 'Wait before this leg starts; 0 for none' },
	),
	numericField(
		'Timeout (Seconds)',
		'timeout',
		0,
		{ minValue: 0, numberPrecision: 0 },
		{
			description: 'Seconds to wait for an answer; 0 for the default',
			...showFor('sip', 'reg', 'pstn', 'teams'),
		},
	),
];

const builderFields: INodeProperties[] = [
	rowsField(
		'Routes',
		'routes',
		['Route', 'route'],
		[
			textField(
				'Rule',
				'rule',
				'"default", or the name of a rule defined under Rules (a-z, 0-9 and _)',
				{ default: 'default' },
			),
			rowsField('Blocks', 'blocks', ['Block', 'block'], BLOCK_PARAMETERS, {
				placeholder: 'Add Block',
			}),
		],
		{
			placeholder: 'Add Route',
			...shownFor('mode', 'builder'),
			description: 'One route per rule; "default" applies when no rule does',
		},
	),
	collectionField(
		'Additional Sections',
		'sections',
		'Add Section',
		[
			{
				displayName: 'Meta (JSON)',
				name: 'meta',
				type: 'json',
				default: '{}',
				description:
					'Free-form data kept with the number (about 512 bytes), not shown in the portal',
			},
			textField('Meta Key', 'metaKey', 'Searchable key of the meta data, at most 40 characters'),
			{
				displayName: 'Options (JSON)',
				name: 'options',
				type: 'json',
				default: '{}',
				description: 'The options section, as the API takes it',
			},
			{
				displayName: 'Rules (JSON)',
				name: 'rules',
				type: 'json',
				default: '{}',
				description:
					'Time-dependent rules by name, e.g. {"office_hours": [{"dow": [1,2,3,4,5], "time": ["0900","1700"]}]}',
			},
		],
		shownFor('mode', 'builder'),
	),
	{
		displayName: 'Configuration (JSON)',
		name: 'configuration',
		type: 'json',
		default:
			'{\n  "routing": {\n    "default": [[{ "type": "sip", "endpoint": "%e164@pbx.example.com" }]]\n  }\n}',
		...shownFor('mode', 'json'),
		description: 'The whole configuration: routing (required), options, rules, meta',
	},
];

function parseJson(field: string, value: unknown): { value?: unknown; issue?: ValidationIssue } {
	if (typeof value !== 'string') return { value };
	if (value.trim() === '') return { value: undefined };
	try {
		return { value: JSON.parse(value) as unknown };
	} catch (error) {
		return {
			issue: {
				field,
				problem: `it is not valid JSON (${(error as Error).message})`,
				rule: 'a JSON object',
			},
		};
	}
}

/** Amounts the API takes as JSON numbers (the docs' example: `"maxcpm": 0.02`), typed as text in the builder. */
const AMOUNTS = ['maxcpm', 'maxcpc'];

/** A builder value as the API takes it: numbers as numbers, an amount typed as a number as one (else as typed, for the validator), an E.164 number as digits. */
function blockValue(parameter: INodeProperties, value: unknown): unknown {
	if (parameter.type === 'number') return Number(value);
	if (AMOUNTS.includes(parameter.name)) return amount(value) ?? value;
	return parameter.name === 'number' ? e164Digits(value) : value;
}

/** A builder block as the API takes it: only its type's parameters, empty ones left out. */
function blockOf(block: IDataObject): IDataObject {
	const allowed = BLOCK_PARAMETERS.filter(
		(p) =>
			!p.displayOptions || (p.displayOptions.show?.type as string[]).includes(String(block.type)),
	);
	const out: IDataObject = {};
	for (const parameter of allowed) {
		const value = block[parameter.name];
		if (parameter.name === 'stage' || isBlank(value)) continue;
		if ((parameter.name === 'delay' || parameter.name === 'timeout') && Number(value) === 0)
			continue;
		out[parameter.name] = blockValue(parameter, value) as IDataObject[string];
	}
	return out;
}

/** The configuration a set operation sends, and any JSON that could not be read. */
export function configurationOf(params: Params): {
	configuration?: IDataObject;
	issues: ValidationIssue[];
} {
	if (params.mode === 'json') {
		const parsed = parseJson('Configuration (JSON)', params.configuration);
		return parsed.issue
			? { issues: [parsed.issue] }
			: { configuration: parsed.value as IDataObject, issues: [] };
	}
	const found: ValidationIssue[] = [];
	const routing: IDataObject = {};
	const ruleOfRoute = new Map<string, number>();
	const routes = ((params.routes as IDataObject | undefined)?.route ?? []) as IDataObject[];
	for (const [at, route] of routes.entries()) {
		const field = `Routes > Route ${at + 1} > Rule`;
		// Left out, the field is its default; typed blank, it is a mistake: read as "default" it would replace the default route.
		const rule =
			route.rule === undefined || route.rule === null ? 'default' : String(route.rule).trim();
		if (rule === '') {
			found.push({
				field,
				problem: 'it is empty (an expression that gave no rule name?)',
				rule: '"default", or the name of a rule defined under Rules; a blank is not taken as "default"',
			});
			continue;
		}
		if (ruleOfRoute.has(rule)) {
			// Two routes with one key would overwrite each other in the JSON object: one route's blocks would silently vanish.
			found.push({
				field,
				problem: `"${rule}" is also the rule of route ${ruleOfRoute.get(rule)}`,
				rule: 'one route per rule: put every block of a rule in one route, staged with Stage',
			});
			continue;
		}
		ruleOfRoute.set(rule, at + 1);
		const byStage = new Map<number, IDataObject[]>();
		for (const block of ((route.blocks as IDataObject | undefined)?.block ?? []) as IDataObject[]) {
			const stage = Number(block.stage ?? 1);
			byStage.set(stage, [...(byStage.get(stage) ?? []), blockOf(block)]);
		}
		// The stages in order of their numbers, gaps closed: what matters is the sequence.
		routing[rule] = [...byStage.keys()]
			.sort((a, b) => a - b)
			.map((stage) => byStage.get(stage) as IDataObject[]);
	}
	const configuration: IDataObject = { routing };
	const sections = (params.sections ?? {}) as IDataObject;
	for (const name of ['options', 'rules'] as const) {
		const parsed = parseJson(
			`Additional Sections > ${name[0].toUpperCase()}${name.slice(1)} (JSON)`,
			sections[name],
		);
		if (parsed.issue) found.push(parsed.issue);
		else if (parsed.value && Object.keys(parsed.value as object).length)
			configuration[name] = parsed.value as IDataObject;
	}
	const meta = parseJson('Additional Sections > Meta (JSON)', sections.meta);
	if (meta.issue) found.push(meta.issue);
	const metaObject = {
		...((meta.value as IDataObject | undefined) ?? {}),
		...(isBlank(sections.metaKey) ? {} : { key: String(sections.metaKey) }),
	};
	if (Object.keys(metaObject).length) configuration.meta = metaObject;
	return { configuration, issues: found };
}

export const routing: ResourceSpec = {
	value: 'numberRouting',
	name: 'Number Routing',
	description: 'How calls to a number are routed (changes live routing at once)',
	operations: [
		operation({
			value: 'remove',
			name: 'Remove Configuration',
			action: 'Remove number routing, changing live routing',
			description:
				"Remove a number's configuration (routing stops), keeping the number on the account. Changes live routing at once.",
			fields: [numberField],
			validate: numberIssues,
			method: 'DELETE',
			path: (p) => numberPath(p, '/config'),
			emptyBody: true,
		}),
		operation({
			value: 'set',
			name: 'Set Configuration',
			action: 'Set number routing, changing live routing',
			description:
				"Write a number's routing configuration (replaces the current one; checked against every routing rule first). Changes live routing at once.",
			fields: [
				numberField,
				optionsField('Write With', 'mode', 'builder', [
					['Builder', 'builder', 'Routes of SIP, registration, PSTN, Teams, fax and busy blocks'],
					['JSON', 'json', 'The whole configuration as JSON'],
				]),
				...builderFields,
			],
			validate: (p, env) => {
				const { configuration, issues } = configurationOf(p);
				return [
					...numberIssues(p),
					...issues,
					...(configuration
						? validateNumberConfiguration(configuration, { accountId: env.variables.ACCOUNT })
						: []),
				];
			},
			method: 'PUT',
			path: (p) => numberPath(p, '/config'),
			body: (p) => configurationOf(p).configuration,
			output: (response, p) => [
				{
					number: e164Digits(p.number),
					...firstItem(response),
					configuration: configurationOf(p).configuration ?? null,
				},
			],
		}),
	],
};
