/**
 * n8n in queue mode on one machine, for the queue tests (`npm run test:queue`) and the demo
 * (`npm run demo -- --queue`): a throwaway Postgres and Redis, one main (`n8n start`: editor,
 * REST API, triggers and pollers, activation), workers (`n8n worker`: every production
 * execution) and a webhook processor (`n8n webhook`: production webhooks), all on 127.0.0.1.
 *
 *   const cluster = await QueueCluster.create();          // { workers: 2, webhookProcessors: 1, env, … }
 *   afterAll(() => cluster.dispose());                     // n8n processes, Redis, Postgres; logs kept
 *   await cluster.main.importCredentials(…); await cluster.main.importWorkflows([…]);
 *   await cluster.start();                                  // main first (migrations), then the others
 *   await cluster.main.setupOwner(); await cluster.main.activateNow(id);
 *   cluster.webhookUrl('path');                             // where production webhooks are reached
 *   cluster.workersThatRan(executionId);                    // ['worker1'] (from the workers' logs)
 *   await cluster.restart('main', { kill: true });          // SIGKILL, then start again
 *   await cluster.sql('select count(*) from execution_entity');
 *
 * Every n8n process is an `N8nInstance` of the harness (its own user folder with the package
 * copied in, the same encryption key, its own ports). Postgres and Redis run in the foreground
 * as children in their own process groups, guarded like n8n's: a watchdog kills them and
 * removes their folders if the test process dies, so Ctrl-C leaves nothing behind.
 *
 * Needs Debian's `postgresql` and `redis-server` packages (`npm run test:queue` and the demo
 * install them when missing: scripts/n8n/services.mjs).
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { CreateOptions, ServerCommand } from '../harness';
import { N8nInstance, freePort, guardProcessGroup, killGroup, releaseProcessGroup } from '../harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// --- the services: Postgres and Redis ----------------------------------------------------------

/** The newest `/usr/lib/postgresql/<version>/bin` (Debian's layout), or $TELEPHONY_PG_BIN. */
export function postgresBinDir(): string {
	if (process.env.TELEPHONY_PG_BIN) return process.env.TELEPHONY_PG_BIN;
	const root = '/usr/lib/postgresql';
	const versions = fs.existsSync(root)
		? fs
				.readdirSync(root)
				.filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
				.sort((a, b) => Number(b) - Number(a))
		: [];
	if (!versions.length) {
		throw new Error('Postgres is not installed (no /usr/lib/postgresql/*/bin/postgres): `apt-get install postgresql`, or run `npm run test:queue`, which installs it');
	}
	return path.join(root, versions[0], 'bin');
}

export function redisServerBin(): string {
	for (const dir of (process.env.PATH ?? '').split(path.delimiter).concat(['/usr/bin', '/usr/sbin'])) {
		const candidate = path.join(dir, 'redis-server');
		if (dir && fs.existsSync(candidate)) return candidate;
	}
	throw new Error('redis-server is not installed: `apt-get install redis-server`, or run `npm run test:queue`, which installs it');
}

/** A service in the foreground, in its own process group, guarded; its output kept. */
class ServiceProcess {
	private output = '';
	private exited = false;
	private readonly exit: Promise<void>;

	constructor(
		readonly name: string,
		readonly child: ChildProcess,
		readonly dir: string,
	) {
		guardProcessGroup(child.pid!, dir);
		const keep = (d: Buffer) => {
			this.output = (this.output + d.toString('utf8')).slice(-200_000);
		};
		child.stdout?.on('data', keep);
		child.stderr?.on('data', keep);
		this.exit = new Promise((resolve) =>
			child.on('close', () => {
				this.exited = true;
				releaseProcessGroup(child.pid!);
				resolve();
			}),
		);
	}

	get pid(): number {
		return this.child.pid!;
	}

	logs(): string {
		return this.output;
	}

	async waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (!pattern.test(this.output)) {
			if (this.exited) throw new Error(`${this.name} exited while starting:\n${this.output.slice(-3000)}`);
			if (Date.now() > deadline) throw new Error(`${this.name} did not print ${pattern} within ${timeoutMs} ms:\n${this.output.slice(-3000)}`);
			await sleep(100);
		}
	}

	/** `signal` to the leader, SIGKILL to the group after `graceMs`; then the folder is removed. */
	async stop(signal: NodeJS.Signals, graceMs = 15_000, keepDir = false): Promise<void> {
		if (!this.exited) {
			try {
				process.kill(this.pid, signal);
			} catch {
				// already gone
			}
			let timer: NodeJS.Timeout | undefined;
			const timedOut = await Promise.race([this.exit.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs)))]);
			clearTimeout(timer);
			if (timedOut) killGroup(this.pid, 'SIGKILL');
			await this.exit;
		}
		killGroup(this.pid, 'SIGKILL');
		if (!keepDir) fs.rmSync(this.dir, { recursive: true, force: true });
	}
}

