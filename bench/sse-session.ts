/**
 * Conversation Intelligence session stream (Server-Sent Events) into the trigger's emit,
 * the sandbox in its own process:
 * - throughput: 20,000 operator results as fast as the sandbox writes them, events/s and loss;
 * - resume: 10,000 events with 20 forced drops (each connection cut after 500 events): lost and
 *   duplicated events, and how long each resume took (drop noticed -> first event after it).
 * Each session ends with the script (session_ended), which the trigger reports with emitError, as
 * designed: an expected error; any other fails the benchmark.
 * Run: npm run bench -- sse-session
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { contexts } from '../test/harness/n8n';
import { nodeModule, now, num, percentile, report, run, sized, startSandboxProcess, summary, triggerErrors } from './lib';

const { ConversationIntelligenceTrigger } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node')>(
	'nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node',
);

type SandboxProcess = Awaited<ReturnType<typeof startSandboxProcess>>;

const BURST = sized(20_000, 500);
const RESUME_EVENTS = sized(10_000, 600);
const DROPS = sized(20, 2);
const DROP_AFTER = sized(500, 100);

async function listen(sandbox: SandboxProcess, sessionId: string) {
	const key = ((sandbox.info.apis as IDataObject).intelligence as { keys: Array<{ label: string; key: string }> }).keys.find((k) => k.label === 'full-access')!.key;
	const events: IDataObject[] = [];
	const times: number[] = [];
	const resumes: number[] = [];
	let dropNoticedAt: number | undefined;
	const errors = triggerErrors(/^Session \S+ is over/);
	const { trigger } = contexts({
		node: new ConversationIntelligenceTrigger(),
		parameters: { sessionId, eventTypes: ['operator_result'], operatorNames: '', includeInterim: false },
		credentials: { platformApiKeyApi: { baseUrl: sandbox.url, apiKey: key } },
	});
	const context = trigger(
		(data: INodeExecutionData[][]) => {
			const t = now();
			if (dropNoticedAt !== undefined) {
				resumes.push(t - dropNoticedAt);
				dropNoticedAt = undefined;
			}
			for (const item of data[0]) {
				events.push(item.json);
				times.push(t);
			}
		},
		errors.emitError,
	);
	context.logger.info = (message: string) => {
		if (/reconnecting/.test(message)) dropNoticedAt ??= now();
	};
	const response = await new ConversationIntelligenceTrigger().trigger.call(context);
	while (!((await sandbox.admin('/intelligence/streams', undefined, 'GET')) as IDataObject[]).some((s) => s.sessionId === sessionId)) {
		await new Promise((r) => setTimeout(r, 20));
	}
	return {
		events,
		times,
		resumes,
		/** Once the trigger has reported the session's end (or 10 s have passed): closes it, and throws any other error it reported. */
		close: async () => {
			await waitFor(() => errors.expected().length > 0, 10_000);
			await response.closeFunction?.();
			errors.check();
		},
	};
}

async function waitFor(probe: () => boolean, timeoutMs: number) {
	const deadline = Date.now() + timeoutMs;
	while (!probe() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

run(async () => {
	const sandbox = await startSandboxProcess();
	// No `retry:` advice (the sandbox's default is 1 s; the service's is not shown): the resume time
	// is then the trigger's own, not a wait the server asked for.
	await sandbox.admin('/intelligence/settings', { heartbeatMs: 15_000, retryMs: 0 });

	// Throughput.
	const burst = BURST;
	await sandbox.admin('/intelligence/sessions', { session_id: 'bench_throughput', transcript_events: false });
	const fast = await listen(sandbox, 'bench_throughput');
	await sandbox.admin('/intelligence/sessions/bench_throughput/script', { generate: burst, intervalMs: 0 });
	await waitFor(() => fast.events.length >= burst, 120_000);
	const fastIds = new Set(fast.events.map((e) => e.event_id));
	const seconds = (fast.times[fast.times.length - 1] - fast.times[0]) / 1000;
	await fast.close();

	// Resume under forced drops.
	const total = RESUME_EVENTS;
	const drops = DROPS;
	await sandbox.admin('/intelligence/sessions', { session_id: 'bench_resume', transcript_events: false });
	const resumed = await listen(sandbox, 'bench_resume');
	const started = now();
	await sandbox.admin('/intelligence/sessions/bench_resume/script', { generate: total, intervalMs: 0.2 });
	let forced = 0;
	let faultedConnection: unknown;
	while (resumed.events.length < total && now() - started < 180_000) {
		const open = ((await sandbox.admin('/intelligence/streams', undefined, 'GET')) as IDataObject[]).filter((s) => s.sessionId === 'bench_resume');
		const current = open[0];
		if (forced < drops && current && current.id !== faultedConnection) {
			await sandbox.admin('/intelligence/sessions/bench_resume/faults', { dropAfter: DROP_AFTER });
			faultedConnection = current.id;
			forced++;
		}
		await new Promise((r) => setTimeout(r, 5));
	}
	const ids = resumed.events.map((e) => e.event_id);
	const unique = new Set(ids);
	const elapsed = (now() - started) / 1000;
	await resumed.close();
	await sandbox.stop();

	const throughput = burst / Math.max(seconds, 1e-9);
	const lost = burst - fastIds.size + (fast.events.length - fastIds.size);
	const figures = report('Conversation Intelligence session stream -> trigger emit', [
		{ name: `throughput: ${burst} events received`, value: fast.events.length, unit: '' },
		{ name: 'lost or duplicated', value: lost, unit: 'events', target: '0', met: lost === 0, exact: true },
		// No timing target: a session is one conversation, a few events a second; thousands a second is no need.
		{ name: 'throughput', value: throughput, unit: 'events/s' },
		{ name: `resume: drops forced`, value: forced, unit: '' },
		{ name: `resume: ${total} events, lost`, value: total - unique.size, unit: 'events', target: '0', met: unique.size === total, exact: true },
		{ name: 'resume: duplicated', value: ids.length - unique.size, unit: 'events', target: '0', met: ids.length === unique.size, exact: true },
		{ name: 'resume time p50 (drop noticed -> next event)', value: percentile(resumed.resumes, 50), unit: 'ms' },
		{ name: 'resume time max', value: Math.max(...resumed.resumes), unit: 'ms' },
		{ name: 'whole resume run', value: elapsed, unit: 's' },
	]);
	summary(
		`${num(throughput)} events/s, ${lost} of ${num(burst)} lost; ${forced} forced drops: ${total - unique.size} lost, ${ids.length - unique.size} duplicated, resume p50 ${num(percentile(resumed.resumes, 50), 1)} ms`,
		'target 0 lost, 0 duplicated',
		figures,
	);
});
