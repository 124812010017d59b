import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

import type {
	IDataObject,
	IHookFunctions,
	INode,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError, jsonParse } from 'n8n-workflow';

import { platformApi, platformApiRedacting } from '../shared/apis';
import { activationRedacted, asNodeError, validationError } from '../shared/errors';
import { identifierIssue, integerInRange, issues } from '../shared/validation';
import { compact, headerValue, pairsToObject } from '../shared/params';
import { triggerOf } from '../shared/triggers/lifecycle';
import {
	DEFAULT_REMEMBER_IDS,
	DEFAULT_REMEMBER_MINUTES,
	forgetUnlessAcknowledged,
} from '../shared/triggers/recentIds';
import { createClient } from '../shared/transport/client';
import { platformCredentialTest } from '../shared/transport/credentialTest';
import { deliveryItem, isDelivery } from './trigger/events';
import {
	DEFAULT_TIMEOUT_MS,
	MAX_TIMEOUT_MS,
	WEBHOOKS_PATH,
	findWebhookInScope,
	scopeLabel,
	webhookPath,
	webhookRecord,
} from './webhooks';

/** The header that carries this trigger's secret; the service sends it verbatim with every delivery. */
export const DELIVERY_HEADER = 'x-n8n-webhook-secret';

/** Every secret this trigger generates (32 random bytes as hex): one read back in another form (`***`) is a server's mask. */
const GENERATED_SECRET = /^[0-9a-f]{64}$/;

/** The webhook's id and only a hash of its secret. */
interface Registration {
	webhookId?: string;
	secretHash?: string;
}

export function secretHash(secret: string): string {
	return createHash('sha256').update(secret).digest('hex');
}

function remember(registration: Registration, webhookId: unknown, secret: string): boolean {
	registration.webhookId = String(webhookId);
	registration.secretHash = secretHash(secret);
	return true;
}

function forget(registration: Registration): void {
	delete registration.webhookId;
	delete registration.secretHash;
}

/** Compares a presented secret with the stored hash in constant time, whatever its length. */
export function matchesSecretHash(given: unknown, expectedHash: string): boolean {
	if (typeof given !== 'string' || given === '' || !/^[0-9a-f]{64}$/.test(expectedHash))
		return false;
	return timingSafeEqual(
		createHash('sha256').update(given).digest(),
		Buffer.from(expectedHash, 'hex'),
	);
}

function settings(context: IHookFunctions | IWebhookFunctions) {
	const event = context.getNodeParameter('event') as string;
	const rawAgentId = context.getNodeParameter('agentId', '');
	const timeoutMs =
		event === 'conversation.initiating'
			? context.getNodeParameter('timeoutMs', DEFAULT_TIMEOUT_MS)
			: undefined;
	const problems = issues(
		identifierIssue('Agent ID', rawAgentId),
		integerInRange('Timeout (Milliseconds)', timeoutMs, 1, MAX_TIMEOUT_MS),
	);
	if (problems.length) throw validationError(context.getNode(), problems);
	const agentId = String(rawAgentId ?? '').trim() || undefined;
	return { event, agentId, timeoutMs: timeoutMs === undefined ? undefined : Number(timeoutMs) };
}

/** The configured override for "With Values Set Here", checked at activation so a typo fails early. */
function configOverride(context: IHookFunctions | IWebhookFunctions): IDataObject | undefined {
	if (
		context.getNodeParameter('event') !== 'conversation.initiating' ||
		context.getNodeParameter('responseMode', '') !== 'withValues'
	)
		return undefined;
	const value = context.getNodeParameter('configOverride', '{}');
	const parsed =
		typeof value === 'string' ? jsonParse<unknown>(value || '{}', { fallbackValue: null }) : value;
	// The contract: `conversation_config_override` is an object.
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw new NodeOperationError(
			context.getNode(),
			'Conversation Config Override is not a JSON object',
			{
				description: 'Write a JSON object such as {"text_only": true}, or leave it as {}.',
			},
		);
	}
	return parsed as IDataObject;
}

/**
 * Whether Drop Duplicates is on and this conversation's completed event was emitted already (it has no
 * delivery id; the conversation id names it). A retry after a 2xx means the 200 came late or was lost;
 * after any other answer the id is given back and the retry runs. (`conversation.initiating` is retried
 * only after a non-2xx answer, so it is never filtered.)
 */
