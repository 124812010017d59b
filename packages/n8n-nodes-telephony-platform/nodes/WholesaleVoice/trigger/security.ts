import { createHash, timingSafeEqual } from 'node:crypto';

import { headerValue } from '../../shared/params';

/**
 * Who may call the Wholesale Voice Trigger: the spec gives no signature scheme yet and lists its webhooks' five networks.
 * Pure checks of the client address as n8n computed it (`req.ip`, honouring proxy hops), never a raw `X-Forwarded-For`.
 */

/** The spec's source networks of outbound webhook requests (Authentication, rule 4). */
export const PLATFORM_NETWORKS: readonly string[] = [
	'178.22.139.84/31',
	'185.63.140.84/31',
	'185.63.142.84/31',
	'185.63.141.84/31',
	'185.63.143.84/31',
];

export type SourceNetworks = 'platform' | 'any' | 'custom';
export type SecretLocation = 'none' | 'query' | 'header';

export const DEFAULT_SECRET_QUERY_PARAMETER = 'token';
export const DEFAULT_SECRET_HEADER = 'X-Webhook-Secret';

/** `::ffff:1.2.3.4` (an IPv4 client on a dual-stack socket, in any IPv6 spelling) as `1.2.3.4`; brackets and a zone index dropped. */
export function normaliseAddress(address: string): string {
	let text = address.trim();
	// The usual case, a plain IPv4 address, without the rewrites below (this runs for every delivery).
	if (!text.includes(':') && !text.includes('%') && !text.startsWith('[')) return text;
	text = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
	if (!text.includes(':')) return text;
	// How a dual-stack socket shows an IPv4 client; other spellings go through the full reading.
	const dualStack = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(text)?.[1];
	if (dualStack !== undefined && ipv4Value(dualStack) !== undefined) return dualStack;
	const groups = ipv6Groups(text);
	return groups && isIpv4Mapped(groups) ? ipv4Text(((groups[6] << 16) | groups[7]) >>> 0) : text;
}

// Read here, not with node:net (n8n Cloud refuses it), in isIP's forms: IPv4 without leading zeros, RFC 4291 IPv6 text.
const IPV4_PATTERN =
	/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV6_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or undefined. */
function ipv4Value(text: string): number | undefined {
	const octets = IPV4_PATTERN.exec(text);
	if (!octets) return undefined;
	return (
		((Number(octets[1]) << 24) |
			(Number(octets[2]) << 16) |
			(Number(octets[3]) << 8) |
			Number(octets[4])) >>>
		0
	);
}

function ipv4Text(value: number): string {
	return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}

/** One side of a "::" as 16-bit groups; only the last side may end in an IPv4 address. */
function ipv6Side(text: string, mayEndInIpv4: boolean): number[] | undefined {
	if (text === '') return [];
	const pieces = text.split(':');
	const groups: number[] = [];
	for (let i = 0; i < pieces.length; i++) {
		if (IPV6_GROUP.test(pieces[i])) {
			groups.push(parseInt(pieces[i], 16));
			continue;
		}
		const ipv4 = mayEndInIpv4 && i === pieces.length - 1 ? ipv4Value(pieces[i]) : undefined;
		if (ipv4 === undefined) return undefined;
		groups.push(ipv4 >>> 16, ipv4 & 0xffff);
	}
	return groups;
}

