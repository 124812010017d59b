import { currentTime } from '../core/clock';
import { lifetimeController } from '../core/lifetime';
import type { Destination } from './destinations';
import { destinations } from './destinations';
import type { Random } from './php';
import { digits, formEncode, gmt, hexOf, isoOffset, isoZ, phpJson, pick, prng, round, seedOf } from './php';
import type { Account } from './seed';
import { numberIn } from './seed';

/**
 * What the platform pushes: webhooks (`text/json`, or a form field `payload`), report-ready
 * callbacks, SMS delivery reports and inbound SMS. Every request goes out over real HTTP to
 * a loopback address and is recorded with the receiver's status and the time it took.
 */

/** The spec's apps, written from the spec rather than imported from the node: the sandbox checks the node, it does not mirror it. */
export const WEBHOOK_APPS = [
	'call_inbound',
	'call_outbound',
	'call_blocked',
	'call_warning',
	'inprogress_summary',
	'cdr',
	'rate_update',
	'eha_missing_data',
	'porting',
	'export',
] as const;
export type WebhookApp = (typeof WEBHOOK_APPS)[number];

/** Every kind of delivery the admin API can send. */
export const DELIVERY_APPS: readonly string[] = [...WEBHOOK_APPS, 'sms_send_status', 'sms_inbound', 'reports'];

export const SMS_STATUSES = [1, 2, 11, 12, 13, 14, 18, 26] as const;

export type TimestampForm = 'iso' | 'iso_offset' | 'plain' | 'none';
export type Encoding = 'json' | 'form' | 'multipart';
export const ENCODINGS = ['json', 'form', 'multipart'] as const;

export interface DeliveryRecord {
	id: number;
	/** What made it: the admin API, a report becoming ready, a port status change, a call ended, an SMS. */
	source: 'admin' | 'report' | 'porting' | 'call' | 'sms';
	app: string;
	messageId: string | null;
	url: string;
	method: 'POST';
	headers: Record<string, string>;
	contentType: string;
	/** The exact body sent. */
	body: string;
	/** The JSON document inside the body (parsed back), for reading. */
	document: unknown;
	sentAt: string;
	status: number | null;
	elapsedMs: number | null;
	error: string | null;
	responseBody: string | null;
	outcome: 'pending' | 'delivered' | 'failed' | 'refused' | 'cancelled';
}

export interface OutgoingRequest {
	source: DeliveryRecord['source'];
	app: string;
	messageId: string | null;
	url: string;
	headers: Record<string, string>;
	contentType: string;
	body: string;
	document: unknown;
}

export const USER_AGENT = 'WholesaleVoice-Platform/3.20 (webhooks)';

export function isLoopbackUrl(url: string): boolean {
	try {
		const parsed = new URL(url);
		if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
		const host = parsed.hostname.replace(/^\[|\]$/g, '');
		return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
	} catch {
		return false;
	}
}

/** Adds query parameters (a shared secret, say) to a URL, keeping what it has. */
export function withQuery(url: string, query: Record<string, string> | undefined): string {
	if (!query || Object.keys(query).length === 0) return url;
	const parsed = new URL(url);
	for (const [key, value] of Object.entries(query)) parsed.searchParams.append(key, String(value));
	return parsed.toString();
}

/** Sends and records. Deliveries are not retried (the spec shows no retry schedule). */
export class Deliveries {
	records: DeliveryRecord[] = [];
	private lifetime = lifetimeController();
	private seq = 0;

	constructor(private readonly timeoutMs: () => number) {}

