import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';

import { currentTime, sandboxSleep } from '../core/clock';
import { HttpError } from '../core/http';
import { parseTime } from '../core/time';
import { MAX_WAV_BYTES, WAV_HEADER_BYTES, wavStream } from '../core/wav';
import type { PbxData, Recording, SmsMessage } from './seed';

/**
 * What the Hosted PBX sandbox plays for the triggers, every case the contract allows: a
 * recording that arrives late for a finished call (or with the same `created` as another, or
 * larger than any client should download), an outgoing SMS whose statuses change when a test
 * says so or stay `PENDING` for ever, and a balance that moves.
 */

type Rep = Record<string, unknown>;

/** What sent messages become after `smsDelayMs` (each step a further `smsDelayMs` on). */
export const SMS_OUTCOMES = ['auto', 'pending', 'never-final', 'failed', 'rejected-by-handset', 'rejected-by-carrier'] as const;
export type SmsOutcome = (typeof SMS_OUTCOMES)[number];

const SEND_STATUSES = ['PENDING', 'SENT', 'FAILED'] as const;
/** 1 delivered to handset, 2 rejected from handset, 4 buffered in transit, 8 accepted by SMS carrier, 16 rejected by SMS carrier. */
const DELIVERY_STATUSES = [1, 2, 4, 8, 16];
const MAX_RECORDING_SECONDS = 600;

interface StatusStep {
	sendStatus: NonNullable<SmsMessage['sendStatus']>;
	deliveryStatus?: number;
}

/** Whether the platform can deliver to a number (a number starting 4400 it cannot). */
export function isDeliverableNumber(value: string): boolean {
	const digits = value.replace(/[\s()-]/g, '');
	return /^\+?\d{6,15}$/.test(digits) && !digits.replace(/^\+/, '').startsWith('4400');
}

/** The statuses a sent message goes through under an outcome. */
function outcomeSteps(outcome: SmsOutcome, to: string): StatusStep[] {
	switch (outcome) {
		case 'auto':
			return [isDeliverableNumber(to) ? { sendStatus: 'SENT', deliveryStatus: 1 } : { sendStatus: 'FAILED', deliveryStatus: 16 }];
		case 'pending':
			return [];
		case 'never-final':
			return [{ sendStatus: 'SENT', deliveryStatus: 4 }, { sendStatus: 'SENT', deliveryStatus: 8 }];
		case 'failed':
			return [{ sendStatus: 'FAILED' }];
		case 'rejected-by-handset':
			return [{ sendStatus: 'SENT', deliveryStatus: 2 }];
		case 'rejected-by-carrier':
			return [{ sendStatus: 'SENT', deliveryStatus: 16 }];
	}
}

/** A time given in either platform form (or as a Date), or `fallback` when absent. */
function timeInput(value: unknown, field: string, fallback: Date): Date {
	if (value === undefined || value === null) return fallback;
	const ms = value instanceof Date ? value.getTime() : parseTime(value);
	if (Number.isNaN(ms)) throw invalid(field, 'must be a date-time such as 2026-01-02T03:04:05Z or 2026-01-02T03:04:05.678+0000');
	return new Date(ms);
}

function invalid(field: string, message: string): HttpError {
	return new HttpError(400, { message: `${field} ${message}`, field });
}

function oneOf<T>(value: unknown, allowed: readonly T[], field: string): T | undefined {
	if (value === undefined) return undefined;
	if (!allowed.includes(value as T)) throw invalid(field, `must be one of ${allowed.join(', ')}`);
	return value as T;
}

function text(value: unknown, field: string, fallback: string): string {
	if (value === undefined) return fallback;
	if (typeof value !== 'string' || value === '') throw invalid(field, 'must be a non-empty string');
	return value;
}

export interface RecordingInput {
	customerId?: string;
	/** The call leg; when it names a call of the customer, its linkedId, direction, party, endpoint and start are the defaults. */
	callId?: string;
	linkedId?: string;
	direction?: 'IN' | 'OUT';
	partyId?: string;
	endpointId?: string;
	/** Either platform form (`…Z` or `….678+0000`); default: the call's start, or now. */
	started?: string | Date;
	/** Either platform form; default now. */
	created?: string | Date;
	/** The audio's length (default 1); not with `bytes`. */
	seconds?: number;
	/** The WAV's exact size, streamed on download (46 bytes to 4 GiB - 1). */
	bytes?: number;
}

