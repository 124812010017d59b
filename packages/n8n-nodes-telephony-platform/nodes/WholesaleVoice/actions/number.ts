import type { IDataObject } from 'n8n-workflow';

import type { ResourceSpec } from '../../shared/operation';
import { issues, required } from '../../shared/validation';
import { optionsField, textField } from '../../shared/fields';
import {
	NUMBERS_PATH,
	asDisplayed,
	e164Digits,
	firstItem,
	numberField,
	numberIssues,
	numberPath,
	operation,
	unwrap,
} from '../fields';
import { validateSmsEndpoint, validateTrunkName } from '../validation/account';
import { trunkField, trunkName } from './trunk';

/** The validation result with `formatted` and `ofcom` lifted to the top, for mapping. */
export function flatValidation(record: IDataObject): IDataObject {
	const formatted = (record.formatted ?? {}) as IDataObject;
	const ofcom = (record.ofcom ?? {}) as IDataObject;
	return {
		...record,
		formatted_e164: formatted.e164 ?? null,
		formatted_national: formatted.national ?? null,
		formatted_international: formatted.international ?? null,
		ofcom_status: ofcom.status ?? null,
		ofcom_use: ofcom.use ?? null,
		ofcom_range_holder: ofcom.rh ?? null,
		ofcom_date: ofcom.date ?? null,
		valid_cli: ofcom.valid_cli ?? record.valid_cli ?? null,
	};
}

const lookupPath = (kind: string) => (p: IDataObject) => ({
	path: `${NUMBERS_PATH}/${kind}/{number}`,
	pathParams: { number: e164Digits(p.number) },
});
const ofNumber = { fields: [numberField], validate: numberIssues };

export const number: ResourceSpec = {
	value: 'number',
	name: 'Number',
	description:
		'Numbers of the account: allocation, trunk association, inbound SMS, validation and lookup',
	operations: [
		operation({
			value: 'allocate',
			name: 'Allocate',
			action: 'Allocate a number',
			description: 'Allocate a number to the account (if not yet allocated)',
			...ofNumber,
			method: 'PUT',
			path: (p) => numberPath(p),
			emptyBody: true,
			output: (response, p) => [{ number: e164Digits(p.number), ...firstItem(response) }],
		}),
		operation({
			value: 'get',
			name: 'Get Configuration',
			action: 'Get the configuration of a number',
			description: "Get a number's configuration: routing, options, rules and meta",
			...ofNumber,
			path: (p) => numberPath(p),
			output: (response, p) => [
				{ number: e164Digits(p.number), ...((unwrap(response.body) ?? {}) as IDataObject) },
			],
		}),
		operation({
			value: 'getSmsEndpoint',
			name: 'Get SMS Endpoint',
			action: 'Get the inbound SMS endpoint of a number',
			description: 'Get where inbound SMS to a mobile or OTT number are posted',
			...ofNumber,
			path: (p) => numberPath(p, '/sms'),
		}),
		operation({
			value: 'getTrunk',
			name: 'Get Trunk',
			action: 'Get the trunk of a number',
			description: 'Get the trunk a number is associated with for billing and trunk-level controls',
			...ofNumber,
			path: (p) => numberPath(p, '/trunk'),
		}),
		operation({
			value: 'lookup',
			name: 'Look Up',
			action: 'Look up a number',
			description:
				"Look up a number's range holder (the original provider; a ported number may be elsewhere now)",
			...ofNumber,
			path: lookupPath('lookup'),
			output: (response) => {
				const body = (response.body ?? {}) as IDataObject;
				return [{ formatted: body.formatted ?? null, ...((body.data ?? {}) as IDataObject) }];
			},
		}),
		operation({
			value: 'remove',
			name: 'Remove',
			action: 'Remove a number from live routing',
			description:
				'De-configure a number and remove it from the account. Calls to it stop being routed at once; the number may not be recoverable.',
			...ofNumber,
			method: 'DELETE',
			path: (p) => numberPath(p),
			emptyBody: true,
			output: (response, p) => [
				{ number: e164Digits(p.number), removed: true, ...firstItem(response) },
			],
		}),
		operation({
			value: 'removeSmsEndpoint',
			name: 'Remove SMS Endpoint',
			action: 'Remove the inbound SMS endpoint of a number',
			description: 'Stop posting inbound SMS of a number to an endpoint',
			...ofNumber,
			method: 'DELETE',
			path: (p) => numberPath(p, '/sms'),
			emptyBody: true,
		}),
		operation({
			value: 'removeTrunk',
			name: 'Remove Trunk',
			action: 'Remove the trunk association of a number',
			description: "Remove a number's trunk association (billing and trunk-level controls)",
			...ofNumber,
			method: 'DELETE',
			path: (p) => numberPath(p, '/trunk'),
			emptyBody: true,
		}),
		operation({
			value: 'setSmsEndpoint',
			name: 'Set SMS Endpoint',
			action: 'Set the inbound SMS endpoint of a number',
			description:
				'Post every inbound SMS of a mobile or OTT number to a URL, as JSON (preferred; HTTPS possible) or as a legacy form post (no TLS, no Unicode)',
			fields: [
				numberField,
				optionsField('Mode', 'mode', 'http_json', [
					[
						'JSON (Recommended)',
						'http_json',
						'A JSON POST per SMS; works with HTTPS endpoints and Unicode',
					],
					['Form Post (Legacy)', 'http', 'A form-encoded POST; plain HTTP only, no Unicode'],
				]),
				textField('Endpoint URL', 'endpoint', undefined, {
					required: true,
					placeholder: 'e.g. https://n8n.example.com/webhook/…',
				}),
			],
			validate: (p) => [
				...numberIssues(p),
				...asDisplayed(validateSmsEndpoint(p.mode, String(p.endpoint ?? '').trim()), {
					mode: 'Mode',
					endpoint: 'Endpoint URL',
				}),
			],
			method: 'PUT',
			path: (p) => numberPath(p, '/sms'),
			body: (p) => ({ mode: p.mode, endpoint: String(p.endpoint).trim() }),
		}),
		operation({
			value: 'setTrunk',
			name: 'Set Trunk',
			action: 'Associate a number with a trunk',
			description:
				'Associate a number with a trunk for billing reconciliation and trunk-level controls (this does not route the number to the trunk)',
			fields: [numberField, trunkField],
			validate: (p, env) => [
				...numberIssues(p),
				...issues(required('Trunk Name', p.trunk)),
				...validateTrunkName('Trunk Name', trunkName(p.trunk, env), env.variables.ACCOUNT),
			],
			method: 'PUT',
			path: (p) => numberPath(p, '/trunk'),
			body: (p, env) => ({ trunk: trunkName(p.trunk, env) }),
		}),
		operation({
			value: 'validate',
			name: 'Validate',
			action: 'Validate a number',
			description:
				'Check that a number is well formed (not that it is in service): type, carrier, time zones, and for UK numbers the Ofcom range and whether it may be used as caller ID',
			...ofNumber,
			path: lookupPath('validate'),
			output: (response) => [flatValidation((unwrap(response.body) ?? {}) as IDataObject)],
		}),
	],
};
