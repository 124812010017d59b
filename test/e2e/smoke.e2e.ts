/**
 * Smoke test: the built package loads into a real n8n. Every credential and node type the
 * package.json `n8n` section lists is served by n8n, a credential imports, a workflow runs.
 * `npm run test:e2e` builds the package and provisions n8n before this runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { N8nInstance, PACKAGE_DIR, nodeResult, runError, type RestClient } from './harness';

interface PackageJson {
	name: string;
	n8n: { credentials?: string[]; nodes?: string[] };
}

const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as PackageJson;

/** The type names the built files declare, read the way n8n reads them: instantiate each export. */
function declaredTypes(files: string[] | undefined, nameOf: (instance: any) => string | undefined): string[] {
	const names: string[] = [];
	for (const file of files ?? []) {
		const mod = require(path.join(PACKAGE_DIR, file)) as Record<string, unknown>;
		const found = Object.values(mod)
			.filter((v): v is new () => unknown => typeof v === 'function')
			.map((C) => {
				try {
					return nameOf(new C());
				} catch {
					return undefined;
				}
			})
			.filter((n): n is string => typeof n === 'string' && n !== '');
		if (found.length === 0) throw new Error(`${file} exports no credential or node class`);
		names.push(...found);
	}
	return names;
}

const expectedCredentials = declaredTypes(pkg.n8n.credentials, (c) => (c.properties ? c.name : undefined));
const expectedNodes = declaredTypes(pkg.n8n.nodes, (n) => n.description?.name).map((name) => `${pkg.name}.${name}`);

describe(`the package in a real n8n (target ${process.env.TELEPHONY_N8N_TARGET ?? '2'})`, () => {
	let n8n: N8nInstance;
	let rest: RestClient;

	beforeAll(async () => {
		n8n = await N8nInstance.create();
		const t0 = Date.now();
		await n8n.start();
		console.log(`n8n ${n8n.n8nVersion} started in ${Date.now() - t0} ms at ${n8n.baseUrl}`);
		rest = await n8n.setupOwner();
	});

	afterAll(async () => {
		await n8n?.dispose();
	});

	test('the package.json n8n section lists something', () => {
		expect(expectedCredentials.length + expectedNodes.length).toBeGreaterThan(0);
		expect(expectedCredentials.length).toBe(pkg.n8n.credentials?.length ?? 0);
	});

	test('n8n serves every credential type of the package', async () => {
		const served = (await rest.get<Array<{ name: string }>>('/types/credentials.json')).map((c) => c.name);
		expect(served.length).toBeGreaterThan(100); // n8n's own are there too
		for (const name of expectedCredentials) expect(served).toContain(name);
	});

	test('n8n serves every node type of the package', async () => {
		const served = (await rest.get<Array<{ name: string }>>('/types/nodes.json')).map((n) => n.name);
		expect(served).toContain('n8n-nodes-base.manualTrigger');
		for (const name of expectedNodes) expect(served).toContain(name);
		// Nothing of this package loaded under another name (e.g. CUSTOM.*) or without being listed.
		const ours = [...new Set(served.filter((n) => n.startsWith(`${pkg.name}.`) && !n.endsWith('Tool')))];
		expect(ours.sort()).toEqual([...expectedNodes].sort());
		const versions = (await rest.get<Array<{ name: string; version: number | number[] }>>('/types/nodes.json'))
			.filter((n) => n.name === `${pkg.name}.hostedPbxTrigger`)
			.flatMap((n) => [n.version].flat())
			.sort();
		// One version of each node: the Hosted PBX Trigger is version 2 only (version 1 was removed before the first release).
		expect(versions).toEqual([2]);
	});

	test('n8n logged no failure to load the package', () => {
		expect(n8n.logs()).not.toMatch(/Failed to load package|Skipping package|Error loading/i);
	});

	test('import:credentials takes a hostedPbxApi credential', async () => {
		const result = await n8n.importCredentials([
			{
				id: 'e2eHostedPbxCred1',
				name: 'Hosted PBX (e2e)',
				type: 'hostedPbxApi',
				data: { baseUrl: 'http://127.0.0.1:9/api/v1', username: 'e2e-user', password: 'e2e-password', maxRateLimitWait: 0 },
			},
		]);
		expect(`${result.stdout}\n${result.stderr}`).toMatch(/Successfully imported 1 credential/i);
		const credentials = await rest.get<Array<{ id: string; name: string; type: string }>>('/rest/credentials');
		expect(credentials).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'e2eHostedPbxCred1', type: 'hostedPbxApi' })]));
	});

	test('n8n execute runs a workflow and the harness reads its items', async () => {
		const id = await n8n.importWorkflow({
			name: 'e2e smoke',
			nodes: [
				{ id: 'a1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: 'a2',
					name: 'Code',
					type: 'n8n-nodes-base.code',
					typeVersion: 2,
					position: [200, 0],
					parameters: { jsCode: 'return [{ json: { sum: 1 + 2 } }, { json: { sum: 3 + 4 } }];' },
				},
			],
			connections: { Start: { main: [[{ node: 'Code', type: 'main', index: 0 }]] } },
		});
		const t0 = Date.now();
		const run = await n8n.execute(id);
		console.log(`n8n execute took ${Date.now() - t0} ms`);
		expect(runError(run)).toBeUndefined();
		const code = nodeResult(run, 'Code');
		expect(code.error).toBeUndefined();
		expect(code.json).toEqual([{ sum: 3 }, { sum: 7 }]);
	});
});
