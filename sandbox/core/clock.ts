/**
 * The sandbox's time: real by default. A test that runs the sandbox in its own process may hand
 * it the clock its nodes run on, so that record times, windows and report readiness follow the
 * test's clock rather than the machine's load. Timers that pace deliveries stay real.
 */
let source: () => number = () => Date.now();

export function currentTime(): number {
	return source();
}

/** Replaces the sandbox's time (`undefined`: real time again). */
export function setSandboxTime(replacement: (() => number) | undefined): void {
	source = replacement ?? (() => Date.now());
}
