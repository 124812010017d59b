import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { apiKeyProblem } from '../../credentials/PlatformApiKeyApi.credentials';
import { accountIdProblem } from '../../credentials/WholesaleVoiceApi.credentials';
import type { ApiFailure } from './errors';
import { errorTextFromBody } from './errors';
import { basicSecretForms, secretForms } from './redaction';
import type { ApiDefinition, FailedResponse } from './transport/client';

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
	const first =
		headline[failure.status] ??
		(failure.status >= 500
			? `The ${label} had a server error`
			: failure.status < 300
				? `The ${label} refused the request`
				: `The ${label} refused ${where}`);
	return {
		message: `${first} (${failure.status})${text ? `: ${text}` : ''}`,
		description: hints[failure.status] ?? `Request: ${where}`,
	};
}

export const hostedPbxApi: ApiDefinition = {
	credentialType: 'hostedPbxApi',
	label: 'Hosted PBX API',
	secretForms: (c) => basicSecretForms(c.username as string, c.password as string),
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
	const { correctedAddress, candidateAddresses } = data as { correctedAddress?: unknown; candidateAddresses?: unknown };
	const parts = [
		...(correctedAddress && typeof correctedAddress === 'object' ? [`corrected address ${JSON.stringify(correctedAddress)}`] : []),
		...(Array.isArray(candidateAddresses) && candidateAddresses.length ? [`${candidateAddresses.length} candidate address(es): ${JSON.stringify(candidateAddresses)}`] : []),
	];
	const text = parts.join('; ');
	return text ? ` The service suggests: ${text.length > 600 ? `${text.slice(0, 600)}…` : text}.` : '';
}

export const wholesaleVoiceApi: ApiDefinition = {
	credentialType: 'wholesaleVoiceApi',
	label: 'Wholesale Voice API',
	secretForms: (c) => basicSecretForms(c.apiUsername as string, c.apiPassword as string),
	checkCredentials: (c) => accountIdProblem(c.accountId),
	pathVariables: (c: ICredentialDataDecryptedObject) => ({ ACCOUNT: String(c.accountId).trim() }),
	isRetryable: (failure) => E911_RETRYABLE.has(e911Error(failure)?.code ?? ''),
	// Some failures come with a 200 status: `{success: false, errors: [...]}`.
	failedBody: (body) => body !== null && typeof body === 'object' && (body as { success?: unknown }).success === false,
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
				'e911.not_enabled': 'NANPA numbering is not enabled on this account; ask the supplier to enable it.',
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

/**
 * The Platform API for requests that send secrets of their own (a webhook's `request_headers`):
 * those values are redacted like the API key from every error of the client made with it, since
 * a failure answer may echo the request.
 */
export function platformApiRedacting(secrets: Array<string | undefined>): ApiDefinition {
	return { ...platformApi, secretForms: (c) => secretForms([String(c.apiKey ?? '').trim(), ...secrets]) };
}
