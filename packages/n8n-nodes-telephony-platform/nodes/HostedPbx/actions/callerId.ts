import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { plain } from '../../shared/outputShape';
import { getManyOperation, getOneOperation } from './collection';

/** A caller ID as Simplified shows it: the name or number, and what it is approved for. */
export const callerIdShape: OutputShape = {
	fields: ['allowCalls', 'allowSms', 'created', 'number', 'type', 'uri'],
	simplify: (r) => plain({ number: r.number, allowCalls: r.allowCalls, allowSms: r.allowSms }),
};

const CALLER_IDS = {
	collection: 'outgoingcallerids',
	id: 'callerIdId',
	singular: 'outgoing caller ID',
	plural: 'approved outgoing caller IDs',
	shape: callerIdShape,
};

export const callerId: ResourceSpec = {
	value: 'outgoingCallerId',
	name: 'Outgoing Caller ID',
	description: 'Approved names and numbers the customer may show as caller or SMS sender',
	operations: [getOneOperation(CALLER_IDS), getManyOperation(CALLER_IDS)],
};
