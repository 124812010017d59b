/**
 * Load cost: the time n8n spends requiring every node and credential of the package (the files
 * package.json's `n8n` section lists, from dist/), in a fresh Node process that has already
 * required n8n-workflow, as n8n has when it loads community packages. Median of several fresh
 * processes. A second figure has every third-party module dist/ requires (undici, eventsource
 * today) loaded beforehand, untimed: what the package costs once the streams use n8n's request
 * helper instead.
 * Build first: npm run build. Run: npm run bench -- load-cost
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';

import { percentile, report } from './lib';

const PROCESSES = 11;
const TARGET_MS = 50;

const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
const entries = [...pkg.n8n.credentials, ...pkg.n8n.nodes].map((file) => join(root, file));
const missing = entries.filter((file) => !existsSync(file));
if (missing.length) {
	process.stderr.write(`Not built: ${missing.map((f) => relative(root, f)).join(', ')}. Run npm run build first.\n`);
	process.exit(1);
}

/** Packages dist/ requires other than n8n-workflow and Node's own modules. */
function thirdPartyRequires(): string[] {
	const found = new Set<string>();
	const files = readdirSync(join(root, 'dist'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.js'));
	for (const file of files) {
		for (const [, specifier] of readFileSync(join(file.parentPath, file.name), 'utf8').matchAll(/require\("([^"]+)"\)/g)) {
			if (specifier.startsWith('.')) continue;
			const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
			if (name !== 'n8n-workflow' && !name.startsWith('node:') && !builtinModules.includes(name)) found.add(name);
		}
	}
	return [...found].sort();
}

/** One fresh process: n8n-workflow and `preload` untimed, then every entry, timed. Milliseconds. */
function measure(preload: string[]): number {
	const script = `
		const { performance } = require('node:perf_hooks');
		require('n8n-workflow');
		for (const name of ${JSON.stringify(preload)}) require(name);
		const start = performance.now();
		for (const file of ${JSON.stringify(entries)}) require(file);
		process.stdout.write(String(performance.now() - start));
	`;
	const run = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
	if (run.status !== 0) throw new Error(`load run failed: ${run.stderr}`);
	return Number(run.stdout);
}

const thirdParty = thirdPartyRequires();
const asShipped: number[] = [];
const withoutThirdParty: number[] = [];
// Alternated, so that both see the same machine load.
for (let i = 0; i < PROCESSES; i++) {
	asShipped.push(measure([]));
	if (thirdParty.length) withoutThirdParty.push(measure(thirdParty));
}

const median = (values: number[]) => percentile(values, 50);
const figures = [
	{ name: `require ${entries.length} nodes + credentials, median`, value: median(asShipped), unit: 'ms', target: `< ${TARGET_MS} ms`, met: median(asShipped) < TARGET_MS },
	{ name: 'the same, slowest of the processes', value: Math.max(...asShipped), unit: 'ms' },
];
if (thirdParty.length) {
	figures.push(
		{ name: `with ${thirdParty.join(', ')} preloaded, median`, value: median(withoutThirdParty), unit: 'ms', target: `< ${TARGET_MS} ms`, met: median(withoutThirdParty) < TARGET_MS },
		{ name: `so ${thirdParty.join(' + ')} cost about`, value: median(asShipped) - median(withoutThirdParty), unit: 'ms' },
	);
}
report(`Load cost: ${PROCESSES} fresh processes with n8n-workflow already required; dist/ requires ${thirdParty.length ? thirdParty.join(', ') : 'no third-party package'}`, figures);
