import type { ResourceSpec } from '../../shared/operation';
import { validateAccountTypeChange } from '../validation/account';
import { ACCOUNT_PATH, getOperation, wholesaleItems } from '../fields';

export const account: ResourceSpec = {
	value: 'account',
	name: 'Account',
	description: 'The account type and its limits',
	operations: [
		getOperation({
			value: 'getType',
			name: 'Get Type',
			action: 'Get the account type',
			description: 'Get the account type (developer, startup, interconnect) with its number and channel limits and minimum prepay',
			path: `${ACCOUNT_PATH}/type`,
		}),
		{
			value: 'setType',
			name: 'Set Type',
			action: 'Set the account type',
			description:
				'Upgrade a developer account to startup; the only change allowed online (interconnect types are arranged with the supplier)',
			fields: [
				{
					displayName: 'Account Type',
					name: 'accountType',
					type: 'options',
					default: 'startup',
					options: [{ name: 'Startup', value: 'startup' }],
					description: 'Developer accounts can move to startup online; other changes go through the supplier',
				},
			],
			validate: (p) => validateAccountTypeChange('Account Type', p.accountType),
			request: (p) => ({ method: 'PUT', path: `${ACCOUNT_PATH}/type`, body: { account_type: p.accountType }, emptyBody: 'allowed' }),
			output: wholesaleItems,
		},
	],
};
