import type { IDataObject, IWebhookData } from 'n8n-workflow';

import type { VoiceAgentTrigger } from '../../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgentTrigger.node';
import type { contexts } from '../../harness/n8n';

export const WEBHOOK_DATA = { webhookDescription: { name: 'default' } } as unknown as IWebhookData;

/** The trigger's registration hooks at a URL (as n8n calls them), and the static data n8n keeps for it. */
export function registrationHooks(node: VoiceAgentTrigger, built: ReturnType<typeof contexts>, url: string) {
	const hook = () => {
		const context = built.hook(WEBHOOK_DATA);
		context.getNodeWebhookUrl = () => url;
		return context;
	};
	const methods = node.webhookMethods.default;
	return {
		staticData: () => built.workflow.getStaticData('node', built.node) as IDataObject,
		checkExists: async () => await methods.checkExists.call(hook()),
		create: async () => await methods.create.call(hook()),
		delete: async () => await methods.delete.call(hook()),
	};
}
