import type { ResourceSpec } from '../../shared/operation';
import { pbxOutput } from '../records';

export const authToken: ResourceSpec = {
	value: 'authToken',
	name: 'Auth Token',
	description: 'Single-use tokens for requests that cannot carry credentials',
	operations: [
		{
			value: 'generate',
			name: 'Generate',
			action: 'Generate a single-use token',
			description:
				'Get a single-use token that authorises one read-only request (as the tokenid query parameter), e.g. a browser downloading a recording',
			request: () => ({ method: 'GET', path: '/tokengenerator' }),
			output: pbxOutput('Generate a single-use token', 'record'),
		},
	],
};
