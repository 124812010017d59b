import { currentTime } from '../core/clock';
import type { Destination } from './destinations';
import { destinationOf, destinations } from './destinations';
import type { Random } from './php';
import { DAY_MS, digits, hexOf, md5, pick, prng, round, seedOf, startOfDay } from './php';

/**
 * Demo data of the Wholesale Voice sandbox: two accounts, each with its API credentials,
 * billing history, trunks, numbers (UK and US), CDRs, calls in progress, notifications and
 * ports. Everything is generated from fixed seeds, relative to the time of the (re)seed.
 */

export type AccountType = 'developer' | 'startup' | 'virtual_interconnect' | 'managed_interconnect';
export type Currency = 'GBP' | 'EUR' | 'USD';

export const ACCOUNT_TYPE_LIMITS: Record<AccountType, { number_limit: number; channel_limit: number; min_prepay: number }> = {
	developer: { number_limit: 10, channel_limit: 30, min_prepay: 0 },
	startup: { number_limit: 100, channel_limit: 60, min_prepay: 50 },
	virtual_interconnect: { number_limit: 1000, channel_limit: 300, min_prepay: 500 },
	managed_interconnect: { number_limit: 10000, channel_limit: 1000, min_prepay: 2500 },
};

export interface Invoice {
	number: string;
	date: number;
	due: number;
	currency: Currency;
	net: number;
	vat: number;
	paid: number;
	credited: number;
}

export interface Prepayment {
	id: string;
	datetime: number;
	amount: number;
	currency: Currency;
	method: 'card' | 'bank_transfer' | 'direct_debit';
	reference: string;
}

export interface Transfer {
	id: string;
	datetime: number;
	from_account: string;
	to_account: string;
	amount: number;
	currency: Currency;
	reference: string;
}

export const TRUNK_CONCURRENT_OPTIONS = [
	'limit_concurrent_out',
	'limit_concurrent_out_international',
	'limit_concurrent_out_international_hotspot',
	'limit_concurrent_out_per_number',
	'limit_concurrent_in',
] as const;
export const TRUNK_RATE_OPTIONS = [
	'limit_rate_out',
	'limit_rate_out_international',
	'limit_rate_out_international_hotspot',
	'limit_rate_out_per_number',
] as const;

export interface Trunk {
	name: string;
	type: 'IP' | 'auth';
	/** SIP user of an auth trunk (the trunk name). */
	username: string | null;
	/** Kept only to show that it exists; never returned after creation. */
	password: string | null;
	ips: string[];
	enabled: 0 | 1;
	enable_in: 0 | 1;
	enabled_out: 0 | 1;
	limits: Record<string, number | string | null>;
	cli_format: string;
	created: number;
}

export interface E911Record {
	address: Record<string, string>;
	provisionedAddress: Record<string, string> | null;
	activatedAt: number;
	status: string;
}

export interface AllocatedNumber {
	number: string;
	allocated: number;
	config: Record<string, unknown> | null;
	trunk: string | null;
	sms: { mode: 'http' | 'http_json'; endpoint: string } | null;
	uk999: Record<string, string> | null;
	e911: E911Record | null;
}

export interface Cdr {
	call_id: string;
	cdr_id: string;
	calldate: number;
	direction: 'in' | 'out';
	nts_source: string;
	trunk: string;
	tag: string;
	from: string;
	to: string;
	dest_id: number;
	todesc: string;
	iso: string;
	secs_call: number;
	secs_billed: number;
	chg_total: number;
	currency: Currency;
}

export interface SmsCdr {
	sms_id: string;
	datetime: number;
	direction: 'in' | 'out';
	from: string;
	to: string;
	dest_id: number;
	desc: string;
	iso: string;
	parts: number;
	status: number;
	chg_total: number;
	currency: Currency;
}

export interface CallInProgress {
	call_id: string;
	sip_call_id: string;
	direction: 'in' | 'out';
	from: string;
	to: string;
	dest_id: number;
	desc: string;
	iso: string;
	country: string;
	trunk: string;
	tag: string;
	started: number;
	answeredAt: number | null;
	/** Per minute, in the account currency. */
	rate: number;
	connection: number;
}

