import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { hostedPbxApi } from '../shared/apis';
import { clearRefusal, credentialFingerprint, pendingRefusal, recordRefusal, refusalMessage } from '../shared/triggers/refusals';
import { oneAtATime } from '../shared/triggers/activations';
import { numericSettings, triggerOptions } from '../shared/triggers/options';
import { appendAll } from '../shared/lists';
import { wait } from '../shared/timers';
import { createClient } from '../shared/transport';
import { customerField, listSearchMethods } from './fields';
import { PbxLiveStream } from './trigger/liveStream';
import type { PollCursor } from './trigger/polling';
import { createdAt, freshestCursors, pollNewRecords, primeCursor, rememberCursors } from './trigger/polling';
import type { RecoveryState } from './trigger/recovery';
import {
	REFUSED_DESCRIPTION,
	callRecordFilters,
	heartbeatOption,
	lookbackOption,
	recoverMissedEventsOption,
	liveEventItem,
	liveTrigger,
	pollSource,
	polledItem,
} from './trigger/triggerRuntime';

/**
 * Version 2 of the Hosted PBX Trigger: one Events list holding every event, live and polled, so
 * that n8n's node panel offers each as an entry ("On missed call"); polled events run on n8n's own
 * polling (Poll Times, and a manual test run that returns the newest record). A node can hold
 * both: n8n opens the stream through trigger() and polls through poll().
 */

export const LIVE_EVENTS = ['incomingcall', 'smsreceived', 'smsdelivered'];
export const POLLED_EVENTS = ['missedCall', 'callRecord', 'inboundSms'];
/** A test run of live events waits this long for one to happen. */
export const MANUAL_LIVE_WAIT_MS = 120_000;
/** A test run of polled events shows the newest record of this many days. */
const MANUAL_LOOKBACK_MS = 30 * 86_400_000;

const heartbeatTimeout = heartbeatOption({ show: { '/events': LIVE_EVENTS } });
const lookback = lookbackOption({ show: { '/events': POLLED_EVENTS } });

/** The Heartbeat Timeout, checked (numericSettings) before the stream opens. */
function heartbeatWindowMs(context: IPollFunctions | ITriggerFunctions): number {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	return numericSettings(context.getNode(), [heartbeatTimeout], options).heartbeatTimeoutSeconds * 1000;
}

/** The Look-Back Window, checked (numericSettings) before a poll sends anything. */
function lookbackWindowMs(context: IPollFunctions): number {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	return numericSettings(context.getNode(), [lookback], options).lookbackMinutes * 60_000;
}

interface PollState {
	/** One cursor per polled event. */
	cursors?: Record<string, PollCursor>;
}

const refusalKey = (context: IPollFunctions | ITriggerFunctions) => {
	const node = context.getNode();
	return `${context.getWorkflow().id ?? ''}|${node.id ?? node.name}`;
};

