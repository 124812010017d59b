import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { hostedPbxApi } from '../shared/apis';
import { describeResources } from '../shared/describe';
import { executeOperations } from '../shared/executor';
import { hostedPbxCredentialTest } from '../shared/transport/credentialTest';
import { listSearchMethods } from './search';
import { authToken } from './actions/authToken';
import { call } from './actions/call';
import { callBundle } from './actions/callBundle';
import { callerId } from './actions/callerId';
import { creditStatus } from './actions/creditStatus';
import { customer } from './actions/customer';
import { endpoint } from './actions/endpoint';
import { phoneBook } from './actions/phoneBook';
import { phoneNumber } from './actions/phoneNumber';
import { recording } from './actions/recording';
import { sms } from './actions/sms';
import { sound } from './actions/sound';

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
		description:
			'Send SMS, make calls, read call history and recordings, manage the phone book of a hosted PBX',
		defaults: { name: 'Hosted PBX' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'hostedPbxApi', required: true, testedBy: 'hostedPbxApiTest' }],
		properties: describeResources(hostedPbxResources),
	};

	methods = { listSearch: listSearchMethods, credentialTest: hostedPbxCredentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(this, hostedPbxApi, hostedPbxResources);
	}
}
