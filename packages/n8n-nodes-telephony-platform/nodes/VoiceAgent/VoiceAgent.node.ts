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
import { webhook } from './actions/webhook';

export const voiceAgentResources = [webhook];

export class VoiceAgent implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice Agent',
		name: 'voiceAgent',
		icon: { light: 'file:voiceAgent.svg', dark: 'file:voiceAgent.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Manage the webhooks through which the AI voice agent sends conversation events',
		defaults: { name: 'Voice Agent' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'platformApiKeyApi', required: true, testedBy: 'platformApiKeyApiTest' }],
		properties: describeResources(voiceAgentResources),
	};

	methods = { credentialTest: platformCredentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(this, platformApi, voiceAgentResources);
	}
}
