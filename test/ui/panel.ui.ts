/**
 * The node panel: every node of the package is found by its display name and by the words a
 * user would type for it, and adding it from the panel opens its details view.
 *
 * Triggers are searched where a person looks for them, in "What triggers this workflow?" on an
 * empty canvas; regular nodes in the panel of a workflow that has a trigger. The panel groups a
 * trigger with its regular node ("Hosted PBX" lists both the triggers and the actions).
 */
import { packageNodes, panelBaseName, PACKAGE, type NodeInfo } from './support/catalog';
import { Editor, sel } from './support/editor';
import { searchWords } from './support/expectations';
import { launchBrowser, Problems, signIn, type UiBrowser } from './support/session';

const nodes = packageNodes();

describe('the node panel finds every node', () => {
	let ui: UiBrowser;
	let editor: Editor;

	beforeAll(async () => {
		ui = await launchBrowser();
		await signIn(ui.page);
		editor = new Editor(ui.page);
	});

	afterAll(async () => {
		await ui?.close();
	});

	/** An empty canvas (triggers) or a canvas with a Manual Trigger (regular nodes), node panel open. */
	async function openPanelFor(node: NodeInfo): Promise<void> {
		await editor.newWorkflow();
		if (!node.isTrigger) {
			await editor.addFromPanel('Manual', 'n8n-nodes-base.manualTrigger');
			if (await editor.ndv.isVisible()) await editor.closeNdv();
		}
		await editor.openNodePanel();
	}

	test.each(nodes.map((n) => [n.displayName, n] as const))('%s: found by name and by the words a user types, and added from the panel', async (_name, node) => {
		const problems = new Problems(ui.page, `panel-${node.name}`);
		const grouped = `${PACKAGE.name}.${panelBaseName(node)}`;
		await openPanelFor(node);
		const panel = node.isTrigger ? 'the trigger panel' : 'the node panel';
		const words = [node.displayName, ...searchWords(node)];
		for (const word of words) {
			const { found, items } = await editor.searchPanel(word, grouped);
			if (!found) {
				const aiHint =
					node.categories.includes('AI')
						? ' (its codex lists the category "AI" without an "AI" subcategory "Root Nodes": n8n 2.x hides such nodes from the panel\'s search unless the canvas already has AI nodes)'
						: '';
				await problems.add(
					`${node.displayName} (node panel)`,
					`searching "${word}" in ${panel} did not list it${aiHint}; listed: ${items.map((i) => i.name).slice(0, 8).join(', ') || 'nothing'}`,
				);
			}
		}

		// Add it from the panel: the search result, then (for a node with triggers or actions) its first trigger or action.
		await problems.attempt(`${node.displayName} (node panel)`, 'adding it from the panel', async () => {
			const { found } = await editor.searchPanel(node.displayName, grouped);
			if (!found) throw new Error(`"${node.displayName}" is not listed, so it cannot be added from the panel`);
			await editor.creatorItem(`${grouped}-`).first().click();
			const own = editor.creatorItem(`${node.type}-`);
			const added = ui.page.locator(`${sel.canvasNode}[data-node-type="${node.type}"]`);
			// The node's details in the panel: its triggers and actions (or the node itself).
			await Promise.race([own.first().waitFor(), editor.ndv.waitFor()]);
			if (!(await editor.ndv.isVisible())) {
				const category = ui.page.locator(`${sel.nodeCreator} [data-test-id="node-creator-category-item"]`, { hasText: node.isTrigger ? /^Triggers/ : /^Actions/ });
				if ((await own.count()) > 0 && !(await own.first().isVisible()) && (await category.count()) > 0) await category.first().click();
				await own.first().click();
			}
			await editor.ndv.waitFor();
			await added.waitFor({ state: 'attached' });
			const title = (await editor.ndv.locator('[data-test-id="node-title-container"]').innerText()).trim();
			if (!title) throw new Error('the details view opened without a title');
		});
		problems.assertNone();
	});
});
