import type { ResourceSpec } from '../../shared/operation';
import { getManyOperation, getOneOperation } from './collection';

const CALLER_IDS = {
	collection: 'outgoingcallerids',
	id: 'callerIdId',
	singular: 'outgoing caller ID',
	plural: 'approved outgoing caller IDs',
};

export const callerId: ResourceSpec = {
	value: 'outgoingCallerId',
	name: 'Outgoing Caller ID',
	description: 'Approved names and numbers the customer may show as caller or SMS sender',
	operations: [getOneOperation(CALLER_IDS), getManyOperation(CALLER_IDS)],
};
