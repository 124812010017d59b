/**
 * The sandbox's time: real by default. A test that runs the sandbox in its own process may hand
 * it the clock its nodes run on, so that record times, windows and report readiness follow the
 * test's clock rather than the machine's load. Timers that pace deliveries, and the timeouts of
 * the sandbox's own requests (they bound I/O), stay real.
 */
export interface SandboxClock {
	now(): number;
	/** Resolves after `ms` of this clock, or when `signal` aborts. Never rejects. */
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A real timer that does not keep the process alive (a sandbox in a test process must not hold it open). */
async function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
	if (signal?.aborted) return;
	await new Promise<void>((resolve) => {
		const done = () => {
			clearTimeout(timer);
			signal?.removeEventListener('abort', done);
			resolve();
		};
		const timer = setTimeout(done, Math.max(0, ms));
		timer.unref();
		signal?.addEventListener('abort', done, { once: true });
	});
}

const realClock: SandboxClock = { now: () => Date.now(), sleep: realSleep };
let source: SandboxClock = realClock;

export function currentTime(): number {
	return source.now();
}

/** Waits `ms` of the sandbox's time (what makes a report ready), or less if `signal` aborts. Never rejects. */
export async function sandboxSleep(ms: number, signal?: AbortSignal): Promise<void> {
	await source.sleep(ms, signal);
}

/** Replaces the sandbox's time (`undefined`: real time again). */
export function setSandboxTime(replacement: SandboxClock | undefined): void {
	source = replacement ?? realClock;
}
