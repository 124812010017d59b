import { booleanField } from '../../shared/fields';
import type { ApiPath, OutputShape, Params, ResourceSpec } from '../../shared/operation';
import { plain } from '../../shared/outputShape';
import { idFromUri } from '../../shared/params';
import { customerField, customerPath, endpointField } from '../fields';
import { pbxOutput, unshownAnswer, withIdBeside } from '../records';

function phoneStatusPath(p: Params): ApiPath {
	const customer = customerPath(p, '/endpoints/{endpointId}/phonestatus');
	return { path: customer.path, pathParams: { ...customer.pathParams, endpointId: p.endpointId } };
}

/** A phone status as Simplified shows it: the endpoint (from its `parent` URI) and whether Do Not Disturb is on. */
export const phoneStatusShape: OutputShape = {
	fields: ['dndActive', 'parent', 'type', 'uri'],
	simplify: (r) =>
		plain({
			endpointId: typeof r.parent === 'string' ? idFromUri(r.parent) : undefined,
			dndActive: r.dndActive,
		}),
};

export const endpoint: ResourceSpec = {
	value: 'endpoint',
	name: 'Endpoint',
	description: 'Do Not Disturb on an extension or device group',
	operations: [
		{
			value: 'getDnd',
			name: 'Get Do Not Disturb',
			action: 'Get the Do Not Disturb status of an endpoint',
			description: 'Read whether Do Not Disturb is set on an endpoint',
			fields: [customerField, endpointField],
			request: (p) => ({ method: 'GET', ...phoneStatusPath(p) }),
			output: pbxOutput('Get the Do Not Disturb status of an endpoint', 'record', withIdBeside),
			shape: phoneStatusShape,
		},
		{
			value: 'setDnd',
			name: 'Set Do Not Disturb',
			action: 'Set Do Not Disturb on an endpoint',
			description:
				'Turn Do Not Disturb on or off for an endpoint; while on, no calls are presented to any of its devices',
			fields: [
				customerField,
				endpointField,
				booleanField('Do Not Disturb', 'dndActive', 'Whether Do Not Disturb is on', {
					default: true,
				}),
			],
			request: (p) => ({
				method: 'PUT',
				...phoneStatusPath(p),
				body: { type: 'phonestatus', dndActive: Boolean(p.dndActive) },
				// The contract shows a 200 without saying what it holds: empty or not JSON, it is the change made.
				emptyBody: 'allowed',
				responseType: 'text',
			}),
			// The API answers 200; its body is the updated status where the service sends one.
			output: (response, p) =>
				unshownAnswer(response, 'Set Do Not Disturb on an endpoint', {
					endpointId: String(p.endpointId),
					dndActive: Boolean(p.dndActive),
				}),
		},
	],
};
