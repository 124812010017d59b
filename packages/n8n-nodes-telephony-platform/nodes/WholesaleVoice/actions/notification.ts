import { createHash } from 'node:crypto';

import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { ApiResponse, Params, ResourceSpec } from '../../shared/operation';
import { joined, shapeOf } from '../../shared/outputShape';
import { compact } from '../../shared/params';
import { isRecord } from '../../shared/responseShape';
import { isBlank, issues, matches, required } from '../../shared/validation';
import { dateField, filtersField, optionsField, textField } from '../../shared/fields';
import {
	ACCOUNT_PATH,
	asDisplayed,
	e164Digits,
	firstItem,
	operation,
	pathWith,
	plainDateTime,
	unwrap,
} from '../fields';
import {
	validateNotificationHistoryPeriod,
	validateNotificationRecipient,
} from '../validation/account';

const NOTIFICATIONS_PATH = `${ACCOUNT_PATH}/notifications`;

const typeField: INodeProperties = {
	displayName: 'Notification Type Name or ID',
	name: 'type',
	type: 'options',
	typeOptions: { loadOptionsMethod: 'getNotificationTypes' },
	required: true,
	default: '',
	description:
		'The notification type, from the types available on the account. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
};

const methodField = optionsField('Method', 'method', 'email', [
	['E-Mail', 'email'],
	['SMS', 'sms', 'Charged against the credit balance'],
]);
const destinationField = textField(
	'Recipient',
	'destination',
	'An e-mail address, or a mobile number in E.164 for SMS',
	{ required: true, placeholder: 'e.g. ops@example.com or 447700900555' },
);

const typeIssues = (value: unknown) =>
	issues(
		required('Notification Type', value),
		matches(
			'Notification Type',
			String(value ?? ''),
			/^[A-Za-z0-9_-]+$/,
			'letters, digits, - and _ only',
		),
	);

/** The recipient as the API knows it: an e-mail address trimmed, a mobile number as E.164 digits (`+44 7700 900123` is sent, and hashed, as `447700900123`). */
export function recipientAddress(method: unknown, destination: unknown): string {
	return method === 'sms' ? e164Digits(destination) : String(destination ?? '').trim();
}

/** The recipient's id in paths: the md5 of the address, computed here so users type the address. */
export function recipientHash(method: unknown, destination: unknown): string {
	return createHash('md5').update(recipientAddress(method, destination)).digest('hex');
}

/** The hash the service answered with (the record's `hash`, or `data` itself as text), else ours. */
function answeredHash(item: IDataObject, method: unknown, destination: unknown): string {
	if (typeof item.hash === 'string' && item.hash !== '') return item.hash;
	if (typeof item.value === 'string' && /^[0-9a-f]{32}$/i.test(item.value)) return item.value;
	return recipientHash(method, destination);
}

/** A key of a recipient map: the recipient's hash, the md5 of its address. */
const HASH_KEY = /^[0-9a-f]{32}$/i;
const METHODS = ['email', 'sms'];

/** A recipient given as its address alone (a list of addresses, a map's value) as a record, with the map's key as its hash. */
function asRecipient(value: unknown, hash?: string): IDataObject {
	const record = isRecord(value) ? value : { destination: value as string };
	return hash === undefined ? record : { hash, ...record };
}

/**
 * The recipients in an answer whose shape the spec does not show: a list (of records or addresses), an object keyed
 * by hash (values addresses or records), for a whole type one keyed by method holding either, or one record.
 */
function recipientRecords(
	body: unknown,
	method: unknown,
): Array<{ method: unknown; record: IDataObject }> {
	if (body === undefined || body === null || body === '') return [];
	if (Array.isArray(body)) return body.map((entry) => ({ method, record: asRecipient(entry) }));
	if (!isRecord(body)) return [{ method, record: { value: body as string } }];
	const keys = Object.keys(body);
	if (method === undefined && keys.length > 0 && keys.every((key) => METHODS.includes(key))) {
		return keys.flatMap((key) => recipientRecords(body[key], key));
	}
	if (keys.every((key) => HASH_KEY.test(key)))
		return keys.map((key) => ({ method, record: asRecipient(body[key], key) }));
	return [{ method, record: body }];
}

/** One item per recipient as Get Recipient gives it: type, method, destination and hash (the API's, else ours), then the API's fields. */
function recipientItems(response: ApiResponse, p: Params, method?: unknown): IDataObject[] {
	return recipientRecords(unwrap(response.body), method).map(
		({ method: recipientMethod, record }) => {
			const destination =
				record.destination ??
				(p.destination === undefined ? null : recipientAddress(recipientMethod, p.destination));
			const hash =
				record.hash ??
				(typeof destination === 'string' && destination !== ''
					? recipientHash(recipientMethod, destination)
					: null);
			return { type: p.type, method: recipientMethod ?? null, destination, hash, ...record };
		},
	);
}

function recipientIssues(method: unknown, destination: unknown) {
	const address = isBlank(destination) ? destination : recipientAddress(method, destination);
	return asDisplayed(validateNotificationRecipient(method, address), {
		method: 'Method',
		destination: 'Recipient',
	});
}

