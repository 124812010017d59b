/**
 * The recipes of examples/ in the editor: each imports (with the sandbox credentials it names),
 * every node shows on the canvas without a warning, and its picture for the docs is taken
 * (docs/images/recipe-<file>.png).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { RestClient } from '../e2e/harness';
import { EXAMPLES_DIR } from '../e2e/sandboxAdmin';
import { Editor, openEditor, sel } from './support/editor';
import { saveDocsImage } from './support/images';
import { Problems, type UiBrowser } from './support/session';

/** Every workflow file under examples/ (a JSON object with nodes), as a path relative to it. */
function workflowFiles(dir = EXAMPLES_DIR): string[] {
	const out: string[] = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...workflowFiles(full));
		else if (entry.name.endsWith('.json')) {
			const json = JSON.parse(fs.readFileSync(full, 'utf8')) as unknown;
			if (json && typeof json === 'object' && Array.isArray((json as { nodes?: unknown }).nodes)) out.push(path.relative(EXAMPLES_DIR, full));
		}
	}
	return out.sort();
}

const recipes = workflowFiles();

/** recipe-<file name without .json>.png (the folder is left out: names are unique). */
function imageName(file: string): string {
	return `recipe-${path.basename(file).replace(/\.json$/, '')}.png`;
}

describe('the recipes on the canvas', () => {
	let ui: UiBrowser;
	let editor: Editor;
	let rest: RestClient;

	beforeAll(async () => {
		({ ui, editor, rest } = await openEditor());
	});

	afterAll(async () => {
		await ui?.close();
	});

	test('there are recipes, and their pictures have distinct names', () => {
		expect(recipes.length).toBeGreaterThan(0);
		expect(new Set(recipes.map(imageName)).size).toBe(recipes.length);
	});

	test.each(recipes)('%s: imports, every node shows without a warning, and its picture is taken', async (file) => {
		const problems = new Problems(ui.page, imageName(file).replace(/\.png$/, ''));
		const recipe = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as { name: string; nodes: Array<{ name: string; type: string }>; connections: unknown; settings?: unknown };
		const id = await Editor.createWorkflow(rest, { name: recipe.name, nodes: recipe.nodes, connections: recipe.connections, settings: recipe.settings ?? { executionOrder: 'v1' } });
		await editor.setTheme('light');
		await editor.openWorkflow(id);
		const page = editor.page;
		// Sticky notes are drawn, but are not canvas nodes.
		const nodes = recipe.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
		await page.locator(sel.canvasNode).nth(nodes.length - 1).waitFor();
		for (const node of nodes) {
			const onCanvas = editor.canvasNode(node.name);
			if ((await onCanvas.count()) === 0) {
				await problems.add(`${file} / ${node.name}`, 'the node is not on the canvas');
				continue;
			}
			const issues = onCanvas.locator('[data-test-id="node-issues"]');
			if ((await issues.count()) > 0 && (await issues.first().isVisible())) {
				await issues.first().hover();
				const tip = await page.locator('[role="tooltip"]:visible, .n8n-tooltip:visible').first().innerText().catch(() => '');
				await problems.add(`${file} / ${node.name}`, `the canvas shows a warning on the node${tip ? `: ${tip.replace(/\s+/g, ' ').slice(0, 300)}` : ''}`);
			}
			const type = await onCanvas.getAttribute('data-node-type');
			if (type !== node.type) await problems.add(`${file} / ${node.name}`, `the canvas node is ${type}, not ${node.type}`);
		}
		// Fit the workflow to the view and wait until the canvas stops moving.
		await page.locator('[data-test-id="zoom-to-fit"]').click();
		let last = '';
		for (let i = 0; i < 40; i++) {
			const now = await page.locator('.vue-flow__viewport').first().getAttribute('style');
			if (now === last) break;
			last = now ?? '';
			await page.waitForTimeout(150);
		}
		// The picture: the nodes and notes with a margin, without the canvas buttons.
		const area = await page.evaluate(() => {
			const d = (globalThis as any).document;
			const boxes = [...d.querySelectorAll('.vue-flow__node')].map((e: any) => e.getBoundingClientRect());
			const wrapper = d.querySelector('[data-test-id="canvas-wrapper"]').getBoundingClientRect();
			const margin = 32;
			const left = Math.max(wrapper.left, Math.min(...boxes.map((b: any) => b.left)) - margin);
			const top = Math.max(wrapper.top, Math.min(...boxes.map((b: any) => b.top)) - margin);
			const right = Math.min(wrapper.right, Math.max(...boxes.map((b: any) => b.right)) + margin);
			const bottom = Math.min(wrapper.bottom, Math.max(...boxes.map((b: any) => b.bottom)) + margin + 24);
			return { x: left, y: top, width: right - left, height: bottom - top };
		});
		await problems.attempt(file, 'saving its picture', () =>
			saveDocsImage(page, imageName(file), `The recipe examples/${file} ("${recipe.name}") imported into the editor, on the canvas`, {
				target: area,
				hide: ['[data-test-id="canvas-controls"]', '[data-test-id="execute-workflow-button"]', '[data-test-id="canvas-plus-button"]', '[data-test-id="canvas-handle-plus-wrapper"]'],
			}),
		);
		problems.assertNone();
	});
});
