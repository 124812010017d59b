import type { ServerResponse } from 'node:http';

import type { SandboxRequest } from '../core/http';
import { HttpError, Router, isJsonRequest, jsonBody, queryValue, send } from '../core/http';
import type { StatusFault } from '../core/faults';
import type { RefusalInput } from '../core/refusals';
import { addRefusals, clearRefusals, listRefusals } from '../core/refusals';
import type { SandboxContext, SandboxModule } from '../core/server';
import { routeHandler } from '../core/server';
import { parseTime, platformTime } from '../core/time';
import { makeWav, wavBytes } from '../core/wav';
import type {
	Bundle,
	CallRecord,
	CallerId,
	Customer,
	PbxData,
	PbxUser,
	PhoneNumber,
	PhonebookEntry,
	Recording,
	SmsMessage,
	Sound,
} from './seed';
import { seedPbx } from './seed';
import type { BulkInput } from './bulk';
import { addBulk } from './bulk';
import type { CreditChange, OutboundSmsInput, RecordingInput, SmsOutcome, SmsStatusChange } from './playback';
import { PbxPlayback, SMS_OUTCOMES } from './playback';
import type { PbxEvent, StreamFaults, StreamSettings } from './stream';
import { DEFAULT_STREAM_SETTINGS, PbxStream, streamFaultProblems } from './stream';
import { currentTime } from '../core/clock';

export const PBX_PREFIX = '/api/v1';

/** What a refused credential can be refused on: the live stream, its token, and the lists the poller reads. */
export const PBX_REFUSAL_TARGETS = {
	paths: {
		stream: `${PBX_PREFIX}/stream`,
		tokengenerator: `${PBX_PREFIX}/tokengenerator`,
		calls: `${PBX_PREFIX}/customers/*/calls`,
		sms: `${PBX_PREFIX}/customers/*/sms`,
	},
	all: `${PBX_PREFIX}/`,
};

export interface RestartInput {
	/** How long new connections are refused (default 5000 ms). */
	downMs?: number;
	/** `stream` (default): only `/stream` is refused; `api`: every PBX request, as when the whole platform restarts. */
	scope?: 'stream' | 'api';
	/** `503` (default): answered 503 with Retry-After; `reset`: the connection is closed unanswered. */
	refuseWith?: 503 | 'reset';
}

interface Token {
	id: string;
	username: string;
	created: Date;
	expires: Date;
	used: boolean;
}

interface RateWindow {
	start: number;
	used: number;
}

export interface PbxSettings {
	rateLimit: number;
	rateWindowSeconds: number;
	/** How long an outgoing SMS stays PENDING. */
	smsDelayMs: number;
	tokenLifetimeSeconds: number;
	/**
	 * How the call history as CSV is paged (the contract pages every list, and does not say whether
	 * later pages repeat the header): `header` each page a CSV with its header, `firstHeader` the
	 * header on page 1 only, `unpaged` every row in one answer whatever the page.
	 */
	csvPages: 'header' | 'firstHeader' | 'unpaged';
	/** What messages sent through the API become: see `SMS_OUTCOMES` (playback.ts). */
	smsOutcome: SmsOutcome;
}

const DEFAULT_SETTINGS: PbxSettings = {
	rateLimit: 1200,
	rateWindowSeconds: 3600,
	smsDelayMs: 300,
	tokenLifetimeSeconds: 300,
	csvPages: 'header',
	smsOutcome: 'auto',
};

type Rep = Record<string, unknown>;

function validationFailure(field: string, message: string): HttpError {
	return new HttpError(400, { status: 400, message: 'Validation failed', errors: [{ field, message }] });
}

function randomHex(bytes: number): string {
	let out = '';
	for (let i = 0; i < bytes; i++) out += Math.floor(Math.random() * 256).toString(16).padStart(2, '0');
	return out;
}

