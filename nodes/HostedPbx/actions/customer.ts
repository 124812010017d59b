import type { ResourceSpec } from '../../shared/operation';
import { customerField, customerPath } from '../fields';
import { pbxOutput } from '../records';

export const customer: ResourceSpec = {
	value: 'customer',
	name: 'Customer',
	description: 'A company PBX account and its contact details',
	operations: [
		{
			value: 'get',
			name: 'Get',
			action: 'Get a customer',
			description: 'Get one customer account: company, primary contact, address and links to its sub-resources',
			fields: [customerField],
			request: (p) => ({ method: 'GET', ...customerPath(p) }),
			output: pbxOutput('Get a customer', 'record'),
		},
		{
			value: 'getAll',
			name: 'Get Many',
			action: 'Get many customers',
			description:
				'List the customers this user can see: its own account, or every account a reseller owns',
			paging: 'pbx',
			request: () => ({ method: 'GET', path: '/customers' }),
			output: pbxOutput('Get many customers', 'any'),
		},
	],
};
