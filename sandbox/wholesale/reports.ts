import { currentTime, sandboxSleep } from '../core/clock';
import type { Router } from '../core/http';
import { HttpError, send } from '../core/http';
import type { WsRequest } from './context';
import { failure, integerParam, isRecord, on, ok, reply, text } from './context';
import type { CdrFilter } from './filters';
import { CDR_WINDOW_DAYS, dateTimeParam, matchesFilter, readFilter, windowStart } from './filters';
import { DAY_MS, formEncode, gmt, md5, parseGmt, phpJson, prng, round, seedOf, startOfDay, ymd } from './php';
import type { Account, Cdr } from './seed';
import { cdrChoices, makeCdr, makeSmsCdr } from './seed';
import { cdrDocument } from './webhooks';
import type { WholesaleSandbox } from './module';

/**
 * Asynchronous reports and the files resource: a report POST answers a handle at once, the
 * file is 204 while it runs, 200 exactly once when ready (then deleted), 404 after that or
 * after the retention time. An identical request while the file is uncollected answers the
 * same handle. An optional `callback` URL gets `payload={"app":"reports","id":hash,"data":null}`.
 * Also the inline (synchronous) summaries.
 */

export type ReportType = 'voice_summary' | 'voice_cdr' | 'sms_cdr' | 'balance_summary';

export interface ReportSpec {
	type: ReportType;
	mode: string | null;
	date?: string;
	from?: string;
	to?: string;
	/** latest-N reports. */
	count?: number;
	callback: string | null;
}

export interface Report extends ReportSpec {
	hash: string;
	account: string;
	identity: string;
	state: 'running' | 'ready' | 'collected' | 'expired';
	requestedAt: number;
	dueAt: number;
	readyAt: number | null;
	expiresAt: number | null;
	collectedAt: number | null;
	/** Records forced by the admin API (a benchmark's 100,000 rows), else the account's own data. */
	rows: number | null;
	malformed: boolean;
	content: Buffer | null;
	length: number | null;
	name: string;
}

/** A one-shot override for the next report request (of a type, or any). */
export interface NextReport {
	type?: ReportType;
	rows?: number;
	readyMs?: number;
	malformed?: boolean;
}

const LATEST_COUNTS = [10, 100, 1000, 10000];

export class ReportStore {
	readonly reports = new Map<string, Report>();
	next: NextReport[] = [];
	/** A running report's wait on the sandbox's clock, aborted when it is finished early or dropped. */
	private timers = new Map<string, AbortController>();
	private generating = new Set<string>();
	private seq = 0;

	constructor(private readonly m: WholesaleSandbox) {}

	/** The handle of an identical uncollected report, or of a new one. */
	request(account: Account, spec: ReportSpec): Report {
		const identity = [account.id, spec.type, spec.mode, spec.date, spec.from, spec.to, spec.count].join('|');
		for (const report of this.reports.values()) {
			this.expireIfDue(report);
			if (report.identity === identity && (report.state === 'running' || report.state === 'ready')) return report;
		}
		const index = this.next.findIndex((n) => !n.type || n.type === spec.type);
		const override = index >= 0 ? this.next.splice(index, 1)[0] : {};
		const now = currentTime();
		const hash = md5(`${identity}|${now}|${++this.seq}`);
		const readyMs = override.readyMs ?? this.m.settings.reportReadyMs;
		const period = spec.date ?? (spec.from ? `${spec.from}_${spec.to}` : '');
		const report: Report = {
			...spec,
			hash,
			account: account.id,
			identity,
			state: 'running',
			requestedAt: now,
			dueAt: now + readyMs,
			readyAt: null,
			expiresAt: null,
			collectedAt: null,
			rows: override.rows ?? null,
			malformed: override.malformed ?? false,
			content: null,
			length: null,
			name: [spec.type, spec.mode, spec.count, period].filter((p) => p !== null && p !== undefined && p !== '').join('_') + '.json',
		};
		this.reports.set(hash, report);
		// Ready after `readyMs` of the sandbox's time: a test's clock decides, not the machine's load.
		const timer = new AbortController();
		this.timers.set(hash, timer);
		void sandboxSleep(readyMs, timer.signal).then(() => {
			if (timer.signal.aborted) return;
			this.timers.delete(hash);
			this.finish(report).catch((error: unknown) => process.stderr.write(`wholesale sandbox report: ${String(error)}\n`));
		});
		return report;
	}

