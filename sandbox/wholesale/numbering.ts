import { destinationOf } from './destinations';

/**
 * Number validation and lookup (`/v3/numbers/{ACCOUNT}/validate|lookup/{NUMBER}`): a small
 * numbering plan for the UK (with the regulator's block data and the caller-ID rule), North
 * America, and the countries of the rate deck. "Valid" means well formed, not in service.
 */

interface Country {
	iso: string;
	/** National number lengths accepted. */
	lengths: number[];
	timezones: string[];
	trunkPrefix: string;
}

const COUNTRIES: Record<string, Country> = {
	'44': { iso: 'GB', lengths: [9, 10], timezones: ['Europe/London'], trunkPrefix: '0' },
	'1': { iso: 'US', lengths: [10], timezones: ['America/New_York'], trunkPrefix: '1' },
	'33': { iso: 'FR', lengths: [9], timezones: ['Europe/Paris'], trunkPrefix: '0' },
	'49': { iso: 'DE', lengths: [6, 7, 8, 9, 10, 11], timezones: ['Europe/Berlin'], trunkPrefix: '0' },
	'353': { iso: 'IE', lengths: [7, 8, 9], timezones: ['Europe/Dublin'], trunkPrefix: '0' },
	'34': { iso: 'ES', lengths: [9], timezones: ['Europe/Madrid'], trunkPrefix: '' },
	'39': { iso: 'IT', lengths: [6, 7, 8, 9, 10, 11], timezones: ['Europe/Rome'], trunkPrefix: '' },
	'31': { iso: 'NL', lengths: [9], timezones: ['Europe/Amsterdam'], trunkPrefix: '0' },
	'61': { iso: 'AU', lengths: [9], timezones: ['Australia/Sydney', 'Australia/Perth'], trunkPrefix: '0' },
	'91': { iso: 'IN', lengths: [10], timezones: ['Asia/Kolkata'], trunkPrefix: '0' },
};

/** Area codes of the US numbers the sandbox knows, with carrier and time zone. */
const US_AREAS: Record<string, { carrier: string; timezone: string; state: string }> = {
	'202': { carrier: 'Verizon', timezone: 'America/New_York', state: 'DC' },
	'212': { carrier: 'Verizon', timezone: 'America/New_York', state: 'NY' },
	'312': { carrier: 'AT&T', timezone: 'America/Chicago', state: 'IL' },
	'415': { carrier: 'AT&T', timezone: 'America/Los_Angeles', state: 'CA' },
	'512': { carrier: 'AT&T', timezone: 'America/Chicago', state: 'TX' },
	'617': { carrier: 'Verizon', timezone: 'America/New_York', state: 'MA' },
	'808': { carrier: 'Hawaiian Telcom', timezone: 'Pacific/Honolulu', state: 'HI' },
	'907': { carrier: 'GCI', timezone: 'America/Anchorage', state: 'AK' },
};

