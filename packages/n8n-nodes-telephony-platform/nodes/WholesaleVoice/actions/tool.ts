import type { IDataObject } from 'n8n-workflow';

import type { ApiResponse, ResourceSpec } from '../../shared/operation';
import { wholesaleItems } from '../fields';

/** Tools answer JSON or plain text (the format of explain may change): read either. */
function textOrJson(response: ApiResponse): IDataObject[] {
	const text = String(response.body ?? '');
	try {
		const parsed = JSON.parse(text) as unknown;
		if (parsed && typeof parsed === 'object')
			return wholesaleItems({ ...response, body: parsed }) as IDataObject[];
		return [{ value: parsed as string }];
	} catch {
		return [{ value: text.trim() }];
	}
}

const toolCall = (path: string, text: boolean) => ({
	request: () => ({
		method: 'GET' as const,
		path: `/v3/tools/${path}`,
		...(text ? { accept: '*/*', responseType: 'text' as const } : {}),
		auth: false as const,
	}),
	output: text ? textOrJson : wholesaleItems,
});

export const tool: ResourceSpec = {
	value: 'tool',
	name: 'Tool',
	description: 'Diagnostics that need no account',
	operations: [
		{
			value: 'explain',
			name: 'Explain Request',
			action: 'Explain a request',
			description:
				"Get the platform's human-readable report of the request it received, for debugging",
			...toolCall('explain', true),
		},
		{
			value: 'myIp',
			name: 'Get My IP',
			action: 'Get my IP address as the platform sees it',
			description:
				'Get the external IP address of n8n as the platform sees it (for IP-authenticated trunks)',
			...toolCall('myip', true),
		},
		{
			value: 'time',
			name: 'Get Time',
			action: 'Get the platform time',
			description: 'Get the platform clock as a Unix timestamp and an RFC date',
			...toolCall('time', false),
		},
	],
};
