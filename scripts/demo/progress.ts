/**
 * What `npm run demo` shows on its status line while a step runs: what it is doing, in words, with
 * the elapsed time and, where the installer allows it, how far along it is. Raw installer and
 * compiler lines never reach the status line (they stay in the log file); they only move the
 * activity on when one is recognised. The line fits the terminal's width: what matters most (the
 * time, a "slower than usual" note, then the measured progress) stays, the words give way first.
 * Pure apart from the clock and the gauges it is given.
 */

/** One thing a step does, recognised from a log line. */
interface Activity {
	/** What the line that starts it looks like. */
	match: RegExp;
	/** What the status line says (`$1` is the line's first group). */
	words: string;
	/** How long it takes on a quiet machine, in seconds: past it, the status line says it is still working. */
	usualSeconds: number;
	/** Measured progress: bytes written to disk out of about this many (an install), or parts of a compile. */
	gauge?: { kind: 'disk'; aboutBytes: number } | { kind: 'parts'; part: RegExp; aboutParts: number };
}

/** What the status line can measure besides the clock. */
export interface Gauges {
	/** Bytes in use on the disk the install writes to (undefined when unknown). */
	diskUsed(): number | undefined;
	/** Packages unpacked so far in an npm install's folder (its --prefix): what moves while the bytes barely do. */
	packagesIn(prefix: string): number | undefined;
}

const GB = 1024 ** 3;

/** The activities of the demo's steps, recognised from what npm, the provisioner, the build and n8n write. */
export const ACTIVITIES: Activity[] = [
	// npm run build
	{ match: /^> .* build$|^> n8n-node build$|Building TypeScript files/, words: 'Compiling the package (TypeScript)', usualSeconds: 40 },
	{ match: /Copying static files|Copied static files/, words: 'Copying the icons', usualSeconds: 5 },
	// scripts/n8n/provision.mjs
	{ match: /^\[n8n:provision\] installing Node\.js (\S+)/, words: 'Installing Node.js $1 for n8n (once)', usualSeconds: 60 },
	{
		match: /^\[n8n:provision\] installing n8n@(\S+)/,
		words: 'Installing n8n $1 (about 3 GB, once)',
		usualSeconds: 300,
		gauge: { kind: 'disk', aboutBytes: 3 * GB },
	},
	{
		match: /^\[n8n:provision\] building sqlite3\b/,
		words: "Compiling n8n's database driver (sqlite3, once)",
		usualSeconds: 120,
		gauge: { kind: 'parts', part: /^\s*(?:CC|CXX|AR|SOLINK_MODULE)\(target\)/, aboutParts: 9 },
	},
	{ match: /^\[n8n:provision\] building isolated-vm\b/, words: "Building n8n's expression sandbox (isolated-vm, once)", usualSeconds: 120 },
	{ match: /^\[n8n:provision\] building (\S+)/, words: 'Building $1 (once)', usualSeconds: 120 },
	{ match: /^\[n8n:provision\] \$ .* (?:--version|-e require)/, words: 'Checking the installed n8n', usualSeconds: 20 },
	{ match: /^\[n8n:provision\] another install holds/, words: 'Waiting for another install of n8n to finish', usualSeconds: 600 },
	// n8n's own log while it starts
	{ match: /Successfully imported \d+ credentials|Importing \d+ workflows/, words: 'Importing the sandbox credentials and the example workflows', usualSeconds: 20 },
	{ match: /Initializing n8n process/, words: 'n8n is starting', usualSeconds: 30 },
	{
		match: /Starting migration/,
		words: "Creating n8n's database (first start only)",
		usualSeconds: 90,
		gauge: { kind: 'parts', part: /Finished migration/, aboutParts: 0 },
	},
	{ match: /Registered runner|Task Broker ready/, words: "Starting n8n's task runner", usualSeconds: 20 },
	{ match: /Building workflow dependency index|Currently active workflows|Version: \d/, words: 'n8n is loading the workflows', usualSeconds: 20 },
];

const MB = 1024 ** 2;

/** `212 MB`, `1.4 GB`. */
function size(bytes: number): string {
	return bytes < GB ? `${Math.floor(bytes / MB)} MB` : `${(bytes / GB).toFixed(1)} GB`;
}

