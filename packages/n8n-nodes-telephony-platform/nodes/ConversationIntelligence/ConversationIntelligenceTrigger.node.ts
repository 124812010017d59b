import type {
	IDataObject,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { heartbeatTimeoutOption, triggerOptions } from '../shared/fields';
import { platformApi } from '../shared/apis';
import { activationRedacted } from '../shared/errors';
import { redact } from '../shared/redaction';
import { clock, wait } from '../shared/timers';
import { LiveActivation, numericSettings } from '../shared/triggers/lifecycle';
import { platformCredentialTest } from '../shared/transport/credentialTest';
import { filtersFrom, sessionEventItem, sessionEventMatches, sessionFilterFields } from './events';
import { SessionEventStream } from './sessionStream';
import { sessionStreamAccess } from './stream';

/** What the trigger keeps in workflow static data, per session: where to resume, and whether it is over. */
interface ResumeState {
	sessionId?: string;
	lastEventId?: string;
	/** The session ended (or never existed): no token is fetched for it again, after a restart too. */
	ended?: { at: string; reason: string };
	/** When this state was last written (ms), to tell the fresher of two copies. */
	writtenAt?: number;
}

function endedMessage(sessionId: string, ended: { at: string; reason: string }): string {
	return `Session ${sessionId} is over (${ended.reason}, ${ended.at}): this trigger has nothing more to listen to`;
}

/** How long after an emit n8n's save of the static data has landed, with a wide margin (it takes milliseconds). */
const STATIC_DATA_SETTLE_MS = 1000;

const ENDED_DESCRIPTION =
	'Set the Session ID of another session to listen to it, or unpublish the workflow. Nothing is sent to the service for an ended session.';

/** 5 s to an hour: the contract names no heartbeat, so a quiet session is resumed after this long; an hour bounds a dead connection. */
const heartbeatTimeout = heartbeatTimeoutOption(
	'Reconnect (resuming after the last event) when the stream sends nothing for this long (5 to 3,600)',
	{
		typeOptions: { minValue: 5, maxValue: 3600 },
	},
);

export class ConversationIntelligenceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Conversation Intelligence Trigger',
		name: 'conversationIntelligenceTrigger',
		icon: {
			light: 'file:conversationIntelligence.svg',
			dark: 'file:conversationIntelligence.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{"Session " + $parameter["sessionId"]}}',
		description:
			'Starts a workflow on each live event of an analysed call: operator results (sentiment, escalation...), transcript, start and end',
		defaults: { name: 'Conversation Intelligence Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'platformApiKeyApi', required: true, testedBy: 'platformApiKeyApiTest' }],
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
			triggerOptions([heartbeatTimeout]),
		],
	};

	methods = { credentialTest: platformCredentialTest };

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		// Errors and log lines may quote the service (a refusal, an end reason): masked with the key's forms.
		const forms = platformApi.secretForms(await this.getCredentials(platformApi.credentialType));
		const masked = (text: string) => redact(text, forms);
		return await activationRedacted(this, platformApi, async () => {
			const { sessionId, filters, heartbeatTimeoutSeconds } = sessionSettings(this);
			const node = this.getNode();
			const activation = sessionActivation(this, sessionId, masked);
			const { manual, trigger } = activation;
			const { state, save } = resumeState(this, activation, sessionId);
			save();
			const endedError = (ended: { at: string; reason: string }) =>
				new NodeOperationError(node, masked(endedMessage(sessionId, ended)), {
					description: ENDED_DESCRIPTION,
				});
			if (state.ended && !manual) throw endedError(state.ended);
			const startDelay = await activation.startDelay();

			const emits = sessionEmits(this, sessionId, filters, save, () => void stream.stop());
			const stream: SessionEventStream = new SessionEventStream({
				...(await sessionStreamAccess(this, sessionId)),
				lastEventId: manual ? undefined : state.lastEventId,
				heartbeatWindowMs: heartbeatTimeoutSeconds * 1000,
				onEvent: emits.onEvent,
				onEnded: (reason) => {
					const ended = { at: new Date(clock.now()).toISOString(), reason };
					save({ ended });
					this.logger.info(
						masked(`Conversation Intelligence Trigger: ${endedMessage(sessionId, ended)}`),
					);
					// Shown where n8n shows trigger problems, after the last event's run; n8n's reactivation then fails at once, sending nothing.
					if (activated && !manual)
						void emits.lastEmit().then(() => this.emitError(endedError(ended)));
				},
				onRefused: activation.onRefused,
				// Set before the event's emit (the dispatch reports it first), so the emit saves it.
				onResumePoint: (id) => save({ lastEventId: id }),
				onConnected: () => trigger.recovered(),
				onTransientFailure: activation.onTransientFailure,
				onIncident: (excerpt) =>
					this.logger.warn(
						`Conversation Intelligence stream: skipped an event that is not a JSON object: ${masked(excerpt)}`,
					),
				onUnusableId: (problem) =>
					this.logger.warn(masked(`Conversation Intelligence stream: ${problem}`)),
			});
			let activated = false;
			const response = await activation.start(stream, startDelay, (first) =>
				first.kind === 'ended' && !manual
					? endedError(
							state.ended ?? { at: new Date(clock.now()).toISOString(), reason: first.reason },
						)
					: undefined,
			);
			activated = true;
			return response;
		});
	}
}

