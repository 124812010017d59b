import type {
	IDataObject,
	INodeProperties,
	IPollFunctions,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { hostedPbxApi } from '../../shared/apis';
import { booleanField, heartbeatTimeoutOption, numericField } from '../../shared/fields';
import type { SecretForms } from '../../shared/redaction';
import { redact } from '../../shared/redaction';
import { JsonObjectSplitter } from '../../shared/streams/jsonObjects';
import type { Attempt } from '../../shared/streams/reconnectingStream';
import { ReconnectingStream, failedAnswer } from '../../shared/streams/reconnectingStream';
import type { Trigger } from '../../shared/triggers/lifecycle';
import { LiveActivation, numericSettings } from '../../shared/triggers/lifecycle';
import { clock, wait } from '../../shared/timers';
import type { RequestContext } from '../../shared/transport/client';
import { createClient } from '../../shared/transport/client';
import { rateLimitWaitMs } from '../../shared/transport/failures';
import { liveEventItem } from './events';
import type { RecoveryState } from './recovery';
import { eventTime, isRecoverable, recoverGap, rememberEmitted } from './recovery';

/** The API sends a heartbeat on the stream this often (spec: live stream, rule 1). */
export const HEARTBEAT_INTERVAL_SECONDS = 60;
/** A test run of live events waits this long for one to happen. */
export const MANUAL_LIVE_WAIT_MS = 120_000;
/** After a reconnect the gap is read back this much later, so events arriving live around it are seen first. */
const RECOVERY_DELAY_MS = 2000;
/** An activation of the node in this process that starts within this of the last one stopping continues it (n8n re-activates at once): it takes over what was gathering and reads back the time between. */
const CONTINUATION_MS = 60_000;

export const REFUSED_DESCRIPTION =
	'Check the username and password of the Hosted PBX API credential.';

/** At least the heartbeat interval and 5 s (shorter cuts a quiet, healthy stream), at most ten: a dead connection shows within minutes. */
export function heartbeatOption(
	displayOptions: INodeProperties['displayOptions'],
): INodeProperties {
	const [minValue, maxValue] = [HEARTBEAT_INTERVAL_SECONDS + 5, HEARTBEAT_INTERVAL_SECONDS * 10];
	return heartbeatTimeoutOption(
		`Reconnect when the live stream sends nothing for this long (the API sends a heartbeat every ${HEARTBEAT_INTERVAL_SECONDS} s; ${minValue} to ${maxValue})`,
		{ displayOptions, typeOptions: { minValue, maxValue } },
	);
}

export function recoverMissedEventsOption(
	displayOptions: INodeProperties['displayOptions'],
): INodeProperties {
	const description =
		'Whether to read incoming calls and received SMS that the stream missed (a dropped connection, a restart of n8n) from the history and emit them, marked recovered: true. Delivery receipts cannot be recovered.';
	return booleanField('Recover Missed Events', 'recoverMissedEvents', description, {
		default: true,
		displayOptions,
	});
}

/** Batches of live events: one execution per batch of up to Batch Size events, or what came within the Batch Window. */
export const batchOptions = (
	displayOptions: INodeProperties['displayOptions'],
): INodeProperties[] => [
	numericField(
		'Batch Size',
		'batchSize',
		1,
		{ minValue: 1, maxValue: 1000, numberPrecision: 0 },
		{
			description:
				'Live events per execution (1 to 1,000). One execution per event is the ceiling for a busy stream: batches of 100 run far fewer executions.',
			displayOptions,
		},
	),
	// At most a minute: under the two minutes in which a read-back matches a record to a live event.
	numericField(
		'Batch Window (Milliseconds)',
		'batchWindowMs',
		1000,
		{ minValue: 10, maxValue: 60_000, numberPrecision: 0 },
		{
			description:
				'A batch that is not full starts its execution this long after its first event (10 to 60,000)',
			displayOptions: {
				show: { ...(displayOptions?.show ?? {}), batchSize: [{ _cnd: { gt: 1 } }] },
			},
		},
	),
];

/** Gathers items into batches for `flush`: up to `size` items, or what came within `windowMs` of the first. */
function batcher(size: number, windowMs: number, flush: (items: IDataObject[]) => void) {
	let pending: IDataObject[] = [];
	let timer: AbortController | undefined;
	const stopTimer = () => {
		timer?.abort();
		timer = undefined;
	};
	/** Takes the items still gathering: they are not flushed. */
	const take = () => {
		stopTimer();
		const items = pending;
		pending = [];
		return items;
	};
	const now = () => {
		const items = take();
		if (items.length) flush(items);
	};
	// Items come one by one, or several at once (a read-back): while flushing, `pending` holds the rest.
	const add = (...items: IDataObject[]) => {
		pending.push(...items);
		while (pending.length >= size) {
			stopTimer();
			flush(pending.splice(0, size));
		}
		if (timer || pending.length === 0) return;
		const mine = (timer = new AbortController());
		void wait(windowMs, mine.signal).then(() => timer === mine && now());
	};
	return { add, take, pending: () => pending };
}

export interface LiveSettings {
	events: string[];
	heartbeatOption: INodeProperties;
	batchOptions: INodeProperties[];
	/** Whose history a gap is read from. */
	customer: string;
}

/** The Hosted PBX `/stream` with JSON-object framing, on the shared reconnecting core. */
function pbxStream(
	context: RequestContext,
	heartbeatWindowMs: number,
	handlers: Pick<
		ConstructorParameters<typeof ReconnectingStream>[0],
		'onRefused' | 'onConnected' | 'onTransientFailure'
	> & {
		onObject: (object: Record<string, unknown>) => void;
		onIncident: (excerpt: string, reason: string) => void;
	},
): ReconnectingStream {
	return new ReconnectingStream({
		connect: async (signal): Promise<Attempt> => {
			const response = await createClient(context, hostedPbxApi).stream(
				{ method: 'GET', path: '/stream' },
				signal,
			);
			if (response.ok) return { kind: 'open', body: response.body, status: response.status };
			return failedAnswer(
				response,
				response.status === 429 ? rateLimitWaitMs(response.headers) : undefined,
			);
		},
		// Any bytes (heartbeats too) mean the connection works.
		framing: (progress) => {
			const splitter = new JsonObjectSplitter({
				onObject: handlers.onObject,
				onMalformed: handlers.onIncident,
			});
			return { push: (chunk) => (progress(), splitter.push(chunk)), end: () => splitter.end() };
		},
		heartbeatWindowMs,
		...handlers,
	});
}

/** The live events: a standing connection while the workflow is active. */
export async function liveTrigger(
	context: ITriggerFunctions,
	settings: LiveSettings,
): Promise<ITriggerResponse> {
	const { events, customer } = settings;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const numbers = numericSettings(
		context.getNode(),
		[settings.heartbeatOption, ...settings.batchOptions],
		options,
	);
	const heartbeatMs = numbers.heartbeatTimeoutSeconds * 1000;
	const forms = hostedPbxApi.secretForms(await context.getCredentials('hostedPbxApi'));
	const activation = pbxActivation(context, forms);
	const { manual, trigger } = activation;
	const startDelay = await activation.startDelay();
	const recover = !manual && options.recoverMissedEvents !== false;
	const resumed = await goesOnListening(context, activation);
	// Loaded with no wait before the previous activation is stopped below, so nothing it sees is missed here.
	const staticData = context.getWorkflowStaticData('node');
	const state: RecoveryState =
		(manual ? undefined : trigger.load<RecoveryState>(staticData, 'live', (s) => s.lastSeenAt)) ??
		{};
	const save = () => manual || trigger.save(staticData, 'live', state);
	if (!manual && !resumed) state.listeningSince = clock.now();
	// From the earlier of the last thing seen (before the first heartbeat: when listening began) and what was
	// read back but not emitted when n8n last saved.
	const restartGapSince =
		recover && resumed
			? earliest([state.lastSeenAt ?? state.listeningSince, state.unemittedSince])
			: undefined;
	save();
	if (!manual) {
		const gap = restartGapSince === undefined ? 'nothing' : new Date(restartGapSince).toISOString();
		context.logger.debug(
			`Hosted PBX stream: activated (${context.getActivationMode()}${resumed ? '' : ', a new publication'}); reads back from ${gap}`,
		);
	}

	let testEventSent = false;
	const batches = liveBatches(context, activation, state, save, numbers, recover);
	const readBack = readsBackGaps(context, customer, events, state, batches.closed, batches, save);
	const stream: ReconnectingStream = pbxStream(context, heartbeatMs, {
		onObject: (object) => {
			// Closed: what still arrives is for the next activation to read back, and the state is no longer this one's to save.
			if (batches.closed.aborted) return;
			state.lastSeenAt = clock.now();
			if (!events.includes(String(object.event)) || testEventSent) return save();
			batches.add(liveEventItem(object, new Date(clock.now())));
			if (manual) {
				// A test run needs one event; the stream is closed right after it.
				testEventSent = true;
				void stream.stop();
			}
		},
		onIncident: (excerpt, reason) =>
			context.logger.warn(
				`Hosted PBX stream: skipped bytes that are not a JSON object (${reason}): ${redact(excerpt, forms)}`,
			),
		onRefused: activation.onRefused,
		onConnected: ({ number, gapSince }) => {
			trigger.recovered();
			const since = gapSince ?? (number === 1 ? restartGapSince : undefined);
			if (recover && since !== undefined) void readBack(since, clock.now());
		},
		onTransientFailure: activation.onTransientFailure,
	});
	const stop = async () => {
		batches.close();
		await stream.stop();
	};
	const response = await activation.start(
		{ firstOutcome: stream.firstOutcome, start: (delay) => stream.start(delay), stop },
		startDelay,
	);
	if (!manual) batches.add(...handedOver(trigger, events));
	return response;
}

/**
 * A restart of n8n, its activation after a refusal, and n8n activating the node again in this process (an
 * update, a retry, twice at once) go on listening: the time since the last thing seen is a gap. A user publishing
 * the workflow starts afresh: nothing older is read back.
 */
async function goesOnListening(
	context: ITriggerFunctions,
	activation: LiveActivation,
): Promise<boolean> {
	return (
		(await activation.resumingAfterRefusal()) ||
		['init', 'leadershipChange'].includes(context.getActivationMode()) ||
		activation.trigger.continuesAnother(CONTINUATION_MS)
	);
}

/** How the Hosted PBX live stream's activation reports refusals and failures. */
function pbxActivation(context: ITriggerFunctions, forms: SecretForms): LiveActivation {
	return new LiveActivation(context, {
		label: hostedPbxApi.label,
		credentialType: hostedPbxApi.credentialType,
		refusedAdvice: `${REFUSED_DESCRIPTION} The user must be allowed to open the live event stream.`,
		logPrefix: 'Hosted PBX stream',
		failureMessage: (reason) =>
			`The ${hostedPbxApi.label} live event stream cannot be opened: ${reason}`,
		failureAdvice: "Check the credential's Base URL and the service's status.",
		redact: (text) => redact(text, forms),
	});
}

/** Live events gathered into executions; `close` holds back, when n8n closes the trigger, what can be brought back. */
function liveBatches(
	context: ITriggerFunctions,
	{ manual, trigger }: Pick<LiveActivation, 'manual' | 'trigger'>,
	state: RecoveryState,
	save: () => void,
	numbers: Record<string, number>,
	recover: boolean,
) {
	const closing = new AbortController();
	// Seen once emitted, and saved with it: an event still gathering in a batch stays unseen, so a restart reads it back.
	const emit = (items: IDataObject[]) => {
		if (!manual) rememberEmitted(state, items);
		state.unemittedSince = earliest(batches.pending().map(eventTime));
		save();
		context.emit([context.helpers.returnJsonArray(items)]);
	};
	// Nothing is emitted once n8n closed the trigger: a run started then would keep its shutdown waiting.
	const batches = batcher(manual ? 1 : numbers.batchSize, numbers.batchWindowMs, (items) => {
		if (!closing.signal.aborted) emit(items);
	});
	const close = () => {
		// A batch still gathering: a run started while n8n shuts down may never run or be marked crashed, so what
		// the history holds stays unseen for the read-back after a restart, and goes to the next activation in this
		// process (a workflow published again); the rest is emitted now, as nothing else can bring it back.
		const unemitted = batches.take();
		const held = recover ? unemitted.filter(isRecoverable) : [];
		const rest = unemitted.filter((item) => !held.includes(item));
		if (rest.length) emit(rest);
		closing.abort();
		if (held.length) {
			state.unemittedSince = earliest([state.unemittedSince, ...held.map(eventTime)]);
			save();
			trigger.handOver('live', held);
		}
	};
	return { add: batches.add, pending: batches.pending, closed: closing.signal, close };
}

/** What the activation this one replaces in this process could not emit (a later one takes what this one holds back). */
function handedOver(trigger: Trigger, events: string[]): IDataObject[] {
	return trigger
		.takeOver<IDataObject>('live', CONTINUATION_MS)
		.filter((item) => events.includes(String(item.event)));
}

/** The earliest of some times, if any. */
function earliest(times: Array<number | undefined>): number | undefined {
	const known = times.filter((time): time is number => time !== undefined && Number.isFinite(time));
	return known.length ? Math.min(...known) : undefined;
}

/** Reads back what the stream missed, one gap at a time: reconnects while one waits widen its gap. */
function readsBackGaps(
	context: ITriggerFunctions,
	customer: string,
	events: string[],
	state: RecoveryState,
	closed: AbortSignal,
	batches: { add: (...items: IDataObject[]) => void; pending: () => IDataObject[] },
	save: () => void,
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
			const recovered = await recoverGap(
				createClient(context, hostedPbxApi),
				customer,
				events,
				state,
				from,
				to,
				batches.pending(),
			);
			if (recovered.length) {
				context.logger.info(
					`Hosted PBX stream: ${recovered.length} event(s) missed between ${new Date(from).toISOString()} and ${new Date(to).toISOString()} recovered from the history`,
				);
			}
			save();
			// Closed meanwhile: they stay unseen, for the read-back after a restart.
			if (!closed.aborted) batches.add(...recovered);
		} catch (error) {
			const { message, description } = error as Error & { description?: string };
			context.logger.warn(
				`Hosted PBX stream: could not read the history to recover events missed since ${new Date(from).toISOString()}: ${message}${description ? ` (${description})` : ''}`,
			);
		}
	};
}