	handle(report: Report): Record<string, unknown> {
		return {
			mode: report.mode,
			...(report.date !== undefined ? { date: report.date } : { from: report.from, to: report.to }),
			type: report.type,
			account: report.account,
			format: 'json',
			hash: report.hash,
			link: `/v3/files/${report.account}/${report.hash}`,
		};
	}

	/**
	 * Generation: the content is built and stored, retention starts, the callback (if any) is
	 * posted. Forced row counts are built in batches between event-loop turns, so a 100,000-row
	 * report does not stall the sandbox's other answers while it is made.
	 */
	async finish(report: Report): Promise<void> {
		if (report.state !== 'running' || this.generating.has(report.hash)) return;
		this.generating.add(report.hash);
		this.timers.get(report.hash)?.abort();
		this.timers.delete(report.hash);
		try {
			const account = this.m.data.accounts.get(report.account);
			if (!account) return;
			const json =
				report.rows !== null && (report.type === 'voice_cdr' || report.type === 'sms_cdr')
					? await this.syntheticJson(account, report, report.rows)
					: phpJson(reportContent(account, report));
			// A reset while it was being made: the report no longer exists.
			if (json === undefined || this.reports.get(report.hash) !== report) return;
			// A malformed file: cut off part-way, so it is not valid JSON.
			const content = report.malformed ? json.slice(0, Math.max(1, Math.floor(json.length * 0.6))) : json;
			report.content = Buffer.from(content);
			report.length = report.content.length;
			report.state = 'ready';
			report.readyAt = currentTime();
			report.expiresAt = report.readyAt + this.m.settings.reportRetentionMs;
		} finally {
			this.generating.delete(report.hash);
		}
		if (report.callback) {
			const document = { app: 'reports', id: report.hash, data: null };
			this.m.deliveries.sendLater({
				source: 'report',
				app: 'reports',
				messageId: report.hash,
				url: report.callback,
				headers: {},
				contentType: 'application/x-www-form-urlencoded',
				body: formEncode({ payload: phpJson(document) }),
				document,
			});
		}
	}

	private async syntheticJson(account: Account, report: Report, rows: number): Promise<string | undefined> {
		const next = syntheticRows(account, report, rows);
		const parts: string[] = [];
		for (let done = 0; done < rows; ) {
			const batch: Array<Record<string, unknown>> = [];
			for (const end = Math.min(rows, done + 5000); done < end; done++) batch.push(next(done));
			parts.push(phpJson(batch).slice(1, -1));
			await new Promise<void>((resolve) => setImmediate(resolve));
			if (this.reports.get(report.hash) !== report) return undefined;
		}
		return `[${parts.join(',')}]`;
	}

	private expireIfDue(report: Report): void {
		if (report.state === 'ready' && report.expiresAt !== null && currentTime() >= report.expiresAt) {
			report.state = 'expired';
			report.content = null;
		}
	}

	/** Uncollected, generated files of an account, keyed by hash. */
	files(accountId: string): Record<string, unknown> {
		const out: Record<string, unknown> = {};
		for (const report of this.reports.values()) {
			this.expireIfDue(report);
			if (report.account !== accountId || report.state !== 'ready') continue;
			out[report.hash] = {
				name: report.name,
				content_type: 'application/json',
				length: report.length,
				uri: `/v3/files/${report.account}/${report.hash}`,
			};
		}
		return out;
	}