function isRepeat(context: IWebhookFunctions, body: IDataObject): boolean {
	const conversationId = (body.data as IDataObject | undefined)?.conversation_id;
	if (
		!context.getNodeParameter('dropDuplicates', true) ||
		typeof conversationId !== 'string' ||
		conversationId === ''
	)
		return false;
	const memory = triggerOf(context).recentIds(
		context.getMode(),
		DEFAULT_REMEMBER_IDS,
		DEFAULT_REMEMBER_MINUTES * 60_000,
	);
	if (!memory.firstSeen(conversationId)) return true;
	forgetUnlessAcknowledged(context.getResponseObject(), memory, [conversationId]);
	return false;
}

/** A webhook of this event type and scope exists that this trigger can neither adopt nor replace. */
function webhookConflict(
	node: INode,
	event: string,
	agentId: string | undefined,
	existing: IDataObject | undefined,
	url: string,
): NodeApiError {
	return new NodeApiError(
		node,
		{ httpCode: '409' },
		{
			httpCode: '409',
			message: existing
				? `A ${event} webhook for ${scopeLabel(agentId)} already exists (ID ${existing.id}) and points at ${existing.url === url ? 'this workflow, but the service gives no ID to replace it by' : (existing.url ?? 'an address the service does not show')}`
				: `A ${event} webhook for ${scopeLabel(agentId)} already exists`,
			description:
				"The service allows one webhook per event type and scope. If it is this workflow's own production or test URL, stop the other one first (deactivate the workflow, or stop listening for test events); otherwise delete it with Voice Agent > Webhook > Delete, or choose an agent scope.",
		},
	);
}

