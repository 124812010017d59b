import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

import type { SandboxRequest } from '../core/http';
import { HttpError, Router, jsonBody, queryValue, send } from '../core/http';
import { lifetimeController } from '../core/lifetime';
import type { SandboxContext, SandboxModule } from '../core/server';
import { routeHandler } from '../core/server';
import type { KeyStore } from '../platform/keys';
import { addKeyAdminRoutes, platformKeys } from '../platform/keys';
import { currentTime } from '../core/clock';

/**
 * The Voice Agent service (`/convai/v1`): webhooks, and simulated conversations that deliver
 * `conversation.initiating` and `conversation.completed` to them over real HTTP, with
 * retries, a failing state that suspends delivery, and recovery by probe.
 */

export const CONVAI_PREFIX = '/convai/v1';

export const EVENT_TYPES = ['conversation.initiating', 'conversation.completed'] as const;
export type WebhookEventType = (typeof EVENT_TYPES)[number];

const WEBHOOK_FIELDS = ['event_type', 'url', 'request_headers', 'agent_id', 'timeout_ms'];
const MAX_TIMEOUT_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 5_000;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the delivery sets itself or that fetch does not allow. */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer']);

export interface WebhookHealth {
	consecutive_failures: number;
	last_delivery_at: string | null;
	last_status_code: number | null;
	last_error: string | null;
	last_response_ms: number | null;
}

export interface Webhook {
	webhook_id: string;
	event_type: WebhookEventType;
	url: string;
	request_headers: Record<string, string>;
	agent_id: string | null;
	timeout_ms: number;
	created_at: string;
	status: 'active' | 'failing';
	health: WebhookHealth;
	/** When it was marked failing (ms), and when the last recovery probe went out. */
	failingSince: number | null;
	lastProbeAt: number | null;
}

export interface ConvaiSettings {
	/** First retry delay; each further retry doubles it. */
	retryBaseMs: number;
	/** Attempts per delivery, the first included. */
	maxAttempts: number;
	/** Consecutive failed deliveries that mark a webhook failing. */
	failureThreshold: number;
	/** How long a failing webhook stays suspended before its next event is sent as a probe. */
	recoveryIntervalMs: number;
	/** Per-attempt timeout for conversation.completed (conversation.initiating uses the webhook's timeout_ms). */
	completedTimeoutMs: number;
	/** Deliveries go only to loopback hosts unless this is true. */
	allowNonLoopback: boolean;
	/**
	 * The webhook records the API returns (their fields are not shown in the contract): `full`, or
	 * `sparse` (the id, event type and status only: no url, headers or scope).
	 */
	webhookRecords: 'full' | 'sparse';
}

export const DEFAULT_CONVAI_SETTINGS: ConvaiSettings = {
	retryBaseMs: 200,
	maxAttempts: 3,
	failureThreshold: 3,
	recoveryIntervalMs: 30_000,
	completedTimeoutMs: 10_000,
	allowNonLoopback: false,
	webhookRecords: 'full',
};

export interface WebhookPayload {
	type: WebhookEventType;
	timestamp: number;
	data: Record<string, unknown>;
}

export interface DeliveryAttempt {
	attempt: number;
	startedAt: string;
	status: number | null;
	elapsedMs: number;
	timedOut: boolean;
	error: string | null;
}

export type DeliveryOutcome = 'pending' | 'delivered' | 'failed' | 'timed_out' | 'suspended' | 'cancelled';

export interface Delivery {
	deliveryId: string;
	webhookId: string;
	eventType: WebhookEventType;
	url: string;
	scope: 'account' | 'agent';
	agentId: string;
	conversationId: string;
	/** The single recovery attempt to a failing webhook. */
	probe: boolean;
	outcome: DeliveryOutcome;
	request: { headers: Record<string, string>; body: WebhookPayload };
	attempts: DeliveryAttempt[];
	/** The last attempt's answer: status (null on a network error or timeout), parsed body, time taken. */
	response: { status: number | null; body: unknown; elapsedMs: number; timedOut: boolean } | null;
	createdAt: string;
	finishedAt: string | null;
}

