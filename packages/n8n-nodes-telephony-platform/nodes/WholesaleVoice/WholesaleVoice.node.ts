import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { wholesaleVoiceApi } from '../shared/apis';
import { describeResources } from '../shared/describe';
import { executeOperations } from '../shared/executor';
import { wholesaleVoiceCredentialTest } from '../shared/transport/credentialTest';
import { getLosingProviders, getNotificationTypes, getRateDecks } from './fields';
import { account } from './actions/account';
import { e911, uk999 } from './actions/emergency';
import { invoice } from './actions/invoice';
import { notification } from './actions/notification';
import { number } from './actions/number';
import { port } from './actions/port';
import { prepay } from './actions/prepay';
import { rate } from './actions/rate';
import { report } from './actions/report';
import { routing } from './actions/routing';
import { summary } from './actions/summary';
import { tool } from './actions/tool';
import { searchTrunks, trunk } from './actions/trunk';
import { voice } from './actions/voice';

export const wholesaleVoiceResources = [
	account,
	invoice,
	notification,
	number,
	routing,
	port,
	prepay,
	rate,
	report,
	summary,
	tool,
	trunk,
	uk999,
	e911,
	voice,
];

export class WholesaleVoice implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Wholesale Voice',
		name: 'wholesaleVoice',
		icon: { light: 'file:wholesaleVoice.svg', dark: 'file:wholesaleVoice.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Wholesale voice account: CDRs, reports, rates, prepay, trunks, number routing, 999/e911 data and number porting',
		defaults: { name: 'Wholesale Voice' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'wholesaleVoiceApi', required: true, testedBy: 'wholesaleVoiceApiTest' }],
		properties: describeResources(wholesaleVoiceResources),
	};

	methods = {
		loadOptions: { getLosingProviders, getNotificationTypes, getRateDecks },
		listSearch: { searchTrunks },
		credentialTest: wholesaleVoiceCredentialTest,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(this, wholesaleVoiceApi, wholesaleVoiceResources);
	}
}
