import { currentTime } from '../core/clock';
import type { Router } from '../core/http';
import type { WsRequest } from './context';
import { amountParam, failure, on, ok, reply, sendRaw, text } from './context';
import { decimal, gmt, round, ymd } from './php';
import { textPdf } from './pdf';
import type { Account, AccountType, Invoice } from './seed';
import { ACCOUNT_TYPE_LIMITS } from './seed';
import type { WholesaleSandbox } from './module';

/**
 * Account and billing: account type, credit invoices (list and PDF), prepayments, transfers,
 * balance, balance alert and locked balance. The prepay summary report is in reports.ts.
 */

const ACCOUNT_TYPES: AccountType[] = ['developer', 'startup', 'virtual_interconnect', 'managed_interconnect'];
const INTERCONNECT: AccountType[] = ['virtual_interconnect', 'managed_interconnect'];

export function accountTypeRecord(account: Account): Record<string, unknown> {
	return { account_type: account.type, ...ACCOUNT_TYPE_LIMITS[account.type] };
}

function invoiceRecord(invoice: Invoice): Record<string, string> {
	const total = invoice.net + invoice.vat;
	return {
		InvoiceNumber: invoice.number,
		Date: ymd(invoice.date),
		DueDate: ymd(invoice.due),
		Currency: invoice.currency,
		Net: decimal(invoice.net, 2),
		VAT: decimal(invoice.vat, 2),
		Total: decimal(total, 2),
		AmountPaid: decimal(invoice.paid, 2),
		AmountCredited: decimal(invoice.credited, 2),
		AmountDue: decimal(amountDue(invoice), 2),
	};
}

function amountDue(invoice: Invoice): number {
	return Math.max(0, round(invoice.net + invoice.vat - invoice.paid - invoice.credited, 2));
}

function invoiceList(account: Account, which: 'unpaid' | 'paid' | 'all'): Record<string, unknown> {
	const now = currentTime();
	const unpaid = account.invoices.filter((i) => amountDue(i) > 0);
	const overdue = unpaid.filter((i) => i.due < now);
	const chosen = which === 'all' ? account.invoices : which === 'paid' ? account.invoices.filter((i) => amountDue(i) === 0) : unpaid;
	return {
		Invoices: chosen.map(invoiceRecord),
		TotalDue: { [account.currency]: round(unpaid.reduce((sum, i) => sum + amountDue(i), 0), 2) },
		TotalOverDue: overdue.length ? { [account.currency]: round(overdue.reduce((sum, i) => sum + amountDue(i), 0), 2) } : null,
	};
}

function invoicePdf(account: Account, invoice: Invoice): Buffer {
	const r = invoiceRecord(invoice);
	return textPdf(`Invoice ${invoice.number}`, [
		`${account.company} - account ${account.id}`,
		`Invoice date: ${r.Date}    Due date: ${r.DueDate}`,
		'',
		`Wholesale voice services, ${ymd(invoice.date - 86_400_000).slice(0, 7)}`,
		`Net: ${r.Net} ${r.Currency}`,
		`VAT: ${r.VAT} ${r.Currency}`,
		`Total: ${r.Total} ${r.Currency}`,
		`Paid: ${r.AmountPaid}    Credited: ${r.AmountCredited}    Due: ${r.AmountDue}`,
	]);
}

function latestCount(value: string): number {
	if (value !== '1' && value !== '10') throw failure(404, `Unsupported count ${value}: use 1 or 10`);
	return Number(value);
}

export function balanceRecord(account: Account): Array<Record<string, unknown>> {
	return [{ balance: decimal(account.balance, 4), currency: account.currency }];
}

export function lockedRecord(account: Account): Array<Record<string, unknown>> {
	return [
		{
			account: account.id,
			balance: round(account.balance, 4),
			locked: round(account.locked, 4),
			available: round(account.balance - account.locked, 4),
		},
	];
}

