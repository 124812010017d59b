/**
 * What the package relies on in each answer, read from the nodes' own declarations wherever they
 * exist (the operations, their output shapes, the Hosted PBX record parsing and the trigger's event
 * predicates), so that the check follows the nodes when they change. Where the nodes declare
 * nothing (a field's JSON type, where an id comes from), a small table below says it, with a
 * comment naming what in the nodes reads it.
 */
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import { withId } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/records';
import { EVENTS, withParties } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/trigger/events';
import { creditChange } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/trigger/credit';
import { outcomeOf } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/trigger/textStatus';
import { createdAt } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/records';
import { hostedPbxApi, platformApi, wholesaleVoiceApi } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/apis';
import { operationFields } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/describe';
import type { OperationSpec, ResourceSpec } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import { idFromUri } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/params';
import { isBlank } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/validation';
import type { ApiDefinition } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import { nodeModule } from '../packageSource';
import { FIELD_TYPES } from './fieldTypes';

/** Node modules by their `.ts` file: tsx would resolve `X.node` to the codex file `X.node.json` (as in scripts/docs.ts). */

export type ApiKey = 'hostedPbx' | 'wholesaleVoice' | 'platform';

export interface CheckedApi {
	key: ApiKey;
	definition: ApiDefinition;
	/** The credential's fields (credentials/*.credentials.ts), each from its environment variable. */
	env: Record<string, string>;
	/** The products (action nodes) whose reads go through this credential. */
	products: Array<{ key: string; resources: () => ResourceSpec[] }>;
	/** The rate headers every answer carries, which the transport reads for the credential's budget (`noteRateLimit` in nodes/shared/transport/rateBudget.ts). */
	rateHeaders: string[];
}

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

export const APIS: CheckedApi[] = [
	{
		key: 'hostedPbx',
		definition: hostedPbxApi,
		env: { baseUrl: 'TELEPHONY_PBX_BASE_URL', username: 'TELEPHONY_PBX_USERNAME', password: 'TELEPHONY_PBX_PASSWORD' },
		products: [{ key: 'hostedPbx', resources: () => nodeModule<typeof import('../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node')>('nodes/HostedPbx/HostedPbx.node').hostedPbxResources }],
		// The PBX contract promises them on every answer; the other APIs do not.
		rateHeaders: RATE_HEADERS,
	},
	{
		key: 'wholesaleVoice',
		definition: wholesaleVoiceApi,
		env: { baseUrl: 'TELEPHONY_WHOLESALE_BASE_URL', apiUsername: 'TELEPHONY_WHOLESALE_API_USERNAME', apiPassword: 'TELEPHONY_WHOLESALE_API_PASSWORD', accountId: 'TELEPHONY_WHOLESALE_ACCOUNT_ID' },
		products: [{ key: 'wholesaleVoice', resources: () => nodeModule<typeof import('../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node')>('nodes/WholesaleVoice/WholesaleVoice.node').wholesaleVoiceResources }],
		rateHeaders: [],
	},
	{
		key: 'platform',
		definition: platformApi,
		env: { baseUrl: 'TELEPHONY_PLATFORM_BASE_URL', apiKey: 'TELEPHONY_PLATFORM_API_KEY' },
		products: [
			{ key: 'voiceAgent', resources: () => nodeModule<typeof import('../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node')>('nodes/VoiceAgent/VoiceAgent.node').voiceAgentResources },
			{
				key: 'conversationIntelligence',
				resources: () => nodeModule<typeof import('../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node')>('nodes/ConversationIntelligence/ConversationIntelligence.node').conversationIntelligenceResources,
			},
		],
		rateHeaders: [],
	},
];

/**
 * GET operations that are not reads: each mints a single-use token (Generate Auth Token, Get Stream
 * Token), which a check has no use for.
 */
export const NOT_READS = new Set(['hostedPbx authToken.generate', 'conversationIntelligence session.getStreamToken']);

/**
 * Where the id of a read that takes one comes from: an environment variable the maintainer sets
 * (first), or the first record a list returned (its `id` as the node outputs it, or its shape's id),
 * or a value picked from that record (given the read's default parameters). Keyed by product and
 * parameter name (the field of the operation that holds the id), or by product, operation and
 * parameter where one read needs another kind of value.
 */
export interface IdSource {
	from?: string;
	pick?: (record: IDataObject, params: IDataObject) => unknown;
	env?: string;
	/** What the variable must name, for the note of a read skipped without it. */
	meaning?: string;
}

