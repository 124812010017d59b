/**
 * The catalogue of every rule the Wholesale Voice API (v3) states for its charged and
 * routing-changing requests, as checked by the validators beside this file. Each issue a
 * validator emits carries one of these ids and uses the rule's text as its `rule`, so the
 * message a user reads, the tests and `docs/wholesale-validation-rules.md` all say the same thing.
 *
 * Ids are `<subject>.<what>[.<aspect>]`; field names inside ids are spelled as the API spells them.
 * Ids are stable: tests and docs key on them, so change the text freely but never an id.
 */

/** What a group of rules is about, which validator applies them and which requests use them. */
export interface RuleSubjectInfo {
	title: string;
	validator: string;
	requests: readonly string[];
}

export const RULE_SUBJECTS = {
	configuration: {
		title: 'Number configuration: sections, options, rules, meta',
		validator: 'validateNumberConfiguration (routing.ts)',
		requests: ['PUT /v3/numbers/{ACCOUNT}/allocated/{NUMBER}/config'],
	},
	routing: {
		title: 'Number configuration: routing and routing blocks',
		validator: 'validateNumberConfiguration (routing.ts)',
		requests: ['PUT /v3/numbers/{ACCOUNT}/allocated/{NUMBER}/config'],
	},
	uk999: {
		title: 'Emergency-services data, UK (999)',
		validator: 'validateUk999 (uk999.ts)',
		requests: ['PUT /v3/numbers/{ACCOUNT}/allocated/{NUMBER}/999 (charged)'],
	},
	e911: {
		title: 'Emergency-services data, US (e911)',
		validator: 'validateE911Address, validateUsNumber (e911.ts)',
		requests: [
			'PUT /v3/numbers/{ACCOUNT}/allocated/{NUMBER}/e911',
			'POST /v3/numbers/{ACCOUNT}/allocated/{NUMBER}/e911/validate',
			'POST /v3/numbers/{ACCOUNT}/e911/validate (address only, name not required)',
		],
	},
	port: {
		title: 'Port submission (GNP)',
		validator: 'validatePortSubmission (port.ts)',
		requests: ['POST /v3/porting/{ACCOUNT}/gnp (or /ports; charged)'],
	},
	'account-type': {
		title: 'Account type change',
		validator: 'validateAccountTypeChange (account.ts)',
		requests: ['PUT /v3/accounts/{ACCOUNT}/type'],
	},
	'channel-limits': {
		title: 'Channel limits',
		validator: 'validateChannelLimits (account.ts)',
		requests: ['PUT /v3/voice/{ACCOUNT}/limits'],
	},
	trunk: {
		title: 'Trunks',
		validator: 'validateTrunkName, validateTrunkType, validateTrunkDeletion, validateTrunkRateLimit, validateTrunkUpdate (account.ts); validateNumberConfiguration (routing.ts) for the trunk of a pstn block',
		requests: [
			'PUT /v3/voice/{ACCOUNT}/trunks/{TRUNK} (create or update)',
			'DELETE /v3/voice/{ACCOUNT}/trunks/{TRUNK}',
			'PUT /v3/numbers/{ACCOUNT}/allocated/{NUMBER}/trunk',
			'PUT /v3/numbers/{ACCOUNT}/allocated/{NUMBER}/config (pstn block trunk)',
		],
	},
	reports: {
		title: 'Reports: latest-N and report dates',
		validator: 'validateLatestCount, validateReportDate (account.ts)',
		requests: [
			'POST /v3/accounts/{ACCOUNT}/reports/voice/cdr/latest/[10|100|1000|10000]',
			'POST /v3/accounts/{ACCOUNT}/reports/sms/cdr/latest/[10|100|1000|10000]',
			'POST /v3/accounts/{ACCOUNT}/reports/voice/summary/day/[in|out] (date)',
			'POST /v3/accounts/{ACCOUNT}/reports/voice/cdr/day (date)',
			'POST /v3/accounts/{ACCOUNT}/reports/sms/cdr/day (date)',
			'POST /v3/accounts/{ACCOUNT}/prepay/summary (from_date, to_date)',
			'GET /v3/voice/{ACCOUNT}/cdr/{YYYY-MM-DD}',
		],
	},
	prepay: {
		title: 'Prepay latest-N',
		validator: 'validateLatestCount (account.ts)',
		requests: [
			'GET /v3/accounts/{ACCOUNT}/prepay/prepayments/latest/[1|10]',
			'GET /v3/accounts/{ACCOUNT}/prepay/transfers/latest/[1|10]',
		],
	},
	'date-time': {
		title: 'Date-time filters and their windows',
		validator: 'validateCdrPeriod, validateNotificationHistoryPeriod (account.ts)',
		requests: [
			'GET/POST /v3/voice/{ACCOUNT}/cdr (date_start, date_end)',
			'GET /v3/accounts/{ACCOUNT}/notifications/history (date_start, date_end)',
		],
	},
	notifications: {
		title: 'Notification recipients',
		validator: 'validateNotificationRecipient (account.ts)',
		requests: ['POST /v3/accounts/{ACCOUNT}/notifications/{TYPE}/{METHOD} (SMS recipients are charged per message)'],
	},
	channels: {
		title: 'Channel history',
		validator: 'validateChannelHistoryInterval (account.ts)',
		requests: ['GET /v3/voice/{ACCOUNT}/channels/history'],
	},
	sms: {
		title: 'Inbound SMS endpoint of a number',
		validator: 'validateSmsEndpoint (account.ts)',
		requests: ['PUT /v3/numbers/{ACCOUNT}/allocated/{NUMBER}/sms'],
	},
} as const satisfies Record<string, RuleSubjectInfo>;

