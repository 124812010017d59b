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
 *      agent conversation or play a live-analysis session
 * Ctrl-C stops everything it started (the n8n process group and the sandbox).
 *
 * Options:
 *   --port N           n8n's port (5678)
 *   --sandbox-port N   the sandbox's port (4010)
 *   --fresh            delete the demo's n8n user folder first (executions, owner, settings)
 *   --skip-build       use the dist/ that is there
 *   --target 1|2       n8n 1.123 (Node 22) or 2.x (Node 24, the default)
 *   --queue            queue mode (main + workers + webhook processor): not implemented yet
 *
 * Plain Node ESM without dependencies (runs on the machine's Node 20); n8n runs on the Node
 * that provisioning installed.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PKG = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const EXAMPLES = path.join(REPO, 'examples');
/** Where examples/sandbox-credentials.json points; replaced by the sandbox's real address. */
const EXAMPLE_SANDBOX_URL = 'http://127.0.0.1:4010';

/** The demo's own account and key. Local demo values, not secrets. */
const OWNER = { email: 'demo@example.com', firstName: 'Demo', lastName: 'User', password: 'Demo-Passw0rd' };
const ENCRYPTION_KEY = 'telephony-demo-not-a-secret-0123456789abcdef';
/** The demo polls for missed calls every 10 s (the recipe says 60 s; 10 s is the node's minimum). */
const DEMO_POLL_SECONDS = 10;

// --- arguments ---------------------------------------------------------------------------

const USAGE = `usage: npm run demo [-- options]
  --port N           n8n's port (5678)
  --sandbox-port N   the sandbox's port (4010)
  --fresh            delete the demo's n8n user folder first (executions, owner, settings)
  --skip-build       use the dist/ that is there
  --target 1|2       n8n 1.123 on Node 22, or 2.x on Node 24 (the default)
  --queue            queue mode: not implemented yet
`;

function parseArgs(argv) {
	const args = { port: 5678, sandboxPort: 4010, fresh: false, skipBuild: false, target: '2', queue: false };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split('=', 2);
		const value = () => inline ?? argv[++i];
		if (flag === '--port') args.port = Number(value());
		else if (flag === '--sandbox-port') args.sandboxPort = Number(value());
		else if (flag === '--fresh') args.fresh = true;
		else if (flag === '--skip-build') args.skipBuild = true;
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
const secs = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const say = (msg) => process.stderr.write(`[demo ${secs()}] ${msg}\n`);

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
		child.stdout?.on('data', (d) => (out += d));
		child.stderr?.on('data', (d) => {
			err += d;
			if (options.echoStderr) process.stderr.write(d);
		});
		child.on('error', reject);
		child.on('close', (code, signal) => {
			if (code === 0) resolve({ out, err });
			else if (!stopping) reject(new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${signal ?? `exit ${code}`})\n${(err || out).slice(-4000)}`));
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
	const list = [...children];
	if (list.length) say(`stopping ${list.map((c) => c.demoName ?? path.basename(c.spawnfile)).join(', ')}…`);
	await Promise.all(list.map((c) => stopChild(c, c.demoName === 'n8n' ? 12_000 : 5_000)));
	watchdog?.kill();
	if (list.length) say('stopped everything the demo started.');
	process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	process.on(signal, () => {
		process.stderr.write('\n');
		void shutdown(signal === 'SIGINT' ? 0 : 143);
	});
}

// --- helpers -----------------------------------------------------------------------------

function portFree(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

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

/** One HTTP request without keep-alive; JSON bodies parsed. */
function request(url, { method = 'GET', headers = {}, body } = {}) {
	return new Promise((resolve, reject) => {
		const req = http.request(url, { method, headers: { connection: 'close', ...headers }, agent: false, timeout: 30_000 }, (res) => {
			const chunks = [];
			res.on('data', (c) => chunks.push(c));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				let parsed = text;
				if (String(res.headers['content-type']).includes('json') && text) {
					try {
						parsed = JSON.parse(text);
					} catch {}
				}
				resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
			});
		});
		req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer`)));
		req.on('error', reject);
		req.end(body);
	});
}

