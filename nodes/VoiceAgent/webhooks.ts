import type { IDataObject } from 'n8n-workflow';

import type { ApiClient, ApiPath } from '../shared/operation';

export const WEBHOOKS_PATH = '/convai/v1/webhooks';
export const EVENT_TYPES = ['conversation.initiating', 'conversation.completed'] as const;
export const DEFAULT_TIMEOUT_MS = 5000;

/**
 * The API does not fix the webhook record's identifier name: `webhook_id`, `id` and
 * `webhookId` are all read, and every record gets `id` for mapping.
 */
export function normaliseWebhook(record: IDataObject): IDataObject {
	const id = record.webhook_id ?? record.webhookId ?? record.id;
	return id === undefined ? record : { id: String(id), ...record };
}

/** Webhook records from a list answer: a bare array, or inside `webhooks`, `data` or `items`. */
export function webhookRecords(body: unknown): IDataObject[] {
	if (Array.isArray(body)) return (body as IDataObject[]).map(normaliseWebhook);
	if (body && typeof body === 'object') {
		const record = body as IDataObject;
		for (const key of ['webhooks', 'data', 'items', 'results']) {
			if (Array.isArray(record[key])) return (record[key] as IDataObject[]).map(normaliseWebhook);
		}
		const nested = record.data;
		if (nested && typeof nested === 'object' && !Array.isArray(nested)) return [normaliseWebhook(nested as IDataObject)];
	}
	return [];
}

/** One webhook record from a create or get answer, unwrapped from `data` or `webhook` when enveloped. */
export function webhookRecord(body: unknown): IDataObject {
	const record = (body ?? {}) as IDataObject;
	const inner = (record.webhook ?? record.data) as IDataObject | undefined;
	return normaliseWebhook(inner && typeof inner === 'object' && !Array.isArray(inner) ? inner : record);
}

/**
 * A webhook record as the node outputs it: the values of its request headers (shared secrets,
 * the Voice Agent Trigger's among them) masked; the names stay, so a user sees what is set.
 */
export function maskedWebhook(record: IDataObject): IDataObject {
	const headers = record.request_headers;
	if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return record;
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
			(w.event_type === undefined || w.event_type === eventType) &&
			(agentId ? w.agent_id === agentId : w.agent_id === undefined || w.agent_id === null || w.agent_id === ''),
	);
}

export function webhookPath(id: unknown): ApiPath {
	return { path: `${WEBHOOKS_PATH}/{webhookId}`, pathParams: { webhookId: id } };
}
