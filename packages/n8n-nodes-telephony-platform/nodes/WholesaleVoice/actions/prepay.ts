import type { INodeProperties } from 'n8n-workflow';

import type { OperationSpec, ResourceSpec } from '../../shared/operation';
import { compact } from '../../shared/params';
import { describeValue, issues, required } from '../../shared/validation';
import { dateField, numericField, optionsField } from '../../shared/fields';
import { ACCOUNT_PATH, operation, plainDate } from '../fields';
import { reportFields, reportIssues, runReport } from '../reports';
import { validateReportDate } from '../validation/account';

const PREPAY_PATH = `${ACCOUNT_PATH}/prepay`;
const WHICH_PATHS: Record<string, string> = {
	all: 'all',
	'latest/1': 'latest/1',
	'latest/10': 'latest/10',
};

/** The spec sets no maximum for an alert or a lock: ten million in the account currency bounds absurd values only. */
const MAX_AMOUNT = 10_000_000;

function amountField(name: string, displayName: string, description: string): INodeProperties {
	return numericField(
		displayName,
		name,
		0,
		{ minValue: 0, maxValue: MAX_AMOUNT, numberPrecision: 2 },
		{ required: true, description },
	);
}

function amountIssues(field: string, value: unknown) {
	const number = Number(value);
	return issues(
		required(field, value),
		Number.isFinite(number) && number >= 0 && number <= MAX_AMOUNT
			? undefined
			: {
					field,
					problem: `${describeValue(value)} is not an amount from 0 to ${MAX_AMOUNT}`,
					rule: `a number from 0 to ${MAX_AMOUNT} in the account currency`,
				},
	);
}

/** Prepayments and transfers: all, or the latest 1 or 10. */
function historyOperation(collection: 'prepayments' | 'transfers', label: string): OperationSpec {
	return operation({
		value: `get${collection[0].toUpperCase()}${collection.slice(1)}`,
		name: `Get ${label}`,
		action: `Get ${label.toLowerCase()}`,
		description: `List ${label.toLowerCase()}: all of them, or only the latest 1 or 10`,
		paging: 'client',
		fields: [
			optionsField('Which', 'which', 'all', [
				['All', 'all'],
				['Latest 1', 'latest/1'],
				['Latest 10', 'latest/10'],
			]),
		],
		// The stored values hold a slash (`latest/10`): the path comes from this table, never from the value.
		path: (p) => ({ path: `${PREPAY_PATH}/${collection}/${WHICH_PATHS[p.which as string]}` }),
	});
}

export const prepay: ResourceSpec = {
	value: 'prepay',
	name: 'Prepay',
	description: 'Prepay balance, its alert and lock, prepayments and transfers',
	operations: [
		operation({
			value: 'getBalance',
			name: 'Get Balance',
			action: 'Get the prepay balance',
			description: 'Get the prepay balance and its currency',
			path: `${PREPAY_PATH}/balance`,
		}),
		operation({
			value: 'getBalanceAlert',
			name: 'Get Balance Alert',
			action: 'Get the low balance alert',
			description: 'Get the balance below which a low balance notification is sent',
			path: `${PREPAY_PATH}/balance/alert`,
		}),
		operation({
			value: 'getLockedBalance',
			name: 'Get Locked Balance',
			action: 'Get the locked balance',
			description: 'Get the balance, the locked part that cannot be spent, and what is available',
			path: `${PREPAY_PATH}/balance/locked`,
		}),
		historyOperation('prepayments', 'Prepayments'),
		historyOperation('transfers', 'Transfers'),
		operation({
			value: 'removeLockedBalance',
			name: 'Remove Locked Balance',
			action: 'Remove the balance lock',
			description: 'Remove the balance lock so the whole balance can be spent',
			method: 'DELETE',
			path: `${PREPAY_PATH}/balance/locked`,
			emptyBody: true,
		}),
		{
			value: 'requestSummary',
			name: 'Request Summary Report',
			action: 'Request a prepay summary report',
			description:
				'Run the prepay summary report for a date range; waits for it and returns its rows by default',
			fields: [
				dateField('fromDate', 'From Date', 'First day of the summary (default today)'),
				dateField('toDate', 'To Date', 'Last day of the summary (default today)'),
				...reportFields,
			],
			validate: (p) => [
				...validateReportDate('From Date', plainDate(p.fromDate)),
				...validateReportDate('To Date', plainDate(p.toDate)),
				...reportIssues(p),
			],
			run: async (context, p) =>
				await runReport(
					context,
					p,
					{ path: `${PREPAY_PATH}/summary` },
					compact({ from_date: plainDate(p.fromDate), to_date: plainDate(p.toDate) }),
				),
		},
		operation({
			value: 'setBalanceAlert',
			name: 'Set Balance Alert',
			action: 'Set the low balance alert',
			description: 'Set the balance below which a notification is sent (at most one a day)',
			fields: [
				amountField(
					'alertBalance',
					'Alert Balance',
					'Notify when the balance falls below this amount',
				),
			],
			validate: (p) => amountIssues('Alert Balance', p.alertBalance),
			method: 'PUT',
			path: `${PREPAY_PATH}/balance/alert`,
			body: (p) => ({ alert_balance: Number(p.alertBalance) }),
			emptyBody: true,
		}),
		operation({
			value: 'setLockedBalance',
			name: 'Set Locked Balance',
			action: 'Lock part of the balance',
			description:
				'Protect an amount: it stays in the account but cannot be spent; when the spendable balance reaches zero, calls in progress end',
			fields: [amountField('balance', 'Locked Amount', 'The amount that cannot be spent')],
			validate: (p) => amountIssues('Locked Amount', p.balance),
			method: 'PUT',
			path: `${PREPAY_PATH}/balance/locked`,
			body: (p) => ({ balance: Number(p.balance) }),
			emptyBody: true,
		}),
	],
};
