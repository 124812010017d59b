import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { hostedPbxApi } from '../shared/apis';
import type { ApiPath } from '../shared/operation';
import { idFromUri } from '../shared/params';
import { isRecord } from '../shared/responseShape';
import { createClient } from '../shared/transport/client';
import { CUSTOMER, customerPath, searchMethodName } from './fields';
import { pbxRecords } from './records';

/** What a list search shows for each record of a collection. */
const SEARCHABLE: Record<string, (record: IDataObject) => string> = {
	phonebook: (r) => `${r.name} (${r.phoneNumber})`,
	sounds: (r) => `${r.name} (${r.type})`,
	recordings: (r) => `${r.started} ${r.direction} ${r.partyId}`,
	phonenumbers: (r) => `${r.number}${r.identifier ? ` (${r.identifier})` : ''}`,
	outgoingcallerids: (r) => String(r.number),
	callbundles: (r) => `${r.name} (${r.status})`,
	sms: (r) => `${r.created} ${r.direction} ${r.from} → ${r.to}`,
};

const SEARCH_PAGE_SIZE = 200;

/** One page of a list: the first, or the one a `nextPage` token names. */
async function listPage(
	context: ILoadOptionsFunctions,
	path: ApiPath,
	operation: string,
	paginationToken?: string,
) {
	const request = {
		method: 'GET' as const,
		...path,
		url: paginationToken,
		qs: paginationToken ? undefined : { pageSize: SEARCH_PAGE_SIZE },
	};
	const response = await createClient(context, hostedPbxApi).request(request);
	return {
		records: pbxRecords(response, operation).filter(isRecord),
		nextPage: (response.body as IDataObject)?.nextPage as string | undefined,
	};
}

/** The entries whose name holds what the user typed, or whose value is it. */
function matching(
	results: INodeListSearchItems[],
	filter: string | undefined,
): INodeListSearchItems[] {
	const needle = (filter ?? '').toLowerCase();
	return results.filter(
		(item) => !needle || item.name.toLowerCase().includes(needle) || item.value === needle,
	);
}

async function searchCollection(
	context: ILoadOptionsFunctions,
	path: ApiPath,
	label: (record: IDataObject) => string,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const { records, nextPage } = await listPage(context, path, 'Search the list', paginationToken);
	const results = records.map((record) => ({
		name: label(record),
		value: String(record.id),
		url: String(record.uri ?? ''),
	}));
	return { results: matching(results, filter), paginationToken: nextPage };
}

/** The customer chosen in the panel while a list loads: an ID, `me`, or the ID inside a URL. */
function currentCustomer(context: ILoadOptionsFunctions): string {
	const raw = context.getCurrentNodeParameter(CUSTOMER) as { value?: unknown } | string | undefined;
	const value = String((typeof raw === 'object' ? raw?.value : raw) ?? '').trim();
	return /\/customers\/([^/?#]+)/.exec(value)?.[1] ?? (value || 'me');
}

/** A collection of the customer chosen in the panel. */
const customerCollection = (context: ILoadOptionsFunctions, collection: string) =>
	customerPath({ [CUSTOMER]: currentCustomer(context) }, `/${collection}`);

/**
 * Endpoints have no list resource in the API; the phone numbers name the endpoints they ring
 * (`destination`, `routingRules[].destination`), so the list is built from those.
 */
async function searchEndpoints(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const seen = new Map<string, string>();
	for (const number of (
		await listPage(this, customerCollection(this, 'phonenumbers'), 'Search endpoints')
	).records) {
		const rules = Array.isArray(number.routingRules) ? (number.routingRules as unknown[]) : [];
		const destinations = [
			number.destination,
			...rules.map((rule) => (isRecord(rule) ? rule.destination : undefined)),
		];
		for (const destination of destinations) {
			if (typeof destination !== 'string' || !destination.includes('/endpoints/')) continue;
			const id = idFromUri(destination);
			if (!seen.has(id)) seen.set(id, `Endpoint ${id} (rings for ${number.number})`);
		}
	}
	return {
		results: matching(
			[...seen].map(([id, label]) => ({ name: label, value: id })),
			filter,
		),
	};
}

export const listSearchMethods = {
	async searchCustomers(
		this: ILoadOptionsFunctions,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult> {
		const found = await searchCollection(
			this,
			{ path: '/customers' },
			(r) => `${r.company} (${r.id})`,
			filter,
			paginationToken,
		);
		// Company admins and extension users may also use their own account as "me".
		if (!paginationToken && (!filter || 'me'.includes(filter.toLowerCase()))) {
			found.results.unshift({ name: 'Me (my own account)', value: 'me' });
		}
		return found;
	},
	searchEndpoints,
	/** Who may send SMS: approved caller IDs with SMS allowed, and the customer's SMS-enabled numbers. */
	async searchSmsSenders(
		this: ILoadOptionsFunctions,
		filter?: string,
	): Promise<INodeListSearchResult> {
		const [callerIds, numbers] = await Promise.all(
			['outgoingcallerids', 'phonenumbers'].map(
				async (collection) =>
					(await listPage(this, customerCollection(this, collection), 'Search SMS senders'))
						.records,
			),
		);
		// Numbers first: a reply can reach them; a name is shown as the sender but cannot receive replies.
		const isNumber = (value: unknown) => /^\+?\d[\d\s]*$/.test(String(value));
		const callerIdSenders = callerIds.filter((c) => c.allowSms);
		const senders = [
			...numbers
				.filter((n) => n.smsEnabled)
				.map((n) => ({ name: `${n.number} (SMS-enabled number)`, value: String(n.number) })),
			...callerIdSenders
				.filter((c) => isNumber(c.number))
				.map((c) => ({ name: `${c.number} (approved caller ID)`, value: String(c.number) })),
			...callerIdSenders
				.filter((c) => !isNumber(c.number))
				.map((c) => ({
					name: `${c.number} (a name: cannot receive replies)`,
					value: String(c.number),
				})),
		];
		return { results: matching(senders, filter) };
	},
	...Object.fromEntries(
		Object.entries(SEARCHABLE).map(([collection, label]) => [
			searchMethodName(collection),
			async function (this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) {
				return await searchCollection(
					this,
					customerCollection(this, collection),
					label,
					filter,
					paginationToken,
				);
			},
		]),
	),
};