export interface RejectedCall {
	datetime: number;
	direction: 'in' | 'out';
	from: string;
	to: string;
	trunk: string;
	tag: string;
	reason: string;
	desc: string;
	iso: string;
	q850: number;
}

export type NotificationMethod = 'email' | 'sms';

export interface Recipient {
	type: string;
	method: NotificationMethod;
	destination: string;
	hash: string;
	added: number;
}

export interface HistoryItem {
	datetime: number;
	class: string;
	type: string;
	method: NotificationMethod;
	destination: string;
	subject: string;
	data: Record<string, unknown>;
}

export const PORT_STATUSES = {
	received: 'rcvd',
	rejected: 'rej',
	rejected_lcp: 'rej_lcp',
	rejected_rh: 'rej_rh',
	submitted_lcp: 'sub_lcp',
	submitted_rh: 'sub_rh',
	accepted_lcp: 'acc_lcp',
	accepted_rh: 'acc_rh',
	accepted: 'acc',
	complete: 'comp',
	cancel_own: 'can_own',
	cancel_other: 'can_oth',
	raised_error: 'err',
	exception: 'exc',
} as const;
export type PortStatus = keyof typeof PORT_STATUSES;

export interface PortEvent {
	date: number;
	status: PortStatus;
	info?: string;
}

export interface Port {
	ref: number;
	account: string;
	submitted: number;
	/** The customer required date: the requested port date, or the guide lead time from submission. */
	crd: number;
	status: PortStatus;
	portDate: number | null;
	submission: Record<string, unknown>;
	events: PortEvent[];
}

export interface Charge {
	datetime: number;
	description: string;
	amount: number;
}

export interface DynamicLimits {
	active: boolean;
	reason: string | null;
	limit_concurrent_in: number | null;
	limit_concurrent_out: number | null;
	limit_rate_out: string | null;
}

export interface Account {
	id: string;
	username: string;
	password: string;
	company: string;
	type: AccountType;
	currency: Currency;
	/** NANPA (US) numbering enabled: e911 works only where it is. */
	nanpa: boolean;
	balance: number;
	alertBalance: number;
	locked: number;
	limits: {
		limit_concurrent_in: number;
		limit_concurrent_out: number;
		channel_allocation: number;
		channel_allocation_adjustable: boolean;
		channel_allocation_global_numbers: number;
		dynamic: DynamicLimits;
	};
	invoices: Invoice[];
	prepayments: Prepayment[];
	transfers: Transfer[];
	trunks: Trunk[];
	numbers: Map<string, AllocatedNumber>;
	cdrs: Cdr[];
	nextCdrId: number;
	/** CDR webhooks sent so far: each one carries the next of the recent CDRs, as each call ends once. */
	cdrWebhooksSent: number;
	smsCdrs: SmsCdr[];
	calls: CallInProgress[];
	rejected: RejectedCall[];
	recipients: Recipient[];
	history: HistoryItem[];
	charges: Charge[];
}

export interface WholesaleData {
	accounts: Map<string, Account>;
	ports: Port[];
	nextPortRef: number;
	/** When the data was seeded: relative times are computed from it. */
	seededAt: number;
}

export const LCPS: Array<{ cpName: string; cupid: string }> = [
	{ cpName: 'BT', cupid: '001' },
	{ cpName: 'KCOM', cupid: '004' },
	{ cpName: 'Vodafone', cupid: '010' },
	{ cpName: 'Colt Technology Services', cupid: '012' },
	{ cpName: 'Virgin Media', cupid: '015' },
	{ cpName: 'O2 (Telefónica UK)', cupid: '018' },
	{ cpName: 'Sky UK', cupid: '035' },
	{ cpName: 'TalkTalk', cupid: '041' },
	{ cpName: 'Gamma Telecom', cupid: '117' },
	{ cpName: 'Daisy Communications', cupid: '238' },
	{ cpName: 'Telecom 10', cupid: '276' },
	{ cpName: 'Simwood eSMS', cupid: '303' },
];

