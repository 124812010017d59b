import type { ResourceSpec } from '../../shared/operation';
import { issues, maxLength, phoneDigits, phoneNumber, required } from '../../shared/validation';
import { customerField, customerPath } from '../fields';
import { getManyOperation, getOneOperation } from './collection';
import { pbxOutput } from '../records';

/** Longest sender name or number sent: far beyond any real one, short of an expression's runaway text. */
const SENDER_MAX_LENGTH = 256;

const SMS = { collection: 'sms', id: 'smsId', singular: 'SMS message', plural: 'SMS messages' };

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
			action: 'Send a charged SMS',
			description:
				'Send a text message from an approved sender to a phone number. Each message is charged to the account.',
			fields: [
				customerField,
				{
					displayName: 'From',
					name: 'from',
					type: 'resourceLocator',
					default: { mode: 'list', value: '' },
					required: true,
					description:
						'The sender shown to the recipient: one of the approved outgoing caller IDs or SMS-enabled numbers of the customer',
					modes: [
						{
							displayName: 'From List',
							name: 'list',
							type: 'list',
							typeOptions: { searchListMethod: 'searchSmsSenders', searchable: true },
						},
						{ displayName: 'Name or Number', name: 'id', type: 'string', placeholder: '+441632960001' },
					],
				},
				{
					displayName: 'To',
					name: 'to',
					type: 'string',
					required: true,
					default: '',
					placeholder: '+447700900123',
					description: 'The recipient phone number, preferably in international form with +',
				},
				{
					displayName: 'Message',
					name: 'body',
					type: 'string',
					required: true,
					default: '',
					typeOptions: { rows: 4 },
					description: 'The text to send; long messages are sent and charged as several parts',
				},
			],
			validate: (p) =>
				issues(
					required('From', p.from),
					// The contract sets no length for a sender (a name or a number); this only bounds absurd values.
					maxLength('From', typeof p.from === 'string' ? p.from.trim() : p.from, SENDER_MAX_LENGTH),
					required('To', p.to),
					phoneNumber('To', p.to),
					required('Message', p.body),
				),
			request: (p) => ({
				method: 'POST',
				...customerPath(p, '/sms'),
				body: {
					type: 'smsmessage',
					from: String(p.from).trim(),
					to: phoneDigits(p.to),
					body: String(p.body),
				},
			}),
			output: pbxOutput('Send a charged SMS', 'record'),
		},
	],
};
