// npm run bench [-- [--smoke] name ...]: runs the benchmarks in bench/ (all, or those named), each in
// its own process, prints their figures and at the end a table of their summary lines.
// --smoke (or BENCH_SMOKE=1): each benchmark once with tiny sizes and no target judged but the exact
// ones (events lost, requests made): what CI runs, to see that every benchmark still runs.
// BENCH_NODE=<path to a node binary> runs them on that Node.js instead of this one.
// Exits 1 if a benchmark failed (it threw, or missed an exact target); a timing target missed is
// printed as NOT met, and does not fail the run: on a shared machine that is noise as often as not.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
const rows = [];
for (const name of chosen) {
	const t0 = Date.now();
	const run = spawnSync(process.env.BENCH_NODE || process.execPath, ['--expose-gc', join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'bench', `${name}.ts`)], {
		stdio: 'inherit',
		cwd: root,
		env: { ...process.env, BENCH_SMOKE: smoke ? '1' : '0', BENCH_SUMMARY_FILE: summaries },
	});
	rows.push({ name, status: run.status ?? run.signal, seconds: (Date.now() - t0) / 1000 });
}
const lines = readFileSync(summaries, { encoding: 'utf8', flag: 'a+' })
	.split('\n')
	.filter(Boolean)
	.map((line) => JSON.parse(line));
rmSync(folder, { recursive: true, force: true });

const table = rows.map(({ name, status, seconds }) => {
	const line = lines.find((l) => l.name === name);
	const result = status !== 0 ? `FAILED (exit ${status})` : (line?.verdict ?? 'no summary line');
	return [name, line ? `${line.figure} (${line.target})` : '', result, `${seconds.toFixed(0)} s`];
});
const widths = [0, 1, 2, 3].map((i) => Math.max(...[['benchmark', 'figure (target)', 'result', 'time'], ...table].map((r) => r[i].length)));
console.log(`\n${smoke ? 'Smoke run' : 'Benchmarks'}, ${((Date.now() - started) / 1000).toFixed(0)} s in all, load average at the end ${load()}:`);
for (const row of [['benchmark', 'figure (target)', 'result', 'time'], ...table]) console.log(`  ${row.map((cell, i) => cell.padEnd(widths[i])).join('  ')}`);
process.exit(rows.some((r) => r.status !== 0) ? 1 : 0);
