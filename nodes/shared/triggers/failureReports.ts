import { LATER_RETRY_MS } from './refusals';

/** Attempts in a row that got no stream after which a failure counts as persistent (about 4 to 7 s of backoff). */
export const PERSISTENT_FAILURE_ATTEMPTS = 5;

/**
 * How often a persistent stream failure is reported while it lasts. n8n answers emitError by
 * activating the trigger again (at once on 2.x); the new activation keeps retrying with backoff
 * but reports again only after this wait, so a failure lasting hours is shown every 15 minutes,
 * not on every attempt.
 */
export const FAILURE_REPORT_INTERVAL_MS = LATER_RETRY_MS;

/** When each trigger (workflow and node) last reported a persistent failure: kept across n8n's reactivations. */
const reportedAt = new Map<string, number>();

/** Whether a persistent failure of this trigger is to be reported now; if so, noted as reported. */
export function failureReportDue(key: string): boolean {
	const last = reportedAt.get(key);
	if (last !== undefined && Date.now() - last < FAILURE_REPORT_INTERVAL_MS) return false;
	reportedAt.set(key, Date.now());
	return true;
}

/** A stream opened: the failure is over, and the next one is reported at once. */
export function clearFailureReport(key: string): void {
	reportedAt.delete(key);
}

/** Forgets the failure reports (a fresh process, as tests need between cases). */
export function forgetFailureReports(): void {
	reportedAt.clear();
}

/** The log line of a failed or closed connection: info when a working stream closed, a warning per failed attempt, an error once it persists. */
export function failureLogLevel(failedAttempts: number): 'info' | 'warn' | 'error' {
	if (failedAttempts === 0) return 'info';
	return failedAttempts < PERSISTENT_FAILURE_ATTEMPTS ? 'warn' : 'error';
}
