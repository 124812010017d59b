import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { e911ErrorOf } from '../../shared/apis';
import type { ApiResponse, Params, ResourceSpec, ValidationIssue } from '../../shared/operation';
import { joined, shapeOf, utcTime, withKnown } from '../../shared/outputShape';
import { compact } from '../../shared/params';
import { optionsField, shownFor, textField } from '../../shared/fields';
import {
	NUMBERS_PATH,
	asDisplayed,
	e164Digits,
	numberField,
	numberIssue,
	numberPath,
	operation,
	unwrap,
	wholesaleItems,
} from '../fields';
import {
	E911_ADDRESS_FIELDS,
	normaliseE911Address,
	validateE911Address,
	validateUsNumber,
} from '../validation/e911';
import { validateUk999 } from '../validation/uk999';
import { E911_MAX_LENGTHS, UK999_MAX_LENGTHS } from '../validation/rules';

/** A text field of an address, with its maximum length in the description. */
function addressField(
	name: string,
	displayName: string,
	max: number,
	description: string,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return textField(displayName, name, `${description} (at most ${max} characters)`, {
		required: false,
		...extra,
	});
}

const required = { required: true };

// ---- UK 999

const UK999_LABELS: Record<string, string> = {
	title: 'Title',
	forename: 'Forename',
	name: 'Name',
	bussuffix: 'Business Suffix',
	premises: 'Premises',
	thoroughfare: 'Thoroughfare',
	locality: 'Locality',
	postcode: 'Postcode',
};

const individual = shownFor('endUser', 'individual');
const business = shownFor('endUser', 'business');

const uk999Fields: INodeProperties[] = [
	optionsField('End User', 'endUser', 'individual', [
		['Individual', 'individual'],
		['Business', 'business'],
	]),
	addressField('title', 'Title', UK999_MAX_LENGTHS.title, 'e.g. Mrs', individual),
	addressField(
		'forename',
		'Forename',
		UK999_MAX_LENGTHS.forename,
		'Forename or initials',
		individual,
	),
	addressField('name', 'Surname', UK999_MAX_LENGTHS.name, 'The surname', {
		...required,
		...individual,
	}),
	addressField('name', 'Business Name', UK999_MAX_LENGTHS.name, 'The business name', {
		...required,
		...business,
	}),
	addressField('bussuffix', 'Business Suffix', UK999_MAX_LENGTHS.bussuffix, 'e.g. Ltd', business),
	addressField(
		'premises',
		'Premises',
		UK999_MAX_LENGTHS.premises,
		'Number or name of the premises',
		required,
	),
	addressField(
		'thoroughfare',
		'Thoroughfare',
		UK999_MAX_LENGTHS.thoroughfare,
		'The street name',
		required,
	),
	addressField(
		'locality',
		'Locality',
		UK999_MAX_LENGTHS.locality,
		'Village or area, and town',
		required,
	),
	addressField(
		'postcode',
		'Postcode',
		UK999_MAX_LENGTHS.postcode,
		'Full postcode: out-code, a space, in-code, e.g. SW1A 1AA',
		{ ...required, placeholder: 'e.g. SW1A 1AA' },
	),
];

function uk999Data(params: Params): IDataObject {
	const kind =
		params.endUser === 'business' ? ['name', 'bussuffix'] : ['title', 'forename', 'name'];
	const keys = [...kind, 'premises', 'thoroughfare', 'locality', 'postcode'];
	return compact(
		Object.fromEntries(
			keys.map((key) => [key, typeof params[key] === 'string' ? params[key].trim() : params[key]]),
		),
	);
}

/** 999 data is the UK's emergency-services record (and each submission is charged): the number must be a UK one, 44…. */
function ukNumberIssue(value: unknown): ValidationIssue[] {
	const found = numberIssue('Number', value);
	if (found.length || e164Digits(value).startsWith('44')) return found;
	return [
		{
			field: 'Number',
			problem: `"${String(value).trim()}" is not a UK number`,
			rule: 'a UK number in E.164 without the plus: 44 and the national number without its leading 0, e.g. 441632960000 (999 data is for UK numbers only)',
		},
	];
}

/** 999 data as Simplified shows it: the name (title, forename, name, suffix) and the address, each on one line. */
const uk999Shape = shapeOf(Object.keys(UK999_LABELS), [
	['name', (r) => joined([r.title, r.forename, r.name, r.bussuffix])],
	['address', (r) => joined([r.premises, r.thoroughfare, r.locality, r.postcode], ', ')],
]);

export const uk999: ResourceSpec = {
	value: 'uk999',
	name: 'UK 999 Data',
	description: 'Emergency-services address of a UK number',
	operations: [
		operation({
			value: 'get',
			name: 'Get',
			action: 'Get the 999 data of a number',
			description: 'Get the emergency-services address registered for a UK number',
			fields: [numberField],
			validate: (p) => ukNumberIssue(p.number),
			path: (p) => numberPath(p, '/999'),
			shape: uk999Shape,
		}),
		operation({
			value: 'set',
			name: 'Set',
			action: 'Set the 999 data of a number, charged',
			description:
				'Register the emergency-services address of a UK number (replaces the current one). Each submission is charged; every field rule is checked first.',
			fields: [numberField, ...uk999Fields],
			validate: (p) => [
				...ukNumberIssue(p.number),
				...asDisplayed(
					validateUk999(uk999Data(p), p.endUser === 'business' ? 'business' : 'individual'),
					UK999_LABELS,
				),
			],
			method: 'PUT',
			path: (p) => numberPath(p, '/999'),
			body: uk999Data,
		}),
	],
};

