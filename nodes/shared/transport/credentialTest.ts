import type { ICredentialTestFunction, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';

import { hostedPbxApi, platformApi, wholesaleVoiceApi } from '../apis';
import { redact } from '../redaction';
import { deadline } from '../timers';
import type { RawResponse } from './body';
import { destroyBody, lowerCaseHeaders, raceAbort } from './body';
import type { ApiDefinition, Connection } from './client';
import { connectionOf } from './client';
import { isTimeout, networkFailure } from './failures';
import { fillPath, joinUrl } from './urls';

/** Each credential's Test, for `methods.credentialTest` of the nodes that name it in `testedBy`. */
export const hostedPbxCredentialTest = { hostedPbxApiTest: credentialTestOf(hostedPbxApi) };
export const wholesaleVoiceCredentialTest = { wholesaleVoiceApiTest: credentialTestOf(wholesaleVoiceApi) };
export const platformCredentialTest = { platformApiKeyApiTest: credentialTestOf(platformApi) };

/**
 * The Test button of an API's credential (n8n asks the nodes when a credential has no `test`): it refuses what
 * the nodes refuse, follows no redirect, and words every outcome (a declarative test shows only a bare code).
 */
export function credentialTestOf(api: ApiDefinition): ICredentialTestFunction {
	return async function (this: ICredentialTestFunctions, credential): Promise<INodeCredentialTestResult> {
		const values = credential.data ?? {};
		const connection = connectionOf(api, values);
		if (typeof connection === 'string') return { status: 'Error', message: connection };
		const { path, qs, authorization } = api.credentialTest;
		const filled = fillPath(path, {}, connection.variables);
		const uri = joinUrl(connection.base, 'path' in filled ? filled.path : path);
		const limit = deadline(connection.timeoutMs, () => new Error('timed out'));
		// The credential-test context offers only this request helper, in n8n 1.x and 2.x alike.
		const { helpers } = this;
		try {
			const headers = { Accept: 'application/json', Authorization: authorization(values) };
			const options = { method: 'GET', uri, qs, headers, simple: false, resolveWithFullResponse: true, followRedirect: false, useStream: true, timeout: connection.timeoutMs };
			const response = await raceAbort(helpers.request(options) as Promise<RawResponse>, limit.signal);
			// Only the status counts: the body is never read.
			destroyBody(response.body);
			return verdict(api, connection, response, uri);
		} catch (error) {
			return { status: 'Error', message: redact(failureText(api, connection, error), connection.forms) };
		} finally {
			limit.done();
		}
	};
}

function verdict(api: ApiDefinition, connection: Connection, response: RawResponse, uri: string): INodeCredentialTestResult {
	const status = response.statusCode;
	const at = `The ${api.label} at ${connection.hostPort}`;
	if (status >= 200 && status < 300) return { status: 'OK', message: `${at} accepted the credential` };
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

function failureText(api: ApiDefinition, connection: Connection, error: unknown): string {
	if (isTimeout(error)) {
		return `The ${api.label} at ${connection.hostPort} did not answer the test request within ${connection.timeoutMs / 1000} s (timed out). Check that the Base URL's host and port are the service's`;
	}
	const { reason, check, code } = networkFailure(error);
	return `Could not reach the ${api.label} at ${connection.hostPort}: ${reason}. ${check}.${code ? ` Code: ${code}` : ''}`;
}
