#!/usr/bin/env node
/**
 * A real npm registry on loopback (verdaccio), for the end-to-end test that installs the package
 * the way users do (test/e2e/communityInstall.e2e.ts): pack the package, publish it, let n8n
 * install it from there.
 *
 *   node scripts/n8n/registry.mjs install [--json]
 *       verdaccio into the cache beside n8n's (outside the repository); idempotent, locked,
 *       marker written last. Prints {"bin": …} with --json.
 *   node scripts/n8n/registry.mjs serve --node <node binary> [--port N] [--keep]
 *       verdaccio on 127.0.0.1 (a free port unless given) with its config and storage in a new
 *       temporary folder: no uplinks, anyone reads, a user it creates publishes. Prints one line
 *       {"url":…,"dir":…,"pid":…} once it answers, then runs until stopped (SIGTERM/SIGINT),
 *       and removes the folder (unless --keep).
 *   node scripts/n8n/registry.mjs pack --out <dir> [--version V] [--drop <file in the package>]
 *       `npm pack` of the built package (PACKAGE_DIR); with --version or --drop, the tarball is
 *       unpacked, its package.json given that version or the file removed, and packed again.
 *       Prints {"tarball":…,"name":…,"version":…,"files":[…]}.
 *   node scripts/n8n/registry.mjs publish --registry <url> <tarball>
 *       `npm publish` of a tarball, as a user it creates on that registry.
 *
 * Plain Node ESM: runs on the machine's Node 20. verdaccio itself wants Node 22 or later: `serve`
 * runs it with the Node that scripts/n8n/provision.mjs installed for n8n.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { PACKAGE_DIR } from '../packageFiles.mjs';
import { acquireLock, cacheRoot, cleanEnv, npmCommand, readJson, releaseLock, run, writeJsonAtomic } from './provision.mjs';

export { PACKAGE_DIR };

export const VERDACCIO = {
	version: '6.10.4',
	// A dependency of verdaccio asks for a node-fetch release that does not install from the
	// registry as it stands; 2.7.0 is the one that does.
	overrides: { 'node-fetch': '2.7.0' },
};

const log = (msg) => process.stderr.write(`[n8n:registry] ${msg}\n`);

function verdaccioPaths() {
	const home = path.join(cacheRoot(), `verdaccio-${VERDACCIO.version}`);
	return {
		home,
		lock: `${home}.lock`,
		marker: path.join(home, 'installed.json'),
		bin: path.join(home, 'node_modules', 'verdaccio', 'bin', 'verdaccio'),
	};
}

/** The installed verdaccio's entry script, or undefined. Cheap: reads one file, stats one. */
export function installedVerdaccio() {
	const p = verdaccioPaths();
	const marker = readJson(p.marker);
	const ok = marker?.version === VERDACCIO.version && JSON.stringify(marker.overrides) === JSON.stringify(VERDACCIO.overrides) && fs.existsSync(p.bin);
	return ok ? { bin: p.bin, version: VERDACCIO.version, home: p.home } : undefined;
}

export async function installVerdaccio() {
	const ready = installedVerdaccio();
	if (ready) return ready;
	const p = verdaccioPaths();
	await acquireLock(p.lock);
	try {
		const again = installedVerdaccio(); // another run may have finished meanwhile
		if (again) return again;
		log(`installing verdaccio@${VERDACCIO.version} into ${p.home}`);
		fs.rmSync(p.home, { recursive: true, force: true });
		fs.mkdirSync(p.home, { recursive: true });
		writeJsonAtomic(path.join(p.home, 'package.json'), {
			name: 'telephony-e2e-registry',
			private: true,
			description: 'verdaccio for the end-to-end tests; written by scripts/n8n/registry.mjs',
			dependencies: { verdaccio: VERDACCIO.version },
			overrides: VERDACCIO.overrides,
		});
		// No install script of verdaccio's tree is needed (no native module); its engines field
		// asks for Node 22, which runs it (`serve --node`), not the npm that installs it.
		await run(npmCommand(), ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--omit=dev', '--engine-strict=false', '--prefix', p.home], {
			cwd: p.home,
			env: cleanEnv(),
		});
		if (!fs.existsSync(p.bin)) throw new Error(`verdaccio installed but ${p.bin} is missing`);
		writeJsonAtomic(p.marker, { ...VERDACCIO, installedAt: new Date().toISOString() });
		return installedVerdaccio();
	} finally {
		releaseLock();
	}
}

// --- serve -----------------------------------------------------------------------------------