export const NOTIFICATION_TYPES: Array<{ type: string; class: string; description: string }> = [
	{ type: 'low_balance', class: 'billing', description: 'The prepay balance fell below the alert balance (at most one a day)' },
	{ type: 'billing', class: 'billing', description: 'Invoices, payments and prepay top-ups' },
	{ type: 'trunk', class: 'trunk', description: 'Trunks added, removed or changed' },
	{ type: 'porting', class: 'porting', description: 'Status changes of number ports' },
];

const TAGS = ['', '', 'sales', 'support', 'campaign-42', 'night-desk'];

/** A random number of a destination: its prefix padded with digits to a plausible length. */
export function numberIn(random: Random, destination: Destination): string {
	const length = destination.prefix.startsWith('1') ? 11 : destination.prefix.startsWith('44') ? 12 : 11 + Math.floor(random() * 2);
	return destination.prefix + digits(random, Math.max(4, length - destination.prefix.length));
}

let pools: { uk: Destination[]; us: Destination[]; any: Destination[]; ukMobile: Destination[]; mobile: Destination[] } | undefined;

/** Destinations by kind, built once. */
function destinationPools() {
	const all = destinations();
	pools ??= {
		uk: all.filter((d) => d.iso === 'GB' && d.kind !== 'special'),
		us: all.filter((d) => d.iso === 'US'),
		any: all.filter((d) => d.kind !== 'special'),
		ukMobile: all.filter((d) => d.iso === 'GB' && d.kind === 'mobile'),
		mobile: all.filter((d) => d.kind === 'mobile'),
	};
	return pools;
}

function pickDestination(random: Random): Destination {
	const roll = random();
	const p = destinationPools();
	return pick(random, roll < 0.45 ? p.uk : roll < 0.6 ? p.us : p.any);
}

/** Billed seconds after the destination's minimum and increment. */
export function billedSeconds(destination: Destination | undefined, seconds: number): number {
	if (!destination) return seconds;
	const minimum = Math.max(seconds, destination.minimumSec);
	return Math.ceil(minimum / destination.incrementSec) * destination.incrementSec;
}

export function charge(destination: Destination | undefined, billed: number): number {
	if (!destination) return 0;
	return round((destination.day / 60) * billed + destination.connection, 4);
}

/** What a CDR picks from: the account's UK numbers and its trunk names (worked out once for many CDRs). */
export function cdrChoices(account: Account): { ownNumbers: string[]; trunks: string[] } {
	return { ownNumbers: [...account.numbers.keys()].filter((n) => n.startsWith('44')), trunks: account.trunks.map((t) => t.name) };
}

/** One CDR as the account's traffic would produce it, seeded by `random`. */
export function makeCdr(random: Random, account: Account, time: number, seq: number, choices = cdrChoices(account)): Cdr {
	const { ownNumbers, trunks } = choices;
	const outbound = random() < 0.72;
	const secs = Math.max(3, Math.round(-Math.log(1 - random()) * 170));
	if (outbound) {
		const destination = pickDestination(random);
		const billed = billedSeconds(destination, secs);
		return {
			call_id: hexOf(random, 24),
			cdr_id: String(seq),
			calldate: time,
			direction: 'out',
			nts_source: '',
			trunk: pick(random, trunks),
			tag: pick(random, TAGS),
			from: ownNumbers.length ? pick(random, ownNumbers) : `44163296${digits(random, 4)}`,
			to: numberIn(random, destination),
			dest_id: destination.destId,
			todesc: destination.location,
			iso: destination.iso,
			secs_call: secs,
			secs_billed: billed,
			chg_total: charge(destination, billed),
			currency: account.currency,
		};
	}
	const to = ownNumbers.length ? pick(random, ownNumbers) : `44163296${digits(random, 4)}`;
	const destination = destinationOf(to);
	const caller = pick(random, destinationPools().ukMobile);
	return {
		call_id: hexOf(random, 24),
		cdr_id: String(seq),
		calldate: time,
		direction: 'in',
		nts_source: random() < 0.1 ? `44800${digits(random, 7)}` : '',
		trunk: `${account.id}-L001`,
		tag: '',
		from: numberIn(random, caller),
		to,
		dest_id: destination?.destId ?? 0,
		todesc: destination?.location ?? 'Unknown',
		iso: destination?.iso ?? 'GB',
		secs_call: secs,
		secs_billed: secs,
		chg_total: 0,
		currency: account.currency,
	};
}

