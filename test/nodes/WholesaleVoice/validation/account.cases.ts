import {
	validateAccountTypeChange,
	validateCdrPeriod,
	validateChannelHistoryInterval,
	validateChannelLimits,
	validateLatestCount,
	validateNotificationHistoryPeriod,
	validateNotificationRecipient,
	validateReportDate,
	validateSmsEndpoint,
	validateTrunkDeletion,
	validateTrunkName,
	validateTrunkRateLimit,
	validateTrunkType,
	validateTrunkUpdate,
} from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/account';

import { invalid, saying, valid, type RuleCase } from './cases';

/**
 * The clock of the dated cases. 90 days before 2029-06-01 is 2029-03-03; 60 days before is 2029-04-02.
 */
export const NOW = new Date('2029-06-01T12:00:00Z');

const accountType = (requested: unknown, current?: unknown) => () => validateAccountTypeChange('account_type', requested, current);
const limits = (limitIn: unknown, limitOut: unknown, allocation?: unknown) => () => validateChannelLimits(limitIn, limitOut, allocation);
const trunkName = (name: unknown, accountId?: string) => () => validateTrunkName('trunk', name, accountId);
const rate = (value: unknown) => () => validateTrunkRateLimit('limit_rate_out', value);
const update = (options: Record<string, unknown>) => () => validateTrunkUpdate(options);
const reportDate = (value: unknown) => () => validateReportDate('date', value, NOW);
const cdr = (start: unknown, end?: unknown) => () => validateCdrPeriod(start, end, NOW);
const history = (start: unknown, end?: unknown) => () => validateNotificationHistoryPeriod(start, end, NOW);
const recipient = (method: unknown, destination: unknown) => () => validateNotificationRecipient(method, destination);
const sms = (mode: unknown, endpoint: unknown) => () => validateSmsEndpoint(mode, endpoint);

