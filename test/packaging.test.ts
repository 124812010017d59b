/**
 * What publishing and n8n's verification need from the package, checked without publishing:
 * package.json's fields, the files the tarball may hold, the documentation links, the lint
 * config against the scan's rules, and the publish workflow. `npm run scan` runs the scan itself.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

import { parse as parseYaml } from 'yaml';

const root = join(__dirname, '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface PackageJson {
	name: string;
	license: string;
	homepage: string;
	bugs: { url: string };
	repository: { type: string; url: string };
	author: { name?: string; email?: string; url?: string };
	files: string[];
	scripts: Record<string, string>;
	dependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	n8n: { n8nNodesApiVersion: number; strict: boolean; credentials: string[]; nodes: string[] };
}
const pkg = JSON.parse(read('package.json')) as PackageJson;

/** The repository's web address, from package.json's `repository`: the one place it is written. */
const repositoryWeb = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const docsBase = `${repositoryWeb}/blob/main/docs/`;

/** Every file under a folder, relative to the repository root. */
function filesUnder(dir: string): string[] {
	return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

describe('package.json for publishing', () => {
	test('no runtime dependencies (n8n Cloud refuses them); n8n-workflow is a peer', () => {
		expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
		expect(Object.keys(pkg.peerDependencies ?? {})).toEqual(['n8n-workflow']);
	});

	test('repository, bugs and homepage: one GitHub repository, written once in `repository`', () => {
		expect(pkg.repository.type).toBe('git');
		expect(pkg.repository.url).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
		expect(pkg.bugs.url).toBe(`${repositoryWeb}/issues`);
		expect(pkg.homepage).toBe(`${repositoryWeb}#readme`);
	});

	test('a real author: a name, and no placeholder address', () => {
		expect(pkg.author.name?.trim()).toBeTruthy();
		expect(pkg.author.email ?? pkg.author.url).toBeTruthy();
		if (pkg.author.email) expect(pkg.author.email).not.toMatch(/@(.+\.)?(example\.(com|org|net)|test|invalid|localhost)$/i);
		if (pkg.author.url) expect(pkg.author.url.startsWith(repositoryWeb)).toBe(true);
	});

	test('MIT, with the LICENSE file the tarball carries', () => {
		expect(pkg.license).toBe('MIT');
		expect(read('LICENSE')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} \S/);
	});

	test('npm pack builds first; npm publish runs the checks', () => {
		expect(pkg.scripts.prepack).toBe('npm run build');
		for (const check of ['npm run lint', 'npm test', 'npm run scan']) expect(pkg.scripts.prepublishOnly).toContain(check);
		expect(pkg.scripts.scan).toBe('node scripts/scan.mjs');
	});

	test('the n8n section lists every node and credential, as tsc builds them into dist/', () => {
		const built = (source: string) => `dist/${source.replace(/\.ts$/, '.js')}`;
		// The versions of a versioned node (in its v1/, v2/ folders) are loaded through the node itself.
		const nodeSources = filesUnder('nodes').filter((f) => f.endsWith('.node.ts') && !/\/v\d+\//.test(f)).sort();
		const credentialSources = filesUnder('credentials').filter((f) => f.endsWith('.credentials.ts')).sort();
		expect([...pkg.n8n.nodes].sort()).toEqual(nodeSources.map(built));
		expect([...pkg.n8n.credentials].sort()).toEqual(credentialSources.map(built));
		expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
		const build = JSON.parse(read('tsconfig.build.json')) as { compilerOptions: Record<string, unknown> };
		expect(build.compilerOptions).toMatchObject({ rootDir: '.', outDir: './dist', declaration: false, sourceMap: false });
	});

	test('one icon pair per node: no copies anywhere else', () => {
		const icons = execFileSync('git', ['ls-files', '*.svg'], { cwd: root, encoding: 'utf8' }).split('\n').filter((path) => path.startsWith('nodes/'));
		const names = icons.map((path) => path.split('/').pop());
		expect(new Set(names).size).toBe(names.length);
	});

	test('the tarball may hold only what n8n loads: compiled JavaScript, icons, codex files, README, LICENSE', () => {
		expect(pkg.files).toEqual(['dist/**/*.js', 'dist/**/*.svg', 'dist/**/*.node.json']);
		// What npm would pack now (without building): whatever dist/ holds, nothing else slips in.
		const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
		const [packed] = JSON.parse(output) as Array<{ files: Array<{ path: string }> }>;
		const paths = packed.files.map((f) => f.path);
		expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']));
		const unexpected = paths.filter((p) => !['package.json', 'README.md', 'LICENSE'].includes(p) && !/^dist\/(nodes|credentials)\/.+\.(js|svg|node\.json)$/.test(p));
		expect(unexpected).toEqual([]);
		expect(paths.filter((p) => /\.d\.ts$|\.map$|\.test\.|(^|\/)test\//.test(p))).toEqual([]);
	});
});

describe('shipped code loads nothing n8n Cloud lacks', () => {
	/**
	 * n8n Cloud installs a verified package without its dependencies, and the scan lets imports of
	 * devDependencies through (it assumes they are bundled), so it would not see a shipped import of
	 * undici or eventsource. What a node may load: its own files, n8n-workflow, node:crypto.
	 */
	const allowed = (specifier: string) => specifier.startsWith('./') || specifier.startsWith('../') || ['n8n-workflow', 'node:crypto', 'crypto'].includes(specifier);
	const runtimeImports = (text: string) =>
		[
			...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'"]*?\bfrom\s+'([^']+)'/gm),
			...text.matchAll(/^\s*import\s+'([^']+)'/gm),
			...text.matchAll(/\b(?:require|import)\(\s*'([^']+)'\s*\)/g),
		].map((m) => m[1]);
	const sources = [...filesUnder('nodes'), ...filesUnder('credentials')].filter((f) => f.endsWith('.ts'));

	test('the import finder sees every form', () => {
		expect(runtimeImports("import { a } from 'x';\nimport type { T } from 'typeonly';\nimport {\n\tb,\n} from 'y';\nexport { c } from 'z';\nimport 'side';\nconst d = require('r');\nawait import('dyn');")).toEqual(['x', 'y', 'z', 'side', 'r', 'dyn']);
	});

	test.each(sources)('%s', (file) => {
		expect(runtimeImports(read(file)).filter((specifier) => !allowed(specifier))).toEqual([]);
	});
});

describe('documentation links point at the docs page of each node in the repository', () => {
	/** The docs page of each credential and node, by file name. */
	const credentialPages: Record<string, string> = {
		'HostedPbxApi.credentials.ts': 'hosted-pbx.md',
		'WholesaleVoiceApi.credentials.ts': 'wholesale-voice.md',
		'PlatformApiKeyApi.credentials.ts': 'voice-agent.md',
	};
	const codexPages: Record<string, string> = {
		'HostedPbx.node.json': 'hosted-pbx.md',
		'HostedPbxTrigger.node.json': 'hosted-pbx.md',
		'WholesaleVoice.node.json': 'wholesale-voice.md',
		'WholesaleVoiceTrigger.node.json': 'wholesale-voice-trigger.md',
		'VoiceAgent.node.json': 'voice-agent.md',
		'VoiceAgentTrigger.node.json': 'voice-agent.md',
		'ConversationIntelligence.node.json': 'conversation-intelligence.md',
		'ConversationIntelligenceTrigger.node.json': 'conversation-intelligence.md',
	};

	const credentialFiles = filesUnder('credentials').filter((f) => f.endsWith('.credentials.ts'));
	test.each(credentialFiles)('%s', (file) => {
		const urls = [...read(file).matchAll(/documentationUrl\s*=\s*'([^']*)'/g)].map((m) => m[1]);
		const page = credentialPages[file.split('/').pop()!];
		expect(urls).toEqual([`${docsBase}${page}`]);
		expect(existsSync(join(root, 'docs', page))).toBe(true);
	});

	const codexFiles = filesUnder('nodes').filter((f) => f.endsWith('.node.json'));
	test.each(codexFiles)('%s', (file) => {
		const codex = JSON.parse(read(file)) as { resources: Record<string, Array<{ url: string }>> };
		const page = codexPages[file.split('/').pop()!];
		const urls = Object.values(codex.resources).flat().map((r) => r.url);
		expect(urls).toEqual([`${docsBase}${page}`]);
		expect(existsSync(join(root, 'docs', page))).toBe(true);
	});

	test('every credential and codex file has its page in the table above', () => {
		expect(credentialFiles.map((f) => f.split('/').pop()).sort()).toEqual(Object.keys(credentialPages).sort());
		expect(codexFiles.map((f) => f.split('/').pop()).sort()).toEqual(Object.keys(codexPages).sort());
	});
});

describe('npm run lint uses the rules of the scan', () => {
	/**
	 * The severity of every rule, for a few shipped files, under the scan's config (buildScanConfig of
	 * n8n's scanner) and under this repository's eslint.config.mjs; and which paths the lint ignores.
	 */
	const script = `
		import { ESLint } from 'eslint';
		import { buildScanConfig } from '@n8n/scan-community-package/scanner/scanner.mjs';
		const files = ${JSON.stringify(['nodes/HostedPbx/HostedPbx.node.ts', 'nodes/shared/transport/client.ts', 'credentials/HostedPbxApi.credentials.ts', 'package.json'])};
		const severity = (value) => { const s = Array.isArray(value) ? value[0] : value; return s === 'error' || s === 2 ? 2 : s === 'warn' || s === 1 ? 1 : 0; };
		const rules = async (eslint, file) => Object.fromEntries(Object.entries((await eslint.calculateConfigForFile(file))?.rules ?? {}).map(([k, v]) => [k, severity(v)]));
		const scan = new ESLint({ cwd: process.cwd(), overrideConfigFile: true, overrideConfig: await buildScanConfig() });
		const lint = new ESLint({ cwd: process.cwd() });
		const out = { files: {}, ignored: {} };
		for (const file of files) out.files[file] = { scan: await rules(scan, file), lint: await rules(lint, file) };
		for (const file of ['test/packaging.test.ts', 'sandbox/main.ts', 'bench/lib.ts', 'scripts/docs.ts', 'nodes/shared/transport/client.ts', 'credentials/HostedPbxApi.credentials.ts']) out.ignored[file] = await lint.isPathIgnored(file);
		process.stdout.write(JSON.stringify(out));
	`;
	let result: { files: Record<string, { scan: Record<string, number>; lint: Record<string, number> }>; ignored: Record<string, boolean> };
	beforeAll(() => {
		result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }));
	}, 60_000);

	test('every rule the scan treats as an error is an error in the lint too', () => {
		for (const [file, { scan, lint }] of Object.entries(result.files)) {
			// The scan sets no-console for every file; n8n's lint config for .ts files only. JSON has no calls.
			const errors = Object.keys(scan).filter((rule) => scan[rule] === 2 && !(file.endsWith('.json') && rule === 'no-console'));
			expect([file, errors.length > 0]).toEqual([file, true]);
			expect([file, errors.filter((rule) => lint[rule] !== 2)]).toEqual([file, []]);
		}
		expect(result.files['nodes/shared/transport/client.ts'].lint['@n8n/community-nodes/no-restricted-globals']).toBe(2);
		expect(result.files['package.json'].lint['@n8n/community-nodes/no-runtime-dependencies']).toBe(2);
	});

	test('"strict" says whether eslint.config.mjs is n8n\'s template verbatim, which is all `n8n-node lint` checks in strict mode', () => {
		const template = readFileSync(join(root, 'node_modules/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs'), 'utf8');
		const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();
		expect(pkg.n8n.strict).toBe(normalise(read('eslint.config.mjs')) === normalise(template));
	});

	test('the lint is for shipped code: tests, sandbox, benchmarks and scripts are ignored', () => {
		expect(result.ignored).toEqual({
			'test/packaging.test.ts': true,
			'sandbox/main.ts': true,
			'bench/lib.ts': true,
			'scripts/docs.ts': true,
			'nodes/shared/transport/client.ts': false,
			'credentials/HostedPbxApi.credentials.ts': false,
		});
	});
});

