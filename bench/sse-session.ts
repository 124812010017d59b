/**
 * Conversation Intelligence session stream (Server-Sent Events) into the trigger's emit,
 * the sandbox in its own process:
 * - throughput: 20,000 operator results as fast as the sandbox writes them, events/s and loss;
 * - resume: 10,000 events with 20 forced drops (each connection cut after 500 events): lost and
 *   duplicated events, and how long each resume took (drop noticed -> first event after it).
 * Run: npm run bench -- sse-session
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { contexts } from '../test/harness/n8n';
import { nodeModule, now, percentile, report, startSandboxProcess } from './lib';

const { ConversationIntelligenceTrigger } = nodeModule<typeof import('../nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node')>(
	'nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node',
);

type SandboxProcess = Awaited<ReturnType<typeof startSandboxProcess>>;

async function listen(sandbox: SandboxProcess, sessionId: string) {
	const key = ((sandbox.info.apis as IDataObject).intelligence as { keys: Array<{ label: string; key: string }> }).keys.find((k) => k.label === 'full-access')!.key;
	const events: IDataObject[] = [];
	const times: number[] = [];
	const resumes: number[] = [];
	let dropNoticedAt: number | undefined;
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
		(error) => {
			throw error;
		},
	);
	context.logger.info = (message: string) => {
		if (/reconnecting/.test(message)) dropNoticedAt ??= now();
	};
	const response = await new ConversationIntelligenceTrigger().trigger.call(context);
	while (!((await sandbox.admin('/intelligence/streams', undefined, 'GET')) as IDataObject[]).some((s) => s.sessionId === sessionId)) {
		await new Promise((r) => setTimeout(r, 20));
	}
	return { events, times, resumes, close: async () => await response.closeFunction?.() };
}

async function waitFor(probe: () => boolean, timeoutMs: number) {
	const deadline = Date.now() + timeoutMs;
	while (!probe() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

async function main(): Promise<void> {
	const sandbox = await startSandboxProcess();
	await sandbox.admin('/intelligence/settings', { heartbeatMs: 15_000 });

	// Throughput.
	const burst = 20_000;
	await sandbox.admin('/intelligence/sessions', { session_id: 'bench_throughput', transcript_events: false });
	const fast = await listen(sandbox, 'bench_throughput');
	await sandbox.admin('/intelligence/sessions/bench_throughput/script', { generate: burst, intervalMs: 0 });
	await waitFor(() => fast.events.length >= burst, 120_000);
	const fastIds = new Set(fast.events.map((e) => e.event_id));
	const seconds = (fast.times[fast.times.length - 1] - fast.times[0]) / 1000;
	await fast.close();

	// Resume under forced drops.
	const total = 10_000;
	const drops = 20;
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
			await sandbox.admin('/intelligence/sessions/bench_resume/faults', { dropAfter: 500 });
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

	report('Conversation Intelligence session stream -> trigger emit', [
		{ name: `throughput: ${burst} events received`, value: fast.events.length, unit: '' },
		{ name: 'lost or duplicated', value: burst - fastIds.size + (fast.events.length - fastIds.size), unit: 'events', target: '0', met: fastIds.size === burst && fast.events.length === burst },
		{ name: 'throughput', value: burst / Math.max(seconds, 1e-9), unit: 'events/s', target: '>= 20,000/s', met: burst / seconds >= 20_000 },
		{ name: `resume: drops forced`, value: forced, unit: '' },
		{ name: `resume: ${total} events, lost`, value: total - unique.size, unit: 'events', target: '0', met: unique.size === total },
		{ name: 'resume: duplicated', value: ids.length - unique.size, unit: 'events', target: '0', met: ids.length === unique.size },
		{ name: 'resume time p50 (drop noticed -> next event)', value: percentile(resumed.resumes, 50), unit: 'ms' },
		{ name: 'resume time max', value: Math.max(...resumed.resumes), unit: 'ms' },
		{ name: 'whole resume run', value: elapsed, unit: 's' },
	]);
	process.exit(0);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
