import {
	FIRST_RETRY_MS,
	LATER_RETRY_MS,
	clearRefusal,
	credentialFingerprint,
	forgetRefusals,
	pendingRefusal,
	recordRefusal,
} from '../../../nodes/shared/triggers/refusals';

beforeEach(() => forgetRefusals());

const fingerprint = credentialFingerprint({ username: 'u', password: 'wrong' });

test('after a refusal, 60 s to the next attempt, then 15 minutes while it lasts', () => {
	expect(recordRefusal('k', 401, 'refused', fingerprint, { now: 0 }).nextAttemptAt).toBe(FIRST_RETRY_MS);
	expect(pendingRefusal('k', fingerprint, FIRST_RETRY_MS - 1)).toBeDefined();
	expect(pendingRefusal('k', fingerprint, FIRST_RETRY_MS)).toBeUndefined();
	expect(recordRefusal('k', 401, 'refused', fingerprint, { now: FIRST_RETRY_MS }).nextAttemptAt).toBe(FIRST_RETRY_MS + LATER_RETRY_MS);
});

test('n8n reactivating every second for two hours costs at most 2 requests in the first minute and 1 per 15 minutes after', () => {
	const attempts: number[] = [];
	for (let t = 0; t < 2 * 3600_000; t += 1000) {
		if (pendingRefusal('k', fingerprint, t)) continue;
		attempts.push(t);
		recordRefusal('k', 401, 'refused', fingerprint, { now: t });
	}
	expect(attempts.filter((t) => t <= 60_000)).toHaveLength(2);
	for (let i = 2; i < attempts.length; i++) expect(attempts[i] - attempts[i - 1]).toBeGreaterThanOrEqual(LATER_RETRY_MS);
	expect(attempts.length).toBeLessThanOrEqual(2 + Math.ceil((2 * 3600_000) / LATER_RETRY_MS));
});

test('a changed credential is tried at once; an accepted one clears the refusal', () => {
	recordRefusal('k', 403, 'refused', fingerprint, { now: 0 });
	expect(pendingRefusal('k', credentialFingerprint({ username: 'u', password: 'fixed' }), 1)).toBeUndefined();
	recordRefusal('k', 403, 'refused', fingerprint, { now: 0 });
	clearRefusal('k');
	expect(pendingRefusal('k', fingerprint, 1)).toBeUndefined();
});

test('refusals are kept per trigger', () => {
	recordRefusal('workflow-a|node', 401, 'refused', fingerprint, { now: 0 });
	expect(pendingRefusal('workflow-b|node', fingerprint, 1)).toBeUndefined();
});
