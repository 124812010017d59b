import { validatePortSubmission } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/port';
import { PORT_CUSTOMER_MAX_LENGTHS } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/rules';

import { invalid, saying, valid, type RuleCase } from './cases';

/** The clock every port case runs at: port_date is compared with it. */
export const NOW = new Date('2029-06-01T12:00:00Z');

type Entry = Record<string, unknown>;

const mbnEntry: Entry = { number: '01632960123', type: 'mbn', action: 'port' };
const associatedEntry: Entry = { number: '01632960124', type: 'associated', action: 'port' };
const otherEntry: Entry = { number: '02079460000', type: 'other', action: 'retain' };

export const submission = {
	mbn: '01632960123',
	lcp: 'Example Telecom',
	lcp_cupid: '123',
	port_date: '2029-07-15 09:00:00',
	contact_email: 'porting@example.net',
	account_number: 'ACC-1',
	billing_postcode: 'MK3 6EB',
	type: 'multi',
	lines: 2,
	channels: 4,
	customer: {
		title: 'Mr',
		forename: 'Alan',
		name: 'Turing',
		company: 'Example Widgets',
		bussuffix: 'Ltd',
		premises: 'Unit 1',
		thoroughfare: 'High Street',
		locality: 'Bletchley',
		postcode: 'MK3 6EB',
	},
	numbers: [mbnEntry, associatedEntry, otherEntry],
};

const check = (value: unknown) => () => validatePortSubmission(value, { now: NOW });
const port = (changes: Record<string, unknown>) => check({ ...submission, ...changes });
const customer = (changes: Record<string, unknown>) => port({ customer: { ...submission.customer, ...changes } });
/** The submission with numbers[1] (an associated number) changed. */
const second = (changes: Entry) => port({ numbers: [mbnEntry, { ...associatedEntry, ...changes }, otherEntry] });

const lengthCases: RuleCase[] = (
	Object.entries(PORT_CUSTOMER_MAX_LENGTHS) as Array<[keyof typeof PORT_CUSTOMER_MAX_LENGTHS, number]>
).flatMap(([field, max]) => {
	const ruleId = `port.customer.${field}.max-length` as const;
	return [
		valid(ruleId, `customer ${field} of ${max} characters`, customer({ [field]: 'x'.repeat(max) })),
		invalid(ruleId, `customer ${field} of ${max + 1} characters`, customer({ [field]: 'x'.repeat(max + 1) }), `customer.${field}`),
	];
});

