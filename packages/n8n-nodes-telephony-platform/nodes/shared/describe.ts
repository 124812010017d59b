import type { INodeProperties } from 'n8n-workflow';

import type { OperationSpec, ResourceSpec } from './operation';
import { shapeFields } from './outputShape';
import { MAX_RETURN_ALL_RECORDS } from './pagination';

export const RETURN_ALL = 'returnAll';
export const BINARY_PROPERTY = 'binaryPropertyName';
export const LIMIT = 'limit';
export const DEFAULT_LIMIT = 50;

const listFields: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: RETURN_ALL,
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: LIMIT,
		type: 'number',
		// The same bound as Return All: a Limit is no way around it.
		typeOptions: { minValue: 1, maxValue: MAX_RETURN_ALL_RECORDS, numberPrecision: 0 },
		default: DEFAULT_LIMIT,
		description: 'Max number of results to return',
		displayOptions: { show: { [RETURN_ALL]: [false] } },
	},
];

/** Where a downloaded file goes, for operations whose output is a file. */
export const binaryPropertyField: INodeProperties = {
	displayName: 'Put Output File in Field',
	name: BINARY_PROPERTY,
	type: 'string',
	default: 'data',
	required: true,
	hint: 'The name of the output binary field to put the file in',
};

/** The fields an operation shows: its own, then Return All / Limit for lists, then the output choice of a shaped one. */
export function operationFields(operation: OperationSpec): INodeProperties[] {
	return [
		...(operation.fields ?? []),
		...(operation.paging ? listFields : []),
		...shapeFields(operation),
	];
}

function scoped(field: INodeProperties, resource: string, operation: string): INodeProperties {
	const own = field.displayOptions ?? {};
	return {
		...field,
		displayOptions: {
			...own,
			show: { ...(own.show ?? {}), resource: [resource], operation: [operation] },
		},
	};
}

/** The first entry's value: the default of the resource and operation selectors (a call, which n8n's linter accepts as a computed default). */
function firstValue(entries: ReadonlyArray<{ value: string }>): string {
	return entries[0].value;
}

/**
 * The node's properties from its resource specs: the resource selector, one operation
 * selector per resource, and every operation's fields shown only for that operation.
 */
export function describeResources(resources: ResourceSpec[]): INodeProperties[] {
	const resourceSelector: INodeProperties = {
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: resources.map((r) => ({ name: r.name, value: r.value, description: r.description })),
		default: firstValue(resources),
	};
	const operationSelectors: INodeProperties[] = resources.map((r) => ({
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [r.value] } },
		options: r.operations.map((op) => ({
			name: op.name,
			value: op.value,
			action: op.action,
			description: op.description,
		})),
		default: firstValue(r.operations),
	}));
	const fields = resources.flatMap((r) =>
		r.operations.flatMap((op) => operationFields(op).map((f) => scoped(f, r.value, op.value))),
	);
	return [resourceSelector, ...operationSelectors, ...fields];
}

export function findOperation(
	resources: ResourceSpec[],
	resource: string,
	operation: string,
): OperationSpec | undefined {
	return resources
		.find((r) => r.value === resource)
		?.operations.find((op) => op.value === operation);
}
