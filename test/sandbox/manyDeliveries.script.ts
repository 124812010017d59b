/**
 * Run by convai.test.ts in a child process (jest hides Node's own warnings from a test): 20
 * Voice Agent deliveries in flight at once, to a receiver that answers after 200 ms. Prints one
 * line of JSON: the outcomes and the names of the warnings the process emitted.
 */
import { startSandbox } from '../../sandbox/index';
import { delay, sendJson, startReceiver } from './helpers';

const warnings: string[] = [];
process.on('warning', (warning) => warnings.push(warning.name));

async function main(): Promise<void> {
	const sandbox = await startSandbox({ port: 0 });
	const receiver = await startReceiver(async (_req, res) => {
		await delay(200);
		sendJson(res, 200, {});
	});
	const hook = await fetch(`${sandbox.url}/convai/v1/webhooks`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${sandbox.convai.keys.demo('full-access')}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ url: receiver.url, event_type: 'conversation.initiating' }),
	});
	if (hook.status !== 201) throw new Error(`creating the webhook answered ${hook.status}`);
	const answers = await Promise.all(
		Array.from({ length: 20 }, async (_, i) => {
			const answer = await fetch(`${sandbox.url}/_sandbox/convai/conversations`, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ agent_id: 'agent_demo_support', conversation_id: `conv_many_${i}`, completed: false }),
			});
			return (await answer.json()) as { deliveries: Array<{ outcome: string }> };
		}),
	);
	// Warnings are emitted on a later tick.
	await delay(50);
	await sandbox.close();
	await receiver.close();
	console.log(JSON.stringify({ outcomes: answers.flatMap((a) => a.deliveries.map((d) => d.outcome)), warnings }));
}

void main();
