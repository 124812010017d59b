import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { hostedPbxApi } from '../shared/apis';
import { activationRedacted } from '../shared/errors';
import { triggerOptions } from '../shared/fields';
import { triggerOf } from '../shared/triggers/lifecycle';
import { hostedPbxCredentialTest } from '../shared/transport/credentialTest';
import { customerField } from './fields';
import { listSearchMethods } from './search';
import type { PolledEvent } from './trigger/events';
import {
	LIVE_EVENTS,
	POLLED_EVENTS,
	callRecordFilters,
	eventOptions,
	eventsNamed,
	isLive,
} from './trigger/events';
import {
	batchOptions,
	firstLiveEvent,
	heartbeatOption,
	liveTrigger,
	recoverMissedEventsOption,
} from './trigger/live';
import { creditThresholdField } from './trigger/credit';
import { lookbackOption, newestRecords, pollEvents } from './trigger/polling';
import { recordingOptions } from './trigger/recordings';
import { statusWindowOption, textOutcomesField } from './trigger/textStatus';

const heartbeat = heartbeatOption({ show: { '/events': LIVE_EVENTS } });
const batches = batchOptions({ show: { '/events': LIVE_EVENTS } });
const lookback = lookbackOption({
	show: { '/events': ['callRecord', 'inboundSms', 'missedCall', 'newRecording'] },
});

/**
 * Live and polled events in one Events parameter, so n8n's panel offers each ("On missed call"); trigger() streams, poll() polls.
 * Not poll() alone: a poll returns its items once and has no emit or close function, so it cannot hold a stream; n8n activates both methods.
 */
export class HostedPbxTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Hosted PBX Trigger',
		name: 'hostedPbxTrigger',
		icon: { light: 'file:hostedPbx.svg', dark: 'file:hostedPbx.dark.svg' },
		group: ['trigger'],
		version: 2,
		polling: true,
		subtitle: '={{[].concat($parameter["events"]).join(", ")}}',
		description:
			'Starts a workflow on a call, an SMS, a recording, a text that failed or was delivered, or credit running low',
		defaults: { name: 'Hosted PBX Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'hostedPbxApi', required: true, testedBy: 'hostedPbxApiTest' }],
		properties: [
			{
				displayName:
					'Poll Times do not apply to the events chosen: live events arrive the moment they happen',
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
				description:
					'Live events arrive the moment they happen (a standing connection); polled events are checked at the Poll Times',
				options: eventOptions,
			},
			{
				...customerField,
				description:
					'Whose calls and SMS are read: by the polled events, and to recover live events the stream missed. "me" is your own account for company admins and extension users; resellers pick a customer.',
			},
			callRecordFilters,
			textOutcomesField,
			creditThresholdField,
			triggerOptions([
				heartbeat,
				recoverMissedEventsOption({ show: { '/events': ['incomingcall', 'smsreceived'] } }),
				...batches,
				lookback,
				statusWindowOption,
				...recordingOptions,
			]),
		],
	};

	methods = { listSearch: listSearchMethods, credentialTest: hostedPbxCredentialTest };

	/** The live events: a standing connection while the workflow is active. */
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const live = chosen(this)
			.filter(isLive)
			.map((event) => event.value);
		if (live.length === 0) return {};
		return await activationRedacted(
			this,
			hostedPbxApi,
			async () =>
				await liveTrigger(this, {
					events: live,
					heartbeatOption: heartbeat,
					batchOptions: batches,
					customer: customerOf(this),
				}),
		);
	}

	/** The polled events, at the Poll Times; a test run shows the newest record (or waits for a live event). */
	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await activationRedacted(this, hostedPbxApi, async () => {
			const events = chosen(this);
			const settings = {
				events: events.filter((event): event is PolledEvent => !isLive(event)),
				customer: customerOf(this),
				lookback,
				statusWindow: statusWindowOption,
			};
			if (this.getMode() === 'manual') {
				if (settings.events.length) return [await newestRecords(this, settings)];
				return [
					this.helpers.returnJsonArray([
						await firstLiveEvent(
							this,
							events.map((event) => event.value),
							heartbeat,
						),
					]),
				];
			}
			if (settings.events.length === 0) return null;
			// One poll at a time per node, from the freshest cursors: n8n 2.40 may schedule the same node twice.
			const trigger = triggerOf(this);
			return await trigger.oneAtATime(async () => await pollEvents(this, trigger, settings));
		});
	}
}

function chosen(context: IPollFunctions | ITriggerFunctions) {
	return eventsNamed(context.getNodeParameter('events', []));
}

function customerOf(context: IPollFunctions | ITriggerFunctions): string {
	return (
		String(context.getNodeParameter('customerId', 'me', { extractValue: true }) ?? '').trim() ||
		'me'
	);
}
