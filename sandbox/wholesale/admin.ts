import { currentTime } from '../core/clock';
import type { SandboxRequest } from '../core/http';
import { HttpError, Router, jsonBody, queryValue, send } from '../core/http';
import { isRecord } from './context';
import { E911_CODES } from './numbers';
import { formEncode, gmt, hexOf, phpJson, prng, seedOf } from './php';
import { advancePort, portDetail } from './porting';
import { parseNextReport } from './reports';
import type { Account, AccountType } from './seed';
import { ACCOUNT_TYPE_LIMITS, makeCall } from './seed';
import { callDetail, endCall, inProgressDetail, inProgressRecord } from './voice';
import type { DeliveryRecord, Encoding, OutgoingRequest, TimestampForm, WebhookApp } from './webhooks';
import {
	DELIVERY_APPS,
	ENCODINGS,
	SMS_STATUSES,
	WEBHOOK_APPS,
	encodeDocument,
	inboundSmsFields,
	isLoopbackUrl,
	messageId,
	sampleData,
	webhookDocument,
	withQuery,
	withoutUnicode,
} from './webhooks';
import type { WebhookTarget, WholesaleSandbox, WholesaleSettings } from './module';
import { DEFAULT_WHOLESALE_SETTINGS } from './module';

/** The admin API of the Wholesale Voice sandbox, under `/_sandbox/wholesale`. Bodies are JSON. */

type Body = Record<string, unknown>;

function body(req: SandboxRequest): Body {
	const value = jsonBody<unknown>(req) ?? {};
	if (!isRecord(value)) throw new HttpError(400, { message: 'A JSON object body is required' });
	return value;
}

function bad(message: string): HttpError {
	return new HttpError(400, { message });
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string, fallback: T): T {
	if (value === undefined || value === null) return fallback;
	if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw bad(`${name} must be one of ${allowed.join(', ')}`);
	return value as T;
}

const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'connection', 'transfer-encoding']);

function stringMap(value: unknown, name: string): Record<string, string> {
	if (value === undefined || value === null) return {};
	if (!isRecord(value)) throw bad(`${name} must be an object of names to string values`);
	const out: Record<string, string> = {};
	for (const [key, v] of Object.entries(value)) {
		if (typeof v !== 'string' && typeof v !== 'number') throw bad(`${name}.${key} must be a string`);
		if (name === 'headers' && RESERVED_HEADERS.has(key.toLowerCase())) throw bad(`headers.${key} is set by the sandbox`);
		out[key] = String(v);
	}
	return out;
}

function loopbackUrl(value: unknown, name = 'url'): string {
	if (typeof value !== 'string' || value === '') throw bad(`${name} is required`);
	if (!isLoopbackUrl(value)) throw bad(`${name} must be an http(s) URL on a loopback address (127.0.0.1, ::1, localhost)`);
	return value;
}

function accountOf(m: WholesaleSandbox, value: unknown): Account {
	const id = value === undefined ? '123456' : String(value);
	const account = m.account(id);
	if (!account) throw new HttpError(404, { message: `No account ${id}` });
	return account;
}

/** The inbound SMS post of a number's SMS endpoint: form fields (mode http) or JSON (mode http_json). */
export function inboundSmsRequest(
	mode: 'http' | 'http_json',
	url: string,
	fields: Record<string, string>,
	headers: Record<string, string> = {},
): OutgoingRequest {
	if (mode === 'http') {
		const legacy = { ...fields, message: withoutUnicode(fields.message) };
		return { source: 'sms', app: 'sms_inbound', messageId: fields.id, url, headers, contentType: 'application/x-www-form-urlencoded', body: formEncode(legacy), document: legacy };
	}
	return { source: 'sms', app: 'sms_inbound', messageId: fields.id, url, headers, contentType: 'application/json', body: phpJson(fields), document: fields };
}

