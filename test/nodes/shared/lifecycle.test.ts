import type { IDataObject } from 'n8n-workflow';

import { FIRST_RETRY_MS, LATER_RETRY_MS, Trigger, resetTriggers } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/triggers/lifecycle';
import { credentialFingerprint } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/rateBudget';
import { fakeClockForFile } from '../../harness/clock';

const time = fakeClockForFile();
beforeEach(() => resetTriggers());

const fingerprint = credentialFingerprint({ username: 'u', password: 'wrong' });
const trigger = (key = 'workflow|node') => new Trigger(key);

describe('the refusal gate', () => {
	test('after a refusal, 60 s to the next attempt, then 15 minutes while it lasts', async () => {
		const start = time.clock.now();
		expect(trigger().recordRefusal(401, 'refused', fingerprint).nextAttemptAt).toBe(start + FIRST_RETRY_MS);
		await time.clock.advance(FIRST_RETRY_MS - 1);
		expect(trigger().pendingRefusal(fingerprint)).toBeDefined();
		await time.clock.advance(1);
		expect(trigger().pendingRefusal(fingerprint)).toBeUndefined();
		expect(trigger().recordRefusal(401, 'refused', fingerprint).nextAttemptAt).toBe(time.clock.now() + LATER_RETRY_MS);
	});

	test('n8n reactivating every second for two hours costs at most 2 requests in the first minute and 1 per 15 minutes after', async () => {
		const start = time.clock.now();
		const attempts: number[] = [];
		for (let t = 0; t < 2 * 3600_000; t += 1000) {
			if (!trigger().pendingRefusal(fingerprint)) {
				attempts.push(t);
				trigger().recordRefusal(401, 'refused', fingerprint);
			}
			await time.clock.advance(1000);
		}
		expect(time.clock.now() - start).toBe(2 * 3600_000);
		expect(attempts.filter((t) => t <= 60_000)).toHaveLength(2);
		for (let i = 2; i < attempts.length; i++) expect(attempts[i] - attempts[i - 1]).toBeGreaterThanOrEqual(LATER_RETRY_MS);
		expect(attempts.length).toBeLessThanOrEqual(2 + Math.ceil((2 * 3600_000) / LATER_RETRY_MS));
	}, 60_000);

	test('a changed credential is tried at once; an accepted one clears the refusal', () => {
		trigger().recordRefusal(403, 'refused', fingerprint);
		expect(trigger().pendingRefusal(credentialFingerprint({ username: 'u', password: 'fixed' }))).toBeUndefined();
		trigger().recordRefusal(403, 'refused', fingerprint);
		trigger().recovered();
		expect(trigger().pendingRefusal(fingerprint)).toBeUndefined();
	});

	test('refusals are kept per trigger, and forgotten by a reset', () => {
		trigger('workflow-a|node').recordRefusal(401, 'refused', fingerprint);
		expect(trigger('workflow-b|node').pendingRefusal(fingerprint)).toBeUndefined();
		expect(trigger('workflow-a|node').pendingRefusal(fingerprint)).toBeDefined();
		resetTriggers();
		expect(trigger('workflow-a|node').pendingRefusal(fingerprint)).toBeUndefined();
	});
});

describe('persistent failure reports', () => {
	test('reported once, then again only after 15 minutes while it lasts; a stream that opened clears it', async () => {
		expect([trigger().failureReportDue(), trigger().failureReportDue()]).toEqual([true, false]);
		await time.clock.advance(LATER_RETRY_MS - 1);
		expect(trigger().failureReportDue()).toBe(false);
		await time.clock.advance(1);
		expect(trigger().failureReportDue()).toBe(true);
		trigger().recovered();
		expect(trigger().failureReportDue()).toBe(true);
	});
});

describe('activations', () => {
	test('a second activation of one trigger stops the first; the release of a replaced one changes nothing', async () => {
		const stopped: string[] = [];
		const releaseFirst = await trigger().replaceActivation(async () => void stopped.push('first'));
		const releaseSecond = await trigger().replaceActivation(async () => void stopped.push('second'));
		expect(stopped).toEqual(['first']);
		releaseFirst();
		await trigger().replaceActivation(async () => undefined);
		expect(stopped).toEqual(['first', 'second']);
		releaseSecond();
	});

	test('work of one trigger runs one at a time, in order, even when one fails', async () => {
		const order: string[] = [];
		let release: () => void = () => {};
		const gate = new Promise<void>((resolve) => (release = resolve));
		const first = trigger().oneAtATime(async () => {
			order.push('first starts');
			await gate;
			order.push('first ends');
			throw new Error('first failed');
		});
		const second = trigger().oneAtATime(async () => void order.push('second'));
		release();
		await expect(first).rejects.toThrow('first failed');
		await second;
		expect(order).toEqual(['first starts', 'first ends', 'second']);
	});
});

describe('saved state', () => {
	test('every save is an assignment n8n sees; a reactivation with an older copy gets what was saved last', () => {
		const seen: string[] = [];
		const staticData = new Proxy({} as IDataObject, { set: (target, key, value) => (seen.push(String(key)), Reflect.set(target, key, value)) });
		const state = { at: 1, value: 'first' };
		trigger().save(staticData, 'live', state);
		state.at = 2;
		state.value = 'second';
		trigger().save(staticData, 'live', state);
		expect(seen).toEqual(['live', 'live']);
		const older = { live: { at: 1, value: 'first' } };
		expect(trigger().load<typeof state>(older, 'live', (s) => s.at)).toEqual({ at: 2, value: 'second' });
		expect(trigger('another|node').load<typeof state>(older, 'live', (s) => s.at)).toBe(older.live);
	});
});
