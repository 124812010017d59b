import type {
	IDataObject,
	INode,
	INodeProperties,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { validationError } from '../errors';
import { parameterIssues } from '../parameterChecks';
import type { FirstOutcome } from '../streams/reconnectingStream';
import { clock } from '../timers';
import { failureOfStatus } from '../transport/failures';
import { credentialFingerprint, resetRateBudgets } from '../transport/rateBudget';
import { RecentIds } from './recentIds';

/**
 * What running triggers keep in the n8n process beside their static data, one record per trigger.
 * Why, as measured in a real n8n:
 * - Refusals: n8n re-activates a trigger at once after its emitError or a failed activation, so one
 *   that reconnected each time sent a request a second while refused. After a refusal the next attempt
 *   waits 60 s, then 15 minutes; a changed credential is tried at once. (n8n 2.40's failure causes back off polls only.)
 * - Activations: n8n 2.40 activates a published node twice, under a second apart (its publication
 *   reconciler re-publishes what it finds missing), and keeps only the second close function.
 * - Saved state: n8n 1.x re-activates after an error with the first activation's static data, older than every emit.
 */

export const FIRST_RETRY_MS = 60_000;
export const LATER_RETRY_MS = 15 * 60_000;
/** Attempts in a row that got no stream after which a failure counts as persistent (about 4 to 7 s of backoff). */
export const PERSISTENT_FAILURE_ATTEMPTS = 5;
/** A persistent stream failure is reported at most this often while it lasts (n8n re-activates the trigger on each report). */
export const FAILURE_REPORT_INTERVAL_MS = LATER_RETRY_MS;

export interface Refusal {
	status: number;
	message: string;
	refusals: number;
	nextAttemptAt: number;
	/** Which credential values were refused (a hash: the values are never kept). */
	fingerprint: string;
	/** Refused while the trigger ran (not at a user's activation): n8n's own activations then wait instead of failing. */
	whileRunning: boolean;
}

interface TriggerRecord {
	refusal?: Refusal;
	failureReportedAt?: number;
	stopActivation?: () => Promise<void>;
	/** When this node's last activation in this process stopped. */
	stoppedAt?: number;
	queue?: Promise<unknown>;
	states: Map<string, object>;
	recentIds: Map<string, RecentIds>;
	warnings: Map<string, { at: number; held: number }>;
	handed?: Map<string, { at: number; items: unknown[] }>;
}

/** A warning of one kind is written at most this often per trigger (a flood of bad deliveries must not flood n8n's log). */
export const WARNING_INTERVAL_MS = 60_000;

/** Triggers known at most; the oldest record is dropped beyond it (a process that ran a million workflows). */
const MAX_TRIGGERS = 10_000;
const records = new Map<string, TriggerRecord>();

/** Forgets every trigger and budget (a fresh process, as tests need between cases). */
export function resetTriggers(): void {
	records.clear();
	resetRateBudgets();
}

/** What the user reads while a refusal holds. */
export function refusalMessage(label: string, refusal: Refusal): string {
	const when = new Date(refusal.nextAttemptAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
	return `${refusal.message} The trigger tries again at ${when} (or at once when the credential changes) and sends nothing to the ${label} until then.`;
}

/** The log level of a failed or closed connection: info when a working stream closed, a warning per failed attempt, an error once it persists. */
export function failureLogLevel(failedAttempts: number): 'info' | 'warn' | 'error' {
	if (failedAttempts === 0) return 'info';
	return failedAttempts < PERSISTENT_FAILURE_ATTEMPTS ? 'warn' : 'error';
}

/** The process memory of one trigger node. */
export class Trigger {
	private readonly record: TriggerRecord;

	constructor(readonly key: string) {
		let record = records.get(key);
		if (!record) {
			if (records.size >= MAX_TRIGGERS) records.delete(records.keys().next().value as string);
			record = { states: new Map(), recentIds: new Map(), warnings: new Map() };
			records.set(key, record);
		}
		this.record = record;
	}

	/** The refusal that still holds for these credential values, if an attempt must wait. */
	pendingRefusal(fingerprint: string): Refusal | undefined {
		const { refusal } = this.record;
		if (!refusal) return undefined;
		if (refusal.fingerprint !== fingerprint) {
			this.record.refusal = undefined;
			return undefined;
		}
		return clock.now() < refusal.nextAttemptAt ? refusal : undefined;
	}

	recordRefusal(
		status: number,
		message: string,
		fingerprint: string,
		whileRunning = false,
	): Refusal {
		const previous = this.record.refusal;
		const same = previous?.fingerprint === fingerprint;
		const refusals = same ? previous.refusals + 1 : 1;
		this.record.refusal = {
			status,
			message,
			refusals,
			fingerprint,
			whileRunning: whileRunning || Boolean(same && previous.whileRunning),
			nextAttemptAt: clock.now() + (refusals === 1 ? FIRST_RETRY_MS : LATER_RETRY_MS),
		};
		return this.record.refusal;
	}

	/** The credentials were accepted, or a stream opened: no more waiting, and the next persistent failure is reported at once. */
	recovered(): void {
		this.record.refusal = undefined;
		this.record.failureReportedAt = undefined;
	}

	/** Whether a persistent failure is to be reported now; if so, noted as reported. */
	failureReportDue(): boolean {
		const last = this.record.failureReportedAt;
		if (last !== undefined && clock.now() - last < FAILURE_REPORT_INTERVAL_MS) return false;
		this.record.failureReportedAt = clock.now();
		return true;
	}

	/** Registers the running activation's `stop`, stopping the one it replaces; returns the release for the close function. */
	async replaceActivation(stop: () => Promise<void>): Promise<() => void> {
		const previous = this.record.stopActivation;
		this.record.stopActivation = stop;
		if (previous) await previous();
		return () => {
			if (this.record.stopActivation === stop) this.record.stopActivation = undefined;
			this.record.stoppedAt = clock.now();
		};
	}

	/** Whether an activation of this node still runs in this process, or stopped within `withinMs`: one starting now continues it. */
	continuesAnother(withinMs: number): boolean {
		const { stopActivation, stoppedAt } = this.record;
		return (
			Boolean(stopActivation) || (stoppedAt !== undefined && clock.now() - stoppedAt <= withinMs)
		);
	}

	/** Runs `work` after this trigger's previous work ended: two schedules of one poll node never poll at once. */
	async oneAtATime<T>(work: () => Promise<T>): Promise<T> {
		const current = (this.record.queue ?? Promise.resolve()).catch(() => undefined).then(work);
		this.record.queue = current;
		try {
			return await current;
		} finally {
			if (this.record.queue === current) this.record.queue = undefined;
		}
	}

	/** This trigger's state under `key`: n8n's copy, or what this process saved last if fresher (`freshness` orders them). */
	load<State extends object>(
		staticData: IDataObject,
		key: string,
		freshness: (state: State) => number | undefined,
	): State | undefined {
		const handed = staticData[key] as State | undefined;
		const saved = this.record.states.get(key) as State | undefined;
		if (saved && (!handed || (freshness(saved) ?? 0) >= (freshness(handed) ?? 0)))
			return JSON.parse(JSON.stringify(saved)) as State;
		return handed;
	}

	/** Writes `state` under `key`: n8n sees a change only on an object it loaded, so the key is assigned (not mutated). */
	save(staticData: IDataObject, key: string, state: object): void {
		staticData[key] = state as IDataObject;
		this.record.states.set(key, state);
	}

	/** Keeps what a closing activation could not emit for the next activation of this node in this process. */
	handOver(key: string, items: unknown[]): void {
		(this.record.handed ??= new Map()).set(key, { at: clock.now(), items });
	}

	/** What the previous activation handed over under `key` within `maxAgeMs`, taken once. */
	takeOver<Item>(key: string, maxAgeMs: number): Item[] {
		const handed = this.record.handed?.get(key);
		this.record.handed?.delete(key);
		return handed && clock.now() - handed.at <= maxAgeMs ? (handed.items as Item[]) : [];
	}

	/** Whether to write a warning of this kind now, and how many were held back since the last one written. */
	warningDue(kind: string): { write: boolean; held: number } {
		const last = this.record.warnings.get(kind);
		if (last && clock.now() - last.at < WARNING_INTERVAL_MS) {
			last.held++;
			return { write: false, held: last.held };
		}
		this.record.warnings.set(kind, { at: clock.now(), held: 0 });
		return { write: true, held: last?.held ?? 0 };
	}

	/** This trigger's memory of recent ids in one scope (test or production), with the limits given. */
	recentIds(scope: string, maxEntries: number, ttlMs: number): RecentIds {
		let memory = this.record.recentIds.get(scope);
		if (memory) memory.configure(maxEntries, ttlMs);
		else this.record.recentIds.set(scope, (memory = new RecentIds(maxEntries, ttlMs)));
		return memory;
	}
}

/** The trigger of a node context (workflow id and node id). */
export function triggerOf(context: { getWorkflow(): { id?: string }; getNode(): INode }): Trigger {
	const node = context.getNode();
	return new Trigger(`${context.getWorkflow().id ?? ''}|${node.id ?? node.name}`);
}

/**
 * A trigger's numeric settings, checked against their declarations before anything is sent: from an
 * expression, NaN or a huge number would replay history, spin a timer or storm the API. Blank is the default.
 */
export function numericSettings(
	node: INode,
	fields: INodeProperties[],
	values: IDataObject,
): Record<string, number> {
	const given = Object.fromEntries(fields.map((field) => [field.name, values[field.name]]));
	const found = parameterIssues(fields, given);
	if (found.length) throw validationError(node, found);
	const blank = (value: unknown) => value === undefined || value === null || value === '';
	return Object.fromEntries(
		fields.map((field) => [
			field.name,
			Number(blank(given[field.name]) ? field.default : given[field.name]),
		]),
	);
}

/** A live trigger's stream as the activation drives it (the reconnecting core, or a stream built on it). */
export interface LiveStream {
	readonly firstOutcome: Promise<FirstOutcome>;
	start(delayMs?: number): void;
	stop(): Promise<void>;
}

export interface LiveActivationOptions {
	label: string;
	credentialType: string;
	/** What to check when the credential is refused. */
	refusedAdvice: string;
	logPrefix: string;
	/** The headline of a persistent failure (`… cannot be opened: <reason>`), and what to check. */
	failureMessage: (reason: string) => string;
	failureAdvice: string;
	redact?: (text: string) => string;
}

/**
 * What both live triggers share around their stream: the refusal gate (a user's activation fails while it
 * holds; n8n's re-activation waits), one activation per node, persistent failures reported at most every
 * 15 minutes (a test run stops instead), and the first connection's outcome deciding the activation.
 */
export class LiveActivation {
	readonly manual: boolean;
	readonly trigger: Trigger;
	/** The activation returned: refusals and persistent failures go to n8n from now on. */
	private activated = false;
	private stream?: LiveStream;

	constructor(
		private readonly context: ITriggerFunctions,
		private readonly options: LiveActivationOptions,
	) {
		this.manual = context.getMode() === 'manual';
		this.trigger = triggerOf(context);
	}

	private refusedError(refusal: Refusal): NodeApiError {
		const { label, refusedAdvice } = this.options;
		return new NodeApiError(
			this.context.getNode(),
			{},
			{
				message: refusalMessage(label, refusal),
				description: refusedAdvice,
				failure: { cause: 'credential-invalid' },
			},
		);
	}

	private async fingerprint(): Promise<string> {
		return credentialFingerprint(await this.context.getCredentials(this.options.credentialType));
	}

	/** The wait before the first attempt: 0, or the refusal gate's when n8n re-activates the trigger; a user's activation fails while it holds. */
	async startDelay(): Promise<number> {
		const holding = this.trigger.pendingRefusal(await this.fingerprint());
		if (!holding || this.manual) return 0;
		if (!holding.whileRunning) throw this.refusedError(holding);
		return Math.max(0, holding.nextAttemptAt - clock.now());
	}

	/** Whether n8n re-activates the trigger after a refusal it reported (not a user's activation). */
	async resumingAfterRefusal(): Promise<boolean> {
		return Boolean(this.trigger.pendingRefusal(await this.fingerprint())?.whileRunning);
	}

	/** The stream's onRefused: at activation the activation fails (below); later n8n is told, once per attempt. */
	readonly onRefused = async (status: number, message: string): Promise<number> => {
		if (!this.activated) return FIRST_RETRY_MS;
		const refusal = this.trigger.recordRefusal(status, message, await this.fingerprint(), true);
		this.context.emitError(this.refusedError(refusal));
		return refusal.nextAttemptAt - clock.now();
	};

	/** The stream's onTransientFailure: a working stream that dropped is routine; attempts that got no stream are not. */
	readonly onTransientFailure = (
		reason: string,
		retryInMs: number,
		failedAttempts: number,
		status?: number,
	): void => {
		const masked = this.options.redact?.(reason) ?? reason;
		const level = failureLogLevel(failedAttempts);
		const line = `${this.options.logPrefix}: ${masked}; reconnecting in ${retryInMs} ms`;
		this.context.logger[level](
			level === 'error' ? `${line} (${failedAttempts} failed attempts in a row)` : line,
		);
		if (level !== 'error' || !this.activated || (!this.manual && !this.trigger.failureReportDue()))
			return;
		const keepsTrying = this.manual
			? ''
			: `The trigger keeps trying with backoff (up to a minute apart) and reports this again every ${FAILURE_REPORT_INTERVAL_MS / 60_000} minutes while it lasts. `;
		this.context.emitError(
			new NodeApiError(
				this.context.getNode(),
				{},
				{
					message: this.options.failureMessage(masked),
					description: `${failedAttempts} attempts in a row failed. ${keepsTrying}${this.options.failureAdvice}`,
					httpCode: status ? String(status) : undefined,
					failure: status ? failureOfStatus(status) : { cause: 'temporarily-unavailable' },
				},
			),
		);
		if (this.manual) void this.stream?.stop();
	};

	/**
	 * Starts the stream, replacing this node's previous activation; a first refusal (or what `refuse` makes of
	 * the outcome) fails it. Other failures do not: an outage at n8n's start would leave the trigger off for good.
	 */
	async start(
		stream: LiveStream,
		startDelay: number,
		refuse?: (first: FirstOutcome) => Error | undefined,
	): Promise<ITriggerResponse> {
		this.stream = stream;
		const release = this.manual
			? () => undefined
			: await this.trigger.replaceActivation(async () => await stream.stop());
		stream.start(startDelay);
		if (startDelay === 0) {
			const first = await stream.firstOutcome;
			const error =
				first.kind === 'refused'
					? this.refusedError(
							this.trigger.recordRefusal(first.status, first.message, await this.fingerprint()),
						)
					: refuse?.(first);
			if (error) {
				release();
				await stream.stop();
				throw error;
			}
			if (first.kind === 'connected') this.trigger.recovered();
		}
		this.activated = true;
		return {
			closeFunction: async () => {
				release();
				await stream.stop();
			},
		};
	}
}
