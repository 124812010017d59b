import type { ValidationIssue } from '../../shared/operation';
import { describeValue, email, isBlank, maxLength, oneOf } from '../../shared/validation';

import {
	asRule,
	childPath,
	isPlainObject,
	isText,
	kindOf,
	notText,
	parseDateTime,
	ukPostcode,
	violation,
	wholeNumberAtLeast,
} from './common';
import { PORT_CUSTOMER_MAX_LENGTHS, type RuleId } from './rules';

/**
 * A GNP port submission, `POST /v3/porting/{ACCOUNT}/gnp`. A charge applies to every
 * submission (and a rejected one resubmitted without orig_ref is billed again), so the
 * whole submission is checked before it is sent.
 */

export interface PortSubmissionOptions {
	/** The time port_date must not precede; injectable for tests. */
	now?: Date;
}

/** The field named when the submission as a whole is not an object. */
export const PORT_FIELD = 'submission';

export const PORT_TYPES = ['single', 'multi', 'sub_single', 'sub_multi'];
export const PORT_NUMBER_TYPES = ['mbn', 'associated', 'other'];
export const PORT_NUMBER_ACTIONS = ['port', 'retain', 'drop'];
/** The spec sets no maximum of lines or channels: this bounds absurd (charged) values only. */
export const PORT_MAX_LINES = 10_000;

/** Submission fields that are text; a number is accepted (an account number typed as digits). */
const TEXT_FIELDS = ['mbn', 'lcp', 'contact_email', 'account_number', 'billing_postcode'] as const;
const CUSTOMER_MANDATORY: readonly string[] = ['premises', 'thoroughfare', 'locality', 'postcode'];

/**
 * The spec writes the mbn as 01xxxxxxxxx; 02 numbers are geographic too, and a few 01 areas
 * (e.g. 016977) have 10-digit numbers, so 10 or 11 digits are accepted.
 */
const MBN = /^0[12]\d{8,9}$/;
/** UK national format: the trunk prefix 0 and 9 or 10 digits. */
const UK_NATIONAL = /^0\d{9,10}$/;

/** Why a well-formed UK number cannot be ported by this endpoint, or undefined when it can (01, 02). */
export function gnpRangeProblem(number: string): string | undefined {
	if (/^0[12]/.test(number)) return undefined;
	if (/^07[1-9]/.test(number)) {
		return `${number} is a UK mobile number: port it with an MNP port, which needs a PAC (valid 30 days)`;
	}
	if (/^0(70|9)/.test(number)) return `${number} is a premium-rate number: it cannot be ported by API`;
	if (/^0(3|8[457])/.test(number)) return `${number} is a non-geographic number: it cannot be ported by API`;
	return `${number} is not a UK geographic (01, 02) number, the only kind ported by GNP`;
}

export function validatePortSubmission(submission: unknown, options: PortSubmissionOptions = {}): ValidationIssue[] {
	if (!isPlainObject(submission)) {
		const problem = isBlank(submission) ? 'it is empty' : `it is ${kindOf(submission)}, not an object`;
		return [violation('port.object', PORT_FIELD, problem)];
	}
	const now = options.now ?? new Date();
	const found: ValidationIssue[] = [];
	const add = (issue: ValidationIssue | undefined) => {
		if (issue) found.push(issue);
	};

	const textFieldIssue = new Set<string>();
	for (const field of TEXT_FIELDS) {
		if (notText(submission[field])) {
			add(violation('port.field-text', field, `it is ${kindOf(submission[field])}, not text`));
			textFieldIssue.add(field);
		}
	}
	const unlessNotText = (field: (typeof TEXT_FIELDS)[number], check: () => ValidationIssue | undefined) => {
		if (!textFieldIssue.has(field)) add(check());
	};

	const { mbn } = submission;
	unlessNotText('mbn', () => {
		if (isBlank(mbn)) return violation('port.mbn.required', 'mbn', 'it is empty');
		return MBN.test(String(mbn).trim())
			? undefined
			: violation('port.mbn.form', 'mbn', `${describeValue(mbn)} is not a UK geographic number in national format${spacesHint(mbn)}`);
	});

	add(origRef(submission.orig_ref));
	unlessNotText('lcp', () => (isBlank(submission.lcp) ? violation('port.lcp.required', 'lcp', 'it is empty') : undefined));
	add(lcpCupid(submission.lcp_cupid));
	add(portDate(submission.port_date, now));
	unlessNotText('contact_email', () => asRule('port.contact_email.form', email('contact_email', submission.contact_email)));
	unlessNotText('billing_postcode', () =>
		isBlank(submission.billing_postcode)
			? violation('port.billing_postcode.required', 'billing_postcode', 'it is empty')
			: ukPostcode('port.billing_postcode.form', 'billing_postcode', submission.billing_postcode),
	);
	add(asRule('port.type', oneOf('type', submission.type, PORT_TYPES)));
	add(wholeNumberAtLeast('port.lines', 'lines', submission.lines, 1, PORT_MAX_LINES));
	add(wholeNumberAtLeast('port.channels', 'channels', submission.channels, 1, PORT_MAX_LINES));

	found.push(...validateCustomer(submission.customer));
	// The mbn is compared with the numbers only when it is well formed; otherwise its own issue says enough.
	const wellFormedMbn = isText(mbn) && MBN.test(String(mbn).trim()) ? String(mbn).trim() : undefined;
	found.push(...validateNumbers(submission.numbers, wellFormedMbn));
	return found;
}

function spacesHint(value: unknown): string {
	return /\s|[-().]/.test(String(value).trim()) ? ' (write the digits only, without spaces or punctuation)' : '';
}