export class HostedPbxTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Hosted PBX Trigger',
		name: 'hostedPbxTrigger',
		icon: { light: 'file:hostedPbx.svg', dark: 'file:hostedPbx.dark.svg' },
		group: ['trigger'],
		version: 2,
		polling: true,
		subtitle: '={{[].concat($parameter["events"]).join(", ")}}',
		description: 'Starts a workflow on an incoming call, an SMS, a missed call or a finished call',
		defaults: { name: 'Hosted PBX Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'hostedPbxApi', required: true }],
		properties: [
			{
				displayName: 'Poll Times do not apply to the events chosen: live events arrive the moment they happen',
				name: 'liveNotice',
				type: 'notice',
				default: '',
				displayOptions: { hide: { events: POLLED_EVENTS } },
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				default: ['incomingcall'],
				required: true,
				description: 'Live events arrive the moment they happen (a standing connection); polled events are checked at the Poll Times',
				options: [
					{ name: 'Call Finished', value: 'callRecord', action: 'On call finished', description: 'Polled: a new call record, with filters on direction and outcome' },
					{ name: 'Inbound SMS (Full Text)', value: 'inboundSms', action: 'On inbound SMS with full text', description: 'Polled: an SMS received, with its whole text' },
					{ name: 'Incoming Call', value: 'incomingcall', action: 'On incoming call', description: 'Live: a call is ringing: caller number and name, endpoint' },
					{ name: 'Missed Call', value: 'missedCall', action: 'On missed call', description: 'Polled: an inbound call that nobody answered' },
					{ name: 'SMS Delivered', value: 'smsdelivered', action: 'On SMS delivered', description: 'Live: a delivery receipt for a sent SMS arrived' },
					{ name: 'SMS Received', value: 'smsreceived', action: 'On SMS received', description: 'Live: an SMS arrived: from, to and an excerpt' },
				],
			},
			{
				...customerField,
				description:
					'Whose calls and SMS are read: by the polled events, and to recover live events the stream missed. "me" is your own account for company admins and extension users; resellers pick a customer.',
			},
			callRecordFilters({ show: { events: ['callRecord'] } }),
			triggerOptions([
				heartbeatTimeout,
				recoverMissedEventsOption({ show: { '/events': ['incomingcall', 'smsreceived'] } }),
				lookback,
			]),
		],
	};

	methods = { listSearch: listSearchMethods };

	/** The live events: a standing connection while the workflow is active. */
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const live = selected(this, LIVE_EVENTS);
		if (live.length === 0) return {};
		const heartbeatMs = heartbeatWindowMs(this);
		const options = this.getNodeParameter('options', {}) as IDataObject;
		// Kept apart from the node's static data, which n8n may keep as the polled events' cursor.
		const global = this.getWorkflowStaticData('global');
		const state = ((global[`liveStream:${this.getNode().id}`] as RecoveryState | undefined) ??= {}) as RecoveryState;
		return await liveTrigger(this, {
			events: live,
			heartbeatTimeoutSeconds: heartbeatMs / 1000,
			recoverMissedEvents: options.recoverMissedEvents !== false,
			customer: customerOf(this),
			state,
		});
	}

	/** The polled events, at the Poll Times; a test run shows the newest record (or waits for a live event). */
	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const polled = selected(this, POLLED_EVENTS);
		// Checked in test runs too, so that a wrong value shows before the workflow is published.
		const lookbackMs = polled.length ? lookbackWindowMs(this) : 0;
		if (this.getMode() === 'manual') {
			return [this.helpers.returnJsonArray(polled.length ? await newestRecords(this, polled) : [await firstLiveEvent(this, selected(this, LIVE_EVENTS))])];
		}
		if (polled.length === 0) return null;
		// One poll at a time per node, from the freshest cursors: n8n 2.40 may schedule the same node
		// twice (see activations.ts), each schedule with its own copy of the static data.
		const key = refusalKey(this);
		return await oneAtATime(key, async () => await pollOnce(this, key, polled, lookbackMs));
	}
}

async function pollOnce(context: IPollFunctions, key: string, polled: string[], lookbackMs: number): Promise<INodeExecutionData[][] | null> {
	// The refusal gate is shared with the live stream of the same node: while it holds, a poll
	// sends nothing (one attempt after 60 s, then every 15 minutes).
	const fingerprint = credentialFingerprint(await context.getCredentials('hostedPbxApi'));
	if (pendingRefusal(key, fingerprint)) return null;

	const customer = customerOf(context);
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const client = createClient(context, hostedPbxApi);
	const state = context.getWorkflowStaticData('node') as PollState;
	const known = freshestCursors(key, state.cursors);
	const cursors: Record<string, PollCursor> = {};
	const items: IDataObject[] = [];
	try {
		for (const event of polled) {
			const source = pollSource(event, filters);
			// A changed customer or filter starts afresh (nothing replayed).
			const cursorKey = JSON.stringify({ event, customer, filters: event === 'callRecord' ? filters : {} });
			const cursor = known[event]?.key === cursorKey ? known[event] : undefined;
			if (!cursor) {
				// The first poll (at activation) marks what exists as seen.
				cursors[event] = await primeCursor(client, customer, source, cursorKey, lookbackMs);
				continue;
			}
			const { fresh, cursor: next } = await pollNewRecords(client, customer, source, cursor, lookbackMs);
			cursors[event] = next;
			appendAll(items, fresh.map((record) => polledItem(event, record)));
		}
	} catch (error) {
		throw pollFailure(context, error as Error, key, fingerprint);
	}
	clearRefusal(key);
	state.cursors = cursors;
	rememberCursors(key, cursors);
	return items.length ? [context.helpers.returnJsonArray(items)] : null;
}

