import { currentTime } from '../core/clock';
/** Demo data of the Hosted PBX sandbox: three customers, users at every level, history to browse. */

export type UserLevel = 'extension' | 'companyAdmin' | 'reseller';

export interface PbxUser {
	username: string;
	password: string;
	level: UserLevel;
	/** Customers this user sees. */
	customerIds: string[];
	/** The endpoint of an extension user. */
	endpointId?: string;
}

export interface Customer {
	id: string;
	accountType: 'business' | 'residential' | 'wlr';
	company: string;
	firstName: string;
	lastName: string;
	telephone: string;
	email: string;
	address1: string;
	address2?: string;
	city: string;
	postcode: string;
	country: string;
	properties?: Record<string, string>;
	created: Date;
}

export interface PhonebookEntry {
	id: string;
	customerId: string;
	name: string;
	phoneNumber: string;
	speedDial?: number;
	created: Date;
}

export interface SmsMessage {
	id: string;
	customerId: string;
	direction: 'IN' | 'OUT';
	from: string;
	to: string;
	body: string;
	sendStatus?: 'PENDING' | 'SENT' | 'FAILED';
	deliveryStatus?: number;
	cost: number;
	created: Date;
}

export interface CallRecord {
	id: string;
	customerId: string;
	scope: 'LOCAL' | 'DOMAIN' | 'EXTERNAL';
	direction: 'IN' | 'OUT';
	from: string;
	to: string;
	fromNumber: string;
	toNumber: string;
	endpointIds: string[];
	callStarted: Date;
	outcome: 'ANSWERED' | 'NO_ANSWER' | 'BUSY' | 'FAILED';
	duration: number;
	cost: number;
	callId: string;
	linkedId: string;
	created: Date;
}

export interface Sound {
	id: string;
	customerId: string;
	type: 'prompt' | 'music';
	name: string;
	seconds: number;
	enabled?: boolean;
	created: Date;
}

export interface Recording {
	id: string;
	customerId: string;
	direction: 'IN' | 'OUT';
	partyId: string;
	started: Date;
	seconds: number;
	/** The WAV's exact size when it was given (`injectRecording`): the audio is then streamed, never held. */
	bytes?: number;
	callId: string;
	linkedId: string;
	endpointId: string;
	created: Date;
}

export interface PhoneNumber {
	id: string;
	customerId: string;
	number: string;
	identifier: string;
	destinationEndpointId: string;
	smsEnabled: boolean;
	faxEnabled: boolean;
	created: Date;
}

export interface CallerId {
	id: string;
	customerId: string;
	number: string;
	allowCalls: boolean;
	allowSms: boolean;
	created: Date;
}

export interface Bundle {
	id: string;
	customerId: string;
	name: string;
	inclusiveMins: number;
	priceMonthly: number;
	validFrom: Date;
	validTo: Date;
	usedMins: number;
	autoRenew: boolean;
	status: 'ACTIVE' | 'EXPIRED';
	created: Date;
}

export interface Endpoint {
	id: string;
	customerId: string;
	name: string;
	dndActive: boolean;
}

export interface PbxData {
	users: PbxUser[];
	customers: Customer[];
	endpoints: Endpoint[];
	phonebook: PhonebookEntry[];
	sms: SmsMessage[];
	calls: CallRecord[];
	sounds: Sound[];
	recordings: Recording[];
	phoneNumbers: PhoneNumber[];
	callerIds: CallerId[];
	bundles: Bundle[];
	credit: Record<string, { accountType: 'PREPAID' | 'POSTPAID'; balance: number }>;
}

export const DEMO_USERS: PbxUser[] = [
	{ username: 'reseller', password: 'reseller-secret', level: 'reseller', customerIds: ['1001', '1002', '1003'] },
	{ username: 'acme.admin', password: 'acme-admin-secret', level: 'companyAdmin', customerIds: ['1001'] },
	{ username: 'acme.201', password: 'acme-201-secret', level: 'extension', customerIds: ['1001'], endpointId: '201' },
	{ username: 'bright.admin', password: 'bright-admin-secret', level: 'companyAdmin', customerIds: ['1002'] },
];

const DAY = 86_400_000;