export function makeSmsCdr(random: Random, account: Account, time: number, seq: number): SmsCdr {
	const outbound = random() < 0.8;
	const mobile = pick(random, random() < 0.7 ? destinationPools().ukMobile : destinationPools().mobile);
	const other = numberIn(random, mobile);
	const own = [...account.numbers.keys()].find((n) => /^447/.test(n)) ?? `447700900${digits(random, 3)}`;
	const parts = random() < 0.8 ? 1 : 2;
	return {
		sms_id: `${account.id}${String(seq).padStart(8, '0')}`,
		datetime: time,
		direction: outbound ? 'out' : 'in',
		from: outbound ? own : other,
		to: outbound ? other : own,
		dest_id: mobile.destId,
		desc: mobile.location,
		iso: mobile.iso,
		parts,
		status: outbound ? pick(random, [11, 11, 11, 11, 2, 12, 14]) : 11,
		chg_total: outbound ? round(parts * (mobile.iso === 'GB' ? 0.035 : 0.06), 4) : 0,
		currency: account.currency,
	};
}

function trunk(name: string, type: 'IP' | 'auth', created: number, extra: Partial<Trunk> = {}): Trunk {
	return {
		name,
		type,
		username: type === 'auth' ? name : null,
		password: type === 'auth' ? md5(`seed-${name}`).slice(0, 16) : null,
		ips: type === 'IP' ? ['203.0.113.10'] : [],
		enabled: 1,
		enable_in: 1,
		enabled_out: 1,
		limits: Object.fromEntries([...TRUNK_CONCURRENT_OPTIONS, ...TRUNK_RATE_OPTIONS].map((k) => [k, null])),
		cli_format: 'e164',
		created,
		...extra,
	};
}

function number(value: string, allocated: number, extra: Partial<AllocatedNumber> = {}): [string, AllocatedNumber] {
	return [value, { number: value, allocated, config: null, trunk: null, sms: null, uk999: null, e911: null, ...extra }];
}

/** Monthly invoices, newest first: the newest is 10 days old (due in 20 days), the one before it is overdue when unpaid. */
function invoices(random: Random, accountId: string, currency: Currency, months: number, now: number, unpaid: number): Invoice[] {
	const out: Invoice[] = [];
	for (let k = months - 1; k >= 0; k--) {
		const date = startOfDay(now) - (10 + k * 30) * DAY_MS;
		const net = round(80 + random() * 320, 2);
		const vat = currency === 'GBP' ? round(net * 0.2, 2) : 0;
		const credited = k === 5 ? 10 : 0;
		out.push({
			number: String(700000 + (months - 1 - k) * 17 + Number(accountId.slice(-2))),
			date,
			due: date + 30 * DAY_MS,
			currency,
			net,
			vat,
			credited,
			paid: k < unpaid ? 0 : round(net + vat - credited, 2),
		});
	}
	return out.reverse();
}

function seedAccount(
	id: string,
	settings: {
		password: string;
		company: string;
		type: AccountType;
		currency: Currency;
		nanpa: boolean;
		balance: number;
		alertBalance: number;
		locked: number;
		limits: Account['limits'];
		invoiceMonths: number;
		unpaid: number;
	},
	now: number,
): Account {
	const random = prng(seedOf(`account-${id}`));
	return {
		id,
		username: `api${id}`,
		password: settings.password,
		company: settings.company,
		type: settings.type,
		currency: settings.currency,
		nanpa: settings.nanpa,
		balance: settings.balance,
		alertBalance: settings.alertBalance,
		locked: settings.locked,
		limits: settings.limits,
		invoices: invoices(random, id, settings.currency, settings.invoiceMonths, now, settings.unpaid),
		prepayments: [],
		transfers: [],
		trunks: [],
		numbers: new Map(),
		cdrs: [],
		nextCdrId: 880_000_001,
		cdrWebhooksSent: 0,
		smsCdrs: [],
		calls: [],
		rejected: [],
		recipients: [],
		history: [],
		charges: [],
	};
}

