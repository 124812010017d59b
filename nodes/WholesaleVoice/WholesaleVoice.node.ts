import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { wholesaleVoiceApi } from '../shared/apis';
import { describeResources } from '../shared/describe';
import { executeOperations } from '../shared/executor';
import { getLosingProviders, getNotificationTypes, getRateDecks } from './fields';
import { account } from './resources/account';
import { e911, uk999 } from './resources/emergency';
import { invoice } from './resources/invoice';
import { notification } from './resources/notification';
import { number } from './resources/number';
import { port } from './resources/port';
import { prepay } from './resources/prepay';
import { rate } from './resources/rate';
import { report } from './resources/report';
import { routing } from './resources/routing';
import { summary } from './resources/summary';
import { tool } from './resources/tool';
import { searchTrunks, trunk } from './resources/trunk';
import { voice } from './resources/voice';

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
		credentials: [{ name: 'wholesaleVoiceApi', required: true }],
		properties: describeResources(wholesaleVoiceResources),
	};

	methods = { loadOptions: { getLosingProviders, getNotificationTypes, getRateDecks }, listSearch: { searchTrunks } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(this, wholesaleVoiceApi, wholesaleVoiceResources);
	}
}
