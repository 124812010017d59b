import type { INodeListSearchResult, INodePropertyOptions } from 'n8n-workflow';

import { WholesaleVoice } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import type { Sandbox } from '../../../sandbox';
import { contexts } from '../../harness/n8n';
import { wholesaleCredentials } from './wholesaleKit';

/** Runs one of the node's loadOptions methods through n8n's LoadOptionsContext against the sandbox. */
export async function listLoadOptions(sandbox: Sandbox, method: 'getLosingProviders' | 'getNotificationTypes' | 'getRateDecks'): Promise<INodePropertyOptions[]> {
	const node = new WholesaleVoice();
	const context = contexts({ node, parameters: {}, credentials: wholesaleCredentials(sandbox) }).loadOptions();
	return await node.methods.loadOptions[method].call(context);
}

/** Runs one of the node's list searches through n8n's LoadOptionsContext against the sandbox. */
export async function listSearch(sandbox: Sandbox, method: 'searchTrunks', filter?: string): Promise<INodeListSearchResult> {
	const node = new WholesaleVoice();
	const context = contexts({ node, parameters: {}, credentials: wholesaleCredentials(sandbox) }).loadOptions();
	return await node.methods.listSearch[method].call(context, filter);
}
