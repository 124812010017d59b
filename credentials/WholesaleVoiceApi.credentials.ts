import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlField, baseUrlProblem, basicAuthorization, maxRateLimitWaitField, responseCode, testBaseUrl, timeoutField } from './connectionFields';

/** Why an account id is refused, or undefined when it is digits only. Shared with the node's transport. */
export function accountIdProblem(accountId: unknown): string | undefined {
	const value = String(accountId ?? '').trim();
	if (value === '') return 'The Wholesale Voice API credential has no Account ID';
	if (!/^\d+$/.test(value)) {
		return 'The Wholesale Voice API credential\'s Account ID must be digits only (typically six, e.g. 123456)';
	}
	return undefined;
}

export class WholesaleVoiceApi implements ICredentialType {
	name = 'wholesaleVoiceApi';

	displayName = 'Wholesale Voice API';

	icon: Icon = {
		light: 'file:../nodes/WholesaleVoice/wholesaleVoice.svg',
		dark: 'file:../nodes/WholesaleVoice/wholesaleVoice.dark.svg',
	};

	documentationUrl = 'https://github.com/telephony-platform/n8n-nodes-telephony-platform/blob/main/docs/wholesale-voice.md';

	properties: INodeProperties[] = [
		baseUrlField(
			'https://wholesale.example.com',
			'Address of the Wholesale Voice API, without /v3 (the nodes add it).',
		),
		{
			displayName: 'API Username',
			name: 'apiUsername',
			type: 'string',
			required: true,
			default: '',
			description: 'The API username issued for programs; it differs from the portal login',
		},
		{
			displayName: 'API Password',
			name: 'apiPassword',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
		},
		{
			displayName: 'Account ID',
			name: 'accountId',
			type: 'string',
			required: true,
			default: '',
			placeholder: '123456',
			description: 'The account number, digits only',
		},
		maxRateLimitWaitField,
		timeoutField,
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		// Also stops the credential test: its request goes through here.
		const baseUrl = baseUrlProblem('Wholesale Voice API', credentials.baseUrl);
		if (baseUrl) throw new Error(baseUrl);
		const problem = accountIdProblem(credentials.accountId);
		if (problem) throw new Error(problem);
		requestOptions.headers = {
			...requestOptions.headers,
			Authorization: basicAuthorization(credentials.apiUsername, credentials.apiPassword),
		};
		return requestOptions;
	}

	// An authenticated read of the account itself: the tools endpoints need no authentication.
	test: ICredentialTestRequest = {
		request: {
			baseURL: testBaseUrl,
			url: '=/v3/accounts/{{ String($credentials.accountId).trim() }}/type',
		},
		rules: [
			responseCode(401, 'Wrong API username or password: the Wholesale Voice API refused them (401).'),
			responseCode(403, 'The API user may not use this account (403): check the Account ID, the number of the account the API user belongs to.'),
			responseCode(404, 'Nothing at this Base URL for this account (404): the Base URL is the API root without /v3 (as in https://api.example.com), and the Account ID is the account number.'),
		],
	};
}
