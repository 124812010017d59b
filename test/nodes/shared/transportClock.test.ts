/**
 * The transport reads the package's clock (nodes/shared/timers.ts), as every timer and watchdog does:
 * when a rate limit lifts and how fast a download runs are measured on the same time as the waits.
 * The fake clock is moved an hour away from real time, so a reading of the machine's clock shows.
 */
import { PassThrough } from 'node:stream';
import type { INode } from 'n8n-workflow';

import { guardedStream } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/body';
import { failureOfStatus, rateLimitError, rateLimitWaitMs } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/failures';
import { fakeClockForFile } from '../../harness/clock';

const time = fakeClockForFile();
const HOUR = 3_600_000;

// An hour ahead, on a whole second (an HTTP date has no milliseconds).
beforeEach(async () => await time.clock.advance(HOUR + 1000 - (time.clock.now() % 1000)));

const NODE: INode = { id: 'n', name: 'Node', type: 'n8n-nodes-telephony-platform.hostedPbx', typeVersion: 1, position: [0, 0], parameters: {} };

test('a Retry-After date and an X-RateLimit-Reset epoch are counted from the package clock', () => {
	const now = time.clock.now();
	expect(rateLimitWaitMs({ 'retry-after': new Date(now + 30_000).toUTCString() })).toBe(30_000);
	expect(rateLimitWaitMs({ 'x-ratelimit-reset': String((now + 12_000) / 1000) })).toBe(12_000);
	expect(failureOfStatus(429, 5_000)).toEqual({ cause: 'rate-limited', retryAfterMs: 5_000, resetsAtEpochMs: now + 5_000 });
});

test('the 429 error says when the limit lifts, on the package clock, and its failure agrees', () => {
	const now = time.clock.now();
	const error = rateLimitError(NODE, 'Hosted PBX API', { 'retry-after': '90' }, 30_000) as Error & { failure?: unknown };
	expect(error.message).toContain(`Try again in 90 s (after ${new Date(now + 90_000).toISOString()})`);
	expect(error.failure).toEqual({ cause: 'rate-limited', retryAfterMs: 90_000, resetsAtEpochMs: now + 90_000 });
});

test('a download that drips is refused once it ran longer than the idle window on the package clock', async () => {
	const source = new PassThrough();
	const tooSlow = new Error('too slow');
	const fail = (what: string) => () => new Error(what);
	const stream = guardedStream(source, 1_000, 1_000_000, { tooLarge: fail('too large'), idle: fail('idle'), tooSlow: () => tooSlow }) as unknown as AsyncIterable<Buffer>;
	const reader = stream[Symbol.asyncIterator]();
	const read = async () => {
		const next = reader.next();
		source.write(Buffer.from('x'));
		return await next;
	};
	expect((await read()).done).toBe(false);
	await time.clock.advance(900);
	expect((await read()).done).toBe(false); // 2 bytes in 0.9 s: within the idle window, not judged yet
	await time.clock.advance(900);
	// 3 bytes in 1.8 s, far below the minimum speed: refused, though hardly any real time passed.
	await expect(read()).rejects.toBe(tooSlow);
});
