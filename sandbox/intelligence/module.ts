import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

import type { SandboxRequest } from '../core/http';
import { HttpError, Router, jsonBody, queryValue, send } from '../core/http';
import { lifetimeController } from '../core/lifetime';
import type { StatusFault } from '../core/faults';
import type { RefusalInput } from '../core/refusals';
import { addRefusals, clearRefusals, listRefusals } from '../core/refusals';
import type { SandboxContext, SandboxModule } from '../core/server';
import { routeHandler } from '../core/server';
import type { KeyStore } from '../platform/keys';
import { addKeyAdminRoutes, platformKeys } from '../platform/keys';
import type { Configuration, Granularity, OperatorRef, OutputType, ScriptEvent } from './seed';
import { OUTPUT_TYPES, SUPPORT_CONFIG_UUID, demoScript, seedConfigurations } from './seed';
import type { SseFaults, SseSettings, StoredEvent } from './stream';
import { DEFAULT_SSE_SETTINGS, ENDED_STREAM_ANSWERS, ENDED_TOKEN_ANSWERS, SseHub, sseFaultProblems } from './stream';
import { currentTime } from '../core/clock';

/**
 * The Conversation Intelligence service (`/intelligence/v1`): the operator upgrade of a
 * configuration, stream tokens, and each session's Server-Sent Events stream, fed by admin
 * scripts (a demo call, given events, or a generator for benchmarks).
 */

export const INTELLIGENCE_PREFIX = '/intelligence/v1';

/** What a refused key can be refused on: the stream-token endpoint, and the events endpoint itself. */
export const INTELLIGENCE_REFUSAL_TARGETS = {
	paths: { token: `${INTELLIGENCE_PREFIX}/sessions/*/stream-token`, events: `${INTELLIGENCE_PREFIX}/sessions/*/events` },
	all: `${INTELLIGENCE_PREFIX}/`,
};

export type Speaker = 'caller' | 'recipient';

export interface Session {
	session_id: string;
	call_id: string;
	conversation_id: string;
	configuration_id: string;
	transcript_events: boolean;
	created_at: string;
	state: 'created' | 'active' | 'ended';
	started_at: string | null;
	ended_at: string | null;
	startedMs: number | null;
	events: StoredEvent[];
	index: Map<string, number>;
	/** Event ids are `evt_<idPrefix>_<seq>`: unique across sessions, ordered within one. */
	idPrefix: string;
	/** The next utterance_index per speaker; it advances after a final utterance. */
	utteranceCounters: Record<Speaker, number>;
	/** Final utterances so far: the default turn_index. */
	turns: number;
	lastCallSeconds: number;
	scriptsPlaying: number;
}

interface StreamToken {
	token: string;
	sessionId: string;
	expiresAt: number;
}

export interface IntelligenceSettings extends SseSettings {
	tokenLifetimeSeconds: number;
}

const DEFAULT_TOKEN_LIFETIME_SECONDS = 60;

class Cancelled extends Error {
	constructor() {
		super('cancelled by sandbox reset or shutdown');
	}
}

type Rep = Record<string, unknown>;

