import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Progress, fitLine } from '../../scripts/demo/progress';

/**
 * The demo's status line over a recorded first run on a busy 2-core machine (the build, the n8n
 * installer, the compiler, n8n's first start): what a person sees each second.
 */
function statusLines(secondsPerLine: number, width = Infinity): string[] {
	let now = 0;
	let disk = 10 * 1024 ** 3;
	let packages = 0;
	const progress = new Progress(() => now, { diskUsed: () => disk, packagesIn: () => packages });
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
		// npm unpacks packages only after it has resolved them all (the ERESOLVE warnings come first).
		packages = line.startsWith('npm warn') ? 0 : packages + 3;
		for (let second = 0; second < secondsPerLine; second++) {
			now += 1000;
			disk += 5 * 1024 ** 2;
			shown.push(progress.status(step, stepSince, width));
		}
	}
	return shown;
}

test('the status line says in words what the first run is doing, never a raw installer or compiler line', () => {
	const shown = statusLines(1);
	const distinctWords = [...new Set(shown.map((line) => line.split(' · ').slice(1).find((piece) => !piece.startsWith('slower than usual'))).filter(Boolean))];
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
	expect(shown).toContainEqual(expect.stringMatching(/^\[2\/5\] Provisioning n8n 2\.x … \d+ min \d\d s · Installing n8n 2\.40\.7 \(about 3 GB, once\) · \d+ MB of ~3 GB, resolving$/));
	expect(shown).toContainEqual(expect.stringMatching(/Installing n8n 2\.40\.7 \(about 3 GB, once\) · \d\.\d GB of ~3 GB, \d+ packages$/));
	expect(shown).toContainEqual(expect.stringMatching(/Compiling n8n's database driver \(sqlite3, once\) · part 3 of about 9$/));
	expect(shown).toContainEqual(expect.stringMatching(/Creating n8n's database \(first start only\) · \d+ done$/));
});

test('an activity that takes longer than usual says so, and that it is still working', () => {
	const slow = statusLines(3);
	expect(slow).toContainEqual(expect.stringMatching(/… \d+ min \d\d s · slower than usual, still working \(usually 5 min 00 s\) · Installing n8n 2\.40\.7 \(about 3 GB, once\) · /));
	expect(statusLines(1).filter((line) => line.includes('Compiling the package') && line.includes('still working'))).toEqual([]);
});

test('the status line fits the terminal: the time and the "slower than usual" note whole, the measured progress before the words', () => {
	const whole = statusLines(3);
	for (const width of [120, 76, 56]) {
		const fitted = statusLines(3, width);
		expect(fitted.filter((line) => line.length > width)).toEqual([]);
		const slow = fitted.filter((_line, i) => whole[i].includes('slower than usual'));
		expect(slow.length).toBeGreaterThan(100);
		// The time, then the note: never cut.
		expect(slow.filter((line) => !/^\[\d\/5\]( [^…]+)? … (\d+ min \d\d s|\d+ s) · slower than usual( · |, still working|$)/.test(line))).toEqual([]);
		// Then what is measured, whole where the width allows: the install's bytes and packages in 80 columns.
		const measured = (i: number) => (/ · (\d+(\.\d)? [MG]B of ~3 GB, .*|part \d+ of about \d+|\d+ done)$/.exec(whole[i]) ?? [])[1];
		const installing = fitted.map((line, i) => [line, measured(i)]).filter(([, gauge], i) => whole[i].includes('slower than usual') && gauge?.includes('GB'));
		expect(installing.length).toBeGreaterThan(20);
		if (width >= 76) expect(installing.filter(([line, gauge]) => !line.endsWith(` · ${gauge}`))).toEqual([]);
	}
	expect(statusLines(3, 200).filter((line) => line.includes('slower than usual'))).toContainEqual(expect.stringMatching(/still working \(usually 5 min 00 s\) · Installing n8n/));
});

test('a long install shows life every few seconds, beyond the clock: the bytes written, then the packages unpacked', () => {
	// As measured on a busy machine: 0.2 GB in the first six minutes, while npm was still resolving.
	let now = 0;
	let disk = 50 * 1024 ** 3;
	let packages = 0;
	const progress = new Progress(() => now, { diskUsed: () => disk, packagesIn: (prefix) => (prefix === '/cache/n8n' ? packages : undefined) });
	progress.note('[n8n:provision] installing n8n@2.40.7 with scripts ignored (a few minutes, ~3 GB)');
	progress.note('[n8n:provision] $ /usr/bin/npm install --ignore-scripts --no-audit --no-fund --omit=dev --prefix /cache/n8n   (in /cache/n8n)');
	const measured: string[] = [];
	for (let second = 1; second <= 420; second++) {
		now = second * 1000;
		disk += 0.55 * 1024 ** 2;
		if (second > 360) packages += 7;
		measured.push(progress.status('[2/5] Provisioning n8n 2.x', 0, 80).split(' · ').at(-1)!);
	}
	expect(measured[0]).toBe('0 MB of ~3 GB, resolving');
	expect(measured[359]).toBe('198 MB of ~3 GB, resolving');
	expect(measured[419]).toBe('231 MB of ~3 GB, 420 packages');
	const still = measured.map((text, i) => i >= 4 && measured.slice(i - 4, i + 1).every((earlier) => earlier === text));
	expect(still.indexOf(true)).toBe(-1);
});

test('fitLine: the lowest rank gives way first, shortened with "…" or left out; a piece that keeps a prefix is cut to it', () => {
	const pieces = [
		{ text: '[2/5] Provisioning', joiner: '', rank: 1, keeps: 5 },
		{ text: '1 min 00 s', joiner: ' … ', rank: 9, keeps: Infinity },
		{ text: 'Installing n8n 2.40.7 (about 3 GB, once)', joiner: ' · ', rank: 2, keeps: 0, optional: true },
	];
	expect(fitLine(pieces, 200)).toBe('[2/5] Provisioning … 1 min 00 s · Installing n8n 2.40.7 (about 3 GB, once)');
	expect(fitLine(pieces, 62)).toBe('[2/5] … 1 min 00 s · Installing n8n 2.40.7 (about 3 GB, once)');
	expect(fitLine(pieces, 45)).toBe('[2/5] … 1 min 00 s · Installing n8n 2.40.7 (…');
	expect(fitLine(pieces, 30)).toBe('[2/5] … 1 min 00 s');
});
