import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

import {
	authorizationWith,
	baseUrlField,
	basicAuthorization,
	maxRateLimitWaitField,
	requiredField,
	timeoutField,
} from './connectionFields';

/** Tested by the nodes' `testedBy` (nodes/shared/transport/credentialTest.ts), which names each mistake. */
export class WholesaleVoiceApi implements ICredentialType {
	name = 'wholesaleVoiceApi';

	displayName = 'Wholesale Voice API';

	icon: Icon = {
		light: 'file:../nodes/WholesaleVoice/wholesaleVoice.svg',
		dark: 'file:../nodes/WholesaleVoice/wholesaleVoice.dark.svg',
	};

	documentationUrl =
		'https://github.com/telephony-platform/n8n-nodes-telephony-platform/blob/main/docs/wholesale-voice.md';

	properties: INodeProperties[] = [
		baseUrlField(
			'e.g. https://wholesale.example.com',
			'Address of the Wholesale Voice API, without /v3 (the nodes add it).',
		),
		requiredField('API Username', 'apiUsername', {
			description: 'The API username issued for programs; it differs from the portal login',
		}),
		requiredField('API Password', 'apiPassword', { typeOptions: { password: true } }),
		requiredField('Account ID', 'accountId', {
			placeholder: 'e.g. 700123',
			description: 'The account number, digits only',
		}),
		maxRateLimitWaitField,
		timeoutField,
	];

	authenticate = authorizationWith((c) => basicAuthorization(c.apiUsername, c.apiPassword));
}