/** The sparse history back to 95 days (two calls a day from day 8): the 90-day window has something at its edge. */
const HISTORY_DAYS = { first: 8, last: 95, calls: 2 };

/**
 * The account's traffic (CDRs and SMS CDRs), made on first read: most requests never look at it,
 * and its records are most of a seed's time. It is made from the account as seeded (a number or
 * trunk added before the first read changes nothing), and the CDR ids it takes are reserved now.
 */
function fillTraffic(account: Account, now: number, cdrCount: number, smsCount: number): void {
	const seeded: Account = { ...account, numbers: new Map(account.numbers), trunks: [...account.trunks] };
	const firstId = account.nextCdrId;
	account.nextCdrId += cdrCount + (HISTORY_DAYS.last - HISTORY_DAYS.first + 1) * HISTORY_DAYS.calls;
	let traffic: Pick<Account, 'cdrs' | 'smsCdrs'> | undefined;
	const made = () => (traffic ??= makeTraffic(seeded, now, cdrCount, smsCount, firstId));
	for (const key of ['cdrs', 'smsCdrs'] as const) {
		Object.defineProperty(account, key, {
			enumerable: true,
			configurable: true,
			get: () => made()[key],
			set: (value: Account[typeof key]) => void Object.assign(made(), { [key]: value }),
		});
	}
}

function makeTraffic(account: Account, now: number, cdrCount: number, smsCount: number, firstId: number): Pick<Account, 'cdrs' | 'smsCdrs'> {
	const random = prng(seedOf(`traffic-${account.id}`));
	const week = 7 * DAY_MS;
	const times: number[] = [];
	for (let i = 0; i < cdrCount; i++) times.push(now - Math.floor(random() * week) - 60_000);
	for (let day = HISTORY_DAYS.first; day <= HISTORY_DAYS.last; day++) {
		for (let j = 0; j < HISTORY_DAYS.calls; j++) times.push(startOfDay(now) - day * DAY_MS + Math.floor(random() * DAY_MS));
	}
	times.sort((a, b) => a - b);
	const choices = cdrChoices(account);
	const cdrs = times.map((time, i) => makeCdr(random, account, time, firstId + i, choices));
	const smsTimes: number[] = [];
	for (let i = 0; i < smsCount; i++) smsTimes.push(now - Math.floor(random() * week) - 60_000);
	smsTimes.sort((a, b) => a - b);
	return { cdrs, smsCdrs: smsTimes.map((time, i) => makeSmsCdr(random, account, time, i + 1)) };
}

export function makeCall(
	random: Random,
	account: Account,
	input: { direction: 'in' | 'out'; from?: string; to?: string; trunk?: string; tag?: string; started: number; answered: boolean },
): CallInProgress {
	const to = input.to ?? (input.direction === 'out' ? numberIn(random, pickDestination(random)) : [...account.numbers.keys()][0]);
	const destination = destinationOf(to);
	return {
		call_id: hexOf(random, 24),
		sip_call_id: `${hexOf(random, 16)}@sip.wholesale.example`,
		direction: input.direction,
		from: input.from ?? (input.direction === 'out' ? [...account.numbers.keys()][0] : `447700900${digits(random, 3)}`),
		to,
		dest_id: destination?.destId ?? 0,
		desc: destination?.location ?? 'Unknown',
		iso: destination?.iso ?? 'ZZ',
		country: destination?.country ?? 'Unknown',
		trunk: input.trunk ?? `${account.id}-L001`,
		tag: input.tag ?? '',
		started: input.started,
		answeredAt: input.answered ? input.started + 6000 : null,
		rate: input.direction === 'out' ? (destination?.day ?? 0) : 0,
		connection: input.direction === 'out' ? (destination?.connection ?? 0) : 0,
	};
}

