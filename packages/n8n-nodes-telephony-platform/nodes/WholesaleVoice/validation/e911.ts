import type { ValidationIssue } from '../../shared/operation';
import { isRecord } from '../../shared/responseShape';
import { describeValue, isBlank, issues, maxLength, type Check } from '../../shared/validation';

import { asRule, isText, notObject, notText, violation, wrongKind } from './common';
import { E911_MAX_LENGTHS, type RuleId } from './rules';

/**
 * The US emergency (e911) address of a number: `PUT .../allocated/{NUMBER}/e911` and the two validate requests. The API
 * treats an optional field sent empty as absent; it is sent absent (`normaliseE911Address`) and validated as sent.
 */

export interface E911AddressOptions {
	/** false for `POST /v3/numbers/{ACCOUNT}/e911/validate`, which does not use `name`. */
	requireName: boolean;
}

/** The address fields the e911 calls send, in their order; `name` goes with some of them. */
export const E911_ADDRESS_FIELDS: readonly string[] = [
	'streetNum',
	'streetInfo',
	'location',
	'city',
	'state',
	'postalCode',
	'postalCodePlusFour',
];
const E911_FIELDS: readonly string[] = ['name', ...E911_ADDRESS_FIELDS];
const OPTIONAL_FIELDS: readonly string[] = ['location', 'postalCodePlusFour'];
const MANDATORY_WITHOUT_NAME = ['streetNum', 'streetInfo', 'city', 'state', 'postalCode'];

/** USPS codes of the states, DC and the inhabited territories, where e911 service exists. */
const US_STATE_CODES: ReadonlySet<string> = new Set(
	'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC AS GU MP PR VI'.split(
		' ',
	),
);

export type E911Address = Record<string, unknown>;

/** The address as sent: strings trimmed, numbers (a street number typed as 12) as strings, empty optional fields left out, unknown fields kept. */
export function normaliseE911Address(address: E911Address): E911Address {
	const out: E911Address = {};
	for (const [key, value] of Object.entries(address)) {
		const known = E911_FIELDS.includes(key);
		const normalised =
			typeof value === 'string' ? value.trim() : known && isText(value) ? String(value) : value;
		if (OPTIONAL_FIELDS.includes(key) && isBlank(normalised)) continue;
		out[key] = normalised;
	}
	return out;
}

export function validateE911Address(
	address: unknown,
	options: E911AddressOptions,
): ValidationIssue[] {
	if (!isRecord(address)) return [violation('e911.object', 'address', notObject(address))];
	const sent = normaliseE911Address(address);
	const mandatory = options.requireName
		? ['name', ...MANDATORY_WITHOUT_NAME]
		: MANDATORY_WITHOUT_NAME;
	const found: ValidationIssue[] = [];
	for (const field of E911_FIELDS) {
		const value = sent[field];
		if (notText(value)) found.push(wrongKind('e911.field-text', field, value, 'text'));
		else if (!isBlank(value)) found.push(...issues(formChecks(field, String(value))));
		else if (mandatory.includes(field))
			found.push(violation('e911.mandatory', field, 'it is empty'));
	}
	return found;
}

/** The length and form rules of one field that holds text. */
function formChecks(field: string, text: string): Check[] {
	const lengthField = field as keyof typeof E911_MAX_LENGTHS;
	const maxLengthRule: RuleId = `e911.${lengthField}.max-length`;
	const checks =
		field in E911_MAX_LENGTHS
			? [asRule(maxLengthRule, maxLength(field, text, E911_MAX_LENGTHS[lengthField]))]
			: [];
	if (field === 'streetInfo' && text.includes('#'))
		checks.push(violation('e911.streetInfo.no-hash', field, `${describeValue(text)} contains #`));
	if (field === 'state' && !/^[A-Z]{2}$/.test(text)) {
		checks.push(
			violation(
				'e911.state.form',
				field,
				`${describeValue(text)} is not two capital letters${/^[A-Za-z]{2}$/.test(text) ? ` (write ${text.toUpperCase()})` : ''}`,
			),
		);
	} else if (field === 'state' && !US_STATE_CODES.has(text))
		checks.push(
			violation('e911.state.known', field, `${text} is not a US state or territory code`),
		);
	if (field === 'postalCode' && text.length < 5)
		checks.push(
			violation('e911.postalCode.min-length', field, `it is ${text.length} characters long`),
		);
	else if (field === 'postalCode' && text.length <= 10 && !/^\d{5}(-?\d{4})?$/.test(text))
		checks.push(
			violation('e911.postalCode.form', field, `${describeValue(text)} is not a US ZIP code`),
		);
	if (field === 'postalCodePlusFour' && !/^\d{4}$/.test(text))
		checks.push(
			violation('e911.postalCodePlusFour.form', field, `${describeValue(text)} is not four digits`),
		);
	return checks;
}

/** The `{NUMBER}` of an e911 request: `1` + area code + exchange + line, area code and exchange starting with 2 to 9 (NANP). */
export function validateUsNumber(field: string, number: unknown): ValidationIssue[] {
	if (isBlank(number)) return [violation('e911.number.form', field, 'it is empty')];
	const text = isText(number) ? String(number).trim() : '';
	if (!/^1\d{10}$/.test(text)) {
		const hint = /^\+1\d{10}$/.test(text) ? ' (leave out the +)' : '';
		return [
			violation(
				'e911.number.form',
				field,
				`${describeValue(number)} is not 1 followed by 10 digits${hint}`,
			),
		];
	}
	const areaCode = text.slice(1, 4);
	const exchange = text.slice(4, 7);
	const wrong = [
		/^[2-9]/.test(areaCode) ? '' : `area code ${areaCode}`,
		/^[2-9]/.test(exchange) ? '' : `exchange ${exchange}`,
	].filter(Boolean);
	return wrong.length === 0
		? []
		: [
				violation(
					'e911.number.nanp',
					field,
					`${wrong.join(' and ')} of ${text} ${wrong.length > 1 ? 'start' : 'starts'} with 0 or 1`,
				),
			];
}
