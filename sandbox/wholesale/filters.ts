import { currentTime } from '../core/clock';
import type { WsRequest } from './context';
import { failure, isRecord } from './context';
import { DAY_MS, parseGmt, startOfDay } from './php';
import type { Cdr } from './seed';

/** The `filter` of inline CDRs and summaries, and their date windows. */

export const FILTER_KEYS = ['from', 'to', 'toISO', 'trunk', 'tag'] as const;
export type CdrFilter = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

/** Days back that CDRs and summaries may reach (whole UTC days). */
export const CDR_WINDOW_DAYS = 90;

/**
 * The filter, read only from a JSON body (as the spec says: "only supported via POST with a
 * JSON body"); a filter in the query string or a form body is ignored. An object, or an array
 * of one-key objects, of search key to value.
 */
export function readFilter(req: WsRequest): CdrFilter {
	if (!isRecord(req.bodyJson)) return {};
	const raw = req.bodyJson.filter;
	if (raw === undefined || raw === null || raw === '') return {};
	const entries: Array<[string, unknown]> = [];
	if (Array.isArray(raw)) {
		for (const item of raw) {
			if (!isRecord(item)) throw failure(400, 'filter must be an object of search key to value');
			entries.push(...Object.entries(item));
		}
	} else if (isRecord(raw)) {
		entries.push(...Object.entries(raw));
	} else {
		throw failure(400, 'filter must be an object of search key to value');
	}
	const filter: CdrFilter = {};
	const errors: string[] = [];
	for (const [key, value] of entries) {
		if (!(FILTER_KEYS as readonly string[]).includes(key)) {
			errors.push(`Unknown filter key ${key}; the keys are ${FILTER_KEYS.join(', ')}`);
			continue;
		}
		if (typeof value !== 'string' && typeof value !== 'number') {
			errors.push(`filter ${key} must be a string`);
			continue;
		}
		filter[key as keyof CdrFilter] = String(value).trim();
	}
	if (errors.length) throw failure(400, errors);
	return filter;
}

/** from and to match as a prefix of the number (a leading + ignored); toISO, trunk and tag match exactly (ISO without case). */
export function matchesFilter(cdr: Cdr, filter: CdrFilter): boolean {
	const digitsOf = (v: string) => v.replace(/^\+/, '');
	if (filter.from !== undefined && !cdr.from.startsWith(digitsOf(filter.from))) return false;
	if (filter.to !== undefined && !cdr.to.startsWith(digitsOf(filter.to))) return false;
	if (filter.toISO !== undefined && cdr.iso.toUpperCase() !== filter.toISO.toUpperCase()) return false;
	if (filter.trunk !== undefined && cdr.trunk !== filter.trunk) return false;
	if (filter.tag !== undefined && cdr.tag !== filter.tag) return false;
	return true;
}

/** The earliest moment the 90-day window allows: 00:00:00 UTC, 90 days before today. */
export function windowStart(now = currentTime(), days = CDR_WINDOW_DAYS): number {
	return startOfDay(now) - days * DAY_MS;
}

/**
 * A `YYYY-MM-DD hh:mm:ss` (GMT) parameter: its time, the fallback when absent, or a 400 naming
 * what is wrong. `earliest` is the window's first moment.
 */
export function dateTimeParam(req: WsRequest, name: string, fallback: number, earliest: number, windowText: string): number {
	const value = req.input[name];
	if (value === undefined || value === null || value === '') return fallback;
	if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value.trim())) {
		throw failure(400, `${name} must be a date-time YYYY-MM-DD hh:mm:ss (GMT)`);
	}
	const time = parseGmt(value);
	if (Number.isNaN(time)) throw failure(400, `${name} ${value} is not a real date and time`);
	if (time < earliest) throw failure(400, `${name} ${value} is outside the ${windowText}`);
	return time;
}
