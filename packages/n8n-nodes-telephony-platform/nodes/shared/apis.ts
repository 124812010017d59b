import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { basicAuthorization, bearerAuthorization } from '../../credentials/connectionFields';

import type { ApiFailure } from './errors';
import { errorTextFromBody } from './errors';
import { basicSecretForms, secretForms } from './redaction';
import type { ApiDefinition, FailedResponse } from './transport/client';

/** Why a key is refused (never quoting it); only its tail of 48 hex characters is checked, the prefix is not published. */
export function apiKeyProblem(key: unknown): string | undefined {
	const value = String(key ?? '').trim();
	if (value === '')
		return 'The Voice Agent and Conversation Intelligence API credential has no key';
	if (/\s/.test(value))
		return 'The API key contains spaces or line breaks; paste it again as one word';
	const tail = /[0-9a-fA-F]*$/.exec(value)?.[0].length ?? 0;
	if (tail >= 48) return undefined;
	const found =
		tail === 0 ? 'its last character is not hexadecimal' : `only its last ${tail} characters are`;
	return `The API key should be the portal's prefix, then 48 hexadecimal characters (0-9, a-f), like <prefix>9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c, but ${found}. Copy the whole key from the customer portal`;
}

/** Why an account id is refused, or undefined when it is digits only. */
export function accountIdProblem(accountId: unknown): string | undefined {
	const value = String(accountId ?? '').trim();
	if (value === '') return 'The Wholesale Voice API credential has no Account ID';
	if (!/^\d+$/.test(value))
		return "The Wholesale Voice API credential's Account ID must be digits only (typically six, e.g. 123456)";
	return undefined;
}

/** The status line every API shares, with the platform's own text and a hint per status. */
function standardFailure(
	label: string,
	failure: FailedResponse,
	hints: Partial<Record<number, string>>,
): ApiFailure {
	const text = errorTextFromBody(failure.json ?? failure.text);
	const where = `${failure.method} ${failure.path}`;
	const headline: Record<number, string> = {
		400: `The ${label} refused the request as invalid`,
		401: `The ${label} refused the credentials`,
		403: `The ${label} does not allow this with these credentials`,
		404: `Nothing found at ${failure.path}`,
		405: `The ${label} does not allow ${where}`,
		409: `The ${label} reports a conflict`,
	};
	const other =
		failure.status >= 500
			? 'had a server error'
			: failure.status < 300
				? 'refused the request'
				: `refused ${where}`;
	const first = headline[failure.status] ?? `The ${label} ${other}`;
	return {
		message: `${first} (${failure.status})${text ? `: ${text}` : ''}`,
		description: hints[failure.status] ?? `Request: ${where}`,
	};
}

export const hostedPbxApi: ApiDefinition = {
	credentialType: 'hostedPbxApi',
	label: 'Hosted PBX API',
	secretForms: (c) => basicSecretForms(c.username as string, c.password as string),
	// GET /customers works at every user level (`me` does not work for resellers).
	credentialTest: {
		path: '/customers',
		qs: { pageSize: 1 },
		authorization: (c) => basicAuthorization(c.username, c.password),
		refused: {
			401: 'Wrong username or password: the Hosted PBX API refused them (401). Check both, and that the user is active.',
			403: 'The user may not read the account (403): use a user with API access.',
			404: 'Nothing at this Base URL (404): it must end with the API version, as in https://pbx.example.com/api/v1.',
		},
	},
	describeFailure: (failure) =>
		standardFailure('Hosted PBX API', failure, {
			401: 'Check the username and password of the Hosted PBX API credential. What a user may read depends on its level (extension user, company admin, reseller), and a single-use token works only once.',
			404: 'Check the IDs. Customer IDs come from Customer > Get Many; a company admin or extension user may use "me".',
			429: 'The Hosted PBX allows 1,200 requests per user per hour.',
		}),
};

const E911_RETRYABLE = new Set(['e911.retry', 'e911.upstream', 'e911.upstream_unavailable']);

export interface E911Error {
	code?: string;
	field?: string | null;
	message?: string;
}

/** The first error of an e911 refusal body (`{success: false, errors: [{code, field, message}], data}`). */
export function e911ErrorOf(body: unknown): E911Error | undefined {
	const errors = (body as { errors?: unknown } | null | undefined)?.errors;
	const first = Array.isArray(errors) ? (errors[0] as E911Error | undefined) : undefined;
	return first && typeof first === 'object' && typeof first.code === 'string' ? first : undefined;
}

const e911Error = (failure: FailedResponse) => e911ErrorOf(failure.json);

/** The address suggestions an e911 refusal may carry, as one line for the error description. */
function e911Suggestions(body: unknown): string {
	const data = (body as { data?: unknown } | null | undefined)?.data;
	if (!data || typeof data !== 'object') return '';
	const { correctedAddress, candidateAddresses } = data as {
		correctedAddress?: unknown;
		candidateAddresses?: unknown;
	};
	const parts = [
		...(correctedAddress && typeof correctedAddress === 'object'
			? [`corrected address ${JSON.stringify(correctedAddress)}`]
			: []),
		...(Array.isArray(candidateAddresses) && candidateAddresses.length
			? [
					`${candidateAddresses.length} candidate address(es): ${JSON.stringify(candidateAddresses)}`,
				]
			: []),
	];
	const text = parts.join('; ');
	return text
		? ` The service suggests: ${text.length > 600 ? `${text.slice(0, 600)}…` : text}.`
		: '';
}

