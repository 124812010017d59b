import type { IAuthenticateRuleResponseCode, INodeProperties } from 'n8n-workflow';

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

export function basicAuthorization(user: unknown, password: unknown): string {
	return `Basic ${Buffer.from(`${String(user ?? '')}:${String(password ?? '')}`).toString('base64')}`;
}

/**
 * Why a Base URL is refused, or undefined. A user name or password written into it (`https://user:secret@host`)
 * is neither masked like the credential's own secret fields nor kept out of the links the nodes output,
 * so it is refused before anything is sent. A query or fragment (`…/api/v1?x=`, `…#frag`) would end
 * up before every request's own path, sending it elsewhere. The message never repeats the URL.
 */
export function baseUrlProblem(label: string, baseUrl: unknown): string | undefined {
	const text = String(baseUrl ?? '').trim();
	const authority = /^[^:/?#]*:[/\\]*([^/?#\\]*)/.exec(text)?.[1] ?? '';
	if (authority.includes('@')) {
		return `The Base URL of the ${label} credential contains a user name or password (text before an @ in the host): remove it and put the sign-in in the credential's own fields`;
	}
	const extra = /[?#]/.exec(text)?.[0];
	if (extra) {
		return `The Base URL of the ${label} credential contains ${extra === '?' ? 'a query (text from a ?)' : 'a fragment (text from a #)'}: every request's path would come after it. Remove it; the Base URL ends with the path the API lives under`;
	}
	return undefined;
}

/** The credential test's base URL, with trailing slashes removed as the nodes remove them. */
export const testBaseUrl = '={{ String($credentials.baseUrl).trim().replace(/\\/+$/, "") }}';

/** A credential test rule: the message n8n shows when the test request answers with this status. */
export function responseCode(value: number, message: string): IAuthenticateRuleResponseCode {
	return { type: 'responseCode', properties: { value, message } };
}
