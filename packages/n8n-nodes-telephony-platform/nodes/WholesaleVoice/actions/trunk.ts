import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodeProperties,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { wholesaleVoiceApi } from '../../shared/apis';
import type {
	ApiPath,
	ApiResponse,
	OperationContext,
	Params,
	RequestEnvironment,
	ResourceSpec,
} from '../../shared/operation';
import { UnexpectedAnswer, isRecord } from '../../shared/responseShape';
import { shapeOf } from '../../shared/outputShape';
import { createClient } from '../../shared/transport/client';
import {
	booleanField,
	collectionField,
	locatorField,
	optionsField,
	textField,
} from '../../shared/fields';
import { VOICE_PATH, asDisplayed, firstItem, operation, unwrap, wholesaleItems } from '../fields';
import {
	validateTrunkDeletion,
	validateTrunkName,
	validateTrunkType,
	validateTrunkUpdate,
} from '../validation/account';

/** A trunk to create: typed, since it does not exist yet. */
const newTrunkField = textField(
	'Trunk Name',
	'trunk',
	'The trunk name; the account prefix ({ACCOUNT}-) is added when left out',
	{ required: true, placeholder: 'e.g. L002 or 123456-L002' },
);

/** An existing trunk: picked from the account's trunks, or typed. */
export const trunkField = locatorField(
	'Trunk Name',
	'trunk',
	'The trunk; the account prefix ({ACCOUNT}-) is added to a name typed without it',
	'searchTrunks',
	{
		modes: [
			{
				displayName: 'By Name',
				name: 'name',
				type: 'string',
				placeholder: 'e.g. L002 or 123456-L002',
			},
		],
	},
);

/**
 * The trunk list, whose shape the spec does not show: records, names, or an object keyed by name; text, null or a number
 * is an error. A bare name or a map's key becomes the record's `trunk`, the field the API names a trunk by elsewhere.
 */
export function trunkRecords(response: ApiResponse, label = 'Get many trunks'): IDataObject[] {
	const body = unwrap(response.body);
	// A bare name becomes a record; anything else that is no record (null) is passed on as answered, never named "null".
	if (Array.isArray(body)) {
		return body.map((entry: unknown) =>
			typeof entry === 'string' || typeof entry === 'number'
				? { trunk: String(entry) }
				: (entry as IDataObject),
		);
	}
	if (!isRecord(body))
		throw new UnexpectedAnswer(wholesaleVoiceApi.label, label, body, 'a list of trunks');
	return Object.entries(body).map(([trunk, value]) =>
		value && typeof value === 'object'
			? { trunk, ...(value as IDataObject) }
			: { trunk, value: value as string },
	);
}

/** A trunk record's name: `trunk`, as the API names a trunk elsewhere, or `name`. */
const trunkOf = (record: IDataObject): unknown => record.trunk ?? record.name;

/** The trunk list search: the account's active trunks (a new one may take a moment to appear). */
export async function searchTrunks(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const client = createClient(this, wholesaleVoiceApi);
	const names = trunkRecords(
		await client.request({ method: 'GET', path: `${VOICE_PATH}/trunks` }),
		'Search trunks',
	)
		.filter(isRecord)
		.map((trunk) => String(trunkOf(trunk) ?? ''))
		.filter(
			(name) => name !== '' && (!filter || name.toLowerCase().includes(filter.toLowerCase())),
		);
	return { results: names.map((name) => ({ name, value: name })) };
}

/** `{ACCOUNT}-{name}`: the account prefix added when the user typed only the name. */
export function trunkName(value: unknown, environment: RequestEnvironment): string {
	// Spaces at the edges are a typing slip; any other character is kept for the name check to judge.
	const text = String(value ?? '').replace(/^ +| +$/g, '');
	const account = environment.variables.ACCOUNT ?? '';
	return text.startsWith(`${account}-`) ? text : `${account}-${text}`;
}

function trunkPath(value: unknown, environment: RequestEnvironment): ApiPath {
	return {
		path: `${VOICE_PATH}/trunks/{trunk}`,
		pathParams: { trunk: trunkName(value, environment) },
	};
}

/** Statuses that say something about the credential or the service, not about the trunk: asked again later, never read as "no such trunk". */
const NOT_ABOUT_THE_TRUNK = [401, 403, 408, 429];

