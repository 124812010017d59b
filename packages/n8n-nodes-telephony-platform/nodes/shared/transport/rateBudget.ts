import { createHash } from 'node:crypto';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { clock } from '../timers';

/** A credential's request budget as its last answer gave it (`X-RateLimit-*`): polls pause below a tenth, leaving the rest to action nodes. */
export interface RateBudget {
	limit: number;
	remaining: number;
	resetAt: number;
}

/** Credentials remembered at most; the oldest is dropped beyond it. */
const MAX_BUDGETS = 10_000;
const budgets = new Map<string, RateBudget>();

/** Forgets every budget (a fresh process, as tests need between cases). */
export function resetRateBudgets(): void {
	budgets.clear();
}

/** A hash of a credential's values: which credential a budget or a refusal is of, without keeping the values. */
export function credentialFingerprint(credentials: ICredentialDataDecryptedObject): string {
	const entries = Object.entries(credentials).sort(([a], [b]) => a.localeCompare(b));
	return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}

/** Notes the rate headers of an answer for this credential (ignored unless all three are numbers). */
export function noteRateLimit(fingerprint: string, headers: Record<string, string>): void {
	const [limit, remaining, reset] = [
		'x-ratelimit-limit',
		'x-ratelimit-remaining',
		'x-ratelimit-reset',
	].map((name) => Number(headers[name] ?? NaN));
	if (![limit, remaining, reset].every(Number.isFinite) || limit <= 0) return;
	budgets.delete(fingerprint);
	if (budgets.size >= MAX_BUDGETS) budgets.delete(budgets.keys().next().value as string);
	// The reset is seconds from now in the spec; an epoch value is understood too.
	budgets.set(fingerprint, {
		limit,
		remaining,
		resetAt: reset > 1e9 ? reset * 1000 : clock.now() + reset * 1000,
	});
}

/** The budget of this credential when less than a tenth of it is left and its window has not reset. */
export function budgetLow(fingerprint: string): RateBudget | undefined {
	const budget = budgets.get(fingerprint);
	return budget && budget.remaining < budget.limit / 10 && clock.now() < budget.resetAt
		? budget
		: undefined;
}