export const ID_SOURCES: Record<string, IdSource> = {
	'hostedPbx customerId': { from: 'customer.getAll' },
	'hostedPbx entryId': { from: 'phoneBook.getAll' },
	'hostedPbx smsId': { from: 'sms.getAll' },
	'hostedPbx bundleId': { from: 'callBundle.getAll' },
	'hostedPbx callerIdId': { from: 'outgoingCallerId.getAll' },
	'hostedPbx phoneNumberId': { from: 'phoneNumber.getAll' },
	'hostedPbx recordingId': { from: 'recording.getAll' },
	'hostedPbx soundId': { from: 'sound.getAll' },
	// Endpoints have no list: the phone numbers name the endpoints they ring (as searchEndpoints in nodes/HostedPbx/search.ts reads them).
	'hostedPbx endpointId': { from: 'phoneNumber.getAll', pick: (r) => (typeof r.destination === 'string' && r.destination.includes('/endpoints/') ? idFromUri(r.destination) : undefined) },
	'wholesaleVoice trunk': { from: 'trunk.getAll' },
	'wholesaleVoice ref': { from: 'port.getAll' },
	'wholesaleVoice type': { from: 'notification.getAll' },
	// A recipient of the first notification type, by the method the read asks for (its default).
	'wholesaleVoice destination': { from: 'notification.getRecipients', pick: (r, p) => (r.method === p.method ? r.destination : undefined) },
	// The Wholesale API lists no numbers and no call ids: the maintainer names them.
	'wholesaleVoice number': { env: 'TELEPHONY_CHECK_NUMBER', meaning: 'a number allocated to the account' },
	'wholesaleVoice number.getSmsEndpoint number': { env: 'TELEPHONY_CHECK_MOBILE_NUMBER', meaning: 'a mobile number of the account (inbound SMS)' },
	'wholesaleVoice uk999.get number': { env: 'TELEPHONY_CHECK_UK_NUMBER', meaning: 'a UK number of the account with 999 data' },
	'wholesaleVoice e911.get number': { env: 'TELEPHONY_CHECK_US_NUMBER', meaning: 'a US number of the account with an e911 address' },
	'wholesaleVoice callId': { env: 'TELEPHONY_CHECK_CALL_ID', meaning: 'the call_id of a call in progress' },
	'voiceAgent webhookId': { from: 'webhook.getAll', env: 'TELEPHONY_CHECK_WEBHOOK_ID', meaning: 'a webhook of the agent service' },
};

/** The id source of a parameter of a read, if it has one. */
export function idSource(product: string, operation: string, param: string): IdSource | undefined {
	return ID_SOURCES[`${product} ${operation} ${param}`] ?? ID_SOURCES[`${product} ${param}`];
}

/** Every variable that can name an id, for the documentation and the start of the check. */
export const ID_VARIABLES = [...new Set(Object.values(ID_SOURCES).flatMap((source) => (source.env ? [source.env] : [])))];

/** Names a probe may see that are no field: what JavaScript itself asks of an object. */
const NOT_FIELDS = new Set(['toJSON', 'then', 'constructor', 'valueOf', 'toString', 'length']);

/** The top-level fields a reader of one record reads, found by handing it a record that notes every name asked for. */
export function fieldsRead(read: (record: IDataObject) => unknown): string[] {
	const names = new Set<string>();
	const note = (name: string | symbol) => typeof name === 'string' && !NOT_FIELDS.has(name) && names.add(name);
	const record = new Proxy({} as IDataObject, {
		get: (_target, name) => (note(name), undefined),
		has: (_target, name) => (note(name), false),
	});
	try {
		read(record);
	} catch {
		// A reader that needs values has still named what it read.
	}
	return [...names];
}

/**
 * What the Hosted PBX Trigger reads of the records of the lists it polls (nodes/HostedPbx/trigger/):
 * each event's predicate, the parties and times of every item, a text's status, the credit balance.
 */
function triggerReads(collection: string): string[] {
	const events = EVENTS.filter((event) => event.source === collection);
	if (events.length === 0) return [];
	const readers: Array<(record: IDataObject) => unknown> = [createdAt];
	for (const event of events) {
		if ('matches' in event) readers.push((r) => event.matches(r, {}), withParties);
		if ('kind' in event && event.kind === 'textStatus') readers.push(outcomeOf);
		if ('kind' in event && event.kind === 'creditLow') readers.push((r) => creditChange(undefined, r, 0, 0));
	}
	return readers.flatMap(fieldsRead);
}

