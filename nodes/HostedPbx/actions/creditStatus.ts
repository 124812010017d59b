import type { IDataObject } from 'n8n-workflow';

import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { plain } from '../../shared/outputShape';
import { isRecord } from '../../shared/responseShape';
import { customerField, customerPath } from '../fields';
import { pbxRecords } from '../records';

/**
 * The balance under one name: the API's reference shows it as `balance` and, in one sample, as
 * `creditRemaining`. Both are read; `balance` is set from whichever is present, the original kept.
 */
function withBalance(record: IDataObject): IDataObject {
	if (!isRecord(record)) return record;
	if (record.balance === undefined && record.creditRemaining !== undefined) return { ...record, balance: record.creditRemaining };
	return record;
}

/** The credit status as Simplified shows it: prepaid or postpaid, and the balance (GBP). */
export const creditStatusShape: OutputShape = {
	fields: ['accountType', 'balance', 'type', 'uri'],
	simplify: (r) => plain({ accountType: r.accountType, balance: r.balance }),
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
			output: (response) => pbxRecords(response, 'Get the credit status', 'record').map(withBalance),
			shape: creditStatusShape,
		},
	],
};