function history(account: Account, now: number): void {
	const random = prng(seedOf(`history-${account.id}`));
	const email = account.recipients.find((r) => r.method === 'email')?.destination ?? `ops@${account.id}.example.com`;
	const items: HistoryItem[] = [];
	for (let day = 1; day <= 75; day += 3) {
		const datetime = startOfDay(now) - day * DAY_MS + Math.floor(random() * DAY_MS);
		const kind = day % 4;
		if (kind === 0) {
			items.push({
				datetime, class: 'billing', type: 'low_balance', method: 'email', destination: email,
				subject: 'Low balance warning',
				data: { account: account.id, balance: (30 + random() * 20).toFixed(2), alert_balance: String(account.alertBalance), currency: account.currency },
			});
		} else if (kind === 1) {
			const name = `${account.id}-temp${day}`;
			items.push({
				datetime, class: 'trunk', type: 'trunk', method: 'email', destination: email,
				subject: `Trunk ${name} created`,
				data: { account: account.id, trunk: name, type: 'auth', username: name, password: '######', registrar: 'sip.wholesale.example' },
			});
		} else if (kind === 2) {
			items.push({
				datetime, class: 'billing', type: 'billing', method: 'email', destination: email,
				subject: 'Prepay top-up received',
				data: { account: account.id, amount: '100.00', currency: account.currency, reference: `TOPUP-${digits(random, 6)}` },
			});
		} else {
			items.push({
				datetime, class: 'porting', type: 'porting', method: 'email', destination: email,
				subject: 'Port status changed',
				data: { account: account.id, orderid: 40001, status: 'accepted_lcp', mbn: '01632960100' },
			});
		}
	}
	account.history = items.sort((a, b) => a.datetime - b.datetime);
}

function recipient(type: string, method: NotificationMethod, destination: string, added: number): Recipient {
	return { type, method, destination, hash: md5(destination), added };
}

function portSubmission(mbn: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		mbn,
		lcp: 'BT',
		lcp_cupid: '001',
		contact_email: 'porting@reseller.example.com',
		account_number: 'BT-99120044',
		billing_postcode: 'LS1 4AP',
		type: 'single',
		lines: 1,
		channels: 2,
		customer: {
			title: 'Ms', forename: 'Jane', name: 'Smith', company: 'Acme Widgets', bussuffix: 'Ltd',
			premises: 'Unit 4', thoroughfare: 'Wellington Street', locality: 'Leeds', postcode: 'LS1 4AP',
			loa_initial: 'J', loa_surname: 'Smith',
		},
		numbers: [{ number: mbn, type: 'mbn', action: 'port' }],
		...extra,
	};
}

