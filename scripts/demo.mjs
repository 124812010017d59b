#!/usr/bin/env node
/**
 * `npm run demo`: the package in a real n8n, wired to the sandbox, with every recipe of
 * examples/ imported and its triggers active. From a fresh clone: `npm ci && npm run demo`.
 *
 *   1. builds the package (npm run build)
 *   2. starts the sandbox (a child process on 127.0.0.1, default port 4010)
 *   3. provisions n8n 2.x if needed (scripts/n8n/provision.mjs: a cache outside the repository;
 *      several minutes the first time, instant afterwards)
 *   4. prepares an n8n user folder in that cache (reused between runs; --fresh starts over):
 *      the built package as a community package, the sandbox credentials, every example
 *      workflow (re-imported on each run)
 *   5. starts n8n on 127.0.0.1:5678, creates the owner account (login printed), activates the
 *      trigger workflows
 *   6. prints what to open and curl commands that make the sandbox ring, text, start a voice
 *      agent conversation or play a live-analysis session, the MCP recipe's endpoint and bearer
 *      token with a command that lists its tools as an MCP client does, and the time the start
 *      took, and last, beside "ready", the address to open (n8n's sign-in, leading to the recipes)
 *      and the sign-in again (the guide has scrolled it away); then says when the live-analysis
 *      session ends (the trigger stops listening)
 * Ctrl-C stops everything it started (the n8n process group and the sandbox).
 *
 * The terminal shows the steps with their elapsed time; a long step shows that it is moving (on a
 * terminal one status line, as wide as the terminal, with its time and what it is doing in words, from
 * scripts/demo/progress.ts, updated every second; in a pipe or a file that line every 10 s, no control codes). What npm, the
 * compiler, the n8n installer and the sandbox print goes to a log file, and n8n's own output to another (both under
 * <cache>/demo/logs, the last 10 runs kept); their paths are printed first, and their last lines
 * if a step fails. --verbose streams it all to the terminal as well.
 *
 * Options:
 *   --port N           n8n's port (5678)
 *   --sandbox-port N   the sandbox's port (4010)
 *   --fresh            delete the demo's n8n user folder first (executions, owner, settings)
 *   --skip-build       use the dist/ that is there
 *   --verbose          also stream what npm, the compiler, the installer, the sandbox and n8n print
 *   --target 1|2       n8n 1.123 (Node 22) or 2.x (Node 24, the default)
 *   --queue            queue mode: a throwaway Postgres and Redis, n8n main on --port, two workers
 *                      and a webhook processor (test/e2e/queue/cluster.ts, loaded through tsx;
 *                      Postgres and Redis are installed with apt-get when missing). Nothing is kept:
 *                      each run starts empty. See docs/scaling.md.
 *
 * Plain Node ESM on the machine's Node 20; n8n's environment and the queue-mode cluster come from
 * the e2e harness (TypeScript, loaded through tsx), so the demo runs n8n exactly as the tests do.
 * n8n runs on the Node that provisioning installed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

import { PACKAGE_DIR } from './packageFiles.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PKG = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'));
const EXAMPLES = path.join(REPO, 'examples');
/** Where examples/sandbox-credentials.json points; replaced by the sandbox's real address. */
const EXAMPLE_SANDBOX_URL = 'http://127.0.0.1:4010';

/** The demo's own account and key. Local demo values, not secrets. */
const OWNER = { email: 'demo@example.com', firstName: 'Demo', lastName: 'User', password: 'Demo-Passw0rd' };
const ENCRYPTION_KEY = 'telephony-demo-not-a-secret-0123456789abcdef';

// --- arguments ---------------------------------------------------------------------------

const USAGE = `usage: npm run demo [-- options]
  --port N           n8n's port (5678)
  --sandbox-port N   the sandbox's port (4010)
  --fresh            delete the demo's n8n user folder first (executions, owner, settings)
  --skip-build       use the dist/ that is there
  --verbose          also show what npm, the compiler, the n8n installer, the sandbox and n8n print
                     (they always go to the log files whose paths are printed first)
  --target 1|2       n8n 1.123 on Node 22, or 2.x on Node 24 (the default)
  --queue            queue mode: Postgres, Redis, n8n main, two workers, a webhook processor
                     (throwaway: each run starts empty; n8n 2.x only; see docs/scaling.md)
`;

function parseArgs(argv) {
	const args = { port: 5678, sandboxPort: 4010, fresh: false, skipBuild: false, target: '2', queue: false, verbose: false };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split('=', 2);
		const value = () => inline ?? argv[++i];
		if (flag === '--port') args.port = Number(value());
		else if (flag === '--sandbox-port') args.sandboxPort = Number(value());
		else if (flag === '--fresh') args.fresh = true;
		else if (flag === '--skip-build') args.skipBuild = true;
		else if (flag === '--verbose') args.verbose = true;
		else if (flag === '--target') args.target = String(value());
		else if (flag === '--queue') args.queue = true;
		else if (flag === '-h' || flag === '--help') {
			process.stdout.write(USAGE);
			process.exit(0);
		} else {
			fail(`unknown argument ${argv[i]} (see --help)`);
		}
	}
	if (!['1', '2'].includes(args.target)) fail('--target must be 1 or 2');
	for (const k of ['port', 'sandboxPort']) if (!Number.isInteger(args[k]) || args[k] < 1 || args[k] > 65535) fail(`--${k === 'port' ? 'port' : 'sandbox-port'} must be a port number`);
	return args;
}

// --- output ------------------------------------------------------------------------------