export const accountCases: RuleCase[] = [
	// Account type.
	valid('account-type.value', 'startup for a developer account', accountType('startup', 'developer')),
	invalid('account-type.value', 'no type', accountType(''), 'account_type'),
	invalid('account-type.value', 'an unknown type', accountType('enterprise'), 'account_type'),

	valid('account-type.interconnect-not-selectable', 'startup', accountType('startup')),
	invalid('account-type.interconnect-not-selectable', 'virtual_interconnect', accountType('virtual_interconnect'), 'account_type'),
	invalid('account-type.interconnect-not-selectable', 'managed_interconnect', accountType('managed_interconnect', 'developer'), 'account_type'),

	valid('account-type.developer-to-startup-only', 'startup when the current type is not known', accountType('startup')),
	invalid('account-type.developer-to-startup-only', 'developer for a startup account', accountType('developer', 'startup'), 'account_type'),
	saying(
		/already|only a developer account/,
		invalid('account-type.developer-to-startup-only', 'startup for a startup account', accountType('startup', 'startup'), 'account_type'),
	),
	invalid(
		'account-type.developer-to-startup-only',
		'startup for an interconnect account',
		accountType('startup', 'managed_interconnect'),
		'account_type',
	),

	// Channel limits.
	valid('channel-limits.whole-number', '10 in and 20 out of 30', limits(10, 20, 30)),
	valid('channel-limits.whole-number', '0 in, all out, as text', limits('0', '30', 30)),
	invalid('channel-limits.whole-number', 'a negative inbound limit', limits(-1, 31, 30), 'limit_concurrent_in'),
	invalid('channel-limits.whole-number', 'no inbound limit', limits('', 10), 'limit_concurrent_in'),
	invalid('channel-limits.whole-number', 'a fractional outbound limit', limits(5, 2.5), 'limit_concurrent_out'),

	valid('channel-limits.total', 'any split when the allocation is not known', limits(10, 25)),
	saying(
		/10 in \+ 25 out = 35, but the channel allocation is 30/,
		invalid('channel-limits.total', 'a total above the allocation', limits(10, 25, 30), 'limit_concurrent_in'),
	),
	invalid('channel-limits.total', 'a total below the allocation', limits(10, 10, '30'), 'limit_concurrent_in'),

	// Trunks.
	valid('trunk.name.form', 'a trunk of this account', trunkName('123456-office', '123456')),
	valid('trunk.name.form', 'a trunk when the account is not known', trunkName('123456-office')),
	invalid('trunk.name.form', 'a name without the account', trunkName('office'), 'trunk'),
	saying(/123456-/, invalid('trunk.name.form', "another account's trunk", trunkName('654321-office', '123456'), 'trunk')),
	invalid('trunk.name.form', 'the account and nothing after it', trunkName('123456-', '123456'), 'trunk'),
	saying(/invisible marks/, invalid('trunk.name.form', 'a right-to-left mark in the name (in a routing JSON as well)', trunkName('123456-office\u200F', '123456'), 'trunk')),
	invalid('trunk.name.form', 'a zero-width space, the account not known', trunkName('123456-of\u200Bfice'), 'trunk'),
	invalid('trunk.name.form', 'a name with a space', trunkName('123456-head office', '123456'), 'trunk'),
	invalid('trunk.name.form', 'a name of dots', trunkName('123456-..', '123456'), 'trunk'),
	invalid('trunk.name.form', 'a name with a query', trunkName('123456-a?b', '123456'), 'trunk'),
	invalid('trunk.name.form', 'a name with a line break', trunkName('123456-a\nb', '123456'), 'trunk'),
	invalid('trunk.name.form', 'no name', trunkName('', '123456'), 'trunk'),

	valid('trunk.type', 'IP', () => validateTrunkType('type', 'IP')),
	valid('trunk.type', 'auth', () => validateTrunkType('type', 'auth')),
	valid('trunk.type', 'no type (auth by default)', () => validateTrunkType('type', undefined)),
	invalid('trunk.type', 'ip in lower case', () => validateTrunkType('type', 'ip'), 'type'),
	invalid('trunk.type', 'password', () => validateTrunkType('type', 'password'), 'type'),

	valid('trunk.default-not-deletable', 'deleting another trunk', () => validateTrunkDeletion('trunk', '123456-office', '123456')),
	invalid('trunk.default-not-deletable', 'deleting the default trunk', () => validateTrunkDeletion('trunk', '123456-L001', '123456'), 'trunk'),
	invalid('trunk.default-not-deletable', 'deleting the default trunk in lower case', () => validateTrunkDeletion('trunk', '123456-l001'), 'trunk'),

	valid('trunk.switch', '1, "0" and a boolean', update({ enabled: 1, enable_in: '0', enabled_out: true })),
	invalid('trunk.switch', 'enabled 2', update({ enabled: 2 }), 'enabled'),
	invalid('trunk.switch', 'enabled_out yes', update({ enabled_out: 'yes' }), 'enabled_out'),

	valid('trunk.concurrent-limit', 'a limit and null for no limit', update({ limit_concurrent_out: 10, limit_concurrent_in: null })),
	invalid('trunk.concurrent-limit', 'a negative limit', update({ limit_concurrent_out_international: -1 }), 'limit_concurrent_out_international'),
	invalid('trunk.concurrent-limit', 'a limit in words', update({ limit_concurrent_out_per_number: 'ten' }), 'limit_concurrent_out_per_number'),

	valid('trunk.rate-limit.form', '5 calls per 10 seconds', rate('5/10s')),
	valid('trunk.rate-limit.form', '100 calls per 12 hours', rate('100/12h')),
	valid('trunk.rate-limit.form', '1 call per second', rate('1/1s')),
	valid('trunk.rate-limit.form', 'null for no limit', rate(null)),
	valid('trunk.rate-limit.form', 'empty for no limit', rate('')),
	valid('trunk.rate-limit.form', 'rate options in a trunk update', update({ limit_rate_out: '5/10s', limit_rate_out_international: null, cli_format: 'e164' })),
	invalid('trunk.rate-limit.form', 'minutes', rate('5/10m'), 'limit_rate_out'),
	invalid('trunk.rate-limit.form', 'words', rate('5 per 10s'), 'limit_rate_out'),
	invalid('trunk.rate-limit.form', 'a duration without unit', rate('5/10'), 'limit_rate_out'),
	invalid('trunk.rate-limit.form', 'a number alone', rate(5), 'limit_rate_out'),
	invalid('trunk.rate-limit.form', 'zero calls', rate('0/1s'), 'limit_rate_out'),
	invalid('trunk.rate-limit.form', 'a bad rate in a trunk update', update({ limit_rate_out_per_number: '2/1m' }), 'limit_rate_out_per_number'),

	// Reports and prepay.
	...[10, 100, 1000, '10000'].map((count) =>
		valid('reports.latest', `latest ${count}`, () => validateLatestCount('count', count, 'reports')),
	),
	invalid('reports.latest', 'latest 50', () => validateLatestCount('count', 50, 'reports'), 'count'),
	invalid('reports.latest', 'latest all', () => validateLatestCount('count', 'all', 'reports'), 'count'),
	invalid('reports.latest', 'no count', () => validateLatestCount('count', '', 'reports'), 'count'),

	valid('prepay.latest', 'latest 1', () => validateLatestCount('count', 1, 'prepay')),
	valid('prepay.latest', 'latest 10 as text', () => validateLatestCount('count', '10', 'prepay')),
	invalid('prepay.latest', 'latest 100', () => validateLatestCount('count', 100, 'prepay'), 'count'),

	valid('reports.date.form', 'no date (today)', reportDate(undefined)),
	valid('reports.date.form', 'today', reportDate('2029-06-01')),
	invalid('reports.date.form', '30 February', reportDate('2029-02-30'), 'date'),
	invalid('reports.date.form', 'a UK-style date', reportDate('01/06/2029'), 'date'),
	invalid('reports.date.form', 'a date without leading zeros', reportDate('2029-6-1'), 'date'),

	valid('reports.date.window', 'exactly 90 days ago', reportDate('2029-03-03')),
	saying(/before 2029-03-03/, invalid('reports.date.window', '91 days ago', reportDate('2029-03-02'), 'date')),
	invalid('reports.date.window', 'tomorrow', reportDate('2029-06-02'), 'date'),

	// Date-time filters.
	valid('date-time.form', 'a CDR period', cdr('2029-05-01 00:00:00', '2029-05-31 23:59:59')),
	valid('date-time.form', 'no dates (the defaults)', cdr(undefined, '')),
	invalid('date-time.form', 'ISO 8601', cdr('2029-05-01T00:00:00'), 'date_start'),
	invalid('date-time.form', 'hour 24', cdr('2029-05-01 00:00:00', '2029-05-01 24:00:00'), 'date_end'),
	invalid('date-time.form', 'a date without time', history('2029-05-01'), 'date_start'),

	valid('date-time.order', 'start one second before end', history('2029-05-01 00:00:00', '2029-05-01 00:00:01')),
	invalid('date-time.order', 'start equal to end', cdr('2029-05-01 00:00:00', '2029-05-01 00:00:00'), 'date_start'),
	invalid('date-time.order', 'start after end', history('2029-05-02 00:00:00', '2029-05-01 00:00:00'), 'date_start'),

	valid('date-time.cdr-window', 'the first second of the window', cdr('2029-03-03 00:00:00')),
	saying(
		/before 2029-03-03 00:00:00/,
		invalid('date-time.cdr-window', 'the last second before it', cdr('2029-03-02 23:59:59'), 'date_start'),
	),
	invalid(
		'date-time.cdr-window',
		'both bounds before it',
		cdr('2029-01-01 00:00:00', '2029-01-02 00:00:00'),
		'date_start',
		{ field: 'date_end', ruleId: 'date-time.cdr-window' },
	),

	valid('date-time.notification-history-window', 'the first second of the window', history('2029-04-02 00:00:00')),
	invalid('date-time.notification-history-window', 'the last second before it', history('2029-04-01 23:59:59'), 'date_start'),
	invalid(
		'date-time.notification-history-window',
		'a start the CDR window would allow',
		history('2029-03-10 00:00:00', '2029-05-01 00:00:00'),
		'date_start',
	),

	// Notifications, channels, SMS.
	valid('notifications.method', 'email', recipient('email', 'ops@example.com')),
	valid('notifications.method', 'sms', recipient('sms', '447700900123')),
	invalid('notifications.method', 'post', recipient('post', 'ops@example.com'), 'method'),
	invalid('notifications.method', 'no method', recipient('', 'ops@example.com'), 'method'),

	valid('notifications.destination.email', 'an e-mail address', recipient('email', 'billing@example.co.uk')),
	invalid('notifications.destination.email', 'an address without @', recipient('email', 'ops.example.com'), 'destination'),
	invalid('notifications.destination.email', 'a phone number for email', recipient('email', '447700900123'), 'destination'),
	invalid('notifications.destination.email', 'no destination', recipient('email', ' '), 'destination'),
	valid('notifications.destination.email', 'an address of 254 characters', recipient('email', `${'a'.repeat(64)}@${'b'.repeat(185)}.com`)),
	invalid('notifications.destination.email', 'an address of 10,000 characters (RFC 5321 allows 254)', recipient('email', `${'a'.repeat(9990)}@example.com`), 'destination'),

	valid('notifications.destination.sms', 'E.164 with a plus', recipient('sms', '+447700900123')),
	valid('notifications.destination.sms', 'a 7-digit E.164 number (Niue)', recipient('sms', '+6834002')),
	invalid('notifications.destination.sms', 'a UK national number', recipient('sms', '07700900123'), 'destination'),
	invalid('notifications.destination.sms', 'an e-mail address for sms', recipient('sms', 'ops@example.com'), 'destination'),
	invalid('notifications.destination.sms', 'no destination', recipient('sms', undefined), 'destination'),

	...['1m', '5m', '1h', ''].map((interval) =>
		valid('channels.history.interval', interval === '' ? 'no interval (5m)' : interval, () => validateChannelHistoryInterval('interval', interval)),
	),
	invalid('channels.history.interval', '15m', () => validateChannelHistoryInterval('interval', '15m'), 'interval'),
	invalid('channels.history.interval', '1d', () => validateChannelHistoryInterval('interval', '1d'), 'interval'),

	valid('sms.mode', 'http_json to an https endpoint', sms('http_json', 'https://sms.example.com/in')),
	invalid('sms.mode', 'json', sms('json', 'https://sms.example.com/in'), 'mode'),
	invalid('sms.mode', 'no mode', sms('', 'https://sms.example.com/in'), 'mode'),

	valid('sms.endpoint', 'http_json to an http endpoint', sms('http_json', 'http://sms.example.com/in')),
	invalid('sms.endpoint', 'an ftp URL', sms('http_json', 'ftp://sms.example.com/in'), 'endpoint'),
	invalid('sms.endpoint', 'no endpoint', sms('http_json', ''), 'endpoint'),

	valid('sms.http-mode-no-tls', 'http to an http endpoint', sms('http', 'http://sms.example.com/in')),
	saying(
		/TLS endpoint/,
		invalid('sms.http-mode-no-tls', 'http to an https endpoint', sms('http', 'https://sms.example.com/in'), 'mode'),
	),
	invalid('sms.http-mode-no-tls', 'http to an HTTPS endpoint in capitals', sms('http', 'HTTPS://sms.example.com/in'), 'mode'),
];