/** The requests of one admin delivery order (several for repeats and SMS status sequences). */
function deliveryRequests(m: WholesaleSandbox, input: Body): OutgoingRequest[] {
	const app = input.app;
	if (typeof app !== 'string' || !DELIVERY_APPS.includes(app)) throw bad(`app must be one of ${DELIVERY_APPS.join(', ')}`);
	const url = loopbackUrl(input.url);
	const account = accountOf(m, input.account);
	const headers = stringMap(input.headers, 'headers');
	const query = stringMap(input.query, 'query');
	const repeat = input.repeat === undefined ? 1 : Number(input.repeat);
	if (!Number.isInteger(repeat) || repeat < 1 || repeat > 100) throw bad('repeat must be a whole number from 1 to 100');
	const id = input.id === undefined ? messageId() : String(input.id);
	const extra = input.data === undefined ? {} : input.data;
	if (!isRecord(extra)) throw bad('data must be an object (merged over the generated data)');
	const times = <T>(make: () => T): T[] => Array.from({ length: repeat }, make);

	if (app === 'sms_send_status') {
		const list = input.statuses ?? (input.status === undefined ? [11] : [input.status]);
		if (!Array.isArray(list) || !list.every((s) => (SMS_STATUSES as readonly number[]).includes(Number(s)))) {
			throw bad(`status (or statuses) must be among ${SMS_STATUSES.join(', ')}`);
		}
		return list.flatMap((status) => {
			const document = { app: 'sms_send_status', id, data: { dtime: gmt(currentTime()), status: Number(status), ...extra } };
			const target = withQuery(url.replace(/%id%/g, encodeURIComponent(id)).replace(/%status%/g, String(status)), query);
			return times(() => ({
				source: 'admin' as const, app, messageId: id, url: target, headers,
				contentType: 'application/x-www-form-urlencoded', body: formEncode({ payload: phpJson(document) }), document,
			}));
		});
	}
	if (app === 'sms_inbound') {
		const mode = oneOf(input.mode, ['http', 'http_json'] as const, 'mode', 'http_json');
		const fields = inboundSmsFields({
			id,
			from: String(input.from ?? '447700900321'),
			to: String(input.to ?? [...account.numbers.keys()].find((n) => n.startsWith('447')) ?? '447700900123'),
			message: String(input.message ?? 'Hello from the sandbox'),
		});
		return times(() => ({ ...inboundSmsRequest(mode, withQuery(url, query), fields, headers), source: 'admin' as const }));
	}
	if (app === 'reports') {
		const hash = input.id === undefined ? hexOf(prng(seedOf(`${currentTime()}-${Math.random()}`)), 32) : id;
		const document = { app: 'reports', id: hash, data: null };
		return times(() => ({
			source: 'admin' as const, app, messageId: hash, url: withQuery(url, query), headers,
			contentType: 'application/x-www-form-urlencoded', body: formEncode({ payload: phpJson(document) }), document,
		}));
	}

	const form = oneOf(input.form, ['summary', 'detail'] as const, 'form', 'summary');
	const timestampForm = oneOf(input.timestampForm, ['iso', 'iso_offset', 'plain', 'none'] as const, 'timestampForm', app === 'rate_update' ? 'none' : 'iso');
	const dataForm = oneOf(input.dataForm, ['object', 'array'] as const, 'dataForm', 'object');
	const encoding = oneOf(input.encoding, ENCODINGS, 'encoding', 'json');
	const generated = sampleData(app === 'inprogress_summary' && form === 'detail' ? 'inprogress_summary_detail' : (app as WebhookApp), {
		account,
		status: input.status === undefined ? undefined : String(input.status),
		inProgress: () => inProgressRecord(account),
		inProgressDetail: () => inProgressDetail(account),
		baseUrl: m.baseUrl(),
	});
	const data = { ...generated, ...extra };
	const document = webhookDocument(app, id, dataForm === 'array' ? [data] : data, timestampForm as TimestampForm);
	const encoded = encodeDocument(document, encoding as Encoding);
	return times(() => ({ source: 'admin' as const, app, messageId: id, url: withQuery(url, query), headers, ...encoded, document }));
}