/**
 * Whether the trunk exists. One PUT both creates and updates, so Create and Update ask first (a typo must not create
 * a trunk, Create must not rewrite one). The spec does not show the answer for no trunk: another 4xx, `{success:
 * false}` (an error with a 2xx code) or an empty record is none; a refused credential, a rate limit or a 5xx fails.
 */
async function trunkExists(context: OperationContext, value: unknown): Promise<boolean> {
	const none = (record: unknown) =>
		record === undefined ||
		record === null ||
		record === '' ||
		(typeof record === 'object' && Object.keys(record).length === 0);
	return await context.client
		.request({ method: 'GET', ...trunkPath(value, context.environment) })
		.then(
			(response) => !none(unwrap(response.body)),
			async (error: NodeApiError) => {
				const status = Number(error.httpCode);
				return (status >= 400 && status < 500 && !NOT_ABOUT_THE_TRUNK.includes(status)) ||
					(status >= 200 && status < 300)
					? false
					: await Promise.reject(error);
			},
		);
}

function trunkRefusal(
	context: OperationContext,
	message: string,
	description: string,
): NodeOperationError {
	return new NodeOperationError(context.node.getNode(), message, {
		itemIndex: context.itemIndex,
		description: `${description} Nothing was written.`,
	});
}

const LIMIT_CATEGORIES: Array<[string, string]> = [
	['out', 'Outbound'],
	['out_international', 'Outbound International'],
	['out_international_hotspot', 'Outbound International Hotspot'],
	['out_per_number', 'Outbound per Number'],
	['in', 'Inbound'],
];

const SWITCHES: Array<[string, string, string]> = [
	[
		'enabled',
		'Enabled',
		'Whether the trunk is enabled at all; takes precedence over the inbound and outbound switches',
	],
	['enable_in', 'Inbound Enabled', 'Whether inbound calls (SIP registration use) are enabled'],
	['enabled_out', 'Outbound Enabled', 'Whether outbound calls are enabled'],
];

/** Every update option of the API: switches, concurrent limits (blank = no limit), rate limits `calls/duration`. */
const updateOptions = collectionField('Options', 'options', 'Add Option', [
	textField('CLI Format', 'cli_format', 'CLI format for inbound calls, as the API names it'),
	...SWITCHES.map(([name, displayName, description]) =>
		booleanField(displayName, name, description, { default: true }),
	),
	...LIMIT_CATEGORIES.map(([key, label]) =>
		textField(
			`Concurrent Limit: ${label}`,
			`limit_concurrent_${key}`,
			'Most concurrent calls; leave empty (or enter null) for no limit',
			{ placeholder: 'e.g. 10' },
		),
	),
	...LIMIT_CATEGORIES.filter(([key]) => key.startsWith('out')).map(([key, label]) =>
		textField(
			`Rate Limit: ${label}`,
			`limit_rate_${key}`,
			'Calls per duration: calls/12h, calls/10s or calls/1s, e.g. 5/10s; leave empty (or enter null) for no limit',
			{ placeholder: 'e.g. 5/10s' },
		),
	),
]);

/** No limit: a limit left empty, null, or typed as the word the rule uses ("or null for no limit"). */
function noLimit(value: unknown): boolean {
	return value === null || /^\s*(null)?\s*$/i.test(String(value));
}

/** What the API gets: switches as 1/0, limits as numbers, no limit as null. */
export function trunkUpdateBody(options: IDataObject): IDataObject {
	const body: IDataObject = {};
	for (const [key, value] of Object.entries(options)) {
		if (typeof value === 'boolean') body[key] = value ? 1 : 0;
		else if (key.startsWith('limit_concurrent_')) body[key] = noLimit(value) ? null : Number(value);
		else if (key.startsWith('limit_rate_'))
			body[key] = noLimit(value) ? null : String(value).trim();
		else body[key] = value;
	}
	return body;
}

const DISPLAY_NAMES: Record<string, string> = Object.fromEntries(
	(updateOptions.options as INodeProperties[]).map((o) => [o.name, `Options > ${o.displayName}`]),
);

/**
 * A trunk as Simplified shows it: its name as the id, its type, switches, CLI format and the limits that are set (none: no
 * limit). The spec does not show the record's fields; the API names a trunk `trunk` wherever it shows one (`name` is read too).
 */
const TRUNK_FIELDS = [
	'trunk',
	'type',
	...(updateOptions.options as INodeProperties[]).map((o) => o.name),
];
const trunkShape = shapeOf(TRUNK_FIELDS, TRUNK_FIELDS.slice(1), trunkOf);