	find(accountId: string, hash: string): Report | undefined {
		const report = this.reports.get(hash.toLowerCase());
		if (!report || report.account !== accountId) return undefined;
		this.expireIfDue(report);
		return report;
	}

	/** For the admin API: every report with its state, without content. */
	summary(): Array<Record<string, unknown>> {
		return [...this.reports.values()].map((report) => {
			this.expireIfDue(report);
			const { content: _content, identity: _identity, ...rest } = report;
			return {
				...rest,
				requestedAt: new Date(report.requestedAt).toISOString(),
				dueAt: new Date(report.dueAt).toISOString(),
				readyAt: report.readyAt === null ? null : new Date(report.readyAt).toISOString(),
				expiresAt: report.expiresAt === null ? null : new Date(report.expiresAt).toISOString(),
				collectedAt: report.collectedAt === null ? null : new Date(report.collectedAt).toISOString(),
			};
		});
	}

	reset(): void {
		this.close();
		this.generating.clear();
		this.next = [];
		this.seq = 0;
	}

	/** Stops every timer; a report being generated in batches sees that it is gone and stops too. */
	close(): void {
		for (const timer of this.timers.values()) timer.abort();
		this.timers.clear();
		this.reports.clear();
	}
}

// ---- content --------------------------------------------------------------------------

function dayBounds(date: string): [number, number] {
	const start = parseGmt(date);
	return [start, start + DAY_MS];
}

/** Synthetic CDRs for a forced row count, made one by one in order: spread over the day (or the last day), seeded by the report. */
function syntheticRows(account: Account, report: Report, rows: number): (index: number) => Record<string, unknown> {
	const random = prng(seedOf(report.hash));
	const [start, end] = report.date && report.mode === 'day' ? dayBounds(report.date) : [currentTime() - DAY_MS, currentTime()];
	const span = Math.max(1, Math.min(end, currentTime()) - start);
	const choices = cdrChoices(account);
	return (i) => {
		const time = start + Math.floor((i / rows) * span);
		return report.type === 'sms_cdr'
			? smsDocument(makeSmsCdr(random, account, time, i + 1))
			: cdrDocument(makeCdr(random, account, time, 990_000_000 + i, choices));
	};
}

export function smsDocument(sms: Account['smsCdrs'][number]): Record<string, unknown> {
	return {
		sms_id: sms.sms_id,
		datetime: gmt(sms.datetime),
		direction: sms.direction,
		from: sms.from,
		to: sms.to,
		dest_id: sms.dest_id,
		desc: sms.desc,
		iso: sms.iso,
		parts: sms.parts,
		status: sms.status,
		chg_total: round(sms.chg_total, 4),
		currency: sms.currency,
	};
}

/** Summary rows of CDRs grouped by a key; the metrics every summary carries. */
export function summarise(cdrs: Cdr[], key: SummaryKey, currency: string): Array<Record<string, unknown>> {
	const groups = new Map<string, { row: Record<string, unknown>; calls: number; secsCall: number; secsBilled: number; charge: number }>();
	for (const cdr of cdrs) {
		const [id, fields] = SUMMARY_KEYS[key](cdr);
		let group = groups.get(id);
		if (!group) {
			group = { row: fields, calls: 0, secsCall: 0, secsBilled: 0, charge: 0 };
			groups.set(id, group);
		}
		group.calls += 1;
		group.secsCall += cdr.secs_call;
		group.secsBilled += cdr.secs_billed;
		group.charge += cdr.chg_total;
	}
	return [...groups.values()].map((g) => ({
		...g.row,
		calls: g.calls,
		secs_call: g.secsCall,
		secs_billed: g.secsBilled,
		minutes: round(g.secsBilled / 60, 2),
		chg_total: round(g.charge, 4),
		currency,
	}));
}

