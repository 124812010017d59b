/**
 * HTTPS servers on 127.0.0.1 with the certificate faults users meet, from test/fixtures/tls (made by
 * its make.sh), and the test authority made trusted in this process for the faults that show only
 * behind a trusted chain (an expired certificate, one for another host).
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import tls = require('node:tls');

const pem = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'tls', name), 'utf8');

const CHAINS = {
	'self-signed': ['self.pem'],
	'untrusted authority': ['leaf.pem', 'ca.pem'],
	'no intermediate': ['leaf.pem'],
	expired: ['expired.pem', 'ca.pem'],
	'another host': ['other.pem', 'ca.pem'],
};
export type TlsFault = keyof typeof CHAINS;

export async function startTlsServer(fault: TlsFault): Promise<{ url: string; hostPort: string; close: () => Promise<void> }> {
	const server = createServer({ key: pem('server.key'), cert: CHAINS[fault].map(pem).join('') }, (_req: IncomingMessage, res: ServerResponse) => res.end('{}'));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
	return { url: `https://${hostPort}`, hostPort, close: async () => await new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Trusts the test authority in this process, as NODE_EXTRA_CA_CERTS would, until the returned function runs. */
export function trustTestAuthority(): () => void {
	const original = tls.createSecureContext;
	tls.createSecureContext = (options) => original({ ...options, ca: [...tls.rootCertificates, pem('ca.pem')] });
	return () => {
		tls.createSecureContext = original;
	};
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}