function csvCell(value: unknown): string {
	const text = value === undefined || value === null ? '' : String(value);
	return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export class PbxSandbox implements SandboxModule {
	readonly name = 'pbx';
	readonly prefix = PBX_PREFIX;
	readonly stream = new PbxStream();
	readonly admin: Router;
	settings: PbxSettings = { ...DEFAULT_SETTINGS };
	data: PbxData = seedPbx();
	private tokens = new Map<string, Token>();
	private windows = new Map<string, RateWindow>();
	private ids = new Map<string, number>();
	private restartScope: 'stream' | 'api' = 'stream';
	private restartRefusal: 503 | 'reset' = 503;
	private readonly api: Router;
	private readonly playback = new PbxPlayback({
		data: () => this.data,
		nextId: (kind, existing) => this.nextId(kind, existing),
		publish: (customerId, event, values) => this.publish(customerId, event, values),
		smsRep: (message) => this.smsRep(message),
		recordingRep: (recording) => this.recordingRep(recording),
		creditRep: (customerId) => this.creditRep(customerId),
		smsDelayMs: () => this.settings.smsDelayMs,
		smsOutcome: () => this.settings.smsOutcome,
	});

	constructor(private readonly context: SandboxContext) {
		this.api = this.buildApi();
		this.admin = this.buildAdmin();
	}

	info(baseUrl: string): Record<string, unknown> {
		return {
			baseUrl: `${baseUrl}${PBX_PREFIX}`,
			users: this.data.users.map((u) => ({
				level: u.level,
				username: u.username,
				password: u.password,
				customerIds: u.customerIds,
			})),
		};
	}

	reset(): void {
		this.playback.reset();
		this.stream.closeAll();
		this.stream.settings = { ...DEFAULT_STREAM_SETTINGS };
		this.data = seedPbx();
		this.settings = { ...DEFAULT_SETTINGS };
		this.tokens.clear();
		this.windows.clear();
		this.ids.clear();
		this.restartScope = 'stream';
		this.restartRefusal = 503;
	}

	// ---- faults of a live platform ----------------------------------------------------

	/** Refuses the credential on the stream, the token generator and the polled lists (or some of them). */
	refuse(input: RefusalInput = {}): StatusFault[] {
		return addRefusals(this.context.faults, this.name, PBX_REFUSAL_TARGETS, input, (status) =>
			status === 401
				? { body: { status: 401, message: 'Authentication required' }, headers: { 'WWW-Authenticate': 'Basic realm="Hosted PBX API"' } }
				: { body: { status: 403, message: 'Access to this resource is forbidden' } },
		);
	}

	refusals(): ReturnType<typeof listRefusals> {
		return listRefusals(this.context.faults, this.name);
	}

	clearRefusals(): number {
		return clearRefusals(this.context.faults, this.name);
	}

	/** A platform restart: every stream is dropped and new ones are refused for `downMs`. */
	restartStream(input: RestartInput = {}): ReturnType<PbxStream['restart']> & { scope: string; refuseWith: 503 | 'reset' } {
		const downMs = input.downMs ?? 5000;
		if (!Number.isFinite(downMs) || downMs < 0 || downMs > 3_600_000) throw new HttpError(400, { message: 'downMs must be from 0 to 3600000' });
		if (input.scope !== undefined && input.scope !== 'stream' && input.scope !== 'api') throw new HttpError(400, { message: 'scope must be stream or api' });
		if (input.refuseWith !== undefined && input.refuseWith !== 503 && input.refuseWith !== 'reset') throw new HttpError(400, { message: 'refuseWith must be 503 or reset' });
		this.restartScope = input.scope ?? 'stream';
		this.restartRefusal = input.refuseWith ?? 503;
		return { ...this.stream.restart(downMs), scope: this.restartScope, refuseWith: this.restartRefusal };
	}

	/** While restarting: a 503 with Retry-After, or the connection closed unanswered. */
	private refuseWhileRestarting(req: SandboxRequest, res: ServerResponse): boolean {
		if (this.restartScope === 'stream' && req.path.replace(/\/$/, '') !== '/stream') return false;
		const left = this.stream.refuseWhileDown();
		if (left <= 0) return false;
		if (this.restartRefusal === 'reset') {
			req.raw.socket.destroy();
			res.destroy();
			return true;
		}
		throw new HttpError(503, { status: 503, message: 'The service is restarting; try again shortly' }, { 'Retry-After': String(Math.ceil(left / 1000)) });
	}

	close(): void {
		this.playback.reset();
		this.stream.closeAll();
	}

	// ---- request handling -------------------------------------------------------------

	async handle(req: SandboxRequest, res: ServerResponse): Promise<void> {
		if (req.rawMethod === 'POST' && /^(PUT|DELETE)$/i.test(queryValue(req.query, '_method') ?? '')) {
			req.method = String(queryValue(req.query, '_method')).toUpperCase();
		}
		if (this.refuseWhileRestarting(req, res)) return;
		const user = this.authenticate(req);
		req.principal = `${user.username} (${user.level})`;
		this.applyRateLimit(user, res);
		(req as PbxRequest).user = user;
		if (req.path.endsWith('.json')) {
			req.path = req.path.slice(0, -'.json'.length);
			(req as PbxRequest).forceJson = true;
		} else if (req.path.endsWith('.wav')) {
			req.path = req.path.slice(0, -'.wav'.length);
			(req as PbxRequest).wantsWav = true;
		}
		await routeHandler(this.api)(req, res);
	}

	private authenticate(req: SandboxRequest): PbxUser {
		const tokenId = queryValue(req.query, 'tokenid');
		if (tokenId !== undefined) {
			const token = this.tokens.get(tokenId);
			if (!token || token.used || token.expires.getTime() < currentTime() || req.method !== 'GET') {
				if (token) token.used = true;
				throw new HttpError(401, { status: 401, message: 'Token is invalid, expired or already used' });
			}
			token.used = true;
			const user = this.data.users.find((u) => u.username === token.username);
			if (user) return user;
		}
		const header = String(req.headers.authorization ?? '');
		const match = /^Basic\s+(.+)$/i.exec(header);
		if (match) {
			const decoded = Buffer.from(match[1], 'base64').toString('utf8');
			const split = decoded.indexOf(':');
			const username = decoded.slice(0, split);
			const password = decoded.slice(split + 1);
			const user = this.data.users.find((u) => u.username === username && u.password === password);
			if (user) return user;
		}
		throw new HttpError(
			401,
			{ status: 401, message: 'Authentication required' },
			{ 'WWW-Authenticate': 'Basic realm="Hosted PBX API"' },
		);
	}

	private applyRateLimit(user: PbxUser, res: ServerResponse): void {
		const now = currentTime();
		const windowMs = this.settings.rateWindowSeconds * 1000;
		let window = this.windows.get(user.username);
		if (!window || now - window.start >= windowMs) {
			window = { start: now, used: 0 };
			this.windows.set(user.username, window);
		}
		const reset = Math.max(0, Math.ceil((window.start + windowMs - now) / 1000));
		const headers = {
			'X-RateLimit-Limit': String(this.settings.rateLimit),
			'X-RateLimit-Remaining': String(Math.max(0, this.settings.rateLimit - window.used - 1)),
			'X-RateLimit-Reset': String(reset),
		};
		if (window.used >= this.settings.rateLimit) {
			throw new HttpError(
				429,
				{ status: 429, message: 'Request limit reached for the current window' },
				{ ...headers, 'X-RateLimit-Remaining': '0' },
			);
		}
		window.used += 1;
		for (const [key, value] of Object.entries(headers)) res.setHeader(key, value);
	}

	private nextId(kind: string, existing: Array<{ id: string }>): string {
		const current = this.ids.get(kind) ?? Math.max(0, ...existing.map((e) => Number(e.id) || 0));
		this.ids.set(kind, current + 1);
		return String(current + 1);
	}

	// ---- representations --------------------------------------------------------------

	private url(path: string): string {
		return `${this.context.baseUrl()}${PBX_PREFIX}${path}`;
	}

	/** Odd ids use `Z`, even ids milliseconds and `+0000`: clients must read both. */
	private time(date: Date, id: string): string {
		return platformTime(date, Number(id) % 2 === 0 ? 'offset' : 'z');
	}

	private customerRep(c: Customer, inList: boolean): Rep {
		const base = `/customers/${c.id}`;
		const rep: Rep = {
			type: 'customer',
			uri: this.url(base),
			created: this.time(c.created, c.id),
			accountType: c.accountType,
			company: c.company,
			firstName: c.firstName,
			lastName: c.lastName,
			telephone: c.telephone,
			email: c.email,
			address1: c.address1,
			...(c.address2 ? { address2: c.address2 } : {}),
			city: c.city,
			postcode: c.postcode,
		};
		if (inList) return rep;
		const link = (name: string) => this.url(`${base}/${name}`);
		return {
			...rep,
			country: c.country,
			properties: c.properties ?? {},
			links: {
				callBundles: link('callbundles'),
				recordings: link('recordings'),
				phoneBook: link('phonebook'),
				timeIntervals: link('timeintervals'),
				endpoints: link('endpoints'),
				phoneNumbers: link('phonenumbers'),
				sms: link('sms'),
				creditStatus: link('creditstatus'),
				calls: link('calls'),
				sounds: link('sounds'),
				outgoingCallerIds: link('outgoingcallerids'),
			},
		};
	}

	private phonebookRep(e: PhonebookEntry): Rep {
		return {
			type: 'phonebookentry',
			uri: this.url(`/customers/${e.customerId}/phonebook/${e.id}`),
			created: this.time(e.created, e.id),
			name: e.name,
			phoneNumber: e.phoneNumber,
			// An entry without a speed dial: odd ids omit the field, even ids send null (both allowed).
			...(e.speedDial !== undefined ? { speedDial: e.speedDial } : Number(e.id) % 2 === 0 ? { speedDial: null } : {}),
		};
	}

	private smsRep(m: SmsMessage): Rep {
		return {
			type: 'smsmessage',
			uri: this.url(`/customers/${m.customerId}/sms/${m.id}`),
			created: this.time(m.created, m.id),
			direction: m.direction,
			from: m.from,
			to: m.to,
			body: m.body,
			...(m.direction === 'OUT' ? { sendStatus: m.sendStatus } : {}),
			...(m.deliveryStatus !== undefined ? { deliveryStatus: m.deliveryStatus } : {}),
			cost: m.cost,
		};
	}

	private callRep(c: CallRecord): Rep {
		return {
			type: 'call',
			uri: this.url(`/customers/${c.customerId}/calls/${c.id}`),
			created: this.time(c.created, c.id),
			scope: c.scope,
			direction: c.direction,
			from: c.from,
			to: c.to,
			callStarted: this.time(c.callStarted, c.id),
			outcome: c.outcome,
			duration: c.duration,
			cost: c.cost,
			callId: c.callId,
			linkedId: c.linkedId,
			links: { recordings: this.url(`/customers/${c.customerId}/recordings?linkedId=${c.linkedId}`) },
		};
	}

	private soundRep(s: Sound): Rep {
		return {
			type: s.type,
			uri: this.url(`/customers/${s.customerId}/sounds/${s.id}`),
			created: this.time(s.created, s.id),
			name: s.name,
			size: wavBytes(s.seconds),
			...(s.type === 'music' ? { enabled: s.enabled ?? true } : {}),
		};
	}

	private recordingRep(r: Recording): Rep {
		return {
			type: 'recording',
			uri: this.url(`/customers/${r.customerId}/recordings/${r.id}`),
			created: this.time(r.created, r.id),
			direction: r.direction,
			partyId: r.partyId,
			started: this.time(r.started, r.id),
			size: r.bytes ?? wavBytes(r.seconds),
			callId: r.callId,
			linkedId: r.linkedId,
			endpoint: this.url(`/customers/${r.customerId}/endpoints/${r.endpointId}`),
		};
	}

	private creditRep(customerId: string): Rep {
		const credit = this.data.credit[customerId];
		return {
			type: 'creditstatus',
			uri: this.url(`/customers/${customerId}/creditstatus`),
			accountType: credit.accountType,
			balance: credit.balance,
		};
	}

	private phoneNumberRep(n: PhoneNumber): Rep {
		return {
			type: 'did',
			uri: this.url(`/customers/${n.customerId}/phonenumbers/${n.id}`),
			created: this.time(n.created, n.id),
			number: n.number,
			identifier: n.identifier,
			destination: this.url(`/customers/${n.customerId}/endpoints/${n.destinationEndpointId}`),
			smsEnabled: n.smsEnabled,
			smsAllowIncoming: n.smsEnabled,
			smsNotificationEmail: '',
			smsNotificationUrl: '',
			faxEnabled: n.faxEnabled,
			routingRules: [],
		};
	}

	private callerIdRep(c: CallerId): Rep {
		return {
			type: 'outgoingcallerid',
			uri: this.url(`/customers/${c.customerId}/outgoingcallerids/${c.id}`),
			created: this.time(c.created, c.id),
			number: c.number,
			allowCalls: c.allowCalls,
			allowSms: c.allowSms,
		};
	}

	private bundleRep(b: Bundle): Rep {
		return {
			type: 'customerbundle',
			uri: this.url(`/customers/${b.customerId}/callbundles/${b.id}`),
			created: this.time(b.created, b.id),
			name: b.name,
			inclusiveMins: b.inclusiveMins,
			priceMonthly: b.priceMonthly,
			validFrom: this.time(b.validFrom, b.id),
			validTo: this.time(b.validTo, b.id),
			usedMins: b.usedMins,
			availableMins: Math.max(0, b.inclusiveMins - b.usedMins),
			autoRenew: b.autoRenew,
			status: b.status,
		};
	}

	/** The list wrapper, with absolute prevPage/nextPage links only where those pages exist. */
	private list(req: SandboxRequest, all: Rep[]): Rep {
		const requested = Number(queryValue(req.query, 'pageSize') ?? 20);
		const pageSize = Math.min(200, Math.max(1, Number.isFinite(requested) ? Math.floor(requested) : 20));
		const page = Math.max(1, Math.floor(Number(queryValue(req.query, 'page') ?? 1)) || 1);
		const items = all.slice((page - 1) * pageSize, page * pageSize);
		const link = (target: number) => {
			const params = new URLSearchParams();
			for (const [key, value] of Object.entries(req.query)) {
				if (key === 'page' || key === 'pageSize' || key === 'tokenid') continue;
				for (const v of Array.isArray(value) ? value : [value]) params.append(key, v);
			}
			params.set('pageSize', String(pageSize));
			params.set('page', String(target));
			return `${this.url(req.path)}?${params.toString()}`;
		};
		return {
			totalItems: all.length,
			pageSize,
			page,
			items,
			...(page > 1 ? { prevPage: link(page - 1) } : {}),
			...(page * pageSize < all.length ? { nextPage: link(page + 1) } : {}),
		};
	}

	// ---- access -----------------------------------------------------------------------

	private customer(req: SandboxRequest): Customer {
		const user = (req as PbxRequest).user;
		let id = req.params.customerId;
		if (id === 'me') {
			if (user.level === 'reseller') {
				throw new HttpError(404, { status: 404, message: '"me" is not available to reseller users; use a customer id' });
			}
			id = user.customerIds[0];
		}
		const customer = this.data.customers.find((c) => c.id === id);
		if (!customer) throw new HttpError(404, { status: 404, message: `No customer ${id}` });
		if (!user.customerIds.includes(id)) {
			throw new HttpError(401, { status: 401, message: 'Insufficient rights for this customer' });
		}
		return customer;
	}

	private requireWriter(req: SandboxRequest): void {
		if ((req as PbxRequest).user.level === 'extension') {
			throw new HttpError(401, { status: 401, message: 'Extension users may not change this resource' });
		}
	}

	private ofCustomer<T extends { customerId: string; id: string }>(items: T[], req: SandboxRequest): T[] {
		const customer = this.customer(req);
		return items.filter((item) => item.customerId === customer.id);
	}

	private findOne<T extends { customerId: string; id: string }>(items: T[], req: SandboxRequest, param: string): T {
		const found = this.ofCustomer(items, req).find((item) => item.id === req.params[param]);
		if (!found) throw new HttpError(404, { status: 404, message: `Nothing at ${req.fullPath}` });
		return found;
	}

	private body(req: SandboxRequest): Record<string, unknown> {
		if (req.body.length && !isJsonRequest(req)) {
			throw new HttpError(400, { status: 400, message: 'Send the representation as JSON (Content-Type: application/json)' });
		}
		const body = jsonBody<Record<string, unknown>>(req);
		if (!body || typeof body !== 'object' || Array.isArray(body)) {
			throw new HttpError(400, { status: 400, message: 'A JSON object body is required' });
		}
		return body;
	}

	private checkType(body: Record<string, unknown>, type: string): void {
		if (body.type !== type) throw validationFailure('type', `must be "${type}"`);
	}

	// ---- API routes -------------------------------------------------------------------

	private buildApi(): Router {
		const r = new Router();
		const ok = (res: ServerResponse, body: unknown) => send(res, 200, body);

		r.add('GET', '/customers', (req, res) => {
			const user = (req as PbxRequest).user;
			const customers = this.data.customers.filter((c) => user.customerIds.includes(c.id));
			ok(res, this.list(req, customers.map((c) => this.customerRep(c, true))));
		});
		r.add('GET', '/customers/:customerId', (req, res) => ok(res, this.customerRep(this.customer(req), false)));

		// Phone book
		r.add('GET', '/customers/:customerId/phonebook', (req, res) =>
			ok(res, this.list(req, this.ofCustomer(this.data.phonebook, req).map((e) => this.phonebookRep(e)))),
		);
		r.add('GET', '/customers/:customerId/phonebook/:entryId', (req, res) =>
			ok(res, this.phonebookRep(this.findOne(this.data.phonebook, req, 'entryId'))),
		);
		r.add('POST', '/customers/:customerId/phonebook', (req, res) => {
			const customer = this.customer(req);
			this.requireWriter(req);
			const fields = this.phonebookFields(this.body(req));
			const entry: PhonebookEntry = {
				id: this.nextId('phonebook', this.data.phonebook),
				customerId: customer.id,
				...fields,
				created: new Date(currentTime()),
			};
			this.data.phonebook.push(entry);
			const rep = this.phonebookRep(entry);
			send(res, 201, rep, { Location: String(rep.uri) });
		});
		r.add('PUT', '/customers/:customerId/phonebook/:entryId', (req, res) => {
			const entry = this.findOne(this.data.phonebook, req, 'entryId');
			this.requireWriter(req);
			const fields = this.phonebookFields(this.body(req));
			entry.name = fields.name;
			entry.phoneNumber = fields.phoneNumber;
			entry.speedDial = fields.speedDial;
			ok(res, this.phonebookRep(entry));
		});
		r.add('DELETE', '/customers/:customerId/phonebook/:entryId', (req, res) => {
			const entry = this.findOne(this.data.phonebook, req, 'entryId');
			this.requireWriter(req);
			this.data.phonebook.splice(this.data.phonebook.indexOf(entry), 1);
			send(res, 204);
		});

		// SMS
		r.add('GET', '/customers/:customerId/sms', (req, res) =>
			ok(res, this.list(req, this.ofCustomer(this.data.sms, req).map((m) => this.smsRep(m)))),
		);
		r.add('GET', '/customers/:customerId/sms/:smsId', (req, res) =>
			ok(res, this.smsRep(this.findOne(this.data.sms, req, 'smsId'))),
		);
		r.add('POST', '/customers/:customerId/sms', (req, res) => {
			const customer = this.customer(req);
			const body = this.body(req);
			this.checkType(body, 'smsmessage');
			for (const field of ['to', 'from', 'body']) {
				if (typeof body[field] !== 'string' || String(body[field]).trim() === '') {
					throw validationFailure(field, 'may not be empty');
				}
			}
			const text = String(body.body);
			const message: SmsMessage = {
				id: this.nextId('sms', this.data.sms),
				customerId: customer.id,
				direction: 'OUT',
				from: String(body.from),
				to: String(body.to),
				body: text,
				sendStatus: 'PENDING',
				cost: Math.round(Math.max(1, Math.ceil(text.length / 160)) * 4) / 100,
				created: new Date(currentTime()),
			};
			this.data.sms.push(message);
			this.playback.scheduleOutcome(message);
			const rep = this.smsRep(message);
			send(res, 201, rep, { Location: String(rep.uri) });
		});

		// Calls
		r.add('GET', '/customers/:customerId/calls', (req, res) => {
			const calls = this.filterCalls(req, this.ofCustomer(this.data.calls, req));
			if (!(req as PbxRequest).forceJson && /text\/csv/i.test(String(req.headers.accept ?? ''))) {
				send(res, 200, this.callsCsv(req, calls), { 'Content-Type': 'text/csv; charset=utf-8' });
				return;
			}
			ok(res, this.list(req, calls.map((c) => this.callRep(c))));
		});
		r.add('POST', '/customers/:customerId/calls', (req, res) => {
			const customer = this.customer(req);
			const body = this.body(req);
			this.checkType(body, 'call');
			const endpointId = String(body.endpoint ?? '').replace(/\/+$/, '').split('/').pop() ?? '';
			const endpoint = this.data.endpoints.find((e) => e.customerId === customer.id && e.id === endpointId);
			if (!endpoint) throw validationFailure('endpoint', 'must be the URI of a local endpoint of this customer');
			if (typeof body.to !== 'string' || body.to.trim() === '') throw validationFailure('to', 'may not be empty');
			const now = new Date(currentTime());
			const id = this.nextId('call', this.data.calls);
			const callId = `c-${randomHex(4)}`;
			this.data.calls.push({
				id, customerId: customer.id, scope: 'EXTERNAL', direction: 'OUT',
				from: `"${endpoint.name}" <${endpoint.id}>`, to: `<${body.to}>`, fromNumber: endpoint.id, toNumber: String(body.to),
				endpointIds: [endpoint.id], callStarted: now, outcome: 'ANSWERED', duration: 0, cost: 0,
				callId, linkedId: callId, created: now,
			});
			send(res, 200);
		});

		// Endpoint Do Not Disturb
		const endpointOf = (req: SandboxRequest) => {
			const customer = this.customer(req);
			const endpoint = this.data.endpoints.find((e) => e.customerId === customer.id && e.id === req.params.endpointId);
			if (!endpoint) throw new HttpError(404, { status: 404, message: `No endpoint ${req.params.endpointId}` });
			const user = (req as PbxRequest).user;
			if (user.level === 'extension' && user.endpointId !== endpoint.id) {
				throw new HttpError(401, { status: 401, message: 'Extension users may only access their own endpoint' });
			}
			return endpoint;
		};
		const phoneStatus = (customerId: string, endpoint: { id: string; dndActive: boolean }) => ({
			type: 'phonestatus',
			id: endpoint.id,
			uri: this.url(`/customers/${customerId}/endpoints/${endpoint.id}/phonestatus`),
			parent: this.url(`/customers/${customerId}/endpoints/${endpoint.id}`),
			dndActive: endpoint.dndActive,
		});
		r.add('GET', '/customers/:customerId/endpoints/:endpointId/phonestatus', (req, res) => {
			const endpoint = endpointOf(req);
			ok(res, phoneStatus(endpoint.customerId, endpoint));
		});
		r.add('PUT', '/customers/:customerId/endpoints/:endpointId/phonestatus', (req, res) => {
			const endpoint = endpointOf(req);
			const body = this.body(req);
			this.checkType(body, 'phonestatus');
			if (typeof body.dndActive !== 'boolean') throw validationFailure('dndActive', 'must be true or false');
			endpoint.dndActive = body.dndActive;
			ok(res, phoneStatus(endpoint.customerId, endpoint));
		});

		// Sounds and recordings
		const wantsWav = (req: SandboxRequest) =>
			(req as PbxRequest).wantsWav || /audio\/(x-)?wav/i.test(String(req.headers.accept ?? ''));
		const wav = (res: ServerResponse, seconds: number) => send(res, 200, makeWav(seconds), { 'Content-Type': 'audio/wav' });
		r.add('GET', '/customers/:customerId/sounds', (req, res) => {
			const type = queryValue(req.query, 'type');
			if (type !== undefined && type !== 'prompt' && type !== 'music') throw validationFailure('type', 'must be prompt or music');
			const sounds = this.ofCustomer(this.data.sounds, req).filter((s) => !type || s.type === type);
			ok(res, this.list(req, sounds.map((s) => this.soundRep(s))));
		});
		r.add('GET', '/customers/:customerId/sounds/:soundId', (req, res) => {
			const sound = this.findOne(this.data.sounds, req, 'soundId');
			if (wantsWav(req) && !(req as PbxRequest).forceJson) wav(res, sound.seconds);
			else ok(res, this.soundRep(sound));
		});
		r.add('GET', '/customers/:customerId/recordings', (req, res) => {
			const recordings = this.filterRecordings(req, this.ofCustomer(this.data.recordings, req));
			ok(res, this.list(req, recordings.map((x) => this.recordingRep(x))));
		});
		r.add('GET', '/customers/:customerId/recordings/:recordingId', (req, res) => {
			const recording = this.findOne(this.data.recordings, req, 'recordingId');
			if (!wantsWav(req) || (req as PbxRequest).forceJson) ok(res, this.recordingRep(recording));
			else if (recording.bytes !== undefined) this.playback.streamRecording(res, recording.bytes);
			else wav(res, recording.seconds);
		});

		// Read-only collections
		const readOnly = <T extends { customerId: string; id: string }>(
			name: string,
			items: () => T[],
			rep: (item: T) => Rep,
		) => {
			r.add('GET', `/customers/:customerId/${name}`, (req, res) =>
				ok(res, this.list(req, this.ofCustomer(items(), req).map(rep))),
			);
			r.add('GET', `/customers/:customerId/${name}/:itemId`, (req, res) =>
				ok(res, rep(this.findOne(items(), req, 'itemId'))),
			);
		};
		readOnly('phonenumbers', () => this.data.phoneNumbers, (n) => this.phoneNumberRep(n));
		readOnly('outgoingcallerids', () => this.data.callerIds, (c) => this.callerIdRep(c));
		readOnly('callbundles', () => this.data.bundles, (b) => this.bundleRep(b));
		r.add('GET', '/customers/:customerId/creditstatus', (req, res) => ok(res, this.creditRep(this.customer(req).id)));

		// Token generator and stream
		r.add('GET', '/tokengenerator', (req, res) => {
			const user = (req as PbxRequest).user;
			const created = new Date(currentTime());
			const token: Token = {
				id: randomHex(16),
				username: user.username,
				created,
				expires: new Date(created.getTime() + this.settings.tokenLifetimeSeconds * 1000),
				used: false,
			};
			this.tokens.set(token.id, token);
			ok(res, {
				type: 'authtoken',
				id: token.id,
				created: platformTime(token.created, 'z'),
				expires: platformTime(token.expires, 'offset'),
			});
		});
		r.add('GET', '/stream', (req, res) => {
			const user = (req as PbxRequest).user;
			this.stream.open(res, user.username, (customerId, endpointId) =>
				user.customerIds.includes(customerId) &&
				(user.level !== 'extension' || endpointId === undefined || endpointId === user.endpointId),
			);
		});
		return r;
	}

	private phonebookFields(body: Record<string, unknown>): Pick<PhonebookEntry, 'name' | 'phoneNumber' | 'speedDial'> {
		this.checkType(body, 'phonebookentry');
		if (typeof body.name !== 'string' || body.name.trim() === '') throw validationFailure('name', 'may not be empty');
		if (typeof body.phoneNumber !== 'string' || body.phoneNumber.trim() === '') {
			throw validationFailure('phoneNumber', 'may not be empty');
		}
		let speedDial: number | undefined;
		if (body.speedDial !== undefined && body.speedDial !== null) {
			speedDial = Number(body.speedDial);
			if (!Number.isInteger(speedDial) || speedDial < 1 || speedDial > 9999) {
				throw validationFailure('speedDial', 'must be between 1 and 9999');
			}
		}
		return { name: body.name, phoneNumber: body.phoneNumber, speedDial };
	}

	private timeFilter<T>(req: SandboxRequest, items: T[], created: (i: T) => Date, started: (i: T) => Date): T[] {
		const bounds: Array<[string, (i: T) => Date, (a: number, b: number) => boolean]> = [
			['createdAfter', created, (a, b) => a > b],
			['createdBefore', created, (a, b) => a < b],
			['startedAfter', started, (a, b) => a > b],
			['startedBefore', started, (a, b) => a < b],
		];
		let out = items;
		for (const [name, pick, compare] of bounds) {
			const value = queryValue(req.query, name);
			if (value === undefined) continue;
			const limit = parseTime(value);
			if (Number.isNaN(limit)) throw validationFailure(name, 'must be an ISO 8601 date-time');
			out = out.filter((item) => compare(pick(item).getTime(), limit));
		}
		return out;
	}

	private filterCalls(req: SandboxRequest, calls: CallRecord[]): CallRecord[] {
		let out = this.timeFilter(req, calls, (c) => c.created, (c) => c.callStarted);
		const q = (name: string) => queryValue(req.query, name);
		const direction = q('direction');
		if (direction !== undefined) {
			if (!/^(in|out)$/i.test(direction)) throw validationFailure('direction', 'must be in or out');
			out = out.filter((c) => c.direction === direction.toUpperCase());
		}
		if (q('from') !== undefined) out = out.filter((c) => c.fromNumber === q('from'));
		if (q('to') !== undefined) out = out.filter((c) => c.toNumber === q('to'));
		const includeLocal = /^true$/i.test(q('includeLocal') ?? 'false');
		// Without includeLocal internal calls are left out; with it, only their outbound record is kept.
		out = out.filter((c) => c.scope !== 'LOCAL' || (includeLocal && c.direction === 'OUT'));
		const endpointId = q('endpointId');
		if (endpointId !== undefined) {
			if (!/^\d+$/.test(endpointId)) throw validationFailure('endpointId', 'must be an integer');
			out = out.filter((c) => c.endpointIds.includes(endpointId));
		}
		return [...out].sort((a, b) => a.created.getTime() - b.created.getTime() || Number(a.id) - Number(b.id));
	}

	private filterRecordings(req: SandboxRequest, recordings: Recording[]): Recording[] {
		let out = this.timeFilter(req, recordings, (r) => r.created, (r) => r.started);
		const callId = queryValue(req.query, 'callId');
		const linkedId = queryValue(req.query, 'linkedId');
		if (callId !== undefined) out = out.filter((r) => r.callId === callId);
		if (linkedId !== undefined) out = out.filter((r) => r.linkedId === linkedId);
		return out;
	}

	private callsCsv(req: SandboxRequest, all: CallRecord[]): string {
		const header = ['callId', 'linkedId', 'created', 'callStarted', 'scope', 'direction', 'from', 'to', 'outcome', 'duration', 'cost'];
		const paged = this.settings.csvPages !== 'unpaged';
		const page = paged ? (this.list(req, all as unknown as Rep[]) as { page: number; items: CallRecord[] }) : { page: 1, items: all };
		const calls = page.items;
		const withHeader = page.page === 1 || this.settings.csvPages === 'header';
		const rows = calls.map((c) =>
			[c.callId, c.linkedId, this.time(c.created, c.id), this.time(c.callStarted, c.id), c.scope, c.direction, c.from, c.to, c.outcome, c.duration, c.cost]
				.map(csvCell)
				.join(','),
		);
		const lines = withHeader ? [header.join(','), ...rows] : rows;
		return lines.length ? `${lines.join('\r\n')}\r\n` : '';
	}

	// ---- events and admin ------------------------------------------------------------

	publish(customerId: string, event: string, values: Record<string, unknown>, endpointId?: string): number {
		const payload: PbxEvent = { event, location: null, values };
		return this.stream.publish(customerId, payload, endpointId);
	}

	/** An incoming call: the stream event, and a call record in the history (missed unless answered). */
	injectIncomingCall(input: {
		customerId?: string;
		from?: string;
		callerIdName?: string;
		endpointId?: string;
		outcome?: CallRecord['outcome'];
		duration?: number;
		created?: string;
	}): Rep {
		const customerId = input.customerId ?? '1001';
		const endpointId = input.endpointId ?? '201';
		const from = input.from ?? '+447700900123';
		const name = input.callerIdName ?? 'Demo Caller';
		const created = input.created ? new Date(parseTime(input.created)) : new Date(currentTime());
		const outcome = input.outcome ?? 'NO_ANSWER';
		const callId = `c-${randomHex(4)}`;
		const record: CallRecord = {
			id: this.nextId('call', this.data.calls), customerId, scope: 'EXTERNAL', direction: 'IN',
			from: `"${name}" <${from}>`, to: `<${endpointId}>`, fromNumber: from, toNumber: endpointId,
			endpointIds: [endpointId], callStarted: created, outcome,
			duration: outcome === 'ANSWERED' ? (input.duration ?? 42) : 0, cost: 0, callId, linkedId: callId, created,
		};
		this.data.calls.push(record);
		const delivered = this.publish(
			customerId,
			'incomingcall',
			{ callerIdNumber: from, callerIdName: name, endpoint: this.url(`/customers/${customerId}/endpoints/${endpointId}`) },
			endpointId,
		);
		return { call: this.callRep(record), delivered };
	}

	injectInboundSms(input: { customerId?: string; from?: string; to?: string; body?: string; created?: string }): Rep {
		const customerId = input.customerId ?? '1001';
		const text = input.body ?? 'Hello from the sandbox';
		const message: SmsMessage = {
			id: this.nextId('sms', this.data.sms), customerId, direction: 'IN',
			from: input.from ?? '+447700900123', to: input.to ?? '+441632960001', body: text, cost: 0,
			created: input.created ? new Date(parseTime(input.created)) : new Date(currentTime()),
		};
		this.data.sms.push(message);
		const delivered = this.publish(customerId, 'smsreceived', {
			to: message.to,
			from: message.from,
			excerpt: text.length > 40 ? `${text.slice(0, 40)}…` : text,
		});
		return { sms: this.smsRep(message), delivered };
	}

	/** A recording, late for a finished call if `callId` names one; answers it as GET does. */
	injectRecording(input: RecordingInput = {}): Rep {
		return this.playback.injectRecording(input);
	}

	/** An outgoing SMS exactly as given (default PENDING, no deliveryStatus); a delivery status publishes `smsdelivered`. */
	injectOutboundSms(input: OutboundSmsInput = {}): { sms: Rep; delivered: number } {
		return this.playback.injectOutboundSms(input);
	}

	/** Changes an outgoing SMS's statuses now (deliveryStatus null removes it). */
	setSmsStatus(id: string, change: SmsStatusChange = {}): { sms: Rep; delivered: number } {
		return this.playback.setSmsStatus(id, change);
	}

	/** Sets a customer's balance and/or account type; answers the creditstatus. */
	setCredit(customerId: string | undefined, change: CreditChange = {}): Rep {
		return this.playback.setCredit(customerId, change);
	}

	private buildAdmin(): Router {
		const r = new Router();
		const input = (req: SandboxRequest) => jsonBody<Record<string, unknown>>(req) ?? {};
		r.add('POST', '/calls/incoming', (req, res) => send(res, 200, this.injectIncomingCall(input(req))));
		r.add('POST', '/sms/inbound', (req, res) => send(res, 200, this.injectInboundSms(input(req))));
		r.add('POST', '/sms/outbound', (req, res) => send(res, 200, this.injectOutboundSms(input(req))));
		r.add('POST', '/sms/:id/status', (req, res) => send(res, 200, this.setSmsStatus(req.params.id, input(req))));
		r.add('POST', '/recordings', (req, res) => send(res, 200, this.injectRecording(input(req))));
		r.add('POST', '/credit', (req, res) => {
			const { customerId, ...change } = input(req) as CreditChange & { customerId?: string };
			send(res, 200, this.setCredit(customerId, change));
		});
		r.add('POST', '/events', async (req, res) => {
			const body = input(req) as { customerId?: string; event?: string; values?: Record<string, unknown>; count?: number; ratePerSecond?: number };
			const count = body.count ?? 1;
			const customerId = body.customerId ?? '1001';
			const event = body.event ?? 'incomingcall';
			let delivered = 0;
			// `sentAt` (epoch ms with fractions) lets a benchmark measure the latency to its emit.
			const emit = (i: number) =>
				(delivered += this.publish(customerId, event, { ...(body.values ?? {}), seq: i, sentAt: performance.timeOrigin + performance.now() }));
			if (!body.ratePerSecond) {
				for (let i = 0; i < count; i++) emit(i);
				send(res, 200, { published: count, delivered });
				return;
			}
			const interval = 1000 / body.ratePerSecond;
			const start = currentTime();
			for (let i = 0; i < count; i++) {
				const due = start + i * interval - currentTime();
				if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
				emit(i);
			}
			send(res, 200, { published: count, delivered, seconds: (currentTime() - start) / 1000 });
		});
		r.add('GET', '/streams', (_req, res) => send(res, 200, this.stream.list()));
		r.add('POST', '/stream/settings', (req, res) => {
			this.stream.settings = { ...this.stream.settings, ...(input(req) as Partial<StreamSettings>) };
			this.stream.rescheduleHeartbeats();
			send(res, 200, this.stream.settings);
		});
		r.add('POST', '/stream/faults', (req, res) => {
			const faults = input(req);
			const problems = streamFaultProblems(faults);
			if (problems.length) throw new HttpError(400, { message: problems.join('; '), problems });
			send(res, 200, { applied: this.stream.applyFaults(faults as StreamFaults) });
		});
		r.add('POST', '/stream/restart', (req, res) => send(res, 200, this.restartStream(input(req) as RestartInput)));
		r.add('GET', '/stream/restart', (_req, res) => send(res, 200, this.stream.restartState()));
		r.add('GET', '/refuse', (_req, res) => send(res, 200, this.refusals()));
		r.add('POST', '/refuse', (req, res) => {
			this.refuse(input(req) as RefusalInput);
			send(res, 200, this.refusals());
		});
		r.add('DELETE', '/refuse', (_req, res) => send(res, 200, { removed: this.clearRefusals() }));
		r.add('POST', '/settings', (req, res) => {
			const changes = input(req) as Partial<PbxSettings>;
			if (changes.smsOutcome !== undefined && !SMS_OUTCOMES.includes(changes.smsOutcome)) {
				throw new HttpError(400, { message: `smsOutcome must be one of ${SMS_OUTCOMES.join(', ')}`, field: 'smsOutcome' });
			}
			this.settings = { ...this.settings, ...changes };
			this.windows.clear();
			send(res, 200, this.settings);
		});
		r.add('POST', '/bulk', (req, res) => send(res, 200, addBulk(this.data, input(req) as BulkInput, (kind, existing) => this.nextId(kind, existing), currentTime())));
		r.add('POST', '/phonebook/bulk', (req, res) => {
			const body = input(req) as { customerId?: string; count?: number; replace?: boolean };
			const customerId = body.customerId ?? '1001';
			const count = Math.min(body.count ?? 100, 100_000);
			if (body.replace) this.data.phonebook = this.data.phonebook.filter((e) => e.customerId !== customerId);
			for (let i = 0; i < count; i++) {
				this.data.phonebook.push({
					id: this.nextId('phonebook', this.data.phonebook),
					customerId,
					name: `Contact ${i + 1}`,
					phoneNumber: `+4477009${String(10000 + i).slice(-5)}`,
					created: new Date(currentTime()),
				});
			}
			send(res, 200, { added: count, total: this.data.phonebook.filter((e) => e.customerId === customerId).length });
		});
		return r;
	}
}

interface PbxRequest extends SandboxRequest {
	user: PbxUser;
	forceJson?: boolean;
	wantsWav?: boolean;
}

export const pbxModule = (context: SandboxContext) => new PbxSandbox(context);
