// npm run scan: n8n's verification scan (@n8n/scan-community-package), run as n8n runs it. The scanner's
// CLI only scans a package already published with provenance, so this calls the function it calls,
// with the same two legs: the package's source (packages/n8n-nodes-telephony-platform) with
// SOURCE_FILE_PATTERNS, then the tarball that `npm pack` makes of it after `npm run build`,
// unpacked outside the repository, with the tarball patterns. Exits non-zero unless both legs report 0 errors.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { SOURCE_FILE_PATTERNS, analyzePackage } from '@n8n/scan-community-package/scanner/scanner.mjs';

/** What the scanner's CLI passes for the unpacked tarball (analyzePackageByName in scanner.mjs). */
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];
/** The package's own size budget (not one of n8n's rules). */
const TARBALL_LIMIT_KB = 300;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const packageDir = join(root, 'packages', 'n8n-nodes-telephony-platform');

/** The error count of one leg: analyzePackage returns only ESLint's stylish text, so it is read from its summary. */
function errorCount(result) {
	if (result.passed) return 0;
	const summary = /\((\d+) errors?, \d+ warnings?\)/.exec(stripAnsi(result.details ?? ''));
	return summary ? Number(summary[1]) : Number.NaN;
}

function stripAnsi(text) {
	return text.replace(/\u001b\[[0-9;]*m/g, '');
}

function printLeg(name, result) {
	const errors = errorCount(result);
	console.log(`${name}: ${Number.isNaN(errors) ? `failed (${result.message})` : `${errors} error${errors === 1 ? '' : 's'}`}`);
	if (result.details) console.log(result.details);
	return errors;
}

function run(command, args, options) {
	const result = spawnSync(command, args, { encoding: 'utf8', ...options });
	if (result.status !== 0) {
		process.stderr.write(result.stdout ?? '');
		process.stderr.write(result.stderr ?? '');
		throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
	}
	return result.stdout;
}

const work = mkdtempSync(join(tmpdir(), 'n8n-scan-'));
let sourceErrors = Number.NaN;
let tarballErrors = Number.NaN;
try {
	console.log(`Scanning the source (${SOURCE_FILE_PATTERNS.join(', ')})...`);
	sourceErrors = printLeg('source', await analyzePackage(packageDir, SOURCE_FILE_PATTERNS));

	// The publish workflow packs what `npm run build` made (.npmrc sets ignore-scripts), so does this.
	console.log('\nBuilding and packing (npm run build, npm pack)...');
	run('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
	const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], { cwd: packageDir, stdio: ['ignore', 'pipe', 'inherit'] }))[0];
	const packedKb = packed.size / 1024;
	console.log(`tarball: ${packed.filename}, ${packedKb.toFixed(1)} KB (${packedKb < TARBALL_LIMIT_KB ? 'under' : 'OVER'} the ${TARBALL_LIMIT_KB} KB budget), ${(packed.unpackedSize / 1024).toFixed(1)} KB unpacked, ${packed.entryCount} files`);

	const unpacked = join(work, 'package');
	mkdirSync(unpacked);
	run('tar', ['-xzf', join(work, packed.filename), '-C', unpacked, '--strip-components=1']);
	const fileCount = readdirSync(unpacked, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
	console.log(`unpacked: ${fileCount} files\n`);

	console.log(`Scanning the tarball (${TARBALL_FILE_PATTERNS.join(', ')})...`);
	tarballErrors = printLeg('tarball', await analyzePackage(unpacked, TARBALL_FILE_PATTERNS));
} finally {
	rmSync(work, { recursive: true, force: true });
}

console.log(`\nn8n scan: source ${sourceErrors} errors, tarball ${tarballErrors} errors`);
process.exit(sourceErrors === 0 && tarballErrors === 0 ? 0 : 1);
