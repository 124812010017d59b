/**
 * The package installed the way users install it: Settings > Community Nodes > Install, which has
 * n8n run npm against a registry. The built package is packed (`npm pack`, as the publish workflow
 * does), published to a real npm registry on loopback (verdaccio, scripts/n8n/registry.mjs), and
 * n8n, pointed at it with N8N_COMMUNITY_PACKAGES_REGISTRY, installs it through its own
 * community-packages endpoint; a workflow with its nodes then runs against the sandbox. A newer
 * version published to the same registry updates it through the same endpoint, which then
 * uninstalls it. A tarball without a file the nodes need does not install.
 *
 * n8n starts with an empty nodes folder, as a new user's does. n8n allows another registry than
 * the public one only with an enterprise licence feature (`feat:communityNodes:customRegistry`):
 * n8n's own end-to-end mode (E2E_TESTS=true, its `/rest/e2e/feature` switch) turns that one
 * feature on; everything else is what a user's n8n does. npm, run by n8n, drops the package's
 * peer dependency (n8n-workflow) before `npm install`, so the registry serves this package only.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

import { startSandbox, type Sandbox } from '../../sandbox/index';
import { N8nInstance, REPO_ROOT, guardProcessGroup, httpRequest, killGroup, provision, releaseProcessGroup, type RestClient } from './harness';
import { SandboxAdmin, sandboxCredentials } from './sandboxAdmin';

const REGISTRY_SCRIPT = path.join(REPO_ROOT, 'scripts', 'n8n', 'registry.mjs');
/** A module every node of the package imports (the field builders): a tarball without it must not install. */
const NEEDED_FILE = 'dist/nodes/shared/fields.js';
const CUSTOM_REGISTRY_FEATURE = 'feat:communityNodes:customRegistry';

interface Packed {
	tarball: string;
	name: string;
	version: string;
	files: string[];
}

interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	installedNodes: Array<{ name: string; type: string; latestVersion: number }>;
	updateAvailable?: string;
}

/** Runs scripts/n8n/registry.mjs to completion; its stdout. */
async function registryScript(args: string[]): Promise<string> {
	try {
		const { stdout } = await promisify(execFile)(process.execPath, [REGISTRY_SCRIPT, ...args], { encoding: 'utf8', timeout: 5 * 60_000 });
		return stdout;
	} catch (e) {
		const err = e as Error & { stderr?: string };
		throw new Error(`registry.mjs ${args[0]} failed: ${err.message}\n${(err.stderr ?? '').slice(-3000)}`);
	}
}

const pack = async (out: string, ...extra: string[]): Promise<Packed> => JSON.parse(await registryScript(['pack', '--out', out, ...extra])) as Packed;

/** The next patch version: 0.1.0 -> 0.1.1 (a prerelease part is dropped). */
function nextPatch(version: string, by = 1): string {
	const [major, minor, patch] = version.split(/[.+-]/).map(Number);
	return `${major}.${minor}.${patch + by}`;
}

/** verdaccio on loopback, in its own process group under the harness's watchdog. */
class Registry {
	private constructor(
		private readonly child: ChildProcess,
		private readonly exited: Promise<void>,
		readonly url: string,
	) {}

