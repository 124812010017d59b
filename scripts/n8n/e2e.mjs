#!/usr/bin/env node
/**
 * The end-to-end run: build the package, provision n8n, run jest on test/e2e.
 *
 *   node scripts/n8n/e2e.mjs [--target 2|1] [--skip-build] [jest arguments…]
 *   npm run test:e2e            (target 2: n8n 2.x on Node 24)
 *   npm run test:e2e:n8n1       (target 1: n8n 1.123 on Node 22)
 *   npm run test:e2e -- -t credentials        (jest arguments pass through)
 *
 * Prints how long each step and the whole run took. Exits with jest's status.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(repo, 'package.json'));

let target = process.env.TELEPHONY_N8N_TARGET || '2';
let skipBuild = false;
const jestArgs = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	const a = argv[i];
	if (a === '--target') target = String(argv[++i]);
	else if (a.startsWith('--target=')) target = a.slice('--target='.length);
	else if (a === '--skip-build') skipBuild = true;
	else jestArgs.push(a);
}
if (target !== '1' && target !== '2') {
	console.error(`--target must be 1 or 2, not ${target}`);
	process.exit(2);
}

const started = Date.now();
const timings = [];
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

function step(name, cmd, args, options = {}) {
	const t0 = Date.now();
	console.error(`\n[test:e2e] ${name}: ${[cmd, ...args].map((a) => (a.includes(' ') ? JSON.stringify(a) : a)).join(' ')}`);
	const result = spawnSync(cmd, args, { cwd: repo, stdio: 'inherit', ...options });
	const ms = Date.now() - t0;
	timings.push([name, ms]);
	if (result.error) throw result.error;
	return { status: result.status ?? (result.signal ? 128 : 1), stdout: result.stdout, ms };
}

function summary(status) {
	const parts = timings.map(([n, ms]) => `${n} ${secs(ms)}`).join(', ');
	console.error(`\n[test:e2e] target ${target}: ${status === 0 ? 'passed' : `failed (${status})`} in ${secs(Date.now() - started)} (${parts})`);
}

if (!skipBuild) {
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	const build = step('build', npm, ['run', 'build']);
	if (build.status !== 0) {
		summary(build.status);
		console.error('[test:e2e] the build failed: fix it (or retry if someone is mid-change) and run again');
		process.exit(build.status);
	}
}

const prov = step('provision', process.execPath, [path.join(repo, 'scripts', 'n8n', 'provision.mjs'), '--target', target, '--json'], {
	stdio: ['ignore', 'pipe', 'inherit'],
	encoding: 'utf8',
});
if (prov.status !== 0) {
	summary(prov.status);
	process.exit(prov.status);
}
const provisioned = JSON.parse(prov.stdout.trim().split('\n').pop());
console.error(`[test:e2e] n8n ${provisioned.n8nVersion} on Node ${provisioned.nodeVersion} (${provisioned.home})`);

const jestBin = require.resolve('jest/bin/jest');
const jest = step('jest', process.execPath, [jestBin, '--config', path.join(repo, 'jest.e2e.config.js'), ...jestArgs], {
	env: { ...process.env, TELEPHONY_N8N_TARGET: target },
});
summary(jest.status);
process.exit(jest.status);
