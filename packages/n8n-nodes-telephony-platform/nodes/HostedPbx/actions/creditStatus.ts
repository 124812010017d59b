import type { IDataObject } from 'n8n-workflow';

import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { plain } from '../../shared/outputShape';
import { idFromUri } from '../../shared/params';
import { isRecord } from '../../shared/responseShape';
import { customerField, customerPath } from '../fields';
import { pbxRecords } from '../records';

/**
 * The credit status as answered. Other records take their `id` from their URI; here its last segment is the word
 * `creditstatus`, no identifier, so that one is left out.
 */
function asAnswered(record: IDataObject): IDataObject {
	if (!isRecord(record) || typeof record.uri !== 'string' || record.id !== idFromUri(record.uri))
		return record;
	const answered = { ...record };
	delete answered.id;
	return answered;
}

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
			output: (response) => pbxRecords(response, 'Get the credit status', 'record').map(asAnswered),
			shape: creditStatusShape,
		},
	],
};