/** An IPv6 address as its eight 16-bit groups, or undefined. */
function ipv6Groups(text: string): number[] | undefined {
	if (text.length > 45) return undefined;
	const halves = text.split('::');
	if (halves.length > 2) return undefined;
	if (halves.length === 1) {
		const groups = ipv6Side(text, true);
		return groups?.length === 8 ? groups : undefined;
	}
	const head = ipv6Side(halves[0], false);
	const tail = ipv6Side(halves[1], true);
	// "::" stands for at least one group of zeros.
	if (!head || !tail || head.length + tail.length > 7) return undefined;
	return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

const isIpv4Mapped = (groups: readonly number[]) =>
	groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;

type Address = { family: 4; value: number } | { family: 6; groups: number[] };

/** A normalised address (see normaliseAddress), or undefined when it is not one. */
function parseAddress(text: string): Address | undefined {
	if (text.includes(':')) {
		const groups = ipv6Groups(text);
		return groups ? { family: 6, groups } : undefined;
	}
	const value = ipv4Value(text);
	return value === undefined ? undefined : { family: 4, value };
}

export interface ParsedNetworks {
	/** Each entry as `address/prefix`. */
	networks: string[];
	/** Entries that are neither an address nor a CIDR network, as written. */
	invalid: string[];
}

/** A list of networks as users write it: CIDR (`203.0.113.0/24`, `2001:db8::/32`) or addresses, separated by commas, semicolons, spaces or lines. */
export function parseNetworks(text: string | readonly string[]): ParsedNetworks {
	const entries = (typeof text === 'string' ? text.split(/[\s,;]+/) : [...text])
		.map((e) => e.trim())
		.filter(Boolean);
	const networks: string[] = [];
	const invalid: string[] = [];
	for (const entry of entries) {
		const [rawAddress, prefixText, ...rest] = entry.split('/');
		const address = normaliseAddress(rawAddress);
		const parsed = parseAddress(address);
		const max = parsed?.family === 4 ? 32 : 128;
		const prefix =
			prefixText === undefined
				? max
				: /^\d{1,3}$/.test(prefixText)
					? Number(prefixText)
					: Number.NaN;
		if (!parsed || rest.length > 0 || !(prefix >= 0 && prefix <= max)) {
			invalid.push(entry);
			continue;
		}
		networks.push(`${address}/${prefix}`);
	}
	return { networks, invalid };
}

/** A network list ready for checks: each network's masked address, IPv4 as one number, IPv6 as 16-bit groups. */
interface CompiledNetworks {
	v4: Array<[base: number, mask: number]>;
	v6: Array<[base: number[], masks: number[]]>;
}

/** The mask of each 16-bit group of an IPv6 prefix. */
function ipv6Masks(prefix: number): number[] {
	return Array.from({ length: 8 }, (_, i) => {
		const bits = Math.min(16, Math.max(0, prefix - 16 * i));
		return bits === 0 ? 0 : (0xffff << (16 - bits)) & 0xffff;
	});
}

// Compiled on every delivery, never cached: one delivery costs microseconds, and module-wide state would outlive the workflow.
function compile(networks: readonly string[]): CompiledNetworks {
	const list: CompiledNetworks = { v4: [], v6: [] };
	for (const network of networks) {
		const [addressText, prefixText] = network.split('/');
		const address = parseAddress(addressText);
		const prefix = Number(prefixText);
		if (address?.family === 4) {
			const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
			list.v4.push([(address.value & mask) >>> 0, mask]);
		} else if (address?.family === 6) {
			const masks = ipv6Masks(prefix);
			list.v6.push([address.groups.map((group, i) => group & masks[i]), masks]);
		}
	}
	return list;
}

/** Whether an address lies in one of the networks (parsed by `parseNetworks`). */
export function addressAllowed(address: string | undefined, networks: readonly string[]): boolean {
	if (!address) return false;
	const normalised = normaliseAddress(address);
	const list = compile(networks);
	// Still IPv6 after normalising (not an IPv4 client), against IPv4 networks only: refused unread.
	if (list.v6.length === 0 && normalised.includes(':')) return false;
	const parsed = parseAddress(normalised);
	if (!parsed) return false;
	if (parsed.family === 4)
		return list.v4.some(([base, mask]) => (parsed.value & mask) >>> 0 === base);
	const groups = parsed.groups;
	return list.v6.some(([base, masks]) =>
		base.every((group, i) => (groups[i] & masks[i]) === group),
	);
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compares a presented secret with the expected one in constant time, whatever their lengths. */
export function sameSecret(given: unknown, expected: string): boolean {
	if (typeof given !== 'string' || given === '' || expected === '') return false;
	// Both hashed on every delivery (equal lengths for timingSafeEqual); nothing is kept, so no secret outlives the call.
	return timingSafeEqual(digest(given), digest(expected));
}

export interface CallerSettings {
	sourceNetworks: SourceNetworks;
	/** The custom list, as typed (only for `custom`). */
	customNetworks?: string;
	secretLocation: SecretLocation;
	/** The query parameter or header that carries the secret. */
	secretName?: string;
	secret?: string;
}

export interface Caller {
	/** The client address as n8n computed it (`req.ip`). */
	address: string | undefined;
	query: Record<string, unknown>;
	headers: Record<string, unknown>;
}

export type CallerCheck = { allowed: true } | { allowed: false; status: 401 | 403; reason: string };

/** Problems with the settings themselves, for activation and as a refusal when a delivery comes anyway. */
export function settingsProblems(settings: CallerSettings): string[] {
	const problems: string[] = [];
	if (settings.sourceNetworks === 'custom') {
		const { networks, invalid } = parseNetworks(settings.customNetworks ?? '');
		if (invalid.length)
			problems.push(
				`Allowed Networks: ${invalid.map((e) => `"${e}"`).join(', ')} ${invalid.length === 1 ? 'is' : 'are'} not an IP address or CIDR network (e.g. 203.0.113.0/24)`,
			);
		else if (networks.length === 0)
			problems.push(
				'Allowed Networks: the list is empty; give at least one network, or choose Any Source',
			);
	}
	if (settings.secretLocation !== 'none') {
		if (!settings.secret)
			problems.push('Secret: it is empty; set a long random value, or choose no secret');
		const name = settings.secretName ?? '';
		if (!name)
			problems.push(
				`Secret ${settings.secretLocation === 'header' ? 'Header' : 'Query Parameter'}: the name is empty`,
			);
		else if (settings.secretLocation === 'header' && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
			problems.push(`Secret Header: "${name}" is not a valid header name`);
	}
	return problems;
}

/**
 * The network check, then the secret; the reason is for n8n's log, the caller gets the bare status: a wrong network 403
 * (a secret would not help), a missing or wrong secret 401, settings that cannot be applied 403 for everything.
 */
export function checkCaller(settings: CallerSettings, caller: Caller): CallerCheck {
	const problems = settingsProblems(settings);
	if (problems.length)
		return {
			allowed: false,
			status: 403,
			reason: `the trigger's settings are invalid: ${problems.join('; ')}`,
		};
	if (settings.sourceNetworks !== 'any') {
		const networks =
			settings.sourceNetworks === 'custom'
				? parseNetworks(settings.customNetworks ?? '').networks
				: PLATFORM_NETWORKS;
		const list = settings.sourceNetworks === 'custom' ? 'custom list' : "the platform's five";
		if (!addressAllowed(caller.address, networks))
			return {
				allowed: false,
				status: 403,
				reason: `the client address ${caller.address ?? '(unknown)'} is not in the allowed networks (${list})`,
			};
	}
	if (settings.secretLocation !== 'none') {
		const name = settings.secretName ?? '';
		const presented =
			settings.secretLocation === 'query' ? caller.query[name] : headerValue(caller.headers, name);
		const carrier = `${settings.secretLocation === 'query' ? 'query parameter' : 'header'} ${name}`;
		if (!sameSecret(presented, settings.secret ?? ''))
			return {
				allowed: false,
				status: 401,
				reason: `the secret ${carrier} was ${presented === undefined ? 'missing' : 'wrong'}`,
			};
	}
	return { allowed: true };
}
