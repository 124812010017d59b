/**
 * The timed steps of the test scripts (test:e2e, test:ui, test:queue): each command is printed,
 * run in the repository with its output shown, and timed; `summary()` says how long each took.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
export const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

export function createSteps(label) {
	const started = Date.now();
	/** [name, milliseconds] of each step so far. */
	const timings = [];
	const say = (text) => process.stderr.write(`[${label}] ${text}\n`);

	/** Runs a command to completion; returns its status (128 when killed by a signal) and captured stdout. */
	function step(name, cmd, args, options = {}) {
		const t0 = Date.now();
		say(`${name}: ${[cmd, ...args].map((a) => (a.includes(' ') ? JSON.stringify(a) : a)).join(' ')}`);
		const result = spawnSync(cmd, args, { cwd: repo, stdio: 'inherit', ...options });
		timings.push([name, Date.now() - t0]);
		if (result.error) throw result.error;
		return { status: result.status ?? (result.signal ? 128 : 1), stdout: result.stdout };
	}

	/** Times something that is not a command (a check, a jest run started by hand). */
	function record(name, t0) {
		timings.push([name, Date.now() - t0]);
	}

	/** "passed in 12.3 s (build 4.1 s, …)", with `what` before it; returns the total in ms. */
	function summary(status, what = '') {
		const total = Date.now() - started;
		const parts = timings.map(([n, ms]) => `${n} ${secs(ms)}`).join(', ');
		say(`${what}${status === 0 ? 'passed' : `failed (${status})`} in ${secs(total)} (${parts})`);
		return total;
	}

	/** Provisions n8n for a target (instant when cached); returns provision.mjs's JSON, or calls onFailure with its status. */
	function provision(target, onFailure) {
		const prov = step('provision', process.execPath, [path.join(repo, 'scripts', 'n8n', 'provision.mjs'), '--target', target, '--json'], {
			stdio: ['ignore', 'pipe', 'inherit'],
			encoding: 'utf8',
		});
		if (prov.status !== 0) return onFailure(prov.status);
		const provisioned = JSON.parse(prov.stdout.trim().split('\n').pop());
		say(`n8n ${provisioned.n8nVersion} on Node ${provisioned.nodeVersion} (${provisioned.home})`);
		return provisioned;
	}

	return { timings, say, step, record, summary, provision };
}
