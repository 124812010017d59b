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
 * A webhook record with its identifier as `id` (the API does not fix its name: `webhook_id`, `webhookId`, `id`),
 * first for display and over a record's own `id`, which Get, Delete and the trigger address it by.
 */
export function normaliseWebhook(record: IDataObject): IDataObject {
	if (!isRecord(record)) return record;
	const id = record.webhook_id ?? record.webhookId ?? record.id;
	return id === undefined ? record : Object.assign({ id: String(id) }, record, { id: String(id) });
}

/** Webhook records from a list answer, bare or enveloped; an answer that is no list and no object is an error naming `operation`. */
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

/** One webhook record from a create or get answer, unwrapped; no object is an error naming `operation` (`sent`: it changed something). */
export function webhookRecord(
	body: unknown,
	operation = 'A webhook request',
	sent = false,
): IDataObject {
	if (!isRecord(body))
		throw new UnexpectedAnswer(platformApi.label, operation, body, 'a record', { sent });
	const inner = body.webhook ?? body.data;
	return normaliseWebhook(isRecord(inner) ? inner : body);
}

/** A webhook record as the node outputs it: its request header values (shared secrets) masked, the names kept. */
export function maskedWebhook(record: IDataObject): IDataObject {
	if (!isRecord(record)) return record;
	const headers = record.request_headers;
	if (!isRecord(headers)) return record;
	return {
		...record,
		request_headers: Object.fromEntries(Object.keys(headers).map((name) => [name, '***'])),
	};
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
			(agentId
				? w.agent_id === agentId
				: w.agent_id === undefined || w.agent_id === null || w.agent_id === ''),
	);
}

export function webhookPath(id: unknown): ApiPath {
	return { path: `${WEBHOOKS_PATH}/{webhookId}`, pathParams: { webhookId: id } };
}
