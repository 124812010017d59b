/** Shared by the benchmarks: a sandbox in its own process, percentiles, and one way to print figures. */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface SandboxProcess {
	url: string;
	info: Record<string, unknown>;
	admin(path: string, body?: unknown, method?: string): Promise<unknown>;
	stop(): Promise<void>;
}

/** The sandbox in a child process, so that it does not share an event loop with what is measured. */
export async function startSandboxProcess(): Promise<SandboxProcess> {
	const root = join(__dirname, '..');
	const child: ChildProcess = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'sandbox/main.ts')], {
		env: { ...process.env, SANDBOX_PORT: '0' },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
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

/** One figure per line: name, value, unit, target and whether it was met. */
export function report(title: string, figures: Array<{ name: string; value: number; unit: string; target?: string; met?: boolean }>): void {
	process.stdout.write(`\n${title}\n`);
	for (const f of figures) {
		const value = Number.isInteger(f.value) ? String(f.value) : f.value.toFixed(f.value < 10 ? 3 : 1);
		const target = f.target ? `  (target ${f.target}: ${f.met ? 'met' : 'NOT met'})` : '';
		process.stdout.write(`  ${f.name.padEnd(46)} ${value} ${f.unit}${target}\n`);
	}
}

/**
 * Loads a node module by its `.ts` file. tsx resolves an extensionless `X.node` to the codex
 * file `X.node.json` that sits beside it, so benchmarks name the source file explicitly.
 */
export function nodeModule<T>(relativePath: string): T {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(join(__dirname, '..', `${relativePath}.ts`)) as T;
}
