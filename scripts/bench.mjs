// npm run bench [-- [--smoke] name ...]: runs the benchmarks in bench/ (all, or those named), each in
// its own process, prints their figures and at the end a table of their summary lines.
// --smoke (or BENCH_SMOKE=1): each benchmark once with tiny sizes and no target judged but the exact
// ones (events lost, requests made): what CI runs, to see that every benchmark still runs. Its
// benchmarks run BENCH_JOBS at a time (default 3: most of their time is starting Node.js, n8n's
// code and a sandbox, and waiting), each one's output printed whole when it ends; a full run runs
// one at a time, so that benchmarks do not measure each other.
// BENCH_NODE=<path to a node binary> runs them on that Node.js instead of this one.
// Exits 1 if a benchmark failed (it threw, or missed an exact target); a timing target missed is
// printed as NOT met, and does not fail the run: on a shared machine that is noise as often as not.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const all = readdirSync(join(root, 'bench')).filter((f) => f.endsWith('.ts') && f !== 'lib.ts').map((f) => f.replace(/\.ts$/, ''));
const args = process.argv.slice(2);
const smoke = args.includes('--smoke') || process.env.BENCH_SMOKE === '1';
const wanted = args.filter((a) => a !== '--smoke');
const chosen = wanted.length ? all.filter((name) => wanted.includes(name)) : all;
if (wanted.length && chosen.length !== wanted.length) {
	console.error(`Unknown benchmark. Available: ${all.join(', ')} (and --smoke)`);
	process.exit(2);
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const folder = mkdtempSync(join(tmpdir(), 'bench-'));
const summaries = join(folder, 'summaries.jsonl');
const started = Date.now();
console.log(`${smoke ? 'Smoke run' : 'Benchmarks'}: ${chosen.join(', ')} (Node.js ${process.version}, load average ${load()})`);
const jobs = smoke ? Math.max(1, Number(process.env.BENCH_JOBS ?? 3)) : 1;
/** A smoke benchmark still running after this long hangs: it is stopped and fails (a full run has no limit). */
const SMOKE_LIMIT_MS = 300_000;

/** One benchmark in its own process; with other jobs running, its output is held and printed whole at its end. */
async function runOne(name) {
	const t0 = Date.now();
	const held = jobs > 1;
	// tsx as a loader, not its CLI: the CLI starts a second Node.js process.
	const tsx = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
	const child = spawn(process.env.BENCH_NODE || process.execPath, ['--expose-gc', '--import', tsx, join(root, 'bench', `${name}.ts`)], {
		stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit',
		cwd: root,
		env: { ...process.env, BENCH_SMOKE: smoke ? '1' : '0', BENCH_SUMMARY_FILE: summaries },
	});
	const output = [];
	if (held) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => output.push(chunk));
	let hung = false;
	const limit = smoke ? setTimeout(() => ((hung = true), child.kill('SIGTERM')), SMOKE_LIMIT_MS) : undefined;
	const status = await new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
	clearTimeout(limit);
	if (held) process.stdout.write(`\n--- ${name}\n${Buffer.concat(output).toString()}`);
	return { name, status: hung ? `stopped after ${SMOKE_LIMIT_MS / 1000} s` : status, seconds: (Date.now() - t0) / 1000 };
}

const queue = [...chosen];
const finished = [];
await Promise.all(
	Array.from({ length: Math.min(jobs, queue.length) }, async () => {
		while (queue.length) finished.push(await runOne(queue.shift()));
	}),
);
const rows = chosen.map((name) => finished.find((r) => r.name === name));
const lines = readFileSync(summaries, { encoding: 'utf8', flag: 'a+' })
	.split('\n')
	.filter(Boolean)
	.map((line) => JSON.parse(line));
rmSync(folder, { recursive: true, force: true });

const table = rows.map(({ name, status, seconds }) => {
	const line = lines.find((l) => l.name === name);
	const result = status !== 0 ? `FAILED (${typeof status === 'number' ? `exit ${status}` : status})` : (line?.verdict ?? 'no summary line');
	return [name, line ? `${line.figure} (${line.target})` : '', result, `${seconds.toFixed(0)} s`];
});
const widths = [0, 1, 2, 3].map((i) => Math.max(...[['benchmark', 'figure (target)', 'result', 'time'], ...table].map((r) => r[i].length)));
console.log(`\n${smoke ? 'Smoke run' : 'Benchmarks'}, ${((Date.now() - started) / 1000).toFixed(0)} s in all, load average at the end ${load()}:`);
for (const row of [['benchmark', 'figure (target)', 'result', 'time'], ...table]) console.log(`  ${row.map((cell, i) => cell.padEnd(widths[i])).join('  ')}`);
process.exit(rows.some((r) => r.status !== 0) ? 1 : 0);
