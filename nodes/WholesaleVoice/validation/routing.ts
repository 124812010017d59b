import type { ValidationIssue } from '../../shared/operation';
import { describeValue, e164, email, httpUrl, isBlank, oneOf, phoneNumber } from '../../shared/validation';

import { validateTrunkName } from './account';
import { amount, asRule, childPath, isPlainObject, isText, kindOf, violation, wholeNumberAtLeast } from './common';

/**
 * The number configuration written by `PUT /v3/numbers/{ACCOUNT}/allocated/{NUMBER}/config`.
 * The API rejects the whole configuration when any element is wrong, so every issue is
 * collected in one pass and each names its path (`routing.default[1][0].timeout`).
 */

export interface NumberConfigurationOptions {
	/** The account id, to check that a pstn block's trunk belongs to this account. */
	accountId?: string;
}

/** The field named when the configuration as a whole is wrong (it is the node's parameter). */
export const CONFIGURATION_FIELD = 'configuration';

const SECTIONS = ['routing', 'options', 'rules', 'meta'] as const;

export const BLOCK_TYPES = ['sip', 'reg', 'pstn', 'teams', 'fax', 'busy'] as const;
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
const SIP_SDES_MODES = ['optional', 'required', 'none'];
const REG_SDES_MODES = ['optional', 'required'];
const ZONES = ['slo', 'lon', 'ny', 'sj'];
const FAX_METHODS = ['http', 'mail'];

/**
 * Rule names: the spec says only that their character set is restricted; the public API docs
 * name a-z and `_`, and their own example (`mon__fri_0700__1700`) carries digits.
 */
export const RULE_NAME = /^[a-z0-9_]+$/;

/** The time conditions of a rule entry (public API docs), each an array even of one value. */
const RULE_ENTRY_ARRAYS = ['dow', 'time', 'day', 'month'];

/**
 * user@host[:port][;transport=t | :transport=t]. The user part takes SIP user characters, and a
 * `%` before a letter or digit: a %-escape (`%2F`) or a substitution. The contract names `%e164`
 * and `%ukn` without forbidding others, and real configurations use more (`%did`), so any name is
 * accepted. The `%` is matched alone (the name by the plain characters), so the alternatives stay
 * disjoint and the match linear on long input. The host is a DNS name, IPv4 or [IPv6].
 */
