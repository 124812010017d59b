/**
 * A request that cannot reach the API names the host and port it tried and what to check, never
 * only a code: a closed port, an unknown host, a Base URL without a scheme, TLS failures, a server
 * that never answers. Real servers and ports on 127.0.0.1, through n8n's execution of a node; the
 * unknown host is under .invalid, which no DNS resolves.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { INode, INodeParameters, INodeType } from 'n8n-workflow';

import { HostedPbx } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { VoiceAgent } from '../../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { WholesaleVoice } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { networkError } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/failures';
import { secretForms } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/redaction';
import { runNode } from '../../harness/n8n';
import type { TlsFault } from '../../harness/tlsServers';
import { closedPort, startTlsServer, trustTestAuthority } from '../../harness/tlsServers';
import { startTestServer } from '../../harness/testServer';

const getCustomer = { resource: 'customer', operation: 'get', customerId: { __rl: true, mode: 'id', value: 'me' } };

async function runPbx(baseUrl: string, extra: object = {}) {
	const run = await runNode({ node: new HostedPbx(), parameters: getCustomer, credentials: { hostedPbxApi: { baseUrl, username: 'u', password: 'p-123456789', ...extra } } });
	const error = run.error as { message: string; description?: string | null; failure?: { cause: string } };
	// n8n shows its own generic text instead of a message naming a code: the code is only in the description.
	expect(error.message).not.toMatch(/\b(E[A-Z_]{3,}|[A-Z_]*CERT[A-Z_]*)\b/);
	return error;
}

test('a closed port: refused, at that host and port; check the port', async () => {
	const port = await closedPort();
	const error = await runPbx(`http://127.0.0.1:${port}/api/v1`);
	expect(error.message).toBe(`Could not reach the Hosted PBX API at 127.0.0.1:${port} for GET /api/v1/customers/me: nothing accepts connections on that port (connection refused)`);
	expect(error.description).toBe('Check the port in the Base URL, and that the service runs and listens on it. Code: ECONNREFUSED');
	expect(error.failure).toEqual({ cause: 'temporarily-unavailable' });
});

test('every node says the same: the Wholesale Voice and Platform nodes too', async () => {
	const port = await closedPort();
	const nodes: Array<[INodeType, INodeParameters, string, object]> = [
		[new WholesaleVoice(), { resource: 'account', operation: 'getType' }, 'wholesaleVoiceApi', { apiUsername: 'u', apiPassword: 'p-123456789', accountId: '123456' }],
		[new VoiceAgent(), { resource: 'webhook', operation: 'get', webhookId: 'wh_1' }, 'platformApiKeyApi', { apiKey: `tpk_${'ab12'.repeat(12)}` }],
	];
	for (const [node, parameters, type, values] of nodes) {
		const run = await runNode({ node, parameters, credentials: { [type]: { baseUrl: `http://127.0.0.1:${port}`, ...values } } });
		expect(run.error?.message).toMatch(new RegExp(`^Could not reach the .+ at 127\\.0\\.0\\.1:${port} for GET /.+: nothing accepts connections on that port \\(connection refused\\)$`));
	}
});

test('an unknown host: no such host name; check its spelling', async () => {
	const error = await runPbx('https://no-such-pbx.invalid/api/v1');
	expect(error.message).toMatch(/^Could not reach the Hosted PBX API at no-such-pbx\.invalid:443 for GET \/api\/v1\/customers\/me: (no such host name \(DNS found none\)|the host name could not be looked up \(DNS did not answer\))$/);
	expect(error.description).toMatch(/^Check the (spelling of the )?host in the Base URL.*Code: (ENOTFOUND|EAI_AGAIN)$/);
});

test('a Base URL without a scheme, or with another one: refused before sending, naming the host and the fix', async () => {
	const server = await startTestServer();
	const hostPort = server.url.replace('http://', '');
	try {
		const error = await runPbx(`${hostPort}/api/v1`);
		expect(error.message).toBe(`The Base URL of the Hosted PBX API credential has no scheme: write https://${hostPort} (or http:// for a server without TLS), then the path the API lives under`);
		expect(error.description).toMatch(/Nothing was sent/);
		expect((await runPbx(`ftp://${hostPort}/api/v1`)).message).toBe(
			`The Base URL of the Hosted PBX API credential starts with ftp://: the nodes speak https:// (or http:// to a server without TLS), as in https://${hostPort}`,
		);
		expect((await runPbx(`https://pbx .example.com/api/v1`)).message).toMatch(/is not a valid web address \(host pbx \.example\.com\): check it for spaces/);
		expect(server.requests).toHaveLength(0);
	} finally {
		await server.close();
	}
});

describe('TLS', () => {
	const cases: Array<[TlsFault, string, string, string]> = [
		['self-signed', "the server's TLS certificate is self-signed", 'NODE_EXTRA_CA_CERTS', 'DEPTH_ZERO_SELF_SIGNED_CERT'],
		['untrusted authority', "the server's TLS certificate comes from an authority n8n does not trust", 'NODE_EXTRA_CA_CERTS', 'SELF_SIGNED_CERT_IN_CHAIN'],
		['no intermediate', "the server's TLS certificate comes from an authority n8n does not know", 'intermediate certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
	];
	test.each(cases)('%s: says so, and what to do', async (fault, reason, advice, code) => {
		const server = await startTlsServer(fault);
		try {
			const error = await runPbx(`${server.url}/api/v1`);
			expect(error.message).toBe(`Could not reach the Hosted PBX API at ${server.hostPort} for GET /api/v1/customers/me: ${reason}`);
			expect(error.description).toContain(advice);
			expect(error.description).toMatch(new RegExp(`Code: ${code}$`));
			expect(error.failure).toEqual({ cause: 'configuration-invalid' });
		} finally {
			await server.close();
		}
	});

	test.each([
		['expired', "the server's TLS certificate has expired", 'renew it', 'CERT_HAS_EXPIRED'],
		['another host', "the server's TLS certificate is for another host name", 'host name the certificate is for', 'ERR_TLS_CERT_ALTNAME_INVALID'],
	] as Array<[TlsFault, string, string, string]>)('behind a trusted authority, %s: says so', async (fault, reason, advice, code) => {
		const server = await startTlsServer(fault);
		const untrust = trustTestAuthority();
		try {
			const error = await runPbx(`${server.url}/api/v1`);
			expect(error.message).toBe(`Could not reach the Hosted PBX API at ${server.hostPort} for GET /api/v1/customers/me: ${reason}`);
			expect(error.description).toContain(advice);
			expect(error.description).toMatch(new RegExp(`Code: ${code}$`));
		} finally {
			untrust();
			await server.close();
		}
	});

	test('https:// to a port without TLS: the server does not speak TLS there; check the scheme', async () => {
		const server = await startTestServer();
		try {
			const hostPort = server.url.replace('http://', '');
			const error = await runPbx(`https://${hostPort}/api/v1`);
			expect(error.message).toBe(`Could not reach the Hosted PBX API at ${hostPort} for GET /api/v1/customers/me: the server does not speak TLS on that port (wrong version number)`);
			expect(error.description).toMatch(/^Check the Base URL's scheme: https:\/\/ where the server speaks TLS on that port, http:\/\/ where it does not\. Code: EPROTO$/);
		} finally {
			await server.close();
		}
	});

	test('http:// to a TLS port: the connection closes without an answer; check the scheme', async () => {
		const server = await startTlsServer('no intermediate');
		try {
			const error = await runPbx(`http://${server.hostPort}/api/v1`);
			expect(error.message).toBe(`Could not reach the Hosted PBX API at ${server.hostPort} for GET /api/v1/customers/me: the connection was closed without an answer (connection reset)`);
			expect(error.description).toMatch(/^Check the Base URL's scheme: https:\/\/ where the server speaks TLS .*Code: ECONNRESET$/);
		} finally {
			await server.close();
		}
	});
});

test('a server that never answers: timed out, at that host and port', async () => {
	const server = createServer(() => undefined);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
	try {
		const error = await runPbx(`http://${hostPort}/api/v1`, { timeout: 1 });
		expect(error.message).toBe(`The Hosted PBX API at ${hostPort} did not answer GET /api/v1/customers/me within 1 s (timed out)`);
		expect(error.description).toMatch(/Check that the Base URL's host and port are the service's/);
		expect(error.failure).toEqual({ cause: 'temporarily-unavailable' });
	} finally {
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
});

test('a host name that holds a code (econnrefused.example) is still named, not swapped for n8n\'s generic text', () => {
	const error = networkError({ name: 'n' } as INode, 'Hosted PBX API', 'econnrefused.example:443', 'GET /x', { code: 'ECONNREFUSED' }, secretForms([]));
	expect(error.message).toBe('Could not reach the Hosted PBX API at econnrefused.example:443 for GET /x: nothing accepts connections on that port (connection refused)');
});
