#!/usr/bin/env node
/**
 * The editor tests in a real browser (`npm run test:ui`, see test/ui/README.md):
 *
 *   1. Chromium: Debian's `chromium` package, installed with apt-get when missing (as root, or
 *      through `sudo -n`). Never a browser download (`npx playwright install` fails here).
 *   2. playwright-core (a devDependency): `npm ci` / `npm install` when it is missing.
 *   3. `npm run build`, then scripts/n8n/provision.mjs (n8n 2.40.7 on Node 24, cached).
 *   4. jest with jest.ui.config.js: its globalSetup starts the sandbox and n8n, the tests drive
 *      the editor, docs/images/ gets the pictures.
 *
 *   node scripts/ui/run.mjs [--skip-build] [--skip-install] [jest arguments…]
 *   npm run test:ui -- panel                 (jest arguments pass through: a file pattern, -t NAME)
 *
 * Prints how long each step and the whole run took (also in test-results/ui/timings.json) and
 * exits with jest's status.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const target = '2';
let skipBuild = false;
let skipInstall = false;
const jestArgs = [];
for (const a of process.argv.slice(2)) {
	if (a === '--skip-build') skipBuild = true;
	else if (a === '--skip-install') skipInstall = true;
	else jestArgs.push(a);
}

const started = Date.now();
const timings = [];
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function log(text) {
	console.error(`[test:ui] ${text}`);
}

function run(name, cmd, args, options = {}) {
	const t0 = Date.now();
	log(`${name}: ${[cmd, ...args].map((a) => (a.includes(' ') ? JSON.stringify(a) : a)).join(' ')}`);
	const result = spawnSync(cmd, args, { cwd: repo, stdio: 'inherit', ...options });
	const ms = Date.now() - t0;
	timings.push([name, ms]);
	if (result.error) throw result.error;
	return { status: result.status ?? (result.signal ? 128 : 1), stdout: result.stdout, ms };
}

function finish(status) {
	const parts = timings.map(([n, ms]) => `${n} ${secs(ms)}`).join(', ');
	const total = Date.now() - started;
	log(`${status === 0 ? 'passed' : `failed (${status})`} in ${secs(total)} (${parts})`);
	try {
		fs.mkdirSync(path.join(repo, 'test-results', 'ui'), { recursive: true });
		fs.writeFileSync(
			path.join(repo, 'test-results', 'ui', 'timings.json'),
			JSON.stringify({ status, totalMs: total, steps: Object.fromEntries(timings), at: new Date().toISOString() }, null, 2),
		);
	} catch {
		// the timings are a convenience
	}
	process.exit(status);
}

// --- 1. Chromium ---------------------------------------------------------------------------

function chromiumPath() {
	return [process.env.TELEPHONY_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p));
}

if (!chromiumPath() && !skipInstall) {
	const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	const sudo = !asRoot && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
	if (!asRoot && !sudo) {
		log("Chromium is missing and apt-get needs root: install Debian's chromium package (apt-get install chromium), or set TELEPHONY_CHROMIUM");
		finish(1);
	}
	const prefix = asRoot ? [] : ['sudo', '-n'];
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const apt = (name, args) => run(name, prefix[0] ?? 'apt-get', prefix.length ? [...prefix.slice(1), 'apt-get', ...args] : args, { env });
	if (apt('apt-get update', ['update', '-q']).status !== 0) finish(1);
	if (apt('apt-get install chromium', ['install', '-y', '-q', 'chromium']).status !== 0) finish(1);
}
const chromium = chromiumPath();
if (!chromium) {
	log('no Chromium found after the install step');
	finish(1);
}
const version = spawnSync(chromium, ['--version'], { encoding: 'utf8' });
log(`browser: ${(version.stdout || version.stderr || '').trim()} (${chromium})`);

// --- 2. playwright-core --------------------------------------------------------------------

const require = createRequire(path.join(repo, 'package.json'));
function hasPlaywright() {
	try {
		require.resolve('playwright-core');
		return true;
	} catch {
		return false;
	}
}
if (!hasPlaywright() && !skipInstall) {
	// A devDependency pinned in package-lock.json; it needs no install script (the repo's .npmrc
	// ignores scripts) and downloads no browser.
	const fresh = !fs.existsSync(path.join(repo, 'node_modules'));
	let step = fresh ? run('npm ci', npm, ['ci', '--no-audit', '--no-fund']) : { status: 1 };
	// npm 11.19 refuses `npm ci` on this lock file (it wants entries for every platform binding
	// of unrs-resolver, which it does not write itself); `npm install` installs from it.
	if (step.status !== 0) step = run('npm install', npm, ['install', '--no-audit', '--no-fund']);
	if (step.status !== 0 || !hasPlaywright()) {
		log('playwright-core is still missing after npm install');
		finish(1);
	}
}
log(`playwright-core ${JSON.parse(fs.readFileSync(require.resolve('playwright-core/package.json'), 'utf8')).version}`);

// --- 3. build and n8n ----------------------------------------------------------------------

if (!skipBuild) {
	const build = run('build', npm, ['run', 'build']);
	if (build.status !== 0) {
		log('the build failed: fix it (or retry if someone is mid-change) and run again');
		finish(build.status);
	}
}
const prov = run('provision', process.execPath, [path.join(repo, 'scripts', 'n8n', 'provision.mjs'), '--target', target, '--json'], {
	stdio: ['ignore', 'pipe', 'inherit'],
	encoding: 'utf8',
});
if (prov.status !== 0) finish(prov.status);
const provisioned = JSON.parse(prov.stdout.trim().split('\n').pop());
log(`n8n ${provisioned.n8nVersion} on Node ${provisioned.nodeVersion} (${provisioned.home})`);

// --- 4. the tests --------------------------------------------------------------------------

const jest = run('jest', process.execPath, [require.resolve('jest/bin/jest'), '--config', path.join(repo, 'jest.ui.config.js'), ...jestArgs], {
	env: { ...process.env, TELEPHONY_N8N_TARGET: target, TELEPHONY_CHROMIUM: chromium },
});
finish(jest.status);