/** The uid/gid to run Postgres as: `postgres` when we are root (Postgres refuses root), else ourselves. */
function postgresUser(): { uid?: number; gid?: number } {
	if (process.getuid?.() !== 0) return {};
	const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
	const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
	return { uid, gid };
}

export class PostgresServer {
	private constructor(
		private readonly service: ServiceProcess,
		readonly port: number,
		readonly binDir: string,
		readonly database: string,
	) {}

	/** initdb in a fresh temporary folder, then `postgres` on 127.0.0.1 (trust, no fsync: throwaway). */
	static async start(options: { port?: number } = {}): Promise<PostgresServer> {
		const binDir = postgresBinDir();
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-queue-pg-'));
		const user = postgresUser();
		try {
			if (user.uid !== undefined) fs.chownSync(dir, user.uid, user.gid!);
			const dataDir = path.join(dir, 'data');
			await new Promise<void>((resolve, reject) =>
				execFile(
					path.join(binDir, 'initdb'),
					['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--locale=C'],
					{ ...user, cwd: dir, timeout: 180_000 },
					(error, stdout, stderr) => (error ? reject(new Error(`initdb failed: ${error.message}\n${stdout}\n${stderr}`)) : resolve()),
				),
			);
			const port = options.port ?? (await freePort());
			const child = spawn(
				path.join(binDir, 'postgres'),
				[
					'-D', dataDir, '-p', String(port), '-k', dir,
					'-c', 'listen_addresses=127.0.0.1',
					'-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
					'-c', 'max_connections=200',
				],
				{ ...user, cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
			);
			const service = new ServiceProcess('postgres', child, dir);
			await service.waitForOutput(/database system is ready to accept connections/, 120_000);
			return new PostgresServer(service, port, binDir, 'postgres');
		} catch (e) {
			fs.rmSync(dir, { recursive: true, force: true });
			throw e;
		}
	}

	get pid(): number {
		return this.service.pid;
	}

	get dir(): string {
		return this.service.dir;
	}

	logs(): string {
		return this.service.logs();
	}

	/** One SQL statement through psql; the rows as tab-separated text (unaligned, tuples only). */
	async sql(query: string): Promise<string> {
		return await new Promise((resolve, reject) =>
			execFile(
				path.join(this.binDir, 'psql'),
				['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', this.database, '-AtX', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-c', query],
				{ timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
				(error, stdout, stderr) => (error ? reject(new Error(`psql: ${error.message}\n${stderr}`)) : resolve(stdout.trimEnd())),
			),
		);
	}

	/** Fast shutdown (SIGINT), then the folder is removed. */
	async stop(): Promise<void> {
		await this.service.stop('SIGINT');
	}
}

export class RedisServer {
	private constructor(
		private readonly service: ServiceProcess,
		readonly port: number,
	) {}

	/** `redis-server` on 127.0.0.1, nothing saved to disk. */
	static async start(options: { port?: number } = {}): Promise<RedisServer> {
		const bin = redisServerBin();
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-queue-redis-'));
		const port = options.port ?? (await freePort());
		const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'], {
			cwd: dir,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const service = new ServiceProcess('redis', child, dir);
		try {
			await service.waitForOutput(/Ready to accept connections/, 60_000);
		} catch (e) {
			await service.stop('SIGKILL');
			throw e;
		}
		return new RedisServer(service, port);
	}

	get pid(): number {
		return this.service.pid;
	}

	logs(): string {
		return this.service.logs();
	}

	/** One redis-cli command against this server; its output. */
	async cli(...args: string[]): Promise<string> {
		const bin = path.join(path.dirname(redisServerBin()), 'redis-cli');
		return await new Promise((resolve, reject) =>
			execFile(bin, ['-h', '127.0.0.1', '-p', String(this.port), ...args], { timeout: 30_000 }, (error, stdout, stderr) =>
				error ? reject(new Error(`redis-cli ${args.join(' ')}: ${error.message}\n${stderr}`)) : resolve(stdout.trimEnd()),
			),
		);
	}

	async stop(): Promise<void> {
		await this.service.stop('SIGTERM');
	}
}

// --- the cluster -------------------------------------------------------------------------------

export interface QueueClusterOptions {
	/** `n8n worker` processes (2). */
	workers?: number;
	/** `n8n webhook` processes (1). N8N_WEBHOOK_URL names the first: with more, put a proxy in front. */
	webhookProcessors?: number;
	/** Extra environment for every n8n process; `undefined` removes a variable. */
	env?: Record<string, string | undefined>;
	/** Extra environment per process name (`main`, `worker1`, `webhook1`, …). */
	envFor?: Record<string, Record<string, string | undefined>>;
	/** The main process's port (free by default). */
	mainPort?: number;
	/** Write each process's output to `<logDir>/<name>.log` as it comes (the demo). */
	logDir?: string;
	/** Keep the user folders after dispose() (also $TELEPHONY_E2E_KEEP=1). */
	keep?: boolean;
	target?: CreateOptions['target'];
}

export type ProcessName = 'main' | `worker${number}` | `webhook${number}`;

/** Settings every process of the cluster shares: the queue, the database, where webhooks are reached. */
export function queueEnv(postgres: PostgresServer, redis: RedisServer, webhookBaseUrl: string): Record<string, string | undefined> {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: 'postgres',
		DB_POSTGRESDB_PASSWORD: '',
		// Production webhooks (and the URLs triggers register at the service) go to the webhook processor.
		N8N_WEBHOOK_URL: `${webhookBaseUrl}/`,
		WEBHOOK_URL: undefined,
	};
}

export class QueueCluster {
	/** Every n8n process by name: main, worker1…, webhook1…. */
	readonly processes: Map<ProcessName, N8nInstance>;

	private disposed = false;

	private constructor(
		readonly postgres: PostgresServer,
		readonly redis: RedisServer,
		readonly main: N8nInstance,
		readonly workers: N8nInstance[],
		readonly webhookProcessors: N8nInstance[],
	) {
		this.processes = new Map<ProcessName, N8nInstance>([
			['main', main],
			...workers.map((w, i): [ProcessName, N8nInstance] => [`worker${i + 1}`, w]),
			...webhookProcessors.map((w, i): [ProcessName, N8nInstance] => [`webhook${i + 1}`, w]),
		]);
	}

	/**
	 * Starts Postgres and Redis and prepares every n8n process (user folder, package, ports); n8n
	 * itself starts with `start()`, so that credentials and workflows can be imported first.
	 */
	static async create(options: QueueClusterOptions = {}): Promise<QueueCluster> {
		const { workers = 2, webhookProcessors = 1 } = options;
		const [postgres, redis] = await Promise.all([PostgresServer.start(), RedisServer.start()]);
		const made: N8nInstance[] = [];
		try {
			const webhookPorts = await Promise.all(Array.from({ length: webhookProcessors }, () => freePort()));
			const shared = { ...queueEnv(postgres, redis, `http://127.0.0.1:${webhookPorts[0]}`), ...options.env };
			const make = async (name: ProcessName, port?: number) => {
				const instance = await N8nInstance.create({
					target: options.target,
					port,
					label: name,
					keep: options.keep,
					env: { ...shared, ...options.envFor?.[name] },
					logFile: options.logDir ? path.join(options.logDir, `${name}.log`) : undefined,
				});
				made.push(instance);
				return instance;
			};
			const main = await make('main', options.mainPort);
			const workerList: N8nInstance[] = [];
			for (let i = 1; i <= workers; i++) workerList.push(await make(`worker${i}`));
			const webhookList: N8nInstance[] = [];
			for (let i = 1; i <= webhookProcessors; i++) webhookList.push(await make(`webhook${i}`, webhookPorts[i - 1]));
			return new QueueCluster(postgres, redis, main, workerList, webhookList);
		} catch (e) {
			await Promise.all(made.map((m) => m.dispose()));
			await Promise.all([postgres.stop(), redis.stop()]);
			throw e;
		}
	}

	/** The command each process runs. */
	static commandOf(name: ProcessName): ServerCommand {
		return name === 'main' ? 'start' : name.startsWith('worker') ? 'worker' : 'webhook';
	}

	get(name: ProcessName): N8nInstance {
		const instance = this.processes.get(name);
		if (!instance) throw new Error(`no process ${name} in this cluster (${[...this.processes.keys()].join(', ')})`);
		return instance;
	}

	/** The webhook processor's base URL (what N8N_WEBHOOK_URL says). */
	get webhookBaseUrl(): string {
		return this.webhookProcessors[0].baseUrl;
	}

	/** A production webhook's URL at the webhook processor. */
	webhookUrl(webhookPath: string): string {
		return `${this.webhookBaseUrl}/webhook/${webhookPath.replace(/^\/+/, '')}`;
	}

	/**
	 * Starts main (it migrates the database), then the workers and webhook processors together.
	 * Each is ready when its `/healthz/readiness` says so (main: also its REST API).
	 */
	async start(options: { timeoutMs?: number } = {}): Promise<{ mainMs: number; othersMs: number }> {
		const { timeoutMs = 300_000 } = options;
		const t0 = Date.now();
		await this.main.start({ command: 'start', timeoutMs });
		const t1 = Date.now();
		await Promise.all(
			[...this.processes].filter(([name]) => name !== 'main').map(([name, p]) => p.start({ command: QueueCluster.commandOf(name), timeoutMs })),
		);
		return { mainMs: t1 - t0, othersMs: Date.now() - t1 };
	}

	/** Starts one process that was stopped or killed (the same command as before). */
	async startProcess(name: ProcessName, options: { timeoutMs?: number } = {}): Promise<void> {
		await this.get(name).start({ command: QueueCluster.commandOf(name), timeoutMs: options.timeoutMs ?? 300_000 });
	}

	/**
	 * Stops one process (SIGTERM: n8n's graceful shutdown) or, with `kill`, SIGKILLs its process
	 * group (a crash), then starts it again. Main's REST session is gone afterwards: `login()`.
	 */
	async restart(name: ProcessName, options: { kill?: boolean; timeoutMs?: number } = {}): Promise<{ downMs: number; upMs: number }> {
		const p = this.get(name);
		const t0 = Date.now();
		if (options.kill) await p.kill('SIGKILL');
		else await p.stop();
		const t1 = Date.now();
		await this.startProcess(name, options);
		return { downMs: t1 - t0, upMs: Date.now() - t1 };
	}

	/** Everything one process printed (all its runs), lines prefixed by the command. */
	logs(name: ProcessName): string {
		return this.get(name).logs();
	}

	/** Every process's logs, each line prefixed with the process name. */
	allLogs(): string {
		return [...this.processes]
			.map(([name, p]) =>
				p
					.logs()
					.split('\n')
					.map((l) => `${name} ${l}`)
					.join('\n'),
			)
			.join('\n');
	}

	/** The execution ids each process logged with `pattern` (a regex whose group 1 is the id). */
	private idsLogged(pattern: RegExp): Map<ProcessName, string[]> {
		const out = new Map<ProcessName, string[]>();
		for (const [name, p] of this.processes) {
			const ids = [...p.logs().matchAll(new RegExp(pattern.source, 'g'))].map((m) => m[1]);
			out.set(name, ids);
		}
		return out;
	}

	/**
	 * Which processes ran an execution: n8n 2.x records no host in the execution itself; a worker
	 * logs "Worker started execution <id> (job <job>)" (info level) for each job it takes.
	 */
	processesThatRan(executionId: string): ProcessName[] {
		const found: ProcessName[] = [];
		for (const [name, ids] of this.idsLogged(/Worker started execution (\d+) \(job/)) {
			found.push(...ids.filter((id) => id === String(executionId)).map(() => name));
		}
		return found;
	}

	/** Which process put an execution on the queue ("Enqueued execution <id> (job <job>)"). */
	processesThatEnqueued(executionId: string): ProcessName[] {
		const found: ProcessName[] = [];
		for (const [name, ids] of this.idsLogged(/Enqueued execution (\d+) \(job/)) {
			found.push(...ids.filter((id) => id === String(executionId)).map(() => name));
		}
		return found;
	}

	/** How many executions each worker started, from the logs. */
	executionsPerWorker(): Record<string, number> {
		const out: Record<string, number> = {};
		for (const [name, ids] of this.idsLogged(/Worker started execution (\d+) \(job/)) if (name.startsWith('worker')) out[name] = ids.length;
		return out;
	}

	/** One SQL statement against n8n's database (tab-separated rows). */
	async sql(query: string): Promise<string> {
		return await this.postgres.sql(query);
	}

	/** Stops every n8n process, then Redis and Postgres; saves each process's logs. Idempotent. */
	async dispose(): Promise<void> {
		if (this.disposed) return;
		this.disposed = true;
		const others = [...this.processes].filter(([name]) => name !== 'main').map(([, p]) => p);
		try {
			await Promise.all(others.map((p) => p.dispose()));
			await this.main.dispose();
		} finally {
			await Promise.all([this.redis.stop(), this.postgres.stop()]);
		}
	}
}
