import type {
	IDataObject,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { platformApi } from '../shared/apis';
import { clock, wait } from '../shared/timers';
import type { Refusal } from '../shared/triggers/lifecycle';
import {
	FAILURE_REPORT_INTERVAL_MS,
	FIRST_RETRY_MS,
	credentialFingerprint,
	failureLogLevel,
	heartbeatTimeoutOption,
	numericSettings,
	refusalMessage,
	triggerOf,
	triggerOptions,
} from '../shared/triggers/lifecycle';
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

const ENDED_DESCRIPTION = 'Set the Session ID of another session to listen to it, or unpublish the workflow. Nothing is sent to the service for an ended session.';

/**
 * Heartbeat Timeout: 5 s to an hour. The contract names no heartbeat on this stream, so a quiet
 * session is only resumed (Last-Event-ID) after this long; an hour bounds a dead connection.
 */
const heartbeatTimeout = heartbeatTimeoutOption('Reconnect (resuming after the last event) when the stream sends nothing for this long (5 to 3,600)', {
	typeOptions: { minValue: 5, maxValue: 3600 },
});

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
			triggerOptions([heartbeatTimeout]),
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
		// Checked before anything is sent: from an expression, NaN or 0 would spin or disable the watchdog.
		const { heartbeatTimeoutSeconds } = numericSettings(this.getNode(), [heartbeatTimeout], options);
		const manual = this.getMode() === 'manual';
		const node = this.getNode();
		const trigger = triggerOf(this);
		// The last emitted id survives restarts (static data is saved with each emit), so a restart resumes there.
		const staticData = this.getWorkflowStaticData('node');
		const loaded = manual ? undefined : trigger.load<ResumeState>(staticData, 'session', (saved) => saved.writtenAt);
		const state: ResumeState = loaded?.sessionId === sessionId ? loaded : { sessionId, writtenAt: clock.now() };
		const save = (change: Partial<ResumeState> = {}) => {
			Object.assign(state, change, { writtenAt: clock.now() });
			if (!manual) trigger.save(staticData, 'session', state);
		};
		save();
		if (state.ended && !manual) throw new NodeOperationError(node, endedMessage(sessionId, state.ended), { description: ENDED_DESCRIPTION });

		const fingerprint = credentialFingerprint(await this.getCredentials(platformApi.credentialType));
		const refusedError = (refusal: Refusal) =>
			new NodeApiError(node, {}, {
				message: refusalMessage(platformApi.label, refusal),
				description: 'Check the API key of the credential and that it has the intelligence:read scope.',
			});
		// As in the Hosted PBX Trigger: a user's activation fails while a refusal holds; n8n's own
		// activation after the running trigger reported it waits for the next attempt instead.
		const holding = trigger.pendingRefusal(fingerprint);
		if (holding && !manual && !holding.whileRunning) throw refusedError(holding);
		const startDelay = holding && !manual ? Math.max(0, holding.nextAttemptAt - clock.now()) : 0;

		let activated = false;
		let testEventSent = false;
		let lastEmitAt = 0;
		// The last event's run; the trigger reports the end only after it, so the run comes first.
		let lastEmit: Promise<void> = Promise.resolve();
		const end = (reason: string) => {
			const ended = { at: new Date(clock.now()).toISOString(), reason };
			save({ ended });
			this.logger.info(`Conversation Intelligence Trigger: ${endedMessage(sessionId, ended)}`);
			// Shown where n8n shows trigger problems; n8n's reactivation then fails at once, sending nothing.
			if (activated && !manual) {
				void lastEmit.then(() => this.emitError(new NodeOperationError(node, endedMessage(sessionId, ended), { description: ENDED_DESCRIPTION })));
			}
		};
		// Shown where n8n shows trigger problems; n8n then activates the trigger again, which goes on
		// retrying with backoff and reports again only after FAILURE_REPORT_INTERVAL_MS. A test run stops.
		const reportPersistentFailure = (reason: string, failedAttempts: number, status?: number) => {
			if (!activated) return;
			if (!manual && !trigger.failureReportDue()) return;
			this.emitError(
				new NodeApiError(node, {}, {
					message: `The event stream of session ${sessionId} cannot be opened: ${reason}`,
					description: manual
						? `${failedAttempts} attempts in a row failed. Check the Session ID and the credential's Base URL.`
						: `${failedAttempts} attempts in a row failed. The trigger keeps trying with backoff (up to a minute apart) and reports this again every ${FAILURE_REPORT_INTERVAL_MS / 60_000} minutes while it lasts. Check the Session ID and the credential's Base URL.`,
					httpCode: status ? String(status) : undefined,
				}),
			);
			if (manual) void stream.stop();
		};
		const stream: SessionEventStream = new SessionEventStream({
			...(await sessionStreamAccess(this, sessionId)),
			lastEventId: manual ? undefined : state.lastEventId,
			heartbeatWindowMs: heartbeatTimeoutSeconds * 1000,
			onEvent: (event, id) => {
				const last = event.event_type === 'session_ended';
				if (last) save({ ended: { at: new Date(clock.now()).toISOString(), reason: 'the session_ended event arrived' } });
				if (testEventSent || !sessionEventMatches(event, filters)) return;
				const item = sessionEventItem(event, id);
				// The last event says so in its own execution data: the listener stops with it.
				if (last) Object.assign(item, { listening: false, note: `The session ended; this trigger stops listening to ${sessionId}.` });
				const emitItem = () => {
					lastEmitAt = clock.now();
					// n8n saves the static data with an emit only if it is marked changed, and a save still
					// running clears the mark when it lands: changed again right here, it is saved.
					save();
					this.emit([this.helpers.returnJsonArray([item])]);
				};
				// n8n does not order the saves either: the last event's emit (its save holds the end
				// marker) waits until the one before is a while past, so its save is the last to land.
				const settle = last && !manual ? lastEmitAt + STATIC_DATA_SETTLE_MS - clock.now() : 0;
				if (settle > 0) lastEmit = wait(settle).then(emitItem);
				else emitItem();
				if (manual) {
					// A test run needs one event; the stream is closed right after it.
					testEventSent = true;
					void stream.stop();
				}
			},
			onEnded: end,
			onRefused: async (status, message) => {
				// At activation the refusal fails the activation (below); the stream is stopped before this wait ends.
				if (!activated) return FIRST_RETRY_MS;
				const refusal = trigger.recordRefusal(status, message, credentialFingerprint(await this.getCredentials(platformApi.credentialType)), true);
				this.emitError(refusedError(refusal));
				return refusal.nextAttemptAt - clock.now();
			},
			// Set before the event's emit (the dispatch reports it first), so the emit saves it.
			onResumePoint: (id) => save({ lastEventId: id }),
			onConnected: () => trigger.recovered(),
			onTransientFailure: (reason, retryInMs, failedAttempts, status) => {
				// A working stream that dropped is routine; an attempt that got no stream is not.
				const level = failureLogLevel(failedAttempts);
				const line = `Conversation Intelligence stream: ${reason}; reconnecting in ${retryInMs} ms`;
				this.logger[level](level === 'error' ? `${line} (${failedAttempts} failed attempts in a row)` : line);
				if (level === 'error') reportPersistentFailure(reason, failedAttempts, status);
			},
			onIncident: (excerpt) => this.logger.warn(`Conversation Intelligence stream: skipped an event that is not a JSON object: ${excerpt}`),
			onUnusableId: (problem) => this.logger.warn(`Conversation Intelligence stream: ${problem}`),
		});
		const release = manual ? () => undefined : await trigger.replaceActivation(async () => await stream.stop());
		stream.start(startDelay);
		const first = startDelay > 0 ? ({ kind: 'waiting' } as const) : await stream.firstOutcome;
		// The activation fails below: it holds nothing to replace.
		if (first.kind === 'refused' || (first.kind === 'ended' && !manual)) release();
		if (first.kind === 'refused') {
			await stream.stop();
			throw refusedError(trigger.recordRefusal(first.status, first.message, fingerprint));
		}
		if (first.kind === 'ended' && !manual) {
			await stream.stop();
			throw new NodeOperationError(node, endedMessage(sessionId, state.ended ?? { at: new Date(clock.now()).toISOString(), reason: first.reason }), {
				description: ENDED_DESCRIPTION,
			});
		}
		if (first.kind === 'connected') trigger.recovered();
		// A first attempt that failed does not fail the activation (an outage at n8n's start would
		// otherwise leave the trigger off for good): it was logged as a warning, retries follow with
		// backoff, and a failure that persists is reported as a trigger error (above).
		activated = true;
		return {
			closeFunction: async () => {
				release();
				await stream.stop();
			},
		};
	}
}
