import { LONGEST_RATE_LIMIT_PAUSE_MS, PbxLiveStream } from '../../../nodes/HostedPbx/trigger/liveStream';
import type { StreamResponse } from '../../../nodes/shared/operation';
import { MIN_RETRY_DELAY_MS } from '../../../nodes/shared/transport';

/** A stream whose every connection is answered 429 with the given headers; the pauses it announces, until it has `count`. */
async function pausesAfter429(headers: Record<string, string>, count: number): Promise<number[]> {
	const pauses: number[] = [];
	let opened = 0;
	let stream: PbxLiveStream | undefined;
	const done = new Promise<void>((resolve) => {
		stream = new PbxLiveStream({
			open: async (): Promise<StreamResponse> => {
				opened++;
				return { ok: false, status: 429, headers, text: '{}', message: 'rate limited' };
			},
			heartbeatWindowMs: 60_000,
			onObject: () => {},
			onIncident: () => {},
			onRefused: () => 0,
			onTransientFailure: (_reason, retryInMs) => {
				pauses.push(retryInMs);
				if (pauses.length >= count) resolve();
			},
		});
	});
	stream!.start();
	await done;
	await stream!.stop();
	expect(opened).toBe(count);
	return pauses;
}

describe('429 on the live stream', () => {
	test('Retry-After: 0 again and again is never an immediate reconnect: at least a second, then the backoff', async () => {
		const pauses = await pausesAfter429({ 'retry-after': '0' }, 3);
		for (const pause of pauses) expect(pause).toBeGreaterThanOrEqual(MIN_RETRY_DELAY_MS);
		expect(pauses[2]).toBeGreaterThanOrEqual(1000);
	});

	test('a Retry-After of years (or no date at all) pauses the stream a quarter of an hour at most, so it never goes quiet for good', async () => {
		expect(await pausesAfter429({ 'retry-after': '1000000000' }, 1)).toEqual([LONGEST_RATE_LIMIT_PAUSE_MS]);
		expect(await pausesAfter429({ 'retry-after': '1e308' }, 1)).toEqual([LONGEST_RATE_LIMIT_PAUSE_MS]);
		expect(await pausesAfter429({ 'retry-after': '30' }, 1)).toEqual([30_000]);
	});
});
