/**
 * A real n8n for end-to-end tests: the built package loaded as a community package into n8n
 * as provisioned by scripts/n8n/provision.mjs (outside the repository), driven through its CLI
 * (import, execute, publish/activate) and, once started, its HTTP server (REST API, webhooks).
 *
 *   const n8n = await N8nInstance.create();          // target from TELEPHONY_N8N_TARGET, else 2
 *   afterAll(() => n8n.dispose());                   // stops everything, keeps the logs
 *   await n8n.importCredentials([{ id, name, type: 'hostedPbxApi', data: { … } }]);
 *   const id = await n8n.importWorkflow(workflowJson);
 *   const run = await n8n.execute(id);
 *   const { json, error } = nodeResult(run, 'Hosted PBX');
 *
 * Every process is spawned in its own process group, with a watchdog that kills the group when
 * the test process dies, and is killed on dispose(), on SIGINT/SIGTERM and on exit.
 * See test/e2e/README.md.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export type Target = '1' | '2';

/** What scripts/n8n/provision.mjs --json prints. */
export interface Provisioned {
	target: Target;
	n8nVersion: string;
	nodeVersion: string;
	nodeBin: string;
	n8nBin: string;
	home: string;
}

export interface CredentialImport {
	id: string;
	name: string;
	type: string;
	/** Plain values: n8n encrypts them on import. */
	data: Record<string, unknown>;
}

export interface CreateOptions {
	/** '2' (n8n 2.x on Node 24) or '1' (n8n 1.123 on Node 22). Default: $TELEPHONY_N8N_TARGET or '2'. */
	target?: Target | 1 | 2;
	/** A folder holding the built package: package.json and dist/. Default: PACKAGE_DIR. */
	packageDir?: string;
	/**
	 * How the package gets into `$N8N_USER_FOLDER/.n8n/nodes/node_modules/<name>`:
	 * 'copy' (default): package.json and dist/ copied, the runtime dependencies symlinked. The
	 *   package then resolves `n8n-workflow` (a peer dependency) from n8n's own install, as it
	 *   does when n8n installs it from the registry.
	 * 'symlink': the whole packageDir linked. Node resolves the link, so `n8n-workflow` comes
	 *   from the repository's node_modules (a second copy, the dev version): error classes and
	 *   `instanceof` checks then differ from production. For quick local iteration only.
	 */
	install?: 'copy' | 'symlink';
	/** Extra environment for every n8n process; `undefined` removes a variable. */
	env?: Record<string, string | undefined>;
	/** Keep the temporary user folder after dispose() (also $TELEPHONY_E2E_KEEP=1). */
	keep?: boolean;
	/** Use this user folder (created when missing) instead of a temporary one, and keep it (the demo's). */
	userFolder?: string;
	/** The port (`N8N_PORT`; a worker's health-check port): free by default. */
	port?: number;
	/** Also append everything the processes print to this file, as it comes (for people watching a demo). */
	logFile?: string;
	/** A word for the log file's name (e.g. `worker1`). */
	label?: string;
}

/** What `start()` runs: the main process, a queue-mode worker, or a webhook processor. */
export type ServerCommand = 'start' | 'worker' | 'webhook';

export interface CommandResult {
	args: string[];
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	ms: number;
	/** The process's peak resident memory (VmHWM, bytes), read from /proc while it ran: 0 when never read. */
	peakRssBytes: number;
}

/** A memory figure of a process from /proc (VmRSS now, VmHWM its peak so far), in bytes; 0 once it is gone. */
export function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
	try {
		const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
		return kb ? Number(kb) * 1024 : 0;
	} catch {
		return 0;
	}
}

/** A process's peak resident memory so far (VmHWM), in bytes. */
export const peakRss = (pid: number) => memoryOf(pid, 'VmHWM');

export interface OwnerAccount {
	email: string;
	firstName: string;
	lastName: string;
	password: string;
}

export const DEFAULT_OWNER: OwnerAccount = {
	email: 'owner@example.com',
	firstName: 'E2e',
	lastName: 'Owner',
	password: 'E2e-Owner-Passw0rd',
};

/** Fixed so that credentials imported by one command decrypt in the next. Tests only. */
export const ENCRYPTION_KEY = 'telephony-e2e-not-a-secret-0123456789abcdef';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** The published package (package.json, dist/ once built). */
export const PACKAGE_DIR = path.join(REPO_ROOT, 'packages', 'n8n-nodes-telephony-platform');
const PROVISION_SCRIPT = path.join(REPO_ROOT, 'scripts', 'n8n', 'provision.mjs');
const LOG_DIR = path.join(REPO_ROOT, 'test-results', 'e2e');

export function defaultTarget(): Target {
	const t = process.env.TELEPHONY_N8N_TARGET ?? '2';
	if (t !== '1' && t !== '2') throw new Error(`TELEPHONY_N8N_TARGET must be 1 or 2, not ${JSON.stringify(t)}`);
	return t;
}

const provisionedByTarget = new Map<Target, Provisioned>();

/**
 * Runs scripts/n8n/provision.mjs (fast when the cache is ready; otherwise it installs, which
 * takes several minutes: `npm run test:e2e` provisions before jest starts).
 */
export function provision(target: Target = defaultTarget()): Provisioned {
	const cached = provisionedByTarget.get(target);
	if (cached) return cached;
	const out = execFileSync(process.execPath, [PROVISION_SCRIPT, '--target', target, '--json'], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
		timeout: 90 * 60_000,
	});
	const result = JSON.parse(out.trim().split('\n').pop()!) as Provisioned;
	provisionedByTarget.set(target, result);
	return result;
}

// --- processes -----------------------------------------------------------------------------

/** Every live process group this module started, for the exit and signal handlers. */
const liveGroups = new Set<number>();
const liveInstances = new Set<N8nInstance>();

export function killGroup(pgid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pgid, signal);
	} catch {
		// already gone
	}
}

