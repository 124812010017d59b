import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Progress } from '../../scripts/demo/progress';

/**
 * The demo's status line over a recorded first run on a busy 2-core machine (the build, the n8n
 * installer, the compiler, n8n's first start): what a person sees each second.
 */
function statusLines(secondsPerLine: number): string[] {
	let now = 0;
	let disk = 10 * 1024 ** 3;
	const progress = new Progress(() => now, () => disk);
	const shown: string[] = [];
	let step = '';
	let stepSince = 0;
	for (const line of readFileSync(join(__dirname, '../fixtures/demo/first-run.log'), 'utf8').split('\n')) {
		const started = line.match(/^=== (\[\d\/5\] [^(:]+)/);
		if (started) {
			[step, stepSince] = [started[1].trim(), now];
			progress.reset();
			continue;
		}
		progress.note(line);
		for (let second = 0; second < secondsPerLine; second++) {
			now += 1000;
			disk += 5 * 1024 ** 2;
			shown.push(progress.status(step, stepSince));
		}
	}
	return shown;
}

test('the status line says in words what the first run is doing, never a raw installer or compiler line', () => {
	const shown = statusLines(1);
	const distinctWords = [...new Set(shown.map((line) => line.split(' · ')[1]).filter(Boolean))];
	expect(distinctWords).toEqual([
		'Compiling the package (TypeScript)',
		'Copying the icons',
		'Installing Node.js 24.21.0 for n8n (once)',
		'Installing n8n 2.40.7 (about 3 GB, once)',
		"Compiling n8n's database driver (sqlite3, once)",
		"Building n8n's expression sandbox (isolated-vm, once)",
		'Checking the installed n8n',
		"Creating n8n's database (first start only)",
		'n8n is starting',
		"Starting n8n's task runner",
		'n8n is loading the workflows',
	]);
	const raw = /npm warn|ERESOLVE|sqlite3\.c|\^~|\(target\)|\/usr\/bin|node_modules|gyp|Migration|\[n8n/;
	expect(shown.filter((line) => raw.test(line))).toEqual([]);
	expect(shown).toContainEqual(expect.stringMatching(/^\[2\/5\] Provisioning n8n 2\.x … \d+ min \d\d s · Installing n8n 2\.40\.7 \(about 3 GB, once\) · \d\.\d of about 3 GB written$/));
	expect(shown).toContainEqual(expect.stringMatching(/Compiling n8n's database driver \(sqlite3, once\) · part 3 of about 9$/));
	expect(shown).toContainEqual(expect.stringMatching(/Creating n8n's database \(first start only\) · \d+ done$/));
});

test('an activity that takes longer than usual says so, and that it is still working', () => {
	const slow = statusLines(3);
	expect(slow).toContainEqual(expect.stringMatching(/Installing n8n 2\.40\.7 \(about 3 GB, once\) · .* · \d+ min \d\d s so far, longer than the usual 5 min 00 s: still working$/));
	expect(statusLines(1).filter((line) => line.includes('Compiling the package') && line.includes('still working'))).toEqual([]);
});