const started = Date.now();
const duration = (ms) => (ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')} s`);
const secs = () => duration(Date.now() - started);
const CACHE_ROOT = process.env.TELEPHONY_N8N_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-telephony-platform');
/** Everything npm, the compiler and the n8n installer print, and the demo's own lines. */
const LOG_DIR = path.join(CACHE_ROOT, 'demo', 'logs');
const RUN_STAMP = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
const LOG_FILE = path.join(LOG_DIR, `demo-${RUN_STAMP}.log`);
/** What the n8n process prints (the harness appends it as it comes). */
const N8N_LOG_FILE = path.join(LOG_DIR, `n8n-${RUN_STAMP}.log`);
/** The n8n log file of this run, once there is one (for the lines shown when a step fails). */
let n8nLogFile;
fs.mkdirSync(LOG_DIR, { recursive: true });
/** Keeps the logs of the last 10 runs. */
function pruneLogs(keep = 10) {
	for (const kind of ['demo-', 'n8n-']) {
		const old = fs.readdirSync(LOG_DIR).filter((f) => f.startsWith(kind) && f.endsWith('.log')).sort().slice(0, -keep);
		for (const f of old) fs.rmSync(path.join(LOG_DIR, f), { force: true });
	}
}
const logFd = fs.openSync(LOG_FILE, 'a');
/** Written at once (not buffered), so that the log's last lines can be shown when a step fails. */
const logStream = { write: (chunk) => fs.writeSync(logFd, typeof chunk === 'string' ? chunk : Buffer.from(chunk)) };
let verbose = false;
/** A terminal on both streams (and not TERM=dumb): the running step keeps one status line up to date; otherwise plain lines only. */
const interactive = Boolean(process.stderr.isTTY && process.stdout.isTTY) && process.env.TERM !== 'dumb';
/** The line a running step keeps up to date (TTY only), cleared before anything else is printed. */
let statusLine = '';
function clearStatus() {
	if (statusLine && interactive) process.stderr.write('\r\x1b[2K');
}
function print(text) {
	clearStatus();
	process.stderr.write(text);
	if (statusLine && interactive) process.stderr.write(statusLine);
}
const say = (msg) => {
	logStream.write(`[demo ${secs()}] ${msg}\n`);
	print(`[demo ${secs()}] ${msg}\n`);
};
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;
/** What the running step is doing, in words (scripts/demo/progress.ts, loaded in main()). */
let progress;
/** Where to open and how to sign in (scripts/demo/signIn.ts, loaded in main()). */
let signIn;
/** Feeds each line of a child's output to the status line's words (never shown raw). */
function noteLines(text) {
	for (const line of String(text).replace(ANSI, '').split('\n')) if (line.trim()) progress?.note(line);
}
/** Output of a child process: to the log file (and the terminal with --verbose). */
function record(chunk) {
	logStream.write(chunk);
	noteLines(chunk);
	if (verbose) print(String(chunk));
}
function lastLines(file, count = 20) {
	try {
		return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
	} catch {
		return '';
	}
}
const lastLogLines = (count = 20) => lastLines(LOG_FILE, count);

/**
 * Streams what is appended to a log file to the terminal (--verbose: n8n's own output, which the
 * harness writes to its log file). Returns a function that stops following.
 */
function follow(file, fromStart = false, show = print) {
	let offset = fromStart ? 0 : fs.existsSync(file) ? fs.statSync(file).size : 0;
	const timer = setInterval(() => {
		let size;
		try {
			size = fs.statSync(file).size;
		} catch {
			return;
		}
		if (size < offset) offset = 0;
		if (size === offset) return;
		const fd = fs.openSync(file, 'r');
		const buffer = Buffer.alloc(size - offset);
		fs.readSync(fd, buffer, 0, buffer.length, offset);
		fs.closeSync(fd);
		offset = size;
		show(buffer.toString('utf8'));
	}, 500);
	timer.unref();
	return () => clearInterval(timer);
}

/** Bytes in use on the disk of the cache (what an install writes grows it); undefined where Node cannot tell. */
/** Packages unpacked so far in an npm install's folder: the entries of its node_modules, a scope's counted by its members. */
function packagesIn(prefix) {
	try {
		const modules = path.join(prefix, 'node_modules');
		const entries = fs.readdirSync(modules).filter((name) => !name.startsWith('.'));
		return entries.reduce((sum, name) => sum + (name.startsWith('@') ? fs.readdirSync(path.join(modules, name)).length : 1), 0);
	} catch {
		return 0;
	}
}

function diskUsed() {
	try {
		let dir = CACHE_ROOT;
		while (!fs.existsSync(dir)) dir = path.dirname(dir);
		const { blocks, bfree, bsize } = fs.statfsSync(dir);
		return (blocks - bfree) * bsize;
	} catch {
		return undefined;
	}
}

const STEPS = 5;
/** The steps' short names, for the summary line at the end. */
const STEP_NAMES = ['build', 'provision', 'prepare', 'start n8n', 'publish'];
/** [name, milliseconds] of each step done. */
const stepTimes = [];
let stepNumber = 0;
/** Seconds between the "still moving" lines of a long step when the output is not a terminal. */
const PLAIN_TICK_SECONDS = 10;
/**
 * Runs one numbered step: "[2/5] Provisioning n8n …", then its time. A long step shows that it
 * is moving: on a terminal one status line with its elapsed time and what it is doing in words
 * (never a raw installer line), updated every second; otherwise (a pipe, a file, CI) that line every 10 s.
 */
async function step(title, work) {
	const number = ++stepNumber;
	const label = `[${number}/${STEPS}] ${title}`;
	const short = `[${number}/${STEPS}] ${title.replace(/ \(.*$/, '').replace(/: .*$/, '')}`;
	const since = Date.now();
	let plainTicks = 0;
	progress?.reset();
	logStream.write(`\n=== ${label}\n`);
	print(`${label} …\n`);
	const tick = setInterval(() => {
		const ms = Date.now() - since;
		// On a terminal the line fits its width (one column spare: a full line wraps on some), the note that matters kept whole.
		const width = interactive ? Math.max(20, (process.stderr.columns || process.stdout.columns || 80) - 1) : Infinity;
		const status = progress ? progress.status(short, since, width - 4) : `${short} … ${duration(ms)}`;
		if (interactive) {
			clearStatus();
			statusLine = `    ${status}`.slice(0, width);
			process.stderr.write(statusLine);
		} else if (Math.floor(ms / (PLAIN_TICK_SECONDS * 1000)) > plainTicks) {
			plainTicks = Math.floor(ms / (PLAIN_TICK_SECONDS * 1000));
			process.stderr.write(`    … ${status}\n`);
		}
	}, 1_000);
	const stopTicking = () => {
		clearInterval(tick);
		clearStatus();
		statusLine = '';
	};
	try {
		const result = await work();
		stopTicking();
		stepTimes.push([STEP_NAMES[number - 1] ?? `step ${number}`, Date.now() - since]);
		print(`${label}: done in ${duration(Date.now() - since)}\n`);
		logStream.write(`=== done in ${duration(Date.now() - since)}\n`);
		return result;
	} catch (error) {
		stopTicking();
		if (!stopping) print(`${short}: FAILED after ${duration(Date.now() - since)}\n`);
		throw error;
	}
}

function fail(msg) {
	process.stderr.write(`\n[demo] ${msg}\n`);
	void shutdown(1);
	throw new Error(msg); // unreachable in practice: shutdown exits
}

// --- processes: everything we start, and how it is stopped ---------------------------------

/** Child processes started by the demo, each the leader of its own process group. */
const children = new Set();
let stopping = false;

function killGroup(child, signal) {
	if (!child.pid) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// already gone
	}
}

