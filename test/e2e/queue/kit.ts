/**
 * What the queue tests share: one setup (the sandbox in this process, a cluster, the sandbox
 * credentials, the workflows imported), polling helpers, execution counts from n8n's database,
 * statistics, and a file of measured figures (test-results/queue/figures.json) that
 * docs/scaling.md quotes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { startSandbox, type Sandbox } from '../../../sandbox/index';
import type { CredentialImport } from '../harness';
import { REPO_ROOT } from '../harness';
import { SandboxAdmin, sandboxCredentials, wholesaleCredentials } from '../sandboxAdmin';
import type { QueueClusterOptions } from './cluster';
import { QueueCluster } from './cluster';

export const PKG = 'n8n-nodes-telephony-platform';
export const TEAM = '+447700900999';
export const SENDER_NUMBER = '+441632960001';
export const SMS_PATH = '/api/v1/customers/me/sms';

export const rl = (value: string) => ({ __rl: true, mode: 'id', value });
export const ME = rl('me');
export const SENDER = rl(SENDER_NUMBER);

export const PBX_CRED = { hostedPbxApi: { id: 'sandboxPbxCred01', name: 'Sandbox Hosted PBX' } };
export const KEY_CRED = { platformApiKeyApi: { id: 'sandboxKeyCred01', name: 'Sandbox Platform API Key' } };
export const WV_CRED = { wholesaleVoiceApi: { id: 'queueWvCred00001', name: 'Sandbox Wholesale Voice' } };
/** The sandbox's Hosted PBX user of the recipes (company admin of customer 1001). */
export const PBX_BASIC = `Basic ${Buffer.from('acme.admin:acme-admin-secret').toString('base64')}`;
export const WV_BASIC = `Basic ${Buffer.from('api123456:wv-demo-123456').toString('base64')}`;

/** The Wholesale Voice credential for the sandbox's account 123456. */
export function wholesaleCredential(sandboxUrl: string): CredentialImport {
	return {
		id: WV_CRED.wholesaleVoiceApi.id,
		name: WV_CRED.wholesaleVoiceApi.name,
		type: 'wholesaleVoiceApi',
		data: { baseUrl: sandboxUrl, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456', maxRateLimitWait: 30 },
	};
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it gives something truthy; returns it. Throws with `what` when the time is up. */
export async function until<T>(what: string, check: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 60_000, everyMs = 250): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await check();
			if (value) return value;
		} catch (e) {
			lastError = e;
		}
		if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`);
		await sleep(everyMs);
	}
}

/**
 * Checks that `check` stays true for `windowMs` (polled): how "exactly once" is observed, since a
 * duplicate could only show up later. Throws at the first poll where it does not hold.
 */
export async function holds(what: string, check: () => Promise<boolean> | boolean, windowMs: number, everyMs = 250): Promise<void> {
	const end = Date.now() + windowMs;
	for (;;) {
		if (!(await check())) throw new Error(`${what} stopped holding`);
		if (Date.now() >= end) return;
		await sleep(everyMs);
	}
}

// --- statistics and figures --------------------------------------------------------------------

export interface Summary {
	count: number;
	min: number;
	p50: number;
	p90: number;
	p99: number;
	max: number;
	mean: number;
}

/** Nearest-rank percentiles of millisecond values, rounded to 0.1 ms. */
export function summarize(values: number[]): Summary {
	const sorted = [...values].sort((a, b) => a - b);
	const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : NaN);
	const r = (v: number) => Math.round(v * 10) / 10;
	return {
		count: sorted.length,
		min: r(sorted[0] ?? NaN),
		p50: r(at(50)),
		p90: r(at(90)),
		p99: r(at(99)),
		max: r(sorted[sorted.length - 1] ?? NaN),
		mean: r(sorted.reduce((s, v) => s + v, 0) / (sorted.length || 1)),
	};
}

export const FIGURES_FILE = path.join(REPO_ROOT, 'test-results', 'queue', 'figures.json');

/** Adds measured figures under `key` to test-results/queue/figures.json (and prints them). */
export function recordFigures(key: string, value: unknown): void {
	fs.mkdirSync(path.dirname(FIGURES_FILE), { recursive: true });
	let all: Record<string, unknown> = {};
	try {
		all = JSON.parse(fs.readFileSync(FIGURES_FILE, 'utf8')) as Record<string, unknown>;
	} catch {
		// first figure of this run
	}
	all[key] = { ...(value as object), measuredAt: new Date().toISOString() };
	fs.writeFileSync(FIGURES_FILE, `${JSON.stringify(all, null, 2)}\n`);
	console.log(`[figures] ${key}: ${JSON.stringify(value)}`);
}

// --- the setup ---------------------------------------------------------------------------------

export interface QueueSetup {
	sandbox: Sandbox;
	admin: SandboxAdmin;
	cluster: QueueCluster;
	/** How long each part took (ms). */
	times: Record<string, number>;
}

/**
 * The sandbox (in this process, 127.0.0.1, a free port; PBX rate limit lifted, SMS settle in 50 ms),
 * a cluster with the sandbox credentials and `workflows` imported, started, with an owner signed in.
 * Workflows are activated by the tests (`cluster.main.activateNow`).
 */
export async function startQueueSetup(workflows: Array<Record<string, unknown>>, options: QueueClusterOptions = {}): Promise<QueueSetup> {
	const times: Record<string, number> = {};
	let t = Date.now();
	const lap = (name: string) => {
		times[name] = Date.now() - t;
		t = Date.now();
	};
	const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
	const admin = new SandboxAdmin(sandbox.url);
	await admin.post('/pbx/settings', { rateLimit: 10_000_000, smsDelayMs: 50 });
	let cluster: QueueCluster | undefined;
	try {
		// Each process's output also goes to a file as it comes: kept even when the run is interrupted.
		const testPath = (globalThis as { expect?: { getState?: () => { testPath?: string } } }).expect?.getState?.().testPath;
		const logDir = path.join(REPO_ROOT, 'test-results', 'queue', 'logs', `${testPath ? path.basename(testPath).replace(/\.ts$/, '') : 'cluster'}-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}`);
		cluster = await QueueCluster.create({ logDir, ...options });
		console.log(`cluster logs: ${logDir}`);
		lap('postgres+redis');
		// The recipes' credentials (examples/, examples/wholesale/) and the tests' own wholesale one.
		await cluster.main.importCredentials([...sandboxCredentials(sandbox.url), ...wholesaleCredentials(sandbox.url), wholesaleCredential(sandbox.url)]);
		await cluster.main.importWorkflows(workflows);
		lap('imports');
		const started = await cluster.start();
		times.mainStart = started.mainMs;
		times.workersAndWebhookStart = started.othersMs;
		t = Date.now();
		await cluster.main.setupOwner();
		lap('owner');
		console.log(`cluster up: ${JSON.stringify(times)} (Postgres :${cluster.postgres.port}, Redis :${cluster.redis.port}, main ${cluster.main.baseUrl}, webhooks ${cluster.webhookBaseUrl})`);
		return { sandbox, admin, cluster, times };
	} catch (e) {
		await cluster?.dispose();
		await sandbox.close();
		throw e;
	}
}

export async function stopQueueSetup(setup: Partial<QueueSetup> | undefined): Promise<void> {
	try {
		await setup?.cluster?.dispose();
	} finally {
		await setup?.sandbox?.close();
	}
}

/** The Voice Agent webhooks registered at the sandbox (secrets shown). */
export const agentWebhooks = async (admin: SandboxAdmin) => await admin.get<Array<Record<string, any>>>('/convai/webhooks');

/** Main's REST session, signing in again after main was restarted. */
export async function signedIn(cluster: QueueCluster): Promise<void> {
	try {
		void cluster.main.rest;
	} catch {
		await cluster.main.login();
	}
}

// --- executions, from n8n's database -----------------------------------------------------------

export interface ExecutionRow {
	id: string;
	status: string;
	mode: string;
	createdAt: string;
	startedAt: string;
	stoppedAt: string;
}

/** The executions of a workflow (oldest first), read from Postgres: no REST paging, any count. */
export async function executionRows(cluster: QueueCluster, workflowId: string): Promise<ExecutionRow[]> {
	const out = await cluster.sql(
		`select id, status, mode, "createdAt", coalesce("startedAt"::text, ''), coalesce("stoppedAt"::text, '') from execution_entity where "workflowId" = '${workflowId.replace(/'/g, "''")}' order by id`,
	);
	if (!out) return [];
	return out.split('\n').map((line) => {
		const [id, status, mode, createdAt, startedAt, stoppedAt] = line.split('\t');
		return { id, status, mode, createdAt, startedAt, stoppedAt };
	});
}

