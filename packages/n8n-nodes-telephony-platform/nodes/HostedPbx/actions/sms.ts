import type { IDataObject } from 'n8n-workflow';

import { locatorField, numericField, textField } from '../../shared/fields';
import type { OutputShape, Params, ResourceSpec } from '../../shared/operation';
import { plain, utcTime } from '../../shared/outputShape';
import { SMS_PARTS_RULE, smsParts } from '../../shared/smsParts';
import type { Check } from '../../shared/validation';
import { isBlank, issues, kindOf, maxLength, required } from '../../shared/validation';
import {
	countryCodeIssue,
	defaultCountryCodeField,
	dialledNumber,
	nationalIssue,
	phoneNumber,
} from '../../shared/phoneNumbers';
import { customerField, customerPath } from '../fields';
import { getManyOperation, getOneOperation } from './collection';
import { pbxOutput } from '../records';
import { DELIVERY_STATUSES } from '../trigger/textStatus';

/** Longest sender name or number sent: far beyond any real one, short of an expression's runaway text. */
const SENDER_MAX_LENGTH = 256;
/** Three parts (459 GSM-7 characters) carry any ordinary long text; a runaway one (a model's essay) is refused. */
export const DEFAULT_MAX_PARTS = 3;

/** The text sent as the message: an expression's number as written; anything else (a BigInt, an object) is no text and is refused. */
function messageText(p: Params): string | undefined {
	return typeof p.body === 'string'
		? p.body
		: typeof p.body === 'number' && Number.isFinite(p.body)
			? String(p.body)
			: undefined;
}

/** The estimate of exactly the text sent: a value that is not text cannot pass unestimated. */
function partsIssue(p: Params): Check {
	const text = messageText(p);
	if (text === undefined && !isBlank(p.body))
		return { field: 'Message', problem: `it is ${kindOf(p.body)}, not text`, rule: 'text' };
	if (!text) return undefined;
	const estimate = smsParts(text);
	const max = Number(p.maxParts ?? DEFAULT_MAX_PARTS);
	if (estimate.parts <= max) return undefined;
	return {
		field: 'Message',
		problem: `it would be sent as about ${estimate.parts} parts (${estimate.units} ${estimate.encoding === 'GSM-7' ? 'GSM-7 characters' : 'UCS-2 code units'}), more than Maximum Parts (${max})`,
		rule: SMS_PARTS_RULE.replace('Maximum Parts', String(max)),
	};
}

/**
 * Where a message stands, in words: `received` (inbound); for an outgoing one `failed to send`, its
 * delivery status (`delivered to handset`, `rejected by SMS carrier`, …), or else `sent` or `pending`.
 */
export function smsStatus(record: IDataObject): string | undefined {
	if (record.direction === 'IN') return 'received';
	if (record.sendStatus === 'FAILED') return 'failed to send';
	const delivery = DELIVERY_STATUSES[Number(record.deliveryStatus)];
	if (delivery) return delivery;
	return typeof record.sendStatus === 'string' ? record.sendStatus.toLowerCase() : undefined;
}

/** A message as Simplified shows it: direction, sender, recipient, text, when, and its status in words. */
export const smsShape: OutputShape = {
	fields: [
		'body',
		'cost',
		'created',
		'deliveryStatus',
		'direction',
		'from',
		'sendStatus',
		'to',
		'type',
		'uri',
	],
	simplify: (r) =>
		plain({
			direction: r.direction,
			from: r.from,
			to: r.to,
			body: r.body,
			created: utcTime(r.created),
			status: smsStatus(r),
		}),
};

const SMS = {
	collection: 'sms',
	id: 'smsId',
	singular: 'SMS message',
	plural: 'SMS messages',
	shape: smsShape,
};

export const sms: ResourceSpec = {
	value: 'sms',
	name: 'SMS',
	description: 'Text messages sent and received by the customer',
	operations: [
		getOneOperation(SMS),
		getManyOperation({ ...SMS, description: "List the customer's sent and received SMS messages" }),
		{
			value: 'send',
			name: 'Send',
			action: 'Send an SMS',
			description:
				'Send a text message from an approved sender to a phone number. Each message is charged to the account.',
			fields: [
				customerField,
				locatorField(
					'From',
					'from',
					'The sender shown to the recipient: one of the approved outgoing caller IDs or SMS-enabled numbers of the customer',
					'searchSmsSenders',
					{
						modes: [
							{
								displayName: 'Name or Number',
								name: 'id',
								type: 'string',
								placeholder: 'e.g. +441632960555',
							},
						],
					},
				),
				textField(
					'To',
					'to',
					'The recipient phone number, in international form with + (a national number needs Default Country Code)',
					{ required: true, placeholder: 'e.g. +447700900999' },
				),
				defaultCountryCodeField,
				textField(
					'Message',
					'body',
					'The text to send; long messages are sent and charged as several parts',
					{ required: true, typeOptions: { rows: 4 } },
				),
				numericField(
					'Maximum Parts',
					'maxParts',
					DEFAULT_MAX_PARTS,
					{ minValue: 1, maxValue: 10, numberPrecision: 0 },
					{
						description:
							'Refuse, before sending, a text estimated at more parts than this (each part is charged): 1 part is 160 GSM-7 or 70 UCS-2 characters',
					},
				),
			],
			validate: (p) =>
				issues(
					required('From', p.from),
					// The contract sets no length for a sender (a name or a number); this only bounds absurd values.
					maxLength('From', typeof p.from === 'string' ? p.from.trim() : p.from, SENDER_MAX_LENGTH),
					required('To', p.to),
					phoneNumber('To', p.to, p.defaultCountryCode),
					countryCodeIssue('Default Country Code', p.defaultCountryCode),
					nationalIssue('To', p.to, p.defaultCountryCode),
					required('Message', p.body),
					partsIssue(p),
				),
			request: (p) => ({
				method: 'POST',
				...customerPath(p, '/sms'),
				body: {
					type: 'smsmessage',
					from: String(p.from).trim(),
					to: dialledNumber(p.to, p.defaultCountryCode),
					body: messageText(p),
				},
			}),
			output: (response, p) => {
				const { encoding, units, parts } = smsParts(messageText(p) ?? '');
				const estimate: IDataObject = { encoding, units, parts, estimate: true };
				return pbxOutput(
					'Send an SMS',
					'record',
				)(response).map((record) => ({ ...record, partsEstimate: estimate }));
			},
		},
	],
};