export type RuleSubject = keyof typeof RULE_SUBJECTS;

/** Maximum lengths from the spec's field tables; the validators read them from here. */
export const UK999_MAX_LENGTHS = {
	title: 20,
	forename: 20,
	name: 50,
	bussuffix: 50,
	premises: 60,
	thoroughfare: 55,
	locality: 30,
	postcode: 12,
} as const;

/** `state` (2) and `postalCodePlusFour` (4) are left out: their form rules fix the length exactly. */
export const E911_MAX_LENGTHS = {
	name: 32,
	streetNum: 10,
	streetInfo: 48,
	location: 20,
	city: 32,
	postalCode: 10,
} as const;

export const PORT_CUSTOMER_MAX_LENGTHS = {
	title: 20,
	forename: 20,
	name: 50,
	company: 50,
	bussuffix: 50,
	premises: 60,
	thoroughfare: 55,
	locality: 30,
	postcode: 12,
} as const;

interface RuleEntry {
	subject: RuleSubject;
	text: string;
}

/** One rule per field of a length table, so that each limit has its own id and its own test. */
function maxLengthRules<Prefix extends string, Field extends string>(
	subject: RuleSubject,
	prefix: Prefix,
	lengths: Readonly<Record<Field, number>>,
): Record<`${Prefix}.${Field}.max-length`, RuleEntry> {
	const entries = Object.entries<number>(lengths).map(([field, max]) => [
		`${prefix}.${field}.max-length`,
		{ subject, text: `${field} is at most ${max} characters.` },
	]);
	return Object.fromEntries(entries) as Record<`${Prefix}.${Field}.max-length`, RuleEntry>;
}

