import type { ResourceSpec } from '../../shared/operation';
import { validateAccountTypeChange } from '../validation/account';
import { optionsField } from '../../shared/fields';
import { ACCOUNT_PATH, operation } from '../fields';

export const account: ResourceSpec = {
	value: 'account',
	name: 'Account',
	description: 'The account type and its limits',
	operations: [
		operation({
			value: 'getType',
			name: 'Get Type',
			action: 'Get the account type',
			description:
				'Get the account type (developer, startup, interconnect) with its number and channel limits and minimum prepay',
			path: `${ACCOUNT_PATH}/type`,
		}),
		operation({
			value: 'setType',
			name: 'Set Type',
			action: 'Set the account type',
			description:
				'Upgrade a developer account to startup; the only change allowed online (interconnect types are arranged with the supplier)',
			fields: [
				optionsField('Account Type', 'accountType', 'startup', [['Startup', 'startup']], {
					description:
						'Developer accounts can move to startup online; other changes go through the supplier',
				}),
			],
			validate: (p) => validateAccountTypeChange('Account Type', p.accountType),
			method: 'PUT',
			path: `${ACCOUNT_PATH}/type`,
			body: (p) => ({ account_type: p.accountType }),
			emptyBody: true,
		}),
	],
};
