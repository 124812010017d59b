import { randomBytes } from 'node:crypto';

import { currentTime } from '../core/clock';
import type { Router } from '../core/http';
import type { WsRequest } from './context';
import { failure, integerParam, on, ok, reply, text } from './context';
import { destinationOf } from './destinations';
import { CDR_WINDOW_DAYS, dateTimeParam, matchesFilter, readFilter, windowStart } from './filters';
import { DAY_MS, gmt, prng, round, seedOf, startOfDay, ukLocal } from './php';
import { checkReportDate } from './reports';
import { RATE_UNITS, channelLimitProblems, rateLimitForm, trunkNameProblem } from './rules';
import type { Account, CallInProgress, Cdr, Trunk } from './seed';
import { TRUNK_CONCURRENT_OPTIONS, TRUNK_RATE_OPTIONS, billedSeconds, charge } from './seed';
import { cdrDocument } from './webhooks';
import type { WholesaleSandbox } from './module';
import { notify } from './notifications';

/**
 * Voice: limits, channel statistics, calls in progress (and ending one), inline CDRs,
 * rejected calls, and trunks (with the deprecated `/outbound` resource beside them).
 */

// ---- calls in progress ----------------------------------------------------------------

function callCharge(call: CallInProgress, now: number): number {
	if (call.answeredAt === null) return 0;
	return round(call.connection + (call.rate / 60) * Math.max(0, (now - call.answeredAt) / 1000), 4);
}

function callSeconds(call: CallInProgress, now: number): number {
	return call.answeredAt === null ? 0 : Math.max(0, Math.round((now - call.answeredAt) / 1000));
}

/** The calls in progress record (`/inprogress/current`, and the inprogress_summary webhook data). */
export function inProgressRecord(account: Account, now = currentTime()): Record<string, unknown> {
	const calls: Record<string, Record<string, unknown>> = {};
	const countries: Record<string, Record<string, unknown>> = {};
	let total = 0;
	let burnPerSecond = 0;
	for (const call of account.calls) {
		const answered = call.answeredAt !== null ? 1 : 0;
		const amount = callCharge(call, now);
		total += amount;
		if (answered) burnPerSecond += call.rate / 60;
		const byDest = (calls[String(call.dest_id)] ??= { answeredcount: 0, callcount: 0, country: call.country, location: call.desc, total: 0 });
		byDest.answeredcount = Number(byDest.answeredcount) + answered;
		byDest.callcount = Number(byDest.callcount) + 1;
		byDest.total = round(Number(byDest.total) + amount, 4);
		const byCountry = (countries[call.iso] ??= { answeredcount: 0, callcount: 0, total: 0 });
		byCountry.answeredcount = Number(byCountry.answeredcount) + answered;
		byCountry.callcount = Number(byCountry.callcount) + 1;
		byCountry.total = round(Number(byCountry.total) + amount, 4);
	}
	const available = account.balance - account.locked;
	return {
		account: account.id,
		answeredcount: account.calls.filter((c) => c.answeredAt !== null).length,
		approx_seconds_remaining: burnPerSecond > 0 ? Math.max(0, Math.floor(available / burnPerSecond)) : null,
		balance: round(account.balance, 4),
		balance_available: round(available, 4),
		balance_locked: round(account.locked, 4),
		callcount: account.calls.length,
		calls,
		countries,
		currency: account.currency,
		datetime: ukLocal(now),
		percent_available: account.balance > 0 ? round((available / account.balance) * 100, 2) : 0,
		total: round(total, 4),
	};
}

/** One call of the detail form of inprogress_summary. */
export function callDetail(call: CallInProgress, now = currentTime()): Record<string, unknown> {
	return {
		calldate: gmt(call.started),
		call_id: call.call_id,
		sip_call_id: call.sip_call_id,
		from: call.from,
		to: call.to,
		dest_id: call.dest_id,
		iso: call.iso,
		desc: call.desc,
		trunk: call.trunk,
		tag: call.tag,
		duration: callSeconds(call, now),
		charge: callCharge(call, now),
	};
}

/** The detail form of inprogress_summary: `calls` is an array of call objects. */
export function inProgressDetail(account: Account, now = currentTime()): Record<string, unknown> {
	return { ...inProgressRecord(account, now), calls: account.calls.map((call) => callDetail(call, now)) };
}