	async send(request: OutgoingRequest): Promise<DeliveryRecord> {
		const record: DeliveryRecord = {
			id: ++this.seq,
			...request,
			method: 'POST',
			headers: { 'Content-Type': request.contentType, 'User-Agent': USER_AGENT, ...request.headers },
			sentAt: new Date(currentTime()).toISOString(),
			status: null,
			elapsedMs: null,
			error: null,
			responseBody: null,
			outcome: 'pending',
		};
		this.records.push(record);
		if (!isLoopbackUrl(request.url)) {
			record.outcome = 'refused';
			record.error = 'the sandbox delivers only to loopback addresses (127.0.0.1, ::1, localhost)';
			return record;
		}
		const lifetime = this.lifetime.signal;
		const controller = new AbortController();
		const onAbort = () => controller.abort();
		lifetime.addEventListener('abort', onAbort, { once: true });
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			controller.abort();
		}, this.timeoutMs());
		timer.unref();
		const started = performance.now();
		try {
			const response = await fetch(request.url, { method: 'POST', headers: record.headers, body: request.body, signal: controller.signal, redirect: 'manual' });
			const text = await response.text();
			record.status = response.status;
			record.responseBody = text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
			record.outcome = response.status >= 200 && response.status < 300 ? 'delivered' : 'failed';
			if (record.outcome === 'failed') record.error = `HTTP ${response.status}`;
		} catch (error) {
			const cause = (error as { cause?: { code?: string; message?: string } }).cause;
			record.outcome = lifetime.aborted && !timedOut ? 'cancelled' : 'failed';
			record.error = timedOut ? `no response within ${this.timeoutMs()} ms` : (cause?.code ?? cause?.message ?? (error as Error).message);
		} finally {
			record.elapsedMs = Math.round(performance.now() - started);
			clearTimeout(timer);
			lifetime.removeEventListener('abort', onAbort);
		}
		return record;
	}

	/** Fire and forget (the sandbox's own state changes): the record shows how it went. */
	sendLater(request: OutgoingRequest): void {
		this.send(request).catch((error: unknown) => process.stderr.write(`wholesale sandbox delivery: ${String(error)}\n`));
	}

	clear(): void {
		this.records = [];
	}

	/** Cancels what is in flight (reset and close). */
	reset(): void {
		this.lifetime.abort();
		this.lifetime = lifetimeController();
		this.records = [];
		this.seq = 0;
	}

	close(): void {
		this.lifetime.abort();
	}
}

// ---- documents ------------------------------------------------------------------------

export function timestampOf(form: TimestampForm, time = currentTime()): string | undefined {
	if (form === 'none') return undefined;
	if (form === 'plain') return gmt(time);
	if (form === 'iso_offset') return isoOffset(time);
	return isoZ(time);
}

/** The webhook wrapper: `app`, `id`, `timestamp` (in the chosen form, or left out), `data`. */
export function webhookDocument(app: string, id: string, data: unknown, timestampForm: TimestampForm): Record<string, unknown> {
	const timestamp = timestampOf(timestampForm);
	return { app, id, ...(timestamp === undefined ? {} : { timestamp }), data };
}

/**
 * `text/json` with the service's escaping, or the POST variable `payload` holding the JSON:
 * form-encoded, or as `multipart/form-data` (what a client library sends when given an array).
 */
export function encodeDocument(document: unknown, encoding: Encoding): { contentType: string; body: string } {
	const json = phpJson(document);
	if (encoding === 'form') return { contentType: 'application/x-www-form-urlencoded', body: formEncode({ payload: json }) };
	if (encoding === 'multipart') {
		const boundary = `------------------------${hexOf(Math.random, 16)}`;
		return {
			contentType: `multipart/form-data; boundary=${boundary}`,
			body: `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\n\r\n${json}\r\n--${boundary}--\r\n`,
		};
	}
	return { contentType: 'text/json', body: json };
}

export function messageId(random: Random = Math.random): string {
	return `${currentTime().toString(16)}${hexOf(random, 10)}`;
}

function ukMobile(random: Random): string {
	return `447700900${digits(random, 3)}`;
}

function anyDestination(random: Random): Destination {
	return pick(random, destinations().filter((d) => d.kind !== 'special'));
}

export interface SampleOptions {
	account: Account;
	status?: string;
	/** inprogress_summary: the record (summary form) or with `calls` as an array (detail form). */
	inProgress?: () => Record<string, unknown>;
	inProgressDetail?: () => Record<string, unknown>;
	baseUrl: string;
}

