import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Params, ResourceSpec, ValidationIssue } from '../../shared/operation';
import { joined, shapeOf, utcTime, withKnown } from '../../shared/outputShape';
import { compact } from '../../shared/params';
import { isRecord } from '../../shared/responseShape';
import { isBlank, issues, matches, required } from '../../shared/validation';
import {
	collectionField,
	dateField,
	numericField,
	optionsField,
	rowsField,
	shownFor,
	textField,
} from '../../shared/fields';
import { asDisplayed, operation, plainDateTime, unwrap, wholesaleList } from '../fields';
import { PORT_MAX_LINES, validatePortSubmission } from '../validation/port';
import { PORT_CUSTOMER_MAX_LENGTHS } from '../validation/rules';

const GNP_PATH = '/v3/porting/{ACCOUNT}/gnp';

/** The node's name for each field of a submission, for issues found in one written with fields. */
const PORT_FIELD_LABELS: Record<string, string> = {
	mbn: 'Main Billing Number',
	lcp: 'Losing Provider',
	lcp_cupid: 'Losing Provider',
	type: 'Port Type',
	lines: 'Lines',
	channels: 'Channels',
	contact_email: 'Contact E-Mail',
	billing_postcode: 'Billing Postcode',
	customer: 'Customer',
	numbers: 'Numbers',
	account_number: 'Additional Fields > Account Number',
	orig_ref: 'Additional Fields > Original Order Reference',
	port_date: 'Additional Fields > Port Date',
};

const refField = textField(
	'Order Reference',
	'ref',
	"The ref of the port, as Submit returned it, or a port's id from Get Many",
	{ required: true },
);

const customerFields: INodeProperties[] = [
	['title', 'Title', 'e.g. Mr'],
	['forename', 'Forename', ''],
	['name', 'Surname', 'For a business, the surname of the letter-of-authority signatory'],
	['company', 'Company', ''],
	['bussuffix', 'Business Suffix', 'e.g. Ltd'],
	['premises', 'Premises', 'Number or name of the premises (required)'],
	['thoroughfare', 'Thoroughfare', 'Street name (required)'],
	['locality', 'Locality', 'Town (required)'],
	['postcode', 'Postcode', 'Out-code, space, in-code (required)'],
	['loa_initial', 'LOA Initial', 'Initial of the letter-of-authority signatory'],
	['loa_surname', 'LOA Surname', 'Surname of the letter-of-authority signatory'],
].map(([name, displayName, description]) => {
	const max = (PORT_CUSTOMER_MAX_LENGTHS as Record<string, number>)[name];
	return textField(
		displayName,
		name,
		[description, max ? `at most ${max} characters` : ''].filter(Boolean).join('; '),
	);
});

const withFields = shownFor('mode', 'fields');
const countField = (displayName: string, name: string) =>
	numericField(displayName, name, 1, { minValue: 1, maxValue: PORT_MAX_LINES }, withFields);

