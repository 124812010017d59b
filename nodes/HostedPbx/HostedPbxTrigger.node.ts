import type {
	IDataObject,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { hostedPbxApi } from '../shared/apis';
import { redact } from '../shared/errors';
import { filtersField } from '../shared/describe';
import { idFromUri } from '../shared/params';
import type { Refusal } from '../shared/streams/refusals';
import { FIRST_RETRY_MS, clearRefusal, credentialFingerprint, pendingRefusal, recordRefusal, refusalMessage } from '../shared/streams/refusals';
import { heartbeatTimeoutOption, triggerOptions } from '../shared/streams/options';
import { cancellableWait, wait } from '../shared/timers';
import { createClient } from '../shared/transport';
import { customerField, listSearchMethods } from './fields';
import { PbxLiveStream } from './liveStream';
import type { PollCursor, PollSource } from './polling';
import { createdAt, parseParty, pollNewRecords, primeCursor } from './polling';
import type { RecoveryState } from './recovery';
import { recoverGap, rememberLive } from './recovery';

const OUTCOMES = ['ANSWERED', 'NO_ANSWER', 'BUSY', 'FAILED'];

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

export class HostedPbxTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Hosted PBX Trigger',
		name: 'hostedPbxTrigger',
		icon: { light: 'file:hostedPbx.svg', dark: 'file:hostedPbx.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["source"] === "live" ? "Live events" : $parameter["pollEvent"]}}',
		description: 'Starts a workflow on an incoming call, an SMS, a missed call or a new call record',
		defaults: { name: 'Hosted PBX Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'hostedPbxApi', required: true }],
		properties: [
			{
				displayName: 'Source',
				name: 'source',
				type: 'options',
				noDataExpression: true,
				default: 'live',
				options: [
					{
						name: 'Live Events',
						value: 'live',
						description: 'Incoming calls, SMS received and SMS delivered, the moment they happen (a standing connection)',
					},
					{
						name: 'New Records (Polling)',
						value: 'poll',
						description: 'Missed calls, finished calls and inbound SMS, checked at an interval',
					},
				],
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				default: ['incomingcall', 'smsreceived', 'smsdelivered'],
				required: true,
				displayOptions: { show: { source: ['live'] } },
				options: [
					{ name: 'Incoming Call', value: 'incomingcall', description: 'A call is ringing: caller number and name, endpoint' },
					{ name: 'SMS Delivered', value: 'smsdelivered', description: 'A delivery receipt for a sent SMS arrived' },
					{ name: 'SMS Received', value: 'smsreceived', description: 'An SMS arrived: from, to and an excerpt' },
				],
			},
			{
				displayName: 'Event',
				name: 'pollEvent',
				type: 'options',
				default: 'missedCall',
				displayOptions: { show: { source: ['poll'] } },
				options: [
					{ name: 'Missed Call', value: 'missedCall', description: 'An inbound call that was not answered' },
					{ name: 'New Call Record', value: 'callRecord', description: 'A finished call, with filters on direction and outcome' },
					{ name: 'New Inbound SMS', value: 'inboundSms', description: 'An SMS received, with its full text' },
				],
			},
			{ ...customerField, displayOptions: { show: { source: ['poll'] } } },
			filtersField([
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
			], { displayOptions: { show: { source: ['poll'], pollEvent: ['callRecord'] } } }),
			{
				displayName: 'Poll Every (Seconds)',
				name: 'pollIntervalSeconds',
				type: 'number',
				default: 60,
				typeOptions: { minValue: 10 },
				displayOptions: { show: { source: ['poll'] } },
				description: 'How often to check for new records. The API allows 1,200 requests per user per hour.',
			},
			triggerOptions([
				heartbeatTimeoutOption('Reconnect when the live stream sends nothing for this long (the API sends a heartbeat every 60 s)', {
					displayOptions: { show: { '/source': ['live'] } },
				}),
				{
					displayName: 'Recover Missed Events',
					name: 'recoverMissedEvents',
					type: 'boolean',
					default: true,
					description:
						'Whether to read incoming calls and received SMS that the stream missed (a dropped connection, a restart of n8n) from the history and emit them, marked recovered: true. Delivery receipts cannot be recovered.',
					displayOptions: { show: { '/source': ['live'] } },
				},
				{
					displayName: 'Recovery Customer ID',
					name: 'recoveryCustomerId',
					type: 'string',
					default: 'me',
					description: 'Whose history missed events are read from: "me" for a company admin or extension user; a reseller names one customer',
					displayOptions: { show: { '/source': ['live'], recoverMissedEvents: [true] } },
				},
				{
					displayName: 'Look-Back Window (Minutes)',
					name: 'lookbackMinutes',
					type: 'number',
					default: 10,
					typeOptions: { minValue: 1 },
					description: 'Records that appear up to this late, or share a timestamp, are still emitted exactly once',
					displayOptions: { show: { '/source': ['poll'] } },
				},
			]),
		],
	};

	methods = { listSearch: listSearchMethods };

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return this.getNodeParameter('source') === 'poll' ? await pollTrigger(this) : await liveTrigger(this);
	}
}