function callRecord(call: CallInProgress, now: number): Record<string, unknown> {
	return {
		call_id: call.call_id,
		sip_call_id: call.sip_call_id,
		direction: call.direction,
		status: call.answeredAt === null ? 'ringing' : 'answered',
		calldate: gmt(call.started),
		answered: call.answeredAt === null ? null : gmt(call.answeredAt),
		from: call.from,
		to: call.to,
		dest_id: call.dest_id,
		iso: call.iso,
		desc: call.desc,
		country: call.country,
		trunk: call.trunk,
		tag: call.tag,
		duration: callSeconds(call, now),
		charge: callCharge(call, now),
	};
}

/** Ends a call: an answered call leaves a CDR (charged to the balance) and the hang-up events. */
export function endCall(m: WholesaleSandbox, account: Account, call: CallInProgress): Cdr | undefined {
	const now = currentTime();
	account.calls = account.calls.filter((c) => c !== call);
	const app = call.direction === 'in' ? 'call_inbound' : 'call_outbound';
	m.emit(
		account,
		app,
		{
			call_id: call.call_id,
			sip_call_id: call.sip_call_id,
			status: 'hangup',
			trunk: call.trunk,
			...(call.direction === 'out' ? { tag: call.tag } : {}),
			from: call.from,
			to: call.to,
			...(call.direction === 'out' ? { dest_id: call.dest_id, desc: call.desc, iso: call.iso } : { origin: 'mobile', route: '' }),
			q850: 16,
		},
		'call',
	);
	if (call.answeredAt === null) return undefined;
	const destination = call.direction === 'out' ? destinationOf(call.to) : undefined;
	const secs = Math.max(1, callSeconds(call, now));
	const billed = call.direction === 'out' ? billedSeconds(destination, secs) : secs;
	const cdr: Cdr = {
		call_id: call.call_id,
		cdr_id: String(account.nextCdrId++),
		calldate: call.started,
		direction: call.direction,
		nts_source: '',
		trunk: call.trunk,
		tag: call.tag,
		from: call.from,
		to: call.to,
		dest_id: call.dest_id,
		todesc: call.desc,
		iso: call.iso,
		secs_call: secs,
		secs_billed: billed,
		chg_total: call.direction === 'out' ? charge(destination, billed) : 0,
		currency: account.currency,
	};
	// CDRs are kept in call-date order.
	let index = account.cdrs.length;
	while (index > 0 && account.cdrs[index - 1].calldate > cdr.calldate) index--;
	account.cdrs.splice(index, 0, cdr);
	account.balance = round(account.balance - cdr.chg_total, 4);
	m.emit(account, 'cdr', cdrDocument(cdr), 'call');
	return cdr;
}

// ---- channels -------------------------------------------------------------------------

export const CHANNEL_INTERVALS: Record<string, number> = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000 };

function channelSample(account: Account, time: number, interval: number): Record<string, unknown> {
	const random = prng(seedOf(`${account.id}-${Math.floor(time / 60_000)}-${interval}`));
	const hour = new Date(time).getUTCHours();
	const busy = hour >= 8 && hour < 18 ? 1 : hour >= 6 && hour < 21 ? 0.5 : 0.15;
	const cap = account.limits.channel_allocation || account.limits.limit_concurrent_out;
	const peakBoost = interval >= 3_600_000 ? 1.3 : interval >= 300_000 ? 1.1 : 1;
	const out = Math.min(account.limits.limit_concurrent_out, Math.round(cap * 0.45 * busy * peakBoost * random()));
	const inbound = Math.min(account.limits.limit_concurrent_in, Math.round(cap * 0.25 * busy * peakBoost * random()));
	return { datetime: gmt(time), in: inbound, out, total: inbound + out };
}

// ---- trunks ---------------------------------------------------------------------------

const SWITCHES = ['enabled', 'enable_in', 'enabled_out'] as const;
export const CLI_FORMATS = ['e164', '+e164', 'national'];
const INBOUND_OPTIONS = ['enable_in', 'limit_concurrent_in'];