export const portCases: RuleCase[] = [
	valid('port.object', 'a complete submission', check(submission)),
	invalid('port.object', 'nothing', check(undefined), 'submission'),
	invalid('port.object', 'a list of submissions', check([submission]), 'submission'),

	valid('port.field-text', 'an account number given as a number', port({ account_number: 445566 })),
	invalid('port.field-text', 'lcp given as an object', port({ lcp: { name: 'Example Telecom' } }), 'lcp'),
	invalid('port.field-text', 'a customer name given as a list', customer({ name: ['Alan', 'Turing'] }), 'customer.name'),

	valid('port.mbn.required', 'an mbn', check(submission)),
	invalid('port.mbn.required', 'no mbn', port({ mbn: '' }), 'mbn'),

	valid(
		'port.mbn.form',
		'an 02 mbn',
		port({ mbn: '02079460000', numbers: [{ ...mbnEntry, number: '02079460000' }, associatedEntry] }),
	),
	valid(
		'port.mbn.form',
		'a 10-digit 01 mbn',
		port({ mbn: '0169772345', numbers: [{ ...mbnEntry, number: '0169772345' }, associatedEntry] }),
	),
	invalid('port.mbn.form', 'a mobile mbn', port({ mbn: '07700900123' }), 'mbn'),
	saying(/digits only/, invalid('port.mbn.form', 'an mbn with a space', port({ mbn: '01632 960123' }), 'mbn')),
	invalid('port.mbn.form', 'an mbn in E.164', port({ mbn: '+441632960123' }), 'mbn'),

	valid('port.numbers.required', 'one number, the mbn', port({ numbers: [mbnEntry] })),
	invalid('port.numbers.required', 'no numbers', port({ numbers: undefined }), 'numbers'),
	invalid('port.numbers.required', 'an empty list', port({ numbers: [] }), 'numbers'),
	invalid('port.numbers.required', 'an object instead of a list', port({ numbers: mbnEntry }), 'numbers'),

	valid('port.number.object', 'number objects', check(submission)),
	invalid('port.number.object', 'a number written as text', port({ numbers: [mbnEntry, '01632960124'] }), 'numbers[1]'),

	valid('port.number.national-format', 'an 11-digit national number', second({ number: '01632960199' })),
	invalid('port.number.national-format', 'a number without its 0', second({ number: '1632960124' }), 'numbers[1].number'),
	saying(
		/digits only/,
		invalid('port.number.national-format', 'a number with a space', second({ number: '01632 960124' }), 'numbers[1].number'),
	),
	invalid('port.number.national-format', 'a number in E.164', second({ number: '441632960124' }), 'numbers[1].number'),
	invalid('port.number.national-format', 'an entry without number', second({ number: undefined }), 'numbers[1].number'),

	valid('port.number.gnp-range', 'an 01 and an 02 number', check(submission)),
	saying(/MNP port.*PAC/, invalid('port.number.gnp-range', 'a mobile number', second({ number: '07700900123' }), 'numbers[1].number')),
	saying(/non-geographic/, invalid('port.number.gnp-range', 'an 03 number', second({ number: '03001234567' }), 'numbers[1].number')),
	saying(/non-geographic/, invalid('port.number.gnp-range', 'an 0845 number', second({ number: '08451234567' }), 'numbers[1].number')),
	saying(/premium-rate/, invalid('port.number.gnp-range', 'an 070 number', second({ number: '07012345678' }), 'numbers[1].number')),
	saying(/premium-rate/, invalid('port.number.gnp-range', 'an 09 number', second({ number: '09012345678' }), 'numbers[1].number')),
	saying(/not a UK geographic/, invalid('port.number.gnp-range', 'an 0800 number', second({ number: '08001234567' }), 'numbers[1].number')),

	valid('port.number.type', 'associated', second({ type: 'associated' })),
	valid('port.number.type', 'other', second({ type: 'other' })),
	invalid('port.number.type', 'an unknown type', second({ type: 'main' }), 'numbers[1].type'),
	invalid('port.number.type', 'no type', second({ type: undefined }), 'numbers[1].type'),

	valid('port.number.action', 'drop', second({ action: 'drop' })),
	invalid('port.number.action', 'an unknown action', second({ action: 'keep' }), 'numbers[1].action'),
	invalid('port.number.action', 'no action', second({ action: '' }), 'numbers[1].action'),

	valid('port.number.retain-only-other', 'retain on a number of type other', check(submission)),
	invalid('port.number.retain-only-other', 'retain on an associated number', second({ action: 'retain' }), 'numbers[1].action'),
	invalid(
		'port.number.retain-only-other',
		'retain on the mbn',
		port({ numbers: [{ ...mbnEntry, action: 'retain' }, associatedEntry] }),
		'numbers[0].action',
	),

	valid('port.numbers.one-mbn', 'one mbn among three numbers', check(submission)),
	invalid('port.numbers.one-mbn', 'no number of type mbn', port({ numbers: [{ ...mbnEntry, type: 'associated' }, associatedEntry] }), 'numbers'),
	invalid(
		'port.numbers.one-mbn',
		'two numbers of type mbn',
		second({ type: 'mbn' }),
		'numbers[1].type',
		{ field: 'numbers[1].number', ruleId: 'port.numbers.mbn-matches' },
	),

	valid('port.numbers.mbn-matches', 'the mbn among the numbers', check(submission)),
	saying(
		/01632960125 is not the mbn 01632960123/,
		invalid(
			'port.numbers.mbn-matches',
			'an mbn entry with another number',
			port({ numbers: [{ ...mbnEntry, number: '01632960125' }, associatedEntry] }),
			'numbers[0].number',
		),
	),

	valid('port.numbers.unique', 'three different numbers', check(submission)),
	saying(
		/also numbers\[1\]/,
		invalid(
			'port.numbers.unique',
			'a number listed twice',
			port({ numbers: [mbnEntry, associatedEntry, { ...associatedEntry, type: 'other', action: 'drop' }] }),
			'numbers[2].number',
		),
	),

	...['single', 'multi', 'sub_single', 'sub_multi'].map((type) => valid('port.type', `type ${type}`, port({ type }))),
	valid('port.type', 'no type', port({ type: undefined })),
	invalid('port.type', 'an unknown type', port({ type: 'double' }), 'type'),

	valid('port.lines', 'one line', port({ lines: 1 })),
	valid('port.lines', 'lines as text', port({ lines: '3' })),
	invalid('port.lines', 'no lines', port({ lines: 0 }), 'lines'),
	invalid('port.lines', 'half a line', port({ lines: 1.5 }), 'lines'),

	valid('port.channels', '30 channels', port({ channels: 30 })),
	invalid('port.channels', 'negative channels', port({ channels: -2 }), 'channels'),
	invalid('port.channels', 'channels in words', port({ channels: 'many' }), 'channels'),
	valid('port.channels', '10,000 channels', port({ channels: 10_000 })),
	invalid('port.channels', '10,000,000 channels (charged)', port({ channels: 10_000_000 }), 'channels'),
	invalid('port.lines', '10,001 lines', port({ lines: 10_001 }), 'lines'),

	valid('port.lcp.required', 'an lcp', check(submission)),
	invalid('port.lcp.required', 'no lcp', port({ lcp: undefined }), 'lcp'),
	invalid('port.lcp.required', 'a blank lcp', port({ lcp: '  ' }), 'lcp'),

	valid('port.lcp_cupid.form', 'an integer', port({ lcp_cupid: 7 })),
	valid('port.lcp_cupid.form', 'a 3-digit string with a leading zero', port({ lcp_cupid: '045' })),
	valid('port.lcp_cupid.form', 'no cupid', port({ lcp_cupid: undefined })),
	invalid('port.lcp_cupid.form', 'a 2-digit string', port({ lcp_cupid: '45' }), 'lcp_cupid'),
	invalid('port.lcp_cupid.form', 'letters', port({ lcp_cupid: 'BTX' }), 'lcp_cupid'),
	invalid('port.lcp_cupid.form', 'an integer above 999', port({ lcp_cupid: 1000 }), 'lcp_cupid'),
	invalid('port.lcp_cupid.form', 'a fraction', port({ lcp_cupid: 12.5 }), 'lcp_cupid'),

	valid('port.port_date.form', 'no port date (as soon as possible)', port({ port_date: undefined })),
	valid('port.port_date.form', 'a date and time', port({ port_date: '2029-12-31 23:59:59' })),
	invalid('port.port_date.form', '30 February', port({ port_date: '2030-02-30 09:00:00' }), 'port_date'),
	invalid('port.port_date.form', 'ISO 8601', port({ port_date: '2029-07-15T09:00:00Z' }), 'port_date'),
	invalid('port.port_date.form', 'a date without time', port({ port_date: '2029-07-15' }), 'port_date'),
	invalid('port.port_date.form', 'hour 24', port({ port_date: '2029-07-15 24:00:00' }), 'port_date'),

	valid('port.port_date.not-past', 'one second from now', port({ port_date: '2029-06-01 12:00:01' })),
	invalid('port.port_date.not-past', 'yesterday', port({ port_date: '2029-05-31 12:00:00' }), 'port_date'),

	valid('port.contact_email.form', 'no contact e-mail', port({ contact_email: undefined })),
	invalid('port.contact_email.form', 'an address without @', port({ contact_email: 'porting at example.net' }), 'contact_email'),
	invalid('port.contact_email.form', 'an address of 255 characters', port({ contact_email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` }), 'contact_email'),

	valid('port.billing_postcode.required', 'a billing postcode', check(submission)),
	invalid('port.billing_postcode.required', 'no billing postcode', port({ billing_postcode: undefined }), 'billing_postcode'),

	valid('port.billing_postcode.form', 'a London postcode', port({ billing_postcode: 'EC1A 1BB' })),
	saying(
		/write it as SW1A 1AA/,
		invalid('port.billing_postcode.form', 'lower case without a space', port({ billing_postcode: 'sw1a1aa' }), 'billing_postcode'),
	),

	valid('port.customer.required', 'a customer', check(submission)),
	invalid('port.customer.required', 'no customer', port({ customer: undefined }), 'customer'),
	invalid('port.customer.required', 'a list of customers', port({ customer: [submission.customer] }), 'customer'),

	valid('port.customer.mandatory', 'a customer with only the mandatory fields', port({ customer: { premises: '1', thoroughfare: 'High Street', locality: 'Bletchley', postcode: 'MK3 6EB' } })),
	...(['premises', 'thoroughfare', 'locality', 'postcode'] as const).map((field) =>
		invalid('port.customer.mandatory', `a customer without ${field}`, customer({ [field]: undefined }), `customer.${field}`),
	),

	...lengthCases,

	valid('port.orig_ref.form', 'an integer reference', port({ orig_ref: 12345 })),
	valid('port.orig_ref.form', 'a reference as digits', port({ orig_ref: '12345' })),
	invalid('port.orig_ref.form', 'a reference with letters', port({ orig_ref: 'GNP-12345' }), 'orig_ref'),
	invalid('port.orig_ref.form', 'a negative reference', port({ orig_ref: -3 }), 'orig_ref'),
	invalid('port.orig_ref.form', 'a fractional reference', port({ orig_ref: 1.5 }), 'orig_ref'),
];
