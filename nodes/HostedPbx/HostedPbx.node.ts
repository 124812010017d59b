import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { hostedPbxApi } from '../shared/apis';
import { describeResources } from '../shared/describe';
import { executeOperations } from '../shared/executor';
import { listSearchMethods } from './fields';
import { authToken } from './resources/authToken';
import { call } from './resources/call';
import { callBundle } from './resources/callBundle';
import { callerId } from './resources/callerId';
import { creditStatus } from './resources/creditStatus';
import { customer } from './resources/customer';
import { endpoint } from './resources/endpoint';
import { phoneBook } from './resources/phoneBook';
import { phoneNumber } from './resources/phoneNumber';
import { recording } from './resources/recording';
import { sms } from './resources/sms';
import { sound } from './resources/sound';

export const hostedPbxResources = [
	authToken,
	call,
	callBundle,
	creditStatus,
	customer,
	endpoint,
	callerId,
	phoneBook,
	phoneNumber,
	recording,
	sms,
	sound,
];

export class HostedPbx implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Hosted PBX',
		name: 'hostedPbx',
		icon: { light: 'file:hostedPbx.svg', dark: 'file:hostedPbx.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Send SMS, make calls, read call history and recordings, manage the phone book of a hosted PBX',
		defaults: { name: 'Hosted PBX' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'hostedPbxApi', required: true }],
		properties: describeResources(hostedPbxResources),
	};

	methods = { listSearch: listSearchMethods };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(this, hostedPbxApi, hostedPbxResources);
	}
}