/** `42 s`, `3 min 05 s`, as the demo's own lines write times. */
export function duration(ms: number): string {
	const seconds = Math.max(0, Math.round(ms / 1000));
	return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

interface Current {
	activity: Activity;
	words: string;
	since: number;
	parts: number;
	diskAtStart?: number;
	/** The folder an install writes to, from its npm command line. */
	prefix?: string;
}

/** One piece of the status line: what it says, how it joins the piece before, and how it gives way when the line is too long. */
export interface Piece {
	text: string;
	joiner: string;
	/** The lowest gives way first. */
	rank: number;
	/** 0: shortened with "…" (to 16 characters at least); else the characters it is cut to (Infinity: never cut). */
	keeps: number;
	/** Whether it may be left out. */
	optional?: boolean;
}

/**
 * The pieces in one line of at most `width` characters: the lowest-ranked piece is shortened (with
 * "…") or left out first, until the line fits.
 */
export function fitLine(pieces: Piece[], width: number): string {
	const shown = pieces.filter((piece) => piece.text !== '').map((piece) => ({ ...piece }));
	const length = () => shown.reduce((sum, piece, i) => sum + piece.text.length + (i ? piece.joiner.length : 0), 0);
	for (const piece of [...shown].sort((a, b) => a.rank - b.rank)) {
		const over = length() - width;
		if (over <= 0) break;
		const room = piece.text.length - over;
		if (piece.keeps === 0 && room >= 16) piece.text = `${piece.text.slice(0, room - 1).trimEnd()}…`;
		else if (piece.optional) shown.splice(shown.indexOf(piece), 1);
		else if (piece.keeps < piece.text.length) piece.text = piece.text.slice(0, piece.keeps);
	}
	// A line longer than the terminal wraps, and the next update can no longer overwrite it.
	return shown.map((piece, i) => (i ? piece.joiner : '') + piece.text).join('').slice(0, width);
}

export class Progress {
	private current?: Current;
	private readonly gauges: Gauges;

	constructor(
		private readonly now: () => number = Date.now,
		gauges: Partial<Gauges> = {},
	) {
		this.gauges = { diskUsed: () => undefined, packagesIn: () => undefined, ...gauges };
	}

	/** A line the running step wrote to the log: it may start an activity or count as progress. */
	note(line: string): void {
		const text = line.trim();
		const activity = ACTIVITIES.find((candidate) => candidate.match.test(text));
		if (activity && activity !== this.current?.activity) {
			const words = activity.words.replace('$1', text.match(activity.match)?.[1] ?? '');
			this.current = { activity, words, since: this.now(), parts: 0, diskAtStart: activity.gauge?.kind === 'disk' ? this.gauges.diskUsed() : undefined };
			return;
		}
		const current = this.current;
		const gauge = current?.activity.gauge;
		if (gauge?.kind === 'parts' && gauge.part.test(text)) current!.parts += 1;
		const prefix = /\bnpm install\b.*--prefix (\S+)/.exec(text)?.[1];
		if (gauge?.kind === 'disk' && prefix) current!.prefix = prefix;
	}

	/** A new step: what came before no longer describes it. */
	reset(): void {
		this.current = undefined;
	}

	/**
	 * The status line of step `title`, running since `stepSince`, in at most `width` characters: the
	 * time and a "slower than usual" note are never cut; the step's name and the words give way first.
	 */
	status(title: string, stepSince: number, width = Infinity): string {
		const now = this.now();
		const current = this.current;
		const took = current ? now - current.since : 0;
		const slow = current !== undefined && took > current.activity.usualSeconds * 1000;
		const step = /^\S+/.exec(title)?.[0].length ?? 0;
		return fitLine(
			[
				{ text: title, joiner: '', rank: 1, keeps: step },
				{ text: duration(now - stepSince), joiner: ' … ', rank: 6, keeps: Infinity },
				{ text: slow ? 'slower than usual' : '', joiner: ' · ', rank: 5, keeps: Infinity },
				{ text: slow ? `, still working (usually ${duration(current.activity.usualSeconds * 1000)})` : '', joiner: '', rank: 3, keeps: Infinity, optional: true },
				{ text: current?.words ?? '', joiner: ' · ', rank: 2, keeps: 0, optional: true },
				{ text: (current && this.measured(current)) ?? '', joiner: ' · ', rank: 4, keeps: 0, optional: true },
			],
			width,
		);
	}

	private measured(current: Current): string | undefined {
		const gauge = current.activity.gauge;
		if (gauge?.kind === 'parts') {
			if (current.parts === 0) return undefined;
			return gauge.aboutParts ? `part ${Math.min(current.parts, gauge.aboutParts)} of about ${gauge.aboutParts}` : `${current.parts} done`;
		}
		if (gauge?.kind === 'disk') {
			const used = current.diskAtStart === undefined ? undefined : this.gauges.diskUsed();
			const written = used === undefined ? undefined : `${size(Math.max(0, used - current.diskAtStart!))} of ~${Math.round(gauge.aboutBytes / GB)} GB`;
			const packages = current.prefix === undefined ? undefined : this.gauges.packagesIn(current.prefix);
			// npm first resolves the whole tree (writing little), then unpacks the packages.
			const unpacked = packages === undefined ? undefined : packages > 0 ? `${packages} packages` : 'resolving';
			return [written, unpacked].filter(Boolean).join(', ') || undefined;
		}
		return undefined;
	}
}
