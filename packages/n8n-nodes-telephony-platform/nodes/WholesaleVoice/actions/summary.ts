import type { IDataObject } from 'n8n-workflow';

import type { ResourceSpec } from '../../shared/operation';
import { compact, pairsToObject } from '../../shared/params';
import { integerInRange, issues, matches, required } from '../../shared/validation';
import {
	collectionField,
	dateField,
	numericField,
	optionsField,
	rowsField,
	textField,
} from '../../shared/fields';
import { ACCOUNT_PATH, asDisplayed, operation, plainDateTime } from '../fields';
import { validateCdrPeriod } from '../validation/account';

/** The spec gives the API's limit a default (9999) but no maximum: as many as Return All collects. */
const MAX_RESULTS = 100_000;

export const summary: ResourceSpec = {
	value: 'summary',
	name: 'Summary',
	description: 'Inline traffic summaries, indicative only (not for billing)',
	operations: [
		operation({
			value: 'get',
			name: 'Get',
			action: 'Get a traffic summary',
			description:
				'Summarise traffic by a key (e.g. destination or trunk) for inbound, outbound or both directions, inline; indicative only',
			paging: 'client',
			fields: [
				optionsField('Direction', 'direction', 'both', [
					['Both', 'both'],
					['Inbound', 'in'],
					['Outbound', 'out'],
				]),
				textField(
					'Key',
					'key',
					'What to summarise by, as the API names it (e.g. destination, trunk, tag)',
					{ required: true, placeholder: 'e.g. destination' },
				),
				collectionField('Additional Fields', 'additionalFields', 'Add Field', [
					dateField('dateStart', 'Date Start', 'From this time, GMT (default start of today)'),
					numericField(
						'Max Results',
						'maxResults',
						9999,
						{ minValue: 1, maxValue: MAX_RESULTS, numberPrecision: 0 },
						{ description: "The API's limit parameter (default 9999)" },
					),
					textField('Sort', 'sort', 'The key to sort by'),
					rowsField(
						'Filter',
						'filter',
						['Condition', 'pairs'],
						[textField('Key', 'name'), textField('Value', 'value')],
					),
				]),
			],
			validate: (p) => {
				const extra = (p.additionalFields ?? {}) as IDataObject;
				return [
					...issues(
						required('Key', p.key),
						matches(
							'Key',
							String(p.key ?? '').trim(),
							/^[A-Za-z0-9_]+$/,
							'letters, digits and _ only',
						),
						integerInRange('Max Results', extra.maxResults, 1, MAX_RESULTS),
					),
					...asDisplayed(validateCdrPeriod(plainDateTime(extra.dateStart), undefined), {
						date_start: 'Date Start',
					}),
				];
			},
			// The spec prefers a JSON body for these parameters, and `filter` travels only that way.
			method: 'POST',
			path: (p) => ({
				path:
					p.direction === 'both'
						? `${ACCOUNT_PATH}/summary/{key}`
						: `${ACCOUNT_PATH}/summary/{direction}/{key}`,
				pathParams: { direction: p.direction, key: p.key },
			}),
			body: (p) => {
				const extra = (p.additionalFields ?? {}) as IDataObject;
				const filter = pairsToObject(extra.filter);
				return compact({
					date_start: plainDateTime(extra.dateStart),
					limit: extra.maxResults,
					sort: extra.sort,
					filter: Object.keys(filter).length ? filter : undefined,
				});
			},
		}),
	],
};
