/**
 * One running activation per trigger node and process. n8n 2.40 can activate the same trigger
 * node twice at once (its publication outbox and its reconciler racing, measured in the e2e
 * suite) and keeps only the second activation's close function: the first would hold its stream
 * or polling loop open, and emit, for good. A new activation of the same workflow node stops the
 * one before it; manual test runs are not registered (they must not stop the active trigger).
 */
const running = new Map<string, () => Promise<void>>();

/** Registers `stop` for `key` (workflow id and node id), stopping the activation it replaces; returns the release for the close function. */
export async function replacePreviousActivation(key: string, stop: () => Promise<void>): Promise<() => void> {
	const previous = running.get(key);
	running.set(key, stop);
	if (previous) await previous();
	return () => {
		if (running.get(key) === stop) running.delete(key);
	};
}

/** How many activations are registered (tests). */
export function runningActivations(): number {
	return running.size;
}

const chains = new Map<string, Promise<unknown>>();

/**
 * Runs `work` after the previous work for `key` ended: two schedules of the same poll node (the
 * same double activation) never poll at once, so each sees the cursor the other left.
 */
export async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
	const previous = chains.get(key) ?? Promise.resolve();
	const current = previous.catch(() => undefined).then(work);
	chains.set(key, current);
	try {
		return await current;
	} finally {
		if (chains.get(key) === current) chains.delete(key);
	}
}
