import type { INodeProperties } from 'n8n-workflow';

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