/** UK ranges: what the regulator's data says of each (longest prefix of the national number wins). */
const UK_RANGES: Array<{ prefix: string; type: string; use: string; rh: string; date: string }> = [
	{ prefix: '1', type: 'fixed_line', use: 'Geographic', rh: 'BT', date: '1995-04-16' },
	{ prefix: '1632', type: 'fixed_line', use: 'Geographic (drama)', rh: 'Ofcom reserved', date: '2003-01-01' },
	{ prefix: '113', type: 'fixed_line', use: 'Geographic', rh: 'BT', date: '1995-04-16' },
	{ prefix: '2', type: 'fixed_line', use: 'Geographic', rh: 'BT', date: '2000-04-22' },
	{ prefix: '2079', type: 'fixed_line', use: 'Geographic', rh: 'Gamma Telecom', date: '2009-11-12' },
	{ prefix: '3', type: 'uan', use: 'Non-geographic (03)', rh: 'Gamma Telecom', date: '2007-02-13' },
	{ prefix: '55', type: 'voip', use: 'Corporate numbering', rh: 'Colt Technology Services', date: '2004-06-01' },
	{ prefix: '56', type: 'voip', use: 'Location-independent electronic communications', rh: 'Vonage', date: '2004-06-01' },
	{ prefix: '70', type: 'personal_number', use: 'Personal numbering', rh: 'Telecom 10', date: '1996-01-01' },
	{ prefix: '7', type: 'mobile', use: 'Mobile', rh: 'Vodafone', date: '1996-01-01' },
	{ prefix: '74', type: 'mobile', use: 'Mobile', rh: 'Hutchison 3G', date: '2003-03-03' },
	{ prefix: '75', type: 'mobile', use: 'Mobile', rh: 'EE', date: '2001-09-01' },
	{ prefix: '76', type: 'pager', use: 'Radiopaging', rh: 'PageOne', date: '1996-01-01' },
	{ prefix: '7700', type: 'mobile', use: 'Mobile (drama)', rh: 'Ofcom reserved', date: '2003-01-01' },
	{ prefix: '78', type: 'mobile', use: 'Mobile', rh: 'O2', date: '1996-01-01' },
	{ prefix: '80', type: 'toll_free', use: 'Freephone', rh: 'BT', date: '1995-04-16' },
	{ prefix: '84', type: 'shared_cost', use: 'Special services (084)', rh: 'BT', date: '1995-04-16' },
	{ prefix: '87', type: 'shared_cost', use: 'Special services (087)', rh: 'BT', date: '1995-04-16' },
	{ prefix: '9', type: 'premium_rate', use: 'Premium rate services', rh: 'BT', date: '1995-04-16' },
	{ prefix: '909', type: 'premium_rate', use: 'Premium rate services (sexual entertainment)', rh: 'Telecom 10', date: '2009-09-01' },
];

function ukRange(national: string) {
	let best: (typeof UK_RANGES)[number] | undefined;
	for (const range of UK_RANGES) {
		if (national.startsWith(range.prefix) && (!best || range.prefix.length > best.prefix.length)) best = range;
	}
	return best;
}

function countryOf(number: string): { code: string; country: Country } | undefined {
	for (const length of [3, 2, 1]) {
		const code = number.slice(0, length);
		if (COUNTRIES[code]) return { code, country: COUNTRIES[code] };
	}
	return undefined;
}

/** The UK national form with its usual spacing: 020 7946 0123, 0113 496 0000, 01632 960001, 07700 900123, 0300 123 4567. */
export function ukNational(nsn: string): string {
	const n = `0${nsn}`;
	if (/^02/.test(n)) return `${n.slice(0, 3)} ${n.slice(3, 7)} ${n.slice(7)}`;
	if (/^01(1\d|\d1)/.test(n)) return `${n.slice(0, 4)} ${n.slice(4, 7)} ${n.slice(7)}`;
	if (/^0[17]/.test(n)) return `${n.slice(0, 5)} ${n.slice(5)}`;
	return `${n.slice(0, 4)} ${n.slice(4, 7)} ${n.slice(7)}`;
}

function format(code: string, nsn: string): { e164: string; national: string; international: string } {
	if (code === '44') {
		const national = ukNational(nsn);
		return { e164: `+44${nsn}`, national, international: `+44 ${national.slice(1)}` };
	}
	if (code === '1') {
		return {
			e164: `+1${nsn}`,
			national: `(${nsn.slice(0, 3)}) ${nsn.slice(3, 6)}-${nsn.slice(6)}`,
			international: `+1 ${nsn.slice(0, 3)}-${nsn.slice(3, 6)}-${nsn.slice(6)}`,
		};
	}
	const grouped = nsn.replace(/(\d{3})(?=\d)/g, '$1 ');
	return { e164: `+${code}${nsn}`, national: `${COUNTRIES[code]?.trunkPrefix ?? ''}${grouped}`, international: `+${code} ${grouped}` };
}