export function trunkRecord(trunk: Trunk, legacy = false): Record<string, unknown> {
	const record: Record<string, unknown> = {
		name: trunk.name,
		type: trunk.type,
		default: trunk.name.endsWith('-L001'),
		username: trunk.username,
		ips: trunk.ips,
		enabled: trunk.enabled,
		enable_in: trunk.enable_in,
		enabled_out: trunk.enabled_out,
		...trunk.limits,
		cli_format: trunk.cli_format,
		created: gmt(trunk.created),
	};
	if (legacy) for (const key of INBOUND_OPTIONS) delete record[key];
	return record;
}

function nullish(value: unknown): boolean {
	return value === null || value === undefined || value === '' || (typeof value === 'string' && value.trim().toLowerCase() === 'null');
}

/** Checks every update option; the trunk is changed only when all are valid. */
function trunkChanges(req: WsRequest, legacy: boolean): { changes: Partial<Trunk> & { limits?: Trunk['limits'] }; rename?: string; errors: string[] } {
	const errors: string[] = [];
	const changes: Partial<Trunk> = {};
	const limits: Trunk['limits'] = {};
	let rename: string | undefined;
	for (const [key, value] of Object.entries(req.input)) {
		if (key === 'type') continue;
		if (legacy && INBOUND_OPTIONS.includes(key)) {
			errors.push(`${key} is not available on the deprecated /outbound resource: use /trunks`);
		} else if ((SWITCHES as readonly string[]).includes(key)) {
			const v = typeof value === 'boolean' ? Number(value) : String(value).trim();
			if (v === 1 || v === '1') changes[key as (typeof SWITCHES)[number]] = 1;
			else if (v === 0 || v === '0') changes[key as (typeof SWITCHES)[number]] = 0;
			else errors.push(`${key} must be 1 or 0`);
		} else if ((TRUNK_CONCURRENT_OPTIONS as readonly string[]).includes(key)) {
			if (nullish(value)) limits[key] = null;
			else if ((typeof value === 'number' && Number.isInteger(value) && value >= 0) || (typeof value === 'string' && /^\s*\d+\s*$/.test(value))) limits[key] = Number(value);
			else errors.push(`${key} must be a whole number of 0 or more, or null for no limit`);
		} else if ((TRUNK_RATE_OPTIONS as readonly string[]).includes(key)) {
			const form = rateLimitForm(value);
			if (nullish(value)) limits[key] = null;
			else if (form) limits[key] = form;
			else errors.push(`${key} must be calls/duration with a duration of ${RATE_UNITS.slice(0, -1).join(', ')} or ${RATE_UNITS[RATE_UNITS.length - 1]} (e.g. 5/10s), or null for no limit`);
		} else if (key === 'cli_format') {
			const v = String(value).trim();
			if (CLI_FORMATS.includes(v)) changes.cli_format = v;
			else errors.push(`cli_format must be one of ${CLI_FORMATS.join(', ')}`);
		} else if (key === 'name') {
			rename = String(value).trim();
		} else {
			errors.push(`Unknown option ${key}`);
		}
	}
	return { changes: { ...changes, ...(Object.keys(limits).length ? { limits } : {}) }, rename, errors };
}

function randomPassword(): string {
	const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';
	return Array.from(randomBytes(16), (b) => alphabet[b % alphabet.length]).join('');
}

function findTrunk(req: WsRequest): Trunk {
	const trunk = req.account.trunks.find((t) => t.name === req.params.trunk);
	if (!trunk) throw failure(404, `No trunk ${req.params.trunk} on account ${req.account.id}`);
	return trunk;
}