export function accountRoutes(r: Router, _m: WholesaleSandbox): void {
	on(r, 'GET', '/accounts/:account/type', (req, res) => reply(req, res, ok(accountTypeRecord(req.account))));
	on(r, 'PUT', '/accounts/:account/type', (req, res) => {
		const account = req.account;
		const requested = text(req, 'account_type');
		if (!requested) throw failure(400, 'account_type is required (developer or startup)');
		if (!(ACCOUNT_TYPES as string[]).includes(requested)) {
			throw failure(400, `Unknown account type ${requested}; the types are ${ACCOUNT_TYPES.join(', ')}`);
		}
		if (INTERCONNECT.includes(requested as AccountType)) {
			throw failure(400, `The account type ${requested} cannot be selected online: interconnect accounts are arranged with your account manager`);
		}
		if (INTERCONNECT.includes(account.type)) {
			throw failure(400, `The account type of a ${account.type} account cannot be changed online`);
		}
		if (account.type === 'startup' && requested === 'developer') {
			throw failure(400, 'A startup account cannot be changed back to developer online');
		}
		account.type = requested as AccountType;
		reply(req, res, ok(accountTypeRecord(account)));
	});

	on(r, 'GET', '/accounts/:account/credit/invoices/:invoice', (req, res) => {
		const which = req.params.invoice;
		if (which === 'unpaid' || which === 'paid' || which === 'all') {
			reply(req, res, invoiceList(req.account, which));
			return;
		}
		const number = which.replace(/\.pdf$/i, '');
		const invoice = req.account.invoices.find((i) => i.number === number);
		if (!invoice) throw failure(404, `Invoice ${number} not found on account ${req.account.id}`);
		sendRaw(res, invoicePdf(req.account, invoice), 'application/pdf', { 'Content-Disposition': `inline; filename="${number}.pdf"` });
	});

	const prepayment = (p: Account['prepayments'][number]) => ({
		id: p.id,
		datetime: gmt(p.datetime),
		amount: decimal(p.amount, 2),
		currency: p.currency,
		method: p.method,
		reference: p.reference,
	});
	const transfer = (t: Account['transfers'][number]) => ({
		id: t.id,
		datetime: gmt(t.datetime),
		from_account: t.from_account,
		to_account: t.to_account,
		amount: decimal(t.amount, 2),
		currency: t.currency,
		reference: t.reference,
	});
	const newestFirst = <T extends { datetime: number }>(items: T[]) => [...items].sort((a, b) => b.datetime - a.datetime);
	on(r, 'GET', '/accounts/:account/prepay/prepayments/all', (req, res) =>
		reply(req, res, newestFirst(req.account.prepayments).map(prepayment)),
	);
	on(r, 'GET', '/accounts/:account/prepay/prepayments/latest/:count', (req, res) =>
		reply(req, res, newestFirst(req.account.prepayments).slice(0, latestCount(req.params.count)).map(prepayment)),
	);
	on(r, 'GET', '/accounts/:account/prepay/transfers/all', (req, res) => reply(req, res, newestFirst(req.account.transfers).map(transfer)));
	on(r, 'GET', '/accounts/:account/prepay/transfers/latest/:count', (req, res) =>
		reply(req, res, newestFirst(req.account.transfers).slice(0, latestCount(req.params.count)).map(transfer)),
	);

	on(r, 'GET', '/accounts/:account/prepay/balance', (req, res) => reply(req, res, balanceRecord(req.account)));
	const alertRecord = (account: Account) => [{ account: account.id, alert_balance: round(account.alertBalance, 2) }];
	on(r, 'GET', '/accounts/:account/prepay/balance/alert', (req, res) => reply(req, res, alertRecord(req.account)));
	on(r, 'PUT', '/accounts/:account/prepay/balance/alert', (req, res) => {
		const value = amountParam(req, 'alert_balance');
		if (value === undefined) throw failure(400, 'alert_balance is required');
		if (Number.isNaN(value) || value < 0) throw failure(400, 'alert_balance must be an amount of 0 or more');
		req.account.alertBalance = value;
		reply(req, res, alertRecord(req.account));
	});
	on(r, 'GET', '/accounts/:account/prepay/balance/locked', (req, res) => reply(req, res, lockedRecord(req.account)));
	on(r, 'PUT', '/accounts/:account/prepay/balance/locked', (req, res) => {
		const value = amountParam(req, 'balance');
		if (value === undefined) throw failure(400, 'balance (the amount to lock) is required');
		if (Number.isNaN(value) || value < 0) throw failure(400, 'balance must be an amount of 0 or more');
		if (value > req.account.balance) {
			throw failure(400, `Cannot lock ${decimal(value, 2)}: the balance is ${decimal(req.account.balance, 2)} ${req.account.currency}`);
		}
		req.account.locked = value;
		reply(req, res, lockedRecord(req.account));
	});
	on(r, 'DELETE', '/accounts/:account/prepay/balance/locked', (req: WsRequest, res) => {
		req.account.locked = 0;
		reply(req, res, lockedRecord(req.account));
	});
}