// Kills a process group when the test process goes away without cleaning up (Ctrl-C or SIGTERM
// under jest, whose test sandbox cannot install signal handlers; SIGKILL; a crash), removes the
// instance's user folder then, and exits once the group is gone. Runs on the machine's Node.
const WATCHDOG = `
const [parent, pgid] = process.argv.slice(1, 3).map(Number);
const cleanup = process.argv[3];
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
setInterval(() => {
	if (alive(parent)) { if (!alive(-pgid)) process.exit(0); return; }
	try { process.kill(-pgid, 'SIGKILL'); } catch {}
	if (cleanup) { try { require('fs').rmSync(cleanup, { recursive: true, force: true }); } catch {} }
	process.exit(0);
}, 1000);
`;

function watch(pgid: number, cleanupDir = ''): void {
	const dog = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), String(pgid), cleanupDir], {
		detached: true,
		stdio: 'ignore',
	});
	dog.unref();
}

/**
 * Puts a process group started outside this module (a database, a queue server) under the
 * same guard as n8n's: a watchdog kills it (and removes `cleanupDir`) when the test process
 * dies, and the exit and signal handlers kill it. `releaseProcessGroup` once it has stopped.
 */
export function guardProcessGroup(pgid: number, cleanupDir = ''): void {
	installProcessHandlers();
	liveGroups.add(pgid);
	watch(pgid, cleanupDir);
}

export function releaseProcessGroup(pgid: number): void {
	liveGroups.delete(pgid);
}

// Outside jest (a script using the harness) these handlers do the same at once. Under jest they
// never fire: the watchdogs do the work.
let handlersInstalled = false;
function installProcessHandlers(): void {
	if (handlersInstalled) return;
	handlersInstalled = true;
	process.on('exit', () => {
		for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
	});
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(signal, () => {
			for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
			for (const instance of liveInstances) instance.removeUserFolderSync();
			process.exit(signal === 'SIGINT' ? 130 : 143);
		});
	}
}

export class N8nCommandError extends Error {
	constructor(
		message: string,
		readonly result?: CommandResult,
	) {
		super(message);
		this.name = 'N8nCommandError';
	}
}

function tail(text: string, chars = 6000): string {
	return text.length > chars ? `…${text.slice(-chars)}` : text;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/**
 * The run JSON in what `n8n execute` printed: on success the whole output (with --rawOutput),
 * on a failed run n8n logs the same JSON after "Execution error:" and exits 1.
 */
export function extractRunJson(output: string): N8nRun | undefined {
	const lines = output.replace(ANSI, '').split('\n');
	for (let start = 0; start < lines.length; start++) {
		if (lines[start].trimEnd() !== '{') continue;
		for (let end = lines.length - 1; end > start; end--) {
			if (lines[end].trimEnd() !== '}') continue;
			try {
				const value = JSON.parse(lines.slice(start, end + 1).join('\n'));
				if (value && typeof value === 'object' && 'data' in value) return value as N8nRun;
			} catch {
				// not this span
			}
		}
	}
	return undefined;
}

// --- results -------------------------------------------------------------------------------

export interface N8nItem {
	json: Record<string, unknown>;
	binary?: Record<string, { data?: string; mimeType?: string; fileName?: string; id?: string; [k: string]: unknown }>;
	pairedItem?: unknown;
	error?: unknown;
	[k: string]: unknown;
}

export interface N8nNodeError {
	message: string;
	description?: string | null;
	httpCode?: string | null;
	name?: string;
	node?: { name: string; type: string };
	[k: string]: unknown;
}

export interface N8nTaskData {
	startTime: number;
	executionTime: number;
	executionStatus?: string;
	data?: { main?: Array<N8nItem[] | null> };
	error?: N8nNodeError;
	[k: string]: unknown;
}

/** The run n8n prints (IRun): `data.resultData.runData[nodeName][runIndex]`. */
export interface N8nRun {
	status?: string;
	finished?: boolean;
	mode?: string;
	data: {
		resultData: {
			runData: Record<string, N8nTaskData[]>;
			error?: N8nNodeError;
			lastNodeExecuted?: string;
		};
	};
	[k: string]: unknown;
}

export interface NodeResult {
	/** Whether the node ran at all in this run. */
	ran: boolean;
	/** Items of the chosen output (default 0) of the chosen run (default 0). */
	items: N8nItem[];
	/** `items.map(i => i.json)` */
	json: Array<Record<string, unknown>>;
	/** Every output of that run. */
	outputs: N8nItem[][];
	/** The node's error when it failed (the execution then stopped there). */
	error?: N8nNodeError;
	/** Items that carry an error (continueOnFail): their `json.error`. */
	itemErrors: unknown[];
	task?: N8nTaskData;
}

/** A node's output items and errors in a run returned by `execute()`. */
export function nodeResult(run: N8nRun, nodeName: string, options: { runIndex?: number; output?: number } = {}): NodeResult {
	const { runIndex = 0, output = 0 } = options;
	const task = run.data?.resultData?.runData?.[nodeName]?.[runIndex];
	if (!task) return { ran: false, items: [], json: [], outputs: [], itemErrors: [] };
	const outputs = (task.data?.main ?? []).map((o) => o ?? []);
	const items = outputs[output] ?? [];
	return {
		ran: true,
		items,
		json: items.map((i) => i.json),
		outputs,
		error: task.error,
		itemErrors: items.filter((i) => i.json && 'error' in i.json).map((i) => i.json.error),
		task,
	};
}

/** An execution as `GET /rest/executions` lists it. */
export interface ExecutionSummary {
	id: string;
	status?: string;
	finished?: boolean;
	mode?: string;
	startedAt?: string;
	stoppedAt?: string | null;
	workflowId?: string;
	[k: string]: unknown;
}

/**
 * The inverse of the `flatted` serialisation n8n uses for run data in its REST answers: a JSON
 * array whose first element is the root, where every string inside an object or array is the
 * index of another element (strings themselves included), so shared and circular references
 * survive. A few lines instead of a dependency.
 */
export function unflatten(text: string): unknown {
	const input = JSON.parse(text) as unknown[];
	const built = new Map<number, unknown>();
	const resolve = (index: number): unknown => {
		const value = input[index];
		if (typeof value !== 'object' || value === null) return value;
		if (built.has(index)) return built.get(index);
		const out: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
		built.set(index, out);
		for (const [key, entry] of Object.entries(value)) {
			(out as Record<string, unknown>)[key] = typeof entry === 'string' ? resolve(Number(entry)) : entry;
		}
		return out;
	};
	return resolve(0);
}

/** The run's error (the failing node's error), if the run failed. */
export function runError(run: N8nRun): N8nNodeError | undefined {
	return run.data?.resultData?.error;
}

// --- REST ----------------------------------------------------------------------------------

export interface RestResponse<T = unknown> {
	status: number;
	headers: http.IncomingHttpHeaders;
	body: T;
}

export interface HttpRequestOptions {
	method?: string;
	headers?: Record<string, string>;
	body?: string | Buffer;
	timeoutMs?: number;
}

/**
 * One HTTP request without keep-alive (a pooled socket would keep jest from exiting). The body
 * is parsed when the response says JSON, else left as text.
 */
export async function httpRequest<T = unknown>(url: string, options: HttpRequestOptions = {}): Promise<RestResponse<T>> {
	const { method = 'GET', headers = {}, body, timeoutMs = 30_000 } = options;
	return await new Promise((resolve, reject) => {
		const req = http.request(url, { method, headers: { connection: 'close', ...headers }, agent: false, timeout: timeoutMs }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('error', reject);
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				let parsed: unknown = text;
				if ((res.headers['content-type'] ?? '').includes('json') && text) {
					try {
						parsed = JSON.parse(text);
					} catch {
						// leave as text
					}
				}
				resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed as T });
			});
		});
		req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)));
		req.on('error', reject);
		req.end(body);
	});
}

