import { NUMBERING_PLANS, plannedCountryCode } from './numberingPlan';
import { describeValue, isBlank, matches, type Check } from './validation';

// Phone numbers as people type them: the national prefix by the numbering plan, national and E.164 forms.

/** A national prefix in brackets right after a country code (`+44 (0) 20…`, `0044 (0)20…`): dropped where the numbering plan says 0 is that prefix. */
const TRUNK_AFTER_COUNTRY_CODE = /^(\s*(?:\+|00)?\s*([1-9]\d{0,2}))\s*\(\s*0\s*\)\s*/;

/** A number as typed, a `(0)` after a country code whose national prefix is 0 dropped: `+44 (0) 20 7946 0123` → `+44 20 7946 0123`. */
export function withoutTrunkPrefix(text: string): string {
	const found = TRUNK_AFTER_COUNTRY_CODE.exec(text);
	return found && NUMBERING_PLANS[found[2]]?.prefix === '0'
		? text.replace(TRUNK_AFTER_COUNTRY_CODE, '$1 ')
		: text;
}

/** The digits of a phone number as typed (a leading + kept): spaces, dashes, dots and brackets removed, a national `(0)` after the country code dropped. */
export function phoneDigits(value: unknown): string {
	return withoutTrunkPrefix(String(value ?? '').trim()).replace(/[\s().-]/g, '');
}

export const TRUNK_PREFIX_RULE =
	'a number in international form without the national prefix (+44 20 7946 0123), or with a national 0 in brackets right after a country code whose national prefix is 0 (+44 (0) 20 7946 0123), where it is dropped; national prefixes as the numbering plan in docs/safety.md gives them';

/** A `(0)` the plan does not drop: anywhere but after a country code, or after one whose national prefix is not 0 or not known. */
function bracketProblem(text: string): string | undefined {
	if (!/\(\s*0\s*\)/.test(withoutTrunkPrefix(text))) return undefined;
	const code = TRUNK_AFTER_COUNTRY_CODE.exec(text)?.[2];
	const plan = code === undefined ? undefined : NUMBERING_PLANS[code];
	if (code === undefined) return 'has a national 0 in brackets that does not follow a country code';
	if (!plan)
		return `has a national 0 in brackets after +${code}, a country code whose national prefix the numbering plan does not hold: whether the 0 is dialled cannot be told`;
	return plan.prefix === ''
		? `has a 0 in brackets after +${code}: ${plan.country} has no national prefix and the 0 is part of the number (write it without brackets)`
		: `has a 0 in brackets after +${code}: the national prefix of ${plan.country} is ${plan.prefix}, not 0`;
}

/** A number in international form (digits after + or 00, or bare) whose part after a known country code breaks its plan: `+44 07902…`. */
function internationalProblem(digits: string): { problem: string; rule: string } | undefined {
	const bare = digits.replace(/^(\+|00)/, '');
	const code = plannedCountryCode(bare);
	const plan = code === undefined ? undefined : NUMBERING_PLANS[code];
	if (!plan?.nsn || plan.nsn.test(bare.slice(code!.length))) return undefined;
	return {
		problem: `is not a number of ${plan.country} in international form`,
		rule: `+${code} numbers: ${plan.nsnRule}`,
	};
}

/**
 * A number as typed that cannot be dialled as it reads: a `(0)` the plan does not drop, or in international form (after + or
 * 00; 7 to 15 bare digits too unless `countryCode` reads them as national) a national prefix after the country code (`+44 07902…`).
 * Extensions and short codes (`101`, `12345`) are no international numbers.
 */
export function trunkPrefixIssue(field: string, value: unknown, countryCode?: unknown): Check {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	const bracket = bracketProblem(text);
	if (bracket)
		return { field, problem: `${describeValue(value)} ${bracket}`, rule: TRUNK_PREFIX_RULE };
	const digits = phoneDigits(text);
	const international =
		/^(\+|00)\d+$/.test(digits) ||
		(isBlank(countryCode) && nationalDigits(text) !== undefined && !digits.startsWith('0'));
	if (!international) return undefined;
	const found = internationalProblem(digits);
	return found && { field, problem: `${describeValue(value)} ${found.problem}`, rule: found.rule };
}

const PHONE_RULE =
	'digits with an optional leading +, 3 to 15 digits (spaces, dashes and brackets are ignored; a national (0) right after the country code is dropped)';

/** A phone number as people type it: digits, an optional leading +, spaces, dashes, dots or brackets; `countryCode` as trunkPrefixIssue reads it. */
export function phoneNumber(field: string, value: unknown, countryCode?: unknown): Check {
	if (isBlank(value)) return undefined;
	const trunk = trunkPrefixIssue(field, value, countryCode);
	if (trunk || /^\+?\d{3,15}$/.test(phoneDigits(value))) return trunk;
	return { field, problem: `${describeValue(value)} is not a phone number`, rule: PHONE_RULE };
}

