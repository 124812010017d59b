import type { ValidationIssue } from '../../shared/operation';
import {
	describeValue,
	email,
	hasHiddenCharacter,
	httpUrl,
	isBlank,
	issues,
	oneOf,
	type Check,
} from '../../shared/validation';
import { e164 } from '../../shared/phoneNumbers';

import {
	asRule,
	isText,
	parseDate,
	parseDateTime,
	startOfUtcDay,
	violation,
	wholeNumber,
	wholeNumberAtLeast,
	windowStart,
} from './common';
import type { RuleId } from './rules';
import { formatDate } from '../../shared/params';
import { clock } from '../../shared/timers';

/** Small rules of the account, voice, trunk, report, notification and SMS requests; each takes the field names the node shows. */

const INTERCONNECT_TYPES: readonly string[] = ['virtual_interconnect', 'managed_interconnect'];

/**
 * `PUT /v3/accounts/{ACCOUNT}/type`: only developer -> startup online (startup back to developer is not shown, so refused);
 * `currentType`, when known (from GET type), refuses a non-developer account.
 */
export function validateAccountTypeChange(
	field: string,
	requested: unknown,
	currentType?: unknown,
): ValidationIssue[] {
	if (isBlank(requested)) return [violation('account-type.value', field, 'it is empty')];
	const type = String(requested);
	if (!['developer', 'startup', ...INTERCONNECT_TYPES].includes(type))
		return [
			violation('account-type.value', field, `${describeValue(requested)} is not an account type`),
		];
	if (INTERCONNECT_TYPES.includes(type))
		return [
			violation(
				'account-type.interconnect-not-selectable',
				field,
				`${type} is arranged with the supplier, not selected by API`,
			),
		];
	if (type !== 'startup')
		return [
			violation(
				'account-type.developer-to-startup-only',
				field,
				`${type} cannot be selected online`,
			),
		];
	if (isBlank(currentType) || currentType === 'developer') return [];
	return [
		violation(
			'account-type.developer-to-startup-only',
			field,
			`the account is ${String(currentType)}; only a developer account can change to startup online`,
		),
	];
}

/** `PUT /v3/voice/{ACCOUNT}/limits` for a dedicated allocation; without the account's `channel_allocation` the total is not checked. */
export function validateChannelLimits(
	limitIn: unknown,
	limitOut: unknown,
	channelAllocation?: unknown,
): ValidationIssue[] {
	const limit = (field: string, value: unknown): Check =>
		isBlank(value)
			? violation('channel-limits.whole-number', field, 'it is empty')
			: wholeNumberAtLeast('channel-limits.whole-number', field, value, 0);
	const found = issues(
		limit('limit_concurrent_in', limitIn),
		limit('limit_concurrent_out', limitOut),
	);
	const inbound = wholeNumber(limitIn);
	const outbound = wholeNumber(limitOut);
	const allocation = wholeNumber(channelAllocation);
	if (
		found.length === 0 &&
		inbound !== undefined &&
		outbound !== undefined &&
		allocation !== undefined &&
		inbound + outbound !== allocation
	) {
		found.push(
			violation(
				'channel-limits.total',
				'limit_concurrent_in',
				`${inbound} in + ${outbound} out = ${inbound + outbound}, but the channel allocation is ${allocation}`,
			),
		);
	}
	return found;
}

