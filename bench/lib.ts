/** Shared by the benchmarks: a sandbox in its own process, percentiles, smoke sizes, and one way to print figures. */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

import { nodeModule } from '../scripts/packageSource';

export { nodeModule };

/**
 * Smoke mode (`npm run bench -- --smoke`, or BENCH_SMOKE=1): every benchmark once with tiny sizes,
 * so that CI sees a benchmark that no longer runs. No target is judged but the exact ones (below).
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** A size: the full one, or the tiny one in smoke mode. */
export function sized<T>(full: T, smoke: T): T {
	return SMOKE ? smoke : full;
}

// Stopped (a smoke run's time limit): exit as on any failure, so that 'exit' handlers stop the sandbox.
process.once('SIGTERM', () => process.exit(143));

/** This benchmark's name: its file's. */
const BENCHMARK = basename(process.argv[1] ?? 'bench', '.ts');

export interface SandboxProcess {
	url: string;
	info: Record<string, unknown>;
	admin(path: string, body?: unknown, method?: string): Promise<unknown>;
	stop(): Promise<void>;
}

/** The sandbox in a child process, so that it does not share an event loop with what is measured. */
export async function startSandboxProcess(): Promise<SandboxProcess> {
	const root = join(__dirname, '..');
	// tsx as a loader, not its CLI: the CLI starts a second Node.js process (half a second of CPU).
	const child: ChildProcess = spawn(process.execPath, ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'sandbox/main.ts')], {
		env: { ...process.env, SANDBOX_PORT: '0' },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	// A benchmark that fails or is stopped exits at once: its sandbox goes with it.
	const orphaned = () => child.kill('SIGTERM');
	process.once('exit', orphaned);
	const firstLine = await new Promise<string>((resolve, reject) => {
		const lines = createInterface({ input: child.stdout! });
		lines.once('line', resolve);
		child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
	});
	const info = JSON.parse(firstLine) as { baseUrl: string };
	const url = info.baseUrl;
	return {
		url,
		info,
		admin: async (path, body, method = 'POST') => {
			const response = await fetch(`${url}/_sandbox${path}`, {
				method,
				headers: { 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			const text = await response.text();
			return text ? JSON.parse(text) : undefined;
		},
		stop: async () => {
			process.off('exit', orphaned);
			child.kill('SIGTERM');
			await new Promise((resolve) => child.once('exit', resolve));
		},
	};
}

export function percentile(values: number[], p: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function now(): number {
	return performance.timeOrigin + performance.now();
}

export function loadAverage(): string {
	return loadavg()
		.map((l) => l.toFixed(2))
		.join(' ');
}

/** A number as a README writes it: thousands separated, at most `digits` decimals. */
export function num(value: number, digits = 0): string {
	return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

export interface Figure {
	name: string;
	value: number;
	unit: string;
	target?: string;
	met?: boolean;
	/**
	 * A target that holds whatever the machine's load (no event lost, the requests a page size
	 * implies): judged in smoke mode too, and missing it fails the benchmark.
	 */
	exact?: boolean;
}

/** Judged here: the exact targets always, the others only outside smoke mode. */
const judged = (f: Figure) => f.target !== undefined && (f.exact || !SMOKE);

/** One figure per line: name, value, unit, target and whether it was met. A missed exact target fails the run. */
export function report(title: string, figures: Figure[]): Figure[] {
	process.stdout.write(`\n${title}\n`);
	for (const f of figures) {
		const value = Number.isInteger(f.value) ? String(f.value) : f.value.toFixed(f.value < 10 ? 3 : 1);
		const target = f.target ? `  (target ${f.target}: ${judged(f) ? (f.met ? 'met' : 'NOT met') : 'not judged in smoke mode'})` : '';
		process.stdout.write(`  ${f.name.padEnd(46)} ${value} ${f.unit}${target}\n`);
		if (f.exact && !f.met) {
			process.stderr.write(`${BENCHMARK}: ${f.name} is ${value}, not ${f.target}\n`);
			process.exitCode = 1;
		}
	}
	return figures;
}

/**
 * The benchmark's one line for the README, `name: figure (target: met)`, printed last; met when
 * every figure given with a target met it. `npm run bench` gathers the lines into its table.
 */
export function summary(figure: string, target: string, figures: Figure[]): void {
	const withTargets = figures.filter(judged);
	const met = withTargets.every((f) => f.met);
	const verdict = SMOKE ? (met ? 'ran (smoke: exact targets only)' : 'an exact target NOT met') : met ? 'met' : 'NOT met';
	process.stdout.write(`\n${BENCHMARK}: ${figure} (${target}: ${verdict})\n`);
	if (process.env.BENCH_SUMMARY_FILE) {
		appendFileSync(process.env.BENCH_SUMMARY_FILE, `${JSON.stringify({ name: BENCHMARK, figure, target, verdict, load: loadAverage() })}\n`);
	}
}

/**
 * Runs a benchmark to its end, then exits (a trigger's timers or a sandbox's sockets would keep the
 * process), with 1 if it failed or missed an exact target.
 */
export function run(benchmark: () => Promise<void>): void {
	benchmark().then(
		() => process.exit(),
		(error: Error) => {
			process.stderr.write(`${BENCHMARK} failed: ${error.stack}\n`);
			if (error.cause) process.stderr.write(`cause: ${error.cause instanceof Error ? error.cause.stack : JSON.stringify(error.cause)}\n`);
			process.exit(1);
		},
	);
}

/**
 * What a trigger reports with `emitError`, kept as n8n keeps it (thrown in the callback, it ended
 * the process as an unhandled rejection). Errors that the benchmark provokes on purpose (a session
 * that ends) match `expected`; `check()` throws the first other one.
 */
export function triggerErrors(expected?: RegExp) {
	const errors: Error[] = [];
	return {
		emitError: (error: Error) => void errors.push(error),
		expected: () => errors.filter((e) => expected?.test(e.message)),
		check: () => {
			const other = errors.find((e) => !expected?.test(e.message));
			if (other) throw new Error(`the trigger reported an error: ${other.message}`, { cause: other });
		},
	};
}


/**
 * A Hosted PBX Trigger listening to the sandbox's stream inside n8n's own TriggerContext, open once
 * the sandbox has its stream: each emit's items with the time it came (`received[i]` at `arrival[i]`).
 */
export async function listeningPbxTrigger(sandbox: SandboxProcess, options: Record<string, number> = {}) {
	// Loaded here, not at the top: the other benchmarks need neither n8n's harness nor the node.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { contexts } = require('../test/harness/n8n') as typeof import('../test/harness/n8n');
	const { HostedPbxTrigger } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbxTrigger.node')>('nodes/HostedPbx/HostedPbxTrigger.node');
	const received: Array<Record<string, unknown>> = [];
	const arrival: number[] = [];
	const listener = { received, arrival, executions: 0, errors: triggerErrors(), close: async () => {} };
	const { trigger } = contexts({
		node: new HostedPbxTrigger(),
		parameters: { events: ['incomingcall'], options },
		credentials: { hostedPbxApi: { baseUrl: `${sandbox.url}/api/v1`, username: 'acme.admin', password: 'acme-admin-secret' } },
	});
	const context = trigger((data: Array<Array<{ json: Record<string, unknown> }>>) => {
		const t = now();
		listener.executions++;
		for (const item of data[0]) {
			received.push(item.json);
			arrival.push(t);
		}
	}, listener.errors.emitError);
	context.logger.info = () => undefined;
	const response = await new HostedPbxTrigger().trigger.call(context);
	listener.close = async () => await response.closeFunction?.();
	while (((await sandbox.admin('/pbx/streams', undefined, 'GET')) as unknown[]).length === 0) await new Promise((r) => setTimeout(r, 20));
	return listener;
}
