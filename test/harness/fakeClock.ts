import type { Clock } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/timers';
import type { SandboxClock } from '../../sandbox/core/clock';
import { setSandboxTime } from '../../sandbox/core/clock';
import { waitFor } from './wait';

/*
 * The fake clock, apart from the package (only its Clock type is used here): the sandbox's own
 * tests run the sandbox on it without loading the package and n8n-workflow.
 */

interface Timer {
	at: number;
	order: number;
	resolve: () => void;
}

/** Lets pending callbacks and I/O that is already done run (several turns of the event loop). */
export async function settle(turns = 5): Promise<void> {
	for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * The package's clock (and the sandbox's) under a test's control: waits, watchdogs, backoff,
 * refusal gates, report readiness and token lifetimes move only when the test advances it,
 * whatever the machine's load. Real I/O (the sandbox, n8n's
 * request helper) still runs in real time; `advance` lets it settle between timers.
 */
export class FakeClock implements Clock, SandboxClock {
	private time: number;
	private timers: Timer[] = [];
	private sequence = 0;

	constructor(start = Date.now()) {
		this.time = start;
	}

	now(): number {
		return this.time;
	}

	async sleep(ms: number, signal?: AbortSignal): Promise<void> {
		if (signal?.aborted || !(ms > 0)) return;
		await new Promise<void>((resolve) => {
			// The abort listener goes with the timer: a watchdog sleeps on one signal again and again.
			const onAbort = () => {
				this.timers = this.timers.filter((t) => t !== timer);
				resolve();
			};
			const timer: Timer = {
				at: this.time + ms,
				order: this.sequence++,
				resolve: () => {
					signal?.removeEventListener('abort', onAbort);
					resolve();
				},
			};
			this.timers.push(timer);
			signal?.addEventListener('abort', onAbort, { once: true });
		});
	}

	/** Timers still waiting. */
	get pending(): number {
		return this.timers.length;
	}

	/**
	 * Moves time forward by `ms`, firing each timer that falls due in order and letting its work
	 * run; stops early, at the time of the timer after which `until` holds.
	 */
	async advance(ms: number, until?: () => unknown): Promise<void> {
		const end = this.time + ms;
		await settle();
		for (;;) {
			const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.order - b.order)[0];
			if (!due) break;
			this.timers = this.timers.filter((t) => t !== due);
			this.time = Math.max(this.time, due.at);
			due.resolve();
			await settle();
			if (until?.()) return;
		}
		this.time = end;
		await settle();
	}

	/**
	 * Waits for `probe` to give a value, moving time forward by `stepMs` whenever it has not yet
	 * (I/O in between runs in real time), by `maxAdvanceMs` at most: a connected stream's watchdog
	 * would fire past its heartbeat window.
	 */
	async advanceUntil<T>(probe: () => T | undefined | false, options: { stepMs?: number; maxAdvanceMs?: number } = {}): Promise<T> {
		const { stepMs = 1000, maxAdvanceMs = 60_000 } = options;
		for (let advanced = 0; ; advanced += stepMs) {
			const value = await waitFor(probe, 50).catch(() => undefined);
			if (value !== undefined) return value;
			if (advanced >= maxAdvanceMs) return await waitFor(probe);
			await this.advance(stepMs, probe);
		}
	}

	/** Waits for `work` to end, moving time forward as `advanceUntil` does while it has not (a node run that waits on this clock). */
	async finish<T>(work: Promise<T>, options: { stepMs?: number; maxAdvanceMs?: number } = {}): Promise<T> {
		let ended = false;
		work.then(
			() => (ended = true),
			() => (ended = true),
		);
		await this.advanceUntil(() => ended, options);
		return await work;
	}
}

/**
 * A fake clock for the sandbox alone, for every test of the file: installed before each test,
 * real time after (the sandbox's own tests; clock.ts has the one shared with the package).
 */
export function sandboxClockForFile(): { readonly clock: FakeClock } {
	const holder = { clock: new FakeClock() };
	beforeEach(() => {
		holder.clock = new FakeClock();
		setSandboxTime(holder.clock);
	});
	afterEach(() => setSandboxTime(undefined));
	return holder;
}
