/**
 * What the Wholesale Voice service itself refuses in a write, read from the v3 contract
 * (spec/wholesale-voice-api-v3.md) and nothing else: number configurations (routing, rules,
 * options, meta), port submissions, inbound SMS endpoints, UK 999 data, e911 addresses and
 * numbers, trunk names and update options, channel limits and notification destinations.
 *
 * Each check answers the service's error texts, `where: what is wrong`, empty when the write is
 * accepted. Where the contract names a rule it is applied as written; where it is silent the
 * check accepts what a real service would take (a `%did` substitution in a SIP endpoint, a
 * `meta` of `[]`, numbers sent as form text), so that only a write that breaks the contract is
 * refused here.
 */

/** The texts of one refused write, in the order they were found. */
class Refusals {
	readonly texts: string[] = [];

	add(where: string, what: string): void {
		this.texts.push(where === '' ? what : `${where}: ${what}`);
	}
}

// ---- value forms ---------------------------------------------------------------------------

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** PHP encodes an empty associative array as `[]`: an empty object read back from the service. */
function isObjectOrPhpEmpty(value: unknown): value is Record<string, unknown> | [] {
	return isObject(value) || (Array.isArray(value) && value.length === 0);
}

function absent(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

/** A whole number of at least `min`, as JSON sends it or as form text. */
function wholeAtLeast(value: unknown, min: number): boolean {
	if (typeof value === 'number') return Number.isInteger(value) && value >= min;
	return typeof value === 'string' && /^\s*\d+\s*$/.test(value) && Number(value) >= min;
}

/** A decimal amount of zero or more, as JSON sends it or as form text. */
function amount(value: unknown): boolean {
	if (typeof value === 'number') return Number.isFinite(value) && value >= 0;
	return typeof value === 'string' && /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(value);
}

/** Text as the service reads it: strings, and numbers sent where text is meant. */
function asText(value: unknown): string | undefined {
	if (typeof value === 'string') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
}

/** E.164 as the contract writes it (digits, country code first), a leading `+` tolerated. */
function isE164(value: unknown): boolean {
	const text = asText(value);
	return text !== undefined && /^\+?[1-9]\d{6,14}$/.test(text.trim());
}

function isEmailAddress(text: string): boolean {
	return /^[^\s@<>(),;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/.test(text);
}

/** An absolute http or https URL with a host. */
function httpUrl(text: string): URL | undefined {
	try {
		const url = new URL(text);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : undefined;
	} catch {
		return undefined;
	}
}

function oneOf(values: readonly string[]): string {
	return values.length === 2 ? `${values[0]} or ${values[1]}` : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

/** Length in characters (code points), as a UTF-8 service counts them. */
function characters(text: string): number {
	return [...text].length;
}

// ---- number configuration -------------------------------------------------------------------

const SECTIONS = ['routing', 'options', 'rules', 'meta'];
const BLOCK_TYPES = ['sip', 'reg', 'pstn', 'teams', 'fax', 'busy'] as const;
type BlockType = (typeof BLOCK_TYPES)[number];

/** The parameters each block type takes besides `type`, `delay` and `timeout`. */
const TYPE_PARAMETERS: Record<BlockType, readonly string[]> = {
	sip: ['endpoint', 'sdes', 'opus', 'zone'],
	reg: ['user', 'sdes', 'opus'],
	pstn: ['number', 'maxcpm', 'maxcpc', 'cli', 'trunk'],
	teams: [],
	fax: ['method', 'endpoint'],
	busy: [],
};
const CHOICES: Record<string, Partial<Record<BlockType, readonly string[]>>> = {
	sdes: { sip: ['optional', 'required', 'none'], reg: ['optional', 'required'] },
	opus: { sip: ['never', 'always', 'only'], reg: ['never', 'always', 'only'] },
	zone: { sip: ['slo', 'lon', 'ny', 'sj'] },
	method: { fax: ['http', 'mail'] },
};

/**
 * `user@host`, then an optional `:port` and `:transport=<t>` (`;transport=` also read). The user
 * part is anything without spaces or `@`: the contract names the `%e164` and `%ukn`
 * substitutions without forbidding others, so `%did@host` is a valid endpoint.
 */
const SIP_ENDPOINT = /^[^\s@]+@(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)(?::(\d{1,5}))?(?:[:;]transport=[A-Za-z]+)?$/;

/**
 * Rule names: the contract says the set is restricted without listing it; the public API docs
 * name a-z and `_`, and their own example names carry digits.
 */
const RULE_NAME = /^[a-z0-9_]+$/;

/** The time conditions of a rule entry in the public API docs: arrays, "[3] not 3". */
const RULE_ENTRY_ARRAYS = ['dow', 'time', 'day', 'month'];

export const META_MAX_BYTES = 512;
export const META_KEY_MAX = 40;

function checkBlock(block: unknown, where: string, refusals: Refusals): BlockType | undefined {
	if (!isObject(block)) {
		refusals.add(where, 'a routing block must be an object with a type');
		return undefined;
	}
	const type = block.type;
	if (absent(type)) {
		refusals.add(`${where}.type`, `is required (${oneOf(BLOCK_TYPES)})`);
		return undefined;
	}
	if (typeof type !== 'string' || !(BLOCK_TYPES as readonly string[]).includes(type)) {
		refusals.add(`${where}.type`, `${JSON.stringify(type)} is not a block type; use ${oneOf(BLOCK_TYPES)}`);
		return undefined;
	}
	const kind = type as BlockType;
	for (const name of ['delay', 'timeout']) {
		if (block[name] === undefined) continue;
		if (name === 'timeout' && (kind === 'busy' || kind === 'fax')) refusals.add(`${where}.timeout`, `a ${kind} block takes no timeout`);
		else if (!wholeAtLeast(block[name], 1)) refusals.add(`${where}.${name}`, `${JSON.stringify(block[name])} is not a whole number of seconds of 1 or more`);
	}
	for (const name of Object.keys(block)) {
		if (name === 'type' || name === 'delay' || name === 'timeout') continue;
		if (!TYPE_PARAMETERS[kind].includes(name)) {
			refusals.add(`${where}.${name}`, `a ${kind} block has no parameter ${name}`);
			continue;
		}
		const allowed = CHOICES[name]?.[kind];
		if (allowed && !allowed.includes(String(block[name]))) {
			refusals.add(`${where}.${name}`, `${JSON.stringify(block[name])} is not allowed here; use ${oneOf(allowed)}`);
		}
	}
	if (kind === 'sip') {
		const endpoint = block.endpoint;
		if (absent(endpoint)) refusals.add(`${where}.endpoint`, 'is required for a sip block (user@host)');
		else {
			const match = typeof endpoint === 'string' ? SIP_ENDPOINT.exec(endpoint.trim()) : null;
			if (!match) refusals.add(`${where}.endpoint`, `${JSON.stringify(endpoint)} is not user@host[:port][:transport=…]`);
			else if (match[1] !== undefined && (Number(match[1]) < 1 || Number(match[1]) > 65535)) refusals.add(`${where}.endpoint`, `port ${match[1]} is outside 1-65535`);
		}
	}
	if (kind === 'reg' && block.user !== undefined && (typeof block.user !== 'string' || block.user.trim() === '')) {
		refusals.add(`${where}.user`, 'the registration user must be text');
	}
	if (kind === 'pstn') {
		if (absent(block.number)) refusals.add(`${where}.number`, 'is required for a pstn block (E.164)');
		else if (!isE164(block.number)) refusals.add(`${where}.number`, `${JSON.stringify(block.number)} is not an E.164 number`);
		for (const name of ['maxcpm', 'maxcpc']) {
			if (block[name] !== undefined && !amount(block[name])) refusals.add(`${where}.${name}`, `${JSON.stringify(block[name])} is not an amount of 0 or more`);
		}
		if (block.cli !== undefined && asText(block.cli) === undefined) refusals.add(`${where}.cli`, 'the CLI must be text');
		if (block.trunk !== undefined && typeof block.trunk !== 'string') refusals.add(`${where}.trunk`, 'the trunk must be a trunk name');
	}
	if (kind === 'fax' && block.endpoint !== undefined) {
		const endpoint = asText(block.endpoint)?.trim() ?? '';
		const ok = block.method === 'mail' ? isEmailAddress(endpoint) : block.method === 'http' ? httpUrl(endpoint) !== undefined : isEmailAddress(endpoint) || httpUrl(endpoint) !== undefined;
		if (!ok) refusals.add(`${where}.endpoint`, `${JSON.stringify(block.endpoint)} is not ${block.method === 'mail' ? 'an e-mail address' : block.method === 'http' ? 'an HTTP POST URI' : 'an e-mail address or an HTTP POST URI'}`);
	}
	return kind;
}

function checkRoutingKey(key: string, stages: unknown, refusals: Refusals): BlockType[] {
	const where = `routing.${key}`;
	const found: BlockType[] = [];
	if (!Array.isArray(stages)) {
		refusals.add(where, 'must be an array of stages (each an array of routing blocks)');
		return found;
	}
	stages.forEach((stage, s) => {
		if (!Array.isArray(stage)) {
			refusals.add(`${where}[${s}]`, 'a stage must be an array of routing blocks');
			return;
		}
		// Zones are a sip parameter: a stage with zoned sip endpoints needs a sip endpoint without one.
		let zoned = 0;
		let unzoned = 0;
		stage.forEach((block, b) => {
			const kind = checkBlock(block, `${where}[${s}][${b}]`, refusals);
			if (kind) found.push(kind);
			if (kind === 'sip' && isObject(block)) {
				if (absent(block.zone)) unzoned += 1;
				else zoned += 1;
			}
		});
		if (zoned > 0 && unzoned === 0) {
			refusals.add(`${where}[${s}]`, 'a stage with zoned sip endpoints also needs one sip endpoint without a zone');
		}
	});
	return found;
}

/**
 * A configuration write (`PUT .../allocated/{NUMBER}/config`): the whole document is judged, and
 * every problem is reported at once, since the service refuses the whole configuration.
 */
export function configurationProblems(config: unknown): string[] {
	const refusals = new Refusals();
	if (!isObject(config)) {
		refusals.add('', 'The configuration must be a JSON object with a routing section');
		return refusals.texts;
	}
	for (const section of Object.keys(config)) {
		if (!SECTIONS.includes(section)) refusals.add(section, `unknown section; a configuration has ${oneOf(SECTIONS)} (custom data belongs in meta)`);
	}

	const ruleNames = new Set<string>();
	if (config.rules !== undefined) {
		if (!isObjectOrPhpEmpty(config.rules)) refusals.add('rules', 'must be an object of named rules');
		else {
			for (const [name, entries] of Object.entries(config.rules)) {
				ruleNames.add(name);
				if (!RULE_NAME.test(name)) refusals.add(`rules.${name}`, 'a rule name may use a-z, 0-9 and _ only');
				if (!Array.isArray(entries)) refusals.add(`rules.${name}`, 'a rule must be an array of entries');
				else {
					entries.forEach((entry, i) => {
						if (!isObject(entry)) refusals.add(`rules.${name}[${i}]`, 'a rule entry must be an object');
						else for (const key of RULE_ENTRY_ARRAYS) if (entry[key] !== undefined && entry[key] !== null && !Array.isArray(entry[key])) refusals.add(`rules.${name}[${i}].${key}`, 'must be an array, even of one value ([3] not 3)');
					});
				}
			}
		}
	}
	if (config.options !== undefined && !isObjectOrPhpEmpty(config.options)) refusals.add('options', 'must be an object');

	const routing = config.routing;
	if (routing === undefined || routing === null || (Array.isArray(routing) && routing.length === 0) || (isObject(routing) && Object.keys(routing).length === 0)) {
		refusals.add('routing', 'is mandatory: give default or a rule, each with its stages of routing blocks');
	} else if (!isObject(routing)) {
		refusals.add('routing', 'must be an object keyed by default or rule names');
	} else {
		const kinds: BlockType[] = [];
		for (const [key, stages] of Object.entries(routing)) {
			if (key !== 'default' && !ruleNames.has(key)) refusals.add(`routing.${key}`, `matches no rule (rules: ${ruleNames.size ? [...ruleNames].join(', ') : 'none'}) and is not default`);
			kinds.push(...checkRoutingKey(key, stages, refusals));
		}
		if (kinds.includes('fax') && kinds.some((kind) => kind !== 'fax')) {
			refusals.add('routing', 'a number is either fax-routed or voice-routed: a fax block cannot be combined with other blocks');
		}
		if (kinds.length === 0 && refusals.texts.length === 0) refusals.add('routing', 'holds no routing block: the number would have no route');
	}

	if (config.meta !== undefined) {
		if (!isObjectOrPhpEmpty(config.meta)) refusals.add('meta', 'must be an object');
		else {
			const bytes = Buffer.byteLength(JSON.stringify(config.meta));
			if (bytes > META_MAX_BYTES) refusals.add('meta', `is ${bytes} bytes of JSON; at most ${META_MAX_BYTES} are stored`);
			const key = (config.meta as Record<string, unknown>).key;
			if (key !== undefined) {
				if (typeof key !== 'string') refusals.add('meta.key', 'must be text');
				else if (characters(key) > META_KEY_MAX) refusals.add('meta.key', `is ${characters(key)} characters; at most ${META_KEY_MAX}`);
			}
		}
	}
	return refusals.texts;
}

/** The pstn blocks' trunk names, with where they stand (`routing.default[1][0].trunk`). */
export function routedTrunks(config: Record<string, unknown>): Array<{ where: string; trunk: string }> {
	const out: Array<{ where: string; trunk: string }> = [];
	if (!isObject(config.routing)) return out;
	for (const [key, stages] of Object.entries(config.routing)) {
		if (!Array.isArray(stages)) continue;
		stages.forEach((stage, s) => {
			if (!Array.isArray(stage)) return;
			stage.forEach((block, b) => {
				if (isObject(block) && block.type === 'pstn' && typeof block.trunk === 'string' && block.trunk !== '') {
					out.push({ where: `routing.${key}[${s}][${b}].trunk`, trunk: block.trunk });
				}
			});
		});
	}
	return out;
}

// ---- porting -----------------------------------------------------------------------------------

const PORT_TYPES = ['single', 'multi', 'sub_single', 'sub_multi'];
const NUMBER_TYPES = ['mbn', 'associated', 'other'];
const NUMBER_ACTIONS = ['port', 'retain', 'drop'];
const CUSTOMER_LIMITS: Record<string, number> = {
	title: 20, forename: 20, name: 50, company: 50, bussuffix: 50, premises: 60, thoroughfare: 55, locality: 30, postcode: 12,
};
const CUSTOMER_MANDATORY = ['premises', 'thoroughfare', 'locality', 'postcode'];
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Spaces are read past in UK numbers, as people write them. */
function ukNational(value: unknown): string | undefined {
	const text = asText(value);
	return text === undefined ? undefined : text.replace(/\s+/g, '');
}

function realDateTime(text: string): boolean {
	const match = DATE_TIME.exec(text);
	if (!match) return false;
	const [, y, mo, d, h, mi, s] = match.map(Number);
	const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
	return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && h < 24 && mi < 60 && s < 60;
}

/** Why a number cannot be in a GNP port by API (the contract's number ranges), or undefined. */
function gnpRangeProblem(national: string): string | undefined {
	if (/^0[12]/.test(national)) return undefined;
	if (/^07[1-9]/.test(national)) return 'is a UK mobile number: mobile numbers port through MNP, not GNP';
	if (/^0(3|8[457]|70|9)/.test(national)) return 'is non-geographic or premium rate: it cannot be ported by API';
	return 'is not a UK geographic number (01 or 02)';
}

function checkCustomer(customer: unknown, refusals: Refusals): void {
	if (customer === undefined || customer === null) {
		refusals.add('customer', 'is required (premises, thoroughfare, locality and postcode at least)');
		return;
	}
	if (!isObject(customer)) {
		refusals.add('customer', 'must be an object');
		return;
	}
	for (const field of CUSTOMER_MANDATORY) {
		if (absent(customer[field]) || asText(customer[field])?.trim() === '') refusals.add(`customer.${field}`, 'is required');
	}
	for (const [field, max] of Object.entries(CUSTOMER_LIMITS)) {
		const value = customer[field];
		if (absent(value)) continue;
		const text = asText(value);
		if (text === undefined) refusals.add(`customer.${field}`, 'must be text');
		else if (characters(text) > max) refusals.add(`customer.${field}`, `is ${characters(text)} characters; at most ${max}`);
	}
}

function checkPortNumbers(numbers: unknown, mbn: string | undefined, refusals: Refusals): void {
	if (!Array.isArray(numbers) || numbers.length === 0) {
		refusals.add('numbers', 'is required: every number of the installation, the mbn included');
		return;
	}
	const seen = new Set<string>();
	const mbnEntries: string[] = [];
	numbers.forEach((entry, i) => {
		const where = `numbers[${i}]`;
		if (!isObject(entry)) {
			refusals.add(where, 'must be an object with number, type and action');
			return;
		}
		const national = ukNational(entry.number);
		if (!national) refusals.add(`${where}.number`, 'is required (UK national format)');
		else if (!/^0\d{9,10}$/.test(national)) refusals.add(`${where}.number`, `${JSON.stringify(entry.number)} is not a UK number in national format`);
		else if (seen.has(national)) refusals.add(`${where}.number`, `${national} is listed twice`);
		else {
			seen.add(national);
			const problem = entry.action === 'port' ? gnpRangeProblem(national) : undefined;
			if (problem) refusals.add(`${where}.number`, `${national} ${problem}`);
		}
		if (!NUMBER_TYPES.includes(String(entry.type))) refusals.add(`${where}.type`, `${JSON.stringify(entry.type)} is not ${oneOf(NUMBER_TYPES)}`);
		else if (entry.type === 'mbn' && national) mbnEntries.push(national);
		if (!NUMBER_ACTIONS.includes(String(entry.action))) refusals.add(`${where}.action`, `${JSON.stringify(entry.action)} is not ${oneOf(NUMBER_ACTIONS)}`);
		else if (entry.action === 'retain' && entry.type !== 'other') refusals.add(`${where}.action`, 'retain is only for numbers of type other');
	});
	if (mbnEntries.length !== 1) refusals.add('numbers', `exactly one number must have type mbn (found ${mbnEntries.length})`);
	else if (mbn !== undefined && mbnEntries[0] !== mbn) refusals.add('numbers', `the number of type mbn (${mbnEntries[0]}) is not the mbn ${mbn}`);
	if (mbn !== undefined && !seen.has(mbn)) refusals.add('numbers', `must include the mbn ${mbn}`);
}

/** A GNP port submission (`POST /porting/{ACCOUNT}/gnp`). */
export function portSubmissionProblems(submission: unknown): string[] {
	const refusals = new Refusals();
	if (!isObject(submission)) {
		refusals.add('', 'The port submission must be a JSON object');
		return refusals.texts;
	}
	const mbn = ukNational(submission.mbn);
	let mbnForm: string | undefined;
	if (!mbn) refusals.add('mbn', 'is required: the main billing number, UK national format (01xxxxxxxxx)');
	else if (!/^0[12]\d{8,9}$/.test(mbn)) refusals.add('mbn', `${JSON.stringify(submission.mbn)} is not a UK geographic number in national format (01xxxxxxxxx or 02xxxxxxxxx)`);
	else mbnForm = mbn;

	if (!absent(submission.orig_ref) && !/^\d+$/.test(asText(submission.orig_ref)?.trim() ?? '')) refusals.add('orig_ref', 'must be the order reference of the original port');
	if (!absent(submission.lcp) && typeof submission.lcp !== 'string') refusals.add('lcp', 'must be the provider name');
	if (!absent(submission.lcp_cupid)) {
		const cupid = submission.lcp_cupid;
		const ok = typeof cupid === 'number' ? Number.isInteger(cupid) && cupid >= 0 && cupid <= 999 : typeof cupid === 'string' && /^\d{3}$/.test(cupid);
		if (!ok) refusals.add('lcp_cupid', `${JSON.stringify(cupid)} is not a provider id (an integer, or three digits as text)`);
	}
	if (!absent(submission.port_date) && !(typeof submission.port_date === 'string' && realDateTime(submission.port_date.trim()))) {
		refusals.add('port_date', `${JSON.stringify(submission.port_date)} is not a date-time YYYY-MM-DD hh:mm:ss (leave it out for as soon as possible)`);
	}
	if (!absent(submission.contact_email) && !(typeof submission.contact_email === 'string' && isEmailAddress(submission.contact_email.trim()))) {
		refusals.add('contact_email', `${JSON.stringify(submission.contact_email)} is not an e-mail address`);
	}
	for (const field of ['account_number', 'billing_postcode']) {
		if (!absent(submission[field]) && asText(submission[field]) === undefined) refusals.add(field, 'must be text');
	}
	if (!absent(submission.type) && !PORT_TYPES.includes(String(submission.type))) refusals.add('type', `${JSON.stringify(submission.type)} is not ${oneOf(PORT_TYPES)}`);
	if (!absent(submission.lines) && !wholeAtLeast(submission.lines, 1)) refusals.add('lines', 'must be a whole number of 1 or more');
	if (!absent(submission.channels) && !wholeAtLeast(submission.channels, 0)) refusals.add('channels', 'must be a whole number of 0 or more');
	checkCustomer(submission.customer, refusals);
	checkPortNumbers(submission.numbers, mbnForm, refusals);
	return refusals.texts;
}

// ---- inbound SMS -------------------------------------------------------------------------------

export const SMS_MODES = ['http', 'http_json'];

/** `PUT .../allocated/{NUMBER}/sms`: the mode, and an HTTP(S) endpoint it can post to. */
export function smsEndpointProblems(mode: string | undefined, endpoint: string | undefined): string[] {
	const refusals = new Refusals();
	if (!mode) refusals.add('mode', `is required (${oneOf(SMS_MODES)})`);
	else if (!SMS_MODES.includes(mode)) refusals.add('mode', `${JSON.stringify(mode)} is not ${oneOf(SMS_MODES)}`);
	if (!endpoint) {
		refusals.add('endpoint', 'is required: the HTTP(S) URL that receives a POST per SMS');
		return refusals.texts;
	}
	const url = httpUrl(endpoint);
	if (!url) refusals.add('endpoint', `${JSON.stringify(endpoint)} is not an http or https URL`);
	else if (mode === 'http' && url.protocol === 'https:') refusals.add('endpoint', 'the legacy mode http cannot post to TLS endpoints: use http_json for https');
	return refusals.texts;
}

// ---- UK 999 ------------------------------------------------------------------------------------

export const UK999_LIMITS: Record<string, number> = {
	title: 20, forename: 20, name: 50, bussuffix: 50, premises: 60, thoroughfare: 55, locality: 30, postcode: 12,
};
const UK999_MANDATORY = ['name', 'premises', 'thoroughfare', 'locality', 'postcode'];
/** Out-code, one space, in-code (`LS1 4AP`, `EC1A 1BB`); letter case is not the service's concern. */
const UK_POSTCODE = /^[A-Za-z]{1,2}\d[A-Za-z\d]? \d[A-Za-z]{2}$/;

/** `PUT .../allocated/{NUMBER}/999`: the fields given (absent ones left out). */
export function uk999Problems(data: Record<string, unknown>): string[] {
	const refusals = new Refusals();
	for (const field of UK999_MANDATORY) {
		if (absent(data[field]) || asText(data[field])?.trim() === '') refusals.add(field, 'is required');
	}
	for (const [field, max] of Object.entries(UK999_LIMITS)) {
		if (absent(data[field])) continue;
		const text = asText(data[field])?.trim();
		if (text === undefined) refusals.add(field, 'must be text');
		else if (characters(text) > max) refusals.add(field, `is ${characters(text)} characters; at most ${max}`);
		else if (field === 'postcode' && text !== '' && !UK_POSTCODE.test(text)) refusals.add(field, `${JSON.stringify(text)} is not a full postcode (out-code, space, in-code)`);
	}
	const business = !absent(data.bussuffix) && asText(data.bussuffix)?.trim() !== '';
	if (business) {
		for (const field of ['title', 'forename']) {
			if (!absent(data[field]) && asText(data[field])?.trim() !== '') refusals.add(field, 'is for individual end users only; this record has a business suffix');
		}
	}
	return refusals.texts;
}

// ---- e911 --------------------------------------------------------------------------------------

export const E911_FIELDS = ['name', 'streetNum', 'streetInfo', 'location', 'city', 'state', 'postalCode', 'postalCodePlusFour'] as const;
const E911_OPTIONAL = new Set(['location', 'postalCodePlusFour']);

/**
 * The address as the service reads it: only the contract's fields, text trimmed (numbers as
 * text), and an optional field sent empty treated as absent. Other values are kept so the
 * field checks can name them.
 */
export function e911AddressInput(input: Record<string, unknown>): Record<string, unknown> {
	const address: Record<string, unknown> = {};
	for (const field of E911_FIELDS) {
		if (!Object.hasOwn(input, field)) continue;
		const raw = input[field];
		const value = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
		if (E911_OPTIONAL.has(field) && (value === '' || value === null || value === undefined)) continue;
		address[field] = value;
	}
	return address;
}

/** How a `{NUMBER}` fails as an e911 number: not US at all, or US-shaped but not a valid NANP number. */
export function usNumberFault(number: string): 'not_us' | 'not_nanp' | undefined {
	if (!/^1\d{10}$/.test(number)) return 'not_us';
	// NANP: area code and exchange each start 2-9.
	if (!/^1[2-9]\d{2}[2-9]\d{6}$/.test(number)) return 'not_nanp';
	return undefined;
}

// ---- voice: trunks and limits ------------------------------------------------------------------

/** `{ACCOUNT}-{name}`: the name part is one path segment, without spaces or control characters. */
export function trunkNameProblem(name: string, accountId: string): string | undefined {
	const prefix = `${accountId}-`;
	if (!name.startsWith(prefix) || name.length === prefix.length) return `trunk names are ${accountId}-{name}`;
	const rest = name.slice(prefix.length);
	// Whitespace, control characters and the characters that would end or escape a path segment.
	if (/[\s\\/?#%]/.test(rest) || [...rest].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) {
		return `trunk names are ${accountId}-{name}, without spaces, slashes or control characters`;
	}
	return undefined;
}

export const RATE_UNITS = ['12h', '10s', '1s'];

/** A trunk rate limit `calls/duration` (`5/10s`), normalised, or undefined when malformed. */
export function rateLimitForm(value: unknown): string | undefined {
	const match = typeof value === 'string' ? /^\s*(\d+)\s*\/\s*(12h|10s|1s)\s*$/.exec(value) : null;
	if (!match || Number(match[1]) < 1) return undefined;
	return `${Number(match[1])}/${match[2]}`;
}

/** `PUT /voice/{ACCOUNT}/limits`: both limits, whole numbers, totalling the dedicated allocation. */
export function channelLimitProblems(inbound: unknown, outbound: unknown, allocation: number): string[] {
	const refusals = new Refusals();
	const named: Array<[string, unknown]> = [['limit_concurrent_in', inbound], ['limit_concurrent_out', outbound]];
	for (const [name, value] of named) {
		if (absent(value)) refusals.add(name, 'is required: in and out are set together');
		else if (!wholeAtLeast(value, 0)) refusals.add(name, `${JSON.stringify(value)} is not a whole number of channels`);
	}
	if (refusals.texts.length === 0) {
		const total = Number(inbound) + Number(outbound);
		if (total !== allocation) refusals.add('', `limit_concurrent_in ${Number(inbound)} and limit_concurrent_out ${Number(outbound)} total ${total}; they must total the channel allocation, ${allocation}`);
	}
	return refusals.texts;
}

// ---- notifications -----------------------------------------------------------------------------

/** `POST /notifications/{TYPE}/{METHOD}`: an e-mail address, or a mobile number in E.164. */
export function notificationDestinationProblems(method: 'email' | 'sms', destination: string): string[] {
	const refusals = new Refusals();
	if (destination === '') refusals.add('destination', `is required (${method === 'email' ? 'an e-mail address' : 'a mobile number in E.164'})`);
	else if (method === 'email' && !isEmailAddress(destination)) refusals.add('destination', `${JSON.stringify(destination)} is not an e-mail address`);
	else if (method === 'sms' && !isE164(destination)) refusals.add('destination', `${JSON.stringify(destination)} is not a mobile number in E.164`);
	return refusals.texts;
}
