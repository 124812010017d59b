import type { ResourceSpec } from '../../shared/operation';
import { getManyOperation, getOneOperation } from './collection';

const NUMBERS = { collection: 'phonenumbers', id: 'phoneNumberId', singular: 'phone number', plural: 'phone numbers' };

export const phoneNumber: ResourceSpec = {
	value: 'phoneNumber',
	name: 'Phone Number',
	description: 'The numbers (DIDs) of the customer and where they ring',
	operations: [getOneOperation(NUMBERS), getManyOperation(NUMBERS)],
};
