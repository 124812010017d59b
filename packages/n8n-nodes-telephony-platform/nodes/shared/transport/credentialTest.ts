import type {
	ICredentialTestFunction,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { hostedPbxApi, platformApi, wholesaleVoiceApi } from '../apis';
import { redact } from '../redaction';
import { deadline } from '../timers';
import type { RawResponse } from './body';
import { destroyBody, lowerCaseHeaders, raceAbort } from './body';
import type { ApiDefinition, Connection, CredentialService } from './client';
import { connectionOf } from './client';
import { isTimeout, networkFailure } from './failures';
import { fillPath, joinUrl } from './urls';

/** Each credential's Test, for `methods.credentialTest` of the nodes that name it in `testedBy`. */
export const hostedPbxCredentialTest = { hostedPbxApiTest: credentialTestOf(hostedPbxApi) };
export const wholesaleVoiceCredentialTest = {
	wholesaleVoiceApiTest: credentialTestOf(wholesaleVoiceApi),
};
export const platformCredentialTest = { platformApiKeyApiTest: credentialTestOf(platformApi) };

/**
 * The Test button of an API's credential (n8n asks the nodes when a credential has no `test`): it refuses what
 * the nodes refuse, follows no redirect, and words every outcome (a declarative test shows only a bare code).
 */
export function credentialTestOf(api: ApiDefinition): ICredentialTestFunction {
	return async function (
		this: ICredentialTestFunctions,
		credential,
	): Promise<INodeCredentialTestResult> {
		const values = credential.data ?? {};
		const connection = connectionOf(api, values);
		if (typeof connection === 'string') return { status: 'Error', message: connection };
		const { path, qs, authorization, services } = api.credentialTest;
		const limit = deadline(connection.timeoutMs, () => new Error('timed out'));
		// The credential-test context offers only this request helper, in n8n 1.x and 2.x alike.
		const { helpers } = this;
		const ask = async (servicePath: string): Promise<Answer> => {
			const filled = fillPath(servicePath, {}, connection.variables);
			const uri = joinUrl(connection.base, 'path' in filled ? filled.path : servicePath);
			const headers = { Accept: 'application/json', Authorization: authorization(values) };
			const options = {
				method: 'GET',
				uri,
				qs,
				headers,
				simple: false,
				resolveWithFullResponse: true,
				followRedirect: false,
				useStream: true,
				timeout: connection.timeoutMs,
			};
			const response = await raceAbort(
				helpers.request(options) as Promise<RawResponse>,
				limit.signal,
			);
			// Only the status counts: the body is never read.
			destroyBody(response.body);
			return { response, uri };
		};
		try {
			const first = await ask(path);
			const status = first.response.statusCode;
			// n8n cannot say which node the credential is for: a key one service refuses fails, naming it.
			if (!services || !(isSuccess(status) || status === 403))
				return verdict(api, connection, first.response, first.uri);
			const answers: ServiceAnswer[] = [{ service: services[0], ...first }];
			for (const service of services.slice(1))
				answers.push({ service, ...(await ask(service.path)) });
			return servicesVerdict(api, connection, answers);
		} catch (error) {
			return {
				status: 'Error',
				message: redact(failureText(api, connection, error), connection.forms),
			};
		} finally {
			limit.done();
		}
	};
}

interface Answer {
	response: RawResponse;
	uri: string;
}

interface ServiceAnswer extends Answer {
	service: CredentialService;
}

const isSuccess = (status: number) => status >= 200 && status < 300;

function verdict(
	api: ApiDefinition,
	connection: Connection,
	response: RawResponse,
	uri: string,
): INodeCredentialTestResult {
	const status = response.statusCode;
	const at = `The ${api.label} at ${connection.hostPort}`;
	if (isSuccess(status)) return { status: 'OK', message: `${at} accepted the credential` };
	const refused = api.credentialTest.refused[status as 401 | 403 | 404] as string | undefined;
	if (refused) return { status: 'Error', message: refused };
	const location = lowerCaseHeaders(response.headers).location ?? '';
	const to = URL.canParse(location, uri) ? ` to ${new URL(location, uri).origin}` : '';
	const message =
		status >= 300 && status < 400
			? `${at} answered the test request with a redirect (${status})${to}, which the nodes never follow: use the address it leads to as the Base URL`
			: `${at} answered the test request (GET ${new URL(uri).pathname}) with ${status}${status >= 500 ? ': the service is failing; try again later' : ''}`;
	return { status: 'Error', message: redact(message, connection.forms) };
}

/** One credential, several services: OK only when every service accepts it; otherwise which ones do, and what the others lack. */
function servicesVerdict(
	api: ApiDefinition,
	connection: Connection,
	answers: ServiceAnswer[],
): INodeCredentialTestResult {
	const accepts = (a: ServiceAnswer) =>
		isSuccess(a.response.statusCode) || !!a.service.accepted?.includes(a.response.statusCode);
	const other = answers.find((a) => !accepts(a) && a.response.statusCode !== 403);
	if (other) return verdict(api, connection, other.response, other.uri);
	const names = (list: ServiceAnswer[]) => list.map((a) => a.service.name).join(' and ');
	const accepted = answers.filter(accepts);
	const lacking = answers.filter((a) => !accepts(a));
	if (lacking.length === 0)
		return {
			status: 'OK',
			message: `The ${api.label} at ${connection.hostPort} accepted the key for ${names(accepted)}`,
		};
	if (accepted.length === 0) return { status: 'Error', message: api.credentialTest.refused[403] };
	const scopes = lacking.map((a) => a.service.scope).join(', ');
	const message =
		`The API key works for ${names(accepted)} only: ${names(lacking)} refuses it (403, it lacks the scope ${scopes}). ` +
		`Add ${scopes} and the other ${lacking.map((a) => a.service.scope.split(':')[0]).join(', ')} scopes its nodes use to the key in the customer portal, ` +
		`or use this credential with the ${names(accepted)} nodes only`;
	return { status: 'Error', message };
}

function failureText(api: ApiDefinition, connection: Connection, error: unknown): string {
	if (isTimeout(error)) {
		return `The ${api.label} at ${connection.hostPort} did not answer the test request within ${connection.timeoutMs / 1000} s (timed out). Check that the Base URL's host and port are the service's`;
	}
	const { reason, check, code } = networkFailure(error);
	return `Could not reach the ${api.label} at ${connection.hostPort}: ${reason}. ${check}.${code ? ` Code: ${code}` : ''}`;
}
