// npm run bench [-- name ...]: runs the benchmarks in bench/ (all, or those named) and prints their figures.
// BENCH_NODE=<path to a node binary> runs them on that Node.js instead of this one.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const all = readdirSync(join(root, 'bench')).filter((f) => f.endsWith('.ts') && f !== 'lib.ts').map((f) => f.replace(/\.ts$/, ''));
const wanted = process.argv.slice(2);
const chosen = wanted.length ? all.filter((name) => wanted.includes(name)) : all;
if (wanted.length && chosen.length !== wanted.length) {
	console.error(`Unknown benchmark. Available: ${all.join(', ')}`);
	process.exit(2);
}
let failed = 0;
for (const name of chosen) {
	const run = spawnSync(process.env.BENCH_NODE || process.execPath, ['--expose-gc', join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'bench', `${name}.ts`)], { stdio: 'inherit', cwd: root });
	if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