export const SUMMARY_KEYS = {
	destination: (c: Cdr): [string, Record<string, unknown>] => [String(c.dest_id), { destination: c.todesc, dest_id: c.dest_id, iso: c.iso }],
	country: (c: Cdr): [string, Record<string, unknown>] => [c.iso, { country: c.iso }],
	trunk: (c: Cdr): [string, Record<string, unknown>] => [c.trunk, { trunk: c.trunk }],
	tag: (c: Cdr): [string, Record<string, unknown>] => [c.tag, { tag: c.tag }],
	day: (c: Cdr): [string, Record<string, unknown>] => [ymd(c.calldate), { day: ymd(c.calldate) }],
	hour: (c: Cdr): [string, Record<string, unknown>] => {
		const hour = `${new Date(c.calldate).toISOString().slice(0, 13).replace('T', ' ')}:00:00`;
		return [hour, { hour }];
	},
} as const;
export type SummaryKey = keyof typeof SUMMARY_KEYS;

/** The fields that name a row of each summary key. */
export const KEY_FIELDS: Record<SummaryKey, string[]> = {
	destination: ['destination', 'dest_id', 'iso'],
	country: ['country'],
	trunk: ['trunk'],
	tag: ['tag'],
	day: ['day'],
	hour: ['hour'],
};

function balanceSummary(account: Account, from: string, to: string): Array<Record<string, unknown>> {
	const today = startOfDay(currentTime());
	const first = parseGmt(from);
	const last = parseGmt(to);
	const sumOn = <T>(items: T[], time: (item: T) => number, value: (item: T) => number, day: number) =>
		items.filter((item) => time(item) >= day && time(item) < day + DAY_MS).reduce((sum, item) => sum + value(item), 0);
	const rows: Array<Record<string, unknown>> = [];
	let closing = account.balance;
	for (let day = today; day >= first; day -= DAY_MS) {
		const prepayments = sumOn(account.prepayments, (p) => p.datetime, (p) => p.amount, day);
		const transfersIn = sumOn(account.transfers.filter((t) => t.to_account === account.id), (t) => t.datetime, (t) => t.amount, day);
		const transfersOut = sumOn(account.transfers.filter((t) => t.from_account === account.id), (t) => t.datetime, (t) => t.amount, day);
		const voice = sumOn(account.cdrs, (c) => c.calldate, (c) => c.chg_total, day);
		const sms = sumOn(account.smsCdrs, (s) => s.datetime, (s) => s.chg_total, day);
		const other = sumOn(account.charges, (c) => c.datetime, (c) => c.amount, day);
		const opening = closing - prepayments - transfersIn + transfersOut + voice + sms + other;
		if (day <= last) {
			rows.unshift({
				date: ymd(day),
				opening_balance: round(opening, 4),
				prepayments: round(prepayments, 2),
				transfers_in: round(transfersIn, 2),
				transfers_out: round(transfersOut, 2),
				voice: round(voice, 4),
				sms: round(sms, 4),
				other: round(other, 2),
				closing_balance: round(closing, 4),
				currency: account.currency,
			});
		}
		closing = opening;
	}
	return rows;
}

/** The JSON of a report: an array of records (CDRs, SMS CDRs, summary rows, or days of the balance). */
export function reportContent(account: Account, report: Report): unknown {
	const inDay = <T>(items: T[], time: (item: T) => number): T[] => {
		const [start, end] = dayBounds(report.date ?? ymd(currentTime()));
		return items.filter((item) => time(item) >= start && time(item) < end);
	};
	switch (report.type) {
		case 'voice_cdr':
			return (report.mode === 'day' ? inDay(account.cdrs, (c) => c.calldate) : account.cdrs.slice(-(report.count ?? 10))).map(cdrDocument);
		case 'sms_cdr':
			return (report.mode === 'day' ? inDay(account.smsCdrs, (s) => s.datetime) : account.smsCdrs.slice(-(report.count ?? 10))).map(smsDocument);
		case 'voice_summary': {
			const cdrs = inDay(account.cdrs, (c) => c.calldate).filter((c) => c.direction === report.mode);
			return summarise(cdrs, 'destination', account.currency).sort((x, y) => Number(y.chg_total) - Number(x.chg_total) || Number(y.calls) - Number(x.calls));
		}
		case 'balance_summary':
			return balanceSummary(account, report.from ?? ymd(currentTime()), report.to ?? ymd(currentTime()));
	}
}

