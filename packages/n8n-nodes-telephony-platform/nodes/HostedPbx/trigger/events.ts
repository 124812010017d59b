import type { IDataObject, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { filtersField, optionsField } from '../../shared/fields';
import { idFromUri } from '../../shared/params';
import { parseParty } from '../records';

/** Every event of the Hosted PBX Trigger, live or polled, in one table that the Events parameter, stream, polls and recovery read. */

interface EventBase {
	/** Stored in workflows. */
	value: string;
	name: string;
	/** n8n's node panel shows this as an entry of its own ("On missed call"). */
	action: string;
	description: string;
}

/** An event the stream pushes (`event` of the stream object). */
export interface LiveEvent extends EventBase {
	source: 'stream';
	/** The history list that keeps a record of it, for recovering what the stream missed; none for a delivery receipt. */
	recoveredFrom?: 'calls' | 'sms';
}

/** The lists a poll reads; events drawn from one list share its read. */
export type PolledList = 'calls' | 'sms' | 'recordings';

/** A new record of a list, found at each poll. */
export interface NewRecordEvent extends EventBase {
	source: PolledList;
	kind: 'newRecord';
	/** A server-side filter of the list (the call history has some; the SMS list none). */
	query: (filters: IDataObject) => IDataObject;
	matches: (record: IDataObject, filters: IDataObject) => boolean;
}

/** A change seen in records the platform keeps but does not push: a text's status, the credit balance. */
export interface ChangeEvent extends EventBase {
	source: 'sms' | 'creditstatus';
	kind: 'textStatus' | 'creditLow';
}

export type PolledEvent = NewRecordEvent | ChangeEvent;
export type PbxEvent = LiveEvent | PolledEvent;

const OUTCOMES = ['ANSWERED', 'NO_ANSWER', 'BUSY', 'FAILED'];

function callRecordMatches(record: IDataObject, filters: IDataObject): boolean {
	const direction = String(filters.direction ?? 'any');
	const outcomes = (filters.outcomes as string[] | undefined) ?? [];
	return (
		(direction === 'any' || String(record.direction).toLowerCase() === direction) &&
		(outcomes.length === 0 || outcomes.includes(String(record.outcome)))
	);
}

/** In the order n8n's panel lists them (by name); a name says what sets an event apart from its neighbour (live or polled, what it carries). */
export const EVENTS: PbxEvent[] = [
	{
		value: 'callRecord',
		name: 'Call Finished (Polled)',
		action: 'On call finished',
		description: 'Polled: a new call record, with filters on direction and outcome',
		source: 'calls',
		kind: 'newRecord',
		query: (filters) =>
			['in', 'out'].includes(String(filters.direction)) ? { direction: filters.direction } : {},
		matches: callRecordMatches,
	},
	{
		value: 'creditLow',
		name: 'Credit Low (Polled)',
		action: 'On credit low',
		description:
			'Polled: the balance fell below the threshold you set (once, until it rises above it again)',
		source: 'creditstatus',
		kind: 'creditLow',
	},
	{
		value: 'incomingcall',
		name: 'Incoming Call (Live)',
		action: 'On incoming call ringing',
		description: 'Live: a call is ringing: caller number and name, endpoint',
		source: 'stream',
		recoveredFrom: 'calls',
	},
	{
		value: 'missedCall',
		name: 'Missed Call (Polled)',
		action: 'On missed call',
		description: 'Polled: an inbound call that nobody answered',
		source: 'calls',
		kind: 'newRecord',
		query: () => ({ direction: 'in' }),
		matches: (record) => record.direction === 'IN' && record.outcome !== 'ANSWERED',
	},
	{
		value: 'newRecording',
		name: 'New Recording (Polled)',
		action: 'On new call recording',
		description:
			'Polled: a call recording is ready, optionally with its audio and the call it belongs to',
		source: 'recordings',
		kind: 'newRecord',
		query: () => ({}),
		matches: () => true,
	},
	{
		value: 'smsdelivered',
		name: 'SMS Delivery Receipt (Live, No Details)',
		action: 'On SMS delivery receipt',
		description: 'Live: a delivery receipt for a sent SMS arrived (it carries no values)',
		source: 'stream',
	},
	{
		value: 'smsreceived',
		name: 'SMS Received (Live, Excerpt)',
		action: 'On SMS received instantly',
		description: 'Live: an SMS arrived: from, to and an excerpt',
		source: 'stream',
		recoveredFrom: 'sms',
	},
	{
		value: 'inboundSms',
		name: 'SMS Received (Polled, Full Text)',
		action: 'On SMS received with full text',
		description: 'Polled: an SMS received, with its whole text',
		source: 'sms',
		kind: 'newRecord',
		query: () => ({}),
		matches: (record) => record.direction === 'IN',
	},
	{
		value: 'textStatus',
		name: 'Text Status Changed (Polled)',
		action: 'On text failed or delivered',
		description:
			'Polled: a sent SMS failed, was rejected or delivered, or had no final status in time',
		source: 'sms',
		kind: 'textStatus',
	},
];

export const isLive = (event: PbxEvent): event is LiveEvent => event.source === 'stream';
export const LIVE_EVENTS = EVENTS.filter(isLive).map((event) => event.value);
export const POLLED_EVENTS = EVENTS.filter((event) => !isLive(event)).map((event) => event.value);

export const eventOptions: INodePropertyOptions[] = EVENTS.map(
	({ name, value, action, description }) => ({ name, value, action, description }),
);

/** The events of these values, in table order. */
export function eventsNamed(values: unknown): PbxEvent[] {
	const chosen = Array.isArray(values) ? values : [values];
	return EVENTS.filter((event) => chosen.includes(event.value));
}

/** Direction and outcome filters of Call Finished. */
export const callRecordFilters: INodeProperties = filtersField(
	[
		optionsField('Direction', 'direction', 'any', [
			['Any', 'any'],
			['Inbound', 'in'],
			['Outbound', 'out'],
		]),
		{
			displayName: 'Outcomes',
			name: 'outcomes',
			type: 'multiOptions',
			default: [],
			description: 'Only calls with one of these outcomes (all when none is chosen)',
			options: OUTCOMES.map((value) => ({
				name: value
					.replace('_', ' ')
					.toLowerCase()
					.replace(/^\w/, (c) => c.toUpperCase()),
				value,
			})),
		},
	],
	{ displayOptions: { show: { events: ['callRecord'] } } },
);

/** A stream event as one flat item: its name, its values at the top level, when it arrived. */
export function liveEventItem(object: Record<string, unknown>, receivedAt: Date): IDataObject {
	const values = (
		object.values && typeof object.values === 'object' ? object.values : {}
	) as IDataObject;
	const item: IDataObject = {
		event: String(object.event),
		...values,
		location: (object.location ?? null) as IDataObject[string],
		receivedAt: receivedAt.toISOString(),
	};
	if (typeof values.endpoint === 'string') item.endpointId = idFromUri(values.endpoint);
	return item;
}

/** A call or SMS record with caller and callee split into name and number, for mapping into the next node. */
export function withParties(record: IDataObject): IDataObject {
	const from = parseParty(record.from);
	const to = parseParty(record.to);
	return {
		...record,
		fromName: from.name,
		fromNumber: from.number,
		toName: to.name,
		toNumber: to.number,
	};
}

/** A record as the item of a polled event. */
export function polledItem(event: string, record: IDataObject): IDataObject {
	return { event, ...withParties(record) };
}

/** A history record as the live event it stands for, marked as recovered (the stream missed it). */
export function recoveredItem(event: string, record: IDataObject): IDataObject {
	const base = {
		recovered: true,
		recordId: String(record.id ?? ''),
		recordCreated: record.created ?? null,
		location: null,
	};
	if (event === 'incomingcall') {
		const from = parseParty(record.from);
		return {
			event,
			callerIdNumber: from.number,
			callerIdName: from.name,
			endpoint: null,
			endpointId: null,
			callId: record.callId ?? null,
			...base,
		};
	}
	return {
		event,
		to: record.to ?? null,
		from: record.from ?? null,
		excerpt: String(record.body ?? ''),
		body: record.body ?? null,
		...base,
	};
}