function trunkRoutes(r: Router, m: WholesaleSandbox, resource: 'trunks' | 'outbound'): void {
	const legacy = resource === 'outbound';
	const base = `/voice/:account/${resource}`;
	on(r, 'GET', base, (req, res) => reply(req, res, ok(req.account.trunks.map((t) => trunkRecord(t, legacy)))));
	on(r, 'GET', `${base}/:trunk`, (req, res) => reply(req, res, ok(trunkRecord(findTrunk(req), legacy))));
	on(r, 'PUT', `${base}/:trunk`, (req, res) => {
		const account = req.account;
		const name = req.params.trunk;
		const nameProblem = trunkNameProblem(name, account.id);
		if (nameProblem) throw failure(400, `Invalid trunk name ${name}: ${nameProblem}`);
		const existing = account.trunks.find((t) => t.name === name);
		const type = text(req, 'type');
		const { changes, rename, errors } = trunkChanges(req, legacy);
		if (!existing) {
			const chosen: Trunk['type'] = type === 'IP' ? 'IP' : 'auth';
			if (type !== undefined && type !== '' && type !== 'IP' && type !== 'auth') errors.unshift(`type must be IP or auth (the default)`);
			if (rename !== undefined) errors.push('name can only be given to rename an existing trunk');
			if (errors.length) throw failure(400, errors);
			const password = chosen === 'auth' ? randomPassword() : null;
			const trunk: Trunk = {
				name,
				type: chosen,
				username: chosen === 'auth' ? name : null,
				password,
				ips: [],
				enabled: 1,
				enable_in: 1,
				enabled_out: 1,
				limits: Object.fromEntries([...TRUNK_CONCURRENT_OPTIONS, ...TRUNK_RATE_OPTIONS].map((k) => [k, null])),
				cli_format: 'e164',
				created: currentTime(),
			};
			Object.assign(trunk, { ...changes, limits: { ...trunk.limits, ...(changes.limits ?? {}) } });
			account.trunks.push(trunk);
			notify(account, 'trunk', `Trunk ${name} created`, {
				account: account.id,
				trunk: name,
				type: chosen,
				username: trunk.username,
				...(password ? { password: '######' } : {}),
				registrar: 'sip.wholesale.example',
			});
			// The SIP password of an auth trunk is shown here and never again.
			reply(req, res, ok({ ...trunkRecord(trunk, legacy), ...(password ? { password } : {}) }));
			return;
		}
		if (type !== undefined && type !== '' && type !== existing.type) {
			errors.unshift(`The type of the existing trunk ${name} cannot be changed (it is ${existing.type})`);
		}
		if (rename !== undefined && rename !== existing.name) {
			if (existing.name.endsWith('-L001')) errors.push(`The default trunk ${existing.name} cannot be renamed`);
			else if (trunkNameProblem(rename, account.id)) errors.push(`Invalid trunk name ${rename}: ${trunkNameProblem(rename, account.id)}`);
			else if (account.trunks.some((t) => t.name === rename)) errors.push(`A trunk ${rename} already exists`);
		}
		if (errors.length) throw failure(400, errors);
		Object.assign(existing, { ...changes, limits: { ...existing.limits, ...(changes.limits ?? {}) } });
		if (rename !== undefined && rename !== existing.name) {
			for (const n of account.numbers.values()) if (n.trunk === existing.name) n.trunk = rename;
			existing.name = rename;
			if (existing.username !== null) existing.username = rename;
		}
		notify(account, 'trunk', `Trunk ${existing.name} changed`, { account: account.id, trunk: existing.name, changes: Object.keys(req.input) });
		reply(req, res, ok(trunkRecord(existing, legacy)));
	});
	on(r, 'DELETE', `${base}/:trunk`, (req, res) => {
		const account = req.account;
		if (/-L001$/i.test(req.params.trunk) && req.params.trunk.toUpperCase() === `${account.id}-L001`) {
			throw failure(400, `The default trunk ${account.id}-L001 cannot be deleted`);
		}
		const trunk = findTrunk(req);
		account.trunks = account.trunks.filter((t) => t !== trunk);
		for (const n of account.numbers.values()) if (n.trunk === trunk.name) n.trunk = null;
		notify(account, 'trunk', `Trunk ${trunk.name} deleted`, { account: account.id, trunk: trunk.name });
		reply(req, res, ok());
	});
}

// ---- routes ---------------------------------------------------------------------------

function limitsRecord(account: Account): Record<string, unknown> {
	return { ...account.limits, dynamic: { ...account.limits.dynamic } };
}

