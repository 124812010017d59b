import type { INodeProperties } from 'n8n-workflow';

import { locatorField } from '../shared/fields';
import type { ApiPath, Params } from '../shared/operation';

/** The fields and paths every Hosted PBX resource shares: the customer, and sub-resources picked from a list. */

export const CUSTOMER = 'customerId';

/** The customer every sub-resource hangs off: from the list, `me`, an ID or a URL. */
export const customerField = locatorField(
	'Customer',
	CUSTOMER,
	'The customer (company PBX). "me" is your own account for company admins and extension users; resellers pick a customer.',
	'searchCustomers',
	{
		default: { mode: 'id', value: 'me' },
		modes: [
			{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'e.g. me or 2001' },
			{
				displayName: 'By URL',
				name: 'url',
				type: 'string',
				placeholder: 'e.g. https://pbx.example.com/api/v1/customers/2001',
				extractValue: { type: 'regex', regex: '/customers/([^/?#]+)' },
			},
		],
	},
);

/**
 * `/customers/{customerId}` for the chosen customer. An empty customer is refused by the transport,
 * never turned into `me`: "me" is a value the user chooses (it is the field's default).
 */
export function customerPath(params: Params, rest = ''): ApiPath {
	return { path: `/customers/{${CUSTOMER}}${rest}`, pathParams: { [CUSTOMER]: params[CUSTOMER] } };
}

/**
 * A sub-resource picked from a searchable list of the chosen customer, by ID, or by its URI.
 * The list search is `search<Collection>` (see `listSearchMethods`).
 */
export function subResourceField(
	name: string,
	displayName: string,
	collection: string,
	description: string,
): INodeProperties {
	return locatorField(displayName, name, description, searchMethodName(collection), {
		modes: [
			{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'e.g. 42' },
			{
				displayName: 'By URL',
				name: 'url',
				type: 'string',
				placeholder: `e.g. https://pbx.example.com/api/v1/customers/2001/${collection}/42`,
				extractValue: { type: 'regex', regex: `/${collection}/([^/?#.]+)` },
			},
		],
	});
}

/** The name of the list search of a collection (`searchPhonebook`). */
export function searchMethodName(collection: string): string {
	return `search${collection[0].toUpperCase()}${collection.slice(1)}`;
}

export const endpointField: INodeProperties = {
	...subResourceField(
		'endpointId',
		'Endpoint',
		'endpoints',
		'The endpoint (extension or device group)',
	),
	placeholder: 'e.g. 205',
};

export interface CollectionOptions {
	/** Path segment below the customer (`phonebook`). */
	collection: string;
	/** The parameter that holds a record's id (`entryId`); stored in workflows, so never renamed. */
	id: string;
	/** Words for descriptions: `phone book entry`, `phone book entries`. */
	singular: string;
	plural: string;
}

export function idFieldOf(options: CollectionOptions): INodeProperties {
	return subResourceField(
		options.id,
		options.singular.replace(/(^|\s)\w/g, (c) => c.toUpperCase()),
		options.collection,
		`The ${options.singular}`,
	);
}

/** The path of one record of a collection: `/customers/me/phonebook/42`. */
export function recordPath(options: CollectionOptions, params: Params): ApiPath {
	const customer = customerPath(params, `/${options.collection}/{${options.id}}`);
	return {
		path: customer.path,
		pathParams: { ...customer.pathParams, [options.id]: params[options.id] },
	};
}
