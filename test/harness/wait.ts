/** Polls a probe until it gives a value (not undefined or false), or fails after the timeout. */
export async function waitFor<T>(probe: () => T | undefined | false, timeoutMs = 8000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = probe();
		if (value !== undefined && value !== false) return value as T;
		if (Date.now() > deadline) throw new Error('timed out waiting');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