export interface OutboundSmsInput {
	customerId?: string;
	from?: string;
	to?: string;
	body?: string;
	sendStatus?: 'PENDING' | 'SENT' | 'FAILED';
	deliveryStatus?: number | null;
	created?: string | Date;
	cost?: number;
}

export interface SmsStatusChange {
	sendStatus?: 'PENDING' | 'SENT' | 'FAILED';
	/** null removes it. */
	deliveryStatus?: number | null;
}

export interface CreditChange {
	balance?: number;
	accountType?: 'PREPAID' | 'POSTPAID';
}

/** What the PBX module lends the player: its data, ids, stream and representations. */
export interface PlaybackHost {
	data(): PbxData;
	nextId(kind: string, existing: Array<{ id: string }>): string;
	publish(customerId: string, event: string, values: Record<string, unknown>): number;
	smsRep(message: SmsMessage): Rep;
	recordingRep(recording: Recording): Rep;
	creditRep(customerId: string): Rep;
	smsDelayMs(): number;
	smsOutcome(): SmsOutcome;
}

export class PbxPlayback {
	/** Stops the steps still to come of each sent message, by message id. */
	private smsSteps = new Map<string, AbortController>();
	private downloads = new Map<Readable, ServerResponse>();

	constructor(private readonly host: PlaybackHost) {}

	/** Cancels what is scheduled and ends the WAVs being streamed. */
	reset(): void {
		for (const steps of this.smsSteps.values()) steps.abort();
		this.smsSteps.clear();
		for (const [audio, res] of this.downloads) {
			audio.destroy();
			res.destroy();
		}
		this.downloads.clear();
	}

	private customerId(value: unknown): string {
		const id = text(value, 'customerId', '1001');
		if (!this.host.data().customers.some((c) => c.id === id)) throw invalid('customerId', `names no customer (${id})`);
		return id;
	}

	// ---- recordings -------------------------------------------------------------------

	injectRecording(input: RecordingInput = {}): Rep {
		const data = this.host.data();
		const customerId = this.customerId(input.customerId);
		const call = input.callId === undefined ? undefined : data.calls.find((c) => c.customerId === customerId && c.callId === input.callId);
		const callId = text(input.callId, 'callId', `c-${randomBytes(4).toString('hex')}`);
		const endpointId = text(input.endpointId, 'endpointId', call?.endpointIds[0] ?? data.endpoints.find((e) => e.customerId === customerId)?.id ?? '201');
		if (!data.endpoints.some((e) => e.customerId === customerId && e.id === endpointId)) {
			throw invalid('endpointId', `names no endpoint of customer ${customerId} (${endpointId})`);
		}
		if (input.bytes !== undefined && input.seconds !== undefined) throw invalid('seconds', 'is not given with bytes: the size sets the length');
		const seconds = input.seconds ?? 1;
		if (typeof seconds !== 'number' || !(seconds > 0 && seconds <= MAX_RECORDING_SECONDS)) {
			throw invalid('seconds', `must be above 0 and at most ${MAX_RECORDING_SECONDS} (a larger recording: give bytes)`);
		}
		const { bytes } = input;
		if (bytes !== undefined && !(Number.isInteger(bytes) && bytes >= WAV_HEADER_BYTES + 2 && bytes <= MAX_WAV_BYTES)) {
			throw invalid('bytes', `must be an integer from ${WAV_HEADER_BYTES + 2} to ${MAX_WAV_BYTES}`);
		}
		const now = new Date(currentTime());
		const direction = oneOf(input.direction, ['IN', 'OUT'] as const, 'direction') ?? call?.direction ?? 'IN';
		const recording: Recording = {
			id: this.host.nextId('recording', data.recordings),
			customerId,
			direction,
			partyId: text(input.partyId, 'partyId', call ? (call.direction === 'IN' ? call.fromNumber : call.toNumber) : '+447700900123'),
			started: timeInput(input.started, 'started', call?.callStarted ?? now),
			seconds,
			...(bytes !== undefined ? { bytes } : {}),
			callId,
			linkedId: text(input.linkedId, 'linkedId', call?.linkedId ?? callId),
			endpointId,
			created: timeInput(input.created, 'created', now),
		};
		data.recordings.push(recording);
		return this.host.recordingRep(recording);
	}

	/** A recording of a given size: streamed from one reused block with back-pressure, never held. */
	streamRecording(res: ServerResponse, bytes: number): void {
		const audio = wavStream(bytes);
		res.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': String(bytes) });
		this.downloads.set(audio, res);
		pipeline(audio, res, () => this.downloads.delete(audio));
	}

