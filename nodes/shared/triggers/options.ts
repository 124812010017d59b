import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { validationError } from '../errors';
import { parameterIssues } from '../parameterChecks';

/** The heartbeat window option every long-running trigger offers, with its own wording. */
export function heartbeatTimeoutOption(description: string, extra: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Heartbeat Timeout (Seconds)',
		name: 'heartbeatTimeoutSeconds',
		type: 'number',
		default: 90,
		typeOptions: { minValue: 5 },
		description,
		...extra,
	};
}

/** A trigger's Options collection. */
export function triggerOptions(options: INodeProperties[]): INodeProperties {
	return { displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {}, options };
}

/**
 * The numeric settings a trigger is about to use, each checked against its own declaration (a
 * finite number within its minValue and maxValue) before anything is sent: a value from an
 * expression bypasses the editor's limits, and NaN, a negative or a huge number would replay
 * history, spin a timer or storm the API. A blank value is the declared default.
 */
export function numericSettings(node: INode, fields: INodeProperties[], values: IDataObject): Record<string, number> {
	const given = Object.fromEntries(fields.map((field) => [field.name, values[field.name]]));
	const found = parameterIssues(fields, given);
	if (found.length) throw validationError(node, found);
	const blank = (value: unknown) => value === undefined || value === null || value === '';
	return Object.fromEntries(fields.map((field) => [field.name, Number(blank(given[field.name]) ? field.default : given[field.name])]));
}