export function buildAdmin(m: WholesaleSandbox): Router {
	const r = new Router();

	r.add('GET', '/settings', (_req, res) => send(res, 200, m.settings));
	r.add('POST', '/settings', (req, res) => {
		const next: WholesaleSettings = { ...m.settings };
		for (const [key, value] of Object.entries(body(req))) {
			if (!(key in DEFAULT_WHOLESALE_SETTINGS)) throw bad(`Unknown setting ${key}; the settings are ${Object.keys(DEFAULT_WHOLESALE_SETTINGS).join(', ')}`);
			if (typeof value !== 'number' || !(value >= 0)) throw bad(`${key} must be a number of 0 or more (milliseconds)`);
			next[key as keyof WholesaleSettings] = value;
		}
		m.settings = next;
		send(res, 200, m.settings);
	});

	r.add('GET', '/accounts', (_req, res) =>
		send(
			res,
			200,
			[...m.data.accounts.values()].map((a) => ({
				accountId: a.id, username: a.username, password: a.password, company: a.company, type: a.type, currency: a.currency,
				nanpa: a.nanpa, balance: a.balance, locked: a.locked, alertBalance: a.alertBalance,
				numbers: [...a.numbers.keys()], trunks: a.trunks.map((t) => t.name), cdrs: a.cdrs.length, callsInProgress: a.calls.length,
			})),
		),
	);
	r.add('POST', '/accounts/:accountId', (req, res) => {
		const account = accountOf(m, req.params.accountId);
		const input = body(req);
		if (input.balance !== undefined) {
			if (typeof input.balance !== 'number') throw bad('balance must be a number');
			account.balance = input.balance;
		}
		if (input.locked !== undefined) {
			if (typeof input.locked !== 'number' || input.locked < 0) throw bad('locked must be a number of 0 or more');
			account.locked = input.locked;
		}
		if (input.type !== undefined) {
			if (!Object.hasOwn(ACCOUNT_TYPE_LIMITS, String(input.type))) throw bad(`type must be one of ${Object.keys(ACCOUNT_TYPE_LIMITS).join(', ')}`);
			account.type = input.type as AccountType;
		}
		if (input.nanpa !== undefined) account.nanpa = input.nanpa === true;
		send(res, 200, { accountId: account.id, type: account.type, balance: account.balance, locked: account.locked, nanpa: account.nanpa });
	});

	r.add('GET', '/reports', (_req, res) => send(res, 200, { reports: m.reports.summary(), next: m.reports.next }));
	r.add('POST', '/reports/next', (req, res) => {
		m.reports.next.push(parseNextReport(body(req)));
		send(res, 200, { next: m.reports.next });
	});
	r.add('DELETE', '/reports/next', (_req, res) => {
		m.reports.next = [];
		send(res, 204);
	});
	r.add('POST', '/reports/:hash/ready', async (req, res) => {
		const report = m.reports.reports.get(req.params.hash);
		if (!report) throw new HttpError(404, { message: `No report ${req.params.hash}` });
		await m.reports.finish(report);
		send(res, 200, { hash: report.hash, state: report.state, length: report.length });
	});

	r.add('GET', '/calls', (req, res) => {
		const account = accountOf(m, queryValue(req.query, 'account'));
		send(res, 200, { account: account.id, calls: account.calls.map((c) => callDetail(c)) });
	});
	r.add('POST', '/calls', (req, res) => {
		const input = body(req);
		const account = accountOf(m, input.account);
		const direction = oneOf(input.direction, ['in', 'out'] as const, 'direction', 'out');
		const seconds = input.durationSec === undefined ? 30 : Number(input.durationSec);
		if (!(seconds >= 0)) throw bad('durationSec must be a number of 0 or more');
		const answered = input.answered !== false;
		const call = makeCall(prng(seedOf(`${currentTime()}-${Math.random()}`)), account, {
			direction,
			from: input.from === undefined ? undefined : String(input.from),
			to: input.to === undefined ? undefined : String(input.to),
			trunk: input.trunk === undefined ? undefined : String(input.trunk),
			tag: input.tag === undefined ? undefined : String(input.tag),
			started: currentTime() - seconds * 1000 - (answered ? 6000 : 0),
			answered,
		});
		if (input.call_id !== undefined) call.call_id = String(input.call_id);
		account.calls.push(call);
		send(res, 200, { account: account.id, call: callDetail(call) });
	});
	r.add('DELETE', '/calls/:callId', (req, res) => {
		for (const account of m.data.accounts.values()) {
			const call = account.calls.find((c) => c.call_id === req.params.callId);
			if (!call) continue;
			// ?cdr=true ends it as a hang-up would (CDR and events); otherwise it just disappears.
			if (queryValue(req.query, 'cdr') === 'true') endCall(m, account, call);
			else account.calls = account.calls.filter((c) => c !== call);
			send(res, 204);
			return;
		}
		throw new HttpError(404, { message: `No call ${req.params.callId}` });
	});

	r.add('GET', '/e911/faults', (_req, res) => send(res, 200, m.e911Faults));
	r.add('POST', '/e911/faults', (req, res) => {
		const input = body(req);
		const code = String(input.code ?? '');
		if (!Object.hasOwn(E911_CODES, code)) throw bad(`code must be one of ${Object.keys(E911_CODES).join(', ')}`);
		const count = input.count === undefined ? 1 : Number(input.count);
		if (!Number.isInteger(count) || count < 1) throw bad('count must be a whole number of 1 or more');
		m.e911Faults.push({
			code,
			count,
			field: input.field === undefined || input.field === null ? null : String(input.field),
			message: input.message === undefined ? null : String(input.message),
		});
		send(res, 200, m.e911Faults);
	});
	r.add('DELETE', '/e911/faults', (_req, res) => {
		m.e911Faults = [];
		send(res, 204);
	});

	r.add('GET', '/ports', (_req, res) => send(res, 200, m.data.ports.map((p) => ({ account: p.account, ...portDetail(p) }))));
	r.add('POST', '/ports/:ref/advance', (req, res) => {
		const port = m.data.ports.find((p) => String(p.ref) === req.params.ref);
		if (!port) throw new HttpError(404, { message: `No port ${req.params.ref}` });
		const input = body(req);
		const str = (key: string) => (input[key] === undefined ? undefined : String(input[key]));
		advancePort(m, port, { status: str('status'), info: str('info'), reason: str('reason'), port_date: str('port_date') });
		send(res, 200, { account: port.account, ...portDetail(port) });
	});

	r.add('GET', '/webhooks', (_req, res) => send(res, 200, m.webhookTargets));
	r.add('POST', '/webhooks', (req, res) => {
		const input = body(req);
		const account = accountOf(m, input.account);
		const app = input.app === undefined ? 'default' : String(input.app);
		if (app !== 'default' && !(WEBHOOK_APPS as readonly string[]).includes(app)) throw bad(`app must be default or one of ${WEBHOOK_APPS.join(', ')}`);
		const target: WebhookTarget = {
			account: account.id,
			app,
			url: loopbackUrl(input.url),
			headers: stringMap(input.headers, 'headers'),
			query: stringMap(input.query, 'query'),
			encoding: oneOf(input.encoding, ENCODINGS, 'encoding', 'json'),
			timestampForm: oneOf(input.timestampForm, ['iso', 'iso_offset', 'plain', 'none'] as const, 'timestampForm', 'iso'),
		};
		m.webhookTargets = [...m.webhookTargets.filter((t) => !(t.account === target.account && t.app === target.app)), target];
		send(res, 200, m.webhookTargets);
	});
	r.add('DELETE', '/webhooks', (_req, res) => {
		m.webhookTargets = [];
		send(res, 204);
	});

	r.add('GET', '/deliveries', (req, res) => {
		const q = (name: string) => queryValue(req.query, name);
		send(
			res,
			200,
			m.deliveries.records.filter(
				(d) => (!q('app') || d.app === q('app')) && (!q('source') || d.source === q('source')) && (!q('outcome') || d.outcome === q('outcome')),
			),
		);
	});
	r.add('DELETE', '/deliveries', (_req, res) => {
		m.deliveries.clear();
		send(res, 204);
	});
	r.add('POST', '/deliveries', async (req, res) => {
		const requests = deliveryRequests(m, body(req));
		const records: DeliveryRecord[] = [];
		// In order, one after the other, as the platform's queue sends them.
		for (const request of requests) records.push(await m.deliveries.send(request));
		send(res, 200, { deliveries: records });
	});

	r.add('POST', '/sms/inbound', async (req, res) => {
		const input = body(req);
		const account = accountOf(m, input.account);
		const to = String(input.to ?? [...account.numbers.values()].find((n) => n.sms)?.number ?? '');
		const number = account.numbers.get(to.replace(/^\+/, ''));
		if (!number) throw new HttpError(404, { message: `No number ${to} on account ${account.id}` });
		if (!number.sms) throw new HttpError(409, { message: `Number ${number.number} has no inbound SMS endpoint (PUT .../allocated/${number.number}/sms)` });
		const fields = inboundSmsFields({
			id: input.id === undefined ? undefined : String(input.id),
			from: String(input.from ?? '447700900321'),
			to: number.number,
			message: String(input.message ?? 'Hello from the sandbox'),
		});
		const record = await m.deliveries.send(inboundSmsRequest(number.sms.mode, number.sms.endpoint, fields));
		send(res, 200, { delivery: record });
	});

	return r;
}
