/**
 * Every rule the validators apply, one line each: the id (`<subject>.<what>[.<aspect>]`, stable:
 * tests and docs/wholesale-validation-rules.md key on it) and the text every issue quotes.
 */

/** The subjects, each the first part of its rules' ids; the docs say which requests use them. */
export const RULE_SUBJECTS = {
	configuration: 'Number configuration: sections, options, rules, meta',
	routing: 'Number configuration: routing and routing blocks',
	uk999: 'Emergency-services data, UK (999)',
	e911: 'Emergency-services data, US (e911)',
	port: 'Port submission (GNP)',
	'account-type': 'Account type change',
	'channel-limits': 'Channel limits',
	trunk: 'Trunks',
	reports: 'Reports: latest-N and report dates',
	prepay: 'Prepay latest-N',
	'date-time': 'Date-time filters and their windows',
	notifications: 'Notification recipients',
	channels: 'Channel history',
	sms: 'Inbound SMS endpoint of a number',
} as const;

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

/** One rule per field of a length table, so that each limit has its own id and its own test. */
function maxLengths<Prefix extends string, Field extends string>(
	prefix: Prefix,
	lengths: Readonly<Record<Field, number>>,
): Record<`${Prefix}.${Field}.max-length`, string> {
	return Object.fromEntries(
		Object.entries<number>(lengths).map(([field, max]) => [
			`${prefix}.${field}.max-length`,
			`${field} is at most ${max} characters.`,
		]),
	) as Record<`${Prefix}.${Field}.max-length`, string>;
}