/** The session, event filters and heartbeat timeout the trigger is set to. */
function sessionSettings(context: ITriggerFunctions) {
	const sessionId = String(context.getNodeParameter('sessionId')).trim();
	const filters = filtersFrom({
		eventTypes: context.getNodeParameter('eventTypes', []),
		operatorNames: context.getNodeParameter('operatorNames', ''),
		includeInterim: context.getNodeParameter('includeInterim', false),
	});
	const options = context.getNodeParameter('options', {}) as IDataObject;
	// Checked before anything is sent: from an expression, NaN or 0 would spin or disable the watchdog.
	const { heartbeatTimeoutSeconds } = numericSettings(
		context.getNode(),
		[heartbeatTimeout],
		options,
	);
	return { sessionId, filters, heartbeatTimeoutSeconds };
}

function sessionActivation(
	context: ITriggerFunctions,
	sessionId: string,
	masked: (text: string) => string,
): LiveActivation {
	return new LiveActivation(context, {
		label: platformApi.label,
		credentialType: platformApi.credentialType,
		refusedAdvice:
			'Check the API key of the credential and that it has the intelligence:read scope.',
		logPrefix: 'Conversation Intelligence stream',
		failureMessage: (reason) =>
			`The event stream of session ${sessionId} cannot be opened: ${reason}`,
		failureAdvice: "Check the Session ID and the credential's Base URL.",
		redact: masked,
	});
}

/**
 * The session's resume state (a fresh one for another session) and its `save`. The last emitted id survives
 * restarts (static data is saved with each emit), so a restart resumes there; a test run keeps nothing.
 */
function resumeState(context: ITriggerFunctions, activation: LiveActivation, sessionId: string) {
	const { manual, trigger } = activation;
	const staticData = context.getWorkflowStaticData('node');
	const loaded = manual
		? undefined
		: trigger.load<ResumeState>(staticData, 'session', (saved) => saved.writtenAt);
	const state: ResumeState =
		loaded?.sessionId === sessionId ? loaded : { sessionId, writtenAt: clock.now() };
	const save = (change: Partial<ResumeState> = {}) => {
		Object.assign(state, change, { writtenAt: clock.now() });
		if (!manual) trigger.save(staticData, 'session', state);
	};
	return { state, save };
}

/**
 * A session's events as runs: those the filters choose, one each (in a test run only the first). The last
 * (session_ended) is emitted a while after the one before: n8n does not order its static-data saves, and the
 * last save must hold the end marker.
 */
function sessionEmits(
	context: ITriggerFunctions,
	sessionId: string,
	filters: ReturnType<typeof filtersFrom>,
	save: (change?: Partial<ResumeState>) => void,
	stop: () => void,
) {
	const manual = context.getMode() === 'manual';
	let testEventSent = false;
	let lastEmitAt = 0;
	let lastEmit: Promise<void> = Promise.resolve();
	const onEvent = (event: IDataObject, id: string) => {
		const last = event.event_type === 'session_ended';
		if (last)
			save({
				ended: {
					at: new Date(clock.now()).toISOString(),
					reason: 'the session_ended event arrived',
				},
			});
		if (testEventSent || !sessionEventMatches(event, filters)) return;
		const item = sessionEventItem(event, id);
		if (last)
			Object.assign(item, {
				listening: false,
				note: `The session ended; this trigger stops listening to ${sessionId}.`,
			});
		const emitItem = () => {
			lastEmitAt = clock.now();
			// n8n saves the static data with an emit only if it is marked changed, and a save still
			// running clears the mark when it lands: changed again right here, it is saved.
			save();
			context.emit([context.helpers.returnJsonArray([item])]);
		};
		const settle = last && !manual ? lastEmitAt + STATIC_DATA_SETTLE_MS - clock.now() : 0;
		if (settle > 0) lastEmit = wait(settle).then(emitItem);
		else emitItem();
		if (manual) {
			// A test run needs one event; the stream is closed right after it.
			testEventSent = true;
			stop();
		}
	};
	return { onEvent, lastEmit: () => lastEmit };
}
