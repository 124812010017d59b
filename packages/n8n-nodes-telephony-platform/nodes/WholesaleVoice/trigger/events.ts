/**
 * The events the trigger offers: the platform's apps, as the node lists them and filters on, and the
 * SMS delivery statuses of the spec.
 */

export const REPORT_APP = 'reports';
export const SMS_STATUS_APP = 'sms_send_status';
/** Inbound SMS carries no `app` (not a webhook in the spec); its items are marked with this one. */
export const INBOUND_SMS_APP = 'sms_inbound';
/** What the legacy `http` mode names an inbound SMS (real payloads): the same event as Inbound SMS. */
export const LEGACY_INBOUND_SMS_APP = 'mvno_inbound_sms';
/** The filter value of any `app` the spec does not list (e.g. the announced trunk events). */
export const OTHER_APPS = 'other';
/** The `app` of an item reporting a body that could not be read (when the user asks for such items). */
export const UNPARSEABLE_APP = 'unparseable';
/** The public docs' name of a received fax (legacy mode: a `hash`, no `id`) and of an outbound fax's status report; chosen under Other Apps. */
export const FAX_APP = 'fax_inbound';

export const EVENT_CHOICES: Array<{
	name: string;
	action: string;
	value: string;
	description: string;
}> = [
	{
		name: 'Call Inbound',
		action: 'On inbound call',
		value: 'call_inbound',
		description: 'An inbound call at each stage (ringing, answered, hangup)',
	},
	{
		name: 'Call Outbound',
		action: 'On outbound call',
		value: 'call_outbound',
		description: 'An outbound call at each stage',
	},
	{
		name: 'Call Blocked',
		action: 'On blocked call',
		value: 'call_blocked',
		description: 'A call blocked by an account or trunk limit or a fraud setting',
	},
	{
		name: 'Call Warning',
		action: 'On call warning',
		value: 'call_warning',
		description: 'A call with invalid signalling (invalid CLI or destination)',
	},
	{
		name: 'Calls in Progress Summary',
		action: 'On calls-in-progress summary',
		value: 'inprogress_summary',
		description: 'Sent periodically: totals, balance, calls per destination (or each call)',
	},
	{
		name: 'CDR (Finished Call)',
		action: 'On CDR of a finished call',
		value: 'cdr',
		description: 'A completed call, or shortly after when rated',
	},
	{
		name: 'Rate Update',
		action: 'On rate update',
		value: 'rate_update',
		description: 'A new rate card is available',
	},
	{
		name: '999 Call Without Address Data',
		action: 'On 999 call without address data',
		value: 'eha_missing_data',
		description: 'An emergency call made from a number without valid address data',
	},
	{
		name: 'Porting',
		action: 'On porting status change',
		value: 'porting',
		description: 'A status change of a UK GNP or NGNP port',
	},
	{
		name: 'Number Export',
		action: 'On number export status change',
		value: 'export',
		description: 'A status change of a number export',
	},
	{
		name: 'Report Ready',
		action: 'On report ready',
		value: REPORT_APP,
		description: 'A report requested with this URL as its callback is ready',
	},
	{
		name: 'SMS Delivery Report',
		action: 'On SMS delivery report',
		value: SMS_STATUS_APP,
		description: 'A status of an outgoing SMS sent with this URL as its report URL',
	},
	{
		name: 'Inbound SMS',
		action: 'On inbound SMS',
		value: INBOUND_SMS_APP,
		description: 'An SMS to a number whose SMS endpoint is this URL (mode http or http_json)',
	},
	{
		name: 'Other Apps',
		action: "On another app's event",
		value: OTHER_APPS,
		description: 'Any app the spec does not list yet (e.g. trunk changes), emitted as it arrives',
	},
];

export const ALL_EVENTS: string[] = EVENT_CHOICES.map((c) => c.value);

/** The SMS delivery statuses (DLR) of the spec, with whether the message can still change state. */
export const SMS_STATUSES: Record<number, { name: string; description: string; final: boolean }> = {
	1: { name: 'Received', description: 'Committed to a queue', final: false },
	2: { name: 'Submitted', description: 'Left the service', final: false },
	11: { name: 'Delivered', description: 'Handset confirmed', final: true },
	12: { name: 'Rejected', description: 'Not delivered, not retried', final: true },
	13: {
		name: 'Error',
		description: 'Syntax error, usually an invalid destination or a disallowed source',
		final: true,
	},
	14: {
		name: 'Queued',
		description: 'Buffered in transit (phone off or out of coverage)',
		final: false,
	},
	18: { name: 'SMSCa', description: 'Accepted by the SMS centre', final: false },
	26: { name: 'SMSCr', description: 'Rejected by the SMS centre, not retried', final: true },
};

/** The category an `app` is chosen under in the node: the app itself, or Other Apps. */
export function categoryOf(app: string): string {
	const event = app === LEGACY_INBOUND_SMS_APP ? INBOUND_SMS_APP : app;
	return ALL_EVENTS.includes(event) && event !== OTHER_APPS ? event : OTHER_APPS;
}