/**
 * n8n's internal REST API (`/rest/...`) and other authenticated paths (`/types/nodes.json`),
 * with the session cookie. n8n binds the cookie to a `browser-id` header, sent on each request.
 */
export class RestClient {
	private cookie = '';
	readonly browserId = `e2e-${randomBytes(8).toString('hex')}`;

	constructor(readonly baseUrl: string) {}

	get loggedIn(): boolean {
		return this.cookie !== '';
	}

	async request<T = any>(method: string, urlPath: string, body?: unknown): Promise<RestResponse<T>> {
		const headers: Record<string, string> = { 'browser-id': this.browserId, accept: 'application/json' };
		if (this.cookie) headers.cookie = this.cookie;
		if (body !== undefined) headers['content-type'] = 'application/json';
		const res = await httpRequest<T>(new URL(urlPath, this.baseUrl).toString(), {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		for (const c of res.headers['set-cookie'] ?? []) {
			const pair = c.split(';')[0];
			if (pair.startsWith('n8n-auth=')) this.cookie = pair === 'n8n-auth=' ? '' : pair;
		}
		return res;
	}

	/** A request whose answer is kept as bytes (a file download, e.g. `/rest/binary-data`); never throws on a status. */
	async requestRaw(method: string, urlPath: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
		const headers: Record<string, string> = { 'browser-id': this.browserId, connection: 'close' };
		if (this.cookie) headers.cookie = this.cookie;
		return await new Promise((resolve, reject) => {
			const req = http.request(new URL(urlPath, this.baseUrl), { method, headers, agent: false, timeout: 60_000 }, (res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('error', reject);
				res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
			});
			req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: no answer within 60 s`)));
			req.on('error', reject);
			req.end();
		});
	}

	/**
	 * 2xx or throws; unwraps n8n's `{ data: … }` envelope. A read that n8n answers 503 "Database is
	 * not ready!" (its database ping failed under load; n8n reconnects by itself) is asked again
	 * for up to 30 s.
	 */
	async call<T = any>(method: string, urlPath: string, body?: unknown): Promise<T> {
		let res = await this.request(method, urlPath, body);
		for (const giveUpAt = Date.now() + 30_000; method === 'GET' && res.status === 503 && /Database is not ready/.test(JSON.stringify(res.body)) && Date.now() < giveUpAt; ) {
			await new Promise((resolve) => setTimeout(resolve, 500));
			res = await this.request(method, urlPath, body);
		}
		if (res.status < 200 || res.status >= 300) {
			throw new Error(`${method} ${urlPath} answered ${res.status}: ${tail(typeof res.body === 'string' ? res.body : JSON.stringify(res.body), 2000)}`);
		}
		const b = res.body as { data?: unknown } | undefined;
		return (b && typeof b === 'object' && !Array.isArray(b) && 'data' in b ? b.data : b) as T;
	}

	get<T = any>(urlPath: string) {
		return this.call<T>('GET', urlPath);
	}
	post<T = any>(urlPath: string, body?: unknown) {
		return this.call<T>('POST', urlPath, body ?? {});
	}
	patch<T = any>(urlPath: string, body?: unknown) {
		return this.call<T>('PATCH', urlPath, body ?? {});
	}
	delete<T = any>(urlPath: string) {
		return this.call<T>('DELETE', urlPath);
	}

	async login(email: string, password: string): Promise<void> {
		// 1.x and 2.x take emailOrLdapLoginId; older 1.x took email.
		await this.post('/rest/login', { emailOrLdapLoginId: email, email, password });
		if (!this.loggedIn) throw new Error('POST /rest/login answered without an n8n-auth cookie');
	}
}

// --- the instance --------------------------------------------------------------------------

/**
 * Ports given to an instance in this process: free while that instance is stopped (a worker
 * being restarted), so the system may offer them again; never handed out twice (a restarted
 * worker once got its own health-check port as its task broker port and could not start).
 */
const reservedPorts = new Set<number>();

/** A free port on 127.0.0.1 that no instance of this process was given. */
export async function freePort(): Promise<number> {
	for (;;) {
		const port = await new Promise<number>((resolve, reject) => {
			const server = net.createServer();
			server.unref();
			server.on('error', reject);
			server.listen(0, '127.0.0.1', () => {
				const { port: given } = server.address() as net.AddressInfo;
				server.close(() => resolve(given));
			});
		});
		if (!reservedPorts.has(port)) {
			reservedPorts.add(port);
			return port;
		}
	}
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function findDependencyDir(fromDir: string, name: string): string | undefined {
	let dir = path.resolve(fromDir);
	for (;;) {
		const candidate = path.join(dir, 'node_modules', name);
		if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
		const parent = path.dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
}

// Variables from the outer environment that would change n8n's behaviour.
const SCRUBBED_ENV = /^(N8N_|DB_|EXECUTIONS_|QUEUE_|WEBHOOK_URL$|GENERIC_TIMEZONE$|NODE_OPTIONS$|NODE_PATH$|NODE_ENV$|npm_|CREDENTIALS_|WORKFLOWS_|EXTERNAL_)/i;

/**
 * The environment of one n8n process on this machine: this process's environment without n8n's
 * own settings, plus loopback addresses, the package loaded as a community package, and nothing
 * that calls n8n's hosts. `CreateOptions.env` adds to it or overrides it.
 */
function n8nEnvironment(provisioned: Pick<Provisioned, 'nodeBin' | 'target'>, userFolder: string, port: number): Record<string, string> {
	const base: Record<string, string> = {};
	for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUBBED_ENV.test(k)) base[k] = v;
	return {
		...base,
		// n8n 2.x starts its task runner with `node` from PATH: it must be the provisioned Node.
		PATH: `${path.dirname(provisioned.nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
		// jest sets NODE_ENV=test, which n8n reads as its own unit tests (and refuses to load nodes).
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
		// 1.x: no task runners (Code runs in-process). 2.x ignores it (deprecated, logs a
		// warning) and always starts an internal JS runner, which works offline; it listens
		// on N8N_RUNNERS_BROKER_PORT, chosen free per process below.
		N8N_RUNNERS_ENABLED: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		// Nothing that calls n8n's hosts (there is no internet; each would log and wait).
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
		// Community packages: load what is in the nodes folder; never fetch the vetted list
		// nor reinstall from the registry.
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
		// n8n writes $N8N_USER_FOLDER/.n8n/config; 1.x warns unless it may chmod it to 0600.
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		// 2.x refreshes a list of MCP servers from api.n8n.io and logs the failure.
		...(provisioned.target === '2' ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		GENERIC_TIMEZONE: 'UTC',
	};
}

let instanceCounter = 0;

export class N8nInstance {
	readonly id: string;
	readonly major: 1 | 2;
	/** The package's name: its node types are `${packageName}.${nodeName}`. */
	readonly packageName: string;
	/** The base environment of every n8n process of this instance (each CLI call gets its own runner port). */
	readonly env: Record<string, string>;
	readonly baseUrl: string;

	private server?: ChildProcess;
	private serverExit?: Promise<void>;
	private serverExited = false;
	private logBuffer: string[] = [];
	private logChars = 0;
	private logListeners = new Set<() => void>();
	private restClient?: RestClient;
	private disposed = false;
	private command: ServerCommand = 'start';
	private logStream?: fs.WriteStream;

	private constructor(
		readonly provisioned: Provisioned,
		readonly userFolder: string,
		readonly port: number,
		packageName: string,
		env: Record<string, string>,
		private readonly keep: boolean,
		label?: string,
	) {
		// Names the log file: <test file>-n8n<target>-<time>-<n>.log
		const testPath = (globalThis as { expect?: { getState?: () => { testPath?: string } } }).expect?.getState?.().testPath;
		const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
		this.id = `${testPath ? `${path.basename(testPath).replace(/\.[jt]s$/, '')}-` : ''}${label ? `${label}-` : ''}n8n${provisioned.target}-${stamp}-${process.pid}-${++instanceCounter}`;
		this.major = provisioned.target === '1' ? 1 : 2;
		this.packageName = packageName;
		this.env = env;
		this.baseUrl = `http://127.0.0.1:${port}`;
	}

	/** Provisions (fast when cached), makes a fresh user folder with the package installed. */
	static async create(options: CreateOptions = {}): Promise<N8nInstance> {
		installProcessHandlers();
		const target = String(options.target ?? defaultTarget()) as Target;
		const provisioned = provision(target);
		const packageDir = path.resolve(options.packageDir ?? PACKAGE_DIR);
		const userFolder = options.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), `n8n-e2e-${target}-`));
		if (options.userFolder) fs.mkdirSync(userFolder, { recursive: true });
		try {
			const packageName = N8nInstance.installPackage(packageDir, path.join(userFolder, '.n8n', 'nodes'), options.install ?? 'copy');
			const port = options.port ?? (await freePort());
			reservedPorts.add(port);
			const env = n8nEnvironment(provisioned, userFolder, port);
			for (const [k, v] of Object.entries(options.env ?? {})) {
				if (v === undefined) delete env[k];
				else env[k] = v;
			}
			const keep = options.userFolder !== undefined || (options.keep ?? process.env.TELEPHONY_E2E_KEEP === '1');
			const instance = new N8nInstance(provisioned, userFolder, port, packageName, env, keep, options.label);
			if (options.logFile) {
				fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
				instance.logStream = fs.createWriteStream(options.logFile, { flags: 'a' });
			}
			liveInstances.add(instance);
			return instance;
		} catch (e) {
			if (!options.userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
			throw e;
		}
	}

	/** Puts the built package where n8n looks for community packages; returns its name. */
	private static installPackage(packageDir: string, nodesDir: string, mode: 'copy' | 'symlink'): string {
		const pkgPath = path.join(packageDir, 'package.json');
		const pkg = JSON.parse(fs.readFileSync(pkgPath, 'utf8')) as {
			name: string;
			version: string;
			dependencies?: Record<string, string>;
			n8n?: { nodes?: string[]; credentials?: string[] };
		};
		const listed = [...(pkg.n8n?.credentials ?? []), ...(pkg.n8n?.nodes ?? [])];
		const missing = listed.filter((f) => !fs.existsSync(path.join(packageDir, f)));
		if (!fs.existsSync(path.join(packageDir, 'dist')) || missing.length > 0) {
			throw new Error(`The package in ${packageDir} is not built (missing ${missing.join(', ') || 'dist/'}): run \`npm run build\` first.`);
		}
		const modulesDir = path.join(nodesDir, 'node_modules');
		const dest = path.join(modulesDir, pkg.name);
		// A kept user folder has the previous build: replace it.
		fs.rmSync(dest, { recursive: true, force: true });
		fs.mkdirSync(path.dirname(dest), { recursive: true });
		if (mode === 'symlink') {
			fs.symlinkSync(packageDir, dest, 'dir');
		} else {
			fs.mkdirSync(dest);
			fs.copyFileSync(pkgPath, path.join(dest, 'package.json'));
			fs.cpSync(path.join(packageDir, 'dist'), path.join(dest, 'dist'), { recursive: true, dereference: true });
			for (const dep of Object.keys(pkg.dependencies ?? {})) {
				const depDir = findDependencyDir(packageDir, dep);
				if (!depDir) throw new Error(`Runtime dependency ${dep} of ${pkg.name} is not installed under ${packageDir}`);
				const link = path.join(dest, 'node_modules', dep);
				fs.mkdirSync(path.dirname(link), { recursive: true });
				fs.symlinkSync(depDir, link, 'dir');
			}
		}
		// n8n's ledger of installed community packages.
		fs.writeFileSync(
			path.join(nodesDir, 'package.json'),
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [pkg.name]: pkg.version } }, null, 2),
		);
		return pkg.name;
	}

	get target(): Target {
		return this.provisioned.target;
	}

	get n8nVersion(): string {
		return this.provisioned.n8nVersion;
	}

	get running(): boolean {
		return this.server !== undefined && !this.serverExited;
	}

	/** The pid of the running server process (`start()`), for its memory (`peakRss`). */
	get serverPid(): number | undefined {
		return this.running ? this.server?.pid : undefined;
	}

	/** Resolves when the server started last exits, for whatever reason (a demo watches it). */
	get whenExited(): Promise<void> | undefined {
		return this.serverExit;
	}

	/** The server's process id (also its process group), while it runs. */
	get pid(): number | undefined {
		return this.running ? this.server?.pid : undefined;
	}

	/** What `start()` last ran (or runs): `start`, `worker` or `webhook`. */
	get serverCommand(): ServerCommand {
		return this.command;
	}

	/** `${packageName}.${name}`: a node type of this package as n8n names it. */
	nodeType(name: string): string {
		return `${this.packageName}.${name}`;
	}

	/** Production (`/webhook/…`) or test (`/webhook-test/…`) URL of a webhook path. */
	webhookUrl(webhookPath: string, options: { test?: boolean } = {}): string {
		return `${this.baseUrl}/${options.test ? 'webhook-test' : 'webhook'}/${webhookPath.replace(/^\/+/, '')}`;
	}

	// --- logs -----------------------------------------------------------------------------

	private appendLog(source: string, chunk: string): void {
		const text = chunk
			.replace(ANSI, '')
			.split('\n')
			.filter((l, i, all) => l !== '' || i < all.length - 1)
			.map((l) => `[${source}] ${l}`)
			.join('\n');
		if (!text) return;
		this.logStream?.write(`${text}\n`);
		this.logBuffer.push(text);
		this.logChars += text.length;
		while (this.logChars > 8_000_000 && this.logBuffer.length > 1) this.logChars -= this.logBuffer.shift()!.length;
		for (const l of this.logListeners) l();
	}

	/** Everything the n8n processes of this instance printed, each line prefixed with its source. */
	logs(): string {
		return this.logBuffer.join('\n');
	}

	/** Resolves when the logs (from now or, with `since: 'start'`, ever) match. */
	async waitForLog(pattern: RegExp, options: { timeoutMs?: number } = {}): Promise<string> {
		const { timeoutMs = 30_000 } = options;
		const check = () => this.logBuffer.join('\n').match(pattern)?.[0];
		const found = check();
		if (found) return found;
		return await new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.logListeners.delete(listener);
				reject(new Error(`No log line matched ${pattern} within ${timeoutMs} ms.\n${tail(this.logs(), 3000)}`));
			}, timeoutMs);
			const listener = () => {
				const m = check();
				if (m) {
					clearTimeout(timer);
					this.logListeners.delete(listener);
					resolve(m);
				}
			};
			this.logListeners.add(listener);
		});
	}

	// --- CLI ------------------------------------------------------------------------------

	private spawnN8n(args: string[], extraEnv: Record<string, string>): ChildProcess {
		const child = spawn(this.provisioned.nodeBin, [this.provisioned.n8nBin, ...args], {
			cwd: this.userFolder,
			env: { ...this.env, ...extraEnv },
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		if (child.pid) {
			liveGroups.add(child.pid);
			watch(child.pid, this.keep ? '' : this.userFolder);
		}
		return child;
	}

	/** Runs `n8n <args>` to completion. Never throws on a non-zero exit: see `cliOk`. */
	async cli(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<CommandResult> {
		const { timeoutMs = 180_000 } = options;
		// Each process gets its own task-runner port (2.x), so commands can run beside `start`.
		const env = { N8N_RUNNERS_BROKER_PORT: String(await freePort()), ...options.env };
		const started = Date.now();
		const child = this.spawnN8n(args, env);
		const source = `n8n ${args[0]}`;
		let stdout = '';
		let stderr = '';
		child.stdout!.setEncoding('utf8').on('data', (d: string) => {
			stdout += d;
			this.appendLog(source, d);
		});
		child.stderr!.setEncoding('utf8').on('data', (d: string) => {
			stderr += d;
			this.appendLog(`${source} stderr`, d);
		});
		const pgid = child.pid!;
		const timer = setTimeout(() => killGroup(pgid, 'SIGKILL'), timeoutMs);
		// VmHWM only grows: the last reading before the process exits is its peak (within 100 ms).
		let peakRssBytes = 0;
		const sampler = setInterval(() => (peakRssBytes = Math.max(peakRssBytes, peakRss(pgid))), 100);
		child.on('exit', () => clearInterval(sampler));
		const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
			child.on('error', reject);
			child.on('close', (c, s) => resolve([c, s]));
		}).finally(() => {
			clearTimeout(timer);
			clearInterval(sampler);
			killGroup(pgid, 'SIGKILL'); // anything it left behind (a task runner)
			liveGroups.delete(pgid);
		});
		return { args, code, signal, stdout, stderr, ms: Date.now() - started, peakRssBytes };
	}

	/** Runs `n8n <args>`; throws with its output when it fails. */
	async cliOk(args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<CommandResult> {
		const result = await this.cli(args, options);
		if (result.code !== 0) {
			throw new N8nCommandError(
				`n8n ${args.join(' ')} failed (${result.signal ?? `exit ${result.code}`}) after ${result.ms} ms\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`,
				result,
			);
		}
		return result;
	}

	private writeInput(kind: string, value: unknown): string {
		const dir = path.join(this.userFolder, 'e2e-input');
		fs.mkdirSync(dir, { recursive: true });
		const file = path.join(dir, `${kind}-${Date.now()}-${randomBytes(3).toString('hex')}.json`);
		fs.writeFileSync(file, JSON.stringify(value, null, 2));
		return file;
	}

	/** `n8n import:credentials`: plain `data`, encrypted by n8n with ENCRYPTION_KEY. */
	async importCredentials(credentials: CredentialImport[]): Promise<CommandResult> {
		const file = this.writeInput('credentials', credentials);
		return await this.cliOk(['import:credentials', `--input=${file}`]);
	}

	/**
	 * `n8n import:workflow`; returns the workflow id (given, or generated when absent). Works
	 * while the server runs for `execute`; to have triggers and webhooks listen, `activate()`
	 * the workflow before `start()`.
	 */
	async importWorkflow(workflow: Record<string, unknown>): Promise<string> {
		const wf: Record<string, unknown> = { ...workflow };
		if (typeof wf.id !== 'string' || wf.id === '') wf.id = newWorkflowId();
		wf.name ??= `e2e ${wf.id}`;
		wf.connections ??= {};
		wf.settings ??= {};
		wf.active = false;
		const file = this.writeInput('workflow', wf);
		await this.cliOk(['import:workflow', `--input=${file}`]);
		return wf.id as string;
	}

	/**
	 * `n8n import:workflow` of several workflows in one command (one n8n boot instead of one per
	 * workflow); returns their ids in order. Same defaults as `importWorkflow`.
	 */
	async importWorkflows(workflows: Array<Record<string, unknown>>): Promise<string[]> {
		const list = workflows.map((workflow) => {
			const wf: Record<string, unknown> = { ...workflow };
			if (typeof wf.id !== 'string' || wf.id === '') wf.id = newWorkflowId();
			// n8n 1.x never saves the static data of a workflow whose id is longer (a trigger's state is lost).
			if (String(wf.id).length > 16) throw new Error(`workflow id ${wf.id} is longer than n8n's 16 characters`);
			wf.name ??= `e2e ${wf.id}`;
			wf.connections ??= {};
			wf.settings ??= {};
			wf.active = false;
			return wf;
		});
		const file = this.writeInput('workflows', list);
		await this.cliOk(['import:workflow', `--input=${file}`]);
		return list.map((wf) => wf.id as string);
	}

	/**
	 * `n8n execute --id <id> --rawOutput`: the run n8n printed, whether the workflow succeeded
	 * or failed (see `runError`, `nodeResult`). Throws when n8n printed no run (it crashed, the
	 * workflow does not exist, …). Runs in its own process, beside a started server or not.
	 */
	async execute(workflowId: string, options: { timeoutMs?: number } = {}): Promise<N8nRun> {
		const result = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput'], options);
		const run = extractRunJson(result.stdout) ?? extractRunJson(result.stderr);
		if (!run) {
			throw new N8nCommandError(
				`n8n execute --id=${workflowId} printed no run (${result.signal ?? `exit ${result.code}`})\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`,
				result,
			);
		}
		return run;
	}

	/** `execute()`, failing with the run's error when the workflow failed. */
	async executeOk(workflowId: string, options: { timeoutMs?: number } = {}): Promise<N8nRun> {
		const run = await this.execute(workflowId, options);
		const error = runError(run);
		if (error) {
			throw new Error(`Workflow ${workflowId} failed in node ${error.node?.name ?? run.data.resultData.lastNodeExecuted}: ${error.message}\n${error.description ?? ''}`);
		}
		return run;
	}

	/**
	 * Makes a workflow active so that `start()` registers its triggers and webhooks. n8n reads
	 * activation at startup only (a change made by the CLI while it runs takes effect at the next
	 * start): call it before `start()`, or pass `restart: true` to stop, activate and start again.
	 *   2.x: `n8n publish:workflow --id=<id>` (publishes the current version).
	 *   1.x: `n8n update:workflow --id=<id> --active=true`.
	 */
	async activate(workflowId: string, options: { restart?: boolean } = {}): Promise<void> {
		const wasRunning = this.running;
		if (wasRunning && !options.restart) {
			throw new Error('activate() while n8n runs has no effect until the next start: call it before start(), or pass { restart: true }');
		}
		if (wasRunning) await this.stop();
		if (this.major >= 2) await this.cliOk(['publish:workflow', `--id=${workflowId}`]);
		else await this.cliOk(['update:workflow', `--id=${workflowId}`, '--active=true']);
		if (wasRunning) await this.start();
	}

	// --- server ---------------------------------------------------------------------------

	/**
	 * `n8n start` (default); resolves once /healthz answers and then the REST API does.
	 * `command: 'worker'` runs `n8n worker` with its health check on this instance's port
	 * (`QUEUE_HEALTH_CHECK_PORT`), `'webhook'` a webhook processor on it: both are ready when
	 * `/healthz/readiness` answers 200 (queue mode: see test/e2e/queue/cluster.ts). A later
	 * `start()` without a command runs the same command again.
	 */
	async start(options: { timeoutMs?: number; command?: ServerCommand } = {}): Promise<void> {
		const { timeoutMs = 120_000 } = options;
		if (this.running) return;
		if (this.disposed) throw new Error('this instance was disposed');
		if (options.command) this.command = options.command;
		const command = this.command;
		const started = Date.now();
		const extraEnv: Record<string, string> = { N8N_RUNNERS_BROKER_PORT: String(await freePort()) };
		if (command === 'worker') Object.assign(extraEnv, { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(this.port), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' });
		const child = this.spawnN8n([command], extraEnv);
		this.server = child;
		this.serverExited = false;
		child.stdout!.setEncoding('utf8').on('data', (d: string) => this.appendLog(`n8n ${command}`, d));
		child.stderr!.setEncoding('utf8').on('data', (d: string) => this.appendLog(`n8n ${command} stderr`, d));
		this.serverExit = new Promise<void>((resolve) => {
			child.on('close', (code, signal) => {
				this.serverExited = true;
				this.appendLog('harness', `n8n ${command} exited (${signal ?? `exit ${code}`})`);
				killGroup(child.pid!, 'SIGKILL');
				liveGroups.delete(child.pid!);
				resolve();
			});
		});
		const fail = async (why: string): Promise<never> => {
			await this.stop();
			throw new Error(`n8n did not start: ${why}\n--- n8n logs\n${tail(this.logs(), 8000)}`);
		};
		const poll = async (what: string, ok: () => Promise<boolean>) => {
			while (Date.now() - started < timeoutMs) {
				if (this.serverExited) await fail('the process exited');
				try {
					if (await ok()) return;
				} catch {
					// not listening yet
				}
				await sleep(250);
			}
			await fail(`${what} within ${timeoutMs} ms`);
		};
		// /healthz says ok as soon as the port is open; other paths then answer 200 with the text
		// "n8n is starting up" until migrations are done. /healthz/readiness waits for the database
		// and the end of startup; then the REST API must answer JSON.
		await poll('/healthz/readiness did not answer 200', async () => (await httpRequest(`${this.baseUrl}/healthz/readiness`, { timeoutMs: 5000 })).status === 200);
		if (command === 'start') {
			await poll('/rest/settings did not answer JSON', async () => {
				const res = await httpRequest(`${this.baseUrl}/rest/settings`, { timeoutMs: 5000 });
				return res.status === 200 && typeof res.body === 'object';
			});
		}
		this.appendLog('harness', `n8n ${this.n8nVersion} ${command} ready at ${this.baseUrl} after ${Date.now() - started} ms`);
	}

	/**
	 * Kills the server's whole process group at once (default SIGKILL: a crash, no shutdown
	 * hooks) and waits until it is gone. `start()` brings it back.
	 */
	async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
		const child = this.server;
		if (!child || this.serverExited) return;
		this.appendLog('harness', `killing n8n ${this.command} (pid ${child.pid}) with ${signal}`);
		killGroup(child.pid!, signal);
		await this.serverExit;
		this.server = undefined;
		this.restClient = undefined;
	}

	/**
	 * Stops the server: SIGTERM, then SIGKILL of its whole process group 10 s after n8n's own
	 * graceful-shutdown timeout (`N8N_GRACEFUL_SHUTDOWN_TIMEOUT`: 5 s in these tests unless one sets it).
	 */
	async stop(): Promise<void> {
		const child = this.server;
		if (!child || this.serverExited) {
			this.server = undefined;
			return;
		}
		const deadlineMs = ((Number(this.env.N8N_GRACEFUL_SHUTDOWN_TIMEOUT) || 30) + 10) * 1000; // n8n's default is 30 s
		const started = Date.now();
		killGroup(child.pid!, 'SIGTERM');
		let timer: NodeJS.Timeout | undefined;
		const timedOut = await Promise.race([
			this.serverExit!.then(() => false),
			new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), deadlineMs))),
		]);
		clearTimeout(timer);
		if (timedOut) {
			this.appendLog('harness', `n8n did not stop within ${deadlineMs / 1000} s of SIGTERM: SIGKILL`);
			killGroup(child.pid!, 'SIGKILL');
			await this.serverExit;
		} else {
			this.appendLog('harness', `n8n stopped ${Date.now() - started} ms after SIGTERM`);
		}
		this.server = undefined;
		this.restClient = undefined;
	}

	/**
	 * Polls a production (or, with `test`, test) webhook until it answers something other than
	 * 404 (not registered yet), and returns that answer. Registration follows startup by a few
	 * seconds. The answering call runs the workflow once, like any call.
	 */
	async waitForWebhook(
		webhookPath: string,
		options: { method?: string; body?: unknown; headers?: Record<string, string>; test?: boolean; timeoutMs?: number } = {},
	): Promise<RestResponse<any>> {
		const { method = 'GET', body, headers = {}, test = false, timeoutMs = 30_000 } = options;
		const url = this.webhookUrl(webhookPath, { test });
		const deadline = Date.now() + timeoutMs;
		let last: RestResponse<any> | undefined;
		while (Date.now() < deadline) {
			if (!this.running) throw new Error('waitForWebhook() needs a started server');
			last = await httpRequest(url, {
				method,
				headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
				body: body === undefined ? undefined : JSON.stringify(body),
			}).catch(() => undefined);
			if (last && last.status !== 404) return last;
			await sleep(250);
		}
		throw new Error(`${method} ${url} still answered ${last?.status ?? 'nothing'} after ${timeoutMs} ms: ${JSON.stringify(last?.body)}`);
	}

	// --- REST -----------------------------------------------------------------------------

	/**
	 * Activates (2.x: publishes) a workflow in the running server through the REST API, as the
	 * editor's toggle does: its triggers start at once, and an activation error (a trigger that
	 * cannot reach its service, a webhook the service refuses) is thrown with n8n's message.
	 * Needs a session (`setupOwner()`). Both 1.123 and 2.x take `POST /rest/workflows/:id/activate`
	 * with the current `versionId`.
	 */
	async activateNow(workflowId: string): Promise<void> {
		const { versionId } = await this.rest.get<{ versionId: string }>(`/rest/workflows/${workflowId}`);
		const res = await this.rest.request('POST', `/rest/workflows/${workflowId}/activate`, { versionId });
		if (res.status < 200 || res.status >= 300) {
			throw new Error(`activating workflow ${workflowId} answered ${res.status}: ${JSON.stringify(res.body)}\n--- n8n logs\n${tail(this.logs(), 3000)}`);
		}
	}

	/** Deactivates (2.x: unpublishes) a workflow in the running server (REST, like `activateNow`). */
	async deactivateNow(workflowId: string): Promise<void> {
		await this.rest.post(`/rest/workflows/${workflowId}/deactivate`, {});
	}

	/** The executions of a workflow, newest first (REST; summaries without run data). */
	async executions(workflowId: string): Promise<ExecutionSummary[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const all = new Map<string, ExecutionSummary>();
		// n8n answers at most 100 per page whatever the limit: older pages by `lastId`.
		for (let lastId = ''; ; ) {
			const page = await this.rest.get<{ results: ExecutionSummary[] } | ExecutionSummary[]>(`/rest/executions?filter=${filter}&limit=100${lastId ? `&lastId=${lastId}` : ''}`);
			const list = Array.isArray(page) ? page : page.results;
			const fresh = list.filter((e) => !all.has(String(e.id)));
			for (const e of fresh) all.set(String(e.id), e);
			if (fresh.length === 0 || list.length < 100) break;
			lastId = String(Math.min(...list.map((e) => Number(e.id))));
		}
		return [...all.values()].sort((a, b) => Number(b.id) - Number(a.id));
	}

	/** One finished execution with its run data, shaped like `execute()`'s run (REST). */
	async execution(executionId: string): Promise<N8nRun> {
		const found = await this.rest.get<{ id: string; status?: string; finished?: boolean; mode?: string; data: string | N8nRun['data'] }>(
			`/rest/executions/${executionId}`,
		);
		const data = typeof found.data === 'string' ? (unflatten(found.data) as N8nRun['data']) : found.data;
		return { ...found, data } as N8nRun;
	}

	/**
	 * Waits until a workflow has `count` executions that are no longer running (a trigger fired
	 * and the run ended), and returns those runs, oldest first.
	 */
	async waitForExecutions(workflowId: string, count = 1, options: { timeoutMs?: number; since?: string } = {}): Promise<N8nRun[]> {
		const { timeoutMs = 30_000, since } = options;
		const deadline = Date.now() + timeoutMs;
		let seen: ExecutionSummary[] = [];
		for (;;) {
			seen = (await this.executions(workflowId)).filter((e) => since === undefined || Number(e.id) > Number(since));
			const done = seen.filter((e) => !['new', 'running', 'waiting'].includes(String(e.status)) && (e.finished !== undefined || e.stoppedAt));
			if (done.length >= count) {
				const ids = done.map((e) => e.id).sort((a, b) => Number(a) - Number(b)).slice(0, count);
				return await Promise.all(ids.map((id) => this.execution(id)));
			}
			if (Date.now() > deadline) {
				throw new Error(`workflow ${workflowId}: ${done.length} of ${count} executions finished within ${timeoutMs} ms (${JSON.stringify(seen.map((e) => [e.id, e.status]))})\n--- n8n logs\n${tail(this.logs(), 4000)}`);
			}
			await sleep(250);
		}
	}

	/** A REST client without a session (for /rest/settings, /healthz, …). */
	client(): RestClient {
		return new RestClient(this.baseUrl);
	}

	/** The logged-in client from `setupOwner()` / `login()`. */
	get rest(): RestClient {
		if (!this.restClient) throw new Error('No session: call setupOwner() (or login()) after start()');
		return this.restClient;
	}

	/**
	 * Creates the instance owner (`POST /rest/owner/setup`, once per user folder) and signs in
	 * (`POST /rest/login`); returns the logged-in client. Needs a started server.
	 */
	async setupOwner(owner: OwnerAccount = DEFAULT_OWNER): Promise<RestClient> {
		if (!this.running) throw new Error('setupOwner() needs a started server');
		const client = this.client();
		const res = await client.request('POST', '/rest/owner/setup', owner);
		const alreadySetUp = res.status === 400 && JSON.stringify(res.body).includes('already');
		if ((res.status < 200 || res.status >= 300) && !alreadySetUp) {
			throw new Error(`owner setup answered ${res.status}: ${JSON.stringify(res.body)}`);
		}
		await client.login(owner.email, owner.password);
		this.restClient = client;
		return client;
	}

	async login(email = DEFAULT_OWNER.email, password = DEFAULT_OWNER.password): Promise<RestClient> {
		const client = this.client();
		await client.login(email, password);
		this.restClient = client;
		return client;
	}

	// --- teardown -------------------------------------------------------------------------

	/** Writes the logs to test-results/e2e/<id>.log; returns the file. */
	saveLogs(): string | undefined {
		try {
			fs.mkdirSync(LOG_DIR, { recursive: true });
			const file = path.join(LOG_DIR, `${this.id}.log`);
			fs.writeFileSync(file, this.logs() + '\n');
			return file;
		} catch {
			return undefined;
		}
	}

	removeUserFolderSync(): void {
		if (!this.keep) fs.rmSync(this.userFolder, { recursive: true, force: true });
	}

	/** Stops the server, saves the logs, removes the user folder (unless kept). Idempotent. */
	async dispose(): Promise<void> {
		if (this.disposed) return;
		this.disposed = true;
		try {
			await this.stop();
		} finally {
			this.saveLogs();
			this.logStream?.end();
			this.removeUserFolderSync();
			liveInstances.delete(this);
		}
	}
}

/** Stops every instance this process created (for a jest afterAll in shared setups). */
export async function disposeAll(): Promise<void> {
	await Promise.all([...liveInstances].map((i) => i.dispose()));
}

/** A workflow id as n8n makes them (16 alphanumerics). */
export function newWorkflowId(): string {
	const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
	const bytes = randomBytes(16);
	return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}
