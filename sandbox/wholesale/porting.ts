import { currentTime } from '../core/clock';
import type { Router } from '../core/http';
import { HttpError } from '../core/http';
import type { WsRequest } from './context';
import { failure, isRecord, on, ok, reply } from './context';
import { notify } from './notifications';
import { lookupNumber } from './numbering';
import { DAY_MS, gmt, parseGmt, ymd } from './php';
import { portSubmissionProblems } from './rules';
import type { Account, Port, PortStatus } from './seed';
import { LCPS, PORT_STATUSES } from './seed';
import type { WholesaleSandbox } from './module';

/**
 * Porting (UK GNP): submissions checked against the contract's rules (rules.ts), the port list
 * (outstanding, and finished within 90 days), one port with its events, the losing providers,
 * and (through the admin API) status changes that push the `porting` webhook.
 */

export const PORT_CHARGE = 5;
const TERMINAL: PortStatus[] = ['complete', 'rejected', 'rejected_lcp', 'rejected_rh', 'cancel_own', 'cancel_other'];
const REJECTED: PortStatus[] = ['rejected', 'rejected_lcp', 'rejected_rh'];
const LIST_WINDOW_DAYS = 90;

/** Guide lead times in working days (the longer one above 10 lines). */
const LEAD_DAYS: Record<string, [number, number]> = { single: [4, 14], multi: [7, 17], sub_single: [7, 17], sub_multi: [10, 25] };

/** The status sequence the admin "advance" follows when no status is given. */
export function nextStatus(port: Port): PortStatus | undefined {
	const sequence: PortStatus[] = String(port.submission.type ?? 'single').startsWith('sub_')
		? ['received', 'submitted_lcp', 'accepted_lcp', 'submitted_rh', 'accepted_rh', 'accepted', 'complete']
		: ['received', 'submitted_lcp', 'accepted_lcp', 'accepted', 'complete'];
	const index = sequence.indexOf(port.status);
	return index >= 0 ? sequence[index + 1] : undefined;
}

function addWorkingDays(from: number, days: number): number {
	let time = from;
	let left = days;
	while (left > 0) {
		time += DAY_MS;
		const weekday = new Date(time).getUTCDay();
		if (weekday !== 0 && weekday !== 6) left -= 1;
	}
	return time;
}

function rangeHolder(mbn: unknown): string {
	const national = String(mbn ?? '');
	return /^0\d+$/.test(national) ? (lookupNumber(`44${national.slice(1)}`)?.data.rh ?? 'BT') : 'BT';
}

function listItem(port: Port): Record<string, unknown> {
	return {
		ref: port.ref,
		mbn: String(port.submission.mbn ?? ''),
		date: gmt(port.submitted),
		crd: ymd(port.crd),
		status_code: PORT_STATUSES[port.status],
		status: port.status,
	};
}

export function portDetail(port: Port): Record<string, unknown> {
	const s = port.submission;
	return {
		ref: port.ref,
		mbn: String(s.mbn ?? ''),
		status: port.status,
		status_code: PORT_STATUSES[port.status],
		contact_email: s.contact_email ?? null,
		lcp: s.lcp ?? null,
		rh: rangeHolder(s.mbn),
		account_number: s.account_number ?? null,
		billing_postcode: s.billing_postcode ?? null,
		type: s.type ?? 'single',
		lines: s.lines ?? null,
		channels: s.channels ?? null,
		customer: s.customer ?? null,
		numbers: s.numbers ?? [],
		date: gmt(port.submitted),
		crd: ymd(port.crd),
		port_date: port.portDate === null ? null : gmt(port.portDate),
		events: port.events.map((e) => ({
			date: gmt(e.date),
			status_code: PORT_STATUSES[e.status],
			status: e.status,
			...(e.info !== undefined ? { info: e.info } : {}),
		})),
	};
}

