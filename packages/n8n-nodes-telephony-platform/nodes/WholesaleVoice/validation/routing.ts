import type { ValidationIssue } from '../../shared/operation';
import { isRecord } from '../../shared/responseShape';
import {
	describeValue,
	email,
	httpUrl,
	isBlank,
	issues,
	oneOf,
	type Check,
} from '../../shared/validation';
import { e164, phoneNumber } from '../../shared/phoneNumbers';

import { validateTrunkName } from './account';
import {
	amount,
	asRule,
	childPath,
	isText,
	notObject,
	violation,
	wholeNumberAtLeast,
	wrongKind,
} from './common';
import type { RuleId } from './rules';

/** `PUT .../allocated/{NUMBER}/config`: the API rejects the whole configuration for any wrong element, so every issue is collected, each with its path. */

export interface NumberConfigurationOptions {
	/** The account id, to check that a pstn block's trunk belongs to this account. */
	accountId?: string;
}

/** The field named when the configuration as a whole is wrong (it is the node's parameter). */
const CONFIGURATION_FIELD = 'configuration';

const SECTIONS = ['routing', 'options', 'rules', 'meta'] as const;

const BLOCK_TYPES = ['sip', 'reg', 'pstn', 'teams', 'fax', 'busy'] as const;
type BlockType = (typeof BLOCK_TYPES)[number];

/** Parameters every block type takes; `timeout` is then refused by its own rule on busy and fax. */
const COMMON_PARAMETERS = ['type', 'delay', 'timeout'];

const TYPE_PARAMETERS: Record<BlockType, readonly string[]> = {
	sip: ['endpoint', 'sdes', 'opus', 'zone'],
	reg: ['user', 'sdes', 'opus'],
	pstn: ['number', 'maxcpm', 'maxcpc', 'cli', 'trunk'],
	teams: [],
	fax: ['method', 'endpoint'],
	busy: [],
};

const OPUS_MODES = ['never', 'always', 'only'];

/** Rule names: the spec says only that the set is restricted; the public docs name a-z and `_`, their example (`mon__fri_0700__1700`) has digits. */
const RULE_NAME = /^[a-z0-9_]+$/;

/** The time conditions of a rule entry (public API docs), each an array even of one value. */
const RULE_ENTRY_ARRAYS = ['dow', 'time', 'day', 'month'];

/**
 * user@host[:port][;transport=t | :transport=t]; host a DNS name, IPv4 or [IPv6]. The user part takes SIP characters and a `%`
 * before a letter or digit (an escape, or a substitution: `%e164`, `%ukn` and others real configurations use, such as `%did`);
 * the `%` is matched alone so the alternatives stay disjoint and the match linear on long input.
 */
