import type { ValidationIssue } from '../../shared/operation';
import { isRecord } from '../../shared/responseShape';
import { describeValue, email, isBlank, issues, oneOf, type Check } from '../../shared/validation';

import {
	asRule,
	childPath,
	isText,
	kindOf,
	lengthTableIssues,
	notObject,
	notText,
	parseDateTime,
	ukPostcode,
	violation,
	wholeNumberAtLeast,
	wrongKind,
} from './common';
import { PORT_CUSTOMER_MAX_LENGTHS, type RuleId } from './rules';
import { clock } from '../../shared/timers';

/** A GNP port submission, `POST /v3/porting/{ACCOUNT}/gnp`: each is charged (a resubmission without orig_ref again), so all is checked first. */

export interface PortSubmissionOptions {
	/** The time port_date must not precede; injectable for tests. */
	now?: Date;
}

const PORT_NUMBER_TYPES = ['mbn', 'associated', 'other'];
/** The spec sets no maximum of lines or channels: this bounds absurd (charged) values only. */
export const PORT_MAX_LINES = 10_000;

/** Submission fields that are text; a number is accepted (an account number typed as digits). */
const TEXT_FIELDS = ['mbn', 'lcp', 'contact_email', 'account_number', 'billing_postcode'] as const;
const CUSTOMER_MANDATORY: readonly string[] = ['premises', 'thoroughfare', 'locality', 'postcode'];

/** The spec writes the mbn 01xxxxxxxxx; 02 numbers are geographic too, and a few 01 areas (016977) have 10 digits. */
const MBN = /^0[12]\d{8,9}$/;
/** UK national format: the trunk prefix 0 and 9 or 10 digits. */
const UK_NATIONAL = /^0\d{9,10}$/;

/** Why a well-formed UK number cannot be ported by this endpoint, or undefined when it can (01, 02). */
function gnpRangeProblem(number: string): string | undefined {
	if (/^0[12]/.test(number)) return undefined;
	if (/^07[1-9]/.test(number))
		return `${number} is a UK mobile number: port it with an MNP port, which needs a PAC (valid 30 days)`;
	if (/^0(70|9)/.test(number))
		return `${number} is a premium-rate number: it cannot be ported by API`;
	if (/^0(3|8[457])/.test(number))
		return `${number} is a non-geographic number: it cannot be ported by API`;
	return `${number} is not a UK geographic (01, 02) number, the only kind ported by GNP`;
}

export function validatePortSubmission(
	submission: unknown,
	options: PortSubmissionOptions = {},
): ValidationIssue[] {
	if (!isRecord(submission)) return [violation('port.object', 'submission', notObject(submission))];
	const { mbn, lcp, contact_email: contactEmail, billing_postcode: postcode } = submission;
	// A text field that holds something else is refused for that alone.
	const notTexts: readonly string[] = TEXT_FIELDS.filter((field) => notText(submission[field]));
	const ifText = (field: (typeof TEXT_FIELDS)[number], check: () => Check) =>
		notTexts.includes(field) ? undefined : check();
	// The mbn is compared with the numbers only when it is well formed; otherwise its own issue says enough.
	const wellFormedMbn =
		isText(mbn) && MBN.test(String(mbn).trim()) ? String(mbn).trim() : undefined;
	const mbnProblem = `${describeValue(mbn)} is not a UK geographic number in national format${spacesHint(mbn)}`;
	return [
		...notTexts.map((field) => wrongKind('port.field-text', field, submission[field], 'text')),
		...issues(
			ifText('mbn', () =>
				isBlank(mbn)
					? violation('port.mbn.required', 'mbn', 'it is empty')
					: wellFormedMbn
						? undefined
						: violation('port.mbn.form', 'mbn', mbnProblem),
			),
			numberOrDigits(
				'port.orig_ref.form',
				'orig_ref',
				submission.orig_ref,
				Infinity,
				/^\d+$/,
				'an order reference',
			),
			ifText('lcp', () =>
				isBlank(lcp) ? violation('port.lcp.required', 'lcp', 'it is empty') : undefined,
			),
			numberOrDigits(
				'port.lcp_cupid.form',
				'lcp_cupid',
				submission.lcp_cupid,
				999,
				/^\d{3}$/,
				'a cupid',
			),
			portDate(submission.port_date, options.now ?? new Date(clock.now())),
			ifText('contact_email', () =>
				asRule('port.contact_email.form', email('contact_email', contactEmail)),
			),
			ifText('billing_postcode', () =>
				isBlank(postcode)
					? violation('port.billing_postcode.required', 'billing_postcode', 'it is empty')
					: ukPostcode('port.billing_postcode.form', 'billing_postcode', postcode),
			),
			asRule(
				'port.type',
				oneOf('type', submission.type, ['single', 'multi', 'sub_single', 'sub_multi']),
			),
			wholeNumberAtLeast('port.lines', 'lines', submission.lines, 1, PORT_MAX_LINES),
			wholeNumberAtLeast('port.channels', 'channels', submission.channels, 1, PORT_MAX_LINES),
		),
		...validateCustomer(submission.customer),
		...validateNumbers(submission.numbers, wellFormedMbn),
	];
}