/** Waits this long after a reconnect before reading the gap, so events arriving live around it are seen first. */
const RECOVERY_DELAY_MS = 2000;

const REFUSED_DESCRIPTION = 'Check the username and password of the Hosted PBX API credential.';

async function liveTrigger(context: ITriggerFunctions): Promise<ITriggerResponse> {
	const events = context.getNodeParameter('events', []) as string[];
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const manual = context.getMode() === 'manual';
	const node = context.getNode();
	const key = `${context.getWorkflow().id ?? ''}|${node.id ?? node.name}`;
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

	const state = context.getWorkflowStaticData('node') as RecoveryState;
	const recover = !manual && options.recoverMissedEvents !== false;
	// After a restart of n8n (not a user's activation) the time since the last event is a gap too.
	const restartGapSince = recover && ['init', 'leadershipChange'].includes(context.getActivationMode()) ? state.lastSeenAt : undefined;
	const customer = String(options.recoveryCustomerId ?? 'me').trim() || 'me';
	let activated = false;
	let testEventSent = false;
	const closing = new AbortController();

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
		heartbeatWindowMs: Number(options.heartbeatTimeoutSeconds ?? 90) * 1000,
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
			const since = gapSince ?? restartGapSince;
			if (recover && since !== undefined && (gapSince !== undefined || stream.connections === 1)) void readBackGap(since, Date.now());
		},
		onTransientFailure: (reason, retryInMs) => {
			context.logger.info(`Hosted PBX stream: ${reason}; reconnecting in ${retryInMs} ms`);
		},
	});
	stream.start(startDelay);
	if (startDelay === 0) {
		const first = await stream.firstOutcome;
		if (!first.connected && first.refused) {
			await stream.stop();
			throw refusedError(recordRefusal(key, first.refused.status, first.refused.message, fingerprint));
		}
	}
	activated = true;
	return {
		closeFunction: async () => {
			closing.abort();
			await stream.stop();
			if (stream.lastDataAt) state.lastSeenAt = stream.lastDataAt;
		},
	};
}

