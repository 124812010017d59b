import type { IDataObject } from 'n8n-workflow';

import { platformApi } from '../shared/apis';
import type { ApiClient, ApiPath } from '../shared/operation';
import { UnexpectedAnswer, isRecord } from '../shared/responseShape';

export const WEBHOOKS_PATH = '/convai/v1/webhooks';
export const EVENT_TYPES = ['conversation.initiating', 'conversation.completed'] as const;
export const DEFAULT_TIMEOUT_MS = 5000;
/** The spec shows no maximum `timeout_ms`: a caller waiting a minute before the agent speaks is already absurd. */
export const MAX_TIMEOUT_MS = 60_000;

/**
 * The API does not fix the webhook record's identifier name: `webhook_id`, `id` and
 * `webhookId` are all read, in that order, and every record gets the chosen one as `id` for
 * mapping (first, and over a record's own `id`: Get, Delete and the trigger address the webhook
 * by it). Anything that is not a record (a `null` in a list) is passed on unchanged.
 */
export function normaliseWebhook(record: IDataObject): IDataObject {
	if (!isRecord(record)) return record;
	const id = record.webhook_id ?? record.webhookId ?? record.id;
	if (id === undefined) return record;
	// First for display, and over a record's own \`id\`.
	return Object.assign({ id: String(id) }, record, { id: String(id) });
}

/**
 * Webhook records from a list answer: a bare array, or inside `webhooks`, `data` or `items`.
 * An answer that is no list and no object (text, null, a number) is an error naming `operation`.
 */
export function webhookRecords(body: unknown, operation = 'List the webhooks'): IDataObject[] {
	if (Array.isArray(body)) return (body as IDataObject[]).map(normaliseWebhook);
	if (!isRecord(body)) throw new UnexpectedAnswer(platformApi.label, operation, body, 'a list');
	for (const key of ['webhooks', 'data', 'items', 'results']) {
		if (Array.isArray(body[key])) return (body[key] as IDataObject[]).map(normaliseWebhook);
	}
	const nested = body.data;
	if (isRecord(nested)) return [normaliseWebhook(nested)];
	return [];
}

/**
 * One webhook record from a create or get answer, unwrapped from `data` or `webhook` when enveloped.
 * An answer that is no object (text, null, a list) is an error naming `operation`; `sent` when the
 * request changed something.
 */
export function webhookRecord(body: unknown, operation = 'A webhook request', sent = false): IDataObject {
	if (!isRecord(body)) throw new UnexpectedAnswer(platformApi.label, operation, body, 'a record', { sent });
	const inner = body.webhook ?? body.data;
	return normaliseWebhook(isRecord(inner) ? inner : body);
}

/**
 * A webhook record as the node outputs it: the values of its request headers (shared secrets,
 * the Voice Agent Trigger's among them) masked; the names stay, so a user sees what is set.
 */
export function maskedWebhook(record: IDataObject): IDataObject {
	if (!isRecord(record)) return record;
	const headers = record.request_headers;
	if (!isRecord(headers)) return record;
	return { ...record, request_headers: Object.fromEntries(Object.keys(headers).map((name) => [name, '***'])) };
}

export function scopeLabel(agentId: string | undefined): string {
	return agentId ? `agent ${agentId}` : 'the whole account';
}

/** The webhook of one event type and one scope (account-wide when no agent), if the list shows it. */
export async function findWebhookInScope(
	client: ApiClient,
	eventType: string,
	agentId: string | undefined,
): Promise<IDataObject | undefined> {
	const response = await client.request({
		method: 'GET',
		path: WEBHOOKS_PATH,
		qs: { event_type: eventType, ...(agentId ? { agent_id: agentId } : {}) },
	});
	return webhookRecords(response.body).find(
		(w) =>
			isRecord(w) &&
			(w.event_type === undefined || w.event_type === eventType) &&
			(agentId ? w.agent_id === agentId : w.agent_id === undefined || w.agent_id === null || w.agent_id === ''),
	);
}

export function webhookPath(id: unknown): ApiPath {
	return { path: `${WEBHOOKS_PATH}/{webhookId}`, pathParams: { webhookId: id } };
}