const catalogue = {
	'configuration.object': 'The number configuration is a JSON object (or the JSON text of one).',
	'configuration.known-sections':
		'The top-level sections are routing, options, rules and meta only; custom data belongs in meta.',
	'configuration.options.object':
		"options, when present, is a JSON object (the accepted options are not published, so only the shape is checked); an empty array, the API's own way of writing an empty object, counts as one.",
	'configuration.rules.object':
		'rules, when present, is a JSON object keyed by rule name (an empty array counts as an empty object).',
	'configuration.rules.name':
		'A rule name uses only a-z, 0-9 and _ (lower case; the public API documentation names a-z and _, and its own examples carry digits).',
	'configuration.rules.array':
		'Each rule in rules is an array of entries (the API refuses a rule that is not an array).',
	'configuration.rules.entry.object':
		'Each entry of a rule is an object of time conditions: dow, time, day, month.',
	'configuration.rules.entry.arrays':
		'In a rule entry, dow (days of the week, 1 = Monday), time ([start, end]), day (days of the month) and month are arrays, even of one value: [3], not 3.',
	'configuration.meta.object':
		'meta, when present, is a JSON object (an empty array, as the API reads it back, counts as an empty object).',
	'configuration.meta.size': 'meta is at most 512 bytes when serialised as compact JSON in UTF-8.',
	'configuration.meta.key': 'meta.key, when present, is a string of at most 40 characters.',
	'routing.required': 'routing is mandatory: a configuration without it is rejected.',
	'routing.object': 'routing is an object keyed by default or by rule name.',
	'routing.key.defined': 'Every routing key is default or the name of a rule defined in rules.',
	'routing.stages.array':
		'Each routing value is an array of stages (stages are tried in sequence).',
	'routing.stage.array':
		'Each stage is an array of routing blocks (blocks in one stage ring simultaneously).',
	'routing.not-empty':
		'routing has at least one route: a configuration without one would replace the live routing and leave the number without a route.',
	'routing.route.stages':
		'Every route has at least one stage: an empty route sends its calls nowhere.',
	'routing.stage.blocks':
		'Every stage has at least one routing block: an empty stage rings nothing.',
	'routing.block.object': 'A routing block is a JSON object.',
	'routing.block.type': 'type is required and one of sip, reg, pstn, teams, fax, busy.',
	'routing.block.known-parameters':
		'A block carries only type, delay, timeout and the parameters of its type: sip endpoint, sdes, opus, zone; reg user, sdes, opus; pstn number, maxcpm, maxcpc, cli, trunk; fax method, endpoint; teams and busy none.',
	'routing.block.delay': 'delay is a whole number of seconds, 1 or more.',
	'routing.block.timeout': 'timeout is a whole number of seconds, 1 or more.',
	'routing.block.timeout-not-on-busy-or-fax': 'timeout is not supported by busy or fax blocks.',
	'routing.fax-exclusive':
		'A number is either voice-routed or fax-routed: a fax block cannot be combined with a block of any other type anywhere in the configuration.',
	'routing.sip.endpoint.required': 'A sip block requires endpoint.',
	'routing.sip.endpoint.form':
		'endpoint is user@host with an optional :port (1-65535) and an optional ;transport= or :transport= of udp, tcp or tls, without a sip: prefix; the user part may contain %e164 (the E.164 number) and %ukn (the UK national form).',
	'routing.sip.sdes': 'sdes on a sip block is one of optional, required, none.',
	'routing.sip.zone': 'zone is one of slo, lon, ny, sj.',
	'routing.sip.zone-needs-unzoned':
		'A stage with a zoned sip endpoint also has a sip endpoint without a zone.',
	'routing.reg.user':
		'user on a reg block is the SIP registration user name: text without spaces or @.',
	'routing.reg.sdes': 'sdes on a reg block is one of optional, required.',
	'routing.opus': 'opus on a sip or reg block is one of never, always, only.',
	'routing.pstn.number.required': 'A pstn block requires number.',
	'routing.pstn.number.e164':
		'number on a pstn block is an E.164 number: country code and number, 7 to 15 digits, no leading 0, with or without a leading +.',
	'routing.pstn.maxcpm':
		'maxcpm is an amount of 0 or more (cost per minute of the B leg, billing currency).',
	'routing.pstn.maxcpc': 'maxcpc is an amount of 0 or more (connection cost, billing currency).',
	'routing.pstn.maxcpc-needs-maxcpm': 'maxcpc is used together with maxcpm: give maxcpm as well.',
	'routing.pstn.cli':
		'cli is a phone number: digits with an optional leading +, 3 to 15 digits (spaces, dashes and brackets are ignored).',
	'routing.fax.method': 'method on a fax block is one of http, mail.',
	'routing.fax.endpoint':
		'endpoint on a fax block is an e-mail address for method mail and an http:// or https:// URL for method http (either, when method is not given); a URL at most 2048 characters, at a host the platform can post to: no user name or password, no loopback, link-local or cloud metadata address, no IPv4 written as one number or in hex or octal.',
	'uk999.object': 'The 999 data is an object of fields.',
	'uk999.field-text': 'Every 999 field is text (a string or a number).',
	'uk999.mandatory': 'name, premises, thoroughfare, locality and postcode are mandatory.',
	...maxLengths('uk999', UK999_MAX_LENGTHS),
	'uk999.individual-only': 'title and forename are for individual end users only.',
	'uk999.business-only': 'bussuffix is for business end users only.',
	'uk999.postcode.form':
		'postcode is a full UK postcode in capitals: out-code, one space, in-code, matching ^[A-Z]{1,2}[0-9][A-Z0-9]? [0-9][A-Z]{2}$ (e.g. SW1A 1AA).',
	'e911.object': 'The e911 address is an object of fields.',
	'e911.field-text': 'Every e911 address field is text (a string or a number).',
	'e911.mandatory':
		'name (except for the account-level address check), streetNum, streetInfo, city, state and postalCode are mandatory.',
	...maxLengths('e911', E911_MAX_LENGTHS),
	'e911.streetInfo.no-hash':
		'streetInfo must not contain #: put units such as apartment or suite in location.',
	'e911.state.form': 'state is a two-letter state code in capitals (A-Z).',
	'e911.state.known': 'state is a USPS code of a US state, DC or a territory (AS, GU, MP, PR, VI).',
	'e911.postalCode.min-length': 'postalCode is at least 5 characters.',
	'e911.postalCode.form':
		'postalCode is a US ZIP code: five digits, optionally followed by the four of ZIP+4 (12345 or 12345-6789).',
	'e911.postalCodePlusFour.form':
		'postalCodePlusFour, when given, is exactly four digits, no hyphen.',
	'e911.number.form': 'The number is a US number in E.164 without a plus: 1 followed by 10 digits.',
	'e911.number.nanp':
		'The area code and the exchange of a US number each start with a digit from 2 to 9 (NANP).',
	'port.object': 'The port submission is an object.',
	'port.field-text': 'Text fields of the submission and of customer are strings (or numbers).',
	'port.mbn.required': 'mbn (main billing number) is required.',
	'port.mbn.form':
		'mbn is a UK geographic number in national format: 01 or 02 followed by 8 or 9 digits, no spaces (e.g. 01632960123).',
	'port.numbers.required':
		'numbers is required: a non-empty array of every number to port, including the mbn.',
	'port.number.object': 'Each entry of numbers is an object with number, type and action.',
	'port.number.national-format':
		'number is required and is a UK number in national format: 0 followed by 9 or 10 digits, no spaces.',
	'port.number.gnp-range':
		'Only UK geographic numbers (01, 02) are ported by GNP: mobile numbers (071-079) need an MNP port with a PAC; non-geographic (03, 084, 085, 087) and premium-rate (070, 09) numbers cannot be ported by API.',
	'port.number.type': 'type of a number is required and one of mbn, associated, other.',
	'port.number.action': 'action of a number is required and one of port, retain, drop.',
	'port.number.retain-only-other': 'action retain is only for numbers of type other.',
	'port.numbers.one-mbn': 'Exactly one number has type mbn.',
	'port.numbers.mbn-matches': 'The number of type mbn is the mbn of the submission.',
	'port.numbers.unique': 'Each number appears once in numbers.',
	'port.type': 'type is one of single, multi, sub_single, sub_multi.',
	'port.lines': 'lines is a whole number from 1 to 10,000.',
	'port.channels': 'channels is a whole number from 1 to 10,000.',
	'port.lcp.required': 'lcp (the losing communications provider) is required.',
	'port.lcp_cupid.form':
		'lcp_cupid is an integer from 0 to 999 or a 3-digit string (the cupid from the LCP list).',
	'port.port_date.form':
		'port_date, when given, is a real date and time written YYYY-MM-DD hh:mm:ss (omit it for as soon as possible).',
	'port.port_date.not-past': 'port_date is not in the past (read as UTC).',
	'port.contact_email.form':
		'contact_email is an e-mail address such as ops@example.com, at most 254 characters.',
	'port.billing_postcode.required':
		"billing_postcode is required and must match the losing provider's records.",
	'port.billing_postcode.form':
		'billing_postcode is a full UK postcode in capitals: out-code, one space, in-code, matching ^[A-Z]{1,2}[0-9][A-Z0-9]? [0-9][A-Z]{2}$ (e.g. SW1A 1AA).',
	'port.customer.required': 'customer is required: an object describing the end customer.',
	'port.customer.mandatory':
		'customer premises, thoroughfare, locality and postcode are mandatory.',
	...maxLengths('port.customer', PORT_CUSTOMER_MAX_LENGTHS),
	'port.orig_ref.form':
		'orig_ref, when given (resubmissions only), is the original order reference: a whole number or a string of digits.',
	'account-type.value':
		'account_type is required and one of developer, startup, virtual_interconnect, managed_interconnect.',
	'account-type.interconnect-not-selectable':
		'Interconnect types (virtual_interconnect, managed_interconnect) cannot be selected online.',
	'account-type.developer-to-startup-only':
		'The only account type change offered online is developer to startup.',
	'channel-limits.whole-number':
		'limit_concurrent_in and limit_concurrent_out are both required, whole numbers of 0 or more.',
	'channel-limits.total':
		'limit_concurrent_in plus limit_concurrent_out equals the channel_allocation.',
	'trunk.name.form':
		'A trunk name is {ACCOUNT}-{name}: the account id, a dash and a name without spaces, slashes, ? # % \\, control characters or invisible marks, and not only dots (e.g. 123456-office).',
	'trunk.type':
		'The type of a new trunk is IP (IP-authenticated) or auth (username and password; the default).',
	'trunk.default-not-deletable': 'The default trunk {ACCOUNT}-L001 cannot be deleted.',
	'trunk.switch': 'enabled, enable_in and enabled_out are 1 (on) or 0 (off).',
	'trunk.concurrent-limit':
		'A limit_concurrent_* option is a whole number of 0 or more, or null for no limit.',
	'trunk.rate-limit.form':
		'A limit_rate_* option is calls/duration with a whole number of calls (1 or more) and a duration of 12h, 10s or 1s (e.g. 5/10s); null or empty for no limit.',
	'reports.latest': 'The latest-N count of a report is one of 10, 100, 1000, 10000.',
	'reports.date.form': 'A report date is a real date written YYYY-MM-DD.',
	'reports.date.window':
		'A report date is within the last 90 days: from 90 days ago up to today (UTC).',
	'prepay.latest': 'The latest-N count of prepayments or transfers is 1 or 10.',
	'date-time.form': 'A date-time is a real date and time written YYYY-MM-DD hh:mm:ss.',
	'date-time.order': 'date_start is before date_end.',
	'date-time.cdr-window':
		'CDR dates are within the last 90 days: not before 00:00:00 UTC 90 days ago.',
	'date-time.notification-history-window':
		'Notification history dates are within the last 60 days: not before 00:00:00 UTC 60 days ago.',
	'notifications.method': 'The notification method is email or sms.',
	'notifications.destination.email':
		'The destination of an email notification is required and is an e-mail address such as ops@example.com, at most 254 characters.',
	'notifications.destination.sms':
		'The destination of an sms notification is required and is a mobile number in E.164: country code and number, 7 to 15 digits, with or without a leading +.',
	'channels.history.interval': 'The channel history sample interval is one of 1m, 5m, 1h.',
	'sms.mode':
		'mode is required and one of http (form-urlencoded, legacy) or http_json (JSON, preferred).',
	'sms.endpoint':
		'endpoint is required and is an http:// or https:// URL of at most 2048 characters that receives a POST per SMS, at a host the service can deliver to: no user name or password, no loopback, link-local or cloud metadata address, no IPv4 written as one number or in hex or octal.',
	'sms.http-mode-no-tls':
		'Mode http (legacy) does not support TLS endpoints: use http_json for an https:// endpoint.',
} as const satisfies Record<`${RuleSubject}.${string}`, string>;

export type RuleId = keyof typeof catalogue;

export type Rule = { id: RuleId; subject: RuleSubject; text: string };

export const RULES: readonly Rule[] = (Object.keys(catalogue) as RuleId[]).map((id) => ({
	id,
	subject: id.split('.')[0] as RuleSubject,
	text: catalogue[id],
}));

export function ruleText(id: RuleId): string {
	return catalogue[id];
}
