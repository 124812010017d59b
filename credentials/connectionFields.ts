import type { INodeProperties } from 'n8n-workflow';

/** Fields every credential of this package shares: where the API lives and how long to wait out a rate limit. */
export function baseUrlField(placeholder: string, description: string): INodeProperties {
	return {
		displayName: 'Base URL',
		name: 'baseUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder,
		description: `${description} Trailing slashes are ignored.`,
	};
}

export const maxRateLimitWaitField: INodeProperties = {
	displayName: 'Max Wait When Rate Limited (Seconds)',
	name: 'maxRateLimitWait',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: 3600 },
	default: 30,
	description:
		'When the API answers 429, wait for the reset and retry if it comes within this many seconds; otherwise fail at once with the time to retry. 0 never waits.',
};

/** How long one request may take; the transport enforces it (live streams use their heartbeat timeout instead). */
export const timeoutField: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 3600, numberPrecision: 0 },
	default: 30,
	description:
		'How long one request may take, from connecting to the last byte of the answer, before it fails with a timeout. Files that keep arriving may take longer; a pause this long fails them. Live event streams use their own heartbeat timeout.',
};
