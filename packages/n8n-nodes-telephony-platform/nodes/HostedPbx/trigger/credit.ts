import type { IDataObject } from 'n8n-workflow';

import { customerPath } from '../fields';
import { numericField, shownFor } from '../../shared/fields';
import type { ApiClient } from '../../shared/operation';
import { pbxRecord } from '../records';

/** Credit Low fires once per fall below the threshold (at the first poll too), not every poll while low; POSTPAID balances alike. */

export const creditThresholdField = numericField(
	'Credit Threshold (GBP)',
	'creditThreshold',
	5,
	{ minValue: -1_000_000, maxValue: 1_000_000, numberPrecision: 2 },
	{
		required: true,
		description:
			'Start the workflow when the balance falls below this (once, until it is back at or above it)',
		...shownFor('events', 'creditLow'),
	},
);

/** What Credit Low remembers: whether the balance was below the threshold at the last poll (a changed threshold starts afresh). */
export interface CreditState {
	low: boolean;
	threshold: number;
}

export async function readCredit(client: ApiClient, customer: string): Promise<IDataObject> {
	return pbxRecord(
		await client.request({
			method: 'GET',
			...customerPath({ customerId: customer }, '/creditstatus'),
		}),
		'Read the credit status',
	);
}

export function creditItem(record: IDataObject, threshold: number, at: number): IDataObject {
	const balance = Number(record.balance);
	return {
		event: 'creditLow',
		balance,
		threshold,
		low: balance < threshold,
		accountType: record.accountType ?? null,
		currency: 'GBP',
		checkedAt: new Date(at).toISOString(),
	};
}

/** The item to emit, if the balance just fell below the threshold, and the state to keep. */
export function creditChange(
	known: CreditState | undefined,
	record: IDataObject,
	threshold: number,
	at: number,
) {
	const balance = Number(record.balance);
	if (!Number.isFinite(balance))
		throw new Error(
			`The credit status has no balance that is a number (${JSON.stringify(record.balance)})`,
		);
	const low = balance < threshold;
	const wasLow = known?.threshold === threshold && known.low;
	return {
		item: low && !wasLow ? creditItem(record, threshold, at) : undefined,
		state: { low, threshold },
	};
}
