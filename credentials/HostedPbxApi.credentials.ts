import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlField, baseUrlProblem, basicAuthorization, maxRateLimitWaitField, responseCode, testBaseUrl, timeoutField } from './connectionFields';

export class HostedPbxApi implements ICredentialType {
	name = 'hostedPbxApi';

	displayName = 'Hosted PBX API';

	icon: Icon = { light: 'file:../nodes/HostedPbx/hostedPbx.svg', dark: 'file:../nodes/HostedPbx/hostedPbx.dark.svg' };

	documentationUrl = 'https://github.com/telephony-platform/n8n-nodes-telephony-platform/blob/main/docs/hosted-pbx.md';

	properties: INodeProperties[] = [
		baseUrlField(
			'https://pbx.example.com/api/v1',
			'Address of the Hosted PBX API including the version segment /api/v1.',
		),
		{
			displayName: 'Username',
			name: 'username',
			type: 'string',
			required: true,
			default: '',
			description:
				'The portal login of an extension user, a company admin or a reseller. A dedicated API user is best.',
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
		},
		maxRateLimitWaitField,
		timeoutField,
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		// Also stops the credential test: its request goes through here.
		const baseUrl = baseUrlProblem('Hosted PBX API', credentials.baseUrl);
		if (baseUrl) throw new Error(baseUrl);
		requestOptions.headers = {
			...requestOptions.headers,
			Authorization: basicAuthorization(credentials.username, credentials.password),
		};
		return requestOptions;
	}

	// GET /customers works at every user level (`me` does not work for resellers).
	test: ICredentialTestRequest = {
		request: { baseURL: testBaseUrl, url: '/customers', qs: { pageSize: 1 } },
		// n8n shows a rule's message when the test request answers with its status.
		rules: [
			responseCode(401, 'Wrong username or password: the Hosted PBX API refused them (401). Check both, and that the user is active.'),
			responseCode(403, 'The user may not read the account (403): use a user with API access.'),
			responseCode(404, 'Nothing at this Base URL (404): it must end with the API version, as in https://pbx.example.com/api/v1.'),
		],
	};
}
