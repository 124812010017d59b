import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { plain } from '../../shared/outputShape';
import { customerField, customerPath } from '../fields';
import { asAnswered, pbxOutput } from '../records';

/**
 * The credit status as Simplified shows it: prepaid or postpaid, and the balance (GBP). The API's reference shows the
 * balance as `balance` and, in one sample, as `creditRemaining`: both are read.
 */
export const creditStatusShape: OutputShape = {
	fields: ['accountType', 'balance', 'creditRemaining', 'type', 'uri'],
	simplify: (r) => plain({ accountType: r.accountType, balance: r.balance ?? r.creditRemaining }),
};

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
			output: pbxOutput('Get the credit status', 'record', asAnswered),
			shape: creditStatusShape,
		},
	],
};
