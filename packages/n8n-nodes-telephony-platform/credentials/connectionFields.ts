import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/** A required text field of a credential; `{ typeOptions: { password: true } }` for a secret. */
export function requiredField(
	displayName: string,
	name: string,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return { displayName, name, type: 'string', required: true, default: '', ...extra };
}

/** Fields every credential of this package shares: where the API lives and how long to wait out a rate limit. */
export function baseUrlField(placeholder: string, description: string): INodeProperties {
	return requiredField('Base URL', 'baseUrl', {
		placeholder,
		description: `${description} Trailing slashes are ignored.`,
	});
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

/** The Authorization header of HTTP Basic. */
export function basicAuthorization(user: unknown, password: unknown): string {
	return `Basic ${Buffer.from(`${String(user ?? '')}:${String(password ?? '')}`).toString('base64')}`;
}

/** The Authorization header of a Bearer key, trimmed as pasted keys often carry a space or a newline. */
export function bearerAuthorization(key: unknown): string {
	return `Bearer ${String(key ?? '').trim()}`;
}

/**
 * A credential's `authenticate`, setting the Authorization header: n8n 2.40 refuses to evaluate a generic
 * `={{$credentials…}}` for a trigger's requests after its activation ("No bridge acquired for this context").
 */
export function authorizationWith(header: (credentials: ICredentialDataDecryptedObject) => string) {
	return async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		requestOptions.headers = { ...requestOptions.headers, Authorization: header(credentials) };
		return requestOptions;
	};
}
