import type {
	IDataObject,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { heartbeatTimeoutOption, triggerOptions } from '../shared/streams/options';
import { filtersFrom, sessionEventItem, sessionEventMatches, sessionFilterFields } from './events';
import { SessionEventStream } from './sessionStream';
import { sessionStreamAccess } from './stream';

interface ResumeState {
	sessionId?: string;
	lastEventId?: string;
}

export class ConversationIntelligenceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Conversation Intelligence Trigger',
		name: 'conversationIntelligenceTrigger',
		icon: { light: 'file:conversationIntelligence.svg', dark: 'file:conversationIntelligence.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{"Session " + $parameter["sessionId"]}}',
		description:
			'Starts a workflow on each live event of an analysed call: operator results (sentiment, escalation...), transcript, start and end',
		defaults: { name: 'Conversation Intelligence Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'platformApiKeyApi', required: true }],
		properties: [
			{
				displayName: 'Session ID',
				name: 'sessionId',
				type: 'string',
				required: true,
				default: '',
				description: 'The session (analysed call) to listen to; the stream ends with the session',
			},
			...sessionFilterFields,
			triggerOptions([
				heartbeatTimeoutOption('Reconnect (resuming after the last event) when the stream sends nothing for this long'),
			]),
		],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const sessionId = String(this.getNodeParameter('sessionId')).trim();
		const filters = filtersFrom({
			eventTypes: this.getNodeParameter('eventTypes', []),
			operatorNames: this.getNodeParameter('operatorNames', ''),
			includeInterim: this.getNodeParameter('includeInterim', false),
		});
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const manual = this.getMode() === 'manual';
		// The last emitted id survives restarts (static data is saved with each emit), so a restart resumes there.
		const state = this.getWorkflowStaticData('node') as ResumeState;
		if (state.sessionId !== sessionId) {
			state.sessionId = sessionId;
			delete state.lastEventId;
		}
		let reportedMalformed = false;
		let testEventSent = false;
		const stream: SessionEventStream = new SessionEventStream({
			node: this.getNode(),
			...(await sessionStreamAccess(this, sessionId)),
			lastEventId: manual ? undefined : state.lastEventId,
			heartbeatWindowMs: Number(options.heartbeatTimeoutSeconds ?? 90) * 1000,
			onEvent: (event, id) => {
				if (!manual && id) state.lastEventId = id;
				if (testEventSent || !sessionEventMatches(event, filters)) return;
				this.emit([this.helpers.returnJsonArray([sessionEventItem(event, id)])]);
				if (manual) {
					// A test run needs one event; the stream is closed right after it.
					testEventSent = true;
					void stream.stop();
				}
			},
			onEnded: () => this.logger.info(`Conversation Intelligence session ${sessionId} ended; the stream is closed`),
			onPermanentFailure: (error) => this.emitError(error),
			onTransientFailure: (reason, retryInMs) =>
				this.logger.info(`Conversation Intelligence stream: ${reason}; reconnecting in ${retryInMs} ms`),
			onMalformed: (data) => {
				if (reportedMalformed) return;
				reportedMalformed = true;
				this.logger.warn(`Conversation Intelligence stream: skipped an event that is not JSON: ${data.slice(0, 200)}`);
			},
		});
		stream.start();
		return { closeFunction: async () => await stream.stop() };
	}
}
