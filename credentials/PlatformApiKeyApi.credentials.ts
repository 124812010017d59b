import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlField, baseUrlProblem, maxRateLimitWaitField, responseCode, testBaseUrl, timeoutField } from './connectionFields';

/**
 * Why a key is refused, or undefined when it ends in 48 hexadecimal characters. The prefix
 * is not published, so only the tail is checked; the key itself is never repeated.
 */
export function apiKeyProblem(key: unknown): string | undefined {
	const value = String(key ?? '').trim();
	if (value === '') return 'The Voice Agent and Conversation Intelligence API credential has no key';
	if (/\s/.test(value)) return 'The API key contains spaces or line breaks; paste it again as one word';
	const tail = /[0-9a-fA-F]*$/.exec(value)?.[0].length ?? 0;
	if (tail < 48) {
		return `The API key should end in 48 hexadecimal characters (0-9, a-f) after its prefix, but its last ${tail === 0 ? 'character is not' : `${tail} characters are the only ones that are`} hexadecimal. Copy the whole key from the customer portal`;
	}
	return undefined;
}

export class PlatformApiKeyApi implements ICredentialType {
	name = 'platformApiKeyApi';

	// One key for both services; the type's name (platformApiKeyApi) is unchanged, so saved credentials still apply.
	displayName = 'Voice Agent and Conversation Intelligence API';

	icon: Icon = {
		light: 'file:../nodes/VoiceAgent/voiceAgent.svg',
		dark: 'file:../nodes/VoiceAgent/voiceAgent.dark.svg',
	};

	documentationUrl = 'https://github.com/telephony-platform/n8n-nodes-telephony-platform/blob/main/docs/voice-agent.md';

	properties: INodeProperties[] = [
		baseUrlField(
			'https://api.example.com',
			'Address of the platform services, without the service path (the nodes add /convai/v1 and /intelligence/v1).',
		),
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'A key from the customer portal: a fixed prefix followed by 48 hexadecimal characters. Give it the scopes the nodes need (convai:read, convai:write, convai:delete, intelligence:read, intelligence:write).',
		},
		maxRateLimitWaitField,
		timeoutField,
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		// Also stops the credential test: its request goes through here.
		const baseUrl = baseUrlProblem('Voice Agent and Conversation Intelligence API', credentials.baseUrl);
		if (baseUrl) throw new Error(baseUrl);
		const problem = apiKeyProblem(credentials.apiKey);
		if (problem) throw new Error(problem);
		requestOptions.headers = {
			...requestOptions.headers,
			Authorization: `Bearer ${String(credentials.apiKey).trim()}`,
		};
		return requestOptions;
	}

	test: ICredentialTestRequest = {
		request: { baseURL: testBaseUrl, url: '/convai/v1/webhooks' },
		rules: [
			responseCode(401, 'The API key was refused (401): it was revoked or mistyped. Create a new key in the customer portal.'),
			responseCode(403, 'The API key lacks a scope (403): give it convai:read and the other scopes the nodes use (convai:write, convai:delete, intelligence:read, intelligence:write).'),
			responseCode(404, 'Nothing at this Base URL (404): use the services\' root URL, without /convai/v1.'),
		],
	};
}