	static async start(nodeBin: string): Promise<Registry> {
		const child = spawn(process.execPath, [REGISTRY_SCRIPT, 'serve', '--node', nodeBin], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
		const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
		let stderr = '';
		child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
		guardProcessGroup(child.pid!);
		const ready = await new Promise<{ url: string; dir: string }>((resolve, reject) => {
			let out = '';
			const timer = setTimeout(() => reject(new Error(`the registry did not start within 120 s\n${stderr}`)), 120_000);
			child.stdout!.setEncoding('utf8').on('data', (d: string) => {
				out += d;
				if (!out.includes('\n')) return;
				clearTimeout(timer);
				resolve(JSON.parse(out.split('\n')[0]) as { url: string; dir: string });
			});
			void exited.then(() => reject(new Error(`the registry exited before it was ready\n${stderr}`)));
		});
		// A second watchdog for the same group removes its storage should this process die.
		guardProcessGroup(child.pid!, ready.dir);
		return new Registry(child, exited, ready.url);
	}

	async publish(packed: Packed): Promise<void> {
		await registryScript(['publish', '--registry', this.url, packed.tarball]);
	}

	async stop(): Promise<void> {
		killGroup(this.child.pid!, 'SIGTERM');
		await this.exited;
		releaseProcessGroup(this.child.pid!);
	}
}

describe(`installed from a registry through n8n's community-packages endpoint (target ${process.env.TELEPHONY_N8N_TARGET ?? '2'})`, () => {
	const fileStarted = Date.now();
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-community-install-'));
	let sandbox: Sandbox;
	let admin: SandboxAdmin;
	let registry: Registry;
	let n8n: N8nInstance;
	let rest: RestClient;
	let first: Packed;
	let newer: Packed;
	let broken: Packed;
	let workflowId: string;
	const hookPath = `community-install-${randomUUID().slice(0, 8)}`;

	const nodesDir = () => path.join(n8n.userFolder, '.n8n', 'nodes');
	const installedDir = () => path.join(nodesDir(), 'node_modules', first.name);
	const ledger = () => JSON.parse(fs.readFileSync(path.join(nodesDir(), 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

	/**
	 * The package's node types in the editor's list, read until `settled` holds (at most 30 s): n8n
	 * writes the list again after an install or uninstall, and 1.x may answer while it writes
	 * (cut JSON), which counts as no list at all.
	 */
	async function ourTypes(settled: (types: string[]) => boolean): Promise<string[] | undefined> {
		let types: string[] | undefined;
		for (const giveUpAt = Date.now() + 30_000; Date.now() < giveUpAt; await new Promise((resolve) => setTimeout(resolve, 500))) {
			const answer = await rest.get<unknown>('/types/nodes.json');
			types = Array.isArray(answer) ? answer.map((n: { name: string }) => n.name).filter((n) => n.startsWith(`${first.name}.`)) : undefined;
			if (types && settled(types)) break;
		}
		return types;
	}

	/** Calls the recipe's webhook: the Hosted PBX node reads the customer from the sandbox. */
	async function runRecipe(): Promise<{ status: number; body: any; requests: number }> {
		const since = await admin.lastSeq();
		const res = await n8n.waitForWebhook(hookPath, { method: 'POST', body: {} });
		const log = await admin.requests({ api: 'pbx', since });
		expect(log.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([['GET', '/api/v1/customers/me', 'Basic ***']]);
		return { status: res.status, body: res.body, requests: log.length };
	}

	beforeAll(async () => {
		const provisioned = provision();
		const packs = path.join(work, 'packs');
		// Version X as built, X+1 as a later release, X+2 without a file the nodes need.
		first = await pack(packs);
		[newer, broken, sandbox, registry] = await Promise.all([
			pack(packs, '--version', nextPatch(first.version)),
			pack(packs, '--version', nextPatch(first.version, 2), '--drop', NEEDED_FILE),
			startSandbox({ port: 0, host: '127.0.0.1' }),
			Registry.start(provisioned.nodeBin),
		]);
		admin = new SandboxAdmin(sandbox.url);
		await registry.publish(first);
		n8n = await N8nInstance.create({
			env: {
				N8N_COMMUNITY_PACKAGES_REGISTRY: registry.url,
				// A cache of this run's own: never a tarball of the same name and version from an earlier run.
				npm_config_cache: path.join(work, 'npm-cache'),
				E2E_TESTS: 'true',
			},
		});
		// The harness puts the built package into the nodes folder; a new user's n8n has none.
		fs.rmSync(nodesDir(), { recursive: true, force: true });
		// The update badge comes from `npm outdated`, which n8n runs in the nodes folder without
		// naming a registry (1.x also with a bare environment): the folder's .npmrc names it, as
		// for any private registry. Without it npm asks the public registry (a minute's retries here).
		fs.mkdirSync(nodesDir(), { recursive: true });
		fs.writeFileSync(path.join(nodesDir(), '.npmrc'), `registry=${registry.url}/\n`);
		await n8n.start();
		rest = await n8n.setupOwner();
		await rest.patch('/rest/e2e/feature', { feature: CUSTOM_REGISTRY_FEATURE, enabled: true });
	});

	afterAll(async () => {
		await n8n?.dispose();
		await registry?.stop();
		await sandbox?.close();
		fs.rmSync(work, { recursive: true, force: true });
		console.log(`community install suite: ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`);
	});

	test('the tarballs: the release as built, the same files under a newer version, one without a module the nodes need', () => {
		const tarred = new Set(first.files);
		expect(tarred.has('package.json')).toBe(true);
		expect(tarred.has(NEEDED_FILE)).toBe(true);
		expect(broken.files).not.toContain(NEEDED_FILE);
		expect([...new Set(newer.files)].sort()).toEqual([...tarred].sort());
	});

	test('Install (POST /rest/community-packages) fetches it from the registry and loads every node', async () => {
		const t0 = Date.now();
		const installed = await rest.post<InstalledPackage>('/rest/community-packages', { name: first.name });
		console.log(`installed ${first.name}@${first.version} in ${Date.now() - t0} ms`);
		expect(installed.packageName).toBe(first.name);
		expect(installed.installedVersion).toBe(first.version);
		const pkg = JSON.parse(fs.readFileSync(path.join(installedDir(), 'package.json'), 'utf8')) as { version: string; n8n: { nodes: string[] }; peerDependencies?: unknown };
		expect(pkg.version).toBe(first.version);
		// n8n drops the peer dependency before `npm install`: nothing else came from the registry.
		expect(pkg.peerDependencies).toBeUndefined();
		expect(fs.existsSync(path.join(installedDir(), 'node_modules'))).toBe(false);
		expect(ledger().dependencies).toEqual({ [first.name]: first.version });

		const types = installed.installedNodes.map((n) => n.type).sort();
		expect(types).toHaveLength(pkg.n8n.nodes.length);
		expect(types).toContain(`${first.name}.hostedPbx`);
		const withoutTools = (names: string[]) => names.filter((t) => !t.endsWith('Tool')).sort();
		const inEditor = await ourTypes((now) => JSON.stringify(withoutTools(now)) === JSON.stringify(types));
		expect(withoutTools(inEditor ?? [])).toEqual(types);
		const listed = await rest.get<InstalledPackage[]>('/rest/community-packages');
		expect(listed.map((p) => [p.packageName, p.installedVersion])).toEqual([[first.name, first.version]]);
	});

	test('a workflow with its nodes runs: Webhook -> Hosted PBX -> answer, against the sandbox', async () => {
		const credential = sandboxCredentials(sandbox.url).find((c) => c.type === 'hostedPbxApi')!;
		const created = await rest.post<{ id: string }>('/rest/credentials', { name: credential.name, type: credential.type, data: credential.data });
		const workflow = await rest.post<{ id: string }>('/rest/workflows', {
			name: 'e2e: installed from the registry',
			active: false,
			settings: { executionOrder: 'v1' },
			nodes: [
				{
					id: 'ci-hook',
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path: hookPath, responseMode: 'lastNode', options: {} },
				},
				{
					id: 'ci-pbx',
					name: 'Hosted PBX',
					type: `${first.name}.hostedPbx`,
					typeVersion: 1,
					position: [240, 0],
					parameters: { resource: 'customer', operation: 'get', customerId: { __rl: true, mode: 'id', value: 'me' } },
					credentials: { hostedPbxApi: { id: created.id, name: credential.name } },
				},
			],
			connections: { Webhook: { main: [[{ node: 'Hosted PBX', type: 'main', index: 0 }]] } },
		});
		workflowId = workflow.id;
		await n8n.activateNow(workflowId);
		const { status, body } = await runRecipe();
		expect(status).toBe(200);
		expect(body).toEqual(expect.objectContaining({ id: '1001', company: 'Acme Widgets Ltd' }));
	});

	test('a newer version on the registry: listed as an update, Update (PATCH) installs it, the workflow still runs', async () => {
		await registry.publish(newer);
		const listed = await rest.get<InstalledPackage[]>('/rest/community-packages');
		expect(listed.map((p) => [p.packageName, p.installedVersion, p.updateAvailable])).toEqual([[first.name, first.version, newer.version]]);

		const updated = await rest.patch<InstalledPackage>('/rest/community-packages', { name: first.name });
		expect(updated.installedVersion).toBe(newer.version);
		const pkg = JSON.parse(fs.readFileSync(path.join(installedDir(), 'package.json'), 'utf8')) as { version: string };
		expect(pkg.version).toBe(newer.version);
		expect(ledger().dependencies).toEqual({ [first.name]: newer.version });
		const after = await rest.get<InstalledPackage[]>('/rest/community-packages');
		expect(after.map((p) => [p.packageName, p.installedVersion])).toEqual([[first.name, newer.version]]);

		const { status, body } = await runRecipe();
		expect(status).toBe(200);
		expect(body).toEqual(expect.objectContaining({ id: '1001', company: 'Acme Widgets Ltd' }));
	});

	test('Uninstall (DELETE) removes the package and its nodes', async () => {
		await n8n.deactivateNow(workflowId);
		await rest.delete(`/rest/community-packages?name=${encodeURIComponent(first.name)}`);
		expect(await rest.get<InstalledPackage[]>('/rest/community-packages')).toEqual([]);
		expect(fs.existsSync(installedDir())).toBe(false);
		// n8n removes the package's folder; its nodes/package.json keeps the entry (n8n 2.40 does).
		expect(await ourTypes((now) => now.length === 0)).toEqual([]);
	});

	test(`a tarball without ${NEEDED_FILE} does not install: n8n answers an error and loads none of its nodes`, async () => {
		await registry.publish(broken);
		const res = await rest.request('POST', '/rest/community-packages', { name: first.name, version: broken.version });
		expect(res.status).toBeGreaterThanOrEqual(400);
		// n8n names the missing module (2.x: ENOENT with its path, 1.x: Cannot find module).
		expect(JSON.stringify(res.body)).toContain(NEEDED_FILE.replace(/^dist\/nodes\/|\.js$/g, ''));
		expect(await rest.get<InstalledPackage[]>('/rest/community-packages')).toEqual([]);
		expect(await ourTypes((now) => now.length === 0)).toEqual([]);
		expect(fs.existsSync(installedDir())).toBe(false);
		// The registry itself was fine: it serves the broken version to any client.
		const packument = await httpRequest<{ versions: Record<string, unknown> }>(`${registry.url}/${first.name}`);
		expect(Object.keys(packument.body.versions).sort()).toEqual([first.version, newer.version, broken.version].sort());
	});
});