const submissionFields: INodeProperties[] = [
	textField(
		'Main Billing Number',
		'mbn',
		'The main billing number in UK national format (01 or 02); it is added to the numbers as the MBN',
		{ required: true, placeholder: 'e.g. 01632960000', ...withFields },
	),
	{
		displayName: 'Losing Provider Name or ID',
		name: 'lcp',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getLosingProviders' },
		required: true,
		default: '',
		description:
			'The provider the numbers leave, from the provider list. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		...withFields,
	},
	optionsField(
		'Port Type',
		'portType',
		'single',
		[
			['Single Line', 'single', 'About 4 working days (14 with more than 10 lines)'],
			['Multi Line', 'multi', '7 to 17 working days'],
			['Subsequent Single', 'sub_single', 'Already ported once; about 7 working days'],
			['Subsequent Multi', 'sub_multi', 'Already ported once; 10 to 25 working days'],
		],
		withFields,
	),
	countField('Lines', 'lines'),
	countField('Channels', 'channels'),
	textField('Contact E-Mail', 'contactEmail', "The submitter's address (not the end customer's)", {
		required: true,
		placeholder: 'e.g. porting@example.com',
		...withFields,
	}),
	textField('Billing Postcode', 'billingPostcode', "Must match the losing provider's records", {
		required: true,
		...withFields,
	}),
	collectionField('Customer', 'customer', 'Add Field', customerFields, {
		description: 'The end customer; premises, thoroughfare, locality and postcode are required',
		...withFields,
	}),
	rowsField(
		'Other Numbers',
		'numbers',
		['Number', 'number'],
		[
			textField('Number', 'number', 'UK national format', { placeholder: 'e.g. 01632960001' }),
			optionsField('Type', 'type', 'associated', [
				['Associated', 'associated'],
				['Other', 'other'],
			]),
			optionsField('Action', 'action', 'port', [
				['Port', 'port'],
				['Retain (Type Other Only)', 'retain'],
				['Drop', 'drop'],
			]),
		],
		{
			placeholder: 'Add Number',
			description: 'Every other number of the installation, with what happens to it',
			...withFields,
		},
	),
	collectionField(
		'Additional Fields',
		'additionalFields',
		'Add Field',
		[
			textField('Account Number', 'accountNumber', 'With the losing provider, if known'),
			textField(
				'Original Order Reference',
				'origRef',
				'For a resubmission of a rejected port: without it the resubmission is treated and billed as a new order',
			),
			dateField('portDate', 'Port Date', 'When to port; as soon as possible when empty'),
		],
		withFields,
	),
	{
		displayName: 'Submission (JSON)',
		name: 'submission',
		type: 'json',
		default: '{}',
		...shownFor('mode', 'json'),
		description:
			'The whole GNP submission as the API takes it (mbn, lcp, lcp_cupid, type, lines, channels, customer, numbers, ...)',
	},
];

/** The submission a Submit sends, from the fields (the MBN listed as such) or the JSON. */
export function portSubmission(params: Params): {
	submission?: IDataObject;
	issues: ValidationIssue[];
} {
	if (params.mode === 'json') {
		try {
			const value =
				typeof params.submission === 'string'
					? (JSON.parse(params.submission) as IDataObject)
					: (params.submission as IDataObject);
			return { submission: value, issues: [] };
		} catch (error) {
			return {
				issues: [
					{
						field: 'Submission (JSON)',
						problem: `it is not valid JSON (${(error as Error).message})`,
						rule: 'a JSON object',
					},
				],
			};
		}
	}
	const mbn = String(params.mbn ?? '').replace(/\s/g, '');
	const [cupid, ...nameParts] = String(params.lcp ?? '').split('|');
	const others = (((params.numbers as IDataObject | undefined)?.number ?? []) as IDataObject[]).map(
		(n) => ({ number: String(n.number ?? '').replace(/\s/g, ''), type: n.type, action: n.action }),
	);
	const numbers = others.some((n) => n.number === mbn)
		? others
		: [{ number: mbn, type: 'mbn', action: 'port' }, ...others];
	const extra = (params.additionalFields ?? {}) as IDataObject;
	const customer = compact(
		Object.fromEntries(
			Object.entries((params.customer ?? {}) as IDataObject).map(([k, v]) => [
				k,
				typeof v === 'string' ? v.trim() : v,
			]),
		),
	);
	return {
		submission: compact({
			mbn,
			orig_ref: isBlank(extra.origRef) ? undefined : String(extra.origRef).trim(),
			lcp: nameParts.join('|') || cupid,
			// The list may give a cupid as an integer (7): sent as one, since as text it must have 3 digits.
			lcp_cupid: /^\d{1,2}$/.test(cupid.trim()) ? Number(cupid) : cupid,
			port_date: plainDateTime(extra.portDate),
			contact_email: String(params.contactEmail ?? '').trim(),
			account_number: extra.accountNumber,
			billing_postcode: String(params.billingPostcode ?? '').trim(),
			type: params.portType,
			lines: params.lines,
			channels: params.channels,
			customer,
			numbers,
		}),
		issues: [],
	};
}

