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
export class HostedPbxApi implements ICredentialType {
	name = 'hostedPbxApi';

	displayName = 'Hosted PBX API';

	icon: Icon = {
		light: 'file:../nodes/HostedPbx/hostedPbx.svg',
		dark: 'file:../nodes/HostedPbx/hostedPbx.dark.svg',
	};

	documentationUrl =
		'https://github.com/telephony-platform/n8n-nodes-telephony-platform/blob/main/docs/hosted-pbx.md';

	properties: INodeProperties[] = [
		baseUrlField(
			'e.g. https://pbx.example.com/api/v1',
			'Address of the Hosted PBX API including the version segment /api/v1.',
		),
		requiredField('Username', 'username', {
			description:
				'The portal login of an extension user, a company admin or a reseller. A dedicated API user is best.',
		}),
		requiredField('Password', 'password', { typeOptions: { password: true } }),
		maxRateLimitWaitField,
		timeoutField,
	];

	authenticate = authorizationWith((c) => basicAuthorization(c.username, c.password));
}