export function seedWholesale(now = currentTime()): WholesaleData {
	const day = (n: number) => now - n * DAY_MS;
	const a = seedAccount(
		'123456',
		{
			password: 'wv-demo-123456',
			company: 'Acme Voice Ltd',
			type: 'developer',
			currency: 'GBP',
			nanpa: true,
			balance: 1234.5678,
			alertBalance: 50,
			locked: 100,
			limits: {
				limit_concurrent_in: 10,
				limit_concurrent_out: 20,
				channel_allocation: 30,
				channel_allocation_adjustable: true,
				channel_allocation_global_numbers: 4,
				dynamic: { active: false, reason: null, limit_concurrent_in: null, limit_concurrent_out: null, limit_rate_out: null },
			},
			invoiceMonths: 18,
			unpaid: 2,
		},
		now,
	);
	a.trunks = [
		trunk('123456-L001', 'IP', day(400)),
		trunk('123456-office', 'auth', day(200)),
		trunk('123456-dialler', 'auth', day(60), {
			limits: {
				...trunk('x', 'auth', 0).limits,
				limit_concurrent_out: 10,
				limit_concurrent_out_international: 2,
				limit_rate_out: '5/10s',
			},
		}),
	];
	a.numbers = new Map([
		number('441632960001', day(380), {
			config: {
				routing: {
					default: [
						[{ type: 'sip', endpoint: '%e164@pbx.acme.example:5060', sdes: 'none' }],
						[{ type: 'pstn', number: '447700900123', maxcpm: 0.05, trunk: '123456-office' }],
					],
				},
				meta: { key: 'reception', site: 'Leeds' },
			},
			uk999: { name: 'Acme Voice', bussuffix: 'Ltd', premises: 'Unit 4', thoroughfare: 'Wellington Street', locality: 'Leeds', postcode: 'LS1 4AP' },
		}),
		number('441632960002', day(300), {
			config: {
				rules: { office_hours: [{ days: 'mon-fri', from: '09:00', to: '17:30' }] },
				routing: {
					office_hours: [[{ type: 'sip', endpoint: 'sales@pbx.acme.example', zone: 'lon' }, { type: 'sip', endpoint: 'sales@pbx2.acme.example' }]],
					default: [[{ type: 'busy' }]],
				},
			},
		}),
		number('442079460123', day(250), { config: { routing: { default: [[{ type: 'teams' }]] } }, trunk: '123456-office' }),
		number('443069990000', day(240), { config: { routing: { default: [[{ type: 'fax', method: 'mail', endpoint: 'fax@acme.example' }]] } } }),
		number('447700900123', day(200), { sms: { mode: 'http_json', endpoint: 'https://sms.acme.example/inbound' } }),
		number('447700900456', day(100)),
		number('12025550143', day(90), {
			e911: {
				address: { name: 'Acme Voice DC Office', streetNum: '1600', streetInfo: 'Pennsylvania Ave NW', location: 'Suite 200', city: 'Washington', state: 'DC', postalCode: '20500' },
				// A record migrated from the previous provider: it holds no provisioned form of its own.
				provisionedAddress: null,
				activatedAt: day(89),
				status: 'In Service',
			},
		}),
		number('14155550100', day(30)),
	]);
	a.prepayments = Array.from({ length: 14 }, (_, i) => ({
		id: `PP${String(81200 + i * 7)}`,
		datetime: now - (14 - i) * 26 * DAY_MS + 37_000_000,
		amount: [50, 100, 250, 100][i % 4],
		currency: a.currency,
		method: (['card', 'bank_transfer', 'card', 'direct_debit'] as const)[i % 4],
		reference: `TOPUP-${123456 + i * 1111}`,
	}));
	a.transfers = Array.from({ length: 4 }, (_, i) => ({
		id: `TR${String(5100 + i)}`,
		datetime: now - (4 - i) * 40 * DAY_MS,
		from_account: i % 2 === 0 ? '123456' : '123457',
		to_account: i % 2 === 0 ? '123457' : '123456',
		amount: [25, 10, 40, 15][i],
		currency: a.currency,
		reference: i % 2 === 0 ? 'Float for sub-account 123457' : 'Unused float returned',
	}));
	a.recipients = [
		recipient('low_balance', 'email', 'ops@acme.example', day(300)),
		recipient('low_balance', 'sms', '447700900999', day(300)),
		recipient('trunk', 'email', 'noc@acme.example', day(200)),
		recipient('porting', 'email', 'porting@acme.example', day(120)),
	];

	const b = seedAccount(
		'654321',
		{
			password: 'wv-demo-654321',
			company: 'Brightline Communications Inc.',
			type: 'startup',
			currency: 'USD',
			nanpa: false,
			balance: 4.2,
			alertBalance: 10,
			locked: 0,
			limits: {
				limit_concurrent_in: 20,
				limit_concurrent_out: 20,
				channel_allocation: 0,
				channel_allocation_adjustable: false,
				channel_allocation_global_numbers: 2,
				// A low balance has reduced the usual limits.
				dynamic: { active: true, reason: 'low_balance', limit_concurrent_in: null, limit_concurrent_out: 2, limit_rate_out: '1/10s' },
			},
			invoiceMonths: 12,
			unpaid: 0,
		},
		now,
	);
	b.trunks = [trunk('654321-L001', 'IP', day(500)), trunk('654321-pbx', 'auth', day(150))];
	b.numbers = new Map([
		number('441134960000', day(160), { config: { routing: { default: [[{ type: 'sip', endpoint: 'main@pbx.brightline.example' }]] } } }),
		number('12125550199', day(140)),
	]);
	b.prepayments = Array.from({ length: 3 }, (_, i) => ({
		id: `PP${String(90400 + i)}`,
		datetime: now - (3 - i) * 45 * DAY_MS,
		amount: 20,
		currency: b.currency,
		method: 'card' as const,
		reference: `TOPUP-${654321 + i}`,
	}));
	b.recipients = [recipient('billing', 'email', 'accounts@brightline.example', day(150))];

	fillTraffic(a, now, 3000, 300);
	fillTraffic(b, now, 400, 40);
	history(a, now);
	history(b, now);

	const random = prng(seedOf('calls'));
	a.calls = [
		makeCall(random, a, { direction: 'out', to: '447700900555', trunk: '123456-office', tag: 'sales', started: now - 95_000, answered: true }),
		makeCall(random, a, { direction: 'out', to: '33612345678', started: now - 40_000, answered: true }),
		makeCall(random, a, { direction: 'in', from: '447700900777', to: '441632960001', started: now - 5_000, answered: false }),
	];
	b.calls = [makeCall(random, b, { direction: 'out', to: '12125550100', trunk: '654321-pbx', started: now - 70_000, answered: true })];

	const reasons = ['maxcost', 'cli', 'channels', 'blacklist', 'dnc', 'balance'];
	const q850: Record<string, number> = { maxcost: 21, cli: 21, channels: 34, blacklist: 21, dnc: 21, balance: 402 };
	for (const account of [a, b]) {
		const r = prng(seedOf(`rejected-${account.id}`));
		for (const [daysAgo, count] of [[0, 5], [1, 4], [3, 3]]) {
			for (let i = 0; i < count; i++) {
				const reason = reasons[(i + daysAgo) % reasons.length];
				const destination = pickDestination(r);
				const datetime = daysAgo === 0 ? now - (i + 1) * 600_000 : startOfDay(now) - daysAgo * DAY_MS + (i + 1) * 3_600_000;
				account.rejected.push({
					datetime, direction: i === 2 ? 'in' : 'out', from: [...account.numbers.keys()][0], to: numberIn(r, destination),
					trunk: account.trunks[i % account.trunks.length].name, tag: pick(r, TAGS), reason,
					desc: destination.location, iso: destination.iso, q850: q850[reason],
				});
			}
		}
		account.rejected.sort((x, y) => x.datetime - y.datetime);
	}

	const ports: Port[] = [
		{
			ref: 39990, account: '123456', submitted: day(140), crd: day(132), status: 'complete', portDate: day(132),
			submission: portSubmission('01632960090'),
			events: [
				{ date: day(140), status: 'received' }, { date: day(139), status: 'submitted_lcp' },
				{ date: day(136), status: 'accepted_lcp' }, { date: day(136), status: 'accepted', info: 'Port date confirmed' },
				{ date: day(132), status: 'complete' },
			],
		},
		{
			ref: 40001, account: '123456', submitted: day(40), crd: day(34), status: 'complete', portDate: day(34),
			submission: portSubmission('01632960100', {
				type: 'multi', lines: 3, channels: 4,
				numbers: [
					{ number: '01632960100', type: 'mbn', action: 'port' },
					{ number: '01632960101', type: 'associated', action: 'port' },
					{ number: '01632960102', type: 'other', action: 'retain' },
				],
			}),
			events: [
				{ date: day(40), status: 'received' }, { date: day(39), status: 'submitted_lcp' },
				{ date: day(37), status: 'accepted_lcp' }, { date: day(37), status: 'accepted', info: 'Port date confirmed' },
				{ date: day(34), status: 'complete' },
			],
		},
		{
			ref: 40002, account: '123456', submitted: day(12), crd: day(6), status: 'rejected_lcp', portDate: null,
			submission: portSubmission('01632960200', { billing_postcode: 'LS2 7EW', lcp: 'Virgin Media', lcp_cupid: '015' }),
			events: [
				{ date: day(12), status: 'received' }, { date: day(11), status: 'submitted_lcp' },
				{ date: day(9), status: 'rejected_lcp', info: 'Postcode does not match the losing provider\'s records' },
			],
		},
		{
			ref: 40003, account: '123456', submitted: day(3), crd: now + 5 * DAY_MS, status: 'submitted_lcp', portDate: now + 5 * DAY_MS,
			submission: portSubmission('01134960300', { port_date: `${new Date(now + 5 * DAY_MS).toISOString().slice(0, 10)} 09:00:00` }),
			events: [{ date: day(3), status: 'received' }, { date: day(2), status: 'submitted_lcp' }],
		},
	];

	return { accounts: new Map([[a.id, a], [b.id, b]]), ports, nextPortRef: 40004, seededAt: now };
}