const SIP_ENDPOINT =
	/^(?:%(?=[A-Za-z0-9])|[A-Za-z0-9\-_.!~*'()&=+$,;?/])+@(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)(?::(\d{1,5}))?(?:[;:]transport=(?:udp|tcp|tls))?$/i;

/** Longer than any real endpoint; refusing it up front bounds the regular expression's work. */
const SIP_ENDPOINT_MAX_LENGTH = 512;

export const META_MAX_BYTES = 512;
export const META_KEY_MAX_LENGTH = 40;

/** Where a valid block sits and what the whole-configuration rules (zones, fax) need to know of it. */
interface BlockSummary {
	path: string;
	type: BlockType;
	zoned: boolean;
}

/** null counts as absent for the optional sections: a lenient reading, as the spec does not say (see docs). */
function present(value: unknown): boolean {
	return value !== undefined && value !== null;
}

function has(object: Record<string, unknown>, key: string): boolean {
	return Object.hasOwn(object, key);
}

function isBlockType(value: unknown): value is BlockType {
	return typeof value === 'string' && (BLOCK_TYPES as readonly string[]).includes(value);
}

export function validateNumberConfiguration(config: unknown, options: NumberConfigurationOptions = {}): ValidationIssue[] {
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
	if (present(section('options')) && !isPlainObject(section('options'))) {
		found.push(violation('configuration.options.object', 'options', `it is ${kindOf(configuration.options)}, not an object`));
	}

	const definedRules = validateRules(section('rules'), found);
	validateRouting(configuration.routing, definedRules, options, found);
	validateMeta(section('meta'), found);
	return found;
}

/**
 * The API is written in PHP, which encodes an empty object as `[]`: a configuration read back
 * shows `"meta": []`, and writing it again must be accepted. An empty array stands for `{}`.
 */
function phpEmptyObject(value: unknown): unknown {
	return Array.isArray(value) && value.length === 0 ? {} : value;
}

/** n8n JSON parameters may arrive as text; the API receives JSON either way. */
function parseConfiguration(config: unknown): { value: Record<string, unknown> } | { issue: ValidationIssue } {
	let value = config;
	if (typeof config === 'string') {
		if (config.trim() === '') {
			return { issue: violation('configuration.object', CONFIGURATION_FIELD, 'it is empty') };
		}
		try {
			value = JSON.parse(config);
		} catch (error) {
			return {
				issue: violation('configuration.object', CONFIGURATION_FIELD, `it is not valid JSON (${(error as Error).message})`),
			};
		}
	}
	if (!isPlainObject(value)) {
		const problem = value === undefined ? 'it is empty' : `it is ${kindOf(value)}, not an object`;
		return { issue: violation('configuration.object', CONFIGURATION_FIELD, problem) };
	}
	return { value };
}

/** Checks `rules` and returns the rule names that routing keys may refer to. */
function validateRules(rules: unknown, found: ValidationIssue[]): Set<string> {
	if (!present(rules)) return new Set();
	if (!isPlainObject(rules)) {
		found.push(violation('configuration.rules.object', 'rules', `it is ${kindOf(rules)}, not an object`));
		return new Set();
	}
	for (const [name, rule] of Object.entries(rules)) {
		const path = childPath('rules', name);
		if (!RULE_NAME.test(name)) {
			found.push(violation('configuration.rules.name', path, `the rule name ${describeValue(name)} is not allowed`));
		}
		if (!Array.isArray(rule)) {
			found.push(violation('configuration.rules.array', path, `it is ${kindOf(rule)}, not an array`));
			continue;
		}
		rule.forEach((entry, index) => validateRuleEntry(entry, childPath(path, index), found));
	}
	return new Set(Object.keys(rules));
}

/** One entry of a rule: an object whose dow, time, day and month are arrays (`[3]`, not `3`). */
function validateRuleEntry(entry: unknown, path: string, found: ValidationIssue[]): void {
	if (!isPlainObject(entry)) {
		found.push(violation('configuration.rules.entry.object', path, `it is ${kindOf(entry)}, not an object`));
		return;
	}
	for (const key of RULE_ENTRY_ARRAYS) {
		if (present(entry[key]) && !Array.isArray(entry[key])) {
			found.push(violation('configuration.rules.entry.arrays', childPath(path, key), `it is ${kindOf(entry[key])}, not an array`));
		}
	}
}

function validateRouting(
	routing: unknown,
	definedRules: Set<string>,
	options: NumberConfigurationOptions,
	found: ValidationIssue[],
): void {
	if (!present(routing)) {
		found.push(violation('routing.required', 'routing', 'it is missing'));
		return;
	}
	if (!isPlainObject(routing)) {
		found.push(violation('routing.object', 'routing', `it is ${kindOf(routing)}, not an object`));
		return;
	}

	if (Object.keys(routing).length === 0) {
		found.push(violation('routing.not-empty', 'routing', 'it has no route'));
		return;
	}
	const blocks: BlockSummary[] = [];
	for (const [key, stages] of Object.entries(routing)) {
		const keyPath = childPath('routing', key);
		if (key !== 'default' && !definedRules.has(key)) {
			found.push(
				violation('routing.key.defined', keyPath, `"${key}" is not default and no rule of that name is defined in rules`),
			);
		}
		if (!Array.isArray(stages)) {
			found.push(violation('routing.stages.array', keyPath, `it is ${kindOf(stages)}, not an array of stages`));
			continue;
		}
		if (stages.length === 0) found.push(violation('routing.route.stages', keyPath, 'it has no stage'));
		stages.forEach((stage, stageIndex) => {
			const stagePath = childPath(keyPath, stageIndex);
			if (!Array.isArray(stage)) {
				found.push(violation('routing.stage.array', stagePath, `it is ${kindOf(stage)}, not an array of blocks`));
				return;
			}
			if (stage.length === 0) found.push(violation('routing.stage.blocks', stagePath, 'it has no block'));
			const stageBlocks: BlockSummary[] = [];
			stage.forEach((block, blockIndex) => {
				const summary = validateBlock(block, childPath(stagePath, blockIndex), options, found);
				if (summary) stageBlocks.push(summary);
			});
			validateZones(stageBlocks, found);
			blocks.push(...stageBlocks);
		});
	}
	validateFaxExclusive(blocks, found);
}

/** Checks one block; returns its summary when its type is known, for the stage and fax rules. */
function validateBlock(
	block: unknown,
	path: string,
	options: NumberConfigurationOptions,
	found: ValidationIssue[],
): BlockSummary | undefined {
	if (!isPlainObject(block)) {
		found.push(violation('routing.block.object', path, `it is ${kindOf(block)}, not an object`));
		return undefined;
	}
	const at = (key: string) => childPath(path, key);
	const { type } = block;

	if (isBlank(type)) {
		found.push(violation('routing.block.type', at('type'), 'it is empty'));
	} else if (!isBlockType(type)) {
		found.push(violation('routing.block.type', at('type'), `${describeValue(type)} is not a block type`));
	}

	const delay = wholeNumberAtLeast('routing.block.delay', at('delay'), block.delay, 1);
	if (delay) found.push(delay);
	if (has(block, 'timeout') && (type === 'busy' || type === 'fax')) {
		found.push(violation('routing.block.timeout-not-on-busy-or-fax', at('timeout'), `a ${type} block has no timeout`));
	} else {
		const timeout = wholeNumberAtLeast('routing.block.timeout', at('timeout'), block.timeout, 1);
		if (timeout) found.push(timeout);
	}

	// Without a known type there is no parameter list to check against; the type issue says enough.
	if (!isBlockType(type)) return undefined;

	const allowed = [...COMMON_PARAMETERS, ...TYPE_PARAMETERS[type]];
	for (const key of Object.keys(block)) {
		if (!allowed.includes(key)) {
			const accepted = allowed.filter((name) => !(name === 'timeout' && (type === 'busy' || type === 'fax')));
			found.push(
				violation(
					'routing.block.known-parameters',
					at(key),
					`"${key}" is not a parameter of a ${type} block (it takes ${accepted.join(', ')})`,
				),
			);
		}
	}

	const typeChecks: Record<BlockType, () => Array<ValidationIssue | undefined>> = {
		sip: () => [
			isBlank(block.endpoint)
				? violation('routing.sip.endpoint.required', at('endpoint'), 'it is empty')
				: sipEndpoint(at('endpoint'), block.endpoint),
			asRule('routing.sip.sdes', oneOf(at('sdes'), block.sdes, SIP_SDES_MODES)),
			asRule('routing.opus', oneOf(at('opus'), block.opus, OPUS_MODES)),
			asRule('routing.sip.zone', oneOf(at('zone'), block.zone, ZONES)),
		],
		reg: () => [
			isBlank(block.user) || (isText(block.user) && /^[^\s@]+$/.test(String(block.user)))
				? undefined
				: violation('routing.reg.user', at('user'), `${describeValue(block.user)} is not a SIP user name`),
			asRule('routing.reg.sdes', oneOf(at('sdes'), block.sdes, REG_SDES_MODES)),
			asRule('routing.opus', oneOf(at('opus'), block.opus, OPUS_MODES)),
		],
		pstn: () => pstnChecks(block, at, options),
		teams: () => [],
		fax: () => faxChecks(block, at),
		busy: () => [],
	};
	for (const issue of typeChecks[type]()) {
		if (issue) found.push(issue);
	}

	return { path, type, zoned: type === 'sip' && !isBlank(block.zone) };
}

function sipEndpoint(field: string, value: unknown): ValidationIssue | undefined {
	const text = isText(value) ? String(value) : '';
	const match = text.length <= SIP_ENDPOINT_MAX_LENGTH ? SIP_ENDPOINT.exec(text) : null;
	if (!match) {
		const hint = /^sips?:/i.test(text) ? ' (leave out the sip: prefix)' : '';
		return violation('routing.sip.endpoint.form', field, `${describeValue(value)} is not user@host[:port]${hint}`);
	}
	const port = match[1] === undefined ? undefined : Number(match[1]);
	if (port !== undefined && (port < 1 || port > 65535)) {
		return violation('routing.sip.endpoint.form', field, `port ${port} is out of range`);
	}
	return undefined;
}

function pstnChecks(
	block: Record<string, unknown>,
	at: (key: string) => string,
	options: NumberConfigurationOptions,
): Array<ValidationIssue | undefined> {
	const nonNegativeAmount = (ruleId: 'routing.pstn.maxcpm' | 'routing.pstn.maxcpc', key: string) => {
		const value = block[key];
		if (isBlank(value)) return undefined;
		const number = amount(value);
		if (number === undefined) return violation(ruleId, at(key), `${describeValue(value)} is not an amount`);
		return number < 0 ? violation(ruleId, at(key), `${number} is negative`) : undefined;
	};
	return [
		isBlank(block.number)
			? violation('routing.pstn.number.required', at('number'), 'it is empty')
			: asRule('routing.pstn.number.e164', e164(at('number'), block.number)),
		nonNegativeAmount('routing.pstn.maxcpm', 'maxcpm'),
		nonNegativeAmount('routing.pstn.maxcpc', 'maxcpc'),
		!isBlank(block.maxcpc) && isBlank(block.maxcpm)
			? violation('routing.pstn.maxcpc-needs-maxcpm', at('maxcpc'), 'maxcpc is given without maxcpm')
			: undefined,
		asRule('routing.pstn.cli', phoneNumber(at('cli'), block.cli)),
		...(isBlank(block.trunk) ? [] : validateTrunkName(at('trunk'), block.trunk, options.accountId)),
	];
}

function faxChecks(block: Record<string, unknown>, at: (key: string) => string): Array<ValidationIssue | undefined> {
	const { method, endpoint } = block;
	const field = at('endpoint');
	let endpointIssue: ValidationIssue | undefined;
	if (!isBlank(endpoint)) {
		const asMail = email(field, endpoint);
		const asUrl = httpUrl(field, endpoint);
		if (method === 'mail' && asMail) {
			endpointIssue = violation('routing.fax.endpoint', field, `${describeValue(endpoint)} is not an e-mail address`);
		} else if (method === 'http' && asUrl) {
			endpointIssue = violation('routing.fax.endpoint', field, `${describeValue(endpoint)} is not an http(s) URL`);
		} else if (method !== 'mail' && method !== 'http' && asMail && asUrl) {
			endpointIssue = violation(
				'routing.fax.endpoint',
				field,
				`${describeValue(endpoint)} is neither an e-mail address nor an http(s) URL`,
			);
		}
	}
	return [asRule('routing.fax.method', oneOf(at('method'), method, FAX_METHODS)), endpointIssue];
}

/** Zoned endpoints override unzoned ones, and calls in an unmatched zone fall back to them: one must exist. */
function validateZones(stageBlocks: BlockSummary[], found: ValidationIssue[]): void {
	const sipBlocks = stageBlocks.filter((block) => block.type === 'sip');
	if (sipBlocks.some((block) => !block.zoned)) return;
	for (const block of sipBlocks) {
		found.push(
			violation(
				'routing.sip.zone-needs-unzoned',
				childPath(block.path, 'zone'),
				'no sip endpoint without a zone in the same stage takes calls from other zones',
			),
		);
	}
}

function validateFaxExclusive(blocks: BlockSummary[], found: ValidationIssue[]): void {
	const faxBlocks = blocks.filter((block) => block.type === 'fax');
	const voiceBlocks = blocks.filter((block) => block.type !== 'fax');
	if (faxBlocks.length === 0 || voiceBlocks.length === 0) return;
	const shown = voiceBlocks.slice(0, 3).map((block) => `${block.path} (${block.type})`);
	const more = voiceBlocks.length > shown.length ? ` and ${voiceBlocks.length - shown.length} more` : '';
	for (const fax of faxBlocks) {
		found.push(
			violation(
				'routing.fax-exclusive',
				childPath(fax.path, 'type'),
				`a fax block is combined with ${shown.join(', ')}${more}`,
			),
		);
	}
}

function validateMeta(meta: unknown, found: ValidationIssue[]): void {
	if (!present(meta)) return;
	if (!isPlainObject(meta)) {
		found.push(violation('configuration.meta.object', 'meta', `it is ${kindOf(meta)}, not an object`));
		return;
	}
	const bytes = Buffer.byteLength(JSON.stringify(meta), 'utf8');
	if (bytes > META_MAX_BYTES) {
		found.push(violation('configuration.meta.size', 'meta', `it is ${bytes} bytes as JSON`));
	}
	if (present(meta.key)) {
		if (typeof meta.key !== 'string') {
			found.push(violation('configuration.meta.key', 'meta.key', `it is ${kindOf(meta.key)}, not a string`));
		} else if (meta.key.length > META_KEY_MAX_LENGTH) {
			found.push(violation('configuration.meta.key', 'meta.key', `it is ${meta.key.length} characters long`));
		}
	}
}
