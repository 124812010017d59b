import type { INodeProperties, INodePropertyMode } from 'n8n-workflow';

/** Builders of node parameters: what sets a field apart on one line, n8n's boilerplate written once. */

/** A text field; `extra` adds what sets it apart (required, a placeholder, display options). */
export function textField(
	displayName: string,
	name: string,
	description?: string,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName,
		name,
		type: 'string',
		default: '',
		...(description === undefined ? {} : { description }),
		...extra,
	};
}

/** An options field from `[name, value, description?]` rows. */
export function optionsField(
	displayName: string,
	name: string,
	value: string,
	rows: Array<[string, string, string?]>,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	const options = rows.map(([choice, option, description]) => ({
		name: choice,
		value: option,
		...(description === undefined ? {} : { description }),
	}));
	return { displayName, name, type: 'options', default: value, options, ...extra };
}

/** A number field: its default and its bounds (`typeOptions`), then what else sets it apart. */
export function numericField(
	displayName: string,
	name: string,
	value: number,
	typeOptions: INodeProperties['typeOptions'],
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return { displayName, name, type: 'number', typeOptions, default: value, ...extra };
}

/** A boolean field, off unless `extra` says `default: true`. */
export function booleanField(
	displayName: string,
	name: string,
	description: string,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return { displayName, name, type: 'boolean', default: false, description, ...extra };
}

/** An "Add …" collection of optional fields. */
export function collectionField(
	displayName: string,
	name: string,
	placeholder: string,
	options: INodeProperties[],
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return { displayName, name, type: 'collection', placeholder, default: {}, ...extra, options };
}

/** The optional filters of a list or a poll: one "Add Filter" collection named `filters`. */
export const filtersField = (options: INodeProperties[], extra: Partial<INodeProperties> = {}) =>
	collectionField('Filters', 'filters', 'Add Filter', options, extra);

/** A trigger's Options collection. */
export const triggerOptions = (options: INodeProperties[]) =>
	collectionField('Options', 'options', 'Add Option', options);

/** The heartbeat window option of a long-running trigger, with its own wording and range. */
export function heartbeatTimeoutOption(
	description: string,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName: 'Heartbeat Timeout (Seconds)',
		name: 'heartbeatTimeoutSeconds',
		type: 'number',
		default: 90,
		description,
		...extra,
	};
}

/** A list of rows (a fixed collection with multiple values), each row named `row` and made of `values`. */
export function rowsField(
	displayName: string,
	name: string,
	row: [string, string],
	values: INodeProperties[],
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		...extra,
		options: [{ displayName: row[0], name: row[1], values }],
	};
}

export function dateField(
	name: string,
	displayName: string,
	description: string,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return { displayName, name, type: 'dateTime', default: '', description, ...extra };
}

/** A required record, picked from a searchable list (`searchListMethod`) or given the other `modes` (by ID, name, URL). */
export function locatorField(
	displayName: string,
	name: string,
	description: string,
	searchListMethod: string,
	extra: Partial<INodeProperties> & { modes: INodePropertyMode[] },
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		...extra,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true },
			},
			...extra.modes,
		],
	};
}

/** Display options: shown only while `parameter` holds one of `values`. */
export function shownFor(
	parameter: string,
	...values: Array<string | boolean>
): Pick<INodeProperties, 'displayOptions'> {
	return { displayOptions: { show: { [parameter]: values } } };
}