export function seedPbx(now = currentTime()): PbxData {
	const at = (daysAgo: number, hour = 9, minute = 0) => {
		const date = new Date(now - daysAgo * DAY);
		date.setUTCHours(hour, minute, 0, 0);
		return date;
	};
	const customers: Customer[] = [
		{
			id: '1001', accountType: 'business', company: 'Acme Widgets Ltd', firstName: 'Ada', lastName: 'Lovelace',
			telephone: '+441632960001', email: 'ada@acme.example', address1: '1 Engine Street', address2: 'Unit 4',
			city: 'London', postcode: 'EC1A 1BB', country: 'GB', properties: { crmId: 'ACME-77' }, created: at(400),
		},
		{
			id: '1002', accountType: 'residential', company: 'Brightside Dental', firstName: 'Grace', lastName: 'Hopper',
			telephone: '+441632960002', email: 'grace@brightside.example', address1: '22 Molar Road',
			city: 'Leeds', postcode: 'LS1 4AP', country: 'GB', created: at(300),
		},
		{
			id: '1003', accountType: 'wlr', company: 'Corner Shop', firstName: 'Alan', lastName: 'Turing',
			telephone: '+441632960003', email: 'alan@corner.example', address1: '3 High Street',
			city: 'Manchester', postcode: 'M1 1AE', country: 'GB', created: at(200),
		},
	];
	const endpoints: Endpoint[] = [
		{ id: '201', customerId: '1001', name: 'Reception', dndActive: false },
		{ id: '202', customerId: '1001', name: 'Sales', dndActive: false },
		{ id: '203', customerId: '1001', name: 'Support', dndActive: true },
		{ id: '301', customerId: '1002', name: 'Front desk', dndActive: false },
		{ id: '401', customerId: '1003', name: 'Shop phone', dndActive: false },
	];
	const phonebook: PhonebookEntry[] = [
		{ id: '1', customerId: '1001', name: 'Alice Jones', phoneNumber: '+447700900001', speedDial: 1, created: at(50) },
		{ id: '2', customerId: '1001', name: 'Bob Smith', phoneNumber: '+447700900002', speedDial: 2, created: at(40) },
		{ id: '3', customerId: '1001', name: 'Carol White', phoneNumber: '+441632960123', created: at(30) },
		{ id: '4', customerId: '1002', name: 'Dr Dee', phoneNumber: '+447700900004', speedDial: 10, created: at(20) },
	];
	const sms: SmsMessage[] = [
		{ id: '1', customerId: '1001', direction: 'IN', from: '+447700900001', to: '+441632960001', body: 'Can you call me back?', cost: 0, created: at(3, 10) },
		{ id: '2', customerId: '1001', direction: 'OUT', from: 'Acme', to: '+447700900001', body: 'Sure, calling at 3pm', sendStatus: 'SENT', deliveryStatus: 1, cost: 0.04, created: at(3, 11) },
		{ id: '3', customerId: '1002', direction: 'IN', from: '+447700900004', to: '+441632960002', body: 'Appointment moved?', cost: 0, created: at(2, 9) },
	];
	const calls: CallRecord[] = [];
	const callSeed: Array<[string, 'IN' | 'OUT', string, string, CallRecord['outcome'], number, number]> = [
		['1001', 'IN', '+447700900001', '201', 'ANSWERED', 5, 125],
		['1001', 'IN', '+447700900002', '202', 'NO_ANSWER', 4, 0],
		['1001', 'OUT', '201', '+447700900003', 'ANSWERED', 3, 61],
		['1001', 'IN', '+447700900009', '201', 'BUSY', 2, 0],
		['1001', 'IN', '+441632960123', '203', 'ANSWERED', 1, 300],
		['1002', 'IN', '+447700900004', '301', 'NO_ANSWER', 1, 0],
	];
	callSeed.forEach(([customerId, direction, from, to, outcome, daysAgo, duration], index) => {
		const id = String(index + 1);
		const endpointId = direction === 'IN' ? to : from;
		const started = at(daysAgo, 10 + index);
		calls.push({
			id, customerId, scope: 'EXTERNAL', direction,
			from: direction === 'IN' ? `"Caller" <${from}>` : `"Ext ${from}" <${from}>`,
			to: direction === 'IN' ? `<${to}>` : `<${to}>`,
			fromNumber: from, toNumber: to, endpointIds: [endpointId], callStarted: started, outcome, duration,
			cost: direction === 'OUT' ? 0.05 : 0, callId: `c-${1000 + index}`, linkedId: `c-${1000 + index}`,
			created: new Date(started.getTime() + duration * 1000),
		});
	});
	// An internal call: two records, one per direction; includeLocal shows only the outbound one.
	const local = at(1, 15);
	calls.push(
		{ id: '7', customerId: '1001', scope: 'LOCAL', direction: 'OUT', from: '"Reception" <201>', to: '<202>', fromNumber: '201', toNumber: '202', endpointIds: ['201', '202'], callStarted: local, outcome: 'ANSWERED', duration: 30, cost: 0, callId: 'c-2000', linkedId: 'c-2000', created: local },
		{ id: '8', customerId: '1001', scope: 'LOCAL', direction: 'IN', from: '"Reception" <201>', to: '<202>', fromNumber: '201', toNumber: '202', endpointIds: ['201', '202'], callStarted: local, outcome: 'ANSWERED', duration: 30, cost: 0, callId: 'c-2001', linkedId: 'c-2000', created: local },
	);
	const sounds: Sound[] = [
		{ id: '1', customerId: '1001', type: 'prompt', name: 'Welcome greeting', seconds: 1.5, created: at(100) },
		{ id: '2', customerId: '1001', type: 'prompt', name: 'Out of hours', seconds: 1, created: at(90) },
		{ id: '3', customerId: '1001', type: 'music', name: 'Hold music', seconds: 2, enabled: true, created: at(80) },
		{ id: '4', customerId: '1002', type: 'music', name: 'Calm piano', seconds: 1, enabled: false, created: at(70) },
	];
	const recordings: Recording[] = [
		{ id: '1', customerId: '1001', direction: 'IN', partyId: '+447700900001', started: calls[0].callStarted, seconds: 1, callId: 'c-1000', linkedId: 'c-1000', endpointId: '201', created: calls[0].created },
		{ id: '2', customerId: '1001', direction: 'OUT', partyId: '+447700900003', started: calls[2].callStarted, seconds: 0.5, callId: 'c-1002', linkedId: 'c-1002', endpointId: '201', created: calls[2].created },
		{ id: '3', customerId: '1001', direction: 'OUT', partyId: '202', started: local, seconds: 0.5, callId: 'c-2000', linkedId: 'c-2000', endpointId: '201', created: local },
	];
	const phoneNumbers: PhoneNumber[] = [
		{ id: '1', customerId: '1001', number: '+441632960001', identifier: 'Main line', destinationEndpointId: '201', smsEnabled: true, faxEnabled: false, created: at(400) },
		{ id: '2', customerId: '1001', number: '+441632960011', identifier: '', destinationEndpointId: '202', smsEnabled: false, faxEnabled: false, created: at(300) },
		{ id: '3', customerId: '1002', number: '+441632960002', identifier: 'Surgery', destinationEndpointId: '301', smsEnabled: true, faxEnabled: false, created: at(300) },
	];
	const callerIds: CallerId[] = [
		{ id: '1', customerId: '1001', number: 'Acme', allowCalls: false, allowSms: true, created: at(200) },
		{ id: '2', customerId: '1001', number: '+441632960099', allowCalls: true, allowSms: true, created: at(150) },
	];
	const bundles: Bundle[] = [
		{ id: '1', customerId: '1001', name: 'UK 1000', inclusiveMins: 1000, priceMonthly: 10, validFrom: at(10), validTo: new Date(now + 20 * DAY), usedMins: 420, autoRenew: true, status: 'ACTIVE', created: at(10) },
		{ id: '2', customerId: '1001', name: 'Mobile 500', inclusiveMins: 500, priceMonthly: 8, validFrom: at(60), validTo: at(30), usedMins: 500, autoRenew: false, status: 'EXPIRED', created: at(60) },
	];
	return {
		users: DEMO_USERS.map((u) => ({ ...u, customerIds: [...u.customerIds] })),
		customers,
		endpoints,
		phonebook,
		sms,
		calls,
		sounds,
		recordings,
		phoneNumbers,
		callerIds,
		bundles,
		credit: {
			'1001': { accountType: 'PREPAID', balance: 42.5 },
			'1002': { accountType: 'POSTPAID', balance: -12.75 },
			'1003': { accountType: 'PREPAID', balance: 3.2 },
		},
	};
}