export interface PlannedRead {
	/** `hostedPbx customer.getAll`. */
	name: string;
	product: string;
	api: CheckedApi;
	operation: OperationSpec;
	/** Parameters that hold ids, each from `ID_SOURCES` (`idSource`). */
	ids: string[];
	/** Required parameters without a default that no list gives (a wholesale number): the read is skipped. */
	unfilled: string[];
	/** The fields the nodes read of each record, and those the contract names besides (Selected Fields). */
	reads: string[];
	known: string[];
}

const PBX_COLLECTION = /\/customers\/\{customerId\}\/([a-z]+)$/;

/** The params of an operation from its fields' defaults (a resource locator's value), with the ids given. */
export function paramsOf(operation: OperationSpec, ids: Record<string, unknown> = {}): IDataObject {
	const params: IDataObject = {};
	for (const field of operationFields(operation)) {
		const value = field.default as unknown;
		params[field.name] = (value && typeof value === 'object' && 'value' in value ? (value as { value: unknown }).value : value) as IDataObject[string];
	}
	return { ...params, ...ids } as IDataObject;
}

const CHECKING_ENVIRONMENT = { absoluteUrl: (path: string) => path, variables: {}, redact: (text: string) => text };

/**
 * Every read of an API's nodes: a GET that answers records or values (files are not compared), made by
 * one request (several-call operations read what these reads read).
 */
export function plannedReads(api: CheckedApi): PlannedRead[] {
	return api.products.flatMap((product) =>
		product.resources().flatMap((resource) =>
			resource.operations.flatMap((operation): PlannedRead[] => {
				const name = `${product.key} ${resource.value}.${operation.value}`;
				if (!operation.request || operation.run || NOT_READS.has(name)) return [];
				const request = operation.request(paramsOf(operation), CHECKING_ENVIRONMENT);
				if (request.method !== 'GET' || request.responseType === 'stream' || request.responseType === 'binary') return [];
				const fields = operationFields(operation);
				const operationName = `${resource.value}.${operation.value}`;
				const ids = fields.map((field) => field.name).filter((field) => idSource(product.key, operationName, field));
				const unfilled = fields.filter((field) => field.required && !ids.includes(field.name) && isBlank(paramsOf(operation)[field.name])).map((field) => field.name);
				const shape = operation.shape;
				const own = shape ? [...fieldsRead(shape.simplify), ...(typeof shape.id === 'string' ? [shape.id] : typeof shape.id === 'function' ? fieldsRead(shape.id) : [])] : [];
				// Every PBX record's id is read from its uri (`withId`, `withIdBeside` in nodes/HostedPbx/records.ts).
				const pbx = api.key === 'hostedPbx' ? fieldsRead(withId).filter((field) => field !== 'id') : [];
				const collection = api.key === 'hostedPbx' ? PBX_COLLECTION.exec(request.path)?.[1] : undefined;
				const reads = [...new Set([...own, ...pbx, ...(collection ? triggerReads(collection) : [])])].sort();
				return [{ name, product: product.key, api, operation, ids, unfilled, reads, known: [...new Set(['id', ...reads, ...(shape?.fields ?? [])])] }];
			}),
		),
	);
}

export type JsonType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null';

/** The JSON type of a value. */
export function jsonType(value: unknown): JsonType {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	if (typeof value === 'number') return 'number';
	if (typeof value === 'boolean') return 'boolean';
	return typeof value === 'string' ? 'string' : 'object';
}

/** The expected type of a field an operation reads: `[types, may be absent]`, undefined when the table lacks it. */
export function expectedType(read: PlannedRead, field: string): { types: JsonType[]; optional: boolean } | undefined {
	const written = FIELD_TYPES[`${read.name.split(' ')[0]} ${read.name.split(' ')[1].split('.')[0]}.${field}`] ?? FIELD_TYPES[`${read.api.key} ${field}`];
	if (written === undefined) return undefined;
	const optional = written.endsWith('?');
	return { types: written.replace(/\?$/, '').split('|') as JsonType[], optional };
}

/** The credential of an API from the environment: undefined when none of its variables is set, the names missing when only some are. */
export function credentialsFrom(api: CheckedApi, env: NodeJS.ProcessEnv): ICredentialDataDecryptedObject | string[] | undefined {
	const entries = Object.entries(api.env).map(([field, name]) => [field, name, env[name]?.trim()] as const);
	const missing = entries.filter(([, , value]) => !value).map(([, name]) => name);
	if (missing.length === entries.length) return undefined;
	if (missing.length) return missing;
	return Object.fromEntries(entries.map(([field, , value]) => [field, value as string]));
}
