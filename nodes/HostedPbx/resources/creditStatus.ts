import type { ResourceSpec } from '../../shared/operation';
import { customerField, customerPath, pbxRecords } from '../fields';

export const creditStatus: ResourceSpec = {
	value: 'creditStatus',
	name: 'Credit Status',
	description: 'Prepaid or postpaid, and the balance in GBP',
	operations: [
		{
			value: 'get',
			name: 'Get',
			action: 'Get the credit status',
			description: 'Get whether the account is prepaid or postpaid and its balance in GBP',
			fields: [customerField],
			request: (p) => ({ method: 'GET', ...customerPath(p, '/creditstatus') }),
			output: pbxRecords,
		},
	],
};