function hex(bytes: number): string {
	return randomBytes(bytes).toString('hex');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(field: string, message: string, extra: Rep = {}): HttpError {
	return new HttpError(400, {
		status: 400,
		error: 'validation_error',
		message: `Invalid ${field}: ${message}`,
		errors: [{ field, message }],
		...extra,
	});
}

function notFound(message: string): HttpError {
	return new HttpError(404, { status: 404, error: 'not_found', message });
}

function invalidToken(message: string): HttpError {
	return new HttpError(401, { status: 401, error: 'invalid_token', message });
}

/** The contract is silent on how an ended session is refused: 410 Gone, saying so in `error` and `message`. */
function sessionGone(sessionId: string): HttpError {
	return new HttpError(410, { status: 410, error: 'session has ended', message: `Session ${sessionId} has ended; its durable record is the conversation` });
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** A plausible result for an operator of a type, varied by `i`. */
export function sampleResult(outputType: OutputType, i: number, parameters: Record<string, unknown> = {}): Rep {
	switch (outputType) {
		case 'classification': {
			const labels = Array.isArray(parameters.labels) && parameters.labels.length ? (parameters.labels as unknown[]) : ['positive', 'neutral', 'negative'];
			return { value: String(labels[i % labels.length]) };
		}
		case 'boolean':
			return { value: i % 2 === 0 };
		case 'score':
			return { value: round2(1 + ((i * 37) % 40) / 10) };
		case 'multi_tag': {
			const tags = Array.isArray(parameters.tags) && parameters.tags.length ? (parameters.tags as unknown[]).map(String) : ['billing', 'delivery', 'refund'];
			return { tags: tags.slice(i % tags.length, (i % tags.length) + 1 + (i % 2)) };
		}
		case 'extraction':
			return i % 3 === 0 ? { value: null, found: false } : { value: String(50_000 + (i % 50_000)), found: true };
		default:
			return { value: `Generated text result ${i}` };
	}
}

export class IntelligenceSandbox implements SandboxModule {
	readonly name = 'intelligence';
	readonly prefix = INTELLIGENCE_PREFIX;
	readonly admin: Router;
	readonly keys: KeyStore;
	readonly hub = new SseHub();
	configurations: Configuration[] = seedConfigurations();
	sessions = new Map<string, Session>();
	tokenLifetimeSeconds = DEFAULT_TOKEN_LIFETIME_SECONDS;
	private tokens = new Map<string, StreamToken>();
	private lifetime = lifetimeController();
	private readonly api: Router;
	private readonly streamApi: Router;

	constructor(private readonly context: SandboxContext) {
		this.keys = platformKeys(context);
		this.seedSessions();
		this.api = this.buildApi();
		this.streamApi = this.buildStreamApi();
		this.admin = this.buildAdmin();
	}

	get settings(): IntelligenceSettings {
		return { ...this.hub.settings, tokenLifetimeSeconds: this.tokenLifetimeSeconds };
	}

	info(baseUrl: string): Record<string, unknown> {
		return {
			baseUrl: `${baseUrl}${INTELLIGENCE_PREFIX}`,
			auth: 'Authorization: Bearer <key>; the events stream takes ?token= from /sessions/{id}/stream-token',
			keys: this.keys.list(),
			sessions: [...this.sessions.values()].map((s) => ({ session_id: s.session_id, transcript_events: s.transcript_events, state: s.state })),
			configurations: this.configurations.map((c) => ({ uuid: c.uuid, name: c.name, version: c.version })),
		};
	}

	reset(): void {
		this.stopEverything();
		this.lifetime = lifetimeController();
		this.hub.settings = { ...DEFAULT_SSE_SETTINGS };
		this.keys.reset();
		this.configurations = seedConfigurations();
		this.tokens.clear();
		this.tokenLifetimeSeconds = DEFAULT_TOKEN_LIFETIME_SECONDS;
		this.seedSessions();
	}

	close(): void {
		this.stopEverything();
	}

	// ---- faults of a live service -----------------------------------------------------

	/** Refuses the key on the stream-token endpoint (and the events endpoint, if asked). */
	refuse(input: RefusalInput = {}): StatusFault[] {
		return addRefusals(this.context.faults, this.name, INTELLIGENCE_REFUSAL_TARGETS, { targets: ['token'], ...input }, (status) =>
			status === 401
				? { body: { status: 401, error: 'unauthorized', message: 'The API key is invalid or has been revoked' }, headers: { 'WWW-Authenticate': 'Bearer realm="platform"' } }
				: { body: { status: 403, error: 'insufficient_scope', message: 'The API key lacks the scope intelligence:read', required_scope: 'intelligence:read' } },
		);
	}

	refusals(): ReturnType<typeof listRefusals> {
		return listRefusals(this.context.faults, this.name);
	}

	clearRefusals(): number {
		return clearRefusals(this.context.faults, this.name);
	}

	/** Stream faults on a session's open streams, or its next one (see SseFaults). */
	applyStreamFaults(sessionId: string, faults: SseFaults): { applied: number; pending: boolean } {
		const problems = sseFaultProblems(faults as Record<string, unknown>);
		if (problems.length) throw new HttpError(400, { status: 400, error: 'validation_error', message: problems.join('; ') });
		return this.hub.applyFaults(this.session(sessionId).session_id, faults);
	}

	private stopEverything(): void {
		this.lifetime.abort();
		this.hub.closeAll();
	}

	private seedSessions(): void {
		this.sessions.clear();
		this.createSession({ session_id: 'sess_demo_transcript', transcript_events: true, call_id: 'call_demo_0001', conversation_id: 'conv_demo_0001' });
		this.createSession({ session_id: 'sess_demo_quiet', transcript_events: false, call_id: 'call_demo_0002', conversation_id: 'conv_demo_0002' });
	}

	async handle(req: SandboxRequest, res: ServerResponse): Promise<void> {
		if (/^\/sessions\/[^/]+\/events\/?$/.test(req.path)) {
			// Authenticated by the stream token, so that a browser EventSource can open it.
			await routeHandler(this.streamApi)(req, res);
			return;
		}
		this.keys.authorize(req, 'intelligence');
		await routeHandler(this.api)(req, res);
	}

	// ---- sessions ---------------------------------------------------------------------

	createSession(input: Rep): Session {
		const id = input.session_id ?? `sess_${hex(8)}`;
		if (typeof id !== 'string' || !/^[A-Za-z0-9_.-]{1,100}$/.test(id)) throw invalid('session_id', 'must be 1-100 letters, digits, _, . or -');
		if (this.sessions.has(id)) throw new HttpError(409, { status: 409, error: 'conflict', message: `Session ${id} already exists` });
		if (input.transcript_events !== undefined && typeof input.transcript_events !== 'boolean') throw invalid('transcript_events', 'must be a boolean');
		const configurationId = input.configuration_id ?? SUPPORT_CONFIG_UUID;
		if (typeof configurationId !== 'string' || !this.configurations.some((c) => c.uuid === configurationId)) {
			throw invalid('configuration_id', 'must be the uuid of a configuration (GET /_sandbox/intelligence/configurations)');
		}
		for (const field of ['call_id', 'conversation_id']) {
			if (input[field] !== undefined && (typeof input[field] !== 'string' || input[field] === '')) throw invalid(field, 'must be a non-empty string');
		}
		const session: Session = {
			session_id: id,
			call_id: (input.call_id as string | undefined) ?? `call_${hex(6)}`,
			conversation_id: (input.conversation_id as string | undefined) ?? `conv_${hex(8)}`,
			configuration_id: configurationId,
			transcript_events: input.transcript_events === true,
			created_at: new Date(currentTime()).toISOString(),
			state: 'created',
			started_at: null,
			ended_at: null,
			startedMs: null,
			events: [],
			index: new Map(),
			idPrefix: hex(3),
			utteranceCounters: { caller: 0, recipient: 0 },
			turns: 0,
			lastCallSeconds: 0,
			scriptsPlaying: 0,
		};
		this.sessions.set(id, session);
		return session;
	}

	private session(id: string): Session {
		const found = this.sessions.get(id);
		if (!found) throw notFound(`No session ${id}`);
		return found;
	}

	sessionRep(s: Session): Rep {
		return {
			session_id: s.session_id,
			call_id: s.call_id,
			conversation_id: s.conversation_id,
			configuration_id: s.configuration_id,
			transcript_events: s.transcript_events,
			state: s.state,
			created_at: s.created_at,
			started_at: s.started_at,
			ended_at: s.ended_at,
			event_count: s.events.length,
			last_event_id: s.events[s.events.length - 1]?.id ?? null,
			open_streams: this.hub.count(s.session_id),
			scripts_playing: s.scriptsPlaying,
		};
	}

	/** The operator an event names (a name, optionally with a granularity selector, or an object). */
	private operatorFor(session: Session, operator: unknown, selector: unknown, outputType: unknown): { name: string; version: number; granularity: Granularity; output_type: OutputType; parameters: Rep } {
		const config = this.configurations.find((c) => c.uuid === session.configuration_id);
		const given = isPlainObject(operator) ? operator : { name: operator };
		const name = typeof given.name === 'string' ? given.name : 'unnamed_operator';
		const on = isPlainObject(given.granularity) ? given.granularity.on : selector;
		const candidates = config?.operators.filter((o) => o.name === name) ?? [];
		const ref: OperatorRef | undefined = candidates.find((o) => o.granularity.on === on) ?? candidates[0];
		const type = (OUTPUT_TYPES as unknown[]).includes(outputType) ? (outputType as OutputType) : (ref?.output_type ?? 'text');
		return {
			name,
			version: typeof given.version === 'number' ? given.version : (ref?.version ?? 1),
			granularity: isPlainObject(given.granularity)
				? (given.granularity as unknown as Granularity)
				: { ...(ref?.granularity ?? { on: on === 'conversation_end' ? 'conversation_end' : 'turn', every: on === 'conversation_end' ? null : 1, until_match: false }) },
			output_type: type,
			parameters: ref?.parameters ?? {},
		};
	}

	/**
	 * Records an event on the session and sends it to its open streams. The sandbox sets the
	 * ids and the session fields; the rest comes from `input`, with defaults. Returns null when
	 * the event is not emitted (transcript events off, a second session_started, session over).
	 */
	emit(session: Session, input: ScriptEvent): StoredEvent | null {
		if (session.state === 'ended') return null;
		const type = input.event_type;
		if (type === 'transcript_utterance' && !session.transcript_events) return null;
		if (type === 'session_started' && session.state !== 'created') return null;
		if (session.state === 'created' && type !== 'session_started') this.emit(session, { event_type: 'session_started' });

		const now = new Date(currentTime());
		const seq = session.events.length + 1;
		const id = `evt_${session.idPrefix}_${String(seq).padStart(6, '0')}`;
		const realElapsed = session.startedMs === null ? 0 : (now.getTime() - session.startedMs) / 1000;
		const elapsed = typeof input.call_elapsed_seconds === 'number' ? input.call_elapsed_seconds : realElapsed;
		session.lastCallSeconds = Math.max(session.lastCallSeconds, elapsed);
		const {
			event_type: _type,
			operator,
			granularity,
			output_type: outputType,
			result,
			confidence,
			reasoning,
			...rest
		} = input;
		const base = {
			event_id: id,
			event_type: type,
			session_id: session.session_id,
			call_id: session.call_id,
			conversation_id: session.conversation_id,
			configuration_id: session.configuration_id,
			timestamp_utc: now.toISOString(),
			call_elapsed_seconds: round2(elapsed),
		};
		let event: Rep;
		switch (type) {
			case 'session_started':
				session.state = 'active';
				session.startedMs = now.getTime();
				session.started_at = now.toISOString();
				event = { event_id: id, event_type: type, session_id: session.session_id, call_id: session.call_id, conversation_id: session.conversation_id, started_at: session.started_at };
				break;
			case 'session_ended':
				session.ended_at = now.toISOString();
				event = {
					event_id: id,
					event_type: type,
					session_id: session.session_id,
					call_id: session.call_id,
					conversation_id: session.conversation_id,
					configuration_id: session.configuration_id,
					started_at: session.started_at,
					ended_at: session.ended_at,
					duration_seconds: Math.round(Math.max(realElapsed, session.lastCallSeconds)),
				};
				break;
			case 'operator_result':
			case 'operator_error': {
				const op = this.operatorFor(session, operator, granularity, outputType);
				const atEnd = op.granularity.on === 'conversation_end';
				const turnIndex = typeof rest.turn_index === 'number' ? rest.turn_index : Math.max(0, session.turns - 1);
				event = {
					...rest,
					...base,
					operator: { name: op.name, version: op.version, granularity: op.granularity },
					output_type: op.output_type,
					...(type === 'operator_result'
						? {
								result: result ?? sampleResult(op.output_type, seq, op.parameters),
								confidence: typeof confidence === 'number' ? confidence : 0.9,
								reasoning: reasoning ?? null,
							}
						: { error: rest.error ?? { code: 'operator_failed', message: 'The operator could not produce a result' } }),
					speaker: atEnd ? null : (rest.speaker ?? 'caller'),
					trigger_text: atEnd ? null : (rest.trigger_text ?? ''),
					turn_index: atEnd ? null : turnIndex,
				};
				break;
			}
			case 'transcript_utterance': {
				const speaker: Speaker = rest.speaker === 'recipient' ? 'recipient' : 'caller';
				const isFinal = rest.is_final !== false;
				const index = typeof rest.utterance_index === 'number' ? rest.utterance_index : session.utteranceCounters[speaker];
				if (isFinal) {
					session.utteranceCounters[speaker] = index + 1;
					session.turns += 1;
				}
				const text = typeof rest.text === 'string' ? rest.text : '';
				event = {
					...rest,
					event_id: id,
					event_type: type,
					session_id: session.session_id,
					call_id: session.call_id,
					speaker,
					text,
					start: typeof rest.start === 'number' ? rest.start : round2(elapsed),
					utterance_index: index,
					is_final: isFinal,
					confidence: typeof confidence === 'number' ? confidence : isFinal ? 0.93 : 0.65,
					duration: typeof rest.duration === 'number' ? rest.duration : round2(Math.max(0.3, text.split(' ').length * 0.35)),
				};
				delete event.call_elapsed_seconds;
				break;
			}
			default:
				// Event types outside the contract go out as given, for clients that must ignore them.
				event = { ...rest, ...base, ...(operator !== undefined ? { operator } : {}), ...(result !== undefined ? { result } : {}) };
		}
		const stored: StoredEvent = { id, type, json: JSON.stringify(event) };
		session.index.set(id, session.events.length);
		session.events.push(stored);
		this.hub.publish(session.session_id, stored);
		if (type === 'session_ended') {
			session.state = 'ended';
			this.hub.endSession(session.session_id);
		}
		return stored;
	}

	/** Waits `ms` (a macrotask turn when 0); rejects when the sandbox resets or closes. */
	private wait(ms: number): Promise<void> {
		const signal = this.lifetime.signal;
		return new Promise((resolve, reject) => {
			if (signal.aborted) {
				reject(new Cancelled());
				return;
			}
			let cancel: () => void;
			const onAbort = () => {
				cancel();
				reject(new Cancelled());
			};
			const done = () => {
				signal.removeEventListener('abort', onAbort);
				resolve();
			};
			if (ms <= 0) {
				const immediate = setImmediate(done);
				cancel = () => clearImmediate(immediate);
			} else {
				const timer = setTimeout(done, ms);
				timer.unref();
				cancel = () => clearTimeout(timer);
			}
			signal.addEventListener('abort', onAbort, { once: true });
		});
	}

	/** Plays script steps `intervalMs` apart (with 0, in batches between event-loop turns). */
	async play(session: Session, steps: Iterable<ScriptEvent>, intervalMs: number): Promise<{ emitted: number; lastEventId: string | null }> {
		let emitted = 0;
		let lastEventId: string | null = null;
		let first = true;
		let sinceYield = 0;
		const ended = () => session.state === 'ended';
		session.scriptsPlaying += 1;
		try {
			for (const step of steps) {
				if (ended()) break;
				if (!first) {
					if (intervalMs > 0) await this.wait(intervalMs);
					else if (++sinceYield >= 500) {
						sinceYield = 0;
						await this.wait(0);
					}
				}
				first = false;
				if (ended()) break;
				const before = session.events.length;
				if (this.emit(session, step)) {
					// Counts the session_started emitted ahead of a first event too.
					emitted += session.events.length - before;
					lastEventId = session.events[session.events.length - 1].id;
				}
			}
		} catch (error) {
			if (!(error instanceof Cancelled)) throw error;
		} finally {
			session.scriptsPlaying -= 1;
		}
		return { emitted, lastEventId };
	}

	/** N operator results cycling through the configuration's operators, then session_ended unless `end` is false. */
	*generate(session: Session, count: number, end = true): Generator<ScriptEvent> {
		const config = this.configurations.find((c) => c.uuid === session.configuration_id);
		const operators = config?.operators ?? [];
		for (let i = 0; i < count; i++) {
			const ref = operators.length ? operators[i % operators.length] : undefined;
			yield {
				event_type: 'operator_result',
				operator: ref ? { name: ref.name, version: ref.version, granularity: ref.granularity } : 'generated_operator',
				output_type: ref?.output_type ?? OUTPUT_TYPES[i % OUTPUT_TYPES.length],
				result: sampleResult(ref?.output_type ?? OUTPUT_TYPES[i % OUTPUT_TYPES.length], i, ref?.parameters),
				confidence: round2(0.5 + ((i * 7) % 50) / 100),
				reasoning: i % 4 === 0 ? null : `Generated result ${i}`,
				speaker: i % 2 === 0 ? 'caller' : 'recipient',
				trigger_text: `Generated utterance ${i}`,
				turn_index: i,
				call_elapsed_seconds: round2(i * 0.5),
			};
		}
		if (end) yield { event_type: 'session_ended' };
	}

	// ---- public API -------------------------------------------------------------------

	private configurationRep(config: Configuration): Rep {
		return JSON.parse(JSON.stringify(config)) as Rep;
	}

	upgradeOperators(uuid: string, body: unknown): Configuration {
		const config = this.configurations.find((c) => c.uuid === uuid);
		if (!config) throw notFound(`No configuration ${uuid}`);
		if (!isPlainObject(body)) throw invalid('all', 'the body must be a JSON object with all (boolean) or operators (array of operator names)');
		for (const key of Object.keys(body)) {
			if (key !== 'all' && key !== 'operators') throw invalid(key, 'unknown field; the fields are all and operators');
		}
		if (body.all !== undefined && typeof body.all !== 'boolean') throw invalid('all', 'must be a boolean');
		const known = new Set(config.operators.map((o) => o.name));
		let targets: Set<string>;
		if (body.all === true) {
			targets = known;
		} else {
			const operators = body.operators;
			if (operators === undefined || operators === null) {
				throw body.all === undefined
					? invalid('all', 'is required: true upgrades every operator; or give operators, an array of operator names')
					: invalid('operators', 'is required when all is false: an array of operator names');
			}
			if (!Array.isArray(operators) || operators.some((o) => typeof o !== 'string')) throw invalid('operators', 'must be an array of operator names');
			if (operators.length === 0) throw invalid('operators', 'must name at least one operator');
			const unknown = [...new Set(operators as string[])].filter((name) => !known.has(name));
			if (unknown.length) {
				throw invalid('operators', `unknown operator${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; this configuration has ${[...known].join(', ')}`, { unknown_operators: unknown });
			}
			targets = new Set(operators as string[]);
		}
		for (const ref of config.operators) {
			if (!targets.has(ref.name)) continue;
			ref.version = Math.max(ref.version, ref.current_version);
			ref.upgrade_available = false;
		}
		config.version += 1;
		config.updated_at = new Date(currentTime()).toISOString().replace(/\.\d{3}Z$/, 'Z');
		return config;
	}

	private buildApi(): Router {
		const r = new Router();
		r.add('POST', '/configurations/:uuid/upgrade-operators', (req, res) => {
			const type = String(req.headers['content-type'] ?? '');
			if (req.body.length > 0 && !/json/i.test(type)) {
				throw new HttpError(415, { status: 415, error: 'unsupported_media_type', message: 'Send the body as JSON (Content-Type: application/json)' });
			}
			const config = this.upgradeOperators(req.params.uuid, jsonBody<unknown>(req));
			send(res, 200, this.configurationRep(config));
		});
		r.add('GET', '/sessions/:sessionId/stream-token', (req, res) => {
			const session = this.session(req.params.sessionId);
			if (session.state === 'ended' && this.hub.settings.endedToken === 'gone') throw sessionGone(session.session_id);
			const now = currentTime();
			for (const [key, stale] of this.tokens) if (stale.expiresAt < now - 60_000) this.tokens.delete(key);
			const token: StreamToken = {
				token: `sst_${hex(24)}`,
				sessionId: session.session_id,
				expiresAt: now + this.tokenLifetimeSeconds * 1000,
			};
			this.tokens.set(token.token, token);
			send(res, 200, { token: token.token, session_id: session.session_id, expires_at: new Date(token.expiresAt).toISOString() });
		});
		return r;
	}

	private buildStreamApi(): Router {
		return new Router().add('GET', '/sessions/:sessionId/events', (req, res) => {
			const value = queryValue(req.query, 'token');
			if (!value) throw invalidToken('The token query parameter is required; get one from GET /sessions/{session_id}/stream-token');
			const token = this.tokens.get(value);
			if (!token) throw invalidToken('The stream token is unknown');
			if (token.expiresAt <= currentTime()) throw invalidToken('The stream token has expired; get a new one from the stream-token endpoint');
			if (token.sessionId !== req.params.sessionId) throw invalidToken('The stream token was issued for another session');
			const session = this.session(req.params.sessionId);
			req.principal = `stream token for ${session.session_id}`;
			const header = req.headers['last-event-id'];
			const lastEventId = (Array.isArray(header) ? header[header.length - 1] : header)?.trim() || null;
			if (session.state === 'ended') {
				if (this.hub.settings.endedStream === 'gone') throw sessionGone(session.session_id);
				if (this.hub.settings.endedStream === 'no_content' && lastEventId !== null) {
					// Nothing more will come: the session has ended.
					send(res, 204);
					return;
				}
			}
			const after = lastEventId === null ? -1 : (session.index.get(lastEventId) ?? -1);
			this.hub.open(res, session.session_id, lastEventId, session.events.slice(after + 1), session.state === 'ended');
		});
	}

	// ---- admin ------------------------------------------------------------------------

	private buildAdmin(): Router {
		const r = addKeyAdminRoutes(new Router(), this.keys);
		const input = (req: SandboxRequest): Rep => {
			const body = jsonBody<unknown>(req) ?? {};
			if (!isPlainObject(body)) throw new HttpError(400, { message: 'A JSON object body is required' });
			return body;
		};
		r.add('GET', '/configurations', (_req, res) => send(res, 200, this.configurations.map((c) => this.configurationRep(c))));
		r.add('POST', '/configurations/:uuid/release', (req, res) => {
			const config = this.configurations.find((c) => c.uuid === req.params.uuid);
			if (!config) throw notFound(`No configuration ${req.params.uuid}`);
			const body = input(req);
			const refs = config.operators.filter((o) => o.name === body.operator);
			if (!refs.length) throw invalid('operator', `must be one of ${[...new Set(config.operators.map((o) => o.name))].join(', ')}`);
			for (const ref of refs) {
				ref.current_version = typeof body.version === 'number' ? body.version : ref.current_version + 1;
				ref.upgrade_available = ref.current_version > ref.version;
			}
			send(res, 200, this.configurationRep(config));
		});
		r.add('GET', '/sessions', (_req, res) => send(res, 200, [...this.sessions.values()].map((s) => this.sessionRep(s))));
		r.add('POST', '/sessions', (req, res) => send(res, 201, this.sessionRep(this.createSession(input(req)))));
		r.add('GET', '/sessions/:sessionId', (req, res) => send(res, 200, this.sessionRep(this.session(req.params.sessionId))));
		r.add('PATCH', '/sessions/:sessionId', (req, res) => {
			const session = this.session(req.params.sessionId);
			const body = input(req);
			if (typeof body.transcript_events !== 'boolean') throw invalid('transcript_events', 'must be a boolean');
			session.transcript_events = body.transcript_events;
			send(res, 200, this.sessionRep(session));
		});
		r.add('GET', '/sessions/:sessionId/events', (req, res) =>
			send(res, 200, this.session(req.params.sessionId).events.map((e) => JSON.parse(e.json) as unknown)),
		);
		r.add('POST', '/sessions/:sessionId/end', (req, res) => {
			const session = this.session(req.params.sessionId);
			const event = this.emit(session, { event_type: 'session_ended' });
			send(res, 200, { ...this.sessionRep(session), emitted: event?.id ?? null });
		});
		r.add('POST', '/sessions/:sessionId/script', async (req, res) => {
			const session = this.session(req.params.sessionId);
			const body = input(req);
			if (session.state === 'ended') throw new HttpError(409, { status: 409, message: `Session ${session.session_id} has ended; create a new one` });
			const chosen = ['preset', 'events', 'generate'].filter((k) => body[k] !== undefined);
			if (chosen.length !== 1) throw invalid('preset', 'give exactly one of preset ("demo"), events (array) or generate (count)');
			let steps: Iterable<ScriptEvent>;
			let count: number;
			let defaultInterval = 100;
			if (body.preset !== undefined) {
				if (body.preset !== 'demo') throw invalid('preset', 'the only preset is "demo"');
				steps = demoScript();
				count = (steps as ScriptEvent[]).length;
			} else if (body.events !== undefined) {
				if (!Array.isArray(body.events)) throw invalid('events', 'must be an array of events');
				body.events.forEach((event: unknown, i: number) => {
					if (!isPlainObject(event) || typeof event.event_type !== 'string' || event.event_type === '') {
						throw invalid(`events[${i}].event_type`, 'is required (a string)');
					}
				});
				steps = body.events as ScriptEvent[];
				count = body.events.length;
			} else {
				const n = body.generate;
				if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 10_000_000) throw invalid('generate', 'must be an integer from 0 to 10000000');
				if (body.end !== undefined && typeof body.end !== 'boolean') throw invalid('end', 'must be a boolean');
				steps = this.generate(session, n, body.end !== false);
				count = body.end === false ? n : n + 1;
				defaultInterval = 0;
			}
			const intervalMs = body.intervalMs === undefined ? defaultInterval : Number(body.intervalMs);
			if (!Number.isFinite(intervalMs) || intervalMs < 0) throw invalid('intervalMs', 'must be a non-negative number');
			const playing = this.play(session, steps, intervalMs);
			if (body.wait === true) {
				const { emitted, lastEventId } = await playing;
				send(res, 200, { session_id: session.session_id, steps: count, intervalMs, emitted, lastEventId, state: session.state });
				return;
			}
			playing.catch((error: unknown) => process.stderr.write(`intelligence sandbox: ${String(error)}\n`));
			send(res, 202, { session_id: session.session_id, steps: count, intervalMs });
		});
		r.add('POST', '/sessions/:sessionId/faults', (req, res) => {
			const session = this.session(req.params.sessionId);
			const body = input(req);
			const problems = sseFaultProblems(body);
			if (problems.length) {
				const [field, ...message] = problems[0].split(': ');
				throw invalid(field, message.join(': '), { problems });
			}
			send(res, 200, this.hub.applyFaults(session.session_id, body as SseFaults));
		});
		r.add('GET', '/refuse', (_req, res) => send(res, 200, this.refusals()));
		r.add('POST', '/refuse', (req, res) => {
			this.refuse(input(req) as RefusalInput);
			send(res, 200, this.refusals());
		});
		r.add('DELETE', '/refuse', (_req, res) => send(res, 200, { removed: this.clearRefusals() }));
		r.add('GET', '/streams', (_req, res) => send(res, 200, this.hub.list()));
		r.add('GET', '/settings', (_req, res) => send(res, 200, this.settings));
		r.add('POST', '/settings', (req, res) => {
			const body = input(req);
			const current: Rep = { ...this.settings };
			for (const [key, value] of Object.entries(body)) {
				if (!(key in current)) throw new HttpError(400, { message: `Unknown setting ${key}`, field: key });
				if (typeof value !== typeof current[key] || (typeof value === 'number' && !(value >= 0))) {
					throw new HttpError(400, { message: `${key} must be a ${typeof current[key] === 'number' ? 'non-negative number' : typeof current[key]}`, field: key });
				}
				const choices: Record<string, readonly string[]> = { endedStream: ENDED_STREAM_ANSWERS, endedToken: ENDED_TOKEN_ANSWERS };
				if (choices[key] && !choices[key].includes(value as string)) {
					throw new HttpError(400, { message: `${key} must be one of ${choices[key].join(', ')}`, field: key });
				}
				current[key] = value;
			}
			const { tokenLifetimeSeconds, ...sse } = current as unknown as IntelligenceSettings;
			this.tokenLifetimeSeconds = tokenLifetimeSeconds;
			this.hub.settings = sse;
			this.hub.rescheduleHeartbeats();
			send(res, 200, this.settings);
		});
		return r;
	}
}

export const intelligenceModule = (context: SandboxContext) => new IntelligenceSandbox(context);