export interface TranscriptTurn {
	role: 'agent' | 'user';
	message: string;
	time_in_call_secs: number;
}

export interface SimulatedConversation {
	conversationId: string;
	agentId: string;
	startedAt: string;
	/** What the agent would use, merged from the initiating answers (account-wide first, agent-scoped over it). */
	dynamicVariables: Record<string, unknown>;
	conversationConfigOverride: Record<string, unknown>;
	/** How long the caller heard ringing while the service waited for conversation.initiating answers. */
	waitedMs: number;
	completed: 'no' | 'scheduled' | 'sent';
	deliveryIds: string[];
}

class Cancelled extends Error {
	constructor() {
		super('cancelled by sandbox reset or shutdown');
	}
}

type Rep = Record<string, unknown>;

function isoSeconds(date = new Date(currentTime())): string {
	return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function hex(bytes: number): string {
	return randomBytes(bytes).toString('hex');
}

function invalid(field: string, message: string): HttpError {
	return new HttpError(400, {
		status: 400,
		error: 'validation_error',
		message: `Invalid ${field}: ${message}`,
		errors: [{ field, message }],
	});
}

function notFound(message: string): HttpError {
	return new HttpError(404, { status: 404, error: 'not_found', message });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseResponseBody(text: string): unknown {
	if (text.trim() === '') return null;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text.length > 10_000 ? `${text.slice(0, 10_000)}…` : text;
	}
}

function describeFetchError(error: unknown): string {
	const cause = (error as { cause?: { code?: string; message?: string } }).cause;
	return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

function isLoopback(url: string): boolean {
	const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
	return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function defaultTranscript(dynamicVariables: Record<string, unknown>): TranscriptTurn[] {
	const name = typeof dynamicVariables.customer_name === 'string' ? ` ${dynamicVariables.customer_name}` : '';
	return [
		{ role: 'agent', message: `Hello${name}, thanks for calling Acme Widgets. How can I help you today?`, time_in_call_secs: 0 },
		{ role: 'user', message: "Hi, I'd like to check on my order. The number is 55231.", time_in_call_secs: 4.2 },
		{ role: 'agent', message: 'Thanks. Order 55231 shipped yesterday and should arrive on Thursday.', time_in_call_secs: 9.8 },
		{ role: 'user', message: "Great, that's all I needed. Thank you!", time_in_call_secs: 16.5 },
		{ role: 'agent', message: "You're welcome. Have a good day!", time_in_call_secs: 19.1 },
	];
}

export function defaultAnalysis(): Record<string, unknown> {
	return {
		data_collection_results: {
			order_number: {
				data_collection_id: 'order_number',
				value: '55231',
				rationale: 'The caller gave the order number in their first turn.',
			},
		},
		call_successful: 'success',
		transcript_summary:
			'The caller asked about order 55231. The agent confirmed it shipped yesterday and should arrive on Thursday; the caller needed nothing else.',
	};
}

export class ConvaiSandbox implements SandboxModule {
	readonly name = 'convai';
	readonly prefix = CONVAI_PREFIX;
	readonly admin: Router;
	readonly keys: KeyStore;
	settings: ConvaiSettings = { ...DEFAULT_CONVAI_SETTINGS };
	webhooks: Webhook[] = [];
	deliveries: Delivery[] = [];
	conversations: SimulatedConversation[] = [];
	private lifetime = lifetimeController();
	private timers = new Set<NodeJS.Timeout>();
	private deliverySeq = 0;
	private readonly api: Router;

	constructor(private readonly context: SandboxContext) {
		this.keys = platformKeys(context);
		this.api = this.buildApi();
		this.admin = this.buildAdmin();
	}

	info(baseUrl: string): Record<string, unknown> {
		return {
			baseUrl: `${baseUrl}${CONVAI_PREFIX}`,
			auth: 'Authorization: Bearer <key>',
			keys: this.keys.list(),
			demoAgents: ['agent_demo_support', 'agent_demo_sales'],
		};
	}

	reset(): void {
		this.stopEverything();
		this.lifetime = lifetimeController();
		this.keys.reset();
		this.settings = { ...DEFAULT_CONVAI_SETTINGS };
		this.webhooks = [];
		this.deliveries = [];
		this.conversations = [];
		this.deliverySeq = 0;
	}

	close(): void {
		this.stopEverything();
	}

	private stopEverything(): void {
		this.lifetime.abort();
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
	}

	async handle(req: SandboxRequest, res: ServerResponse): Promise<void> {
		this.keys.authorize(req, 'convai');
		await routeHandler(this.api)(req, res);
	}

	// ---- webhooks ---------------------------------------------------------------------

	private webhookRep(webhook: Webhook, withHealth: boolean, api = true): Rep {
		if (api && this.settings.webhookRecords === 'sparse') return { webhook_id: webhook.webhook_id, event_type: webhook.event_type, status: webhook.status };
		return {
			webhook_id: webhook.webhook_id,
			event_type: webhook.event_type,
			url: webhook.url,
			request_headers: { ...webhook.request_headers },
			agent_id: webhook.agent_id,
			timeout_ms: webhook.timeout_ms,
			created_at: webhook.created_at,
			status: webhook.status,
			...(withHealth ? { health: { ...webhook.health } } : {}),
		};
	}

	private findWebhook(id: string): Webhook {
		const found = this.webhooks.find((w) => w.webhook_id === id);
		if (!found) throw notFound(`No webhook ${id}`);
		return found;
	}

	/** The create body, checked field by field; the first problem answers 400 naming its field. */
	private webhookInput(req: SandboxRequest): Omit<Webhook, 'webhook_id' | 'created_at' | 'status' | 'health' | 'failingSince' | 'lastProbeAt'> {
		const type = String(req.headers['content-type'] ?? '');
		if (req.body.length > 0 && !/json/i.test(type)) {
			throw new HttpError(415, { status: 415, error: 'unsupported_media_type', message: 'Send the webhook as JSON (Content-Type: application/json)' });
		}
		const body = jsonBody<unknown>(req);
		if (!isPlainObject(body)) throw invalid('body', 'a JSON object is required');
		for (const key of Object.keys(body)) {
			if (!WEBHOOK_FIELDS.includes(key)) throw invalid(key, `unknown field; the fields are ${WEBHOOK_FIELDS.join(', ')}`);
		}
		if (body.event_type === undefined || body.event_type === null) throw invalid('event_type', 'is required');
		if (typeof body.event_type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(body.event_type)) {
			throw invalid('event_type', `must be one of ${EVENT_TYPES.join(', ')}`);
		}
		if (body.url === undefined || body.url === null || body.url === '') throw invalid('url', 'is required');
		if (typeof body.url !== 'string') throw invalid('url', 'must be a string');
		let parsed: URL;
		try {
			parsed = new URL(body.url);
		} catch {
			throw invalid('url', 'must be an absolute http or https URL');
		}
		if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid('url', 'must be an absolute http or https URL');
		if (parsed.username || parsed.password) throw invalid('url', 'may not carry credentials; use request_headers');

		const headers: Record<string, string> = {};
		if (body.request_headers !== undefined && body.request_headers !== null) {
			if (!isPlainObject(body.request_headers)) throw invalid('request_headers', 'must be an object of header names to string values');
			for (const [name, value] of Object.entries(body.request_headers)) {
				if (!HEADER_NAME.test(name)) throw invalid(`request_headers.${name}`, 'is not a valid HTTP header name');
				if (RESERVED_HEADERS.has(name.toLowerCase())) throw invalid(`request_headers.${name}`, 'is set by the service and cannot be configured');
				if (typeof value !== 'string') throw invalid(`request_headers.${name}`, 'must be a string');
				if (/[\r\n\0]/.test(value)) throw invalid(`request_headers.${name}`, 'may not contain line breaks');
				headers[name] = value;
			}
		}

		let agentId: string | null = null;
		if (body.agent_id !== undefined && body.agent_id !== null) {
			if (typeof body.agent_id !== 'string' || body.agent_id.trim() === '') throw invalid('agent_id', 'must be a non-empty string, or absent for an account-wide webhook');
			if (body.agent_id.length > 128) throw invalid('agent_id', 'may be at most 128 characters');
			agentId = body.agent_id;
		}

		let timeout = DEFAULT_TIMEOUT_MS;
		if (body.timeout_ms !== undefined && body.timeout_ms !== null) {
			if (typeof body.timeout_ms !== 'number' || !Number.isInteger(body.timeout_ms)) throw invalid('timeout_ms', 'must be an integer number of milliseconds');
			if (body.timeout_ms < 1 || body.timeout_ms > MAX_TIMEOUT_MS) throw invalid('timeout_ms', `must be between 1 and ${MAX_TIMEOUT_MS}`);
			timeout = body.timeout_ms;
		}
		return {
			event_type: body.event_type as WebhookEventType,
			url: body.url,
			request_headers: headers,
			agent_id: agentId,
			timeout_ms: timeout,
		};
	}

	private buildApi(): Router {
		const r = new Router();
		r.add('POST', '/webhooks', (req, res) => {
			const input = this.webhookInput(req);
			const clash = this.webhooks.find((w) => w.event_type === input.event_type && w.agent_id === input.agent_id);
			if (clash) {
				const scope = input.agent_id === null ? 'account-wide' : `agent ${input.agent_id}`;
				throw new HttpError(409, {
					status: 409,
					error: 'conflict',
					message: `A ${input.event_type} webhook already exists for ${input.agent_id === null ? 'the account (account-wide scope)' : `agent ${input.agent_id}`}; only one webhook per event type per scope is allowed. Delete it first or update it instead.`,
					event_type: input.event_type,
					scope,
				});
			}
			const webhook: Webhook = {
				webhook_id: `wh_${hex(12)}`,
				...input,
				created_at: isoSeconds(),
				status: 'active',
				health: { consecutive_failures: 0, last_delivery_at: null, last_status_code: null, last_error: null, last_response_ms: null },
				failingSince: null,
				lastProbeAt: null,
			};
			this.webhooks.push(webhook);
			send(res, 201, this.webhookRep(webhook, false), {
				Location: `${this.context.baseUrl()}${CONVAI_PREFIX}/webhooks/${webhook.webhook_id}`,
			});
		});
		r.add('GET', '/webhooks', (req, res) => {
			const agentId = queryValue(req.query, 'agent_id');
			const eventType = queryValue(req.query, 'event_type');
			if (eventType !== undefined && !(EVENT_TYPES as readonly string[]).includes(eventType)) {
				throw invalid('event_type', `must be one of ${EVENT_TYPES.join(', ')}`);
			}
			const list = this.webhooks.filter(
				(w) => (agentId === undefined || w.agent_id === agentId) && (eventType === undefined || w.event_type === eventType),
			);
			send(res, 200, { webhooks: list.map((w) => this.webhookRep(w, false)) });
		});
		r.add('GET', '/webhooks/:webhookId', (req, res) => send(res, 200, this.webhookRep(this.findWebhook(req.params.webhookId), true)));
		r.add('DELETE', '/webhooks/:webhookId', (req, res) => {
			const webhook = this.findWebhook(req.params.webhookId);
			this.webhooks.splice(this.webhooks.indexOf(webhook), 1);
			send(res, 204);
		});
		return r;
	}

	// ---- delivery ---------------------------------------------------------------------

	private sleep(ms: number): Promise<void> {
		const signal = this.lifetime.signal;
		return new Promise((resolve, reject) => {
			if (signal.aborted) {
				reject(new Cancelled());
				return;
			}
			const onAbort = () => {
				clearTimeout(timer);
				this.timers.delete(timer);
				reject(new Cancelled());
			};
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				signal.removeEventListener('abort', onAbort);
				resolve();
			}, Math.max(0, ms));
			timer.unref();
			this.timers.add(timer);
			signal.addEventListener('abort', onAbort, { once: true });
		});
	}

	/**
	 * One HTTP POST with its own timeout; network errors and timeouts are answers, not exceptions.
	 * `statedTimeoutMs` is the timeout a timed-out answer names (the webhook's `timeout_ms`, where
	 * `timeoutMs` is what is left of it).
	 */
	private async attempt(
		delivery: Delivery,
		timeoutMs: number,
		statedTimeoutMs = timeoutMs,
	): Promise<{ status: number | null; body: unknown; elapsedMs: number; timedOut: boolean; error: string | null }> {
		const lifetime = this.lifetime.signal;
		if (lifetime.aborted) throw new Cancelled();
		if (!this.settings.allowNonLoopback && !isLoopback(delivery.url)) {
			return { status: null, body: null, elapsedMs: 0, timedOut: false, error: 'the sandbox delivers only to loopback addresses (setting allowNonLoopback)' };
		}
		const controller = new AbortController();
		const onAbort = () => controller.abort();
		lifetime.addEventListener('abort', onAbort, { once: true });
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			controller.abort();
		}, timeoutMs);
		timer.unref();
		const started = performance.now();
		const elapsed = () => Math.round(performance.now() - started);
		try {
			const response = await fetch(delivery.url, {
				method: 'POST',
				headers: delivery.request.headers,
				body: JSON.stringify(delivery.request.body),
				signal: controller.signal,
				redirect: 'manual',
			});
			const text = await response.text();
			return {
				status: response.status,
				body: parseResponseBody(text),
				elapsedMs: elapsed(),
				timedOut: false,
				error: response.status >= 200 && response.status < 300 ? null : `HTTP ${response.status}`,
			};
		} catch (error) {
			if (lifetime.aborted && !timedOut) throw new Cancelled();
			return {
				status: null,
				body: null,
				elapsedMs: elapsed(),
				timedOut,
				error: timedOut ? `no response within ${statedTimeoutMs} ms` : describeFetchError(error),
			};
		} finally {
			clearTimeout(timer);
			lifetime.removeEventListener('abort', onAbort);
		}
	}

	/** One attempt, added to the delivery's attempts and made its latest response. */
	private async recordedAttempt(delivery: Delivery, timeoutMs: number, statedTimeoutMs = timeoutMs): ReturnType<ConvaiSandbox['attempt']> {
		const startedAt = new Date(currentTime()).toISOString();
		const result = await this.attempt(delivery, timeoutMs, statedTimeoutMs);
		delivery.attempts.push({ attempt: delivery.attempts.length + 1, startedAt, status: result.status, elapsedMs: result.elapsedMs, timedOut: result.timedOut, error: result.error });
		delivery.response = { status: result.status, body: result.body, elapsedMs: result.elapsedMs, timedOut: result.timedOut };
		return result;
	}

	/**
	 * Sends one event to one webhook. conversation.initiating gets the webhook's `timeout_ms`
	 * as its whole budget (retries included, as the caller is waiting); other events get
	 * `completedTimeoutMs` per attempt. A failing webhook gets no delivery (suspended), or one
	 * probe attempt once `recoveryIntervalMs` has passed since it failed or was last probed.
	 */
	private async deliver(webhook: Webhook, body: WebhookPayload): Promise<Delivery> {
		const now = currentTime();
		let probe = false;
		if (webhook.status === 'failing') {
			const since = Math.max(webhook.failingSince ?? 0, webhook.lastProbeAt ?? 0);
			if (now - since >= this.settings.recoveryIntervalMs) {
				probe = true;
				webhook.lastProbeAt = now;
			}
		}
		const data = body.data as { conversation_id: string; agent_id: string };
		const delivery: Delivery = {
			deliveryId: `dlv_${++this.deliverySeq}`,
			webhookId: webhook.webhook_id,
			eventType: body.type,
			url: webhook.url,
			scope: webhook.agent_id === null ? 'account' : 'agent',
			agentId: data.agent_id,
			conversationId: data.conversation_id,
			probe,
			outcome: 'pending',
			request: { headers: { ...webhook.request_headers, 'Content-Type': 'application/json' }, body },
			attempts: [],
			response: null,
			createdAt: new Date(now).toISOString(),
			finishedAt: null,
		};
		this.deliveries.push(delivery);
		if (this.deliveries.length > 20_000) this.deliveries.splice(0, 5_000);
		if (webhook.status === 'failing' && !probe) {
			delivery.outcome = 'suspended';
			delivery.finishedAt = delivery.createdAt;
			return delivery;
		}

		const initiating = body.type === 'conversation.initiating';
		const deadline = initiating ? now + webhook.timeout_ms : Number.POSITIVE_INFINITY;
		const maxAttempts = probe ? 1 : Math.max(1, Math.floor(this.settings.maxAttempts));
		try {
			for (let attempt = 1; attempt <= maxAttempts; attempt++) {
				const remaining = deadline - currentTime();
				if (remaining <= 0) break;
				const timeoutMs = initiating ? remaining : this.settings.completedTimeoutMs;
				const result = await this.recordedAttempt(delivery, timeoutMs, initiating ? webhook.timeout_ms : timeoutMs);
				if (result.error === null) break;
				if (attempt === maxAttempts) break;
				const delay = this.settings.retryBaseMs * 2 ** (attempt - 1);
				if (currentTime() + delay >= deadline) break;
				await this.sleep(delay);
			}
		} catch (error) {
			if (!(error instanceof Cancelled)) throw error;
			delivery.outcome = 'cancelled';
			delivery.finishedAt = new Date(currentTime()).toISOString();
			return delivery;
		}
		const last = delivery.attempts[delivery.attempts.length - 1];
		delivery.outcome = last && last.error === null ? 'delivered' : last?.timedOut || !last ? 'timed_out' : 'failed';
		delivery.finishedAt = new Date(currentTime()).toISOString();
		this.recordHealth(webhook, delivery, last);
		return delivery;
	}

	private recordHealth(webhook: Webhook, delivery: Delivery, last: DeliveryAttempt | undefined): void {
		const health = webhook.health;
		health.last_delivery_at = isoSeconds();
		health.last_status_code = last?.status ?? null;
		health.last_error = last?.error ?? (delivery.outcome === 'timed_out' ? `no response within ${webhook.timeout_ms} ms` : null);
		health.last_response_ms = last?.elapsedMs ?? null;
		if (delivery.outcome === 'delivered') {
			health.consecutive_failures = 0;
			webhook.status = 'active';
			webhook.failingSince = null;
			webhook.lastProbeAt = null;
			return;
		}
		health.consecutive_failures += 1;
		if (webhook.status === 'active' && health.consecutive_failures >= this.settings.failureThreshold) {
			webhook.status = 'failing';
			webhook.failingSince = currentTime();
		}
	}

	private matching(eventType: WebhookEventType, agentId: string): Webhook[] {
		return this.webhooks.filter((w) => w.event_type === eventType && (w.agent_id === null || w.agent_id === agentId));
	}

	/**
	 * An inbound call to an agent: conversation.initiating to every matching webhook (answers
	 * awaited), then conversation.completed after `completedDelayMs`.
	 */
	async simulateConversation(input: {
		agent_id?: unknown;
		conversation_id?: unknown;
		transcript?: unknown;
		analysis?: unknown;
		completed?: unknown;
		completedDelayMs?: unknown;
		waitForCompleted?: unknown;
	}): Promise<Rep> {
		if (typeof input.agent_id !== 'string' || input.agent_id === '') throw invalid('agent_id', 'is required');
		if (input.conversation_id !== undefined && (typeof input.conversation_id !== 'string' || input.conversation_id === '')) {
			throw invalid('conversation_id', 'must be a non-empty string');
		}
		if (input.transcript !== undefined && !Array.isArray(input.transcript)) throw invalid('transcript', 'must be an array of turns');
		if (input.analysis !== undefined && !isPlainObject(input.analysis)) throw invalid('analysis', 'must be an object');
		const agentId = input.agent_id;
		const conversationId = (input.conversation_id as string | undefined) ?? `conv_${hex(10)}`;
		const completed = input.completed !== false;
		const delayMs = Math.max(0, Number(input.completedDelayMs ?? 0) || 0);
		const start = new Date(currentTime());
		const startSecs = Math.floor(start.getTime() / 1000);

		const conversation: SimulatedConversation = {
			conversationId,
			agentId,
			startedAt: start.toISOString(),
			dynamicVariables: {},
			conversationConfigOverride: {},
			waitedMs: 0,
			completed: completed ? 'scheduled' : 'no',
			deliveryIds: [],
		};
		this.conversations.push(conversation);

		const initiatingBody: WebhookPayload = {
			type: 'conversation.initiating',
			timestamp: startSecs,
			data: { conversation_id: conversationId, agent_id: agentId },
		};
		// Account-wide first, agent-scoped second: the agent's answer wins where both set a key.
		const initiatingHooks = this.matching('conversation.initiating', agentId).sort(
			(a, b) => Number(a.agent_id !== null) - Number(b.agent_id !== null),
		);
		const waitStart = performance.now();
		const initiating = await Promise.all(initiatingHooks.map((w) => this.deliver(w, initiatingBody)));
		conversation.waitedMs = Math.round(performance.now() - waitStart);
		for (const delivery of initiating) {
			conversation.deliveryIds.push(delivery.deliveryId);
			const answer = delivery.outcome === 'delivered' ? delivery.response?.body : undefined;
			if (!isPlainObject(answer)) continue;
			if (isPlainObject(answer.dynamic_variables)) Object.assign(conversation.dynamicVariables, answer.dynamic_variables);
			if (isPlainObject(answer.conversation_config_override)) {
				Object.assign(conversation.conversationConfigOverride, answer.conversation_config_override);
			}
		}

		const sendCompleted = async (): Promise<Delivery[]> => {
			const transcript = (input.transcript as TranscriptTurn[] | undefined) ?? defaultTranscript(conversation.dynamicVariables);
			const lastTurn = transcript.reduce((max, turn) => Math.max(max, Number(turn.time_in_call_secs) || 0), 0);
			const body: WebhookPayload = {
				type: 'conversation.completed',
				timestamp: Math.floor(currentTime() / 1000),
				data: {
					conversation_id: conversationId,
					agent_id: agentId,
					status: 'done',
					metadata: { start_time_unix_secs: startSecs, call_duration_secs: Math.ceil(lastTurn + 3) },
					transcript,
					analysis: { ...defaultAnalysis(), ...((input.analysis as Record<string, unknown> | undefined) ?? {}) },
					conversation_initiation_client_data: {
						dynamic_variables: { ...conversation.dynamicVariables },
						conversation_config_override: { ...conversation.conversationConfigOverride },
					},
				},
			};
			conversation.completed = 'sent';
			const deliveries = await Promise.all(this.matching('conversation.completed', agentId).map((w) => this.deliver(w, body)));
			conversation.deliveryIds.push(...deliveries.map((d) => d.deliveryId));
			return deliveries;
		};

		let completedDeliveries: Delivery[] | undefined;
		if (completed) {
			const run = async () => {
				await this.sleep(delayMs);
				return await sendCompleted();
			};
			if (input.waitForCompleted === true) {
				try {
					completedDeliveries = await run();
				} catch (error) {
					if (!(error instanceof Cancelled)) throw error;
				}
			} else {
				run().catch((error: unknown) => {
					if (!(error instanceof Cancelled)) process.stderr.write(`convai sandbox: ${String(error)}\n`);
				});
			}
		}
		return {
			conversation_id: conversationId,
			agent_id: agentId,
			waitedMs: conversation.waitedMs,
			dynamic_variables: conversation.dynamicVariables,
			conversation_config_override: conversation.conversationConfigOverride,
			completed: conversation.completed,
			deliveries: [...initiating, ...(completedDeliveries ?? [])],
		};
	}

	/** Makes a failing webhook active again at once (the admin shortcut to a successful probe). */
	recover(webhookId: string): Webhook {
		const webhook = this.findWebhook(webhookId);
		webhook.status = 'active';
		webhook.failingSince = null;
		webhook.lastProbeAt = null;
		webhook.health.consecutive_failures = 0;
		return webhook;
	}

	private buildAdmin(): Router {
		const r = addKeyAdminRoutes(new Router(), this.keys);
		const input = (req: SandboxRequest) => {
			const body = jsonBody<unknown>(req) ?? {};
			if (!isPlainObject(body)) throw new HttpError(400, { message: 'A JSON object body is required' });
			return body;
		};
		r.add('POST', '/conversations', async (req, res) => send(res, 200, await this.simulateConversation(input(req))));
		r.add('GET', '/conversations', (_req, res) => send(res, 200, this.conversations));
		r.add('GET', '/deliveries', (req, res) => {
			const q = (name: string) => queryValue(req.query, name);
			send(
				res,
				200,
				this.deliveries.filter(
					(d) =>
						(!q('conversation_id') || d.conversationId === q('conversation_id')) &&
						(!q('webhook_id') || d.webhookId === q('webhook_id')) &&
						(!q('event_type') || d.eventType === q('event_type')) &&
						(!q('outcome') || d.outcome === q('outcome')),
				),
			);
		});
		// The service's retry after an answer it did not get (a 200 lost or late): the same request
		// once more, recorded as one more attempt of the delivery.
		r.add('POST', '/deliveries/:deliveryId/repeat', async (req, res) => {
			const delivery = this.deliveries.find((d) => d.deliveryId === req.params.deliveryId);
			if (!delivery) throw new HttpError(404, { message: `No delivery ${req.params.deliveryId}` });
			await this.recordedAttempt(delivery, this.settings.completedTimeoutMs);
			send(res, 200, delivery);
		});
		r.add('DELETE', '/deliveries', (_req, res) => {
			this.deliveries = [];
			send(res, 204);
		});
		r.add('GET', '/webhooks', (_req, res) => send(res, 200, this.webhooks.map((w) => this.webhookRep(w, true, false))));
		r.add('POST', '/webhooks/:webhookId/recover', (req, res) => send(res, 200, this.webhookRep(this.recover(req.params.webhookId), true, false)));
		r.add('GET', '/settings', (_req, res) => send(res, 200, this.settings));
		r.add('POST', '/settings', (req, res) => {
			const body = input(req);
			const next: ConvaiSettings = { ...this.settings };
			for (const [key, value] of Object.entries(body)) {
				if (!(key in DEFAULT_CONVAI_SETTINGS)) throw new HttpError(400, { message: `Unknown setting ${key}`, field: key });
				const expected = typeof DEFAULT_CONVAI_SETTINGS[key as keyof ConvaiSettings];
				if (typeof value !== expected || (expected === 'number' && !(Number(value) >= 0))) {
					throw new HttpError(400, { message: `${key} must be a ${expected === 'number' ? 'non-negative number' : expected}`, field: key });
				}
				(next as unknown as Record<string, unknown>)[key] = value;
			}
			this.settings = next;
			send(res, 200, this.settings);
		});
		return r;
	}
}

export const convaiModule = (context: SandboxContext) => new ConvaiSandbox(context);