describe('the publish workflow', () => {
	interface Step {
		uses?: string;
		run?: string;
		with?: Record<string, unknown>;
	}
	const workflow = parseYaml(read('.github/workflows/publish.yml')) as {
		on: { push: { tags: string[]; branches?: string[] } };
		permissions: Record<string, string>;
		jobs: Record<string, { steps: Step[]; permissions?: unknown }>;
	};
	const jobs = Object.values(workflow.jobs);
	const steps = jobs[0].steps;
	const runs = steps.map((s) => s.run?.trim() ?? '');
	const indexOf = (command: RegExp) => runs.findIndex((r) => command.test(r));

	test('runs on a version tag only, with an OIDC token and read-only contents', () => {
		expect(workflow.on).toEqual({ push: { tags: ['v*'] } });
		expect(workflow.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
		expect(jobs).toHaveLength(1);
		expect(jobs[0].permissions).toBeUndefined();
	});

	test('checks out, sets up Node 20 and an npm that can publish with provenance and trusted publishing', () => {
		expect(steps[0].uses).toMatch(/^actions\/checkout@v\d+$/);
		const setup = steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
		expect(setup?.with).toMatchObject({ 'node-version': 20, 'registry-url': 'https://registry.npmjs.org' });
		const npmUpgrade = /^npm install -g npm@(\d+)\.(\d+)\.(\d+)$/.exec(runs[indexOf(/^npm install -g npm@/)] ?? '');
		expect(npmUpgrade).not.toBeNull();
		const [major, minor, patch] = npmUpgrade!.slice(1).map(Number);
		// Trusted publishing needs npm 11.5.1 or later.
		expect(major * 1e6 + minor * 1e3 + patch).toBeGreaterThanOrEqual(11_005_001);
	});

	test('installs from the lock file, builds, lints, tests and scans, then publishes with provenance', () => {
		const order = [/^npm ci\b/, /^npm run build$/, /^npm run lint$/, /^npm test$/, /^npm run scan$/, /^npm publish --provenance --access public$/].map(indexOf);
		expect(order.every((i) => i >= 0)).toBe(true);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
		expect(order[order.length - 1]).toBe(steps.length - 1);
	});
});

describe('CI runs the scan', () => {
	test('.ci/run: npm run scan after the build and the lint', () => {
		const lines = read('.ci/run').split('\n').map((l) => l.trim());
		const at = (command: string) => lines.indexOf(command);
		expect(at('npm run scan')).toBeGreaterThan(at('npm run lint'));
		expect(at('npm run lint')).toBeGreaterThan(at('npm run build'));
		expect(at('npm run build')).toBeGreaterThan(-1);
	});
});