/** Moves a port to a status (the next of its sequence by default): an event, a notification and the `porting` webhook. */
export function advancePort(
	m: WholesaleSandbox,
	port: Port,
	input: { status?: string; info?: string; reason?: string; port_date?: string },
): Port {
	const status = (input.status ?? nextStatus(port)) as PortStatus | undefined;
	if (!status) throw new HttpError(409, { message: `Port ${port.ref} is ${port.status}: it has no next status; give one` });
	if (!Object.hasOwn(PORT_STATUSES, status)) {
		throw new HttpError(400, { message: `status must be one of ${Object.keys(PORT_STATUSES).join(', ')}` });
	}
	const now = currentTime();
	if (input.port_date !== undefined) {
		const time = parseGmt(input.port_date);
		if (Number.isNaN(time)) throw new HttpError(400, { message: 'port_date must be YYYY-MM-DD hh:mm:ss' });
		port.portDate = time;
		port.crd = time;
	} else if (status === 'accepted' && port.portDate === null) {
		port.portDate = Math.max(port.crd, now);
	}
	if (status === 'complete' && port.portDate === null) port.portDate = now;
	const info = input.info ?? input.reason;
	port.status = status;
	port.events.push({ date: now, status, ...(info !== undefined ? { info } : {}) });
	const account = m.account(port.account) as Account;
	const data = {
		orderid: port.ref,
		status,
		port_date: port.portDate === null ? '' : gmt(port.portDate),
		reason: REJECTED.includes(status) ? (input.reason ?? input.info ?? 'Rejected by the losing provider') : '',
		comments: input.info ?? '',
	};
	notify(account, 'porting', `Port ${port.ref} is now ${status}`, { account: account.id, ...data, mbn: port.submission.mbn ?? '' });
	m.emit(account, 'porting', data, 'porting');
	return port;
}

export function portingRoutes(r: Router, m: WholesaleSandbox): void {
	for (const resource of ['gnp', 'ports']) {
		const base = `/porting/:account/${resource}`;
		on(r, 'POST', base, (req, res) => {
			const account = req.account;
			const submission: unknown = req.bodyKind === 'json' ? req.bodyJson : req.bodyParams;
			const errors = portSubmissionProblems(submission);
			if (!isRecord(submission)) throw failure(400, errors.length ? errors : ['The port submission must be an object']);
			if (submission.lcp_cupid !== undefined && submission.lcp_cupid !== null && submission.lcp_cupid !== '') {
				const cupid = String(submission.lcp_cupid).padStart(3, '0');
				if (!LCPS.some((l) => l.cupid === cupid)) errors.push(`lcp_cupid: ${String(submission.lcp_cupid)} is not a provider of the lcps list`);
			}
			let original: Port | undefined;
			if (submission.orig_ref !== undefined && submission.orig_ref !== null && submission.orig_ref !== '') {
				original = m.data.ports.find((p) => p.account === account.id && String(p.ref) === String(submission.orig_ref).trim());
				if (!original) errors.push(`orig_ref: ${String(submission.orig_ref)} is not a port of this account`);
				else if (!REJECTED.includes(original.status)) errors.push(`orig_ref: port ${original.ref} is ${original.status}; only a rejected port can be resubmitted`);
			}
			const busy = m.data.ports.find((p) => p.account === account.id && p !== original && !TERMINAL.includes(p.status) && p.submission.mbn === submission.mbn);
			if (busy) errors.push(`mbn: a port of ${String(submission.mbn)} is already in progress (ref ${busy.ref})`);
			if (errors.length) throw failure(400, errors);

			const now = currentTime();
			const type = String(submission.type ?? 'single');
			const [short, long] = LEAD_DAYS[type] ?? LEAD_DAYS.single;
			const requested = typeof submission.port_date === 'string' && submission.port_date.trim() !== '' ? parseGmt(submission.port_date) : Number.NaN;
			const crd = Number.isNaN(requested) ? addWorkingDays(now, Number(submission.lines ?? 1) > 10 ? long : short) : requested;
			const port: Port = {
				ref: m.data.nextPortRef++,
				account: account.id,
				submitted: now,
				crd,
				status: 'received',
				portDate: Number.isNaN(requested) ? null : requested,
				submission: structuredClone(submission),
				events: [{ date: now, status: 'received', ...(original ? { info: `Resubmission of ${original.ref}` } : {}) }],
			};
			m.data.ports.push(port);
			// A resubmission with orig_ref is not billed again; anything else is a new, charged order.
			if (!original) m.charge(account, PORT_CHARGE, `GNP port ${port.ref}`);
			reply(req, res, { success: true, ref: port.ref, url: `/v3/porting/${account.id}/${resource}/${port.ref}` });
		});
		on(r, 'GET', base, (req, res) => {
			const since = currentTime() - LIST_WINDOW_DAYS * DAY_MS;
			const ports = m.data.ports.filter(
				(p) => p.account === req.account.id && (!TERMINAL.includes(p.status) || p.events[p.events.length - 1].date >= since),
			);
			reply(req, res, ok(ports.map(listItem)));
		});
		on(r, 'GET', `${base}/:ref`, (req: WsRequest, res) => {
			const port = m.data.ports.find((p) => p.account === req.account.id && String(p.ref) === req.params.ref);
			if (!port) throw failure(404, `No port ${req.params.ref} on account ${req.account.id}`);
			reply(req, res, ok(portDetail(port)));
		});
	}
	on(r, 'GET', '/porting/:account/lcps', (req, res) => reply(req, res, { success: true, cps: LCPS }));
}