const PORT_FIELDS = ['ref', 'mbn', 'date', 'crd', 'status_code', 'status'];
const DETAIL_FIELDS = [
	'mbn',
	'status',
	'status_code',
	'contact_email',
	'lcp',
	'rh',
	'account_number',
	'billing_postcode',
	'type',
	'lines',
	'channels',
	'customer',
	'numbers',
	'events',
];
const customerName = (c: unknown) =>
	isRecord(c) ? (joined([c.company, c.bussuffix]) ?? joined([c.forename, c.name])) : undefined;
const numberList = (numbers: unknown) =>
	joined(
		(Array.isArray(numbers) ? numbers : []).map((n: IDataObject | null) => n?.number),
		', ',
	);

/** A port as Simplified shows it: its order reference as the id, main number, status, dates; the detail adds provider, customer, numbers. */
const portShape = shapeOf(
	PORT_FIELDS,
	['mbn', 'status', ['date', (r) => utcTime(r.date)], 'crd'],
	'ref',
);
const portDetailShape = shapeOf(
	DETAIL_FIELDS,
	[
		'mbn',
		'status',
		'type',
		'lcp',
		['port_date', (r) => utcTime(r.port_date)],
		['customer', (r) => customerName(r.customer)],
		['numbers', (r) => numberList(r.numbers)],
	],
	'ref',
);

export const port: ResourceSpec = {
	value: 'port',
	name: 'Port',
	description: 'Bring UK geographic numbers in from another provider (GNP)',
	operations: [
		operation({
			value: 'get',
			name: 'Get',
			action: 'Get a port',
			description: 'Get one port with its status history (events)',
			fields: [refField],
			validate: (p) =>
				issues(
					required('Order Reference', p.ref),
					matches('Order Reference', String(p.ref ?? '').trim(), /^\d+$/, 'digits only'),
				),
			path: `${GNP_PATH}/{ref}`,
			// The detail as answered; the reference it was asked for (the contract's detail has no `ref`) is its id in Simplified.
			output: (response, p) =>
				withKnown((unwrap(response.body) ?? {}) as IDataObject, { ref: String(p.ref).trim() }),
			shape: portDetailShape,
		}),
		operation({
			value: 'getAll',
			name: 'Get Many',
			action: 'Get many ports',
			description: 'List ports that are outstanding or completed in the last 90 days',
			paging: 'client',
			path: GNP_PATH,
			output: wholesaleList('Get many ports', 'a list of ports'),
			shape: portShape,
		}),
		operation({
			value: 'getLosingProviders',
			name: 'Get Losing Providers',
			action: 'Get the losing providers',
			description: 'List the providers a number can be ported from, with their IDs (cupid)',
			paging: 'client',
			path: '/v3/porting/{ACCOUNT}/lcps',
			output: (response) =>
				((response.body as IDataObject | undefined)?.cps ?? []) as IDataObject[],
		}),
		{
			value: 'submit',
			name: 'Submit',
			action: 'Submit a charged number port',
			description:
				'Submit a GNP port of UK geographic numbers. Each submission is charged; a resubmission without the original order reference is billed as a new order. Every rule is checked first.',
			fields: [
				optionsField('Write With', 'mode', 'fields', [
					['Fields', 'fields'],
					['JSON', 'json'],
				]),
				...submissionFields,
			],
			validate: (p) => {
				const { submission, issues: found } = portSubmission(p);
				const checked = submission ? validatePortSubmission(submission) : [];
				// With fields, name the node's parameters; with JSON, the paths inside it.
				return [
					...found,
					...(p.mode === 'json' ? checked : asDisplayed(checked, PORT_FIELD_LABELS)),
				];
			},
			// Written out, not operation(): a submission's answer is output as it came (no envelope removed).
			request: (p) => ({ method: 'POST', path: GNP_PATH, body: portSubmission(p).submission }),
		},
	],
};