	// ---- outgoing SMS -----------------------------------------------------------------

	private deliveryStatus(value: unknown): number | null | undefined {
		if (value === undefined || value === null) return value;
		return oneOf(value, DELIVERY_STATUSES, 'deliveryStatus');
	}

	/** Sets a message's statuses; a delivery status set publishes `smsdelivered` (which carries no values). */
	private apply(message: SmsMessage, change: SmsStatusChange): number {
		if (change.sendStatus !== undefined) message.sendStatus = change.sendStatus;
		if (change.deliveryStatus === null) delete message.deliveryStatus;
		if (typeof change.deliveryStatus !== 'number') return 0;
		message.deliveryStatus = change.deliveryStatus;
		return this.host.publish(message.customerId, 'smsdelivered', {});
	}

	/** A message sent through the API: PENDING now, then what `smsOutcome` says, a step every `smsDelayMs` of the sandbox's time. */
	scheduleOutcome(message: SmsMessage): void {
		const steps = new AbortController();
		this.smsSteps.set(message.id, steps);
		void (async () => {
			for (const step of outcomeSteps(this.host.smsOutcome(), message.to)) {
				await sandboxSleep(this.host.smsDelayMs(), steps.signal);
				if (steps.signal.aborted) return;
				this.apply(message, step);
			}
			if (this.smsSteps.get(message.id) === steps) this.smsSteps.delete(message.id);
		})();
	}

	private cancelOutcome(id: string): void {
		this.smsSteps.get(id)?.abort();
		this.smsSteps.delete(id);
	}

	/** An outgoing message exactly as given: nothing changes it later but `setSmsStatus`. */
	injectOutboundSms(input: OutboundSmsInput = {}): { sms: Rep; delivered: number } {
		const data = this.host.data();
		const customerId = this.customerId(input.customerId);
		const body = text(input.body, 'body', 'Hello from the sandbox');
		const cost = input.cost ?? Math.round(Math.max(1, Math.ceil(body.length / 160)) * 4) / 100;
		if (typeof cost !== 'number' || !Number.isFinite(cost)) throw invalid('cost', 'must be a number');
		const deliveryStatus = this.deliveryStatus(input.deliveryStatus);
		const message: SmsMessage = {
			id: this.host.nextId('sms', data.sms),
			customerId,
			direction: 'OUT',
			from: text(input.from, 'from', data.customers.find((c) => c.id === customerId)?.telephone ?? 'Acme'),
			to: text(input.to, 'to', '+447700900123'),
			body,
			sendStatus: oneOf(input.sendStatus, SEND_STATUSES, 'sendStatus') ?? 'PENDING',
			cost,
			created: timeInput(input.created, 'created', new Date(currentTime())),
		};
		data.sms.push(message);
		const delivered = this.apply(message, { deliveryStatus });
		return { sms: this.host.smsRep(message), delivered };
	}

	/** Changes an outgoing message's statuses now; what `smsOutcome` still had in store for it is cancelled. */
	setSmsStatus(id: string, change: SmsStatusChange = {}): { sms: Rep; delivered: number } {
		const message = this.host.data().sms.find((m) => m.id === String(id));
		if (!message) throw new HttpError(404, { message: `No SMS ${id}` });
		if (message.direction !== 'OUT') throw invalid('id', `names an incoming message (${id}); only outgoing ones have statuses`);
		const sendStatus = oneOf(change.sendStatus, SEND_STATUSES, 'sendStatus');
		const deliveryStatus = this.deliveryStatus(change.deliveryStatus);
		this.cancelOutcome(message.id);
		const delivered = this.apply(message, { sendStatus, deliveryStatus });
		return { sms: this.host.smsRep(message), delivered };
	}

	// ---- credit -----------------------------------------------------------------------

	/** Sets a customer's balance and/or account type; `creditstatus` shows it at once. */
	setCredit(customerId: string | undefined, change: CreditChange = {}): Rep {
		const id = this.customerId(customerId);
		const credit = this.host.data().credit[id];
		if (change.balance !== undefined && !(typeof change.balance === 'number' && Number.isFinite(change.balance))) throw invalid('balance', 'must be a number');
		const accountType = oneOf(change.accountType, ['PREPAID', 'POSTPAID'] as const, 'accountType');
		if (change.balance !== undefined) credit.balance = change.balance;
		if (accountType !== undefined) credit.accountType = accountType;
		return this.host.creditRep(id);
	}
}
