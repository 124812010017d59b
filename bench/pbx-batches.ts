/**
 * Hosted PBX live events in batches: the sandbox (its own process) writes events to /stream at a
 * steady rate, the Hosted PBX Trigger (inside n8n's own TriggerContext) emits them one per
 * execution (Batch Size 1, the default) or in batches of 100 (Batch Window at its default, 1,000 ms).
 * Four runs of 60 s: 100 and 1,000 events/s, each with Batch Size 1 and 100. Per run: events sent,
 * executions (emit calls) and executions/s, the latency of each event from the sandbox writing it
 * to the emit that carries it (p50, p99), lost and duplicated.
 * Loss and duplicates are judged in smoke mode too (2 s per run): every event exactly once.
 * Run: npm run bench -- pbx-batches
 */
import type { Figure } from './lib';
import { listeningPbxTrigger, num, percentile, report, run, sized, startSandboxProcess, summary } from './lib';

const SECONDS = sized(60, 2);
const RATES = [100, 1000];
const BATCH_SIZES = [1, 100];
/** The Batch Window's default: a batch that is not full goes this long after its first event. */
const WINDOW_MS = 1000;

const pause = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

interface Outcome {
	rate: number;
	batchSize: number;
	sent: number;
	executions: number;
	perSecond: number;
	p50: number;
	p99: number;
	lost: number;
	duplicated: number;
}

run(async () => {
	const sandbox = await startSandboxProcess();
	const streams = async () => ((await sandbox.admin('/pbx/streams', undefined, 'GET')) as unknown[]).length;

	/** One run: a trigger of its own, `rate` events/s for SECONDS, then its close (which emits a batch still gathering). */
	const measure = async (rate: number, batchSize: number): Promise<Outcome> => {
		const listener = await listeningPbxTrigger(sandbox, { batchSize });
		const { received, arrival, errors } = listener;

		const sent = rate * SECONDS;
		const published = (await sandbox.admin('/pbx/events', {
			count: sent,
			ratePerSecond: rate,
			event: 'incomingcall',
			values: { callerIdNumber: '+447700900123', callerIdName: 'Batches', endpoint: `${sandbox.url}/api/v1/customers/1001/endpoints/201` },
		})) as { published: number; delivered: number };
		if (published.delivered !== sent) throw new Error(`the sandbox delivered ${published.delivered} of ${sent} events to the stream`);
		// The last batch goes within its window; a duplicate would come later still.
		const deadline = Date.now() + 10_000;
		while (received.length < sent && Date.now() < deadline) await pause(10);
		await pause(WINDOW_MS + 200);
		await listener.close();
		while ((await streams()) > 0) await pause(20);
		errors.check();

		const seqs = new Set(received.map((e) => e.seq));
		const latencies = received.map((e, i) => arrival[i] - Number(e.sentAt));
		const first = Math.min(...received.map((e) => Number(e.sentAt)));
		const seconds = (Math.max(...arrival) - first) / 1000;
		return {
			rate,
			batchSize,
			sent,
			executions: listener.executions,
			perSecond: listener.executions / Math.max(seconds, 1e-9),
			p50: percentile(latencies, 50),
			p99: percentile(latencies, 99),
			lost: sent - seqs.size,
			duplicated: received.length - seqs.size,
		};
	};

	const outcomes: Outcome[] = [];
	for (const rate of RATES) for (const batchSize of BATCH_SIZES) outcomes.push(await measure(rate, batchSize));
	await sandbox.stop();

	const figures: Figure[] = [];
	for (const o of outcomes) {
		figures.push(
			...report(`${num(o.rate)} events/s for ${SECONDS} s, Batch Size ${o.batchSize} (sandbox process -> trigger emit)`, [
				{ name: 'events sent', value: o.sent, unit: '' },
				{ name: 'executions (emit calls)', value: o.executions, unit: '' },
				{ name: 'executions per second', value: o.perSecond, unit: '/s' },
				{ name: 'latency p50 (sandbox writes -> its emit)', value: o.p50, unit: 'ms' },
				{ name: 'latency p99', value: o.p99, unit: 'ms' },
				{ name: 'lost', value: o.lost, unit: 'events', target: '0', met: o.lost === 0, exact: true },
				{ name: 'duplicated', value: o.duplicated, unit: 'events', target: '0', met: o.duplicated === 0, exact: true },
			]),
		);
	}
	const at = (rate: number) => {
		const [one, batch] = BATCH_SIZES.map((size) => outcomes.find((o) => o.rate === rate && o.batchSize === size)!);
		return `${num(rate)}/s: ${num(one.perSecond, 1)} vs ${num(batch.perSecond, 1)} executions/s, p50 ${num(one.p50, 1)} vs ${num(batch.p50)} ms, p99 ${num(one.p99, 1)} vs ${num(batch.p99)} ms`;
	};
	const lost = outcomes.reduce((sum, o) => sum + o.lost, 0);
	const duplicated = outcomes.reduce((sum, o) => sum + o.duplicated, 0);
	summary(
		`one per event vs batches of 100, ${SECONDS} s each: ${RATES.map(at).join('; ')}; ${lost} lost, ${duplicated} duplicated of ${num(outcomes.reduce((sum, o) => sum + o.sent, 0))}`,
		'target 0 lost, 0 duplicated',
		figures,
	);
});
