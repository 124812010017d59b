/**
 * Hosted PBX live events end to end: the sandbox (its own process) writes events to /stream,
 * the Hosted PBX Trigger (inside n8n's own TriggerContext) parses and emits them.
 * - throughput: a burst of 100,000 events, events/s from the first emit to the last, and loss;
 * - latency: 10,000 events at 1,000/s, time from the sandbox writing an event to its emit (p50, p99).
 * Loss is judged in smoke mode too (1,000 and 200 events): the trigger must emit every event.
 * Run: npm run bench -- pbx-stream-e2e
 */
import { listeningPbxTrigger, num, percentile, report, run, sized, startSandboxProcess, summary } from './lib';

const BURST = sized(100_000, 1000);
const PACED = sized(10_000, 200);

run(async () => {
	const sandbox = await startSandboxProcess();
	const listener = await listeningPbxTrigger(sandbox);
	const { received, arrival, errors } = listener;

	const waitFor = async (count: number, timeoutMs: number) => {
		const deadline = Date.now() + timeoutMs;
		while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
	};

	// Throughput: one burst.
	const burst = BURST;
	await sandbox.admin('/pbx/events', { count: burst, event: 'incomingcall', values: { callerIdNumber: '+447700900123', callerIdName: 'Bench Caller', endpoint: `${sandbox.url}/api/v1/customers/1001/endpoints/201` } });
	await waitFor(burst, 60_000);
	const got = received.length;
	const seqs = new Set(received.map((e) => e.seq));
	const seconds = (arrival[got - 1] - arrival[0]) / 1000;
	const throughput = got / Math.max(seconds, 1e-9);

	// Latency at a steady rate.
	received.length = 0;
	arrival.length = 0;
	const paced = PACED;
	await sandbox.admin('/pbx/events', { count: paced, ratePerSecond: 1000, event: 'incomingcall', values: { callerIdNumber: '+447700900124', callerIdName: 'Paced', endpoint: 'x' } });
	await waitFor(paced, 30_000);
	const latencies = received.map((e, i) => arrival[i] - Number(e.sentAt));

	await listener.close();
	await sandbox.stop();
	errors.check();
	const lost = burst - seqs.size + (got - seqs.size);
	const p99 = percentile(latencies, 99);
	const figures = report('Hosted PBX stream end to end (sandbox process -> trigger emit)', [
		{ name: `burst of ${burst}: events received`, value: got, unit: '' },
		{ name: 'lost or duplicated', value: lost, unit: 'events', target: '0', met: seqs.size === burst && got === burst, exact: true },
		{ name: 'throughput', value: throughput, unit: 'events/s', target: '>= 20,000/s', met: throughput >= 20_000 },
		{ name: `${paced} at 1,000/s: received`, value: received.length, unit: '', target: 'all', met: received.length === paced, exact: true },
		{ name: 'latency p50', value: percentile(latencies, 50), unit: 'ms' },
		{ name: 'latency p99', value: p99, unit: 'ms', target: '<= 10 ms', met: p99 <= 10 },
	]);
	summary(
		`${num(throughput)} events/s, ${lost} of ${num(burst)} lost or duplicated; latency p50 ${num(percentile(latencies, 50), 2)} ms, p99 ${num(p99, 2)} ms at 1,000 events/s`,
		'target ≥ 20,000 events/s, 0 lost, p99 ≤ 10 ms',
		figures,
	);
});