export class VoiceAgentTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice Agent Trigger',
		name: 'voiceAgentTrigger',
		icon: { light: 'file:voiceAgent.svg', dark: 'file:voiceAgent.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["event"]}}',
		description:
			'Starts a workflow when the AI voice agent answers a call (inject context before it speaks) or finishes one (transcript and analysis)',
		defaults: { name: 'Voice Agent Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'platformApiKeyApi', required: true, testedBy: 'platformApiKeyApiTest' }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode:
					'={{$parameter["event"] !== "conversation.initiating" ? "onReceived" : $parameter["responseMode"] === "lastNode" ? "lastNode" : $parameter["responseMode"] === "responseNode" ? "responseNode" : "onReceived"}}',
				// "When Last Node Finishes" answers the last node's first item. Every other mode must be "": n8n
				// answers "onReceived" with responseData when set (absent, "firstEntryJson"), else with webhook()'s webhookResponse.
				responseData:
					'={{$parameter["event"] === "conversation.initiating" && $parameter["responseMode"] === "lastNode" ? "firstEntryJson" : ""}}',
				path: 'voice-agent',
			},
		],
		properties: [
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				default: 'conversation.initiating',
				options: [
					{
						name: 'Conversation Initiating',
						action: 'On call starting',
						value: 'conversation.initiating',
						description:
							'A call came in; the caller hears ringing until this workflow answers (or the timeout passes)',
					},
					{
						name: 'Conversation Completed',
						action: 'On call completed',
						value: 'conversation.completed',
						description: 'A call ended: transcript, summary and analysis',
					},
				],
			},
			{
				displayName: 'Agent ID',
				name: 'agentId',
				type: 'string',
				default: '',
				description:
					"Only this agent's conversations. Leave empty for every conversation on the account. The service allows one webhook per event type and scope.",
			},
			{
				displayName: 'Drop Duplicates',
				name: 'dropDuplicates',
				type: 'boolean',
				default: true,
				displayOptions: { show: { event: ['conversation.completed'] } },
				description:
					'Whether to answer a repeated delivery of the same conversation without running the workflow again (the service retries when its 200 came late or was lost). Remembered in memory for a day: not across restarts, and per webhook process in queue mode.',
			},
			{
				displayName: 'Timeout (Milliseconds)',
				name: 'timeoutMs',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_MS, numberPrecision: 0 },
				default: DEFAULT_TIMEOUT_MS,
				displayOptions: { show: { event: ['conversation.initiating'] } },
				description:
					'How long the service waits for this workflow to answer before the agent speaks with its defaults. Registered with the webhook.',
			},
			{
				displayName: 'Respond',
				name: 'responseMode',
				type: 'options',
				default: 'immediately',
				displayOptions: { show: { event: ['conversation.initiating'] } },
				options: [
					{
						name: 'Immediately, Empty',
						value: 'immediately',
						description:
							'Answer 200 at once; the agent starts with its defaults and the workflow runs alongside',
					},
					{
						name: 'Immediately, With Values Set Here',
						value: 'withValues',
						description: 'Answer at once with the dynamic variables and overrides below',
					},
					{
						name: 'When Last Node Finishes',
						value: 'lastNode',
						description:
							'The workflow looks things up; the first item of its last node is the answer, e.g. {"dynamic_variables": {...}} from a Set node',
					},
					{
						name: "Using 'Respond to Webhook' Node (Version 1)",
						value: 'responseNode',
						description:
							"Answer with a Respond to Webhook node at version 1; later versions accept only n8n's own Webhook trigger",
					},
				],
			},
			{
				displayName:
					'End the workflow with a node whose first item is the answer, e.g. a Set node producing {"dynamic_variables": {"customer_name": "…"}}. If the workflow takes longer than the timeout, the agent starts with its defaults.',
				name: 'lastNodeNotice',
				type: 'notice',
				default: '',
				displayOptions: {
					show: { event: ['conversation.initiating'], responseMode: ['lastNode'] },
				},
			},
			{
				displayName:
					'Respond to Webhook from version 1.1 on refuses triggers other than n8n\'s own Webhook node: keep it at version 1 (e.g. copy it from the recipe), or use "When Last Node Finishes". Body e.g. {"dynamic_variables": {"customer_name": "…"}}.',
				name: 'responseNodeNotice',
				type: 'notice',
				default: '',
				displayOptions: {
					show: { event: ['conversation.initiating'], responseMode: ['responseNode'] },
				},
			},
			{
				displayName: 'Dynamic Variables',
				name: 'dynamicVariables',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				default: {},
				placeholder: 'Add Variable',
				displayOptions: {
					show: { event: ['conversation.initiating'], responseMode: ['withValues'] },
				},
				description: 'Available in the agent prompt as {{dynamic_variables.NAME}}',
				options: [
					{
						displayName: 'Variable',
						name: 'pairs',
						values: [
							{ displayName: 'Name', name: 'name', type: 'string', default: '' },
							{ displayName: 'Value', name: 'value', type: 'string', default: '' },
						],
					},
				],
			},
			{
				displayName: 'Conversation Config Override (JSON)',
				name: 'configOverride',
				type: 'json',
				default: '{}',
				displayOptions: {
					show: { event: ['conversation.initiating'], responseMode: ['withValues'] },
				},
				description: 'Overrides of the agent configuration for this call, e.g. {"text_only": true}',
			},
		],
	};

	methods = { credentialTest: platformCredentialTest };

	webhookMethods = {
		default: {
			/** Whether this workflow's webhook is still registered; never deletes or creates anything. */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const registration = this.getWorkflowStaticData('node') as Registration;
				if (!registration.webhookId || !registration.secretHash) return false;
				const client = createClient(this, platformApi);
				const { event, agentId } = settings(this);
				try {
					const record = webhookRecord(
						(await client.request({ method: 'GET', ...webhookPath(registration.webhookId) })).body,
					);
					// The record's fields are not fixed by the contract: one it leaves out is not a mismatch,
					// and a null or empty agent_id is the account-wide scope.
					const scope =
						record.agent_id === undefined
							? agentId
							: String(record.agent_id ?? '').trim() || undefined;
					const sameUrl =
						record.url === undefined || record.url === this.getNodeWebhookUrl('default');
					return (
						sameUrl &&
						(record.event_type === undefined || record.event_type === event) &&
						scope === agentId
					);
				} catch (error) {
					if ((error as NodeApiError).httpCode === '404') {
						delete registration.webhookId;
						return false;
					}
					throw asNodeError(this.getNode(), error);
				}
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const registration = this.getWorkflowStaticData('node') as Registration;
				const { event, agentId, timeoutMs } = settings(this);
				const url = this.getNodeWebhookUrl('default') as string;
				const secret = randomBytes(32).toString('hex');
				// A failure answer may echo the request, the secret header among it.
				const api = platformApiRedacting([secret]);
				const client = createClient(this, api);
				return await activationRedacted(this, api, async () => {
					configOverride(this);
					const body = compact({
						event_type: event,
						url,
						agent_id: agentId,
						request_headers: { [DELIVERY_HEADER]: secret },
						timeout_ms: timeoutMs,
					});
					const register = async (): Promise<boolean> => {
						const record = webhookRecord(
							(await client.request({ method: 'POST', path: WEBHOOKS_PATH, body })).body,
						);
						if (!record.id)
							throw new NodeOperationError(
								this.getNode(),
								'The service created the webhook but did not return its ID',
							);
						return remember(registration, record.id, secret);
					};
					try {
						return await register();
					} catch (error) {
						if ((error as NodeApiError).httpCode !== '409')
							throw asNodeError(this.getNode(), error);
					}
					// One webhook per event type and scope: adopt it if it points here with a secret this trigger generated.
					const existing = await findWebhookInScope(client, event, agentId);
					const existingSecret = headerValue(existing?.request_headers, DELIVERY_HEADER);
					if (
						existing?.id !== undefined &&
						existing.url === url &&
						typeof existingSecret === 'string' &&
						GENERATED_SECRET.test(existingSecret)
					) {
						return remember(registration, existing.id, existingSecret);
					}
					// Ours but not adoptable (its secret masked in the list), or the one this trigger registered
					// before n8n's URL changed: replaced by a new one with a fresh secret.
					if (
						existing?.id !== undefined &&
						(existing.url === url || String(existing.id) === registration.webhookId)
					) {
						try {
							await client.request({
								method: 'DELETE',
								...webhookPath(existing.id),
								emptyBody: 'allowed',
							});
						} catch (error) {
							if ((error as NodeApiError).httpCode !== '404')
								throw asNodeError(this.getNode(), error);
						}
						forget(registration);
						try {
							return await register();
						} catch (error) {
							throw asNodeError(this.getNode(), error);
						}
					}
					throw webhookConflict(this.getNode(), event, agentId, existing, url);
				});
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const registration = this.getWorkflowStaticData('node') as Registration;
				if (registration.webhookId) {
					const client = createClient(this, platformApi);
					try {
						await client.request({
							method: 'DELETE',
							...webhookPath(registration.webhookId),
							emptyBody: 'allowed',
						});
					} catch (error) {
						if ((error as NodeApiError).httpCode !== '404') return false;
					}
				}
				forget(registration);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const registration = this.getWorkflowStaticData('node') as Registration;
		const answer = (status: number, json: IDataObject): IWebhookResponseData => {
			this.getResponseObject().status(status).json(json);
			return { noWebhookResponse: true };
		};
		const warn = (message: string) =>
			this.logger.warn(`Voice Agent Trigger answered ${message}`, {
				workflowId: this.getWorkflow().id,
				nodeName: this.getNode().name,
			});
		if (
			!registration.secretHash ||
			!matchesSecretHash(
				headerValue(this.getHeaderData(), DELIVERY_HEADER),
				registration.secretHash,
			)
		)
			return answer(401, { error: 'unauthorised' });
		const contentType = String(headerValue(this.getHeaderData(), 'content-type') ?? '');
		if (
			!/^(|application\/json|text\/json|application\/[\w.+-]+\+json)$/i.test(
				contentType.split(';')[0].trim(),
			)
		) {
			warn(`415 to a delivery with Content-Type ${contentType}: the service sends JSON`);
			return answer(415, { error: 'unsupported content type; send application/json' });
		}
		const { event } = settings(this);
		let body: unknown = this.getBodyData();
		const raw = (this.getRequestObject() as { rawBody?: Buffer }).rawBody;
		if ((!body || (typeof body === 'object' && Object.keys(body).length === 0)) && raw?.length)
			body = jsonParse<unknown>(raw.toString('utf8'), { fallbackValue: null });
		// Not the contract's wrapper: refused, so nothing runs on it and whoever sent it sees why.
		if (!isDelivery(body)) {
			warn('400 to a delivery that is not a JSON object with a string "type"');
			return answer(400, {
				error: 'not a voice agent delivery: a JSON object with a string "type" is expected',
			});
		}
		// Another event type on this URL, or a repeat: acknowledged, no execution.
		if (body.type !== event || (event === 'conversation.completed' && isRepeat(this, body)))
			return answer(200, {});
		const workflowData = [this.helpers.returnJsonArray([deliveryItem(body)])];
		if (event !== 'conversation.initiating') return { webhookResponse: {}, workflowData };

		const mode = this.getNodeParameter('responseMode', 'immediately') as string;
		if (mode === 'responseNode' || mode === 'lastNode') return { workflowData };
		if (mode === 'withValues') {
			const dynamicVariables = pairsToObject(this.getNodeParameter('dynamicVariables', {}));
			const override = configOverride(this);
			return {
				webhookResponse: compact({
					dynamic_variables: Object.keys(dynamicVariables).length ? dynamicVariables : undefined,
					conversation_config_override:
						override && Object.keys(override).length ? override : undefined,
				}),
				workflowData,
			};
		}
		return { webhookResponse: {}, workflowData };
	}
}