// ---- US e911

const E911_LABELS: Record<string, string> = {
	name: 'Subscriber Name',
	streetNum: 'Street Number',
	streetInfo: 'Street',
	location: 'Location',
	city: 'City',
	state: 'State',
	postalCode: 'Postal Code',
	postalCodePlusFour: 'ZIP+4',
};

const e911Fields = (withName: boolean): INodeProperties[] => [
	...(withName
		? [
				addressField(
					'name',
					'Subscriber Name',
					E911_MAX_LENGTHS.name,
					'The subscriber name',
					required,
				),
			]
		: []),
	addressField(
		'streetNum',
		'Street Number',
		E911_MAX_LENGTHS.streetNum,
		'The house number',
		required,
	),
	addressField(
		'streetInfo',
		'Street',
		E911_MAX_LENGTHS.streetInfo,
		'Street name; # is refused, put units under Location',
		required,
	),
	addressField(
		'location',
		'Location',
		E911_MAX_LENGTHS.location,
		'Apartment, suite or floor; optional',
	),
	addressField('city', 'City', E911_MAX_LENGTHS.city, 'The city', required),
	textField('State', 'state', 'Two-letter state code', { ...required, placeholder: 'e.g. NY' }),
	addressField(
		'postalCode',
		'Postal Code',
		E911_MAX_LENGTHS.postalCode,
		'ZIP code, at least 5 characters',
		required,
	),
	textField('ZIP+4', 'postalCodePlusFour', 'Exactly four digits, no hyphen; optional', {
		placeholder: 'e.g. 1234',
	}),
];

function e911Address(params: Params, withName: boolean): IDataObject {
	const keys = [...E911_ADDRESS_FIELDS, ...(withName ? ['name'] : [])];
	return normaliseE911Address(
		Object.fromEntries(keys.map((key) => [key, params[key]])),
	) as IDataObject;
}

function e911Issues(params: Params, withName: boolean) {
	return [
		...(withName ? asDisplayed(validateUsNumber('Number', e164Digits(params.number)), {}) : []),
		...asDisplayed(
			validateE911Address(e911Address(params, withName), { requireName: withName }),
			E911_LABELS,
		),
	];
}

/**
 * The fields where the provisioned address differs from the one submitted (spaces around a value
 * ignored): the contract says it may be upper-cased or abbreviated, and it is what emergency services get.
 */
export function addressDifferences(submitted: unknown, provisioned: unknown): string[] {
	if (
		!submitted ||
		!provisioned ||
		typeof submitted !== 'object' ||
		typeof provisioned !== 'object'
	)
		return [];
	const a = submitted as IDataObject;
	const b = provisioned as IDataObject;
	const text = (value: unknown) => String(value ?? '').trim();
	return [...new Set([...Object.keys(a), ...Object.keys(b)])]
		.filter((key) => text(a[key]) !== text(b[key]))
		.sort();
}

/** A plain statement of how the address in force differs from the one sent; undefined when it is the same. */
function differenceNotice(data: IDataObject, differences: string[]): string | undefined {
	if (!differences.length) return undefined;
	const submitted = (data.address ?? {}) as IDataObject;
	const provisioned = (data.provisionedAddress ?? {}) as IDataObject;
	const caseOnly = differences.filter(
		(key) =>
			String(submitted[key] ?? '')
				.trim()
				.toUpperCase() ===
			String(provisioned[key] ?? '')
				.trim()
				.toUpperCase(),
	);
	const changed = differences.filter((key) => !caseOnly.includes(key));
	const parts = [
		...(changed.length ? [`changed (abbreviated or corrected) in: ${changed.join(', ')}`] : []),
		...(caseOnly.length ? [`upper-cased in: ${caseOnly.join(', ')}`] : []),
	];
	return `The address in force differs from the one submitted: ${parts.join('; ')}. The provisioned address is the one emergency services get.`;
}

/** The answer to a write or a check, with a plain statement of whether the address in force is the one sent, and how it changed. */
function e911Output(body: unknown, number: string): IDataObject {
	const data = (unwrap(body) ?? {}) as IDataObject;
	const differences = addressDifferences(data.address, data.provisionedAddress);
	const notice = differenceNotice(data, differences);
	return {
		number,
		...data,
		provisionedDiffers: differences.length > 0,
		provisionedDifferences: differences,
		...(notice ? { notice } : {}),
	};
}

/** Refusals of an address check that are its verdict on the address, not a failed request. */
const E911_VERDICTS = new Set([
	'e911.address_invalid',
	'e911.address_not_found',
	'e911.field_invalid',
	'e911.field_required',
]);
const isAddressVerdict = (body: unknown) => E911_VERDICTS.has(e911ErrorOf(body)?.code ?? '');