async function freePort() {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/** verdaccio's config: storage in `dir`, no uplinks (nothing is proxied), no web UI. */
function config(dir) {
	return [
		`storage: ${JSON.stringify(path.join(dir, 'storage'))}`,
		'auth:',
		'  htpasswd:',
		`    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}`,
		'    max_users: 1000',
		'uplinks: {}',
		'packages:',
		"  '**':",
		'    access: $all',
		'    publish: $authenticated',
		'    unpublish: $authenticated',
		'web:',
		'  enable: false',
		'log: { type: stdout, format: pretty, level: warn }',
		'',
	].join('\n');
}

async function answers(url) {
	try {
		const res = await fetch(`${url}/-/ping`, { signal: AbortSignal.timeout(2000) });
		return res.ok;
	} catch {
		return false;
	}
}

async function serve({ nodeBin, port, keep }) {
	const { bin } = await installVerdaccio();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-registry-'));
	const cfg = path.join(dir, 'config.yaml');
	fs.writeFileSync(cfg, config(dir));
	const listen = port ?? (await freePort());
	const url = `http://127.0.0.1:${listen}`;
	const child = spawn(nodeBin, [bin, '--config', cfg, '--listen', `127.0.0.1:${listen}`], {
		cwd: dir,
		env: cleanEnv({ PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}` }),
		stdio: ['ignore', 2, 2],
	});
	let exited = false;
	const done = new Promise((resolve) => child.on('exit', (code, signal) => ((exited = true), resolve(signal ?? code))));
	const stop = () => {
		if (!exited) child.kill('SIGTERM');
	};
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, stop);
	const cleanup = () => {
		if (!keep) fs.rmSync(dir, { recursive: true, force: true });
	};
	// provision.mjs's signal handlers exit at once (verdaccio, in this process group, gets the signal too).
	process.on('exit', cleanup);
	const deadline = Date.now() + 60_000;
	while (!exited && !(await answers(url))) {
		if (Date.now() > deadline) {
			stop();
			await done;
			cleanup();
			throw new Error(`verdaccio did not answer ${url}/-/ping within 60 s`);
		}
		await new Promise((r) => setTimeout(r, 200));
	}
	if (exited) {
		cleanup();
		throw new Error(`verdaccio exited before it answered (${await done})`);
	}
	process.stdout.write(`${JSON.stringify({ url, dir, pid: child.pid })}\n`);
	const status = await done;
	cleanup();
	log(`verdaccio stopped (${status})`);
}

// --- pack and publish ------------------------------------------------------------------------

async function npmPack(folder, out) {
	// Scripts ignored: `prepack` would build again; the runner has built the package.
	const { out: stdout } = await run(npmCommand(), ['pack', folder, '--json', '--ignore-scripts', '--pack-destination', out], {
		cwd: out,
		env: cleanEnv(),
		quiet: true,
	});
	const [result] = JSON.parse(stdout);
	return { tarball: path.join(out, result.filename), name: result.name, version: result.version, files: result.files.map((f) => f.path) };
}

export async function pack({ out, version, drop }) {
	fs.mkdirSync(out, { recursive: true });
	if (version === undefined && drop === undefined) return await npmPack(PACKAGE_DIR, out);
	const work = fs.mkdtempSync(path.join(out, 'unpacked-'));
	try {
		const packed = await npmPack(PACKAGE_DIR, work);
		await run('tar', ['-xzf', packed.tarball, '-C', work], { quiet: true });
		const folder = path.join(work, 'package');
		if (version !== undefined) {
			const file = path.join(folder, 'package.json');
			const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
			fs.writeFileSync(file, JSON.stringify({ ...pkg, version }, null, 2) + '\n');
		}
		if (drop !== undefined) {
			const target = path.join(folder, drop);
			if (!fs.existsSync(target)) throw new Error(`--drop ${drop}: the tarball has no such file`);
			fs.rmSync(target);
		}
		return await npmPack(folder, out);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

/** Creates a user on the registry (verdaccio's CouchDB-style login) and returns its token. */
async function createUser(registry) {
	const name = `e2e-${randomBytes(4).toString('hex')}`;
	const res = await fetch(`${registry}/-/user/org.couchdb.user:${name}`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ name, password: randomBytes(12).toString('hex'), type: 'user', roles: [] }),
	});
	const body = await res.json().catch(() => ({}));
	if (!res.ok || typeof body.token !== 'string') throw new Error(`creating a publish user on ${registry} answered ${res.status}: ${JSON.stringify(body)}`);
	return body.token;
}

export async function publish({ registry, tarball }) {
	const token = await createUser(registry);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-publish-'));
	try {
		// The token goes in an npmrc of its own, never on a command line.
		const userconfig = path.join(dir, '.npmrc');
		fs.writeFileSync(userconfig, `//${new URL(registry).host}/:_authToken=${token}\n`, { mode: 0o600 });
		await run(npmCommand(), ['publish', tarball, `--registry=${registry}`, `--userconfig=${userconfig}`, '--ignore-scripts', '--provenance=false'], {
			cwd: dir,
			env: cleanEnv(),
			quiet: true,
		});
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

// --- command line ----------------------------------------------------------------------------

function parse(argv) {
	const [command, ...rest] = argv;
	const flags = {};
	const positional = [];
	for (let i = 0; i < rest.length; i++) {
		const a = rest[i];
		if (a === '--json' || a === '--keep') flags[a.slice(2)] = true;
		else if (a.startsWith('--')) {
			const eq = a.indexOf('=');
			if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
			else flags[a.slice(2)] = rest[++i];
		} else positional.push(a);
	}
	return { command, flags, positional };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname;
if (isMain) {
	const { command, flags, positional } = parse(process.argv.slice(2));
	const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
	try {
		if (command === 'install') {
			const result = await installVerdaccio();
			if (flags.json) print(result);
			else process.stdout.write(`verdaccio ${result.version}: ${result.bin}\n`);
		} else if (command === 'serve') {
			if (!flags.node) throw new Error('serve needs --node <the Node binary that runs verdaccio (22 or later)>');
			await serve({ nodeBin: flags.node, port: flags.port ? Number(flags.port) : undefined, keep: flags.keep === true });
		} else if (command === 'pack') {
			if (!flags.out) throw new Error('pack needs --out <dir>');
			print(await pack({ out: path.resolve(flags.out), version: flags.version, drop: flags.drop }));
		} else if (command === 'publish') {
			if (!flags.registry || positional.length !== 1) throw new Error('usage: publish --registry <url> <tarball>');
			await publish({ registry: flags.registry.replace(/\/+$/, ''), tarball: path.resolve(positional[0]) });
		} else {
			throw new Error('usage: node scripts/n8n/registry.mjs install|serve|pack|publish … (see the top of the file)');
		}
	} catch (e) {
		log(`failed: ${e.stack || e.message}`);
		process.exitCode = 1;
	}
}
