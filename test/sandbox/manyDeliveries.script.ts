/**
 * Run by convai.test.ts in a child process (jest hides Node's own warnings from a test): 20
 * Voice Agent deliveries in flight at once, to a receiver that answers after 200 ms. Prints one
 * line of JSON: the outcomes and the names of the warnings the process emitted.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startSandbox } from '../../sandbox/index';

const warnings: string[] = [];
process.on('warning', (warning) => warnings.push(warning.name));

async function main(): Promise<void> {
	const sandbox = await startSandbox({ port: 0 });
	const receiver = createServer((req, res) => {
		req.resume();
		setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'), 200);
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	const hook = await fetch(`${sandbox.url}/convai/v1/webhooks`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${sandbox.convai.keys.demo('full-access')}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, event_type: 'conversation.initiating' }),
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
	await new Promise((resolve) => setTimeout(resolve, 50));
	await sandbox.close();
	receiver.close();
	console.log(JSON.stringify({ outcomes: answers.flatMap((a) => a.deliveries.map((d) => d.outcome)), warnings }));
}

void main();
