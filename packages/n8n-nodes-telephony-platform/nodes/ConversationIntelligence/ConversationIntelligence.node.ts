import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { platformApi } from '../shared/apis';
import { describeResources } from '../shared/describe';
import { executeOperations } from '../shared/executor';
import { platformCredentialTest } from '../shared/transport/credentialTest';
import { configuration } from './actions/configuration';
import { session } from './actions/session';

export const conversationIntelligenceResources = [configuration, session];

export class ConversationIntelligence implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Conversation Intelligence',
		name: 'conversationIntelligence',
		icon: {
			light: 'file:conversationIntelligence.svg',
			dark: 'file:conversationIntelligence.dark.svg',
		},
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			"Live call analysis: watch a session's operator results and transcript, upgrade analysis operators",
		defaults: { name: 'Conversation Intelligence' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'platformApiKeyApi', required: true, testedBy: 'platformApiKeyApiTest' }],
		properties: describeResources(conversationIntelligenceResources),
	};

	methods = { credentialTest: platformCredentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(this, platformApi, conversationIntelligenceResources);
	}
}
