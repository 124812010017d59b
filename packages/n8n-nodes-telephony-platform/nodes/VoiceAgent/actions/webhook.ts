import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { platformApiRedacting } from '../../shared/apis';
import { asNodeError } from '../../shared/errors';
import {
	collectionField,
	filtersField,
	numericField,
	optionsField,
	rowsField,
	textField,
} from '../../shared/fields';
import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { flat, plain } from '../../shared/outputShape';
import { compact, pairsToObject } from '../../shared/params';
import { createClient } from '../../shared/transport/client';
import {
	headerIssues,
	httpUrl,
	identifierIssue,
	integerInRange,
	issues,
	oneOf,
	required,
} from '../../shared/validation';
import {
	DEFAULT_TIMEOUT_MS,
	EVENT_TYPES,
	MAX_TIMEOUT_MS,
	WEBHOOKS_PATH,
	findWebhookInScope,
	maskedWebhook,
	scopeLabel,
	webhookPath,
	webhookRecord,
	webhookRecords,
} from '../webhooks';

const eventTypeField = optionsField('Event Type', 'eventType', 'conversation.initiating', [
	[
		'Conversation Initiating',
		'conversation.initiating',
		'An inbound call before the agent speaks; the receiver may answer with per-call context',
	],
	[
		'Conversation Completed',
		'conversation.completed',
		'The call ended; carries the transcript and analysis',
	],
]);

const webhookIdField = textField(
	'Webhook ID',
	'webhookId',
	'The ID of the webhook, as Create or Get Many returned it',
	{ required: true },
);

/** The rows of Request Headers as given (a row may hold anything an expression returned). */
function headerPairs(collection: unknown): Array<{ name?: unknown; value?: unknown }> {
	const rows = (collection as { pairs?: unknown } | undefined)?.pairs;
	return (Array.isArray(rows) ? rows : rows === undefined ? [] : [rows]).map((row) =>
		row !== null && typeof row === 'object' ? row : {},
	);
}

/**
 * A webhook as Simplified shows it: event type, URL, scope (`account` or `agent`, when the record
 * says which), agent, timeout, status and (Get) its health, flat. The request headers are left out
 * (Raw shows their names).
 */
export const webhookShape: OutputShape = {
	fields: ['agent_id', 'event_type', 'health', 'request_headers', 'status', 'timeout_ms', 'url'],
	simplify: (r) =>
		plain({
			event_type: r.event_type,
			url: r.url,
			scope: 'agent_id' in r ? (r.agent_id ? 'agent' : 'account') : undefined,
			agent_id: r.agent_id,
			timeout_ms: r.timeout_ms,
			status: r.status,
			...flat('health', r.health),
		}),
};

