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

import { createSteps, npm, repo } from '../steps.mjs';

const target = '2';
let skipBuild = false;
let skipInstall = false;
const jestArgs = [];
for (const a of process.argv.slice(2)) {
	if (a === '--skip-build') skipBuild = true;
	else if (a === '--skip-install') skipInstall = true;
	else jestArgs.push(a);
}

const { step: run, summary, provision, say: log, timings } = createSteps('test:ui');

function finish(status) {
	const total = summary(status);
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
	const step = fresh ? run('npm ci', npm, ['ci', '--no-audit', '--no-fund']) : run('npm install', npm, ['install', '--no-audit', '--no-fund']);
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
provision(target, finish);

// --- 4. the tests --------------------------------------------------------------------------

const jest = run('jest', process.execPath, [require.resolve('jest/bin/jest'), '--config', path.join(repo, 'jest.ui.config.js'), ...jestArgs], {
	env: { ...process.env, TELEPHONY_N8N_TARGET: target, TELEPHONY_CHROMIUM: chromium },
});
finish(jest.status);
