import type { Attempt } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/streams/reconnectingStream';
import { LONGEST_RATE_LIMIT_PAUSE_MS, MIN_RATE_LIMIT_PAUSE_MS, ReconnectingStream } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/streams/reconnectingStream';
import { fakeClockForFile } from '../../harness/clock';

const time = fakeClockForFile();

/** A body that yields `chunks` and then ends (the server closed the stream). */
function body(chunks: string[]) {
	return Object.assign(
		(async function* () {
			for (const chunk of chunks) yield Buffer.from(chunk);
		})(),
		{ destroy: () => undefined },
	);
}

/** A stream whose attempts are answered by `answer`; the pauses it announces, until it has `count`. */
async function pauses(answer: (attempt: number) => Attempt, count: number, progressOnData = true) {
	const announced: number[] = [];
	let attempts = 0;
	const stream = new ReconnectingStream({
		connect: async () => answer(++attempts),
		framing: (progress) => ({ push: () => progressOnData && progress(), end: () => undefined }),
		heartbeatWindowMs: 90_000,
		onRefused: () => 0,
		onTransientFailure: (_reason, retryInMs) => void announced.push(retryInMs),
	});
	stream.start();
	await time.clock.advanceUntil(() => announced.length >= count, { stepMs: 60_000, maxAdvanceMs: 24 * 3600_000 });
	await stream.stop();
	return { announced: announced.slice(0, count), attempts };
}

const rateLimited = (waitMs?: number): Attempt => ({ kind: 'failed', reason: 'rate limited', status: 429, waitMs });

describe('reconnecting', () => {
	test('a working stream that drops is reopened at once; failures in a row back off, capped at a minute', async () => {
		const { announced } = await pauses((n) => (n === 1 ? { kind: 'open', status: 200, body: body(['{}']) } : { kind: 'failed', reason: 'HTTP 503', status: 503 }), 9);
		expect(announced[0]).toBe(0);
		for (let i = 2; i < announced.length; i++) expect(announced[i]).toBeGreaterThanOrEqual(announced[i - 1] / 2);
		expect(Math.max(...announced)).toBeLessThanOrEqual(60_000);
		expect(announced.at(-1)).toBeGreaterThanOrEqual(30_000);
	});

	test('a server that accepts and closes at once without sending anything is not reconnected at network speed', async () => {
		const { announced } = await pauses(() => ({ kind: 'open', status: 200, body: body([]) }), 6);
		expect(announced.slice(1).every((ms) => ms > 0)).toBe(true);
	});

	test('Retry-After: 0 again and again is never an immediate reconnect: at least a second, then the backoff', async () => {
		const { announced } = await pauses(() => rateLimited(0), 3);
		for (const pause of announced) expect(pause).toBeGreaterThanOrEqual(MIN_RATE_LIMIT_PAUSE_MS);
	});

	test('a Retry-After of years (or no date at all) pauses the stream a quarter of an hour at most, so it never goes quiet for good', async () => {
		expect((await pauses(() => rateLimited(1e12), 1)).announced).toEqual([LONGEST_RATE_LIMIT_PAUSE_MS]);
		expect((await pauses(() => rateLimited(Infinity), 1)).announced).toEqual([LONGEST_RATE_LIMIT_PAUSE_MS]);
		expect((await pauses(() => rateLimited(30_000), 1)).announced).toEqual([30_000]);
	});

	test('a refusal waits as long as the trigger says, then tries again', async () => {
		let attempts = 0;
		const refusals: number[] = [];
		const stream = new ReconnectingStream({
			connect: async () => (++attempts, { kind: 'refused', status: 401, message: 'refused' }),
			framing: () => ({ push: () => undefined, end: () => undefined }),
			heartbeatWindowMs: 90_000,
			onRefused: (status) => (refusals.push(status), 60_000),
		});
		stream.start();
		expect(await stream.firstOutcome).toEqual({ kind: 'refused', status: 401, message: 'refused' });
		await time.clock.advance(59_000);
		expect(attempts).toBe(1);
		await time.clock.advanceUntil(() => attempts === 2);
		await stream.stop();
		expect(refusals).toEqual([401, 401]);
	});

	test('an ended source ends the stream: no reconnection, onEnded once', async () => {
		const ended: string[] = [];
		let attempts = 0;
		const stream = new ReconnectingStream({
			connect: async () => (++attempts, { kind: 'ended', reason: 'the session is over' }),
			framing: () => ({ push: () => undefined, end: () => undefined }),
			heartbeatWindowMs: 90_000,
			onRefused: () => 0,
			onEnded: (reason) => void ended.push(reason),
		});
		stream.start();
		await time.clock.advanceUntil(() => ended.length === 1);
		await time.clock.advance(3_600_000);
		await stream.stop();
		expect([ended, attempts]).toEqual([['the session is over'], 1]);
	});
});
