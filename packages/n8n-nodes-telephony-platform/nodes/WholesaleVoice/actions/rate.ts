import type { IDataObject } from 'n8n-workflow';

import { binaryPropertyField } from '../../shared/describe';
import { parseCsv, csvRecords } from '../../shared/csv';
import type { OutputItem, OutputShape, ResourceSpec } from '../../shared/operation';
import { FileOutput } from '../../shared/operation';
import { issues, required } from '../../shared/validation';
import { plain, shapeOf } from '../../shared/outputShape';
import { idFromUri } from '../../shared/params';
import { isRecord } from '../../shared/responseShape';
import { optionsField, shownFor, textField } from '../../shared/fields';
import { ACCOUNT_PATH, e164Digits, numberIssues, operation } from '../fields';

/** A tariff as Simplified shows it: its deck (the rate card's name, from its URL) as the id, description, service level, quality. */
const tariffShape = shapeOf(
	['description', 'servicelevel', 'quality', 'prefix', 'default', 'url'],
	['description', 'servicelevel', 'quality', 'default'],
	(r) => (typeof r.url === 'string' ? idFromUri(r.url) : undefined),
);

const DECKS: Record<string, string> = { 1: 'platinum', 2: 'gold', 3: 'silver' };
const RATES: Record<string, string> = { p: 'peak', c: 'connection' };
const SIMPLE_RATES = Object.keys(RATES);
const entries = (value: unknown) => Object.entries(isRecord(value) ? value : {});

/**
 * A destination rate as Simplified shows it: the description, and each deck's peak rate and connection charge flat
 * (`gold_peak`, `gold_connection`). All four rates of every deck, flat, would be larger than the answer: they stay in Raw.
 */
const destinationRateShape: OutputShape = {
	fields: ['desc', 'rates'],
	simplify: (r) =>
		plain({
			description: r.desc,
			...Object.fromEntries(
				entries(r.rates).flatMap(([deck, rates]) =>
					SIMPLE_RATES.map((k) => [
						`${DECKS[deck] ?? deck}_${RATES[k]}`,
						isRecord(rates) ? rates[k] : undefined,
					]),
				),
			),
		}),
};

/** The rate card: `Effective: <date>` on the first line, then a CSV with a header row. */
export function rateCardRows(csv: string): { effective: string | null; rows: IDataObject[] } {
	const newline = csv.indexOf('\n');
	const match = /^Effective:\s*(.*)$/i.exec((newline < 0 ? csv : csv.slice(0, newline)).trim());
	return {
		effective: match ? match[1].trim() : null,
		rows: csvRecords(parseCsv(match ? csv.slice(newline + 1) : csv)),
	};
}

export const rate: ResourceSpec = {
	value: 'rate',
	name: 'Rate',
	description: 'Tariffs, rate cards and the rate for a destination',
	operations: [
		{
			value: 'getRateCard',
			name: 'Get Rate Card',
			action: 'Get a rate card',
			description:
				'Download a rate card as a CSV file, and optionally one item per destination with its effective date',
			fields: [
				{
					displayName: 'Rate Deck Name or ID',
					name: 'deck',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getRateDecks' },
					default: 'default',
					description:
						'The deck from the tariff list; silver, gold and platinum exist only on legacy accounts with several decks. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
				optionsField('Rate Card Format', 'format', 'file', [
					['CSV File', 'file', 'One item with the rate card as binary data'],
					[
						'CSV File and One Item per Row',
						'both',
						'The file on the first item, then one item per destination',
					],
					['One Item per Row', 'rows', 'One item per destination prefix'],
				]),
				{ ...binaryPropertyField, ...shownFor('format', 'file', 'both') },
			],
			validate: (p) => issues(required('Rate Deck', p.deck)),
			request: (p) => ({
				method: 'GET',
				path: `${ACCOUNT_PATH}/rates/csv/{deck}`,
				pathParams: { deck: p.deck },
				accept: 'text/csv',
				responseType: 'binary',
			}),
			output: (response, p) => {
				const data = response.body as Buffer;
				const { effective, rows } = rateCardRows(data.toString('utf8'));
				const fileName = `rate-card-${String(p.deck).trim()}.csv`;
				const file = new FileOutput(
					{
						deck: p.deck,
						effective,
						rows: rows.length,
						fileName,
						mimeType: 'text/csv',
						fileSize: data.length,
					},
					data,
					fileName,
					'text/csv',
				);
				const items: OutputItem[] = rows.map((row) => ({ ...row, effective }));
				if (p.format === 'rows') return items;
				return p.format === 'both' ? [file, ...items] : [file];
			},
		},
		operation({
			value: 'getDestinationRate',
			name: 'Get Destination Rate',
			action: 'Get the rate for a number',
			description:
				'Get the description and the peak, off-peak, weekend and connection rates of each deck for a number',
			fields: [
				textField('Number', 'number', 'The destination in E.164 form', {
					required: true,
					placeholder: 'e.g. 447700900555',
				}),
			],
			validate: numberIssues,
			path: (p) => ({
				path: `${ACCOUNT_PATH}/rate/{number}`,
				pathParams: { number: e164Digits(p.number) },
			}),
			shape: destinationRateShape,
		}),
		operation({
			value: 'getTariffs',
			name: 'Get Tariffs',
			action: 'Get the tariffs',
			description:
				'List the tariffs (rate decks) of the account with their service level and rate card location',
			paging: 'client',
			path: `${ACCOUNT_PATH}/rates/tariffs`,
			shape: tariffShape,
		}),
	],
};
