import type { ValidationIssue } from '../../shared/operation';
import { describeValue, isBlank, maxLength } from '../../shared/validation';

import { asRule, isPlainObject, kindOf, notText, ukPostcode, violation } from './common';
import { UK999_MAX_LENGTHS, type RuleId } from './rules';

/**
 * Emergency-services (999) address data of a UK number, `PUT .../allocated/{NUMBER}/999`.
 * A charge applies to each submission, so everything the field table states is checked first.
 */

export type EndUserKind = 'individual' | 'business';

/** The field named when the data as a whole is not an object. */
export const UK999_FIELD = 'address';

export const UK999_MANDATORY = ['name', 'premises', 'thoroughfare', 'locality', 'postcode'] as const;
const INDIVIDUAL_ONLY = ['title', 'forename'] as const;
const BUSINESS_ONLY = ['bussuffix'] as const;

type Uk999Field = keyof typeof UK999_MAX_LENGTHS;

export function validateUk999(data: unknown, kind: EndUserKind): ValidationIssue[] {
	if (!isPlainObject(data)) {
		const problem = isBlank(data) ? 'it is empty' : `it is ${kindOf(data)}, not an object`;
		return [violation('uk999.object', UK999_FIELD, problem)];
	}
	const found: ValidationIssue[] = [];
	const add = (issue: ValidationIssue | undefined) => {
		if (issue) found.push(issue);
	};

	for (const field of Object.keys(UK999_MAX_LENGTHS) as Uk999Field[]) {
		const value = data[field];
		if (notText(value)) {
			add(violation('uk999.field-text', field, `it is ${kindOf(value)}, not text`));
			continue;
		}
		if ((UK999_MANDATORY as readonly string[]).includes(field) && isBlank(value)) {
			add(violation('uk999.mandatory', field, 'it is empty'));
			continue;
		}
		const maxLengthRule: RuleId = `uk999.${field}.max-length`;
		add(asRule(maxLengthRule, maxLength(field, value, UK999_MAX_LENGTHS[field])));
	}

	// Title and forename describe a person; a business is named by name + bussuffix.
	if (kind === 'business') {
		for (const field of INDIVIDUAL_ONLY) {
			if (!isBlank(data[field])) {
				add(violation('uk999.individual-only', field, `${describeValue(data[field])} is given for a business end user`));
			}
		}
	} else {
		for (const field of BUSINESS_ONLY) {
			if (!isBlank(data[field])) {
				add(violation('uk999.business-only', field, `${describeValue(data[field])} is given for an individual end user`));
			}
		}
	}

	if (!found.some((issue) => issue.field === 'postcode')) add(ukPostcode('uk999.postcode.form', 'postcode', data.postcode));
	return found;
}
