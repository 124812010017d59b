/**
 * What publishing and n8n's verification need from the package, checked without publishing:
 * package.json's fields, the files the tarball may hold, the documentation links, the lint
 * config against the scan's rules, and the workflows. `npm run scan` runs the scan itself.
 * The published package is packages/n8n-nodes-telephony-platform; the repository root is the
 * private development workspace around it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

import { parse as parseYaml } from 'yaml';

const root = join(__dirname, '..');
const PACKAGE = 'packages/n8n-nodes-telephony-platform';
const packageDir = join(root, PACKAGE);
const read = (file: string) => readFileSync(join(root, file), 'utf8');
/** A file of the published package, by its path inside the package. */
const readShipped = (file: string) => read(join(PACKAGE, file));

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
const pkg = JSON.parse(readShipped('package.json')) as PackageJson;
const workspace = JSON.parse(read('package.json')) as { private: boolean; workspaces: string[]; scripts: Record<string, string> };

/** The repository's web address, from package.json's `repository`: the one place it is written. */
const repositoryWeb = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const docsBase = `${repositoryWeb}/blob/main/docs/`;

/** Every file under a folder of the package, relative to the package. */
function filesUnder(dir: string): string[] {
	return readdirSync(join(packageDir, dir), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => relative(packageDir, join(entry.parentPath, entry.name)));
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

	test("the package builds and lints with n8n's own tool; the root workspace runs both", () => {
		expect(pkg.scripts).toMatchObject({ build: 'n8n-node build', lint: 'n8n-node lint' });
		expect(workspace).toMatchObject({ private: true, workspaces: [PACKAGE] });
		expect(workspace.scripts.build).toBe(`npm run build -w ${pkg.name} && node scripts/packageFiles.mjs`);
		expect(workspace.scripts.lint).toBe(`npm run lint -w ${pkg.name} && prettier --check ${PACKAGE}/nodes ${PACKAGE}/credentials`);
		expect(workspace.scripts.scan).toBe('node scripts/scan.mjs');
	});

	test('the n8n section lists every node and credential, as tsc builds them into dist/', () => {
		const built = (source: string) => `dist/${source.replace(/\.ts$/, '.js')}`;
		// The versions of a versioned node (in its v1/, v2/ folders) are loaded through the node itself.
		const nodeSources = filesUnder('nodes').filter((f) => f.endsWith('.node.ts') && !/\/v\d+\//.test(f)).sort();
		const credentialSources = filesUnder('credentials').filter((f) => f.endsWith('.credentials.ts')).sort();
		expect([...pkg.n8n.nodes].sort()).toEqual(nodeSources.map(built));
		expect([...pkg.n8n.credentials].sort()).toEqual(credentialSources.map(built));
		expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
		const build = JSON.parse(readShipped('tsconfig.json')) as { compilerOptions: Record<string, unknown>; include: string[] };
		expect(build.compilerOptions).toMatchObject({ rootDir: '.', outDir: './dist/', declaration: false, sourceMap: false, strict: true });
		// tsc copies the codex files it is given; `n8n-node build` copies the icons.
		expect(build.include).toEqual(['credentials/**/*', 'nodes/**/*', 'nodes/**/*.json']);
	});

	test('one icon pair per node: no copies anywhere else', () => {
		const icons = execFileSync('git', ['ls-files', '*.svg'], { cwd: packageDir, encoding: 'utf8' }).split('\n').filter((path) => path.startsWith('nodes/'));
		const names = icons.map((path) => path.split('/').pop());
		expect(new Set(names).size).toBe(names.length);
	});

	test('the tarball may hold only what n8n loads: compiled JavaScript, icons, codex files, README, LICENSE', () => {
		expect(pkg.files).toEqual(['dist/**/*.js', 'dist/**/*.svg', 'dist/**/*.node.json']);
		// What npm would pack now (without building): whatever dist/ holds, nothing else slips in.
		// The build copies README and LICENSE in from the root (npm pack leaves symlinks out).
		execFileSync(process.execPath, [join(root, 'scripts/packageFiles.mjs')]);
		const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
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
	 * undici or eventsource. What a node may load: its own files, n8n-workflow, node:crypto, and luxon
	 * (n8n's date library: n8n-workflow depends on it, n8n loads it, n8n's lint allows it).
	 */
	const allowed = (specifier: string) => specifier.startsWith('./') || specifier.startsWith('../') || ['n8n-workflow', 'luxon', 'node:crypto', 'crypto'].includes(specifier);
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
		expect(runtimeImports(readShipped(file)).filter((specifier) => !allowed(specifier))).toEqual([]);
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
		const urls = [...readShipped(file).matchAll(/documentationUrl\s*=\s*'([^']*)'/g)].map((m) => m[1]);
		const page = credentialPages[file.split('/').pop()!];
		expect(urls).toEqual([`${docsBase}${page}`]);
		expect(existsSync(join(root, 'docs', page))).toBe(true);
	});

	const codexFiles = filesUnder('nodes').filter((f) => f.endsWith('.node.json'));
	test.each(codexFiles)('%s', (file) => {
		const codex = JSON.parse(readShipped(file)) as { resources: Record<string, Array<{ url: string }>> };
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
	 * n8n's scanner) and under the package's eslint.config.mjs, run where `n8n-node lint` runs it.
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
		for (const file of ['nodes/shared/transport/client.ts', 'credentials/HostedPbxApi.credentials.ts']) out.ignored[file] = await lint.isPathIgnored(file);
		process.stdout.write(JSON.stringify(out));
	`;
	let result: { files: Record<string, { scan: Record<string, number>; lint: Record<string, number> }>; ignored: Record<string, boolean> };
	beforeAll(() => {
		result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: packageDir, encoding: 'utf8' }));
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

	test("eligible for n8n Cloud as `n8n-node cloud-support` decides: strict, and n8n's eslint.config.mjs and .prettierrc.js verbatim", () => {
		const template = (file: string) => readFileSync(join(root, 'node_modules/@n8n/node-cli/dist/template/templates/shared/default', file), 'utf8');
		expect(pkg.n8n.strict).toBe(true);
		expect(readShipped('eslint.config.mjs')).toBe(template('eslint.config.mjs'));
		expect(readShipped('.prettierrc.js')).toBe(template('.prettierrc.js'));
		expect(result.ignored).toEqual({ 'nodes/shared/transport/client.ts': false, 'credentials/HostedPbxApi.credentials.ts': false });
	});

	test('the package folder holds shipped code and its configs only: development code lives outside what `n8n-node lint` reads', () => {
		const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: packageDir, encoding: 'utf8' }).trim().split('\n');
		const topLevel = [...new Set(tracked.map((file) => file.split('/')[0]))].sort();
		expect(topLevel).toEqual(['.gitignore', '.prettierrc.js', 'credentials', 'eslint.config.mjs', 'nodes', 'package.json', 'tsconfig.json']);
		expect(tracked.filter((file) => /\.(test|spec)\.ts$|(^|\/)(test|sandbox|bench|scripts)\//.test(file))).toEqual([]);
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

	test('installs from the lock file, builds, lints, tests and scans, then publishes the package folder with provenance', () => {
		const order = [/^npm ci\b/, /^npm run build$/, /^npm run lint$/, /^npm test$/, /^npm run scan$/, new RegExp(`^npm publish -w ${pkg.name} --provenance --access public$`)].map(indexOf);
		expect(order.every((i) => i >= 0)).toBe(true);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
		expect(order[order.length - 1]).toBe(steps.length - 1);
	});
});

describe('CI on pull requests, as n8n\'s template has it', () => {
	const ci = parseYaml(read('.github/workflows/ci.yml')) as { on: Record<string, unknown>; jobs: Record<string, { steps: Array<{ run?: string; uses?: string }> }> };
	test('runs on every pull request and on pushes to main', () => {
		expect(ci.on).toEqual({ pull_request: null, push: { branches: ['main'] } });
	});
	test("installs, lints, builds and runs the README's test command", () => {
		const runs = Object.values(ci.jobs).flatMap((job) => job.steps.map((s) => s.run?.trim()).filter(Boolean));
		expect(runs).toEqual(['npm ci', 'npm run lint', 'npm run build', 'npm test']);
		expect(read('README.md')).toContain('npm test');
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
