import type { ValidationIssue } from '../../shared/operation';
import { isRecord } from '../../shared/responseShape';
import { describeValue, isBlank, issues } from '../../shared/validation';

import { lengthTableIssues, notObject, ukPostcode, violation } from './common';
import { UK999_MAX_LENGTHS, type RuleId } from './rules';

/** 999 address data of a UK number, `PUT .../allocated/{NUMBER}/999`: each submission is charged, so every rule of the field table is checked first. */

export type EndUserKind = 'individual' | 'business';

const UK999_MANDATORY: readonly string[] = [
	'name',
	'premises',
	'thoroughfare',
	'locality',
	'postcode',
];

export function validateUk999(data: unknown, kind: EndUserKind): ValidationIssue[] {
	if (!isRecord(data)) return [violation('uk999.object', 'address', notObject(data))];
	const found = lengthTableIssues(data, UK999_MAX_LENGTHS, UK999_MANDATORY, {
		text: 'uk999.field-text',
		mandatory: 'uk999.mandatory',
		lengths: 'uk999',
	});
	// Title and forename describe a person; a business is named by name + bussuffix.
	const [others, ruleId, endUser]: [string[], RuleId, string] =
		kind === 'business'
			? [['title', 'forename'], 'uk999.individual-only', 'a business']
			: [['bussuffix'], 'uk999.business-only', 'an individual'];
	for (const field of others) {
		if (!isBlank(data[field]))
			found.push(
				violation(ruleId, field, `${describeValue(data[field])} is given for ${endUser} end user`),
			);
	}
	if (!found.some((issue) => issue?.field === 'postcode'))
		found.push(ukPostcode('uk999.postcode.form', 'postcode', data.postcode));
	return issues(found);
}