/** n8n's REST API with the session cookie (bound to a browser-id header). */
class Rest {
	constructor(baseUrl) {
		this.baseUrl = baseUrl;
		this.cookie = '';
		this.browserId = `demo-${process.pid}-${Date.now()}`;
	}
	async call(method, urlPath, body) {
		const headers = { 'browser-id': this.browserId, accept: 'application/json' };
		if (this.cookie) headers.cookie = this.cookie;
		if (body !== undefined) headers['content-type'] = 'application/json';
		const res = await request(new URL(urlPath, this.baseUrl).toString(), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
		for (const c of [].concat(res.headers['set-cookie'] ?? [])) {
			const pair = c.split(';')[0];
			if (pair.startsWith('n8n-auth=')) this.cookie = pair;
		}
		const data = res.body && typeof res.body === 'object' && 'data' in res.body ? res.body.data : res.body;
		return { status: res.status, data, body: res.body };
	}
	async ok(method, urlPath, body) {
		const res = await this.call(method, urlPath, body);
		if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${urlPath} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 1000)}`);
		return res.data;
	}
}

function findDependencyDir(name) {
	let dir = REPO;
	for (;;) {
		const candidate = path.join(dir, 'node_modules', name);
		if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
		const parent = path.dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
}

/**
 * The built package as n8n installs a community package: package.json and dist/ copied (so a
 * rebuild while the demo runs changes nothing), runtime dependencies linked.
 */
function installPackage(userFolder) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const dest = path.join(nodesDir, 'node_modules', PKG.name);
	fs.rmSync(dest, { recursive: true, force: true });
	fs.mkdirSync(dest, { recursive: true });
	fs.copyFileSync(path.join(REPO, 'package.json'), path.join(dest, 'package.json'));
	fs.cpSync(path.join(REPO, 'dist'), path.join(dest, 'dist'), { recursive: true, dereference: true });
	for (const dep of Object.keys(PKG.dependencies ?? {})) {
		const dir = findDependencyDir(dep);
		if (!dir) fail(`the runtime dependency ${dep} is not installed: run npm ci first`);
		fs.mkdirSync(path.join(dest, 'node_modules'), { recursive: true });
		fs.symlinkSync(dir, path.join(dest, 'node_modules', dep), 'dir');
	}
	fs.writeFileSync(path.join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PKG.name]: PKG.version } }, null, 2));
}

/** The environment of every n8n process (see test/e2e/harness.ts for why each is there). */
function n8nEnv(provisioned, userFolder, port) {
	const env = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (!/^(N8N_|DB_|EXECUTIONS_|QUEUE_|WEBHOOK_URL$|NODE_OPTIONS$|NODE_PATH$|NODE_ENV$|npm_)/i.test(k)) env[k] = v;
	}
	return {
		...env,
		PATH: `${path.dirname(provisioned.nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
		NODE_ENV: 'production',
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_ENABLED: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		EXTERNAL_FRONTEND_HOOKS_URLS: '',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		...(provisioned.target === '2' ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		GENERIC_TIMEZONE: 'UTC',
	};
}

// --- the steps ---------------------------------------------------------------------------

async function build() {
	say('building the package (npm run build)…');
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	await run(npm, ['run', 'build'], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The sandbox as a child process; resolves with the JSON object it prints first. */
async function startSandbox(port) {
	say(`starting the sandbox on 127.0.0.1:${port}…`);
	const child = start(process.execPath, ['--import', 'tsx', path.join('sandbox', 'main.ts')], {
		env: { ...process.env, SANDBOX_PORT: String(port) },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	child.demoName = 'sandbox';
	let errText = '';
	child.stderr.on('data', (d) => (errText += d));
	const info = await new Promise((resolve, reject) => {
		const lines = readline.createInterface({ input: child.stdout });
		lines.once('line', (line) => {
			try {
				resolve(JSON.parse(line));
			} catch (e) {
				reject(new Error(`the sandbox printed ${line.slice(0, 200)}`));
			}
		});
		child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it was ready\n${errText.slice(-2000)}`)));
	});
	child.stdout.resume();
	child.once('exit', (code, signal) => {
		if (stopping) return;
		say(`the sandbox stopped (${signal ?? `exit ${code}`}): stopping the demo\n${errText.slice(-2000)}`);
		void shutdown(1);
	});
	return info;
}

async function provision(target) {
	say(`provisioning n8n (target ${target}; the first time this installs n8n into a cache: about 5 minutes)…`);
	const { out } = await run(process.execPath, [path.join(REPO, 'scripts', 'n8n', 'provision.mjs'), '--target', target, '--json'], { echoStderr: true });
	return JSON.parse(out.trim().split('\n').pop());
}

function userFolderFor(provisioned) {
	const root = process.env.TELEPHONY_N8N_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-telephony-platform');
	return path.join(root, 'demo', `n8n-${provisioned.n8nVersion}`);
}

/** The example workflows, as the demo imports them. */
function exampleWorkflows() {
	return fs
		.readdirSync(EXAMPLES)
		.filter((f) => f.endsWith('.json') && f !== 'sandbox-credentials.json')
		.sort()
		.map((file) => {
			const wf = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
			for (const node of wf.nodes) {
				if (node.type === `${PKG.name}.hostedPbxTrigger` && node.parameters?.source === 'poll') node.parameters.pollIntervalSeconds = DEMO_POLL_SECONDS;
			}
			return { file, workflow: { ...wf, active: false } };
		});
}

/** Is this workflow started by a trigger (so worth activating)? */
function hasTrigger(workflow) {
	return workflow.nodes.some((n) => /Trigger$/.test(n.type) && n.type !== 'n8n-nodes-base.manualTrigger');
}

async function prepareN8n(provisioned, userFolder, env, sandboxUrl) {
	const n8n = (args) => run(provisioned.nodeBin, [provisioned.n8nBin, ...args], { cwd: userFolder, env: { ...env, N8N_RUNNERS_BROKER_PORT: String(portForCli) } });
	let portForCli = await freePort();
	const inputs = path.join(userFolder, 'demo-input');
	fs.mkdirSync(inputs, { recursive: true });

	const credentials = fs.readFileSync(path.join(EXAMPLES, 'sandbox-credentials.json'), 'utf8').split(EXAMPLE_SANDBOX_URL).join(sandboxUrl);
	fs.writeFileSync(path.join(inputs, 'credentials.json'), credentials);
	say('importing the sandbox credentials…');
	await n8n(['import:credentials', `--input=${path.join(inputs, 'credentials.json')}`]);

	const examples = exampleWorkflows();
	fs.writeFileSync(path.join(inputs, 'workflows.json'), JSON.stringify(examples.map((e) => e.workflow), null, 2));
	portForCli = await freePort();
	say(`importing ${examples.length} example workflows…`);
	await n8n(['import:workflow', `--input=${path.join(inputs, 'workflows.json')}`]);
	return examples;
}

async function startN8n(provisioned, userFolder, env, port) {
	say(`starting n8n ${provisioned.n8nVersion} on http://127.0.0.1:${port} (log: ${path.join(userFolder, 'demo-n8n.log')})…`);
	const log = fs.createWriteStream(path.join(userFolder, 'demo-n8n.log'), { flags: 'a' });
	const child = start(provisioned.nodeBin, [provisioned.n8nBin, 'start'], {
		cwd: userFolder,
		env: { ...env, N8N_RUNNERS_BROKER_PORT: String(await freePort()) },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	child.demoName = 'n8n';
	let tail = '';
	const keep = (d) => {
		log.write(d);
		tail = (tail + d).slice(-6000);
	};
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
	let exited = false;
	child.once('exit', (code, signal) => {
		exited = true;
		if (stopping) return;
		say(`n8n stopped (${signal ?? `exit ${code}`}); its last lines:\n${tail}`);
		void shutdown(1);
	});
	const base = `http://127.0.0.1:${port}`;
	const deadline = Date.now() + 180_000;
	for (const [what, ok] of [
		['/healthz/readiness', async () => (await request(`${base}/healthz/readiness`)).status === 200],
		['/rest/settings', async () => {
			const res = await request(`${base}/rest/settings`);
			return res.status === 200 && typeof res.body === 'object';
		}],
	]) {
		for (;;) {
			if (exited) throw new Error('n8n exited while starting');
			if (await ok().catch(() => false)) break;
			if (Date.now() > deadline) throw new Error(`n8n did not answer ${what} within 3 minutes; its last lines:\n${tail}`);
			await new Promise((r) => setTimeout(r, 300));
		}
	}
	return base;
}

async function ownerSession(base) {
	const rest = new Rest(base);
	const setup = await rest.call('POST', '/rest/owner/setup', OWNER);
	if (setup.status >= 300 && !JSON.stringify(setup.body).includes('already')) {
		throw new Error(`owner setup answered ${setup.status}: ${JSON.stringify(setup.body)}`);
	}
	await rest.ok('POST', '/rest/login', { emailOrLdapLoginId: OWNER.email, email: OWNER.email, password: OWNER.password });
	return rest;
}

/** Activates (2.x: publishes) each trigger workflow as the editor's toggle does; returns what failed. */
async function activate(rest, examples) {
	const problems = [];
	for (const { file, workflow } of examples) {
		if (!hasTrigger(workflow)) continue;
		try {
			const { versionId } = await rest.ok('GET', `/rest/workflows/${workflow.id}`);
			await rest.ok('POST', `/rest/workflows/${workflow.id}/activate`, { versionId });
			say(`activated ${workflow.name} (${file})`);
		} catch (e) {
			problems.push(`${file}: ${e.message}`);
		}
	}
	return problems;
}

function printGuide({ base, sandbox, examples, userFolder, provisioned, problems }) {
	const s = sandbox.baseUrl;
	const post = (adminPath, body) => `curl -s -X POST ${s}/_sandbox${adminPath} -H 'content-type: application/json' -d '${JSON.stringify(body)}'`;
	const line = '─'.repeat(78);
	const out = [
		'',
		line,
		` n8n ${provisioned.n8nVersion} with ${PKG.name} is running against the sandbox.`,
		line,
		'',
		` Open      ${base}`,
		` Sign in   ${OWNER.email}  /  ${OWNER.password}`,
		'',
		' Recipes (Overview → Workflows), credentials "Sandbox Hosted PBX" and "Sandbox Platform API Key":',
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
		`  2. A missed call → "missed call SMS back" texts the caller (the demo polls every ${DEMO_POLL_SECONDS} s):`,
		`     ${post('/pbx/calls/incoming', { from: '+447700900123', callerIdName: 'Demo Caller', outcome: 'NO_ANSWER' })}`,
		'',
		'  3. A voice agent conversation → "pre-call lookup" answers with dynamic variables (shown in the',
		'     answer: the caller of step 1 or 2 is the newest inbound call), then "post-call summary" texts',
		'     the summary:',
		`     ${post('/convai/conversations', { agent_id: 'agent_demo_support' })}`,
		'',
		'  4. Live analysis: one negative-sentiment result → "live analysis alert" texts the supervisor',
		'     (repeatable), or the whole demo call (ends the session: once per demo run):',
		`     ${post('/intelligence/sessions/sess_demo_transcript/script', { events: [{ event_type: 'operator_result', operator: 'sentiment', result: { value: 'negative' }, confidence: 0.9, speaker: 'caller', trigger_text: 'This is the third time I am calling about this!' }] })}`,
		`     ${post('/intelligence/sessions/sess_demo_transcript/script', { preset: 'demo' })}`,
		'',
		'  5. An inbound SMS (no recipe listens to it: try building one with Hosted PBX Trigger → SMS Received):',
		`     ${post('/pbx/sms/inbound', { from: '+447700900123', body: 'Can I move my appointment to Friday?' })}`,
		'',
		' What n8n sent to the platform (the SMS above, among others):',
		`     curl -s '${s}/_sandbox/requests?method=POST&pathPrefix=/api/v1/customers/me/sms'`,
		' and the runs: Overview → Executions in the editor.',
		'',
		` n8n's data lives in ${userFolder} (reused next time; --fresh starts over).`,
		' Ctrl-C stops n8n and the sandbox.',
		line,
		'',
	];
	process.stdout.write(out.filter((l) => l !== undefined).join('\n'));
}

/**
 * Queue mode (`npm run demo -- --queue`): n8n main + workers + a webhook processor on Postgres
 * and Redis (see ../shared/n8n-notes.md, "Queue mode"). Planned for a later issue; this is
 * where it goes: start Postgres and Redis, share EXECUTIONS_MODE=queue, QUEUE_BULL_REDIS_*,
 * DB_POSTGRESDB_* and N8N_ENCRYPTION_KEY across `n8n start`, `n8n worker` (own
 * QUEUE_HEALTH_CHECK_PORT and N8N_RUNNERS_BROKER_PORT each) and `n8n webhook`, and stop them
 * all on Ctrl-C like the rest.
 */
async function startQueueMode() {
	fail('--queue is not implemented yet (a later issue adds queue mode: main, workers and a webhook processor). Run the demo without it.');
}

// --- main --------------------------------------------------------------------------------

async function main() {
	const args = parseArgs(process.argv.slice(2));
	if (args.queue) return await startQueueMode();
	if (!fs.existsSync(path.join(REPO, 'node_modules', 'tsx'))) fail('node_modules is missing: run npm ci first');
	for (const [port, flag] of [[args.port, '--port'], [args.sandboxPort, '--sandbox-port']]) {
		if (!(await portFree(port))) fail(`port ${port} on 127.0.0.1 is in use (another demo or n8n?): stop it, or choose another with ${flag}`);
	}

	if (!args.skipBuild) await build();
	// The sandbox starts while n8n is provisioned and prepared.
	const sandboxReady = startSandbox(args.sandboxPort);
	sandboxReady.catch(() => {});
	const provisioned = await provision(args.target);
	const userFolder = userFolderFor(provisioned);
	if (args.fresh) fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	installPackage(userFolder);
	const sandbox = await sandboxReady;
	say(`sandbox ready at ${sandbox.baseUrl}`);
	const env = n8nEnv(provisioned, userFolder, args.port);
	const examples = await prepareN8n(provisioned, userFolder, env, sandbox.baseUrl);
	const base = await startN8n(provisioned, userFolder, env, args.port);
	const rest = await ownerSession(base);
	const problems = await activate(rest, examples);
	printGuide({ base, sandbox, examples, userFolder, provisioned, problems });
	say(`ready in ${secs()}`);
}

main().catch((e) => {
	if (stopping) return;
	process.stderr.write(`\n[demo] ${e.stack || e.message}\n`);
	void shutdown(1);
});