export function voiceRoutes(r: Router, m: WholesaleSandbox): void {
	on(r, 'GET', '/voice/:account/limits', (req, res) => reply(req, res, ok(limitsRecord(req.account))));
	on(r, 'PUT', '/voice/:account/limits', (req, res) => {
		const limits = req.account.limits;
		if (!limits.channel_allocation_adjustable) {
			throw failure(400, 'The limits of this account are not adjustable: it has no dedicated channel allocation. Ask your account manager for higher limits.');
		}
		const errors = channelLimitProblems(req.input.limit_concurrent_in, req.input.limit_concurrent_out, limits.channel_allocation);
		if (errors.length) throw failure(400, errors);
		limits.limit_concurrent_in = Number(req.input.limit_concurrent_in);
		limits.limit_concurrent_out = Number(req.input.limit_concurrent_out);
		reply(req, res, ok(limitsRecord(req.account)));
	});

	on(r, 'GET', '/voice/:account/channels/current', (req, res) => {
		const inbound = req.account.calls.filter((c) => c.direction === 'in').length;
		const out = req.account.calls.length - inbound;
		reply(req, res, [{ datetime: gmt(currentTime()), in: inbound, out, total: inbound + out }]);
	});
	on(r, 'GET', '/voice/:account/channels/history', (req, res) => {
		const interval = text(req, 'interval') || '5m';
		const step = CHANNEL_INTERVALS[interval];
		if (!step) throw failure(400, `interval must be one of ${Object.keys(CHANNEL_INTERVALS).join(', ')} (default 5m)`);
		const last = Math.floor(currentTime() / step) * step;
		const samples: Array<Record<string, unknown>> = [];
		for (let time = last - DAY_MS + step; time <= last; time += step) samples.push(channelSample(req.account, time, step));
		reply(req, res, samples);
	});

	on(r, 'GET', '/voice/:account/inprogress/current', (req, res) => reply(req, res, inProgressRecord(req.account)));
	const findCall = (req: WsRequest) => {
		const call = req.account.calls.find((c) => c.call_id === req.params.callId);
		if (!call) throw failure(404, `No call in progress ${req.params.callId}`);
		return call;
	};
	on(r, 'GET', '/voice/:account/inprogress/:callId', (req, res) => reply(req, res, ok(callRecord(findCall(req), currentTime()))));
	on(r, 'DELETE', '/voice/:account/inprogress/:callId', (req, res) => {
		endCall(m, req.account, findCall(req));
		reply(req, res, ok());
	});

	const cdrs = (req: WsRequest, res: Parameters<typeof reply>[1], start: number, end: number) => {
		const limit = integerParam(req, 'limit', 500);
		const offset = integerParam(req, 'start', 0);
		if (Number.isNaN(limit) || limit < 1) throw failure(400, 'limit must be a whole number of 1 or more');
		if (Number.isNaN(offset)) throw failure(400, 'start must be a whole number of 0 or more');
		const filter = readFilter(req);
		const rows = req.account.cdrs.filter((c) => c.calldate >= start && c.calldate < end && matchesFilter(c, filter));
		reply(req, res, ok(rows.slice(offset, offset + limit).map(cdrDocument)));
	};
	on(r, ['GET', 'POST'], '/voice/:account/cdr', (req, res) => {
		const now = currentTime();
		const earliest = windowStart(now);
		const window = `last ${CDR_WINDOW_DAYS} days`;
		const start = dateTimeParam(req, 'date_start', startOfDay(now), earliest, window);
		const end = dateTimeParam(req, 'date_end', now, earliest, window);
		if (start >= end) throw failure(400, 'date_start must be before date_end');
		cdrs(req, res, start, end + 1000);
	});
	on(r, ['GET', 'POST'], '/voice/:account/cdr/:date', (req, res) => {
		const date = checkReportDate('date', req.params.date);
		const start = Date.parse(`${date}T00:00:00Z`);
		cdrs(req, res, start, start + DAY_MS);
	});
	on(r, 'GET', '/voice/:account/cdr/:date/:reference', () => {
		throw failure(503, 'Call detail by reference is temporarily unavailable; use the CDRs of the day');
	});

	const rejected = (req: WsRequest, res: Parameters<typeof reply>[1], reason?: string) => {
		const since = startOfDay(currentTime()) - DAY_MS;
		reply(
			req,
			res,
			ok(
				req.account.rejected
					.filter((x) => x.datetime >= since && (reason === undefined || x.reason === reason))
					.map((x) => ({
						datetime: gmt(x.datetime),
						direction: x.direction,
						from: x.from,
						to: x.to,
						trunk: x.trunk,
						tag: x.tag,
						reason: x.reason,
						desc: x.desc,
						iso: x.iso,
						q850: x.q850,
					})),
			),
		);
	};
	on(r, 'GET', '/voice/:account/rejected', (req, res) => rejected(req, res));
	on(r, 'GET', '/voice/:account/rejected/:reason', (req, res) => rejected(req, res, req.params.reason));

	trunkRoutes(r, m, 'trunks');
	trunkRoutes(r, m, 'outbound');
}