export const wholesaleVoiceApi: ApiDefinition = {
	credentialType: 'wholesaleVoiceApi',
	label: 'Wholesale Voice API',
	secretForms: (c) => basicSecretForms(c.apiUsername as string, c.apiPassword as string),
	checkCredentials: (c) => accountIdProblem(c.accountId),
	// An authenticated read of the account itself: the tools endpoints need no authentication.
	credentialTest: {
		path: '/v3/accounts/{ACCOUNT}/type',
		authorization: (c) => basicAuthorization(c.apiUsername, c.apiPassword),
		refused: {
			401: 'Wrong API username or password: the Wholesale Voice API refused them (401).',
			403: 'The API user may not use this account (403): check the Account ID, the number of the account the API user belongs to.',
			404: 'Nothing at this Base URL for this account (404): the Base URL is the API root without /v3 (as in https://api.example.com), and the Account ID is the account number.',
		},
	},
	pathVariables: (c: ICredentialDataDecryptedObject) => ({ ACCOUNT: String(c.accountId).trim() }),
	isRetryable: (failure) => E911_RETRYABLE.has(e911Error(failure)?.code ?? ''),
	// Some failures come with a 200 status: `{success: false, errors: [...]}`.
	failedBody: (body) =>
		body !== null && typeof body === 'object' && (body as { success?: unknown }).success === false,
	describeFailure: (failure) => {
		const e911 = e911Error(failure);
		if (e911) {
			const errors = (failure.json as { errors: E911Error[] }).errors;
			const text = errors
				.map((e) => `${e.code}${e.field ? ` (${e.field})` : ''}: ${e.message ?? ''}`.trim())
				.join('; ');
			const advice: Record<string, string> = {
				'e911.partially_applied':
					'The change was only partly applied. Do not retry it blindly: read the current e911 record first (Number > Get e911), then repair what is missing.',
				'e911.not_enabled':
					'NANPA numbering is not enabled on this account; ask the supplier to enable it.',
				'e911.not_found': 'The number is not allocated to this account.',
			};
			return {
				message: `The Wholesale Voice API refused the e911 request (${failure.status}): ${text}`,
				description:
					(advice[e911.code ?? ''] ??
						(E911_RETRYABLE.has(e911.code ?? '')
							? 'The e911 service is temporarily unavailable; the request was retried within its budget. Try again later.'
							: 'Correct the field named and send again.')) + e911Suggestions(failure.json),
				code: e911.code,
				field: e911.field ?? null,
			};
		}
		return standardFailure('Wholesale Voice API', failure, {
			401: 'Check the API username and password of the Wholesale Voice API credential; they are the API credentials, not the portal login.',
			403: 'These API credentials may not access this account. Check the Account ID of the credential.',
		});
	},
};

/** The scope a request needs, from the service in its path and its method. */
export function requiredScope(method: string, path: string): string | undefined {
	const service = /\/(convai|intelligence)\/v\d+\//.exec(path)?.[1];
	if (!service) return undefined;
	const action = method === 'GET' ? 'read' : method === 'DELETE' ? 'delete' : 'write';
	return `${service}:${action}`;
}

export const platformApi: ApiDefinition = {
	credentialType: 'platformApiKeyApi',
	label: 'Platform API',
	secretForms: (c) => secretForms([String(c.apiKey ?? '').trim()]),
	checkCredentials: (c) => apiKeyProblem(c.apiKey),
	credentialTest: {
		path: '/convai/v1/webhooks',
		authorization: (c) => bearerAuthorization(c.apiKey),
		refused: {
			401: 'The API key was refused (401): it was revoked or mistyped. Create a new key in the customer portal.',
			403: 'Both services refuse the API key for lack of a scope (403): give it convai:read, intelligence:read and the other scopes the nodes use (convai:write, convai:delete, intelligence:write).',
			404: "Nothing at this Base URL (404): use the services' root URL, without /convai/v1.",
		},
		// The spec's one intelligence read is a session's stream token: a made-up session is looked up (404) only after the key passed.
		services: [
			{ name: 'Voice Agent', path: '/convai/v1/webhooks', scope: 'convai:read' },
			{
				name: 'Conversation Intelligence',
				path: '/intelligence/v1/sessions/credential-test/stream-token',
				scope: 'intelligence:read',
				accepted: [404],
			},
		],
	},
	describeFailure: (failure) => {
		const scope = requiredScope(failure.method, failure.path);
		const described = standardFailure('Platform API', failure, {
			401: 'The API key is unknown or revoked. Create a new key in the customer portal and update the Voice Agent and Conversation Intelligence API credential.',
			403: scope
				? `The API key lacks the scope ${scope} needed for ${failure.method} ${failure.path}. Add the scope to the key in the customer portal.`
				: 'The API key lacks a scope this request needs.',
		});
		if (failure.status === 403 && scope) {
			described.message = `The API key lacks the scope ${scope} (403)${described.message.replace(/^[^:]*/, '')}`;
		}
		return described;
	},
};

/** The Platform API for requests that send secrets of their own (a webhook's headers): a failure may echo them, so they are redacted too. */
export function platformApiRedacting(secrets: Array<string | undefined>): ApiDefinition {
	return {
		...platformApi,
		secretForms: (c) => secretForms([String(c.apiKey ?? '').trim(), ...secrets]),
	};
}
