import type { ValidationIssue } from '../../shared/operation';
import { describeValue, isBlank, maxLength } from '../../shared/validation';

import { asRule, isPlainObject, isText, kindOf, notText, violation } from './common';
import { E911_MAX_LENGTHS, type RuleId } from './rules';

/**
 * The US emergency (e911) address of a number: `PUT .../allocated/{NUMBER}/e911` and the two
 * validate requests. The API treats an optional field sent empty as absent; this module sends
 * it absent (`normaliseE911Address`) and validates the address as it will be sent.
 */

export interface E911AddressOptions {
	/** false for `POST /v3/numbers/{ACCOUNT}/e911/validate`, which does not use `name`. */
	requireName: boolean;
}

/** The field named when the address as a whole is not an object. */
export const E911_FIELD = 'address';

export const E911_FIELDS = [
	'name',
	'streetNum',
	'streetInfo',
	'location',
	'city',
	'state',
	'postalCode',
	'postalCodePlusFour',
] as const;

const OPTIONAL_FIELDS: readonly string[] = ['location', 'postalCodePlusFour'];
const MANDATORY_WITHOUT_NAME = ['streetNum', 'streetInfo', 'city', 'state', 'postalCode'] as const;

/** USPS codes of the states, DC and the inhabited territories, where e911 service exists. */
export const US_STATE_CODES: ReadonlySet<string> = new Set(
	(
		'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY ' +
		'DC AS GU MP PR VI'
	).split(' '),
);

export type E911Address = Record<string, unknown>;

/**
 * The address as it should be sent: strings trimmed, numbers (a street number typed as 12)
 * as strings, and optional fields that are empty left out, so `postalCodePlusFour` is never ''.
 * Fields the spec does not list are kept (strings trimmed).
 */
export function normaliseE911Address(address: E911Address): E911Address {
	const out: E911Address = {};
	for (const [key, value] of Object.entries(address)) {
		const known = (E911_FIELDS as readonly string[]).includes(key);
		const normalised = typeof value === 'string' ? value.trim() : known && isText(value) ? String(value) : value;
		if (OPTIONAL_FIELDS.includes(key) && isBlank(normalised)) continue;
		out[key] = normalised;
	}
	return out;
}

export function validateE911Address(address: unknown, options: E911AddressOptions): ValidationIssue[] {
	if (!isPlainObject(address)) {
		const problem = isBlank(address) ? 'it is empty' : `it is ${kindOf(address)}, not an object`;
		return [violation('e911.object', E911_FIELD, problem)];
	}
	const sent = normaliseE911Address(address);
	const mandatory: readonly string[] = options.requireName ? ['name', ...MANDATORY_WITHOUT_NAME] : MANDATORY_WITHOUT_NAME;
	const found: ValidationIssue[] = [];
	const add = (issue: ValidationIssue | undefined) => {
		if (issue) found.push(issue);
	};

	for (const field of E911_FIELDS) {
		const value = sent[field];
		if (notText(value)) {
			add(violation('e911.field-text', field, `it is ${kindOf(value)}, not text`));
			continue;
		}
		if (isBlank(value)) {
			if (mandatory.includes(field)) add(violation('e911.mandatory', field, 'it is empty'));
			continue;
		}
		const text = String(value);
		if (field in E911_MAX_LENGTHS) {
			const lengthField = field as keyof typeof E911_MAX_LENGTHS;
			const maxLengthRule: RuleId = `e911.${lengthField}.max-length`;
			add(asRule(maxLengthRule, maxLength(field, text, E911_MAX_LENGTHS[lengthField])));
		}
		if (field === 'streetInfo' && text.includes('#')) {
			add(violation('e911.streetInfo.no-hash', field, `${describeValue(text)} contains #`));
		}
		if (field === 'state') {
			if (!/^[A-Z]{2}$/.test(text)) {
				const hint = /^[A-Za-z]{2}$/.test(text) ? ` (write ${text.toUpperCase()})` : '';
				add(violation('e911.state.form', field, `${describeValue(text)} is not two capital letters${hint}`));
			} else if (!US_STATE_CODES.has(text)) {
				add(violation('e911.state.known', field, `${text} is not a US state or territory code`));
			}
		}
		if (field === 'postalCode' && text.length < 5) {
			add(violation('e911.postalCode.min-length', field, `it is ${text.length} characters long`));
		} else if (field === 'postalCode' && text.length <= 10 && !/^\d{5}(-?\d{4})?$/.test(text)) {
			add(violation('e911.postalCode.form', field, `${describeValue(text)} is not a US ZIP code`));
		}
		if (field === 'postalCodePlusFour' && !/^\d{4}$/.test(text)) {
			add(violation('e911.postalCodePlusFour.form', field, `${describeValue(text)} is not four digits`));
		}
	}
	return found;
}

/**
 * The `{NUMBER}` of an e911 request: a US number in E.164 without the plus, `1` + area code + exchange + line,
 * where area code and exchange start with 2 to 9 (the NANP rule).
 */
export function validateUsNumber(field: string, number: unknown): ValidationIssue[] {
	if (isBlank(number)) return [violation('e911.number.form', field, 'it is empty')];
	const text = isText(number) ? String(number).trim() : '';
	if (!/^1\d{10}$/.test(text)) {
		const hint = /^\+1\d{10}$/.test(text) ? ' (leave out the +)' : '';
		return [violation('e911.number.form', field, `${describeValue(number)} is not 1 followed by 10 digits${hint}`)];
	}
	const areaCode = text.slice(1, 4);
	const exchange = text.slice(4, 7);
	const wrong = [
		/^[2-9]/.test(areaCode) ? undefined : `area code ${areaCode}`,
		/^[2-9]/.test(exchange) ? undefined : `exchange ${exchange}`,
	].filter((part): part is string => part !== undefined);
	return wrong.length === 0
		? []
		: [violation('e911.number.nanp', field, `${wrong.join(' and ')} of ${text} ${wrong.length > 1 ? 'start' : 'starts'} with 0 or 1`)];
}