// If the demo itself dies without cleaning up (SIGKILL, terminal closed), this small process
// kills the groups it was told about. Runs on the machine's Node, detached.
const WATCHDOG = `
const parent = Number(process.argv[1]);
const groups = new Set();
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { for (const l of d.split('\\n')) if (l.trim()) groups.add(Number(l)); });
process.stdin.on('error', () => {});
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
setInterval(() => {
	if (alive(parent)) return;
	for (const g of groups) { try { process.kill(-g, 'SIGKILL'); } catch {} }
	process.exit(0);
}, 1000);
`;
let watchdog;
function guard(pid) {
	if (!watchdog) {
		watchdog = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid)], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
		watchdog.unref();
		watchdog.stdin.on('error', () => {});
	}
	watchdog.stdin.write(`${pid}\n`);
}

/** Starts a command in its own process group, tracked for Ctrl-C. */
function start(cmd, args, options = {}) {
	const child = spawn(cmd, args, { cwd: REPO, detached: true, ...options });
	children.add(child);
	if (child.pid) guard(child.pid);
	child.on('exit', () => children.delete(child));
	return child;
}

/** Runs a command to completion (own process group, so Ctrl-C stops it too). */
function run(cmd, args, options = {}) {
	return new Promise((resolve, reject) => {
		const child = start(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
		let out = '';
		let err = '';
		child.stdout?.on('data', (d) => {
			out += d;
			if (options.record) record(d);
		});
		child.stderr?.on('data', (d) => {
			err += d;
			record(d);
		});
		child.on('error', reject);
		child.on('close', (code, signal) => {
			if (code === 0) resolve({ out, err });
			else if (!stopping) reject(new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`));
		});
	});
}

async function stopChild(child, graceMs) {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise((resolve) => child.once('exit', resolve));
	killGroup(child, 'SIGTERM');
	let timer;
	const timedOut = await Promise.race([exited.then(() => false), new Promise((r) => (timer = setTimeout(() => r(true), graceMs)))]);
	clearTimeout(timer);
	if (timedOut) {
		killGroup(child, 'SIGKILL');
		await exited;
	}
	killGroup(child, 'SIGKILL'); // anything left in the group (n8n's task runner)
}

async function shutdown(code) {
	if (stopping) return;
	stopping = true;
	if (queueCluster) {
		say('stopping the webhook processor, the workers, main, Redis and Postgres…');
		await queueCluster.dispose().catch((e) => say(`stopping the cluster: ${e.message}`));
	} else if (n8nInstance) {
		say('stopping n8n…');
		await n8nInstance.dispose().catch((e) => say(`stopping n8n: ${e.message}`));
	}
	const list = [...children];
	if (list.length) say(`stopping ${list.map((c) => c.demoName ?? path.basename(c.spawnfile)).join(', ')}…`);
	await Promise.all(list.map((c) => stopChild(c, 5_000)));
	watchdog?.kill();
	say('stopped everything the demo started.');
	process.exit(code);
}

/** The n8n the demo started (one process, or the queue-mode cluster): stopped first on shutdown. */
let n8nInstance;
let queueCluster;

const signalHandlers = {};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	signalHandlers[signal] = () => {
		process.stderr.write('\n');
		void shutdown(signal === 'SIGINT' ? 0 : 143);
	};
	process.on(signal, signalHandlers[signal]);
}

// --- helpers -----------------------------------------------------------------------------

function portFree(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

async function build() {
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	await run(npm, ['run', 'build'], { record: true });
}

/** The sandbox as a child process; resolves with the JSON object it prints first. */
async function startSandbox(port) {
	const child = start(process.execPath, ['--import', 'tsx', path.join('sandbox', 'main.ts')], {
		env: { ...process.env, SANDBOX_PORT: String(port) },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	child.demoName = 'sandbox';
	let errText = '';
	/** The sandbox's own lines go to the demo's log (and the terminal with --verbose), prefixed. */
	const keep = (d) => {
		const text = String(d).split('\n').filter(Boolean).map((l) => `[sandbox] ${l}\n`).join('');
		logStream.write(text);
		if (verbose) print(text);
	};
	child.stderr.on('data', (d) => {
		errText = (errText + d).slice(-4000);
		keep(d);
	});
	const lines = readline.createInterface({ input: child.stdout });
	const info = await new Promise((resolve, reject) => {
		lines.once('line', (line) => {
			try {
				resolve(JSON.parse(line));
			} catch (e) {
				reject(new Error(`the sandbox printed ${line.slice(0, 200)}`));
			}
			// Its readable lines after the first (the JSON object) go to the log.
			lines.on('line', (l) => keep(`${l}\n`));
		});
		child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it was ready\n${errText.slice(-2000)}`)));
	});
	child.once('exit', (code, signal) => {
		if (stopping) return;
		say(`the sandbox stopped (${signal ?? `exit ${code}`}): stopping the demo\n${errText.slice(-2000)}`);
		void shutdown(1);
	});
	return info;
}

async function provision(target) {
	const { out } = await run(process.execPath, [path.join(REPO, 'scripts', 'n8n', 'provision.mjs'), '--target', target, '--json']);
	return JSON.parse(out.trim().split('\n').pop());
}

function userFolderFor(provisioned) {
	return path.join(CACHE_ROOT, 'demo', `n8n-${provisioned.n8nVersion}`);
}

/** Where the example workflows and their credentials are: the top level and two folders. */
const EXAMPLE_FOLDERS = ['', 'wholesale', 'ai-agents'];
const NOT_WORKFLOWS = new Set(['sandbox-credentials.json', 'scripted-model.json']);
const REPORT_CALLBACK_URL = 'http://127.0.0.1:5678/webhook/';

/** The node type of n8n's MCP Server Trigger (the MCP recipe's trigger). */
const MCP_TRIGGER = '@n8n/n8n-nodes-langchain.mcpTrigger';

/** The Conversation Intelligence Trigger's event type for the end of a session (its item says `listening: false`). */
const SESSION_ENDED = 'session_ended';

/**
 * The example workflows, as the demo imports them: the Wholesale Voice Trigger taking deliveries
 * from 127.0.0.1 (the sandbox; the recipes keep the platform's networks); the nightly report's
 * callback at this n8n's webhook address; the Conversation Intelligence Trigger also taking
 * Session Ended (so the end of the demo call is an execution of its own, whose item says
 * `"listening": false`), with no static data from an earlier run (the sandbox's sessions are new
 * on each run: a session that ended in the last run must not keep the trigger from listening);
 * on n8n 1.x the MCP Server Trigger at version 2 (1.123 knows it up to 2, with the same parameters).
 */
function exampleWorkflows(webhookBaseUrl, target) {
	return EXAMPLE_FOLDERS.flatMap((folder) =>
		fs
			.readdirSync(path.join(EXAMPLES, folder))
			.filter((f) => f.endsWith('.json') && !NOT_WORKFLOWS.has(f))
			.sort()
			.map((name) => {
				const file = path.join(folder, name);
				const wf = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
				for (const node of wf.nodes) {
					if (node.type === MCP_TRIGGER && target === '1') node.typeVersion = 2;
					if (node.type === `${PKG.name}.wholesaleVoiceTrigger`) Object.assign(node.parameters, { sourceNetworks: 'custom', customNetworks: '127.0.0.1/32' });
					if (typeof node.parameters?.callback === 'string') node.parameters.callback = node.parameters.callback.replace(REPORT_CALLBACK_URL, `${webhookBaseUrl}/webhook/`);
					if (node.type === `${PKG.name}.conversationIntelligenceTrigger`) {
						const types = node.parameters.eventTypes;
						if (Array.isArray(types) && !types.includes(SESSION_ENDED)) node.parameters.eventTypes = [...types, SESSION_ENDED];
						wf.staticData = null;
					}
				}
				return { file, workflow: { ...wf, active: false } };
			}),
	);
}

/** Is this workflow started by a trigger (so worth activating)? */
function hasTrigger(workflow) {
	return workflow.nodes.some((n) => /Trigger$/.test(n.type) && n.type !== 'n8n-nodes-base.manualTrigger');
}

/** Does it need a database the demo does not start (the hourly CDR pull's PostgreSQL)? Imported, left inactive. */
function needsDatabase(workflow) {
	return workflow.nodes.some((n) => n.credentials?.postgres);
}

/** The e2e harness (test/e2e/harness.ts, through tsx): the demo runs n8n exactly as the tests do. */
async function harness() {
	const { require: tsxRequire } = await import('tsx/cjs/api');
	return tsxRequire('../test/e2e/harness.ts', import.meta.url);
}

/** Every sandbox credential of the examples, pointed at this sandbox. */
function exampleCredentials(sandboxUrl) {
	return EXAMPLE_FOLDERS.flatMap((folder) => {
		const file = path.join(EXAMPLES, folder, 'sandbox-credentials.json');
		return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8').split(EXAMPLE_SANDBOX_URL).join(sandboxUrl)) : [];
	});
}

/** Imports every sandbox credential (pointed at this sandbox) and example workflow; gives the scripted model its scripts. */
async function importExamples(n8n, sandboxUrl, webhookBaseUrl, target) {
	await n8n.importCredentials(exampleCredentials(sandboxUrl));
	const examples = exampleWorkflows(webhookBaseUrl, target);
	await n8n.importWorkflows(examples.map((e) => e.workflow));
	// What "the model" of the AI recipes does (examples/ai-agents/scripted-model.json).
	const scripts = fs.readFileSync(path.join(EXAMPLES, 'ai-agents', 'scripted-model.json'), 'utf8');
	const res = await fetch(`${sandboxUrl}/_sandbox/llm/scripts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: scripts });
	if (!res.ok) throw new Error(`the sandbox refused the scripted model's scripts: ${res.status} ${await res.text()}`);
	return examples;
}

/** Signs in as the demo owner and activates (2.x: publishes) each trigger workflow as the editor's toggle does; returns what failed. */
async function activate(n8n, examples) {
	await n8n.setupOwner(OWNER);
	const problems = [];
	for (const { file, workflow } of examples) {
		if (!hasTrigger(workflow)) continue;
		if (needsDatabase(workflow)) {
			say(`left inactive: ${workflow.name} (${file}) needs a PostgreSQL, see examples/README.md`);
			continue;
		}
		try {
			await n8n.activateNow(workflow.id);
			say(`activated ${workflow.name} (${file})`);
		} catch (e) {
			problems.push(`${file}: ${e.message.split('\n')[0]}`);
		}
	}
	return problems;
}

/**
 * The MCP servers among the recipes (examples/ai-agents/mcp-telephony-server.json): each MCP
 * Server Trigger's production URL, the bearer token of its credential (none without bearer
 * authentication) and the names of the tools connected to it.
 */
function mcpServers(examples, webhookBase) {
	const credentials = exampleCredentials(EXAMPLE_SANDBOX_URL);
	return examples.flatMap(({ file, workflow }) =>
		workflow.nodes
			.filter((node) => node.type === MCP_TRIGGER)
			.map((trigger) => {
				const bearer = trigger.parameters?.authentication === 'bearerAuth' ? trigger.credentials?.httpBearerAuth?.id : undefined;
				const tools = Object.entries(workflow.connections ?? {})
					.filter(([, outputs]) => (outputs.ai_tool ?? []).flat().some((c) => c?.node === trigger.name))
					.map(([name]) => name)
					.sort();
				return {
					file,
					workflow,
					url: `${webhookBase}/mcp/${String(trigger.parameters?.path ?? trigger.webhookId).replace(/^\/+/, '')}`,
					token: bearer ? credentials.find((c) => c.id === bearer)?.data?.token : undefined,
					tools,
				};
			}),
	);
}

/**
 * Waits until each MCP endpoint is registered (n8n registers a production webhook a moment after
 * the workflow is published; until then it answers 404). Returns the ones that never were.
 */
async function waitForMcp(servers, timeoutMs = 60_000) {
	const missing = [];
	for (const server of servers) {
		const deadline = Date.now() + timeoutMs;
		let status;
		for (;;) {
			status = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(
				(res) => res.status,
				(e) => e.message,
			);
			if (status !== 404 || Date.now() > deadline || stopping) break;
			await sleep(500);
		}
		if (status === 404) missing.push(`${server.file}: its MCP endpoint ${server.url} still answers 404 after ${timeoutMs / 1000} s`);
		else if (typeof status !== 'number') missing.push(`${server.file}: its MCP endpoint ${server.url} did not answer (${status})`);
		else say(`MCP endpoint ready: ${server.url} (${server.tools.length} tools)`);
	}
	return missing;
}

/** The harness kills everything at once on Ctrl-C; the demo stops gracefully instead (the harness's watchdogs still clean up if the demo dies). */
function keepOwnSignalHandlers() {
	for (const signal of Object.keys(signalHandlers)) {
		for (const listener of process.listeners(signal)) if (listener !== signalHandlers[signal]) process.removeListener(signal, listener);
	}
}

/** Step 6's call: a new caller says her name and asks for a text (as in docs/ai-agents.md). */
const DANA_CONVERSATION = {
	agent_id: 'agent_ai_receptionist',
	transcript: [
		{ role: 'agent', message: 'Hello, thanks for calling Acme Widgets. How can I help?', time_in_call_secs: 0 },
		{ role: 'user', message: 'Hi, this is Dana Fox. Could you text me your opening hours?', time_in_call_secs: 3.5 },
		{ role: 'agent', message: 'Of course, Dana. I will send you a text right after this call.', time_in_call_secs: 9.2 },
	],
	analysis: { transcript_summary: 'Dana Fox asked for the opening hours by text.' },
};

function printGuide({ base, webhookBase, sandbox, examples, userFolder, provisioned, problems, queue, mcp }) {
	const s = sandbox.baseUrl;
	const wholesaleHook = (n) => `${webhookBase}/webhook/a1b2c3d4-0010-4c0d-8e01-00000000000${n}/wholesale-voice`;
	const post = (adminPath, body) => `curl -s -X POST ${s}/_sandbox${adminPath} -H 'content-type: application/json' -d '${JSON.stringify(body)}'`;
	const line = '─'.repeat(78);
	const cookieJar = path.join(os.tmpdir(), 'n8n-demo.cookies');
	const out = [
		'',
		line,
		` n8n ${provisioned.n8nVersion} with ${PKG.name} is running against the sandbox.`,
		line,
		'',
		` Open      ${signIn.openUrl(base)}   (the recipes, once signed in)`,
		` Sign in   ${OWNER.email}  /  ${OWNER.password}   (both are repeated at the end)`,
		'',
		' Recipes (Overview → Workflows), with the sandbox credentials (examples/README.md):',
		...examples.map(({ file, workflow }) => `   • ${workflow.name}   (${file})`),
		problems.length ? `\n NOT ACTIVE:\n${problems.map((p) => `   ! ${p}`).join('\n')}` : '',
		'',
		` The sandbox: ${s}  (admin API under ${s}/_sandbox, see sandbox/README.md)`,
		'',
		' Make something happen (copy-paste into another terminal):',
		'',
		'  1. A known caller rings → "incoming call lookup" texts the team who it is:',
		`     ${post('/pbx/calls/incoming', { from: '+447700900001', callerIdName: 'ALICE J', outcome: 'ANSWERED' })}`,
		'',
		'  2. A missed call → "missed call SMS back" texts the caller (its trigger polls every minute, n8n\'s',
		'     shortest Poll Time: the SMS follows within a minute):',
		`     ${post('/pbx/calls/incoming', { from: '+447700900123', callerIdName: 'Demo Caller', outcome: 'NO_ANSWER' })}`,
		'',
		'  3. A voice agent conversation → "pre-call lookup" answers with dynamic variables (shown in the',
		'     answer: the caller of step 1 or 2 is the newest inbound call), then "post-call summary" texts',
		'     the summary:',
		`     ${post('/convai/conversations', { agent_id: 'agent_demo_support' })}`,
		'',
		'  4. Live analysis: one negative-sentiment result → "live analysis alert" texts the supervisor',
		'     (repeatable); or the whole demo call: two alerts, then the session ends (once per demo run).',
		'     When it ends, the trigger stops listening: its last execution is the Session Ended event, whose',
		'     item says "listening": false (the demo adds Session Ended to the trigger\'s Events), and this',
		'     terminal prints "session sess_demo_transcript ended: the trigger stopped listening". n8n still',
		`     shows the workflow as ${shownActive}; nothing more comes from that session until the next demo run:`,
		`     ${post('/intelligence/sessions/sess_demo_transcript/script', { events: [{ event_type: 'operator_result', operator: 'sentiment', result: { value: 'negative' }, confidence: 0.9, speaker: 'caller', trigger_text: 'This is the third time I am calling about this!' }] })}`,
		`     ${post('/intelligence/sessions/sess_demo_transcript/script', { preset: 'demo' })}`,
		'',
		'  5. An inbound SMS (no recipe listens to it: try building one with Hosted PBX Trigger → SMS Received):',
		`     ${post('/pbx/sms/inbound', { from: '+447700900123', body: 'Can I move my appointment to Friday?' })}`,
		'',
		'  6. The AI receptionist (an AI Agent with Hosted PBX tools; its model is the sandbox\'s scripted one):',
		'     Dana Fox, a new caller, rings; the receptionist answers the voice agent with what it found',
		'     (dynamic_variables); she asks for the opening hours by text, so after the call the after-call',
		'     assistant adds her to the phone book and texts her the hours (a call that asks for nothing',
		'     gets nothing):',
		`     ${post('/pbx/calls/incoming', { from: '+447700900777', callerIdName: 'D FOX', outcome: 'ANSWERED' })}`,
		`     ${post('/convai/conversations', DANA_CONVERSATION)}`,
		'     (the ring also makes "incoming call lookup" text the team). The contact and the SMS it made:',
		`     curl -s '${s}/_sandbox/requests?method=POST&pathPrefix=/api/v1/customers/me/phonebook'`,
		`     curl -s '${s}/_sandbox/requests?method=POST&pathPrefix=/api/v1/customers/me/sms' | grep -o '"body":"Hi Dana[^"]*"'`,
		'',
		'  7. Wholesale: a finished call (CDR) → "CDR call log"; a port accepted → "port status SMS" texts the',
		'     customer; a report callback → "report ready rows" collects it (the demo lets 127.0.0.1 deliver):',
		`     ${post('/wholesale/deliveries', { url: wholesaleHook(1), app: 'cdr' })}`,
		`     ${post('/wholesale/webhooks', { app: 'porting', url: wholesaleHook(2), encoding: 'json' })}`,
		`     ${post('/wholesale/ports/40003/advance', {})} && ${post('/wholesale/ports/40003/advance', { port_date: '2026-12-04 09:00:00' })}`,
		'     A blocked call → "blocked calls and call warnings" texts the team at once:',
		`     ${post('/wholesale/deliveries', { url: `${webhookBase}/webhook/a1b2c3d4-0011-4c0d-8e01-000000000001/wholesale-voice`, app: 'call_blocked' })}`,
		'     A report: request the latest 100 CDRs with the "Report ready" trigger as callback (what the',
		'     recipe\'s nightly Schedule does for yesterday\'s CDRs); the sandbox calls back in 2 s and "report',
		'     ready rows" collects the rows (the editor\'s Execute workflow would wait for a test webhook):',
		`     curl -s -u api123456:wv-demo-123456 -X POST ${s}/v3/accounts/123456/reports/voice/cdr/latest/100 -H 'content-type: application/json' -d '${JSON.stringify({ callback: wholesaleHook(3) })}'`,
		'',
		...mcp.flatMap(mcpGuide),
		' What n8n sent to the platform (the SMS above, among others):',
		`     curl -s '${s}/_sandbox/requests?method=POST&pathPrefix=/api/v1/customers/me/sms'`,
		' The runs: Overview → Executions in the editor, or n8n\'s REST API with the sign-in above:',
		`     curl -s -c ${cookieJar} -X POST ${base}/rest/login -H 'content-type: application/json' -d '${JSON.stringify({ emailOrLdapLoginId: OWNER.email, email: OWNER.email, password: OWNER.password })}' -o /dev/null`,
		`     curl -s -b ${cookieJar} '${base}/rest/executions?limit=20'`,
		'',
		...(queue
			? queueGuide(queue)
			: [` n8n's data lives in ${userFolder} (reused next time; --fresh starts over).`, ` n8n's log: ${N8N_LOG_FILE}`]),
		` The demo's log (npm, the compiler, the installer, the sandbox): ${LOG_FILE}`,
		queue ? ' Ctrl-C stops n8n (all four processes), Redis, Postgres and the sandbox.' : ' Ctrl-C stops n8n and the sandbox.',
		line,
		'',
	];
	process.stdout.write(out.filter((l) => l !== undefined).join('\n'));
}

/** The MCP client script, as the guide prints it: relative to here when run from the repository. */
const MCP_CLIENT = (() => {
	const script = path.join(REPO, 'scripts', 'demo', 'mcp-list-tools.mjs');
	const relative = path.relative(process.cwd(), script);
	return relative.startsWith('..') || path.isAbsolute(relative) ? script : relative;
})();

/** Step 8 of the guide: an MCP recipe's endpoint, its token, and commands that list its tools and call one as an MCP client. */
function mcpGuide({ workflow, url, token, tools }) {
	const quote = (text) => `'${String(text).replace(/'/g, `'\\''`)}'`;
	const command = `node ${MCP_CLIENT} ${url} ${token ? quote(token) : "''"}`;
	return [
		`  8. Telephony for any AI client (MCP): "${workflow.name}"`,
		`     is an MCP server with ${tools.length} tools: ${tools.join(', ')}.`,
		'     The customer, the SMS sender and the limits are fixed in the workflow (docs/ai-agents.md).',
		'     Claude, Cursor or any MCP client (streamable HTTP) connects with:',
		`     URL     ${url}`,
		token ? `     Header  Authorization: Bearer ${token}` : '     (no authentication)',
		...(tools.includes('send_sms')
			? [
					'     Its tools as an MCP client lists them, then a call it refuses (isError: true, nothing sent):',
					`     ${command}`,
					`     ${command} send_sms '${JSON.stringify({ to: 'call me maybe', text: 'Hi' })}'`,
				]
			: ['     Its tools as an MCP client lists them:', `     ${command}`]),
		'',
	];
}

/** The queue-mode lines of the guide: where each process is, its log, how to see which worker ran what. */
function queueGuide({ cluster, logDir }) {
	const lines = [' Queue mode (docs/scaling.md):'];
	for (const [name, p] of cluster.processes) {
		const what = name === 'main' ? 'editor, REST API, triggers and pollers' : name.startsWith('worker') ? 'runs the executions; health: /healthz' : 'production webhooks';
		lines.push(`   ${name.padEnd(9)} ${p.baseUrl}  (${what}; log ${path.join(logDir, `${name}.log`)})`);
	}
	lines.push(
		`   Postgres  127.0.0.1:${cluster.postgres.port} (user postgres, database postgres, no password; ${path.join(cluster.postgres.binDir, 'psql')} -h 127.0.0.1 -p ${cluster.postgres.port} -U postgres)`,
		`   Redis     127.0.0.1:${cluster.redis.port}`,
		` Production webhooks (the voice agent's) go to ${cluster.webhookBaseUrl}/webhook/…; which worker ran an execution:`,
		`   grep -h 'Worker started execution' ${path.join(logDir, 'worker*.log')}`,
		' Nothing is kept: the next --queue run starts with an empty database.',
	);
	return lines;
}

/**
 * Queue mode (`--queue`): n8n main + two workers + a webhook processor on a throwaway Postgres
 * and Redis, with the same cluster code as `npm run test:queue` (test/e2e/queue/cluster.ts):
 * Postgres and Redis in temporary folders on free ports, every n8n process with its own user
 * folder and the package copied in, one encryption key, production webhooks at the webhook
 * processor. Each process's output goes to a log file.
 */
async function createQueueCluster(args) {
	const { ensureQueueServices } = await import('./n8n/services.mjs');
	try {
		ensureQueueServices({ log: say });
	} catch (e) {
		fail(e.message);
	}
	const { require: tsxRequire } = await import('tsx/cjs/api');
	const { QueueCluster } = tsxRequire('../test/e2e/queue/cluster.ts', import.meta.url);
	const cacheRoot = process.env.TELEPHONY_N8N_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-telephony-platform');
	const logDir = path.join(cacheRoot, 'demo', 'queue-logs', new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, ''));
	say('starting Postgres and Redis (throwaway, free ports) and preparing main, 2 workers and a webhook processor…');
	queueCluster = await QueueCluster.create({ mainPort: args.port, logDir });
	n8nLogFile = path.join(logDir, 'main.log');
	say(`n8n's logs (one per process): ${logDir}`);
	return { cluster: queueCluster, logDir };
}

/** One n8n in its demo user folder (kept between runs; --fresh starts over), the package installed. */
async function createN8n(args, provisioned) {
	const userFolder = userFolderFor(provisioned);
	if (args.fresh) fs.rmSync(userFolder, { recursive: true, force: true });
	const { N8nInstance } = await harness();
	n8nInstance = await N8nInstance.create({
		target: args.target,
		userFolder,
		port: args.port,
		label: 'demo',
		logFile: N8N_LOG_FILE,
		env: { N8N_ENCRYPTION_KEY: ENCRYPTION_KEY },
	});
	return n8nInstance;
}

/** Stops the demo when n8n stops by itself, with its last lines. */
function watchN8n(n8n) {
	n8n.whenExited?.then(() => {
		if (stopping) return;
		say(`n8n stopped; its last lines:\n${n8n.logs().slice(-6000)}`);
		void shutdown(1);
	});
}

// --- the end of a live-analysis session ----------------------------------------------------

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** How the editor shows an active workflow: "Published" in n8n 2.x, "Active" in 1.x. */
let shownActive = 'Published';

/** The first item the trigger node emitted in an execution (REST), or undefined. */
async function triggerItem(n8n, executionId, nodeName) {
	const run = await n8n.execution(String(executionId));
	const runs = run.data?.resultData?.runData?.[nodeName];
	return runs?.[0]?.data?.main?.[0]?.[0]?.json;
}

/**
 * When a session that a Conversation Intelligence Trigger listens to ends (step 4's whole demo
 * call), says so on the terminal with the execution that carries the end (`"listening": false`):
 * n8n keeps showing the workflow as Published, so this line and that execution are where the end
 * shows. Asks the sandbox every 2 s (its admin API; nothing n8n sees).
 */
function watchSessions({ n8n, sandbox, examples }) {
	for (const { workflow } of examples) {
		for (const node of workflow.nodes) {
			if (node.type !== `${PKG.name}.conversationIntelligenceTrigger` || !node.parameters?.sessionId) continue;
			const sessionId = String(node.parameters.sessionId);
			let busy = false;
			const timer = setInterval(async () => {
				if (busy) return;
				if (stopping) return clearInterval(timer);
				busy = true;
				try {
					const res = await fetch(`${sandbox.baseUrl}/_sandbox/intelligence/sessions/${encodeURIComponent(sessionId)}`);
					const session = res.ok ? await res.json() : undefined;
					if (session?.state === 'ended') {
						clearInterval(timer);
						await reportEndedSession(n8n, workflow, node, sessionId);
					}
				} catch {
					// the sandbox or n8n is stopping; the next tick (if any) asks again
				} finally {
					busy = false;
				}
			}, 2_000);
			timer.unref();
		}
	}
}

async function reportEndedSession(n8n, workflow, node, sessionId) {
	// The trigger emits the session_ended event as an execution of its own (its item: listening: false).
	let found;
	for (const deadline = Date.now() + 30_000; !found && Date.now() < deadline && !stopping; ) {
		for (const e of (await n8n.executions(workflow.id)).slice(0, 5)) {
			if (['new', 'running', 'waiting'].includes(String(e.status))) continue;
			const item = await triggerItem(n8n, e.id, node.name).catch(() => undefined);
			if (item?.event_type === SESSION_ENDED && item.listening === false) {
				found = { id: e.id, item };
				break;
			}
		}
		if (!found) await sleep(1_000);
	}
	if (stopping) return;
	// n8n takes the trigger off its running workflows (its reactivation fails: the session is over).
	let running = true;
	for (let i = 0; i < 10 && running && !stopping; i++) {
		running = ((await n8n.rest.get('/rest/active-workflows').catch(() => [])) ?? []).includes(workflow.id);
		if (running) await sleep(1_000);
	}
	const where = found
		? `see the last execution, #${found.id}: "event_type": "${SESSION_ENDED}", "listening": false, "note": ${JSON.stringify(found.item.note)}`
		: `no execution carries the end: is Session Ended among the trigger's Events? n8n's log says it: ${n8nLogFile ?? 'see the logs'}`;
	say(
		[
			`session ${sessionId} ended: the trigger stopped listening (${where}).`,
			`       "${workflow.name}" still shows as ${shownActive} in n8n, but ${running ? 'nothing more comes from this session' : 'its trigger is no longer running (GET /rest/active-workflows leaves it out)'}:`,
			`       step 4 does nothing more in this run; the next npm run demo listens to the sandbox's new session.`,
		].join('\n'),
	);
}

// --- main --------------------------------------------------------------------------------

async function main() {
	const args = parseArgs(process.argv.slice(2));
	if (args.queue && args.target !== '2') fail('--queue runs n8n 2.x only (leave out --target 1)');
	if (!fs.existsSync(path.join(REPO, 'node_modules', 'tsx'))) fail('node_modules is missing: run npm ci first');
	for (const [port, flag] of [[args.port, '--port'], [args.sandboxPort, '--sandbox-port']]) {
		if (!(await portFree(port))) fail(`port ${port} on 127.0.0.1 is in use (another demo or n8n?): stop it, or choose another with ${flag}`);
	}

	verbose = args.verbose;
	pruneLogs();
	const { require: tsxRequire } = await import('tsx/cjs/api');
	const { Progress } = tsxRequire('./demo/progress.ts', import.meta.url);
	progress = new Progress(Date.now, { diskUsed, packagesIn });
	signIn = tsxRequire('./demo/signIn.ts', import.meta.url);
	n8nLogFile = args.queue ? undefined : N8N_LOG_FILE;
	const n8nLogs = args.queue ? 'one file per process, in the folder printed at step 3' : N8N_LOG_FILE;
	process.stderr.write(
		`[demo] log of npm, the compiler, the n8n installer and the sandbox: ${LOG_FILE}\n` +
			`[demo] log of n8n: ${n8nLogs}${verbose ? ' (--verbose: both shown here as well)' : ' (--verbose shows both here as well)'}\n`,
	);

	// The sandbox starts while the package is built and n8n is provisioned.
	const sandboxReady = startSandbox(args.sandboxPort);
	sandboxReady.catch(() => {});
	if (args.skipBuild) process.stderr.write(`[${++stepNumber}/${STEPS}] Building the package: skipped (--skip-build: the dist/ that is there)\n`);
	else await step('Building the package (npm run build)', build);
	const provisioned = await step(
		`Provisioning n8n ${args.target === '1' ? '1.x' : '2.x'} (the first run installs it into ${CACHE_ROOT})`,
		async () => await provision(args.target),
	);
	shownActive = provisioned.target === '1' ? 'Active' : 'Published';
	const { n8n, queue, examples, sandbox, webhookBase } = await step(`Preparing n8n ${provisioned.n8nVersion}: the sandbox credentials and the example workflows`, async () => {
		// n8n creates its database on the first import: its log says how far it is.
		const stopFollowing = args.queue ? undefined : follow(N8N_LOG_FILE, true, noteLines);
		try {
			const queue = args.queue ? await createQueueCluster(args) : undefined;
			const n8n = queue ? queue.cluster.main : await createN8n(args, provisioned);
			keepOwnSignalHandlers();
			const sandbox = await sandboxReady;
			say(`sandbox ready at ${sandbox.baseUrl}`);
			const webhookBase = queue ? queue.cluster.webhookBaseUrl : n8n.baseUrl;
			const examples = await importExamples(n8n, sandbox.baseUrl, webhookBase, args.target);
			return { n8n, queue, examples, sandbox, webhookBase };
		} finally {
			stopFollowing?.();
		}
	});

	if (queue) {
		await step(`Starting n8n ${provisioned.n8nVersion} main on ${n8n.baseUrl}, two workers and a webhook processor (logs: ${queue.logDir})`, async () => {
			// With --verbose every process's output streams here (and keeps streaming after the step).
			if (verbose) for (const name of queue.cluster.processes.keys()) follow(path.join(queue.logDir, `${name}.log`), true);
			const times = await queue.cluster.start();
			say(`main ready in ${(times.mainMs / 1000).toFixed(1)} s, workers and webhook processor in ${(times.othersMs / 1000).toFixed(1)} s more`);
		});
	} else {
		await step(`Starting n8n ${provisioned.n8nVersion} on ${n8n.baseUrl}`, async () => {
			const stopFollowing = follow(N8N_LOG_FILE, verbose, verbose ? print : noteLines);
			try {
				await n8n.start({ timeoutMs: 300_000 });
			} finally {
				// With --verbose n8n's output keeps streaming after the step.
				if (!verbose) stopFollowing();
			}
		});
	}
	watchN8n(n8n);
	const mcp = mcpServers(examples, webhookBase);
	const problems = await step('Signing in and publishing the trigger workflows', async () => {
		const failed = await activate(n8n, examples);
		const active = mcp.filter((server) => !failed.some((p) => p.startsWith(`${server.file}:`)));
		return [...failed, ...(await waitForMcp(active))];
	});
	printGuide({ base: n8n.baseUrl, webhookBase, sandbox, examples, userFolder: n8n.userFolder, provisioned, problems, queue, mcp });
	// The guide has scrolled the sign-in away: the last lines say it again.
	const [ready, ...howToSignIn] = signIn.readyLines(n8n.baseUrl, OWNER, `${secs()} (${stepTimes.map(([t, ms]) => `${t} ${duration(ms)}`).join(', ')})`);
	say(ready);
	print(`${howToSignIn.join('\n')}\n`);
	watchSessions({ n8n, sandbox, examples });
}

/** A step failed: what went wrong, the last lines of the logs, and where the logs are. */
function reportFailure(e) {
	// The harness's errors end with n8n's last lines ("--- n8n logs"): its log file has them all.
	const message = String(e.message || e).split('\n--- n8n logs')[0].trim();
	const out = [`\n[demo] failed after ${secs()}: ${message}`];
	const demoTail = lastLogLines(20);
	if (demoTail) out.push(`--- the last lines of the demo's log (${LOG_FILE}):`, demoTail);
	const n8nLog = n8nLogFile && fs.existsSync(n8nLogFile) ? n8nLogFile : undefined;
	const n8nTail = n8nLog ? lastLines(n8nLog, 20) : '';
	if (n8nTail) out.push(`--- the last lines of n8n's log (${n8nLog}):`, n8nTail);
	out.push(`--- the whole log of this run: ${LOG_FILE}${n8nLog ? `; n8n's: ${n8nLog}` : ''}`);
	logStream.write(`\n[demo ${secs()}] failed: ${e.stack || e.message}\n`);
	process.stderr.write(`${out.join('\n')}\n`);
}

main().catch((e) => {
	if (stopping) return;
	reportFailure(e);
	void shutdown(1);
});