/** Realistic `data` of each webhook app, from the account's own numbers, trunks and CDRs. */
export function sampleData(app: WebhookApp | 'inprogress_summary_detail', options: SampleOptions): Record<string, unknown> {
	const random = prng(seedOf(`${app}-${currentTime()}-${Math.random()}`));
	const account = options.account;
	const ownNumber = [...account.numbers.keys()][0] ?? '441632960001';
	const trunk = account.trunks.find((t) => !t.name.endsWith('-L001'))?.name ?? `${account.id}-L001`;
	const callId = hexOf(random, 24);
	const sipCallId = `${hexOf(random, 16)}@sip.wholesale.example`;
	switch (app) {
		case 'call_inbound': {
			const status = options.status ?? 'ringing';
			return {
				call_id: callId,
				sip_call_id: sipCallId,
				status,
				trunk: `${account.id}-L001`,
				from: ukMobile(random),
				to: ownNumber,
				origin: pick(random, ['mobile', 'fixed', 'payphone']),
				route: 'sip:%e164@pbx.acme.example:5060'.replace('%e164', ownNumber),
				...(status === 'failed' ? { reason: 'busy', q850: 17 } : status === 'hangup' ? { q850: 16 } : {}),
			};
		}
		case 'call_outbound': {
			const status = options.status ?? 'answered';
			const destination = anyDestination(random);
			return {
				call_id: callId,
				sip_call_id: sipCallId,
				status,
				trunk,
				tag: 'sales',
				from: ownNumber,
				to: numberIn(random, destination),
				dest_id: destination.destId,
				desc: destination.location,
				iso: destination.iso,
				...(status === 'failed' ? { reason: 'no answer', q850: 19 } : status === 'hangup' ? { q850: 16 } : {}),
			};
		}
		case 'call_blocked': {
			const destination = anyDestination(random);
			return {
				direction: 'out',
				trunk,
				tag: 'campaign-42',
				from: ownNumber,
				to: numberIn(random, destination),
				desc: destination.location,
				iso: destination.iso,
				reason: options.status ?? 'trunk limit: limit_concurrent_out_international',
			};
		}
		case 'call_warning':
			return {
				direction: 'out',
				trunk,
				tag: '',
				from: '0000000000',
				to: numberIn(random, anyDestination(random)),
				reason: options.status ?? 'invalid CLI',
			};
		case 'inprogress_summary':
			return options.inProgress?.() ?? {};
		case 'inprogress_summary_detail':
			return options.inProgressDetail?.() ?? {};
		case 'cdr': {
			// The recent CDRs in turn, so that successive deliveries never repeat a call (up to 50).
			const cdr = account.cdrs[account.cdrs.length - 1 - (account.cdrWebhooksSent++ % Math.min(50, account.cdrs.length))];
			return cdrDocument(cdr);
		}
		case 'rate_update': {
			const now = new Date(currentTime());
			return {
				rate_type: 'voice',
				date_effective: gmt(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
				url: `${options.baseUrl}/v3/accounts/${account.id}/rates/csv/default`,
			};
		}
		case 'eha_missing_data':
			return {
				number: ownNumber,
				calldate: gmt(currentTime() - 3_600_000),
				charge: 25.0,
				charge_date: gmt(currentTime()),
			};
		case 'porting':
			return {
				orderid: 40003,
				status: options.status ?? 'accepted_lcp',
				port_date: gmt(currentTime() + 5 * 86_400_000).slice(0, 10) + ' 09:00:00',
				reason: '',
				comments: 'Accepted by the losing provider',
			};
		case 'export': {
			const status = options.status ?? 'with_customer';
			return {
				orderid: 51007,
				order_number: `EXP-${digits(random, 6)}`,
				mbn: '01632960001',
				status,
				order_type: 'single',
				numbers: [
					{ type: 'associated', number: '01632960001' },
					{ type: 'other', number: '01632960002' },
				],
				port_date: gmt(currentTime() + 7 * 86_400_000).slice(0, 10) + ' 09:00:00',
				...(status === 'rejected' ? { reason: 'Account number does not match', code: 1203 } : {}),
				comments: '',
			};
		}
	}
}

/** A CDR with the fields of the `cdr` app, as in downloaded CDR reports and the inline CDRs. */
export function cdrDocument(cdr: Account['cdrs'][number]): Record<string, unknown> {
	return {
		call_id: cdr.call_id,
		cdr_id: cdr.cdr_id,
		calldate: gmt(cdr.calldate),
		direction: cdr.direction,
		nts_source: cdr.nts_source,
		trunk: cdr.trunk,
		tag: cdr.tag,
		from: cdr.from,
		to: cdr.to,
		dest_id: cdr.dest_id,
		todesc: cdr.todesc,
		iso: cdr.iso,
		secs_call: cdr.secs_call,
		secs_billed: cdr.secs_billed,
		chg_total: round(cdr.chg_total, 4),
		currency: cdr.currency,
	};
}

/** The fields of an inbound SMS post (not shown in the spec; chosen here). */
export function inboundSmsFields(input: { from: string; to: string; message: string; id?: string; received?: number }): Record<string, string> {
	return {
		id: input.id ?? messageId(),
		from: input.from,
		to: input.to,
		message: input.message,
		received: gmt(input.received ?? currentTime()),
	};
}

/** Legacy mode `http` carries no Unicode: characters outside Latin-1 become `?`. */
export function withoutUnicode(text: string): string {
	return Array.from(text, (ch) => (ch.charCodeAt(0) > 0xff ? '?' : ch)).join('');
}
