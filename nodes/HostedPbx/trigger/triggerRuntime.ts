import type { IDataObject, INodeProperties, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { hostedPbxApi } from '../../shared/apis';
import { filtersField } from '../../shared/describe';
import { redact } from '../../shared/errors';
import { idFromUri } from '../../shared/params';
import type { Refusal } from '../../shared/triggers/refusals';
import { FIRST_RETRY_MS, clearRefusal, credentialFingerprint, pendingRefusal, recordRefusal, refusalMessage } from '../../shared/triggers/refusals';
import { replacePreviousActivation } from '../../shared/triggers/activations';
import { FAILURE_REPORT_INTERVAL_MS, clearFailureReport, failureLogLevel, failureReportDue } from '../../shared/triggers/failureReports';
import { heartbeatTimeoutOption } from '../../shared/triggers/options';
import { TriggerMemory } from '../../shared/triggers/triggerMemory';
import { wait } from '../../shared/timers';
import { createClient } from '../../shared/transport';
import { PbxLiveStream } from './liveStream';
import type { PollSource } from './polling';
import { parseParty } from './polling';
import type { RecoveryState } from './recovery';
import { recoverGap, rememberLive } from './recovery';

/**
 * What both versions of the Hosted PBX Trigger run: the live stream, and the items of stream
 * events and polled records.
 */

/** The option that turns recovery of missed live events on or off. */
export function recoverMissedEventsOption(displayOptions: INodeProperties['displayOptions']): INodeProperties {
	return {
		displayName: 'Recover Missed Events',
		name: 'recoverMissedEvents',
		type: 'boolean',
		default: true,
		description:
			'Whether to read incoming calls and received SMS that the stream missed (a dropped connection, a restart of n8n) from the history and emit them, marked recovered: true. Delivery receipts cannot be recovered.',
		displayOptions,
	};
}

/** The polling cursor's look-back window. */
export function lookbackOption(displayOptions: INodeProperties['displayOptions']): INodeProperties {
	return {
		displayName: 'Look-Back Window (Minutes)',
		name: 'lookbackMinutes',
		type: 'number',
		default: 10,
		// Every poll re-reads the window: a day is as late as a record may appear and still be read cheaply.
		typeOptions: { minValue: 1, maxValue: 1440 },
		description: 'Records that appear up to this late, or share a timestamp, are still emitted exactly once (1 to 1,440)',
		displayOptions,
	};
}

/** The API sends a heartbeat on the stream this often (spec: live stream, rule 1). */
export const HEARTBEAT_INTERVAL_SECONDS = 60;

/**
 * The live stream's Heartbeat Timeout. At least the heartbeat interval and 5 s for delivery (a
 * shorter one cuts a quiet, healthy stream, and its events in the gaps are lost); at most ten
 * intervals, so a dead connection is noticed within minutes.
 */
export function heartbeatOption(displayOptions: INodeProperties['displayOptions']): INodeProperties {
	const [minValue, maxValue] = [HEARTBEAT_INTERVAL_SECONDS + 5, HEARTBEAT_INTERVAL_SECONDS * 10];
	return heartbeatTimeoutOption(
		`Reconnect when the live stream sends nothing for this long (the API sends a heartbeat every ${HEARTBEAT_INTERVAL_SECONDS} s; ${minValue} to ${maxValue})`,
		{ displayOptions, typeOptions: { minValue, maxValue } },
	);
}


const OUTCOMES = ['ANSWERED', 'NO_ANSWER', 'BUSY', 'FAILED'];

/** Direction and outcome filters of new call records. */
export function callRecordFilters(displayOptions: INodeProperties['displayOptions']): INodeProperties {
	return filtersField(
		[
			{
				displayName: 'Direction',
				name: 'direction',
				type: 'options',
				default: 'any',
				options: [
					{ name: 'Any', value: 'any' },
					{ name: 'Inbound', value: 'in' },
					{ name: 'Outbound', value: 'out' },
				],
			},
			{
				displayName: 'Outcomes',
				name: 'outcomes',
				type: 'multiOptions',
				default: [],
				description: 'Only calls with one of these outcomes (all when none is chosen)',
				options: OUTCOMES.map((value) => ({ name: value.replace('_', ' ').toLowerCase().replace(/^\w/, (c) => c.toUpperCase()), value })),
			},
		],
		{ displayOptions },
	);
}

/** A stream event as one flat item: its name, its values at the top level, when it arrived. */
export function liveEventItem(object: Record<string, unknown>, receivedAt = new Date()): IDataObject {
	const values = (object.values && typeof object.values === 'object' ? object.values : {}) as IDataObject;
	const item: IDataObject = { event: String(object.event), ...values, location: (object.location ?? null) as IDataObject[string], receivedAt: receivedAt.toISOString() };
	if (typeof values.endpoint === 'string') item.endpointId = idFromUri(values.endpoint);
	return item;
}

/** A call or SMS record as an item, with caller and callee split into name and number. */
export function polledItem(event: string, record: IDataObject): IDataObject {
	const from = parseParty(record.from);
	const to = parseParty(record.to);
	return { event, ...record, fromName: from.name, fromNumber: from.number, toName: to.name, toNumber: to.number };
}

export function pollSource(event: string, filters: IDataObject): PollSource {
	if (event === 'inboundSms') {
		return { collection: 'sms', query: {}, matches: (r) => r.direction === 'IN' };
	}
	if (event === 'missedCall') {
		// Missed: an inbound call that nobody answered.
		return { collection: 'calls', query: { direction: 'in' }, matches: (r) => r.direction === 'IN' && r.outcome !== 'ANSWERED' };
	}
	const direction = String(filters.direction ?? 'any');
	const outcomes = (filters.outcomes as string[] | undefined) ?? [];
	return {
		collection: 'calls',
		query: direction === 'any' ? {} : { direction },
		matches: (r) =>
			(direction === 'any' || String(r.direction).toLowerCase() === direction) &&
			(outcomes.length === 0 || outcomes.includes(String(r.outcome))),
	};
}

/** Waits this long after a reconnect before reading the gap, so events arriving live around it are seen first. */
const RECOVERY_DELAY_MS = 2000;

export const REFUSED_DESCRIPTION = 'Check the username and password of the Hosted PBX API credential.';

export interface LiveSettings {
	/** Stream events to emit (`incomingcall`, `smsreceived`, `smsdelivered`). */
	events: string[];
	heartbeatTimeoutSeconds: number;
	/** Whether events missed in a gap are read back from the history. */
	recoverMissedEvents: boolean;
	/** Whose history the gap is read from. */
	customer: string;
	/** Where the trigger remembers the last event it saw (saved with each emit). */
	state: RecoveryState;
}

/** The recovery state of each live trigger in this process (a later activation may get an older copy). */
const liveStates = new TriggerMemory<RecoveryState>((state) => state.lastSeenAt);

/** Holds the live event stream; shared by both versions of the node. */
export async function liveTrigger(context: ITriggerFunctions, settings: LiveSettings): Promise<ITriggerResponse> {
	const { events, customer } = settings;
	const manual = context.getMode() === 'manual';
	const node = context.getNode();
	const key = `${context.getWorkflow().id ?? ''}|${node.id ?? node.name}`;
	const state = manual ? settings.state : liveStates.freshest(key, settings.state);
	const credentials = await context.getCredentials('hostedPbxApi');
	const forms = hostedPbxApi.secretForms(credentials);
	const fingerprint = credentialFingerprint(credentials);
	const refusedError = (refusal: Refusal) =>
		new NodeApiError(node, {}, { message: refusalMessage(hostedPbxApi.label, refusal), description: `${REFUSED_DESCRIPTION} The user must be allowed to open the live event stream.` });
	// While a refusal holds, an activation costs no request. A user's activation fails with it
	// (visible at once); n8n's own activation after the running trigger reported it (emitError)
	// succeeds and waits for the next attempt, so the trigger recovers by itself when the
	// credential works again: n8n 2.x gives up after five failed activations within 15 s.
	const holding = pendingRefusal(key, fingerprint);
	if (holding && !manual && !holding.whileRunning) throw refusedError(holding);
	const startDelay = holding && !manual ? Math.max(0, holding.nextAttemptAt - Date.now()) : 0;

	const recover = !manual && settings.recoverMissedEvents;
	// A user publishing the workflow starts listening afresh: nothing older is ever read back.
	// (A restart of n8n, or n8n activating the trigger again after a refusal, goes on listening.)
	if (!manual && !holding?.whileRunning && !['init', 'leadershipChange'].includes(context.getActivationMode())) state.listeningSince = Date.now();
	// After a restart of n8n (not a user's activation), or when n8n activates the trigger again
	// after it reported a refusal, the time since the last event is a gap too.
	const restartGapSince = recover && (holding?.whileRunning || ['init', 'leadershipChange'].includes(context.getActivationMode())) ? state.lastSeenAt : undefined;
	let activated = false;
	let testEventSent = false;
	const closing = new AbortController();
	// Shown where n8n shows trigger problems (a wrong Base URL, an outage): n8n then activates the
	// trigger again, which goes on retrying with backoff and reports again only after
	// FAILURE_REPORT_INTERVAL_MS while it lasts. A test run stops.
	const reportPersistentFailure = (reason: string, failedAttempts: number, status?: number) => {
		if (!activated || (!manual && !failureReportDue(key))) return;
		const keepsTrying = manual ? '' : `The trigger keeps trying with backoff (up to a minute apart) and reports this again every ${FAILURE_REPORT_INTERVAL_MS / 60_000} minutes while it lasts. `;
		context.emitError(
			new NodeApiError(node, {}, {
				message: `The ${hostedPbxApi.label} live event stream cannot be opened: ${redact(reason, forms)}`,
				description: `${failedAttempts} attempts in a row failed. ${keepsTrying}Check the credential's Base URL and the service's status.`,
				httpCode: status ? String(status) : undefined,
			}),
		);
		if (manual) void stream.stop();
	};

	// Nothing is emitted once n8n closed the trigger (a deactivation or a shutdown): an execution
	// started then would never run and would keep n8n's shutdown waiting.
	const emitItems = (items: IDataObject[]) => {
		for (const item of items) if (!closing.signal.aborted) context.emit([context.helpers.returnJsonArray([item])]);
	};
	// One read-back at a time: reconnects while one waits widen its gap instead of adding another.
	let gap: { since: number; until: number } | undefined;
	const readBackGap = async (since: number, until: number) => {
		if (gap) {
			gap = { since: Math.min(gap.since, since), until: Math.max(gap.until, until) };
			return;
		}
		gap = { since, until };
		await wait(RECOVERY_DELAY_MS, closing.signal);
		const { since: from, until: to } = gap;
		gap = undefined;
		if (closing.signal.aborted) return;
		try {
			const recovered = await recoverGap(createClient(context, hostedPbxApi), customer, events, state, from, to);
			if (recovered.length) {
				context.logger.info(`Hosted PBX stream: ${recovered.length} event(s) missed between ${new Date(from).toISOString()} and ${new Date(to).toISOString()} recovered from the history`);
			}
			emitItems(recovered);
		} catch (error) {
			context.logger.warn(`Hosted PBX stream: could not read the history to recover events missed since ${new Date(from).toISOString()}: ${(error as Error).message}`);
		}
	};

	const stream: PbxLiveStream = new PbxLiveStream({
		open: async (signal) => await createClient(context, hostedPbxApi).stream({ method: 'GET', path: '/stream' }, signal),
		heartbeatWindowMs: settings.heartbeatTimeoutSeconds * 1000,
		onObject: (object) => {
			state.lastSeenAt = Date.now();
			if (!events.includes(String(object.event)) || testEventSent || closing.signal.aborted) return;
			if (!manual) rememberLive(state, object);
			context.emit([context.helpers.returnJsonArray([liveEventItem(object)])]);
			if (manual) {
				// A test run needs one event; the stream is closed right after it.
				testEventSent = true;
				void stream.stop();
			}
		},
		onIncident: (excerpt, reason) => {
			context.logger.warn(`Hosted PBX stream: skipped bytes that are not a JSON object (${reason}): ${redact(excerpt, forms)}`);
		},
		onRefused: async (status, message) => {
			// At activation the refusal fails the activation (below); the stream is stopped before this wait ends.
			if (!activated) return FIRST_RETRY_MS;
			const current = credentialFingerprint(await context.getCredentials('hostedPbxApi'));
			const refusal = recordRefusal(key, status, message, current, { whileRunning: true });
			// Shown where n8n shows trigger problems, once per attempt (60 s, then every 15 minutes).
			context.emitError(refusedError(refusal));
			return refusal.nextAttemptAt - Date.now();
		},
		onConnected: ({ gapSince }) => {
			clearRefusal(key);
			clearFailureReport(key);
			const since = gapSince ?? restartGapSince;
			if (recover && since !== undefined && (gapSince !== undefined || stream.connections === 1)) void readBackGap(since, Date.now());
		},
		onTransientFailure: (reason, retryInMs, failedAttempts, status) => {
			// A working stream that dropped is routine; an attempt that got no stream is not.
			const level = failureLogLevel(failedAttempts);
			const line = `Hosted PBX stream: ${redact(reason, forms)}; reconnecting in ${retryInMs} ms`;
			context.logger[level](level === 'error' ? `${line} (${failedAttempts} failed attempts in a row)` : line);
			if (level === 'error') reportPersistentFailure(reason, failedAttempts, status);
		},
	});
	const stopStream = async () => {
		closing.abort();
		await stream.stop();
	};
	const release = manual ? () => undefined : await replacePreviousActivation(key, stopStream);
	stream.start(startDelay);
	if (startDelay === 0) {
		const first = await stream.firstOutcome;
		if (!first.connected && first.refused) {
			release();
			await stopStream();
			throw refusedError(recordRefusal(key, first.refused.status, first.refused.message, fingerprint));
		}
	}
	activated = true;
	return {
		closeFunction: async () => {
			release();
			await stopStream();
			if (stream.lastDataAt) state.lastSeenAt = stream.lastDataAt;
		},
	};
}