export const webhook: ResourceSpec = {
	value: 'webhook',
	name: 'Webhook',
	description: 'Where the voice agent service sends conversation events',
	operations: [
		{
			value: 'create',
			name: 'Create',
			action: 'Create a webhook',
			description:
				'Register a URL for conversation.initiating or conversation.completed events, for the whole account or one agent (one webhook per event type and scope)',
			fields: [
				eventTypeField,
				textField('URL', 'url', 'The endpoint that receives the HTTP POST deliveries', {
					required: true,
					placeholder: 'e.g. https://n8n.example.com/webhook/…',
				}),
				textField(
					'Agent ID',
					'agentId',
					"Only this agent's conversations. Leave empty for every conversation on the account.",
				),
				collectionField('Additional Fields', 'additionalFields', 'Add Field', [
					rowsField(
						'Request Headers',
						'requestHeaders',
						['Header', 'pairs'],
						[
							textField('Name', 'name'),
							textField('Value', 'value', undefined, { typeOptions: { password: true } }),
						],
						{
							description:
								'Sent verbatim with every delivery, e.g. a shared secret the receiver checks',
						},
					),
					numericField(
						'Timeout (Milliseconds)',
						'timeoutMs',
						DEFAULT_TIMEOUT_MS,
						{ minValue: 1, maxValue: MAX_TIMEOUT_MS, numberPrecision: 0 },
						{
							description:
								'How long the service waits for the answer to conversation.initiating before the agent speaks with its defaults',
						},
					),
				]),
			],
			validate: (p) =>
				issues(
					oneOf('Event Type', p.eventType, EVENT_TYPES),
					required('URL', p.url),
					httpUrl('URL', p.url, { webhook: true }),
					identifierIssue('Agent ID', p.agentId),
					headerIssues('Request Headers', headerPairs(p.additionalFields?.requestHeaders)),
					integerInRange(
						'Timeout (Milliseconds)',
						p.additionalFields?.timeoutMs,
						1,
						MAX_TIMEOUT_MS,
					),
				),
			// A 409 names neither the webhook nor its scope: look the existing one up so the message can.
			run: async ({ node, itemIndex }, p) => {
				const agentId = String(p.agentId ?? '').trim() || undefined;
				const extra = (p.additionalFields ?? {}) as IDataObject;
				const headers = pairsToObject(extra.requestHeaders);
				// The header values are shared secrets, and a failure answer may echo the request.
				const client = createClient(node, platformApiRedacting(Object.values(headers)), {
					itemIndex,
				});
				const body = compact({
					event_type: p.eventType,
					url: String(p.url).trim(),
					agent_id: agentId,
					request_headers: Object.keys(headers).length ? headers : undefined,
					timeout_ms: extra.timeoutMs === undefined ? undefined : Number(extra.timeoutMs),
				});
				try {
					return maskedWebhook(
						webhookRecord(
							(await client.request({ method: 'POST', path: WEBHOOKS_PATH, body })).body,
							'Create a webhook',
							true,
						),
					);
				} catch (error) {
					if ((error as NodeApiError).httpCode !== '409') throw asNodeError(node.getNode(), error);
					const existing = await findWebhookInScope(client, String(p.eventType), agentId).catch(
						() => undefined,
					);
					throw new NodeApiError(
						node.getNode(),
						{ httpCode: '409' },
						{
							httpCode: '409',
							message: `A ${p.eventType} webhook already exists for ${scopeLabel(agentId)}${existing ? ` (ID ${existing.id}, URL ${existing.url})` : ''}`,
							description:
								'The service allows one webhook per event type and scope. Delete the existing one first (Webhook > Delete), or create this one for a single agent.',
						},
					);
				}
			},
		},
		{
			value: 'delete',
			name: 'Delete',
			action: 'Delete a webhook',
			description: 'Delete a webhook; its events stop at once',
			fields: [webhookIdField],
			validate: (p) => issues(required('Webhook ID', p.webhookId)),
			request: (p) => ({ method: 'DELETE', ...webhookPath(p.webhookId), emptyBody: 'allowed' }),
			output: (_response, p) => ({ deleted: true, id: String(p.webhookId) }),
		},
		{
			value: 'get',
			name: 'Get',
			action: 'Get a webhook',
			description:
				'Get one webhook with its health: whether deliveries succeed or the service marked it failing',
			fields: [webhookIdField],
			validate: (p) => issues(required('Webhook ID', p.webhookId)),
			request: (p) => ({ method: 'GET', ...webhookPath(p.webhookId) }),
			output: (response) => maskedWebhook(webhookRecord(response.body, 'Get a webhook')),
			shape: webhookShape,
		},
		{
			value: 'getAll',
			name: 'Get Many',
			action: 'Get many webhooks',
			description:
				"List the webhooks of the account, optionally only one agent's or one event type's",
			paging: 'client',
			fields: [
				filtersField([
					textField('Agent ID', 'agentId'),
					{ ...eventTypeField, description: 'Only webhooks of this event type' },
				]),
			],
			validate: (p) => issues(identifierIssue('Filters > Agent ID', p.filters?.agentId)),
			request: (p) => ({
				method: 'GET',
				path: WEBHOOKS_PATH,
				qs: compact({ agent_id: p.filters?.agentId, event_type: p.filters?.eventType }),
			}),
			output: (response) => webhookRecords(response.body, 'Get many webhooks').map(maskedWebhook),
			shape: webhookShape,
		},
	],
};
