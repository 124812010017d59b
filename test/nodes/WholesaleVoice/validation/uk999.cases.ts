import { UK999_MAX_LENGTHS } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/rules';
import { validateUk999, type EndUserKind } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/uk999';

import { invalid, saying, valid, type RuleCase } from './cases';

const individual = {
	title: 'Mrs',
	forename: 'Ada',
	name: 'Lovelace',
	premises: '12',
	thoroughfare: 'St James Street',
	locality: 'London',
	postcode: 'SW1A 1AA',
};
const business = {
	name: 'Example Widgets',
	bussuffix: 'Ltd',
	premises: 'Unit 4, Riverside Park',
	thoroughfare: 'Mill Lane',
	locality: 'Kendal',
	postcode: 'LA9 4AB',
};

const check = (data: unknown, kind: EndUserKind = 'individual') => () => validateUk999(data, kind);
const person = (changes: Record<string, unknown>) => check({ ...individual, ...changes });
const company = (changes: Record<string, unknown>) => check({ ...business, ...changes }, 'business');

/** At the limit passes, one over fails: title and forename tried on an individual, bussuffix on a business. */
const lengthCases: RuleCase[] = (Object.entries(UK999_MAX_LENGTHS) as Array<[keyof typeof UK999_MAX_LENGTHS, number]>).flatMap(
	([field, max]) => {
		const ruleId = `uk999.${field}.max-length` as const;
		const at = field === 'bussuffix' ? company : person;
		// A postcode cannot be made long and well formed at once: its form is only checked once it fits.
		const fitting = field === 'postcode' ? 'EC1A 1BB' : 'x'.repeat(max);
		return [
			valid(ruleId, `${field} of ${field === 'postcode' ? 8 : max} characters`, at({ [field]: fitting })),
			invalid(ruleId, `${field} of ${max + 1} characters`, at({ [field]: 'X'.repeat(max + 1) }), field),
		];
	},
);

export const uk999Cases: RuleCase[] = [
	valid('uk999.object', 'an individual', check(individual)),
	valid('uk999.object', 'a business', check(business, 'business')),
	invalid('uk999.object', 'nothing', check(undefined), 'address'),
	invalid('uk999.object', 'an array', check([individual]), 'address'),

	valid('uk999.field-text', 'premises given as a number', person({ premises: 12 })),
	invalid('uk999.field-text', 'premises given as an object', person({ premises: { number: 12 } }), 'premises'),
	invalid('uk999.field-text', 'a boolean name', person({ name: true }), 'name'),

	valid('uk999.mandatory', 'an individual without title and forename', person({ title: undefined, forename: undefined })),
	...(['name', 'premises', 'thoroughfare', 'locality', 'postcode'] as const).map((field) =>
		invalid('uk999.mandatory', `an individual without ${field}`, person({ [field]: undefined }), field),
	),
	invalid('uk999.mandatory', 'a business with a blank thoroughfare', company({ thoroughfare: '   ' }), 'thoroughfare'),

	...lengthCases,

	valid('uk999.individual-only', 'title and forename for an individual', check(individual)),
	valid('uk999.individual-only', 'a business with an empty title', company({ title: '' })),
	invalid('uk999.individual-only', 'a title for a business', company({ title: 'Mr' }), 'title'),
	invalid('uk999.individual-only', 'a forename for a business', company({ forename: 'Jo' }), 'forename'),

	valid('uk999.business-only', 'bussuffix for a business', check(business, 'business')),
	invalid('uk999.business-only', 'bussuffix for an individual', person({ bussuffix: 'Ltd' }), 'bussuffix'),

	...['M1 1AE', 'B33 8TH', 'CR2 6XH', 'DN55 1PT', 'W1A 0AX', 'EC1A 1BB'].map((postcode) =>
		valid('uk999.postcode.form', `postcode ${postcode}`, person({ postcode })),
	),
	saying(/write it as SW1A 1AA/, invalid('uk999.postcode.form', 'a postcode in lower case', person({ postcode: 'sw1a 1aa' }), 'postcode')),
	saying(/write it as SW1A 1AA/, invalid('uk999.postcode.form', 'a postcode without its space', person({ postcode: 'SW1A1AA' }), 'postcode')),
	invalid('uk999.postcode.form', 'a postcode with two spaces', person({ postcode: 'SW1A  1AA' }), 'postcode'),
	invalid('uk999.postcode.form', 'an out-code alone', person({ postcode: 'SW1A' }), 'postcode'),
	invalid('uk999.postcode.form', 'a US ZIP code', person({ postcode: '20500' }), 'postcode'),
];
