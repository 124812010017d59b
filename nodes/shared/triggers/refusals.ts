/**
 * Credentials the platform refused (401/403), remembered per trigger so that a long-running
 * trigger never storms the platform. n8n answers a trigger's `emitError` by deactivating it and
 * activating it again a second later (n8n 1.123 and 2.40 alike), and retries a failed activation
 * at once too, so a trigger that simply reconnected on each activation sent a request a second.
 *
 * After a refusal the next attempt waits 60 s, then 15 minutes between attempts while it lasts;
 * a user's activation in between fails at once with the refusal (visible where n8n shows trigger
 * problems) and sends nothing; n8n's own activation after a running trigger reported the refusal
 * succeeds and waits for the next attempt (n8n 2.x gives up after five failed activations). A changed credential is tried at once: fixing the password needs no
 * wait. The state lives in the n8n process (the leader in queue mode); a restart tries once.
 */
import { createHash } from 'node:crypto';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** The first retry after a refusal. */
export const FIRST_RETRY_MS = 60_000;
/** Every later retry while the refusal lasts. */
export const LATER_RETRY_MS = 15 * 60_000;

export interface Refusal {
	status: number;
	message: string;
	refusals: number;
	nextAttemptAt: number;
	/** Which credential values were refused (a hash: the values themselves are never kept). */
	fingerprint: string;
	/** Refused while the trigger ran (not at a user's activation): n8n's own activations then wait instead of failing. */
	whileRunning: boolean;
}

const refusals = new Map<string, Refusal>();
/** The waits in force (tests shorten them to see a trigger recover). */
export const retryTimes = { firstMs: FIRST_RETRY_MS, laterMs: LATER_RETRY_MS };

/** A hash of a credential's values, to notice that the user changed them. */
export function credentialFingerprint(credentials: ICredentialDataDecryptedObject): string {
	const entries = Object.entries(credentials).sort(([a], [b]) => a.localeCompare(b));
	return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}

/** The refusal that still holds for this trigger and these credential values, if an attempt must wait. */
export function pendingRefusal(key: string, fingerprint: string, now = Date.now()): Refusal | undefined {
	const refusal = refusals.get(key);
	if (!refusal) return undefined;
	if (refusal.fingerprint !== fingerprint) {
		refusals.delete(key);
		return undefined;
	}
	return now < refusal.nextAttemptAt ? refusal : undefined;
}

/** Records a refusal; returns it with the time of the next attempt. */
export function recordRefusal(key: string, status: number, message: string, fingerprint: string, options: { whileRunning?: boolean; now?: number } = {}): Refusal {
	const now = options.now ?? Date.now();
	const previous = refusals.get(key);
	const same = previous && previous.fingerprint === fingerprint;
	const count = same ? previous.refusals + 1 : 1;
	const whileRunning = Boolean(options.whileRunning || (same && previous.whileRunning));
	const refusal = { status, message, refusals: count, fingerprint, whileRunning, nextAttemptAt: now + (count === 1 ? retryTimes.firstMs : retryTimes.laterMs) };
	refusals.set(key, refusal);
	return refusal;
}

/** The credentials were accepted again: no more waiting. */
export function clearRefusal(key: string): void {
	refusals.delete(key);
}

/** What the user reads while a refusal holds. */
export function refusalMessage(label: string, refusal: Refusal): string {
	const when = new Date(refusal.nextAttemptAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
	return `${refusal.message} The trigger tries again at ${when} (or at once when the credential changes) and sends nothing to the ${label} until then.`;
}

/** Forgets every refusal (a fresh process, as tests need between cases). */
export function forgetRefusals(): void {
	refusals.clear();
}