/** A refusal closes the gate shared with the live stream and says when the next attempt is; other errors pass. */
function pollFailure(context: IPollFunctions, error: Error, key: string, fingerprint: string): NodeApiError | NodeOperationError {
	const status = Number((error as NodeApiError).httpCode);
	if (status === 401 || status === 403) {
		const refusal = recordRefusal(key, status, error.message, fingerprint, { whileRunning: true });
		return new NodeApiError(context.getNode(), {}, { message: refusalMessage(hostedPbxApi.label, refusal), description: REFUSED_DESCRIPTION });
	}
	return error instanceof NodeApiError || error instanceof NodeOperationError ? error : new NodeOperationError(context.getNode(), error);
}

function selected(context: IPollFunctions | ITriggerFunctions, kinds: string[]): string[] {
	const events = context.getNodeParameter('events', []) as string[];
	return (Array.isArray(events) ? events : [events]).filter((event) => kinds.includes(event));
}

function customerOf(context: IPollFunctions | ITriggerFunctions): string {
	return String(context.getNodeParameter('customerId', 'me', { extractValue: true }) ?? '').trim() || 'me';
}

/** The newest record of each polled event within 30 days, so that fields can be mapped. */
async function newestRecords(context: IPollFunctions, events: string[]): Promise<IDataObject[]> {
	const client = createClient(context, hostedPbxApi);
	const customer = customerOf(context);
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const items: IDataObject[] = [];
	for (const event of events) {
		const month: PollCursor = { since: new Date().toISOString(), seen: [], key: event };
		const { fresh } = await pollNewRecords(client, customer, pollSource(event, filters), month, MANUAL_LOOKBACK_MS);
		const newest = fresh.sort((a, b) => createdAt(b) - createdAt(a))[0];
		if (newest) items.push(polledItem(event, newest));
	}
	if (items.length === 0) {
		throw new NodeOperationError(context.getNode(), `No ${events.join(' or ')} record in the last 30 days to show as a test event`, {
			description: 'Make a test call or send a test SMS, then try again.',
		});
	}
	return items;
}

/** A test run of live events: the first one that happens within two minutes. */
async function firstLiveEvent(context: IPollFunctions, events: string[]): Promise<IDataObject> {
	const node = context.getNode();
	const heartbeatMs = heartbeatWindowMs(context);
	let received: ((item: IDataObject) => void) | undefined;
	let refused: ((error: Error) => void) | undefined;
	const arrival = new Promise<IDataObject>((resolve, reject) => {
		received = resolve;
		refused = reject;
	});
	const stream = new PbxLiveStream({
		open: async (signal) => await createClient(context, hostedPbxApi).stream({ method: 'GET', path: '/stream' }, signal),
		heartbeatWindowMs: heartbeatMs,
		onObject: (object) => {
			if (events.includes(String(object.event))) received?.(liveEventItem(object));
		},
		onIncident: () => undefined,
		onRefused: (status, message) => {
			refused?.(new NodeApiError(node, {}, { message: `${message} (HTTP ${status})`, description: REFUSED_DESCRIPTION }));
			return MANUAL_LIVE_WAIT_MS;
		},
	});
	const timeout = new AbortController();
	stream.start();
	try {
		const item = await Promise.race([arrival, wait(MANUAL_LIVE_WAIT_MS, timeout.signal).then(() => undefined)]);
		if (!item) {
			throw new NodeOperationError(node, `No ${events.join(', ')} event within ${MANUAL_LIVE_WAIT_MS / 1000} s`, {
				description: 'The test run listens to the live stream: make a test call or send a test SMS while it waits.',
			});
		}
		return item;
	} finally {
		timeout.abort();
		await stream.stop();
	}
}