function spacesHint(value: unknown): string {
	return /\s|[-().]/.test(String(value).trim())
		? ' (write the digits only, without spaces or punctuation)'
		: '';
}

/** A whole number up to `max`, or a string of digits `digits` matches: blank is left to the required rules. */
function numberOrDigits(
	ruleId: RuleId,
	field: string,
	value: unknown,
	max: number,
	digits: RegExp,
	what: string,
): Check {
	if (isBlank(value)) return undefined;
	const valid =
		typeof value === 'number'
			? Number.isInteger(value) && value >= 0 && value <= max
			: typeof value === 'string' && digits.test(value.trim());
	return valid ? undefined : violation(ruleId, field, `${describeValue(value)} is not ${what}`);
}

/** The spec gives no time zone; the date is read as UTC, which is at most an hour off UK time. */
function portDate(value: unknown, now: Date): Check {
	if (isBlank(value)) return undefined;
	const time = isText(value) ? parseDateTime(String(value).trim()) : undefined;
	if (time === undefined)
		return violation(
			'port.port_date.form',
			'port_date',
			`${describeValue(value)} is not a date-time YYYY-MM-DD hh:mm:ss`,
		);
	return time < now.getTime()
		? violation('port.port_date.not-past', 'port_date', `${String(value).trim()} is in the past`)
		: undefined;
}

function validateCustomer(customer: unknown): ValidationIssue[] {
	if (!isRecord(customer))
		return [violation('port.customer.required', 'customer', notObject(customer))];
	return issues(
		lengthTableIssues(
			customer,
			PORT_CUSTOMER_MAX_LENGTHS,
			CUSTOMER_MANDATORY,
			{ text: 'port.field-text', mandatory: 'port.customer.mandatory', lengths: 'port.customer' },
			'customer',
		),
	);
}

/** The number of an entry: in national format, and of a kind GNP ports. */
function entryNumberIssue(value: unknown, number: string, field: string): Check {
	if (number === '')
		return violation(
			'port.number.national-format',
			field,
			isBlank(value) ? 'it is empty' : `it is ${kindOf(value)}, not a number in national format`,
		);
	if (!UK_NATIONAL.test(number))
		return violation(
			'port.number.national-format',
			field,
			`${describeValue(value)} is not a UK number in national format${spacesHint(number)}`,
		);
	const rangeProblem = gnpRangeProblem(number);
	return rangeProblem ? violation('port.number.gnp-range', field, rangeProblem) : undefined;
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

	for (const [index, entry] of numbers.entries()) {
		const path = childPath('numbers', index);
		if (!isRecord(entry)) {
			found.push(wrongKind('port.number.object', path, entry));
			continue;
		}
		const at = (key: string) => childPath(path, key);
		const number = isText(entry.number) ? String(entry.number).trim() : '';
		const { type, action } = entry;
		const first = firstIndexOf.get(number);
		if (number !== '' && first === undefined) firstIndexOf.set(number, index);
		if (type === 'mbn') mbnEntries.push(index);
		found.push(
			...issues(
				entryNumberIssue(entry.number, number, at('number')),
				number !== '' && first !== undefined
					? violation('port.numbers.unique', at('number'), `${number} is also numbers[${first}]`)
					: undefined,
				isBlank(type)
					? violation('port.number.type', at('type'), 'it is empty')
					: asRule('port.number.type', oneOf(at('type'), type, PORT_NUMBER_TYPES)),
				isBlank(action)
					? violation('port.number.action', at('action'), 'it is empty')
					: asRule('port.number.action', oneOf(at('action'), action, ['port', 'retain', 'drop'])),
				action === 'retain' && PORT_NUMBER_TYPES.includes(String(type)) && type !== 'other'
					? violation(
							'port.number.retain-only-other',
							at('action'),
							`a number of type ${String(type)} cannot be retained`,
						)
					: undefined,
				type === 'mbn' && mbn !== undefined && number !== '' && number !== mbn
					? violation('port.numbers.mbn-matches', at('number'), `${number} is not the mbn ${mbn}`)
					: undefined,
			),
		);
	}
	if (mbnEntries.length === 0)
		found.push(violation('port.numbers.one-mbn', 'numbers', 'no number has type mbn'));
	for (const index of mbnEntries.slice(1)) {
		found.push(
			violation(
				'port.numbers.one-mbn',
				childPath(childPath('numbers', index), 'type'),
				`numbers[${mbnEntries[0]}] already has type mbn`,
			),
		);
	}
	return found;
}
