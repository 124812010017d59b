/**
 * Every node opened in the editor: its icon renders in the light and the dark theme (the image
 * loads, the themed file is used, and it stands out from the background); every resource and
 * operation can be chosen; and for each operation, giving the required fields a value leaves no
 * parameter warning. Triggers: every value of their top-level choices (source, event, ...) the same way.
 */
import type { RestClient } from '../e2e/harness';
import { PACKAGE, packageNodes, type NodeInfo, type Property } from './support/catalog';
import { Editor, openEditor, workflowWith } from './support/editor';
import { fillFlagged } from './support/fill';
import { Problems, type UiBrowser } from './support/session';

const nodes = packageNodes();

/** Below this contrast ratio (WCAG, 1-21) an icon is hard to see against the panel. */
const MIN_ICON_CONTRAST = 1.5;

describe('every node in the editor', () => {
	let ui: UiBrowser;
	let editor: Editor;
	let rest: RestClient;
	/** Which value each flagged field got, for the log. */
	const fillLog: string[] = [];

	beforeAll(async () => {
		({ ui, editor, rest } = await openEditor());
	});

	afterAll(async () => {
		await ui?.close();
		if (fillLog.length) console.log(`Required fields given a value (${fillLog.length}):\n${fillLog.join('\n')}`);
	});

	async function open(node: NodeInfo, parameters: Record<string, unknown>): Promise<void> {
		const id = await Editor.createWorkflow(rest, workflowWith(node, parameters));
		await editor.setTheme('light');
		await editor.openWorkflow(id);
		await editor.openNode(node.displayName);
	}

	test.each(nodes.map((n) => [n.displayName, n] as const))('%s: the icon renders in the light and the dark theme', async (_name, node) => {
		const problems = new Problems(ui.page, `icon-${node.name}`);
		await open(node, {});
		const themed = typeof node.icon === 'object' && node.icon !== null;
		for (const theme of ['light', 'dark'] as const) {
			await editor.setTheme(theme);
			for (const [where, scope] of [
				['details view', editor.ndv],
				['canvas', editor.canvasNode(node.displayName)],
			] as const) {
				const icons = await problems.attempt(`${node.displayName} (icon, ${theme}, ${where})`, 'reading the icon', () => editor.icons(scope));
				if (!icons) continue;
				const icon = icons.find((i) => i.src.includes(`/icons/${PACKAGE.name}/`)) ?? icons[0];
				const at = `${node.displayName} (icon, ${theme} theme, ${where})`;
				if (!icon) {
					await problems.add(at, 'no icon image');
					continue;
				}
				if (!icon.loaded) await problems.add(at, `the image ${icon.src} did not load (naturalWidth ${icon.width})`);
				if (themed && theme === 'dark' && !/\.dark\./.test(icon.src)) await problems.add(at, `the dark theme shows ${icon.src}, not the dark icon`);
				if (themed && theme === 'light' && /\.dark\./.test(icon.src)) await problems.add(at, `the light theme shows the dark icon ${icon.src}`);
				if (icon.loaded && icon.contrast !== null && icon.contrast < MIN_ICON_CONTRAST) {
					await problems.add(at, `the icon hardly stands out: contrast ${icon.contrast.toFixed(2)} against ${icon.background} (${icon.src})`);
				}
				console.log(`${at}: ${icon.src} ${icon.width}px, contrast ${icon.contrast?.toFixed(2)} on ${icon.background}`);
			}
		}
		await editor.setTheme('light');
		problems.assertNone();
	});

	const fillAndCheck = (problems: Problems, node: NodeInfo, values: Record<string, unknown>, where: string) =>
		fillFlagged(editor, problems, node, values, where, { log: fillLog });

	const actionNodes = nodes.filter((n) => n.resources.length > 0);
	const triggerNodes = nodes.filter((n) => n.resources.length === 0);

	test.each(actionNodes.map((n) => [n.displayName, n] as const))('%s: every resource and operation can be chosen; filled, none shows a warning', async (_name, node) => {
		const problems = new Problems(ui.page, `operations-${node.name}`);
		const first = node.resources[0];
		await open(node, { resource: first.value, operation: first.operations[0]?.value });
		const t0 = Date.now();
		let count = 0;
		for (const resource of node.resources) {
			const ok = await problems.attempt(`${node.displayName} / ${resource.label}`, 'choosing the resource', async () => {
				await editor.pickOption('resource', resource.label);
				return true;
			});
			if (ok === undefined) continue;
			for (const operation of resource.operations) {
				const where = `${node.displayName} / ${resource.label} / ${operation.label}`;
				const chosen = await problems.attempt(where, 'choosing the operation', async () => {
					await editor.pickOption('operation', operation.label);
					return true;
				});
				if (chosen === undefined) continue;
				await fillAndCheck(problems, node, { resource: resource.value, operation: operation.value }, where);
				count++;
			}
		}
		console.log(`${node.displayName}: ${count} operations in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
		await editor.closeNdv().catch(() => undefined);
		problems.assertNone();
	});

	/** A trigger's top-level choices: options parameters shown whatever the other values are. */
	function choices(node: NodeInfo): Property[] {
		return node.properties.filter((p) => p.type === 'options' && !p.displayOptions && (p.options?.length ?? 0) > 1 && !p.typeOptions?.loadOptionsMethod);
	}

	test.each(triggerNodes.map((n) => [n.displayName, n] as const))('%s: every choice can be made; filled, none shows a warning', async (_name, node) => {
		const problems = new Problems(ui.page, `choices-${node.name}`);
		await open(node, {});
		await fillAndCheck(problems, node, {}, `${node.displayName} (defaults)`);
		for (const choice of choices(node)) {
			for (const option of choice.options ?? []) {
				const where = `${node.displayName} / ${choice.displayName}: ${option.name}`;
				const chosen = await problems.attempt(where, 'choosing it', async () => {
					await editor.pickOption(choice.name, option.name);
					return true;
				});
				if (chosen === undefined) continue;
				await fillAndCheck(problems, node, { [choice.name]: option.value }, where);
			}
			await problems.attempt(`${node.displayName} / ${choice.displayName}`, 'back to the default', () =>
				editor.pickOption(choice.name, choice.options!.find((o) => o.value === choice.default)?.name ?? choice.options![0].name),
			);
		}
		await editor.closeNdv().catch(() => undefined);
		problems.assertNone();
	});
});
