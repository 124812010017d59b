import type { IDataObject } from 'n8n-workflow';

import { platformApi } from '../../shared/apis';
import { optionsField, shownFor, textField } from '../../shared/fields';
import type { ResourceSpec } from '../../shared/operation';
import { joined, shapeOf, utcTime } from '../../shared/outputShape';
import { UnexpectedAnswer, isRecord } from '../../shared/responseShape';
import { issues, matches, required } from '../../shared/validation';
import { operatorNameList } from '../events';
import { INTELLIGENCE_PATH } from '../stream';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const UPGRADE = 'Upgrade configuration operators';

/**
 * The configuration record, unwrapped from `data` or `configuration` when enveloped. The upgrade
 * has been asked for by then, so an answer that is no record is an error saying it may have taken effect.
 */
function configurationRecord(body: unknown): IDataObject {
	if (!isRecord(body))
		throw new UnexpectedAnswer(platformApi.label, UPGRADE, body, 'a configuration record', {
			sent: true,
		});
	const inner = body.configuration ?? body.data;
	return isRecord(inner) && 'operators' in inner ? inner : body;
}

/**
 * The pinned operator references: the contract's array (absent: none). A value that is no array is
 * an error; an element that is no object cannot be a reference, so it is not counted as upgraded
 * (it stays in `operators` as answered).
 */
function operatorReferences(record: IDataObject): IDataObject[] {
	const operators = record.operators;
	if (operators === undefined || operators === null) return [];
	if (!Array.isArray(operators)) {
		throw new UnexpectedAnswer(
			platformApi.label,
			UPGRADE,
			operators,
			'a list of operator references in `operators`',
			{ sent: true },
		);
	}
	return (operators as unknown[]).filter(isRecord);
}

const refs = (value: unknown) => (Array.isArray(value) ? value.filter(isRecord) : []);
const versions = (value: unknown) =>
	joined(
		refs(value).map((op) => `${op.name} v${op.version}`),
		', ',
	);

/**
 * A configuration as Simplified shows it: its UUID as the id, name, version, state, and operators as `name vN`:
 * all pinned, those this upgrade moved, and those with an upgrade still available.
 */
const configurationShape = shapeOf(
	[
		'uuid',
		'name',
		'description',
		'version',
		'template_id',
		'is_active',
		'sync_state',
		'created_at',
		'updated_at',
		'operators',
		'actions',
		'upgraded_operators',
	],
	[
		'name',
		'version',
		'is_active',
		'sync_state',
		['updated_at', (r) => utcTime(r.updated_at)],
		['operators', (r) => versions(r.operators)],
		['upgraded', (r) => versions(r.upgraded_operators)],
		[
			'upgrade_available',
			(r) =>
				joined(
					[
						...new Set(
							refs(r.operators)
								.filter((op) => op.upgrade_available === true)
								.map((op) => op.name),
						),
					],
					', ',
				),
		],
	],
	'uuid',
);

export const configuration: ResourceSpec = {
	value: 'configuration',
	name: 'Configuration',
	description: 'Analysis configurations and the operator versions they pin',
	operations: [
		{
			value: 'upgradeOperators',
			name: 'Upgrade Operators',
			action: UPGRADE,
			description:
				'Move pinned operator references to their current versions (all, or the ones named); the configuration version goes up',
			fields: [
				textField('Configuration UUID', 'configurationId', 'The stable UUID of the configuration', {
					required: true,
					placeholder: 'e.g. 0b5c3a52-1d7e-4f6a-9c2b-8e4f1a2d3c4b',
				}),
				optionsField('Operators to Upgrade', 'upgrade', 'all', [
					['All', 'all', 'Every operator reference moves to its current version'],
					['Named Operators', 'named', 'Only the operators named below'],
				]),
				textField('Operator Names', 'operators', 'Comma-separated operator names', {
					required: true,
					placeholder: 'e.g. churn_risk, refund_requested',
					...shownFor('upgrade', 'named'),
				}),
			],
			validate: (p) =>
				issues(
					required('Configuration UUID', p.configurationId),
					matches(
						'Configuration UUID',
						String(p.configurationId ?? '').trim(),
						UUID,
						'a UUID such as 7c9e6679-7425-40de-944b-e07fc1f90ae7',
					),
					p.upgrade === 'named' && operatorNameList(p.operators).length === 0
						? {
								field: 'Operator Names',
								problem: 'no operator is named',
								rule: 'name at least one operator, or choose All',
							}
						: undefined,
				),
			request: (p) => ({
				method: 'POST',
				path: `${INTELLIGENCE_PATH}/configurations/{configurationId}/upgrade-operators`,
				pathParams: { configurationId: p.configurationId },
				body:
					p.upgrade === 'named'
						? { all: false, operators: operatorNameList(p.operators) }
						: { all: true },
			}),
			// The answer does not list what moved: named upgrades moved those names; "all" moved every reference now current.
			output: (response, p) => {
				const record = configurationRecord(response.body);
				const operators = operatorReferences(record);
				const requested = p.upgrade === 'named' ? operatorNameList(p.operators) : undefined;
				const upgraded = operators
					.filter((op) =>
						requested
							? requested.includes(String(op.name))
							: op.current_version === undefined || op.version === op.current_version,
					)
					.map((op) => ({ name: op.name, version: op.version }));
				return { ...record, upgraded_operators: upgraded };
			},
			shape: configurationShape,
		},
	],
};