/**
 * A validation's answer as one item with `valid`: the service's result, or a refusal with its code, message and
 * any corrected or candidate addresses (the reason to validate), so a workflow branches instead of catching an error.
 */
function validationOutput(response: ApiResponse, number: string): IDataObject {
	const body = response.body as { success?: unknown; errors?: unknown; data?: unknown } | null;
	const refusal = e911ErrorOf(body);
	if (!refusal || body?.success !== false)
		return { valid: true, ...e911Output(response.body, number) };
	const data = body.data && typeof body.data === 'object' ? (body.data as IDataObject) : {};
	return {
		valid: false,
		...(number ? { number } : {}),
		code: refusal.code,
		field: refusal.field ?? null,
		message: refusal.message ?? '',
		errors: body.errors as IDataObject[],
		...data,
	};
}

/** An e911 address on one line: street, location, city, state and ZIP. */
function addressLine(address: unknown): string | undefined {
	const a = (address ?? {}) as IDataObject;
	return joined(
		[
			joined([a.streetNum, a.streetInfo]),
			a.location,
			a.city,
			joined([a.state, joined([a.postalCode, a.postalCodePlusFour], '-')]),
		],
		', ',
	);
}

/**
 * An e911 registration as Simplified shows it: the number as the id, status, activation, subscriber, the address in force (the
 * provisioned one), and a notice when it differs from the one submitted.
 */
const e911Shape = shapeOf(
	['number', 'configured', 'e911Status', 'activatedAt', 'address', 'provisionedAddress'],
	[
		'configured',
		['status', 'e911Status'],
		['activated', (r) => utcTime(r.activatedAt)],
		['name', (r) => ((r.provisionedAddress ?? r.address) as IDataObject | null)?.name],
		['address', (r) => addressLine(r.provisionedAddress ?? r.address)],
		['notice', (r) => differenceNotice(r, addressDifferences(r.address, r.provisionedAddress))],
	],
	'number',
);

const usNumberIssues = (p: Params) => validateUsNumber('Number', e164Digits(p.number));
const e911Record = (response: ApiResponse, p: Params) =>
	e911Output(response.body, e164Digits(p.number));
const VERDICT_NOTE =
	'the output says valid true or false (a refused address is an answer, not an error)';

export const e911: ResourceSpec = {
	value: 'e911',
	name: 'US E911 Data',
	description: 'Emergency-services address of a US number (NANPA accounts)',
	operations: [
		operation({
			value: 'get',
			name: 'Get',
			action: 'Get the e911 registration of a number',
			description: 'Get the e911 status and the submitted and provisioned addresses of a US number',
			fields: [numberField],
			validate: usNumberIssues,
			path: (p) => numberPath(p, '/e911'),
			shape: e911Shape,
			// The registration as answered; the number asked for is its id in Simplified when the answer has none.
			output: (response, p) =>
				wholesaleItems(response).map((item) =>
					withKnown(item as IDataObject, { number: e164Digits(p.number) }),
				),
		}),
		operation({
			value: 'remove',
			name: 'Remove',
			action: "Remove a number's e911 emergency address",
			description:
				'Remove the e911 registration of a US number; emergency calls from it then carry no registered address',
			fields: [numberField],
			validate: usNumberIssues,
			method: 'DELETE',
			path: (p) => numberPath(p, '/e911'),
			output: e911Record,
		}),
		operation({
			value: 'set',
			name: 'Set',
			action: "Set a number's e911 emergency address",
			description:
				'Register the emergency address of a US number (replaces the current one): emergency calls from it carry this address at once. Every field rule is checked first; the output says when the provisioned address differs.',
			fields: [numberField, ...e911Fields(true)],
			validate: (p) => e911Issues(p, true),
			method: 'PUT',
			path: (p) => numberPath(p, '/e911'),
			body: (p) => e911Address(p, true),
			output: e911Record,
		}),
		{
			value: 'validateAddress',
			name: 'Validate Address',
			action: 'Validate a US address',
			description: `Check an address without a number or registration; the only check that suggests candidate addresses for a refused one; ${VERDICT_NOTE}`,
			fields: e911Fields(false),
			validate: (p) => e911Issues(p, false),
			request: (p) => ({
				method: 'POST',
				path: `${NUMBERS_PATH}/e911/validate`,
				body: e911Address(p, false),
				refusalAnswers: isAddressVerdict,
			}),
			output: (response) => validationOutput(response, ''),
		},
		{
			value: 'validateForNumber',
			name: 'Validate for Number',
			action: 'Validate an e911 address for a number',
			description: `Check an e911 address for a US number without registering it; ${VERDICT_NOTE}`,
			fields: [numberField, ...e911Fields(true)],
			validate: (p) => e911Issues(p, true),
			request: (p) => ({
				method: 'POST',
				...numberPath(p, '/e911/validate'),
				body: e911Address(p, true),
				refusalAnswers: isAddressVerdict,
			}),
			output: (response, p) => validationOutput(response, e164Digits(p.number)),
		},
	],
};
