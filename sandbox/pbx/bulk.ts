import { HttpError } from '../core/http';
import type { Bundle, CallRecord, CallerId, Customer, PbxData, PhoneNumber, Recording, SmsMessage, Sound } from './seed';

/**
 * Many records of one collection at once, for paging and output-size measurements: each made
 * like the demo records of its kind (same shapes and value lengths), varied over the collection's
 * values (directions, outcomes, statuses), one minute apart going back from `now`.
 */

export const BULK_COLLECTIONS = ['calls', 'sms', 'recordings', 'sounds', 'phonenumbers', 'outgoingcallerids', 'callbundles', 'customers'] as const;
export type BulkCollection = (typeof BULK_COLLECTIONS)[number];

export interface BulkInput {
	collection?: string;
	customerId?: string;
	count?: number;
	/** Removes the customer's records of the collection first (customers: every customer but the demo ones). */
	replace?: boolean;
}

const MAX_BULK = 100_000;
const OUTCOMES: Array<CallRecord['outcome']> = ['ANSWERED', 'NO_ANSWER', 'ANSWERED', 'BUSY', 'ANSWERED', 'FAILED'];
const TEXTS = ['Can you call me back?', 'Running 10 minutes late, sorry', 'Is the order ready to collect?', 'Thanks, see you Friday', 'Please confirm my appointment'];
const EXTENSIONS = ['201', '202', '203'];

/** A UK mobile number of the drama range, `+447700900000` on. */
const mobile = (i: number) => `+4477009${String(i % 100_000).padStart(5, '0')}`;

type Maker<T> = (i: number, customerId: string, at: Date) => Omit<T, 'id'>;

function call(i: number, customerId: string, at: Date): Omit<CallRecord, 'id'> {
	const inbound = i % 3 !== 2;
	const extension = EXTENSIONS[i % EXTENSIONS.length];
	const remote = mobile(i);
	const outcome = OUTCOMES[i % OUTCOMES.length];
	const duration = outcome === 'ANSWERED' ? 30 + ((i * 37) % 300) : 0;
	const callId = `c-${5000 + i}`;
	return {
		customerId, scope: 'EXTERNAL', direction: inbound ? 'IN' : 'OUT',
		// As the demo history writes its parties.
		from: inbound ? `"Caller" <${remote}>` : `"Ext ${extension}" <${extension}>`,
		to: inbound ? `<${extension}>` : `<${remote}>`,
		fromNumber: inbound ? remote : extension, toNumber: inbound ? extension : remote, endpointIds: [extension],
		callStarted: at, outcome, duration, cost: !inbound && outcome === 'ANSWERED' ? 0.05 : 0, callId, linkedId: callId,
		created: new Date(at.getTime() + duration * 1000),
	};
}

function sms(i: number, customerId: string, at: Date): Omit<SmsMessage, 'id'> {
	const text = TEXTS[i % TEXTS.length];
	if (i % 2 === 0) return { customerId, direction: 'IN', from: mobile(i), to: '+441632960001', body: text, cost: 0, created: at };
	const statuses: Array<Pick<SmsMessage, 'sendStatus' | 'deliveryStatus'>> = [{ sendStatus: 'SENT', deliveryStatus: 1 }, { sendStatus: 'PENDING' }, { sendStatus: 'SENT', deliveryStatus: 16 }, { sendStatus: 'FAILED' }];
	return { customerId, direction: 'OUT', from: 'Acme', to: mobile(i), body: text, ...statuses[Math.floor(i / 2) % statuses.length], cost: 0.04, created: at };
}

function recording(i: number, customerId: string, at: Date): Omit<Recording, 'id'> {
	const callId = `c-${5000 + i}`;
	const extension = EXTENSIONS[i % EXTENSIONS.length];
	return { customerId, direction: i % 2 ? 'OUT' : 'IN', partyId: mobile(i), started: at, seconds: 1, callId, linkedId: callId, endpointId: extension, created: at };
}

const sound: Maker<Sound> = (i, customerId, at) =>
	i % 3 === 2
		? { customerId, type: 'music', name: `Hold music ${i + 1}`, seconds: 1, enabled: i % 2 === 0, created: at }
		: { customerId, type: 'prompt', name: `Greeting ${i + 1}`, seconds: 1, created: at };

