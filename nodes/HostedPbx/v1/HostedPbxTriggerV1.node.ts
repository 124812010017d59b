import type { IDataObject, INodeProperties, INodeType, INodeTypeDescription, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { hostedPbxApi } from '../../shared/apis';
import { clearRefusal, credentialFingerprint, pendingRefusal, recordRefusal, refusalMessage } from '../../shared/streams/refusals';
import { replacePreviousActivation } from '../../shared/streams/activations';
import { numericSettings, triggerOptions } from '../../shared/streams/options';
import { cancellableWait } from '../../shared/timers';
import { createClient } from '../../shared/transport';
import { customerField, listSearchMethods } from '../fields';
import type { PollCursor } from '../polling';
import { createdAt, freshestCursors, pollNewRecords, primeCursor, rememberCursors } from '../polling';
import type { RecoveryState } from '../recovery';
import {
	REFUSED_DESCRIPTION,
	callRecordFilters,
	heartbeatOption,
	lookbackOption,
	recoverMissedEventsOption,
	liveTrigger,
	pollSource,
	polledItem,
} from '../triggerRuntime';

/**
 * Poll Every (Seconds). At least 10 s: the API allows 1,200 requests per user per hour, shared with
 * every other workflow of the user, and a poll costs one request or more (360 polls an hour at
 * most). At most a day: rarer checks are version 2's Poll Times (a cron), not a number of seconds.
 */
const pollInterval: INodeProperties = {
	displayName: 'Poll Every (Seconds)',
	name: 'pollIntervalSeconds',
	type: 'number',
	default: 60,
	typeOptions: { minValue: 10, maxValue: 86_400 },
	displayOptions: { show: { source: ['poll'] } },
	description: 'How often to check for new records (10 to 86,400). The API allows 1,200 requests per user per hour.',
};
const heartbeatTimeout = heartbeatOption({ show: { '/source': ['live'] } });
const lookback = lookbackOption({ show: { '/source': ['poll'] } });

/**
 * Version 1 of the Hosted PBX Trigger, kept so that saved workflows run as they were: a Source
 * (live or polling), live events in one list and polled events in another, and its own polling
 * loop with Poll Every (Seconds). New nodes are version 2 (triggerV2.ts).
 */
export class HostedPbxTriggerV1 implements INodeType {
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
			callRecordFilters({ show: { source: ['poll'], pollEvent: ['callRecord'] } }),
			pollInterval,
			triggerOptions([
				heartbeatTimeout,
				recoverMissedEventsOption({ show: { '/source': ['live'] } }),
				{
					displayName: 'Recovery Customer ID',
					name: 'recoveryCustomerId',
					type: 'string',
					default: 'me',
					description: 'Whose history missed events are read from: "me" for a company admin or extension user; a reseller names one customer',
					displayOptions: { show: { '/source': ['live'], recoverMissedEvents: [true] } },
				},
				lookback,
			]),
		],
	};

	methods = { listSearch: listSearchMethods };

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		if (this.getNodeParameter('source') === 'poll') return await pollTrigger(this);
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const { heartbeatTimeoutSeconds } = numericSettings(this.getNode(), [heartbeatTimeout], options);
		return await liveTrigger(this, {
			events: this.getNodeParameter('events', []) as string[],
			heartbeatTimeoutSeconds,
			recoverMissedEvents: options.recoverMissedEvents !== false,
			customer: String(options.recoveryCustomerId ?? 'me').trim() || 'me',
			state: this.getWorkflowStaticData('node') as RecoveryState,
		});
	}
}

async function pollTrigger(context: ITriggerFunctions): Promise<ITriggerResponse> {
	const event = context.getNodeParameter('pollEvent') as string;
	const customer = String(context.getNodeParameter('customerId', '', { extractValue: true }) ?? '').trim();
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	// Checked in test runs too, so that a wrong value shows before the workflow is published.
	const settings = numericSettings(context.getNode(), [pollInterval, lookback], {
		pollIntervalSeconds: context.getNodeParameter('pollIntervalSeconds', 60) as IDataObject[string],
		lookbackMinutes: options.lookbackMinutes,
	});
	const intervalMs = settings.pollIntervalSeconds * 1000;
	const lookbackMs = settings.lookbackMinutes * 60_000;
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
	// n8n 1.x reactivates a trigger after a refusal with its first copy of the static data: the
	// cursor this process reached is fresher, and without it records made meanwhile would be primed
	// away as history.
	const known = freshestCursors(refusalKey, state.cursor ? { [event]: state.cursor } : undefined)[event];
	let cursor: PollCursor | undefined = known?.key === key ? known : undefined;
	const keep = (next: PollCursor) => {
		cursor = state.cursor = next;
		rememberCursors(refusalKey, { [event]: next });
	};
	if (!cursor && !holding) {
		// A refusal here fails the activation, and is remembered so that n8n's retries send nothing.
		keep(await primeCursor(client, customer, source, key, lookbackMs).catch(async (error: NodeApiError) => {
			const status = Number(error.httpCode);
			if (status === 401 || status === 403) recordRefusal(refusalKey, status, error.message, fingerprint);
			return await Promise.reject(error);
		}));
	} else if (cursor) {
		state.cursor = cursor;
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
					keep(await primeCursor(client, customer, source, key, lookbackMs));
					clearRefusal(refusalKey);
					continue;
				}
				const { fresh, cursor: next } = await pollNewRecords(client, customer, source, cursor, lookbackMs);
				keep(next);
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
	const stopLoop = async () => {
		stopped = true;
		sleeping?.cancel();
		await running;
	};
	const release = await replacePreviousActivation(refusalKey, stopLoop);
	return {
		closeFunction: async () => {
			release();
			await stopLoop();
		},
	};
}
