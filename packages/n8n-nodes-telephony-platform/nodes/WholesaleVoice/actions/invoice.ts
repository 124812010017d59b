import type { IDataObject } from 'n8n-workflow';

import { binaryPropertyField } from '../../shared/describe';
import type { ResourceSpec } from '../../shared/operation';
import { FileOutput } from '../../shared/operation';
import { issues, matches, required } from '../../shared/validation';
import { wholesaleVoiceApi } from '../../shared/apis';
import { UnexpectedAnswer, isRecord } from '../../shared/responseShape';
import { shapeOf } from '../../shared/outputShape';
import { optionsField, textField } from '../../shared/fields';
import { ACCOUNT_PATH, operation } from '../fields';

/** An invoice as Simplified shows it: its number as the id, dates, currency, total and what is still due. */
const invoiceShape = shapeOf(
	[
		'InvoiceNumber',
		'Date',
		'DueDate',
		'Currency',
		'Net',
		'VAT',
		'Total',
		'AmountPaid',
		'AmountCredited',
		'AmountDue',
	],
	[
		['date', 'Date'],
		['due_date', 'DueDate'],
		['currency', 'Currency'],
		['total', 'Total'],
		['amount_due', 'AmountDue'],
	],
	'InvoiceNumber',
);

export const invoice: ResourceSpec = {
	value: 'invoice',
	name: 'Invoice',
	description: 'Credit invoices and their PDFs',
	operations: [
		{
			value: 'download',
			name: 'Download PDF',
			action: 'Download an invoice as PDF',
			description: 'Download one invoice as a PDF file (binary data)',
			fields: [
				textField(
					'Invoice Number',
					'invoiceNumber',
					'The invoice number: the id of an invoice from Get Many (InvoiceNumber in Raw)',
					{ required: true },
				),
				binaryPropertyField,
			],
			validate: (p) =>
				issues(
					required('Invoice Number', p.invoiceNumber),
					matches(
						'Invoice Number',
						String(p.invoiceNumber ?? '').trim(),
						/^[A-Za-z0-9_-]+$/,
						'letters, digits, - and _ only',
					),
				),
			request: (p) => ({
				method: 'GET',
				path: `${ACCOUNT_PATH}/credit/invoices/{invoiceNumber}.pdf`,
				pathParams: { invoiceNumber: p.invoiceNumber },
				accept: 'application/pdf',
				responseType: 'binary',
			}),
			output: (response, p) => {
				const data = response.body as Buffer;
				const fileName = `invoice-${String(p.invoiceNumber).trim()}.pdf`;
				return new FileOutput(
					{
						invoiceNumber: String(p.invoiceNumber).trim(),
						fileName,
						mimeType: 'application/pdf',
						fileSize: data.length,
					},
					data,
					fileName,
					'application/pdf',
				);
			},
		},
		operation({
			value: 'getAll',
			name: 'Get Many',
			action: 'Get many invoices',
			description: 'List unpaid, paid or all invoices of the account with amounts due',
			paging: 'client',
			fields: [
				optionsField('Status', 'status', 'unpaid', [
					['All', 'all'],
					['Paid', 'paid'],
					['Unpaid', 'unpaid'],
				]),
			],
			path: `${ACCOUNT_PATH}/credit/invoices/{status}`,
			shape: invoiceShape,
			// One item per invoice as answered (the account's totals due are the envelope's, not an invoice's); the contract's answer is an object (`Invoices`, `TotalDue`), so text, null or a number is no empty list.
			output: (response) => {
				const body = response.body;
				if (!isRecord(body))
					throw new UnexpectedAnswer(
						wholesaleVoiceApi.label,
						'Get many invoices',
						body,
						'an object with Invoices',
					);
				const invoices = body.Invoices ?? [];
				if (!Array.isArray(invoices))
					throw new UnexpectedAnswer(
						wholesaleVoiceApi.label,
						'Get many invoices',
						invoices,
						'a list in Invoices',
					);
				return invoices as IDataObject[];
			},
		}),
	],
};