const phoneNumber: Maker<PhoneNumber> = (i, customerId, at) => ({
	customerId, number: `+44163296${String(1000 + (i % 9000)).padStart(4, '0')}`, identifier: i % 2 ? '' : `Line ${i + 1}`,
	destinationEndpointId: EXTENSIONS[i % EXTENSIONS.length], smsEnabled: i % 2 === 0, faxEnabled: false, created: at,
});

const callerId: Maker<CallerId> = (i, customerId, at) => ({
	customerId, number: i % 3 === 0 ? `Acme ${i + 1}` : mobile(i), allowCalls: i % 3 !== 0, allowSms: true, created: at,
});

function bundle(i: number, customerId: string, at: Date): Omit<Bundle, 'id'> {
	const expired = i % 4 === 3;
	const inclusiveMins = [1000, 500, 250][i % 3];
	return {
		customerId, name: `UK ${inclusiveMins} #${i + 1}`, inclusiveMins, priceMonthly: [10, 8, 5][i % 3], validFrom: new Date(at.getTime() - 30 * 86_400_000),
		validTo: new Date(at.getTime() + (expired ? -1 : 30) * 86_400_000), usedMins: expired ? inclusiveMins : (i * 37) % inclusiveMins,
		autoRenew: !expired, status: expired ? 'EXPIRED' : 'ACTIVE', created: at,
	};
}

const customer: Maker<Customer> = (i, _customerId, at) => ({
	accountType: (['business', 'residential', 'wlr'] as const)[i % 3], company: `Customer ${i + 1} Ltd`, firstName: 'Sam', lastName: `Smith ${i + 1}`,
	telephone: mobile(i), email: `sam${i + 1}@customer${i + 1}.example`, address1: `${i + 1} High Street`, city: 'Leeds', postcode: 'LS1 1AA', country: 'GB', created: at,
});

/** The collection's records in `data`, and how to make one. */
function target(data: PbxData, collection: BulkCollection): { list: Array<{ id: string; customerId?: string }>; make: Maker<never> } {
	const table = {
		calls: [data.calls, call],
		sms: [data.sms, sms],
		recordings: [data.recordings, recording],
		sounds: [data.sounds, sound],
		phonenumbers: [data.phoneNumbers, phoneNumber],
		outgoingcallerids: [data.callerIds, callerId],
		callbundles: [data.bundles, bundle],
		customers: [data.customers, customer],
	} as const;
	const [list, make] = table[collection];
	return { list, make: make as Maker<never> };
}

/**
 * Adds `count` records of the collection (ids from `nextId`); a reseller sees new customers, each
 * with a prepaid balance. Answers what was added and the customer's total.
 */
export function addBulk(data: PbxData, input: BulkInput, nextId: (kind: string, existing: Array<{ id: string }>) => string, now: number): { added: number; total: number } {
	const collection = input.collection as BulkCollection;
	if (!BULK_COLLECTIONS.includes(collection)) throw new HttpError(400, { message: `collection must be one of ${BULK_COLLECTIONS.join(', ')}`, field: 'collection' });
	const count = Number(input.count ?? 50);
	if (!Number.isInteger(count) || count < 1 || count > MAX_BULK) throw new HttpError(400, { message: `count must be a whole number from 1 to ${MAX_BULK}`, field: 'count' });
	const customerId = input.customerId ?? '1001';
	const { list, make } = target(data, collection);
	const demo = ['1001', '1002', '1003'];
	if (input.replace) {
		const keep = list.filter((r) => (collection === 'customers' ? demo.includes(r.id) : r.customerId !== customerId));
		list.length = 0;
		for (const record of keep) list.push(record);
		const reseller = data.users.find((u) => u.level === 'reseller');
		if (collection === 'customers' && reseller) reseller.customerIds = reseller.customerIds.filter((id) => demo.includes(id));
	}
	// The id counters the other routes use, so that later records never reuse an id.
	const kind = { calls: 'call', recordings: 'recording' }[collection as string] ?? collection;
	for (let i = 0; i < count; i++) {
		const record = { id: nextId(kind, list), ...(make(i, customerId, new Date(now - i * 60_000)) as object) } as { id: string; customerId?: string };
		list.push(record);
		if (collection === 'customers') {
			data.users.find((u) => u.level === 'reseller')?.customerIds.push(record.id);
			data.credit[record.id] = { accountType: 'PREPAID', balance: 10 };
		}
	}
	const total = collection === 'customers' ? list.length : list.filter((r) => r.customerId === customerId).length;
	return { added: count, total };
}
