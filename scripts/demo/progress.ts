/**
 * What `npm run demo` shows on its status line while a step runs: what it is doing, in words, with
 * the elapsed time and, where the installer allows it, how far along it is. Raw installer and
 * compiler lines never reach the status line (they stay in the log file); they only move the
 * activity on when one is recognised. Pure apart from the clock and the disk gauge it is given.
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

const GB = 1024 ** 3;

/** The activities of the demo's steps, recognised from what npm, the provisioner, the build and n8n write. */
export const ACTIVITIES: Activity[] = [
	// npm run build
	{ match: /^> .* build$|^> (?:rimraf|tsc)\b|tsc -p tsconfig\.build\.json/, words: 'Compiling the package (TypeScript)', usualSeconds: 40 },
	{ match: /Starting 'build:assets'/, words: 'Copying the icons', usualSeconds: 5 },
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
}

export class Progress {
	private current?: Current;

	constructor(
		private readonly now: () => number = Date.now,
		/** Bytes in use on the disk the install writes to (undefined when unknown). */
		private readonly diskUsed: () => number | undefined = () => undefined,
	) {}

	/** A line the running step wrote to the log: it may start an activity or count as progress. */
	note(line: string): void {
		const text = line.trim();
		const activity = ACTIVITIES.find((candidate) => candidate.match.test(text));
		if (activity && activity !== this.current?.activity) {
			const words = activity.words.replace('$1', text.match(activity.match)?.[1] ?? '');
			this.current = { activity, words, since: this.now(), parts: 0, diskAtStart: activity.gauge?.kind === 'disk' ? this.diskUsed() : undefined };
			return;
		}
		const gauge = this.current?.activity.gauge;
		if (gauge?.kind === 'parts' && gauge.part.test(text)) this.current!.parts += 1;
	}

	/** A new step: what came before no longer describes it. */
	reset(): void {
		this.current = undefined;
	}

	/** The status line of step `title`, running since `stepSince`. */
	status(title: string, stepSince: number): string {
		const now = this.now();
		const parts = [`${title} … ${duration(now - stepSince)}`];
		const current = this.current;
		if (!current) return parts[0];
		parts.push(current.words);
		const measured = this.measured(current);
		if (measured) parts.push(measured);
		const took = now - current.since;
		if (took > current.activity.usualSeconds * 1000) {
			parts.push(`${duration(took)} so far, longer than the usual ${duration(current.activity.usualSeconds * 1000)}: still working`);
		}
		return parts.join(' · ');
	}

	private measured(current: Current): string | undefined {
		const gauge = current.activity.gauge;
		if (gauge?.kind === 'parts') {
			if (current.parts === 0) return undefined;
			return gauge.aboutParts ? `part ${Math.min(current.parts, gauge.aboutParts)} of about ${gauge.aboutParts}` : `${current.parts} done`;
		}
		if (gauge?.kind === 'disk' && current.diskAtStart !== undefined) {
			const used = this.diskUsed();
			if (used === undefined) return undefined;
			const written = Math.max(0, used - current.diskAtStart);
			return `${(written / GB).toFixed(1)} of about ${(gauge.aboutBytes / GB).toFixed(0)} GB written`;
		}
		return undefined;
	}
}
