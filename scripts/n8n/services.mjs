/**
 * Postgres and Redis for n8n's queue mode (`npm run test:queue`, `npm run demo -- --queue`):
 * checks that Debian's `postgresql` and `redis-server` packages are there and, when one is
 * missing and we are root, installs it with apt-get. Never starts the system services: the
 * cluster (test/e2e/queue/cluster.ts) runs its own throwaway Postgres and Redis on free ports.
 *
 *   import { ensureQueueServices } from './services.mjs';
 *   const { installed, postgresBin, redisServer } = ensureQueueServices({ log: console.error });
 *
 * Plain Node ESM without dependencies (runs on the machine's Node 20).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The newest Debian Postgres bin folder, if any (`/usr/lib/postgresql/<version>/bin`). */
export function findPostgresBin() {
	if (process.env.TELEPHONY_PG_BIN) return fs.existsSync(path.join(process.env.TELEPHONY_PG_BIN, 'postgres')) ? process.env.TELEPHONY_PG_BIN : undefined;
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return undefined;
	const versions = fs
		.readdirSync(root)
		.filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')) && fs.existsSync(path.join(root, v, 'bin', 'initdb')) && fs.existsSync(path.join(root, v, 'bin', 'psql')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? path.join(root, versions[0], 'bin') : undefined;
}

export function findRedisServer() {
	for (const dir of (process.env.PATH ?? '').split(path.delimiter).concat(['/usr/bin', '/usr/sbin'])) {
		const candidate = path.join(dir, 'redis-server');
		if (dir && fs.existsSync(candidate)) return candidate;
	}
	return undefined;
}

function redisRunningPids() {
	const out = spawnSync('pgrep', ['-x', 'redis-server'], { encoding: 'utf8' });
	return (out.stdout ?? '').split('\n').filter(Boolean);
}

/**
 * Installs what is missing (apt-get update, then apt-get install -y postgresql redis-server);
 * returns what was installed and where the binaries are. Throws with the command to run when
 * a package is missing and we are not root.
 */
export function ensureQueueServices({ log = (m) => process.stderr.write(`${m}\n`), redis = true } = {}) {
	const missing = [];
	if (!findPostgresBin()) missing.push('postgresql');
	if (redis && !findRedisServer()) missing.push('redis-server');
	if (missing.length === 0) return { installed: [], postgresBin: findPostgresBin(), redisServer: findRedisServer() };

	const command = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
	if (process.getuid?.() !== 0) {
		throw new Error(`${redis ? 'queue mode' : 'the CDR recipe test'} needs ${missing.join(' and ')}: install ${missing.length > 1 ? 'them' : 'it'} (sudo ${command}), then run again`);
	}
	const redisBefore = new Set(redisRunningPids());
	log(`[services] installing ${missing.join(', ')} with apt-get (once per machine)…`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...missing]]) {
		const t0 = Date.now();
		const result = spawnSync('apt-get', args, { stdio: ['ignore', 'pipe', 'pipe'], env, encoding: 'utf8', timeout: 15 * 60_000 });
		if (result.status !== 0) {
			throw new Error(`apt-get ${args.join(' ')} failed (${result.signal ?? `exit ${result.status}`}):\n${(result.stderr || result.stdout || '').slice(-3000)}`);
		}
		log(`[services] apt-get ${args[0]}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	}
	// Debian starts a package's service after installing it unless policy-rc.d forbids it (it does in
	// containers). We want none running: stop a redis-server the install started.
	const started = redisRunningPids().filter((pid) => !redisBefore.has(pid));
	if (started.length) {
		log(`[services] the install started the system redis-server (${started.join(', ')}): stopping it`);
		spawnSync('service', ['redis-server', 'stop'], { stdio: 'ignore' });
	}
	const postgresBin = findPostgresBin();
	const redisServer = findRedisServer();
	if (!postgresBin || (redis && !redisServer)) throw new Error(`after apt-get install, ${!postgresBin ? 'Postgres' : 'redis-server'} is still not found`);
	const version = (bin, flag) => {
		try {
			return execFileSync(bin, [flag], { encoding: 'utf8' }).trim().split('\n')[0];
		} catch {
			return '?';
		}
	};
	log(`[services] ${version(path.join(postgresBin, 'postgres'), '--version')}${redisServer ? `; ${version(redisServer, '--version')}` : ''}`);
	return { installed: missing, postgresBin, redisServer };
}