const SIP_ENDPOINT =
	/^(?:%(?=[A-Za-z0-9])|[A-Za-z0-9\-_.!~*'()&=+$,;?/])+@(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)(?::(\d{1,5}))?(?:[;:]transport=(?:udp|tcp|tls))?$/i;

/** Longer than any real endpoint; refusing it up front bounds the regular expression's work. */
const SIP_ENDPOINT_MAX_LENGTH = 512;

const META_MAX_BYTES = 512;
const META_KEY_MAX_LENGTH = 40;

/** Where a valid block sits and what the whole-configuration rules (zones, fax) need to know of it. */
interface BlockSummary {
	path: string;
	type: BlockType;
	zoned: boolean;
}

/** null counts as absent for the optional sections: a lenient reading, as the spec does not say (see docs). */
const present = (value: unknown) => value !== undefined && value !== null;

function isBlockType(value: unknown): value is BlockType {
	return typeof value === 'string' && (BLOCK_TYPES as readonly string[]).includes(value);
}

export function validateNumberConfiguration(
	config: unknown,
	options: NumberConfigurationOptions = {},
): ValidationIssue[] {
	const parsed = parseConfiguration(config);
	if ('issue' in parsed) return [parsed.issue];
	const configuration = parsed.value;

	const found: ValidationIssue[] = [];
	for (const key of Object.keys(configuration)) {
		if (!(SECTIONS as readonly string[]).includes(key)) {
			found.push(
				violation(
					'configuration.known-sections',
					childPath('', key),
					`"${key}" is not a section of a number configuration; put custom data in meta`,
				),
			);
		}
	}

	const section = (name: 'options' | 'rules' | 'meta') => phpEmptyObject(configuration[name]);
	if (present(section('options')) && !isRecord(section('options')))
		found.push(wrongKind('configuration.options.object', 'options', configuration.options));
	const definedRules = validateRules(section('rules'), found);
	return [
		...found,
		...routingIssues(configuration.routing, definedRules, options),
		...validateMeta(section('meta')),
	];
}

/** The API's PHP writes an empty object as `[]` (`"meta": []` read back must be writable again): an empty array stands for `{}`. */
function phpEmptyObject(value: unknown): unknown {
	return Array.isArray(value) && value.length === 0 ? {} : value;
}

/** n8n JSON parameters may arrive as text; the API receives JSON either way. */
function parseConfiguration(
	config: unknown,
): { value: Record<string, unknown> } | { issue: ValidationIssue } {
	const refused = (problem: string) => ({
		issue: violation('configuration.object', CONFIGURATION_FIELD, problem),
	});
	let value = config;
	if (typeof config === 'string') {
		if (config.trim() === '') return refused('it is empty');
		try {
			value = JSON.parse(config);
		} catch (error) {
			return refused(`it is not valid JSON (${(error as Error).message})`);
		}
	}
	return isRecord(value) ? { value } : refused(notObject(value, value === undefined));
}

/** Checks `rules` and returns the rule names that routing keys may refer to. */
function validateRules(rules: unknown, found: ValidationIssue[]): Set<string> {
	if (!present(rules)) return new Set();
	if (!isRecord(rules)) {
		found.push(wrongKind('configuration.rules.object', 'rules', rules));
		return new Set();
	}
	for (const [name, rule] of Object.entries(rules)) {
		const path = childPath('rules', name);
		if (!RULE_NAME.test(name))
			found.push(
				violation(
					'configuration.rules.name',
					path,
					`the rule name ${describeValue(name)} is not allowed`,
				),
			);
		if (!Array.isArray(rule))
			found.push(wrongKind('configuration.rules.array', path, rule, 'an array'));
		else
			rule.forEach((entry, index) => found.push(...ruleEntryIssues(entry, childPath(path, index))));
	}
	return new Set(Object.keys(rules));
}

/** One entry of a rule: an object whose dow, time, day and month are arrays (`[3]`, not `3`). */
function ruleEntryIssues(entry: unknown, path: string): ValidationIssue[] {
	if (!isRecord(entry)) return [wrongKind('configuration.rules.entry.object', path, entry)];
	const notArrays = RULE_ENTRY_ARRAYS.filter(
		(key) => present(entry[key]) && !Array.isArray(entry[key]),
	);
	return notArrays.map((key) =>
		wrongKind('configuration.rules.entry.arrays', childPath(path, key), entry[key], 'an array'),
	);
}

function routingIssues(
	routing: unknown,
	definedRules: Set<string>,
	options: NumberConfigurationOptions,
): ValidationIssue[] {
	if (!present(routing)) return [violation('routing.required', 'routing', 'it is missing')];
	if (!isRecord(routing)) return [wrongKind('routing.object', 'routing', routing)];
	if (Object.keys(routing).length === 0)
		return [violation('routing.not-empty', 'routing', 'it has no route')];
	const found: ValidationIssue[] = [];
	const blocks: BlockSummary[] = [];
	for (const [key, stages] of Object.entries(routing)) {
		const keyPath = childPath('routing', key);
		if (key !== 'default' && !definedRules.has(key)) {
			found.push(
				violation(
					'routing.key.defined',
					keyPath,
					`"${key}" is not default and no rule of that name is defined in rules`,
				),
			);
		}
		if (!Array.isArray(stages)) {
			found.push(wrongKind('routing.stages.array', keyPath, stages, 'an array of stages'));
			continue;
		}
		if (stages.length === 0)
			found.push(violation('routing.route.stages', keyPath, 'it has no stage'));
		stages.forEach((stage, stageIndex) => {
			const stagePath = childPath(keyPath, stageIndex);
			if (!Array.isArray(stage)) {
				found.push(wrongKind('routing.stage.array', stagePath, stage, 'an array of blocks'));
				return;
			}
			if (stage.length === 0)
				found.push(violation('routing.stage.blocks', stagePath, 'it has no block'));
			const stageBlocks: BlockSummary[] = [];
			stage.forEach((block, blockIndex) => {
				const summary = validateBlock(block, childPath(stagePath, blockIndex), options, found);
				if (summary) stageBlocks.push(summary);
			});
			found.push(...zoneIssues(stageBlocks));
			blocks.push(...stageBlocks);
		});
	}
	return [...found, ...faxExclusiveIssues(blocks)];
}

/** Checks one block; returns its summary when its type is known, for the stage and fax rules. */
function validateBlock(
	block: unknown,
	path: string,
	options: NumberConfigurationOptions,
	found: ValidationIssue[],
): BlockSummary | undefined {
	if (!isRecord(block)) {
		found.push(wrongKind('routing.block.object', path, block));
		return undefined;
	}
	const at = (key: string) => childPath(path, key);
	const { type } = block;
	const timeless = type === 'busy' || type === 'fax';
	const common = [
		isBlank(type)
			? violation('routing.block.type', at('type'), 'it is empty')
			: isBlockType(type)
				? undefined
				: violation('routing.block.type', at('type'), `${describeValue(type)} is not a block type`),
		wholeNumberAtLeast('routing.block.delay', at('delay'), block.delay, 1),
		Object.hasOwn(block, 'timeout') && timeless
			? violation(
					'routing.block.timeout-not-on-busy-or-fax',
					at('timeout'),
					`a ${type} block has no timeout`,
				)
			: wholeNumberAtLeast('routing.block.timeout', at('timeout'), block.timeout, 1),
	];
	found.push(...issues(common));
	// Without a known type there is no parameter list to check against; the type issue says enough.
	if (!isBlockType(type)) return undefined;

	const allowed = [...COMMON_PARAMETERS, ...TYPE_PARAMETERS[type]];
	const accepted = allowed.filter((name) => !(name === 'timeout' && timeless)).join(', ');
	for (const key of Object.keys(block)) {
		if (!allowed.includes(key))
			found.push(
				violation(
					'routing.block.known-parameters',
					at(key),
					`"${key}" is not a parameter of a ${type} block (it takes ${accepted})`,
				),
			);
	}
	const sdesAndOpus = (modes: string[], rule: RuleId) => [
		asRule(rule, oneOf(at('sdes'), block.sdes, modes)),
		asRule('routing.opus', oneOf(at('opus'), block.opus, OPUS_MODES)),
	];
	const typeChecks: Record<BlockType, () => Check[]> = {
		sip: () => [
			isBlank(block.endpoint)
				? violation('routing.sip.endpoint.required', at('endpoint'), 'it is empty')
				: sipEndpoint(at('endpoint'), block.endpoint),
			...sdesAndOpus(['optional', 'required', 'none'], 'routing.sip.sdes'),
			asRule('routing.sip.zone', oneOf(at('zone'), block.zone, ['slo', 'lon', 'ny', 'sj'])),
		],
		reg: () => [
			isBlank(block.user) || (isText(block.user) && /^[^\s@]+$/.test(String(block.user)))
				? undefined
				: violation(
						'routing.reg.user',
						at('user'),
						`${describeValue(block.user)} is not a SIP user name`,
					),
			...sdesAndOpus(['optional', 'required'], 'routing.reg.sdes'),
		],
		pstn: () => pstnChecks(block, at, options),
		teams: () => [],
		fax: () => faxChecks(block, at),
		busy: () => [],
	};
	found.push(...issues(typeChecks[type]()));
	return { path, type, zoned: type === 'sip' && !isBlank(block.zone) };
}

function sipEndpoint(field: string, value: unknown): Check {
	const text = isText(value) ? String(value) : '';
	const match = text.length <= SIP_ENDPOINT_MAX_LENGTH ? SIP_ENDPOINT.exec(text) : null;
	if (!match)
		return violation(
			'routing.sip.endpoint.form',
			field,
			`${describeValue(value)} is not user@host[:port]${/^sips?:/i.test(text) ? ' (leave out the sip: prefix)' : ''}`,
		);
	const port = match[1] === undefined ? undefined : Number(match[1]);
	return port !== undefined && (port < 1 || port > 65535)
		? violation('routing.sip.endpoint.form', field, `port ${port} is out of range`)
		: undefined;
}

function pstnChecks(
	block: Record<string, unknown>,
	at: (key: string) => string,
	options: NumberConfigurationOptions,
): Check[] {
	const nonNegativeAmount = (
		ruleId: 'routing.pstn.maxcpm' | 'routing.pstn.maxcpc',
		key: string,
	) => {
		const value = block[key];
		if (isBlank(value)) return undefined;
		const number = amount(value);
		if (number === undefined)
			return violation(ruleId, at(key), `${describeValue(value)} is not an amount`);
		return number < 0 ? violation(ruleId, at(key), `${number} is negative`) : undefined;
	};
	return [
		isBlank(block.number)
			? violation('routing.pstn.number.required', at('number'), 'it is empty')
			: asRule('routing.pstn.number.e164', e164(at('number'), block.number)),
		nonNegativeAmount('routing.pstn.maxcpm', 'maxcpm'),
		nonNegativeAmount('routing.pstn.maxcpc', 'maxcpc'),
		!isBlank(block.maxcpc) && isBlank(block.maxcpm)
			? violation(
					'routing.pstn.maxcpc-needs-maxcpm',
					at('maxcpc'),
					'maxcpc is given without maxcpm',
				)
			: undefined,
		asRule('routing.pstn.cli', phoneNumber(at('cli'), block.cli)),
		...(isBlank(block.trunk) ? [] : validateTrunkName(at('trunk'), block.trunk, options.accountId)),
	];
}

function faxChecks(block: Record<string, unknown>, at: (key: string) => string): Check[] {
	const { method, endpoint } = block;
	const field = at('endpoint');
	const methodIssue = asRule('routing.fax.method', oneOf(at('method'), method, ['http', 'mail']));
	if (isBlank(endpoint)) return [methodIssue];
	const notMail = email(field, endpoint) !== undefined;
	// The platform posts the fax there: a webhook target (no loopback, link-local or metadata address).
	const urlIssue = httpUrl(field, endpoint, { webhook: true });
	const urlProblem = urlIssue?.problem.startsWith(describeValue(endpoint))
		? urlIssue.problem.slice(describeValue(endpoint).length + 1)
		: urlIssue?.problem;
	// Without a method, what reads as a URL is judged as one (`https://a@169.254.169.254/` is no e-mail address).
	const asUrl =
		method === 'http' || (method !== 'mail' && /^https?:\/\//i.test(String(endpoint).trim()));
	const problem =
		method === 'mail'
			? notMail
				? 'is not an e-mail address'
				: ''
			: asUrl
				? (urlProblem ?? '')
				: notMail
					? 'is neither an e-mail address nor an http(s) URL'
					: '';
	return problem
		? [
				methodIssue,
				violation('routing.fax.endpoint', field, `${describeValue(endpoint)} ${problem}`),
			]
		: [methodIssue];
}

/** Zoned endpoints override unzoned ones, and calls in an unmatched zone fall back to them: one must exist. */
function zoneIssues(stageBlocks: BlockSummary[]): ValidationIssue[] {
	const sipBlocks = stageBlocks.filter((block) => block.type === 'sip');
	if (sipBlocks.some((block) => !block.zoned)) return [];
	return sipBlocks.map((block) =>
		violation(
			'routing.sip.zone-needs-unzoned',
			childPath(block.path, 'zone'),
			'no sip endpoint without a zone in the same stage takes calls from other zones',
		),
	);
}

function faxExclusiveIssues(blocks: BlockSummary[]): ValidationIssue[] {
	const faxBlocks = blocks.filter((block) => block.type === 'fax');
	const voiceBlocks = blocks.filter((block) => block.type !== 'fax');
	if (faxBlocks.length === 0 || voiceBlocks.length === 0) return [];
	const shown = voiceBlocks.slice(0, 3).map((block) => `${block.path} (${block.type})`);
	const more =
		voiceBlocks.length > shown.length ? ` and ${voiceBlocks.length - shown.length} more` : '';
	return faxBlocks.map((fax) =>
		violation(
			'routing.fax-exclusive',
			childPath(fax.path, 'type'),
			`a fax block is combined with ${shown.join(', ')}${more}`,
		),
	);
}

function validateMeta(meta: unknown): ValidationIssue[] {
	if (!present(meta)) return [];
	if (!isRecord(meta)) return [wrongKind('configuration.meta.object', 'meta', meta)];
	const bytes = Buffer.byteLength(JSON.stringify(meta), 'utf8');
	const found =
		bytes > META_MAX_BYTES
			? [violation('configuration.meta.size', 'meta', `it is ${bytes} bytes as JSON`)]
			: [];
	if (present(meta.key) && typeof meta.key !== 'string')
		found.push(wrongKind('configuration.meta.key', 'meta.key', meta.key, 'a string'));
	else if (typeof meta.key === 'string' && meta.key.length > META_KEY_MAX_LENGTH)
		found.push(
			violation('configuration.meta.key', 'meta.key', `it is ${meta.key.length} characters long`),
		);
	return found;
}
