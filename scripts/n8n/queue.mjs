#!/usr/bin/env node
/**
 * `npm run test:queue`: the package in n8n's queue mode (docs/scaling.md).
 *
 *   1. Postgres and Redis: Debian's packages, installed with apt-get when missing (root only)
 *   2. npm run build (unless --skip-build)
 *   3. scripts/n8n/provision.mjs --target 2 (n8n 2.x into the cache; instant when cached)
 *   4. jest -c jest.queue.config.js: each test file brings up its own cluster on 127.0.0.1 in
 *      throwaway folders (Postgres, Redis, n8n main, two workers, one webhook processor, the
 *      sandbox) and takes it down (test/e2e/queue/cluster.ts)
 *   5. checks that nothing it started is left running, prints how long each step took
 *
 *   node scripts/n8n/queue.mjs [--skip-build] [jest arguments…]
 *   npm run test:queue -- load          (a file pattern, -t NAME, … go to jest)
 *
 * Ctrl-C: jest stops; every process of a cluster is watched by a watchdog that kills its
 * process group and removes its folder within a second; this script then waits for them and
 * kills (by pid) anything that still carries this run's marker. Exits with jest's status.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { createSteps, npm, repo } from '../steps.mjs';
import { ensureQueueServices } from './services.mjs';

const require = createRequire(path.join(repo, 'package.json'));

let skipBuild = false;
const jestArgs = [];
for (const a of process.argv.slice(2)) {
	if (a === '--skip-build') skipBuild = true;
	else jestArgs.push(a);
}

const { step, summary, provision, record, say } = createSteps('test:queue');
// Every process this run starts inherits the marker (n8n, its task runners, Postgres, Redis, watchdogs).
const RUN_MARKER = `TELEPHONY_QUEUE_RUN=${process.pid}-${randomBytes(4).toString('hex')}`;

/** Processes (other than us) whose environment carries this run's marker. */
function markedProcesses() {
	const found = [];
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
		try {
			const environ = fs.readFileSync(`/proc/${entry}/environ`, 'latin1');
			if (environ.split('\0').includes(RUN_MARKER)) {
				const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ').trim();
				found.push({ pid: Number(entry), cmd });
			}
		} catch {
			// gone, or not ours to read
		}
	}
	return found;
}

async function leftovers() {
	if (!fs.existsSync('/proc')) return;
	const deadline = Date.now() + 20_000;
	let left = markedProcesses();
	while (left.length && Date.now() < deadline) {
		await new Promise((r) => setTimeout(r, 500));
		left = markedProcesses();
	}
	if (!left.length) {
		say('nothing left running');
		return;
	}
	say(`still running after 20 s, killing: ${left.map((p) => `${p.pid} ${p.cmd.slice(0, 120)}`).join('; ')}`);
	for (const p of left) {
		try {
			process.kill(p.pid, 'SIGKILL');
		} catch {
			// gone meanwhile
		}
	}
}

async function main() {
	let t0 = Date.now();
	try {
		ensureQueueServices({ log: say });
	} catch (e) {
		say(e.message);
		return 1;
	}
	record('postgres/redis check', t0);

	if (!skipBuild) {
		const build = step('build', npm, ['run', 'build']);
		if (build.status !== 0) {
			say('the build failed: fix it (or retry if someone is mid-change) and run again');
			return build.status;
		}
	}

	let failed;
	provision('2', (status) => (failed = status));
	if (failed !== undefined) return failed;

	t0 = Date.now();
	const jestBin = require.resolve('jest/bin/jest');
	const [markerName, markerValue] = RUN_MARKER.split('=');
	say(`jest: jest --config jest.queue.config.js ${jestArgs.join(' ')}`);
	const jest = spawn(process.execPath, [jestBin, '--config', path.join(repo, 'jest.queue.config.js'), ...jestArgs], {
		cwd: repo,
		stdio: 'inherit',
		env: { ...process.env, TELEPHONY_N8N_TARGET: '2', [markerName]: markerValue },
	});
	let interrupted = false;
	const onSignal = (signal) => {
		interrupted = true;
		say(`${signal}: stopping jest; the watchdogs take the clusters down`);
		try {
			jest.kill('SIGINT');
		} catch {
			// already gone
		}
	};
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	const status = await new Promise((resolve) => jest.on('close', (code, signal) => resolve(code ?? (signal ? 130 : 1))));
	record('jest', t0);
	await leftovers();
	return interrupted && status === 0 ? 130 : status;
}

main().then(
	(status) => {
		summary(status);
		process.exit(status);
	},
	(e) => {
		say(e.stack || e.message);
		summary(1);
		process.exit(1);
	},
);
