import type { IDataObject, INodeProperties, IPollFunctions, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { hostedPbxApi } from '../../shared/apis';
import { redact } from '../../shared/errors';
import { JsonObjectSplitter } from '../../shared/streams/jsonObjects';
import type { Attempt } from '../../shared/streams/reconnectingStream';
import { ReconnectingStream, failedAnswer } from '../../shared/streams/reconnectingStream';
import type { Refusal, Trigger } from '../../shared/triggers/lifecycle';
import { FAILURE_REPORT_INTERVAL_MS, FIRST_RETRY_MS, credentialFingerprint, failureLogLevel, heartbeatTimeoutOption, numericSettings, refusalMessage, triggerOf } from '../../shared/triggers/lifecycle';
import { clock, wait } from '../../shared/timers';
import type { RequestContext } from '../../shared/transport';
import { createClient, rateLimitWaitMs } from '../../shared/transport';
import { liveEventItem } from './events';
import type { RecoveryState } from './recovery';
import { recoverGap, rememberLive } from './recovery';

/** The API sends a heartbeat on the stream this often (spec: live stream, rule 1). */
export const HEARTBEAT_INTERVAL_SECONDS = 60;
/** A test run of live events waits this long for one to happen. */
export const MANUAL_LIVE_WAIT_MS = 120_000;
/** After a reconnect the gap is read back this much later, so events arriving live around it are seen first. */
const RECOVERY_DELAY_MS = 2000;

export const REFUSED_DESCRIPTION = 'Check the username and password of the Hosted PBX API credential.';

/**
 * The Heartbeat Timeout: at least the heartbeat interval and 5 s for delivery (a shorter one cuts
 * a quiet, healthy stream), at most ten intervals, so a dead connection is noticed within minutes.
 */
export function heartbeatOption(displayOptions: INodeProperties['displayOptions']): INodeProperties {
	const [minValue, maxValue] = [HEARTBEAT_INTERVAL_SECONDS + 5, HEARTBEAT_INTERVAL_SECONDS * 10];
	return heartbeatTimeoutOption(
		`Reconnect when the live stream sends nothing for this long (the API sends a heartbeat every ${HEARTBEAT_INTERVAL_SECONDS} s; ${minValue} to ${maxValue})`,
		{ displayOptions, typeOptions: { minValue, maxValue } },
	);
}

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

export interface LiveSettings {
	/** Stream events to emit (`incomingcall`, `smsreceived`, `smsdelivered`). */
	events: string[];
	heartbeatOption: INodeProperties;
	/** Whose history a gap is read from. */
	customer: string;
}

/** The Hosted PBX `/stream` with JSON-object framing, on the shared reconnecting core. */
function pbxStream(
	context: RequestContext,
	heartbeatWindowMs: number,
	handlers: Pick<ConstructorParameters<typeof ReconnectingStream>[0], 'onRefused' | 'onConnected' | 'onTransientFailure'> & {
		onObject: (object: Record<string, unknown>) => void;
		onIncident: (excerpt: string, reason: string) => void;
	},
): ReconnectingStream {
	return new ReconnectingStream({
		connect: async (signal): Promise<Attempt> => {
			const response = await createClient(context, hostedPbxApi).stream({ method: 'GET', path: '/stream' }, signal);
			if (response.ok) return { kind: 'open', body: response.body, status: response.status };
			return failedAnswer(response, response.status === 429 ? rateLimitWaitMs(response.headers) : undefined);
		},
		// Any bytes (heartbeats too) mean the connection works.
		framing: (progress) => {
			const splitter = new JsonObjectSplitter({ onObject: handlers.onObject, onMalformed: handlers.onIncident });
			return { push: (chunk) => (progress(), splitter.push(chunk)), end: () => splitter.end() };
		},
		heartbeatWindowMs,
		...handlers,
	});
}

/** The live events: a standing connection while the workflow is active. */
export async function liveTrigger(context: ITriggerFunctions, settings: LiveSettings): Promise<ITriggerResponse> {
	const { events, customer } = settings;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const heartbeatMs = numericSettings(context.getNode(), [settings.heartbeatOption], options).heartbeatTimeoutSeconds * 1000;
	const manual = context.getMode() === 'manual';
	const node = context.getNode();
	const trigger = triggerOf(context);
	const staticData = context.getWorkflowStaticData('node');
	const state: RecoveryState = (manual ? undefined : trigger.load<RecoveryState>(staticData, 'live', (s) => s.lastSeenAt)) ?? {};
	const save = () => manual || trigger.save(staticData, 'live', state);
	const credentials = await context.getCredentials('hostedPbxApi');
	const forms = hostedPbxApi.secretForms(credentials);
	const refusedError = (refusal: Refusal) =>
		new NodeApiError(node, {}, { message: refusalMessage(hostedPbxApi.label, refusal), description: `${REFUSED_DESCRIPTION} The user must be allowed to open the live event stream.` });
	// While a refusal holds, an activation costs no request: a user's activation fails with it;
	// n8n's own activation after the running trigger reported it waits for the next attempt.
	const holding = trigger.pendingRefusal(credentialFingerprint(credentials));
	if (holding && !manual && !holding.whileRunning) throw refusedError(holding);
	const startDelay = holding && !manual ? Math.max(0, holding.nextAttemptAt - clock.now()) : 0;

	const recover = !manual && options.recoverMissedEvents !== false;
	// A restart of n8n, or its activation after a refusal, goes on listening: the time since the
	// last event is a gap. A user publishing the workflow starts afresh: nothing older is read back.
	const resumed = Boolean(holding?.whileRunning) || ['init', 'leadershipChange'].includes(context.getActivationMode());
	if (!manual && !resumed) state.listeningSince = clock.now();
	const restartGapSince = recover && resumed ? state.lastSeenAt : undefined;
	save();

	let activated = false;
	let testEventSent = false;
	const closing = new AbortController();
	// Nothing is emitted once n8n closed the trigger: a run started then would keep n8n's shutdown waiting.
	const emit = (item: IDataObject) => {
		if (closing.signal.aborted) return;
		save();
		context.emit([context.helpers.returnJsonArray([item])]);
	};
	const gapReader = readsBackGaps(context, trigger, customer, events, state, closing.signal, emit);

	const stream: ReconnectingStream = pbxStream(context, heartbeatMs, {
		onObject: (object) => {
			state.lastSeenAt = clock.now();
			if (!events.includes(String(object.event)) || testEventSent || closing.signal.aborted) return save();
			if (!manual) rememberLive(state, object, clock.now());
			emit(liveEventItem(object, new Date(clock.now())));
			if (manual) {
				// A test run needs one event; the stream is closed right after it.
				testEventSent = true;
				void stream.stop();
			}
		},
		onIncident: (excerpt, reason) => context.logger.warn(`Hosted PBX stream: skipped bytes that are not a JSON object (${reason}): ${redact(excerpt, forms)}`),
		onRefused: async (status, message) => {
			// At activation the refusal fails the activation (below); the stream is stopped before this wait ends.
			if (!activated) return FIRST_RETRY_MS;
			const refusal = trigger.recordRefusal(status, message, credentialFingerprint(await context.getCredentials('hostedPbxApi')), true);
			// Shown where n8n shows trigger problems, once per attempt (60 s, then every 15 minutes).
			context.emitError(refusedError(refusal));
			return refusal.nextAttemptAt - clock.now();
		},
		onConnected: ({ number, gapSince }) => {
			trigger.recovered();
			const since = gapSince ?? (number === 1 ? restartGapSince : undefined);
			if (recover && since !== undefined) void gapReader(since, clock.now());
		},
		onTransientFailure: (reason, retryInMs, failedAttempts, status) => {
			// A working stream that dropped is routine; an attempt that got no stream is not.
			const level = failureLogLevel(failedAttempts);
			const line = `Hosted PBX stream: ${redact(reason, forms)}; reconnecting in ${retryInMs} ms`;
			context.logger[level](level === 'error' ? `${line} (${failedAttempts} failed attempts in a row)` : line);
			if (level !== 'error' || !activated || (!manual && !trigger.failureReportDue())) return;
			// Shown where n8n shows trigger problems; n8n then activates the trigger again, which keeps retrying. A test run stops.
			const keepsTrying = manual ? '' : `The trigger keeps trying with backoff (up to a minute apart) and reports this again every ${FAILURE_REPORT_INTERVAL_MS / 60_000} minutes while it lasts. `;
			context.emitError(
				new NodeApiError(node, {}, {
					message: `The ${hostedPbxApi.label} live event stream cannot be opened: ${redact(reason, forms)}`,
					description: `${failedAttempts} attempts in a row failed. ${keepsTrying}Check the credential's Base URL and the service's status.`,
					httpCode: status ? String(status) : undefined,
				}),
			);
			if (manual) void stream.stop();
		},
	});
	const stop = async () => {
		closing.abort();
		await stream.stop();
	};
	const release = manual ? () => undefined : await trigger.replaceActivation(stop);
	stream.start(startDelay);
	if (startDelay === 0) {
		const first = await stream.firstOutcome;
		if (first.kind === 'refused') {
			release();
			await stop();
			throw refusedError(trigger.recordRefusal(first.status, first.message, credentialFingerprint(credentials)));
		}
	}
	activated = true;
	return {
		closeFunction: async () => {
			release();
			await stop();
		},
	};
}

/**
 * Reads back what the stream missed in a gap, one read-back at a time: reconnects while one waits
 * widen its gap instead of adding another.
 */
function readsBackGaps(
	context: ITriggerFunctions,
	trigger: Trigger,
	customer: string,
	events: string[],
	state: RecoveryState,
	closed: AbortSignal,
	emit: (item: IDataObject) => void,
): (since: number, until: number) => Promise<void> {
	let gap: { since: number; until: number } | undefined;
	return async (since, until) => {
		if (gap) {
			gap = { since: Math.min(gap.since, since), until: Math.max(gap.until, until) };
			return;
		}
		gap = { since, until };
		await wait(RECOVERY_DELAY_MS, closed);
		const { since: from, until: to } = gap;
		gap = undefined;
		if (closed.aborted) return;
		try {
			const recovered = await recoverGap(createClient(context, hostedPbxApi), customer, events, state, from, to);
			if (recovered.length) {
				context.logger.info(`Hosted PBX stream: ${recovered.length} event(s) missed between ${new Date(from).toISOString()} and ${new Date(to).toISOString()} recovered from the history`);
			}
			recovered.forEach(emit);
			trigger.save(context.getWorkflowStaticData('node'), 'live', state);
		} catch (error) {
			context.logger.warn(`Hosted PBX stream: could not read the history to recover events missed since ${new Date(from).toISOString()}: ${(error as Error).message}`);
		}
	};
}

/** A test run of live events: the first one that happens within two minutes. */
export async function firstLiveEvent(context: IPollFunctions, events: string[], heartbeat: INodeProperties): Promise<IDataObject> {
	const node = context.getNode();
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const heartbeatMs = numericSettings(node, [heartbeat], options).heartbeatTimeoutSeconds * 1000;
	let received: (item: IDataObject) => void = () => {};
	let refused: (error: Error) => void = () => {};
	const arrival = new Promise<IDataObject>((resolve, reject) => ((received = resolve), (refused = reject)));
	const stream = pbxStream(context, heartbeatMs, {
		onObject: (object) => events.includes(String(object.event)) && received(liveEventItem(object, new Date(clock.now()))),
		onIncident: () => undefined,
		onRefused: (status, message) => {
			refused(new NodeApiError(node, {}, { message: `${message} (HTTP ${status})`, description: REFUSED_DESCRIPTION }));
			return MANUAL_LIVE_WAIT_MS;
		},
	});
	const timeout = new AbortController();
	stream.start();
	try {
		const item = await Promise.race([arrival, wait(MANUAL_LIVE_WAIT_MS, timeout.signal).then(() => undefined)]);
		if (item) return item;
		throw new NodeOperationError(node, `No ${events.join(', ')} event within ${MANUAL_LIVE_WAIT_MS / 1000} s`, {
			description: 'The test run listens to the live stream: make a test call or send a test SMS while it waits.',
		});
	} finally {
		timeout.abort();
		await stream.stop();
	}
}