/** The name after `{ACCOUNT}-`: anything a trunk could be called, but not what cannot travel as one path segment. */
const TRUNK_NAME = /^(?!\.+$)[^\s/?#%\\]+$/;

/** A trunk name, `{ACCOUNT}-{name}`: with the account id, this account's prefix; without, any alphanumeric account part. */
export function validateTrunkName(
	field: string,
	name: unknown,
	accountId?: string,
): ValidationIssue[] {
	if (isBlank(name)) return [violation('trunk.name.form', field, 'it is empty')];
	if (!isText(name))
		return [violation('trunk.name.form', field, `${describeValue(name)} is not a trunk name`)];
	const text = String(name).trim();
	if (!isBlank(accountId)) {
		const prefix = `${String(accountId).trim()}-`;
		if (!text.startsWith(prefix))
			return [
				violation(
					'trunk.name.form',
					field,
					`"${text}" does not start with this account's id ${prefix}`,
				),
			];
		if (TRUNK_NAME.test(text.slice(prefix.length)) && !hasHiddenCharacter(text)) return [];
		return [
			violation(
				'trunk.name.form',
				field,
				`${describeValue(text)} has no name after ${prefix}, or one with spaces, slashes, ? # % \\, control characters or invisible marks, or only dots`,
			),
		];
	}
	const valid =
		new RegExp(`^[A-Za-z0-9]+-${TRUNK_NAME.source.slice(1)}`).test(text) &&
		!hasHiddenCharacter(text);
	return valid ? [] : [violation('trunk.name.form', field, `"${text}" is not {ACCOUNT}-{name}`)];
}

/** The `type` of a new trunk; blank means the API's default, auth. */
export function validateTrunkType(field: string, value: unknown): ValidationIssue[] {
	return issues(asRule('trunk.type', oneOf(field, value, ['IP', 'auth'])));
}

/** `DELETE /v3/voice/{ACCOUNT}/trunks/{TRUNK}`: the default IP trunk `{ACCOUNT}-L001` cannot go. */
export function validateTrunkDeletion(
	field: string,
	name: unknown,
	accountId?: string,
): ValidationIssue[] {
	const nameIssues = validateTrunkName(field, name, accountId);
	if (nameIssues.length > 0) return nameIssues;
	// Compared without case: refusing a harmless variant costs nothing, deleting the default trunk would.
	return /-L001$/i.test(String(name).trim())
		? [
				violation(
					'trunk.default-not-deletable',
					field,
					`${String(name).trim()} is the default IP-authenticated trunk`,
				),
			]
		: [];
}

const RATE_LIMIT = /^(\d+)\/(12h|10s|1s)$/;

/** A `limit_rate_*` option: `calls/duration`, e.g. `5/10s`; null or empty means no limit. */
export function validateTrunkRateLimit(field: string, value: unknown): ValidationIssue[] {
	if (isBlank(value)) return [];
	const match = typeof value === 'string' ? RATE_LIMIT.exec(value.trim()) : null;
	if (!match)
		return [
			violation(
				'trunk.rate-limit.form',
				field,
				`${describeValue(value)} is not calls/12h, calls/10s or calls/1s`,
			),
		];
	return Number(match[1]) >= 1
		? []
		: [
				violation(
					'trunk.rate-limit.form',
					field,
					'a rate of 0 calls; disable the trunk with enabled_out = 0 instead',
				),
			];
}

const TRUNK_SWITCHES = ['enabled', 'enable_in', 'enabled_out'];
/** Booleans are accepted because n8n boolean fields give them; the node sends 1 or 0. */
const SWITCH_VALUES: readonly unknown[] = [0, 1, '0', '1', true, false];

/** The (optional) update options of `PUT /v3/voice/{ACCOUNT}/trunks/{TRUNK}`; those the spec does not describe (cli_format) pass unchecked. */
export function validateTrunkUpdate(options: Record<string, unknown>): ValidationIssue[] {
	return issues(
		...Object.entries(options).map(([key, value]): Check[] => {
			if (TRUNK_SWITCHES.includes(key))
				return isBlank(value) || SWITCH_VALUES.includes(value)
					? []
					: [violation('trunk.switch', key, `${describeValue(value)} is not 1 or 0`)];
			if (key.startsWith('limit_concurrent_'))
				return [wholeNumberAtLeast('trunk.concurrent-limit', key, value, 0)];
			return key.startsWith('limit_rate_') ? validateTrunkRateLimit(key, value) : [];
		}),
	);
}

const LATEST_COUNTS: Record<'reports' | 'prepay', { ruleId: RuleId; counts: readonly number[] }> = {
	reports: { ruleId: 'reports.latest', counts: [10, 100, 1000, 10000] },
	prepay: { ruleId: 'prepay.latest', counts: [1, 10] },
};

/** The N of `.../latest/N`: a CDR report (10 to 10000) or prepayments and transfers (1 or 10). */
export function validateLatestCount(
	field: string,
	value: unknown,
	list: keyof typeof LATEST_COUNTS,
): ValidationIssue[] {
	const { ruleId, counts } = LATEST_COUNTS[list];
	if (isBlank(value)) return [violation(ruleId, field, 'it is empty')];
	const count = wholeNumber(value);
	return count !== undefined && counts.includes(count)
		? []
		: [violation(ruleId, field, `${describeValue(value)} is not one of ${counts.join(', ')}`)];
}

/** A report or inline-CDR date, `YYYY-MM-DD` (blank: today), within the last 90 whole UTC days: from 90 days before today up to today. */
export function validateReportDate(
	field: string,
	value: unknown,
	now: Date = new Date(clock.now()),
): ValidationIssue[] {
	if (isBlank(value)) return [];
	const time = isText(value) ? parseDate(String(value).trim()) : undefined;
	if (time === undefined)
		return [
			violation('reports.date.form', field, `${describeValue(value)} is not a date YYYY-MM-DD`),
		];
	const earliest = windowStart(now, 90);
	if (time < earliest)
		return [
			violation(
				'reports.date.window',
				field,
				`${String(value).trim()} is before ${formatDate(earliest)}`,
			),
		];
	return time > startOfUtcDay(now)
		? [violation('reports.date.window', field, `${String(value).trim()} is in the future`)]
		: [];
}

/** Inline CDRs: `date_start` and `date_end` (`YYYY-MM-DD hh:mm:ss`) within the last 90 days. */
export function validateCdrPeriod(
	dateStart: unknown,
	dateEnd: unknown,
	now: Date = new Date(clock.now()),
): ValidationIssue[] {
	return validatePeriod(dateStart, dateEnd, 90, 'date-time.cdr-window', now);
}

/** Notification history: `date_start` at most 60 days ago, `date_end` after it. */
export function validateNotificationHistoryPeriod(
	dateStart: unknown,
	dateEnd: unknown,
	now: Date = new Date(clock.now()),
): ValidationIssue[] {
	return validatePeriod(dateStart, dateEnd, 60, 'date-time.notification-history-window', now);
}

/** Each bound that is given must be well formed and inside the window; given both, start comes first. */
function validatePeriod(
	dateStart: unknown,
	dateEnd: unknown,
	windowDays: number,
	windowRule: RuleId,
	now: Date,
): ValidationIssue[] {
	const earliest = windowStart(now, windowDays);
	const found: ValidationIssue[] = [];
	const bound = (field: string, value: unknown): number | undefined => {
		if (isBlank(value)) return undefined;
		const time = isText(value) ? parseDateTime(String(value).trim()) : undefined;
		if (time === undefined)
			found.push(
				violation(
					'date-time.form',
					field,
					`${describeValue(value)} is not a date-time YYYY-MM-DD hh:mm:ss`,
				),
			);
		else if (time < earliest)
			found.push(
				violation(
					windowRule,
					field,
					`${String(value).trim()} is before ${formatDate(earliest)} 00:00:00`,
				),
			);
		return time;
	};
	const start = bound('date_start', dateStart);
	const end = bound('date_end', dateEnd);
	if (start !== undefined && end !== undefined && start >= end) {
		found.push(
			violation(
				'date-time.order',
				'date_start',
				`${String(dateStart).trim()} is not before ${String(dateEnd).trim()}`,
			),
		);
	}
	return found;
}

/** `POST .../notifications/{TYPE}/{METHOD}` with `destination`: an e-mail address or an E.164 mobile number. */
export function validateNotificationRecipient(
	method: unknown,
	destination: unknown,
): ValidationIssue[] {
	if (method !== 'email' && method !== 'sms')
		return [
			violation(
				'notifications.method',
				'method',
				isBlank(method) ? 'it is empty' : `${describeValue(method)} is not a notification method`,
			),
		];
	const ruleId =
		method === 'email' ? 'notifications.destination.email' : 'notifications.destination.sms';
	if (isBlank(destination)) return [violation(ruleId, 'destination', 'it is empty')];
	return issues(
		asRule(
			ruleId,
			method === 'email' ? email('destination', destination) : e164('destination', destination),
		),
	);
}

/** The sample interval of channel history; blank means the API's default, 5m. */
export function validateChannelHistoryInterval(field: string, value: unknown): ValidationIssue[] {
	return issues(asRule('channels.history.interval', oneOf(field, value, ['1m', '5m', '1h'])));
}

/** `PUT .../allocated/{NUMBER}/sms`: mode `http`, the legacy form post, has no TLS, so it cannot deliver to an https:// endpoint. */
export function validateSmsEndpoint(mode: unknown, endpoint: unknown): ValidationIssue[] {
	const found = issues(
		isBlank(mode)
			? violation('sms.mode', 'mode', 'it is empty')
			: asRule('sms.mode', oneOf('mode', mode, ['http', 'http_json'])),
		isBlank(endpoint)
			? violation('sms.endpoint', 'endpoint', 'it is empty')
			: asRule('sms.endpoint', httpUrl('endpoint', endpoint, { webhook: true })),
	);
	if (mode === 'http' && typeof endpoint === 'string' && /^https:\/\//i.test(endpoint.trim())) {
		found.push(
			violation(
				'sms.http-mode-no-tls',
				'mode',
				`mode http cannot post to the TLS endpoint ${describeValue(endpoint)}`,
			),
		);
	}
	return found;
}