function origRef(value: unknown): ValidationIssue | undefined {
	if (isBlank(value)) return undefined;
	const valid =
		typeof value === 'number' ? Number.isInteger(value) && value >= 0 : typeof value === 'string' && /^\d+$/.test(value.trim());
	return valid
		? undefined
		: violation('port.orig_ref.form', 'orig_ref', `${describeValue(value)} is not an order reference`);
}

function lcpCupid(value: unknown): ValidationIssue | undefined {
	if (isBlank(value)) return undefined;
	const valid =
		typeof value === 'number' ? Number.isInteger(value) && value >= 0 && value <= 999 : typeof value === 'string' && /^\d{3}$/.test(value.trim());
	return valid ? undefined : violation('port.lcp_cupid.form', 'lcp_cupid', `${describeValue(value)} is not a cupid`);
}

/** The spec gives no time zone; the date is read as UTC, which is at most an hour off UK time. */
function portDate(value: unknown, now: Date): ValidationIssue | undefined {
	if (isBlank(value)) return undefined;
	const time = isText(value) ? parseDateTime(String(value).trim()) : undefined;
	if (time === undefined) {
		return violation('port.port_date.form', 'port_date', `${describeValue(value)} is not a date-time YYYY-MM-DD hh:mm:ss`);
	}
	return time < now.getTime() ? violation('port.port_date.not-past', 'port_date', `${String(value).trim()} is in the past`) : undefined;
}

function validateCustomer(customer: unknown): ValidationIssue[] {
	if (!isPlainObject(customer)) {
		const problem = isBlank(customer) ? 'it is empty' : `it is ${kindOf(customer)}, not an object`;
		return [violation('port.customer.required', 'customer', problem)];
	}
	const found: ValidationIssue[] = [];
	for (const key of Object.keys(PORT_CUSTOMER_MAX_LENGTHS) as Array<keyof typeof PORT_CUSTOMER_MAX_LENGTHS>) {
		const field = childPath('customer', key);
		const value = customer[key];
		if (notText(value)) {
			found.push(violation('port.field-text', field, `it is ${kindOf(value)}, not text`));
		} else if (CUSTOMER_MANDATORY.includes(key) && isBlank(value)) {
			found.push(violation('port.customer.mandatory', field, 'it is empty'));
		} else {
			const maxLengthRule: RuleId = `port.customer.${key}.max-length`;
			const issue = asRule(maxLengthRule, maxLength(field, value, PORT_CUSTOMER_MAX_LENGTHS[key]));
			if (issue) found.push(issue);
		}
	}
	return found;
}

function validateNumbers(numbers: unknown, mbn: string | undefined): ValidationIssue[] {
	if (!Array.isArray(numbers) || numbers.length === 0) {
		const problem = Array.isArray(numbers)
			? 'it is an empty list'
			: isBlank(numbers)
				? 'it is empty'
				: `it is ${kindOf(numbers)}, not an array`;
		return [violation('port.numbers.required', 'numbers', problem)];
	}
	const found: ValidationIssue[] = [];
	const firstIndexOf = new Map<string, number>();
	const mbnEntries: number[] = [];

	numbers.forEach((entry, index) => {
		const path = childPath('numbers', index);
		if (!isPlainObject(entry)) {
			found.push(violation('port.number.object', path, `it is ${kindOf(entry)}, not an object`));
			return;
		}
		const at = (key: string) => childPath(path, key);
		const number = isText(entry.number) ? String(entry.number).trim() : '';

		if (number === '') {
			const problem = isBlank(entry.number) ? 'it is empty' : `it is ${kindOf(entry.number)}, not a number in national format`;
			found.push(violation('port.number.national-format', at('number'), problem));
		} else if (!UK_NATIONAL.test(number)) {
			found.push(
				violation(
					'port.number.national-format',
					at('number'),
					`${describeValue(entry.number)} is not a UK number in national format${spacesHint(number)}`,
				),
			);
		} else {
			const rangeProblem = gnpRangeProblem(number);
			if (rangeProblem) found.push(violation('port.number.gnp-range', at('number'), rangeProblem));
		}

		if (number !== '') {
			const first = firstIndexOf.get(number);
			if (first === undefined) firstIndexOf.set(number, index);
			else found.push(violation('port.numbers.unique', at('number'), `${number} is also numbers[${first}]`));
		}

		const { type, action } = entry;
		found.push(
			...[
				isBlank(type)
					? violation('port.number.type', at('type'), 'it is empty')
					: asRule('port.number.type', oneOf(at('type'), type, PORT_NUMBER_TYPES)),
				isBlank(action)
					? violation('port.number.action', at('action'), 'it is empty')
					: asRule('port.number.action', oneOf(at('action'), action, PORT_NUMBER_ACTIONS)),
				action === 'retain' && PORT_NUMBER_TYPES.includes(String(type)) && type !== 'other'
					? violation('port.number.retain-only-other', at('action'), `a number of type ${String(type)} cannot be retained`)
					: undefined,
			].filter((issue): issue is ValidationIssue => issue !== undefined),
		);

		if (type === 'mbn') {
			mbnEntries.push(index);
			if (mbn !== undefined && number !== '' && number !== mbn) {
				found.push(violation('port.numbers.mbn-matches', at('number'), `${number} is not the mbn ${mbn}`));
			}
		}
	});

	if (mbnEntries.length === 0) {
		found.push(violation('port.numbers.one-mbn', 'numbers', 'no number has type mbn'));
	}
	for (const index of mbnEntries.slice(1)) {
		found.push(
			violation('port.numbers.one-mbn', childPath(childPath('numbers', index), 'type'), `numbers[${mbnEntries[0]}] already has type mbn`),
		);
	}
	return found;
}
