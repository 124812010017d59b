/**
 * Starts what every UI test file uses, once per jest run: the sandbox (in this process, on
 * 127.0.0.1) and a real n8n (the built package loaded as a community package, see
 * test/e2e/harness.ts) with the sandbox credentials imported and an owner set up. Writes where
 * they are to test-results/ui/session.json; globalTeardown.ts stops them.
 */
import * as fs from 'node:fs';

import { startSandbox, type Sandbox } from '../../sandbox/index';
import { DEFAULT_OWNER, N8nInstance, type CredentialImport } from '../e2e/harness';
import { SandboxAdmin, sandboxCredentials, wholesaleCredentials } from '../e2e/sandboxAdmin';
import { IMAGES_MANIFEST, RESULTS_DIR, STATE_FILE, type UiState } from './support/session';

export interface UiGlobals {
	sandbox: Sandbox;
	n8n: N8nInstance;
	started: number;
}

export default async function globalSetup(): Promise<void> {
	const started = Date.now();
	fs.mkdirSync(RESULTS_DIR, { recursive: true });
	fs.rmSync(IMAGES_MANIFEST, { force: true });
	const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
	const admin = new SandboxAdmin(sandbox.url);
	// Many list loads and executions in one run: lift the PBX's 1,200 requests/hour limit.
	await admin.post('/pbx/settings', { rateLimit: 1_000_000, smsDelayMs: 50 });
	// The credentials the recipes name (examples/sandbox-credentials.json and the wholesale ones).
	const byId = new Map<string, CredentialImport>();
	for (const c of [...sandboxCredentials(sandbox.url), ...wholesaleCredentials(sandbox.url)]) byId.set(c.id, c);
	const credentials = [...byId.values()];

	const n8n = await N8nInstance.create();
	try {
		await n8n.importCredentials(credentials);
		await n8n.start();
		await n8n.setupOwner();
	} catch (e) {
		await n8n.dispose();
		await sandbox.close();
		throw e;
	}
	const state: UiState = {
		n8nUrl: n8n.baseUrl,
		n8nVersion: n8n.n8nVersion,
		sandboxUrl: sandbox.url,
		owner: { email: DEFAULT_OWNER.email, password: DEFAULT_OWNER.password },
		credentials: Object.fromEntries(credentials.map((c) => [c.type, { id: c.id, name: c.name }])),
		credentialValues: Object.fromEntries(credentials.map((c) => [c.type, c.data])),
		startedAt: new Date().toISOString(),
	};
	fs.writeFileSync(STATE_FILE, JSON.stringify(state, null, 2));
	(globalThis as unknown as { __telephonyUi?: UiGlobals }).__telephonyUi = { sandbox, n8n, started };
	console.log(`\n[test:ui] n8n ${n8n.n8nVersion} at ${n8n.baseUrl}, sandbox at ${sandbox.url} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