const catalogue = {
	// Number configuration: the document and its sections.
	'configuration.object': {
		subject: 'configuration',
		text: 'The number configuration is a JSON object (or the JSON text of one).',
	},
	'configuration.known-sections': {
		subject: 'configuration',
		text: 'The top-level sections are routing, options, rules and meta only; custom data belongs in meta.',
	},
	'configuration.options.object': {
		subject: 'configuration',
		text: 'options, when present, is a JSON object (the accepted options are not published, so only the shape is checked); an empty array, the API\'s own way of writing an empty object, counts as one.',
	},
	'configuration.rules.object': {
		subject: 'configuration',
		text: 'rules, when present, is a JSON object keyed by rule name (an empty array counts as an empty object).',
	},
	'configuration.rules.name': {
		subject: 'configuration',
		text: 'A rule name uses only a-z, 0-9 and _ (lower case; the public API documentation names a-z and _, and its own examples carry digits).',
	},
	'configuration.rules.array': {
		subject: 'configuration',
		text: 'Each rule in rules is an array of entries (the API refuses a rule that is not an array).',
	},
	'configuration.rules.entry.object': {
		subject: 'configuration',
		text: 'Each entry of a rule is an object of time conditions: dow, time, day, month.',
	},
	'configuration.rules.entry.arrays': {
		subject: 'configuration',
		text: 'In a rule entry, dow (days of the week, 1 = Monday), time ([start, end]), day (days of the month) and month are arrays, even of one value: [3], not 3.',
	},
	'configuration.meta.object': {
		subject: 'configuration',
		text: 'meta, when present, is a JSON object (an empty array, as the API reads it back, counts as an empty object).',
	},
	'configuration.meta.size': {
		subject: 'configuration',
		text: 'meta is at most 512 bytes when serialised as compact JSON in UTF-8.',
	},
	'configuration.meta.key': {
		subject: 'configuration',
		text: 'meta.key, when present, is a string of at most 40 characters.',
	},

	// Number configuration: routing.
	'routing.required': {
		subject: 'routing',
		text: 'routing is mandatory: a configuration without it is rejected.',
	},
	'routing.object': {
		subject: 'routing',
		text: 'routing is an object keyed by default or by rule name.',
	},
	'routing.key.defined': {
		subject: 'routing',
		text: 'Every routing key is default or the name of a rule defined in rules.',
	},
	'routing.stages.array': {
		subject: 'routing',
		text: 'Each routing value is an array of stages (stages are tried in sequence).',
	},
	'routing.stage.array': {
		subject: 'routing',
		text: 'Each stage is an array of routing blocks (blocks in one stage ring simultaneously).',
	},
	'routing.not-empty': {
		subject: 'routing',
		text: 'routing has at least one route: a configuration without one would replace the live routing and leave the number without a route.',
	},
	'routing.route.stages': {
		subject: 'routing',
		text: 'Every route has at least one stage: an empty route sends its calls nowhere.',
	},
	'routing.stage.blocks': {
		subject: 'routing',
		text: 'Every stage has at least one routing block: an empty stage rings nothing.',
	},
	'routing.block.object': {
		subject: 'routing',
		text: 'A routing block is a JSON object.',
	},
	'routing.block.type': {
		subject: 'routing',
		text: 'type is required and one of sip, reg, pstn, teams, fax, busy.',
	},
	'routing.block.known-parameters': {
		subject: 'routing',
		text: 'A block carries only type, delay, timeout and the parameters of its type: sip endpoint, sdes, opus, zone; reg user, sdes, opus; pstn number, maxcpm, maxcpc, cli, trunk; fax method, endpoint; teams and busy none.',
	},
	'routing.block.delay': {
		subject: 'routing',
		text: 'delay is a whole number of seconds, 1 or more.',
	},
	'routing.block.timeout': {
		subject: 'routing',
		text: 'timeout is a whole number of seconds, 1 or more.',
	},
	'routing.block.timeout-not-on-busy-or-fax': {
		subject: 'routing',
		text: 'timeout is not supported by busy or fax blocks.',
	},
	'routing.fax-exclusive': {
		subject: 'routing',
		text: 'A number is either voice-routed or fax-routed: a fax block cannot be combined with a block of any other type anywhere in the configuration.',
	},
	'routing.sip.endpoint.required': {
		subject: 'routing',
		text: 'A sip block requires endpoint.',
	},
	'routing.sip.endpoint.form': {
		subject: 'routing',
		text: 'endpoint is user@host with an optional :port (1-65535) and an optional ;transport= or :transport= of udp, tcp or tls, without a sip: prefix; the user part may contain %e164 (the E.164 number) and %ukn (the UK national form).',
	},
	'routing.sip.sdes': {
		subject: 'routing',
		text: 'sdes on a sip block is one of optional, required, none.',
	},
	'routing.sip.zone': {
		subject: 'routing',
		text: 'zone is one of slo, lon, ny, sj.',
	},
	'routing.sip.zone-needs-unzoned': {
		subject: 'routing',
		text: 'A stage with a zoned sip endpoint also has a sip endpoint without a zone.',
	},
	'routing.reg.user': {
		subject: 'routing',
		text: 'user on a reg block is the SIP registration user name: text without spaces or @.',
	},
	'routing.reg.sdes': {
		subject: 'routing',
		text: 'sdes on a reg block is one of optional, required.',
	},
	'routing.opus': {
		subject: 'routing',
		text: 'opus on a sip or reg block is one of never, always, only.',
	},
	'routing.pstn.number.required': {
		subject: 'routing',
		text: 'A pstn block requires number.',
	},
	'routing.pstn.number.e164': {
		subject: 'routing',
		text: 'number on a pstn block is an E.164 number: country code and number, 7 to 15 digits, no leading 0, with or without a leading +.',
	},
	'routing.pstn.maxcpm': {
		subject: 'routing',
		text: 'maxcpm is an amount of 0 or more (cost per minute of the B leg, billing currency).',
	},
	'routing.pstn.maxcpc': {
		subject: 'routing',
		text: 'maxcpc is an amount of 0 or more (connection cost, billing currency).',
	},
	'routing.pstn.maxcpc-needs-maxcpm': {
		subject: 'routing',
		text: 'maxcpc is used together with maxcpm: give maxcpm as well.',
	},
	'routing.pstn.cli': {
		subject: 'routing',
		text: 'cli is a phone number: digits with an optional leading +, 3 to 15 digits (spaces, dashes and brackets are ignored).',
	},
	'routing.fax.method': {
		subject: 'routing',
		text: 'method on a fax block is one of http, mail.',
	},
	'routing.fax.endpoint': {
		subject: 'routing',
		text: 'endpoint on a fax block is an e-mail address for method mail and an http:// or https:// URL for method http (either, when method is not given).',
	},

	// Emergency-services data, UK.
	'uk999.object': {
		subject: 'uk999',
		text: 'The 999 data is an object of fields.',
	},
	'uk999.field-text': {
		subject: 'uk999',
		text: 'Every 999 field is text (a string or a number).',
	},
	'uk999.mandatory': {
		subject: 'uk999',
		text: 'name, premises, thoroughfare, locality and postcode are mandatory.',
	},
	...maxLengthRules('uk999', 'uk999', UK999_MAX_LENGTHS),
	'uk999.individual-only': {
		subject: 'uk999',
		text: 'title and forename are for individual end users only.',
	},
	'uk999.business-only': {
		subject: 'uk999',
		text: 'bussuffix is for business end users only.',
	},
	'uk999.postcode.form': {
		subject: 'uk999',
		text: 'postcode is a full UK postcode in capitals: out-code, one space, in-code, matching ^[A-Z]{1,2}[0-9][A-Z0-9]? [0-9][A-Z]{2}$ (e.g. SW1A 1AA).',
	},

	// Emergency-services data, US.
	'e911.object': {
		subject: 'e911',
		text: 'The e911 address is an object of fields.',
	},
	'e911.field-text': {
		subject: 'e911',
		text: 'Every e911 address field is text (a string or a number).',
	},
	'e911.mandatory': {
		subject: 'e911',
		text: 'name (except for the account-level address check), streetNum, streetInfo, city, state and postalCode are mandatory.',
	},
	...maxLengthRules('e911', 'e911', E911_MAX_LENGTHS),
	'e911.streetInfo.no-hash': {
		subject: 'e911',
		text: 'streetInfo must not contain #: put units such as apartment or suite in location.',
	},
	'e911.state.form': {
		subject: 'e911',
		text: 'state is a two-letter state code in capitals (A-Z).',
	},
	'e911.state.known': {
		subject: 'e911',
		text: 'state is a USPS code of a US state, DC or a territory (AS, GU, MP, PR, VI).',
	},
	'e911.postalCode.min-length': {
		subject: 'e911',
		text: 'postalCode is at least 5 characters.',
	},
	'e911.postalCode.form': {
		subject: 'e911',
		text: 'postalCode is a US ZIP code: five digits, optionally followed by the four of ZIP+4 (12345 or 12345-6789).',
	},
	'e911.postalCodePlusFour.form': {
		subject: 'e911',
		text: 'postalCodePlusFour, when given, is exactly four digits, no hyphen.',
	},
	'e911.number.form': {
		subject: 'e911',
		text: 'The number is a US number in E.164 without a plus: 1 followed by 10 digits.',
	},
	'e911.number.nanp': {
		subject: 'e911',
		text: 'The area code and the exchange of a US number each start with a digit from 2 to 9 (NANP).',
	},

	// Port submission (GNP).
	'port.object': {
		subject: 'port',
		text: 'The port submission is an object.',
	},
	'port.field-text': {
		subject: 'port',
		text: 'Text fields of the submission and of customer are strings (or numbers).',
	},
	'port.mbn.required': {
		subject: 'port',
		text: 'mbn (main billing number) is required.',
	},
	'port.mbn.form': {
		subject: 'port',
		text: 'mbn is a UK geographic number in national format: 01 or 02 followed by 8 or 9 digits, no spaces (e.g. 01632960123).',
	},
	'port.numbers.required': {
		subject: 'port',
		text: 'numbers is required: a non-empty array of every number to port, including the mbn.',
	},
	'port.number.object': {
		subject: 'port',
		text: 'Each entry of numbers is an object with number, type and action.',
	},
	'port.number.national-format': {
		subject: 'port',
		text: 'number is required and is a UK number in national format: 0 followed by 9 or 10 digits, no spaces.',
	},
	'port.number.gnp-range': {
		subject: 'port',
		text: 'Only UK geographic numbers (01, 02) are ported by GNP: mobile numbers (071-079) need an MNP port with a PAC; non-geographic (03, 084, 085, 087) and premium-rate (070, 09) numbers cannot be ported by API.',
	},
	'port.number.type': {
		subject: 'port',
		text: 'type of a number is required and one of mbn, associated, other.',
	},
	'port.number.action': {
		subject: 'port',
		text: 'action of a number is required and one of port, retain, drop.',
	},
	'port.number.retain-only-other': {
		subject: 'port',
		text: 'action retain is only for numbers of type other.',
	},
	'port.numbers.one-mbn': {
		subject: 'port',
		text: 'Exactly one number has type mbn.',
	},
	'port.numbers.mbn-matches': {
		subject: 'port',
		text: 'The number of type mbn is the mbn of the submission.',
	},
	'port.numbers.unique': {
		subject: 'port',
		text: 'Each number appears once in numbers.',
	},
	'port.type': {
		subject: 'port',
		text: 'type is one of single, multi, sub_single, sub_multi.',
	},
	'port.lines': {
		subject: 'port',
		text: 'lines is a whole number from 1 to 10,000.',
	},
	'port.channels': {
		subject: 'port',
		text: 'channels is a whole number from 1 to 10,000.',
	},
	'port.lcp.required': {
		subject: 'port',
		text: 'lcp (the losing communications provider) is required.',
	},
	'port.lcp_cupid.form': {
		subject: 'port',
		text: 'lcp_cupid is an integer from 0 to 999 or a 3-digit string (the cupid from the LCP list).',
	},
	'port.port_date.form': {
		subject: 'port',
		text: 'port_date, when given, is a real date and time written YYYY-MM-DD hh:mm:ss (omit it for as soon as possible).',
	},
	'port.port_date.not-past': {
		subject: 'port',
		text: 'port_date is not in the past (read as UTC).',
	},
	'port.contact_email.form': {
		subject: 'port',
		text: 'contact_email is an e-mail address such as ops@example.com, at most 254 characters.',
	},
	'port.billing_postcode.required': {
		subject: 'port',
		text: "billing_postcode is required and must match the losing provider's records.",
	},
	'port.billing_postcode.form': {
		subject: 'port',
		text: 'billing_postcode is a full UK postcode in capitals: out-code, one space, in-code, matching ^[A-Z]{1,2}[0-9][A-Z0-9]? [0-9][A-Z]{2}$ (e.g. SW1A 1AA).',
	},
	'port.customer.required': {
		subject: 'port',
		text: 'customer is required: an object describing the end customer.',
	},
	'port.customer.mandatory': {
		subject: 'port',
		text: 'customer premises, thoroughfare, locality and postcode are mandatory.',
	},
	...maxLengthRules('port', 'port.customer', PORT_CUSTOMER_MAX_LENGTHS),
	'port.orig_ref.form': {
		subject: 'port',
		text: 'orig_ref, when given (resubmissions only), is the original order reference: a whole number or a string of digits.',
	},

	// Account type.
	'account-type.value': {
		subject: 'account-type',
		text: 'account_type is required and one of developer, startup, virtual_interconnect, managed_interconnect.',
	},
	'account-type.interconnect-not-selectable': {
		subject: 'account-type',
		text: 'Interconnect types (virtual_interconnect, managed_interconnect) cannot be selected online.',
	},
	'account-type.developer-to-startup-only': {
		subject: 'account-type',
		text: 'The only account type change offered online is developer to startup.',
	},

	// Channel limits.
	'channel-limits.whole-number': {
		subject: 'channel-limits',
		text: 'limit_concurrent_in and limit_concurrent_out are both required, whole numbers of 0 or more.',
	},
	'channel-limits.total': {
		subject: 'channel-limits',
		text: 'limit_concurrent_in plus limit_concurrent_out equals the channel_allocation.',
	},

	// Trunks.
	'trunk.name.form': {
		subject: 'trunk',
		text: 'A trunk name is {ACCOUNT}-{name}: the account id, a dash and a name without spaces, slashes, ? # % \\ or control characters, and not only dots (e.g. 123456-office).',
	},
	'trunk.type': {
		subject: 'trunk',
		text: 'The type of a new trunk is IP (IP-authenticated) or auth (username and password; the default).',
	},
	'trunk.default-not-deletable': {
		subject: 'trunk',
		text: 'The default trunk {ACCOUNT}-L001 cannot be deleted.',
	},
	'trunk.switch': {
		subject: 'trunk',
		text: 'enabled, enable_in and enabled_out are 1 (on) or 0 (off).',
	},
	'trunk.concurrent-limit': {
		subject: 'trunk',
		text: 'A limit_concurrent_* option is a whole number of 0 or more, or null for no limit.',
	},
	'trunk.rate-limit.form': {
		subject: 'trunk',
		text: 'A limit_rate_* option is calls/duration with a whole number of calls (1 or more) and a duration of 12h, 10s or 1s (e.g. 5/10s); null or empty for no limit.',
	},

	// Reports.
	'reports.latest': {
		subject: 'reports',
		text: 'The latest-N count of a report is one of 10, 100, 1000, 10000.',
	},
	'reports.date.form': {
		subject: 'reports',
		text: 'A report date is a real date written YYYY-MM-DD.',
	},
	'reports.date.window': {
		subject: 'reports',
		text: 'A report date is within the last 90 days: from 90 days ago up to today (UTC).',
	},
	'prepay.latest': {
		subject: 'prepay',
		text: 'The latest-N count of prepayments or transfers is 1 or 10.',
	},

	// Date-time filters.
	'date-time.form': {
		subject: 'date-time',
		text: 'A date-time is a real date and time written YYYY-MM-DD hh:mm:ss.',
	},
	'date-time.order': {
		subject: 'date-time',
		text: 'date_start is before date_end.',
	},
	'date-time.cdr-window': {
		subject: 'date-time',
		text: 'CDR dates are within the last 90 days: not before 00:00:00 UTC 90 days ago.',
	},
	'date-time.notification-history-window': {
		subject: 'date-time',
		text: 'Notification history dates are within the last 60 days: not before 00:00:00 UTC 60 days ago.',
	},

	// Notifications, channels, SMS.
	'notifications.method': {
		subject: 'notifications',
		text: 'The notification method is email or sms.',
	},
	'notifications.destination.email': {
		subject: 'notifications',
		text: 'The destination of an email notification is required and is an e-mail address such as ops@example.com, at most 254 characters.',
	},
	'notifications.destination.sms': {
		subject: 'notifications',
		text: 'The destination of an sms notification is required and is a mobile number in E.164: country code and number, 7 to 15 digits, with or without a leading +.',
	},
	'channels.history.interval': {
		subject: 'channels',
		text: 'The channel history sample interval is one of 1m, 5m, 1h.',
	},
	'sms.mode': {
		subject: 'sms',
		text: 'mode is required and one of http (form-urlencoded, legacy) or http_json (JSON, preferred).',
	},
	'sms.endpoint': {
		subject: 'sms',
		text: 'endpoint is required and is an http:// or https:// URL that receives a POST per SMS.',
	},
	'sms.http-mode-no-tls': {
		subject: 'sms',
		text: 'Mode http (legacy) does not support TLS endpoints: use http_json for an https:// endpoint.',
	},
} as const satisfies Record<string, RuleEntry>;

export type RuleId = keyof typeof catalogue;

export interface Rule {
	id: RuleId;
	subject: RuleSubject;
	text: string;
}

export const RULES: readonly Rule[] = (Object.keys(catalogue) as RuleId[]).map((id) => ({
	id,
	subject: catalogue[id].subject,
	text: catalogue[id].text,
}));

export function ruleText(id: RuleId): string {
	return catalogue[id].text;
}

export function isRuleId(value: string): value is RuleId {
	return Object.prototype.hasOwnProperty.call(catalogue, value);
}