/** Recipients on one line, each address with its method: `ops@example.com (email), 447700900555 (sms)`. */
function recipientLine(recipients: unknown): string | undefined {
	const each = recipientRecords(recipients, undefined).map(({ method, record }) => {
		const via = record.method ?? method;
		return joined([
			record.destination ?? record.value,
			isBlank(via) ? undefined : `(${String(via)})`,
		]);
	});
	return joined(each, ', ');
}

/** A notification as Simplified shows it (the spec does not show its record): its type as the id, class, description and recipients on one line. */
const notificationShape = shapeOf(
	['type', 'class', 'description', 'recipients'],
	['class', 'description', ['recipients', (r) => recipientLine(r.recipients)]],
	'type',
);

const recipient = {
	fields: [typeField, methodField, destinationField],
	validate: (p: Params) => [...typeIssues(p.type), ...recipientIssues(p.method, p.destination)],
};
const RECIPIENT_PATH = `${NOTIFICATIONS_PATH}/{type}/{method}/{hash}`;
const withHash = (p: Params) =>
	pathWith(RECIPIENT_PATH, { ...p, hash: recipientHash(p.method, p.destination) });

export const notification: ResourceSpec = {
	value: 'notification',
	name: 'Notification',
	description: 'Who is notified (by e-mail or SMS) of account events, and the history',
	operations: [
		operation({
			value: 'addRecipient',
			name: 'Add Recipient',
			action: 'Add a notification recipient, SMS charged',
			description:
				'Add an e-mail address or mobile number to a notification type (SMS notifications are charged)',
			...recipient,
			method: 'POST',
			path: `${NOTIFICATIONS_PATH}/{type}/{method}`,
			body: (p) => ({ destination: recipientAddress(p.method, p.destination) }),
			output: (response, p) => {
				const item = firstItem(response);
				return [
					{
						...item,
						type: p.type,
						method: p.method,
						destination: recipientAddress(p.method, p.destination),
						hash: answeredHash(item, p.method, p.destination),
					},
				];
			},
		}),
		operation({
			value: 'getAll',
			name: 'Get Many',
			action: 'Get many notifications',
			description: 'List the notifications set up on the account',
			path: NOTIFICATIONS_PATH,
			paging: 'client',
			shape: notificationShape,
		}),
		operation({
			value: 'getAvailableTypes',
			name: 'Get Available Types',
			action: 'Get the available notification types',
			description: 'List the notification types the account can use',
			path: `${NOTIFICATIONS_PATH}/available`,
		}),
		operation({
			value: 'getHistory',
			name: 'Get History',
			action: 'Get the notification history',
			description:
				'List notifications sent in the last 60 days, optionally of one class (e.g. trunk, billing)',
			paging: 'client',
			fields: [
				filtersField([
					textField('Class', 'class', undefined, { placeholder: 'e.g. billing' }),
					dateField('dateStart', 'Date Start', 'At most 60 days ago'),
					dateField('dateEnd', 'Date End', 'Default now'),
				]),
			],
			validate: (p) =>
				asDisplayed(
					validateNotificationHistoryPeriod(
						plainDateTime(p.filters?.dateStart),
						plainDateTime(p.filters?.dateEnd),
					),
					{ date_start: 'Filters > Date Start', date_end: 'Filters > Date End' },
				),
			path: `${NOTIFICATIONS_PATH}/history`,
			query: (p) =>
				compact({
					class: p.filters?.class,
					date_start: plainDateTime(p.filters?.dateStart),
					date_end: plainDateTime(p.filters?.dateEnd),
				}),
		}),
		operation({
			value: 'getRecipients',
			name: 'Get Recipients',
			action: 'Get the recipients of a notification type',
			description: 'List who receives a notification type, by e-mail and SMS',
			fields: [typeField],
			validate: (p) => typeIssues(p.type),
			path: `${NOTIFICATIONS_PATH}/{type}`,
			output: (response, p) => recipientItems(response, p),
		}),
		operation({
			value: 'getRecipientsByMethod',
			name: 'Get Recipients by Method',
			action: 'Get notification recipients by method',
			description: 'List who receives a notification type by one method (e-mail or SMS)',
			fields: [typeField, methodField],
			validate: (p) => typeIssues(p.type),
			path: `${NOTIFICATIONS_PATH}/{type}/{method}`,
			output: (response, p) => recipientItems(response, p, p.method),
		}),
		operation({
			value: 'getRecipient',
			name: 'Get Recipient',
			action: 'Get a notification recipient',
			description:
				'Get one e-mail address or mobile number of a notification type (its ID, the md5 of the address, is computed here)',
			...recipient,
			path: withHash,
			output: (response, p) => recipientItems(response, p, p.method),
		}),
		operation({
			value: 'removeAll',
			name: 'Remove All Recipients',
			action: 'Remove every recipient of a notification type',
			description: 'Remove every recipient of a notification type',
			fields: [typeField],
			validate: (p) => typeIssues(p.type),
			method: 'DELETE',
			path: `${NOTIFICATIONS_PATH}/{type}`,
			emptyBody: true,
		}),
		operation({
			value: 'removeRecipient',
			name: 'Remove Recipient',
			action: 'Remove a notification recipient',
			description: 'Remove one e-mail address or mobile number from a notification type',
			...recipient,
			method: 'DELETE',
			path: withHash,
			emptyBody: true,
		}),
	],
};