const trunkNameIssues = (p: Params, env: RequestEnvironment) =>
	validateTrunkName('Trunk Name', trunkName(p.trunk, env), env.variables.ACCOUNT);

export const trunk: ResourceSpec = {
	value: 'trunk',
	name: 'Trunk',
	description: 'SIP trunks: IP-authenticated or username and password',
	operations: [
		{
			value: 'create',
			name: 'Create',
			action: 'Create a trunk',
			description:
				'Create a trunk, IP-authenticated or with a SIP username and password (a name already in use is refused). The password of an auth trunk is in this output only: store it now.',
			fields: [
				newTrunkField,
				optionsField('Type', 'type', 'auth', [
					[
						'Username and Password',
						'auth',
						'The SIP password is returned once, in the output of this operation',
					],
					['IP Address', 'IP', "Calls are accepted from the account's IP addresses"],
				]),
			],
			validate: (p, env) => [...trunkNameIssues(p, env), ...validateTrunkType('Type', p.type)],
			run: async (context, p) => {
				const name = trunkName(p.trunk, context.environment);
				if (await trunkExists(context, p.trunk)) {
					throw trunkRefusal(
						context,
						`Trunk ${name} already exists`,
						'Create makes a new trunk only (the same request would change the existing one): use Trunk > Update to change it, or choose another name.',
					);
				}
				const response = await context.client.request({
					method: 'PUT',
					...trunkPath(p.trunk, context.environment),
					body: { type: p.type },
				});
				const record = (unwrap(response.body) ?? {}) as IDataObject;
				return { trunk: name, ...(typeof record === 'object' ? record : { value: record }) };
			},
		},
		{
			value: 'delete',
			name: 'Delete',
			action: 'Delete a trunk',
			description:
				"Delete a trunk; the account's default trunk (the account ID followed by -L001) cannot be deleted",
			fields: [trunkField],
			validate: (p, env) =>
				validateTrunkDeletion('Trunk Name', trunkName(p.trunk, env), env.variables.ACCOUNT),
			// A run, not a request: the output names the trunk in full, which needs the account id.
			run: async (context, p) => {
				const response = await context.client.request({
					method: 'DELETE',
					...trunkPath(p.trunk, context.environment),
					emptyBody: 'allowed',
				});
				return [
					{ ...firstItem(response), deleted: true, trunk: trunkName(p.trunk, context.environment) },
				];
			},
		},
		operation({
			value: 'get',
			name: 'Get',
			action: 'Get a trunk',
			description: 'Get one trunk: its type, switches and limits (never its password)',
			fields: [trunkField],
			validate: trunkNameIssues,
			path: (p, env) => trunkPath(p.trunk, env),
			shape: trunkShape,
		}),
		operation({
			value: 'getAll',
			name: 'Get Many',
			action: 'Get many trunks',
			description:
				'List the active trunks of the account (a new trunk may take a moment to appear)',
			paging: 'client',
			path: `${VOICE_PATH}/trunks`,
			output: (response) => trunkRecords(response),
			shape: trunkShape,
		}),
		{
			value: 'update',
			name: 'Update',
			action: 'Update a trunk',
			description:
				'Switch an existing trunk on or off, inbound or outbound, and set its concurrent and rate limits (a name with no trunk is refused)',
			fields: [trunkField, updateOptions],
			validate: (p, env) => [
				...trunkNameIssues(p, env),
				...asDisplayed(
					validateTrunkUpdate(trunkUpdateBody((p.options ?? {}) as IDataObject)),
					DISPLAY_NAMES,
				),
				...(Object.keys(p.options ?? {}).length
					? []
					: [
							{
								field: 'Options',
								problem: 'no option was chosen',
								rule: 'add at least one option to change',
							},
						]),
			],
			run: async (context, p) => {
				const name = trunkName(p.trunk, context.environment);
				if (!(await trunkExists(context, p.trunk))) {
					throw trunkRefusal(
						context,
						`Trunk ${name} does not exist`,
						'Update changes existing trunks only (the same request to a new name would create a trunk): check the name, or use Trunk > Create.',
					);
				}
				const body = trunkUpdateBody((p.options ?? {}) as IDataObject);
				return wholesaleItems(
					await context.client.request({
						method: 'PUT',
						...trunkPath(p.trunk, context.environment),
						body,
						emptyBody: 'allowed',
					}),
				);
			},
		},
	],
};