/** Digits without + or 00, 7 to 15 of them: what a national number can be (shorter ones are extensions and short codes, dialled as they are). */
function nationalDigits(value: unknown): string | undefined {
	const digits = phoneDigits(value);
	return /^\d{7,15}$/.test(digits) && !digits.startsWith('00') ? digits : undefined;
}

/** A number in national form: a trunk 0, then the rest (07700 900123); which country it belongs to cannot be told without a country code. */
export function isNationalNumber(value: unknown): boolean {
	return /^0[1-9]/.test(nationalDigits(value) ?? '');
}

export const NATIONAL_RULE =
	'a number in international form with + and the country code (+44 7700 900123); a national number (07700 900123) only with Default Country Code set to a country of the numbering plan in docs/safety.md, which converts it';

const countryCodeText = (countryCode: unknown) => String(countryCode).trim().replace(/^\+/, '');

/**
 * A national number in international form by its country's plan: the national prefix dropped (07700 900123 → +447700900123,
 * 8 912 345-67-89 → +79123456789, 06 1 234 5678 → +3612345678), kept whole where there is none (06 6988 3251 → +390669883251);
 * the NANP's 10 digits without its prefix 1 too. The problem instead where the plan cannot convert it.
 */
function converted(digits: string, code: string): { number: string } | { problem: string } {
	const plan = NUMBERING_PLANS[code];
	if (!plan)
		return {
			problem: `is a national number for +${code}, a country code whose national prefix the numbering plan does not hold: it cannot be converted`,
		};
	if (plan.prefix === '' && digits.startsWith(code)) {
		return {
			problem: `begins with ${code}, the country code, and ${plan.country} has no national prefix: whether it is already in international form cannot be told`,
		};
	}
	const nsn =
		plan.prefix === ''
			? digits
			: digits.startsWith(plan.prefix)
				? digits.slice(plan.prefix.length)
				: code === '1' && digits.length === 10
					? digits
					: undefined;
	if (nsn === undefined)
		return {
			problem: `is not a national number of ${plan.country}: those begin with the national prefix ${plan.prefix}`,
		};
	if (plan.nsn && !plan.nsn.test(nsn))
		return {
			problem: `is not a national number of ${plan.country}: after the national prefix, ${plan.nsnRule}`,
		};
	return { number: `+${code}${nsn}` };
}

/** A national number that cannot be converted: no Default Country Code says its country, or the numbering plan cannot convert it for that country. */
export function nationalIssue(field: string, value: unknown, countryCode: unknown): Check {
	if (isBlank(countryCode)) {
		return isNationalNumber(value)
			? {
					field,
					problem: `${describeValue(value)} is a national number: its country cannot be told`,
					rule: NATIONAL_RULE,
				}
			: undefined;
	}
	const digits = nationalDigits(value);
	if (digits === undefined || !/^[1-9]\d{0,2}$/.test(countryCodeText(countryCode)))
		return undefined;
	const result = converted(digits, countryCodeText(countryCode));
	return 'problem' in result
		? { field, problem: `${describeValue(value)} ${result.problem}`, rule: NATIONAL_RULE }
		: undefined;
}

/** The number as sent: with Default Country Code a national one in international form (see `converted`), else its digits. */
export function dialledNumber(value: unknown, countryCode: unknown): string {
	const digits = nationalDigits(value);
	if (digits === undefined || isBlank(countryCode)) return phoneDigits(value);
	const result = converted(digits, countryCodeText(countryCode));
	return 'number' in result ? result.number : phoneDigits(value);
}

/** The Default Country Code field of the operations that take a phone number: what converts a national number. */
export const defaultCountryCodeField = {
	displayName: 'Default Country Code',
	name: 'defaultCountryCode',
	type: 'string' as const,
	default: '',
	placeholder: 'e.g. 44',
	description:
		"Reads a number without + or 00 as a national number of this country and converts it by the country's national prefix (07700 900123 with 44 → +447700900123); countries outside the numbering plan in the docs are refused. Empty: a national number is refused.",
};

export function countryCodeIssue(field: string, value: unknown): Check {
	return isBlank(value)
		? undefined
		: matches(
				field,
				countryCodeText(value),
				/^[1-9]\d{0,2}$/,
				'a country calling code: 1 to 3 digits, e.g. 44 or 1',
			);
}

/** E.164 with or without the plus: 7 to 15 digits (the shortest in use, such as Niue's, have 7 with the country code), no leading zero, no national prefix after a known country code. */
export function e164(
	field: string,
	value: unknown,
	rule = 'an E.164 number: country code and number, 7 to 15 digits, e.g. 447700900123',
): Check {
	const digits = String(value ?? '').replace(/^\+/, '');
	const form = matches(field, digits, /^[1-9]\d{6,14}$/, rule);
	const found = form || isBlank(value) ? undefined : internationalProblem(digits);
	return (
		form ??
		(found && { field, problem: `${describeValue(value)} ${found.problem}`, rule: found.rule })
	);
}
