import { validateE911Address, validateUsNumber } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/e911';
import { E911_MAX_LENGTHS } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/rules';

import { invalid, saying, valid, type RuleCase } from './cases';

export const whiteHouse = {
	name: 'Ada Lovelace',
	streetNum: '1600',
	streetInfo: 'Pennsylvania Ave NW',
	city: 'Washington',
	state: 'DC',
	postalCode: '20500',
};

const check = (address: unknown, requireName = true) => () => validateE911Address(address, { requireName });
const address = (changes: Record<string, unknown>, requireName = true) => check({ ...whiteHouse, ...changes }, requireName);
const number = (value: unknown) => () => validateUsNumber('number', value);

const lengthCases: RuleCase[] = (Object.entries(E911_MAX_LENGTHS) as Array<[keyof typeof E911_MAX_LENGTHS, number]>).flatMap(
	([field, max]) => {
		const ruleId = `e911.${field}.max-length` as const;
		// postalCode keeps its own form: 10 characters is a ZIP+4 written with a hyphen.
		const fitting = field === 'postalCode' ? '20500-0003' : 'x'.repeat(max);
		return [
			valid(ruleId, `${field} of ${max} characters`, address({ [field]: fitting })),
			invalid(ruleId, `${field} of ${max + 1} characters`, address({ [field]: 'x'.repeat(max + 1) }), field),
		];
	},
);

export const e911Cases: RuleCase[] = [
	valid('e911.object', 'an address', check(whiteHouse)),
	invalid('e911.object', 'nothing', check(null), 'address'),
	invalid('e911.object', 'an array', check([whiteHouse]), 'address'),

	valid('e911.field-text', 'a street number given as a number', address({ streetNum: 1600 })),
	invalid('e911.field-text', 'a city given as an object', address({ city: { name: 'Washington' } }), 'city'),

	valid('e911.mandatory', 'no name for the account-level address check', address({ name: undefined }, false)),
	valid('e911.mandatory', 'optional fields sent empty', address({ location: '', postalCodePlusFour: '' })),
	...(['name', 'streetNum', 'streetInfo', 'city', 'state', 'postalCode'] as const).map((field) =>
		invalid('e911.mandatory', `an address without ${field}`, address({ [field]: undefined }), field),
	),
	invalid('e911.mandatory', 'a city of spaces', address({ city: '   ' }), 'city'),

	...lengthCases,

	valid('e911.streetInfo.no-hash', 'a unit in location', address({ streetInfo: 'Main St', location: 'Apt 4' })),
	saying(
		/contains #/,
		invalid('e911.streetInfo.no-hash', 'a unit written with # in streetInfo', address({ streetInfo: 'Main St #4' }), 'streetInfo'),
	),

	valid('e911.state.form', 'NY', address({ state: 'NY' })),
	saying(/write DC/, invalid('e911.state.form', 'a state in lower case', address({ state: 'dc' }), 'state')),
	invalid('e911.state.form', 'a state with dots', address({ state: 'D.C.' }), 'state'),
	invalid('e911.state.form', 'a state name', address({ state: 'Texas' }), 'state'),

	valid('e911.state.known', 'a territory (PR)', address({ state: 'PR' })),
	invalid('e911.state.known', 'two letters that are no state', address({ state: 'ZZ' }), 'state'),

	valid('e911.postalCode.min-length', 'five digits', address({ postalCode: '20500' })),
	invalid('e911.postalCode.min-length', 'four digits', address({ postalCode: '2050' }), 'postalCode'),
	valid('e911.postalCode.form', 'ZIP+4 with a hyphen', address({ postalCode: '20500-0001' })),
	invalid('e911.postalCode.form', 'five letters', address({ postalCode: 'ABCDE' }), 'postalCode'),
	invalid('e911.postalCode.form', 'a UK postcode', address({ postalCode: 'SW1A 1AA' }), 'postalCode'),

	valid('e911.postalCodePlusFour.form', 'four digits', address({ postalCodePlusFour: '0003' })),
	valid('e911.postalCodePlusFour.form', 'an empty string, treated as absent', address({ postalCodePlusFour: '' })),
	invalid('e911.postalCodePlusFour.form', 'a hyphen', address({ postalCodePlusFour: '-003' }), 'postalCodePlusFour'),
	invalid('e911.postalCodePlusFour.form', 'three digits', address({ postalCodePlusFour: '003' }), 'postalCodePlusFour'),
	invalid('e911.postalCodePlusFour.form', 'five digits', address({ postalCodePlusFour: '00034' }), 'postalCodePlusFour'),

	valid('e911.number.form', 'a US number without the plus', number('12025550123')),
	saying(/leave out the \+/, invalid('e911.number.form', 'a US number with the plus', number('+12025550123'), 'number')),
	invalid('e911.number.form', 'ten digits without the country code', number('2025550123'), 'number'),
	invalid('e911.number.form', 'a UK number', number('442079460000'), 'number'),
	invalid('e911.number.form', 'nothing', number(''), 'number'),

	valid('e911.number.nanp', 'area code and exchange starting 2-9', number('19175550199')),
	saying(/area code 025/, invalid('e911.number.nanp', 'an area code starting 0', number('10255550123'), 'number')),
	saying(/exchange 155/, invalid('e911.number.nanp', 'an exchange starting 1', number('12021550123'), 'number')),
	saying(/area code 102 and exchange 055/, invalid('e911.number.nanp', 'both wrong', number('11020550123'), 'number')),
];