// ---- routes ---------------------------------------------------------------------------

/** A report date (`YYYY-MM-DD`, default today) within the last 90 days and not in the future. */
export function checkReportDate(name: string, value: string | undefined): string {
	const today = ymd(currentTime());
	if (value === undefined || value === '') return today;
	const time = /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseGmt(value) : Number.NaN;
	if (Number.isNaN(time)) throw failure(400, `${name} must be a date YYYY-MM-DD`);
	if (time < windowStart(currentTime(), CDR_WINDOW_DAYS)) throw failure(400, `${name} ${value} is more than ${CDR_WINDOW_DAYS} days ago`);
	if (value > today) throw failure(400, `${name} ${value} is in the future`);
	return value;
}

export function reportDate(req: WsRequest, name: string): string {
	return checkReportDate(name, text(req, name));
}

function callbackParam(req: WsRequest): string | null {
	const value = text(req, 'callback');
	if (value === undefined || value === '') return null;
	try {
		const url = new URL(value);
		if (url.protocol === 'http:' || url.protocol === 'https:') return value;
	} catch {
		// refused below
	}
	throw failure(400, 'callback must be an absolute http(s) URL');
}

function latestCount(value: string): number {
	const count = Number(value);
	if (!LATEST_COUNTS.includes(count) || !/^\d+$/.test(value)) {
		throw failure(404, `Unsupported count ${value}: use one of ${LATEST_COUNTS.join(', ')}`);
	}
	return count;
}