const UNFINISHED = ['new', 'running', 'waiting', 'queued', 'unknown'];

/** Waits until the workflow has at least `count` executions that ended; returns all its rows. */
export async function waitForFinished(cluster: QueueCluster, workflowId: string, count: number, timeoutMs = 120_000): Promise<ExecutionRow[]> {
	let rows: ExecutionRow[] = [];
	await until(
		`${count} finished executions of ${workflowId}`,
		async () => {
			rows = await executionRows(cluster, workflowId);
			return rows.filter((r) => !UNFINISHED.includes(r.status)).length >= count;
		},
		timeoutMs,
		500,
	).catch((e: Error) => {
		throw new Error(`${e.message}: ${rows.length} rows, statuses ${JSON.stringify(countBy(rows.map((r) => r.status)))}`);
	});
	return rows;
}

export function countBy(values: string[]): Record<string, number> {
	const out: Record<string, number> = {};
	for (const v of values) out[v] = (out[v] ?? 0) + 1;
	return out;
}

/** Every execution in the database (id, workflow, status). */
export async function allExecutions(cluster: QueueCluster): Promise<Array<{ id: string; workflowId: string; status: string; mode: string }>> {
	const out = await cluster.sql('select id, "workflowId", status, mode from execution_entity order by id');
	if (!out) return [];
	return out.split('\n').map((line) => {
		const [id, workflowId, status, mode] = line.split('\t');
		return { id, workflowId, status, mode };
	});
}

/** Resolves once a worker logged that it started this execution; returns the worker(s). */
export async function workersOf(cluster: QueueCluster, executionId: string, timeoutMs = 30_000): Promise<string[]> {
	return await until(`a worker's log line for execution ${executionId}`, () => {
		const found = cluster.processesThatRan(executionId);
		return found.length ? found : undefined;
	}, timeoutMs);
}

/** Calls `fn(i)` for i = 0…count-1, one every `intervalMs`, without waiting for the previous: arrivals at a fixed rate. */
export async function paced<T>(count: number, intervalMs: number, fn: (i: number) => Promise<T>): Promise<T[]> {
	const start = Date.now();
	const running: Array<Promise<T>> = [];
	for (let i = 0; i < count; i++) {
		const due = start + i * intervalMs - Date.now();
		if (due > 0) await sleep(due);
		running.push(fn(i));
	}
	return await Promise.all(running);
}
