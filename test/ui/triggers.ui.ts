/**
 * Every trigger in the editor: "Listen for test event", then the sandbox sends one event (an
 * incoming PBX call, a conversation.initiating delivery, a live session's events, a wholesale
 * CDR delivery) and the output panel shows it. Then each trigger's picture for the docs
 * (docs/images/node-<name>.png).
 */
import type { RestClient } from '../e2e/harness';
import { packageNodes } from './support/catalog';
import { Editor, openEditor, sel, workflowWith } from './support/editor';
import { TRIGGER_PLANS, type TriggerContext } from './support/expectations';
import { fillFlagged } from './support/fill';
import { saveDocsImage } from './support/images';
import { Problems, sandboxAdmin, uiState, type UiBrowser } from './support/session';

const triggers = packageNodes().filter((n) => n.isTrigger);

describe('"Listen for test event" on every trigger', () => {
	let ui: UiBrowser;
	let editor: Editor;
	let rest: RestClient;
	const seen: string[] = [];

	beforeAll(async () => {
		({ ui, editor, rest } = await openEditor());
	});

	afterAll(async () => {
		await ui?.close();
		console.log(`Test events:\n${seen.join('\n')}`);
	});

	test.each(triggers.map((n) => [n.displayName, n] as const))('%s: receives one event from the sandbox and shows it', async (_name, node) => {
		const problems = new Problems(ui.page, `trigger-${node.name}`);
		const plan = TRIGGER_PLANS[node.name];
		if (!plan) throw new Error(`test/ui/support/expectations.ts has no TRIGGER_PLANS entry for ${node.name}: say how the sandbox makes it fire`);
		const admin = sandboxAdmin();
		const context: TriggerContext = { admin, runId: Date.now().toString(36) };
		await plan.prepare?.(context);
		const workflow = workflowWith(node, plan.parameters(context));
		const main = (workflow.nodes as Array<Record<string, unknown>>).find((n) => n.type === node.type)!;
		const hook = node.webhooks[0];
		if (hook) {
			const path = hook.isFullPath ? hook.path : `${String(main.webhookId)}/${hook.path}`;
			context.testWebhookUrl = `${uiState().n8nUrl}/webhook-test/${path}`;
		}
		const id = await Editor.createWorkflow(rest, workflow);
		await editor.openWorkflow(id);
		await editor.openNode(node.displayName);
		await fillFlagged(editor, problems, node, plan.parameters(context), `${node.displayName} (test event set-up)`);

		// n8n 2.x labels it "Execute step" (1.x: "Listen for test event"); while it listens, the
		// panel says it is waiting for an event.
		await editor.ndv.locator(sel.executeButton).click();
		const waiting = await editor.ndv
			.getByText(/listening|waiting for|test event/i)
			.first()
			.innerText({ timeout: 30_000 })
			.catch(() => '(no listening message)');
		const fired = await problems.attempt(node.displayName, 'waiting for it to listen, then making the sandbox send an event', async () => {
			await plan.listening(context);
			return await plan.fire(context);
		});
		if (fired) {
			const count = editor.ndv.locator(`${sel.outputPanel} [data-test-id="ndv-items-count"]`);
			const shown = await problems.attempt(node.displayName, `showing the event (${fired})`, async () => {
				await Promise.race([count.first().waitFor({ timeout: 90_000 }), editor.ndv.locator(`${sel.outputPanel} [data-test-id="node-error-message"]`).first().waitFor({ timeout: 90_000 })]);
				return await editor.readOutput();
			});
			if (shown) {
				seen.push(`${node.displayName}: panel said "${waiting.replace(/\s+/g, ' ').trim()}"; ${fired} -> ${shown.status}, ${shown.itemsText}${shown.errorText ? ` (${shown.errorText.slice(0, 200)})` : ''}`);
				if (shown.status !== 'success') await problems.add(node.displayName, `the test event ended in an error: ${shown.errorText.slice(0, 400)}`);
				else if (shown.items < 1) await problems.add(node.displayName, `the output panel shows no item (${shown.itemsText})`);
				else {
					await editor.setTheme('light');
					await editor.page.locator('[data-test-id="radio-button-table"]').last().click().catch(() => undefined);
					await problems.attempt(node.displayName, 'saving its picture', () => saveDocsImage(editor.page, `node-${node.name}.png`, plan.shows, { target: editor.ndv }));
				}
			}
		}
		await editor.closeNdv().catch(() => undefined);
		problems.assertNone();
	});
});