async function pollTrigger(context: ITriggerFunctions): Promise<ITriggerResponse> {
	const event = context.getNodeParameter('pollEvent') as string;
	const customer = String(context.getNodeParameter('customerId', '', { extractValue: true }) ?? '').trim();
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const intervalMs = Math.max(0.1, Number(context.getNodeParameter('pollIntervalSeconds', 60))) * 1000;
	const lookbackMs = Number(options.lookbackMinutes ?? 10) * 60_000;
	const source = pollSource(event, filters);
	const client = createClient(context, hostedPbxApi);
	const key = JSON.stringify({ event, customer, filters });
	const state = context.getWorkflowStaticData('node') as { cursor?: PollCursor };

	if (context.getMode() === 'manual') {
		// A test run shows the newest matching record of the last 30 days, so fields can be mapped.
		const month: PollCursor = { since: new Date().toISOString(), seen: [], key };
		const { fresh } = await pollNewRecords(client, customer, source, month, 30 * 86_400_000);
		const newest = fresh.sort((a, b) => createdAt(b) - createdAt(a))[0];
		if (!newest) {
			throw new NodeOperationError(context.getNode(), `No ${event} record in the last 30 days to show as a test event`, {
				description: 'Make a test call or send a test SMS, then try again.',
			});
		}
		context.emit([context.helpers.returnJsonArray([polledItem(event, newest)])]);
		return { closeFunction: async () => {} };
	}

	// Refused credentials never storm the platform (as for the live stream): a user's activation
	// fails while a refusal holds; after a refusal while polling, n8n's reactivation succeeds and the
	// next poll waits until the refusal gate allows one (60 s, then every 15 minutes).
	const node = context.getNode();
	const refusalKey = `${context.getWorkflow().id ?? ''}|${node.id ?? node.name}`;
	const fingerprint = credentialFingerprint(await context.getCredentials('hostedPbxApi'));
	const holding = pendingRefusal(refusalKey, fingerprint);
	if (holding && !holding.whileRunning) {
		throw new NodeApiError(node, {}, { message: refusalMessage(hostedPbxApi.label, holding), description: REFUSED_DESCRIPTION });
	}
	let gateMs = holding ? Math.max(0, holding.nextAttemptAt - Date.now()) : 0;

	let stopped = false;
	let sleeping: { cancel: () => void } | undefined;
	// Primed before trigger() returns: n8n stores a trigger's static data after activation and then
	// only when it emits, so a cursor primed later would be lost if main restarted before the first
	// event, and records made meanwhile would count as history.
	// While a refusal holds (n8n activating the trigger again), priming waits for the gate too.
	let cursor: PollCursor | undefined = state.cursor?.key === key ? state.cursor : undefined;
	if (!cursor && !holding) {
		// A refusal here fails the activation, and is remembered so that n8n's retries send nothing.
		cursor = state.cursor = await primeCursor(client, customer, source, key, lookbackMs).catch(async (error: NodeApiError) => {
			const status = Number(error.httpCode);
			if (status === 401 || status === 403) recordRefusal(refusalKey, status, error.message, fingerprint);
			return await Promise.reject(error);
		});
	}
	const loop = async () => {
		while (!stopped) {
			const sleep = cancellableWait(cursor ? Math.max(intervalMs, gateMs) : gateMs);
			gateMs = 0;
			sleeping = sleep;
			await sleep.promise;
			if (stopped) return;
			try {
				if (!cursor) {
					cursor = state.cursor = await primeCursor(client, customer, source, key, lookbackMs);
					clearRefusal(refusalKey);
					continue;
				}
				const { fresh, cursor: next } = await pollNewRecords(client, customer, source, cursor, lookbackMs);
				cursor = state.cursor = next;
				clearRefusal(refusalKey);
				if (fresh.length && !stopped) context.emit([context.helpers.returnJsonArray(fresh.map((r) => polledItem(event, r)))]);
			} catch (error) {
				const status = Number((error as NodeApiError).httpCode);
				if (status === 401 || status === 403) {
					const current = credentialFingerprint(await context.getCredentials('hostedPbxApi'));
					const refusal = recordRefusal(refusalKey, status, (error as Error).message, current, { whileRunning: true });
					gateMs = refusal.nextAttemptAt - Date.now();
					context.emitError(new NodeApiError(node, {}, { message: refusalMessage(hostedPbxApi.label, refusal), description: REFUSED_DESCRIPTION }));
					continue;
				}
				context.logger.warn(`Hosted PBX polling failed, retrying at the next interval: ${(error as Error).message}`);
			}
		}
	};
	const running = loop().catch((error: Error) => context.emitError(error));
	return {
		closeFunction: async () => {
			stopped = true;
			sleeping?.cancel();
			await running;
		},
	};
}