export function reportRoutes(r: Router, m: WholesaleSandbox): void {
	const answer = (req: WsRequest, res: Parameters<typeof reply>[1], spec: ReportSpec) =>
		reply(req, res, m.reports.handle(m.reports.request(req.account, spec)));

	on(r, 'POST', '/accounts/:account/reports/voice/summary/day/:direction', (req, res) => {
		const direction = req.params.direction;
		if (direction !== 'in' && direction !== 'out') throw failure(404, `Unsupported direction ${direction}: use in or out`);
		const date = reportDate(req, 'date');
		answer(req, res, { type: 'voice_summary', mode: direction, date, callback: callbackParam(req) });
	});
	on(r, 'POST', '/accounts/:account/reports/voice/cdr/day', (req, res) =>
		answer(req, res, { type: 'voice_cdr', mode: 'day', date: reportDate(req, 'date'), callback: callbackParam(req) }),
	);
	on(r, 'POST', '/accounts/:account/reports/voice/cdr/latest/:count', (req, res) => {
		const count = latestCount(req.params.count);
		answer(req, res, { type: 'voice_cdr', mode: 'latest', count, date: ymd(currentTime()), callback: callbackParam(req) });
	});
	on(r, 'POST', '/accounts/:account/reports/sms/cdr/day', (req, res) =>
		answer(req, res, { type: 'sms_cdr', mode: 'day', date: reportDate(req, 'date'), callback: callbackParam(req) }),
	);
	on(r, 'POST', '/accounts/:account/reports/sms/cdr/latest/:count', (req, res) => {
		const count = latestCount(req.params.count);
		answer(req, res, { type: 'sms_cdr', mode: 'latest', count, date: ymd(currentTime()), callback: callbackParam(req) });
	});
	on(r, 'POST', '/accounts/:account/prepay/summary', (req, res) => {
		const from = reportDate(req, 'from_date');
		const to = reportDate(req, 'to_date');
		if (from > to) throw failure(400, `from_date ${from} is after to_date ${to}`);
		answer(req, res, { type: 'balance_summary', mode: null, from, to, callback: callbackParam(req) });
	});

	on(r, 'GET', '/files/:account', (req, res) => reply(req, res, m.reports.files(req.account.id)));
	on(r, 'GET', '/files/:account/:hash', (req, res) => {
		const report = m.reports.find(req.account.id, req.params.hash);
		if (!report || (report.state !== 'running' && report.state !== 'ready')) {
			throw failure(404, `File ${req.params.hash} not found: it was collected, has expired (files are kept ${Math.round(m.settings.reportRetentionMs / 1000)} s), or never existed`);
		}
		if (report.state === 'running') {
			send(res, 204);
			return;
		}
		const content = report.content as Buffer;
		report.state = 'collected';
		report.collectedAt = currentTime();
		report.content = null;
		send(res, 200, content, {
			'Content-Type': 'application/json',
			'Content-Disposition': `attachment; filename="${report.name}"`,
		});
	});

	// Inline summaries: GET or POST, with or without a direction.
	const summary = (req: WsRequest, res: Parameters<typeof reply>[1]) => {
		const direction = req.params.direction;
		if (direction !== undefined && direction !== 'in' && direction !== 'out') {
			throw failure(404, `Unsupported direction ${direction}: use in or out, or leave it out for both`);
		}
		const key = req.params.key;
		if (!Object.hasOwn(SUMMARY_KEYS, key)) {
			throw failure(404, `Unknown summary key ${key}: use one of ${Object.keys(SUMMARY_KEYS).join(', ')}`);
		}
		const now = currentTime();
		const start = dateTimeParam(req, 'date_start', startOfDay(now), windowStart(now), `last ${CDR_WINDOW_DAYS} days`);
		const limit = integerParam(req, 'limit', 9999);
		if (Number.isNaN(limit) || limit < 1) throw failure(400, 'limit must be a whole number of 1 or more');
		const filter: CdrFilter = readFilter(req);
		const cdrs = req.account.cdrs.filter(
			(c) => c.calldate >= start && c.calldate <= now && (direction === undefined || c.direction === direction) && matchesFilter(c, filter),
		);
		const rows = summarise(cdrs, key as SummaryKey, req.account.currency);
		const sort = text(req, 'sort') || key;
		const sortable = [...KEY_FIELDS[key as SummaryKey], 'calls', 'secs_call', 'secs_billed', 'minutes', 'chg_total'];
		if (!sortable.includes(sort)) throw failure(400, `Unknown sort key ${sort}: use one of ${sortable.join(', ')}`);
		rows.sort((x, y) => {
			const a = x[sort];
			const b = y[sort];
			return typeof a === 'number' && typeof b === 'number' ? b - a : String(a).localeCompare(String(b));
		});
		reply(req, res, ok(rows.slice(0, limit)));
	};
	on(r, ['GET', 'POST'], '/accounts/:account/summary/:key', summary);
	on(r, ['GET', 'POST'], '/accounts/:account/summary/:direction/:key', summary);
}

/** Admin helpers for reports. */
export function parseNextReport(body: unknown): NextReport {
	if (!isRecord(body)) throw new HttpError(400, { message: 'A JSON object body is required' });
	const next: NextReport = {};
	if (body.type !== undefined) {
		if (!['voice_summary', 'voice_cdr', 'sms_cdr', 'balance_summary'].includes(String(body.type))) {
			throw new HttpError(400, { message: 'type must be voice_summary, voice_cdr, sms_cdr or balance_summary' });
		}
		next.type = body.type as ReportType;
	}
	if (body.rows !== undefined) {
		if (!Number.isInteger(body.rows) || Number(body.rows) < 0 || Number(body.rows) > 1_000_000) throw new HttpError(400, { message: 'rows must be 0 to 1000000' });
		next.rows = Number(body.rows);
	}
	if (body.readyMs !== undefined) {
		if (!Number.isInteger(body.readyMs) || Number(body.readyMs) < 0) throw new HttpError(400, { message: 'readyMs must be a whole number of 0 or more' });
		next.readyMs = Number(body.readyMs);
	}
	if (body.malformed !== undefined) next.malformed = body.malformed === true;
	return next;
}