/** A test run of live events: the first one that happens within two minutes. */
export async function firstLiveEvent(
	context: IPollFunctions,
	events: string[],
	heartbeat: INodeProperties,
): Promise<IDataObject> {
	const node = context.getNode();
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const heartbeatMs = numericSettings(node, [heartbeat], options).heartbeatTimeoutSeconds * 1000;
	let received: (item: IDataObject) => void = () => {};
	let refused: (error: Error) => void = () => {};
	const arrival = new Promise<IDataObject>(
		(resolve, reject) => ((received = resolve), (refused = reject)),
	);
	const stream = pbxStream(context, heartbeatMs, {
		onObject: (object) =>
			events.includes(String(object.event)) &&
			received(liveEventItem(object, new Date(clock.now()))),
		onIncident: () => undefined,
		onRefused: (status, message) => {
			refused(
				new NodeApiError(
					node,
					{},
					{ message: `${message} (HTTP ${status})`, description: REFUSED_DESCRIPTION },
				),
			);
			return MANUAL_LIVE_WAIT_MS;
		},
	});
	const timeout = new AbortController();
	stream.start();
	try {
		const item = await Promise.race([
			arrival,
			wait(MANUAL_LIVE_WAIT_MS, timeout.signal).then(() => undefined),
		]);
		if (item) return item;
		const description =
			'The test run listens to the live stream: make a test call or send a test SMS while it waits.';
		throw new NodeOperationError(
			node,
			`No ${events.join(', ')} event within ${MANUAL_LIVE_WAIT_MS / 1000} s`,
			{ description },
		);
	} finally {
		timeout.abort();
		await stream.stop();
	}
}
