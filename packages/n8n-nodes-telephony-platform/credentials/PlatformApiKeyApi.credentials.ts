import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

import {
	authorizationWith,
	baseUrlField,
	bearerAuthorization,
	maxRateLimitWaitField,
	requiredField,
	timeoutField,
} from './connectionFields';

/** Tested by the nodes' `testedBy` (nodes/shared/transport/credentialTest.ts), which names each mistake. */
export class PlatformApiKeyApi implements ICredentialType {
	name = 'platformApiKeyApi';

	// The type is named for what it holds, the platform's API key; the display name says which services take it (one key for both).
	displayName = 'Voice Agent and Conversation Intelligence API';

	icon: Icon = {
		light: 'file:../nodes/VoiceAgent/voiceAgent.svg',
		dark: 'file:../nodes/VoiceAgent/voiceAgent.dark.svg',
	};

	documentationUrl =
		'https://github.com/telephony-platform/n8n-nodes-telephony-platform/blob/main/docs/voice-agent.md';

	properties: INodeProperties[] = [
		baseUrlField(
			'e.g. https://api.example.com',
			'Address of the platform services, without the service path (the nodes add /convai/v1 and /intelligence/v1).',
		),
		requiredField('API Key', 'apiKey', {
			typeOptions: { password: true },
			description:
				'A key from the customer portal: a fixed prefix followed by 48 hexadecimal characters. Give it the scopes the nodes need (convai:read, convai:write, convai:delete, intelligence:read, intelligence:write).',
		}),
		maxRateLimitWaitField,
		timeoutField,
	];

	authenticate = authorizationWith((c) => bearerAuthorization(c.apiKey));
}
