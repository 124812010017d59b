import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { plain } from '../../shared/outputShape';
import { idFromUri } from '../../shared/params';
import { getManyOperation, getOneOperation } from './collection';

/** A number as Simplified shows it: the number, its label, the endpoint it rings, SMS and fax. */
export const phoneNumberShape: OutputShape = {
	fields: [
		'created',
		'destination',
		'faxEnabled',
		'identifier',
		'number',
		'routingRules',
		'smsAllowIncoming',
		'smsEnabled',
		'smsNotificationEmail',
		'smsNotificationUrl',
		'type',
		'uri',
	],
	simplify: (r) =>
		plain({
			number: r.number,
			label: r.identifier,
			endpointId: typeof r.destination === 'string' ? idFromUri(r.destination) : undefined,
			smsEnabled: r.smsEnabled,
			faxEnabled: r.faxEnabled,
		}),
};

const NUMBERS = {
	collection: 'phonenumbers',
	id: 'phoneNumberId',
	singular: 'phone number',
	plural: 'phone numbers',
	shape: phoneNumberShape,
};

export const phoneNumber: ResourceSpec = {
	value: 'phoneNumber',
	name: 'Phone Number',
	description: 'The numbers (DIDs) of the customer and where they ring',
	operations: [getOneOperation(NUMBERS), getManyOperation(NUMBERS)],
};