export interface ValidationResult extends Record<string, unknown> {
	valid: boolean;
}

export function validateNumber(input: string): ValidationResult {
	const number = input.trim().replace(/^\+/, '');
	const found = /^\d{7,15}$/.test(number) ? countryOf(number) : undefined;
	const invalid: ValidationResult = {
		valid: false,
		country_code: found ? Number(found.code) : null,
		iso: found?.country.iso ?? null,
		national_number: found ? number.slice(found.code.length) : null,
		type: null,
		carrier: null,
		timezones: [],
		formatted: null,
	};
	if (!found) {
		const destination = /^\d{8,15}$/.test(number) ? destinationOf(number) : undefined;
		if (!destination) return invalid;
		// A country of the rate deck without a numbering plan here: well formed by length.
		return {
			valid: true,
			country_code: null,
			iso: destination.iso,
			national_number: null,
			type: destination.kind === 'mobile' ? 'mobile' : destination.kind === 'fixed' ? 'fixed_line' : 'unknown',
			carrier: null,
			timezones: [],
			formatted: { e164: `+${number}`, national: null, international: `+${number}` },
		};
	}
	const { code, country } = found;
	const nsn = number.slice(code.length);
	if (!country.lengths.includes(nsn.length)) return invalid;
	if (code === '1' && !/^[2-9]\d{2}[2-9]\d{6}$/.test(nsn)) return invalid;
	if (code === '44' && /^0/.test(nsn)) return invalid;
	const result: ValidationResult = {
		valid: true,
		country_code: Number(code),
		iso: country.iso,
		national_number: nsn,
		type: 'fixed_line',
		carrier: null,
		timezones: country.timezones,
		formatted: format(code, nsn),
	};
	if (code === '44') {
		const range = ukRange(nsn);
		if (!range || (nsn.length === 9 && !/^1/.test(nsn))) return invalid;
		result.type = range.type;
		result.carrier = range.rh;
		result.ofcom = {
			status: 'Allocated',
			use: range.use,
			rh: range.rh,
			date: range.date,
			// Premium-rate (09) numbers are valid numbers but not acceptable as caller ID.
			valid_cli: !nsn.startsWith('9'),
		};
	} else if (code === '1') {
		const area = US_AREAS[nsn.slice(0, 3)];
		result.type = 'fixed_line_or_mobile';
		result.carrier = area?.carrier ?? 'Unknown carrier';
		result.timezones = [area?.timezone ?? 'America/New_York'];
		result.iso = destinationOf(number)?.iso === 'CA' ? 'CA' : 'US';
	} else {
		const destination = destinationOf(number);
		result.type = destination?.kind === 'mobile' ? 'mobile' : 'fixed_line';
	}
	return result;
}

/** UK number lookup: the regulator's block (code, prefix) and range holder. undefined for other numbers. */
export function lookupNumber(input: string): { formatted: string; data: { code: string; prefix: string; rh: string } } | undefined {
	const number = input.trim().replace(/^\+/, '');
	const result = validateNumber(number);
	if (!result.valid || result.country_code !== 44) return undefined;
	const nsn = number.slice(2);
	const national = ukNational(nsn);
	const code = national.split(' ')[0];
	const range = ukRange(nsn);
	return {
		formatted: national,
		// The regulator's block of 1,000 numbers: the national form's first eight digits.
		data: { code, prefix: `0${nsn.slice(0, 7)}`, rh: range?.rh ?? 'BT' },
	};
}

/** US state of an area code the sandbox knows (for the e911 address check). */
export function usAreaState(number: string): string | undefined {
	return US_AREAS[number.slice(1, 4)]?.state;
}

export function isUkMobile(number: string): boolean {
	return /^447[1-57-9]/.test(number);
}

export function isUsNumber(number: string): boolean {
	return /^1[2-9]\d{2}[2-9]\d{6}$/.test(number);
}
