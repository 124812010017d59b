/**
 * Every dropdown and resource locator whose entries come from the service (the node's
 * listSearch and loadOptions methods) loads from the sandbox in the editor, filters while
 * typing, and a picked entry satisfies the field.
 */
import type { RestClient } from '../e2e/harness';
import { isShown, optionLabel, packageNodes, type NodeInfo, type Property } from './support/catalog';
import { Editor, openEditor, workflowWith } from './support/editor';
import { Problems, type UiBrowser } from './support/session';

interface DropdownCase {
	param: Property;
	method: string;
	kind: 'list' | 'options';
	/** Values that show the parameter: its resource, operation and other conditions. */
	values: Record<string, unknown>;
}

/** The parameters filled by the node's own methods, each once, with the values that show them. */
function dropdownCases(node: NodeInfo): DropdownCase[] {
	const cases: DropdownCase[] = [];
	const seen = new Set<string>();
	for (const p of node.properties) {
		const listMethod = (p.modes ?? []).find((m) => m.typeOptions?.searchListMethod)?.typeOptions?.searchListMethod as string | undefined;
		const optionsMethod = p.typeOptions?.loadOptionsMethod as string | undefined;
		const method = listMethod ?? optionsMethod;
		if (!method || seen.has(`${p.name}:${method}`)) continue;
		seen.add(`${p.name}:${method}`);
		const values: Record<string, unknown> = {};
		for (const [key, allowed] of Object.entries(p.displayOptions?.show ?? {})) values[key] = (allowed as unknown[])[0];
		cases.push({ param: p, method, kind: listMethod ? 'list' : 'options', values });
	}
	return cases;
}

/** A word of an entry to type as a filter: the longest run of letters or digits (3+). */
function filterWord(label: string): string | undefined {
	const words = label.match(/[A-Za-z0-9]{3,}/g) ?? [];
	return words.sort((a, b) => b.length - a.length)[0];
}

const nodes = packageNodes().filter((n) => dropdownCases(n).length > 0);

describe('dropdowns and resource locators load from the sandbox', () => {
	let ui: UiBrowser;
	let editor: Editor;
	let rest: RestClient;
	const seen: string[] = [];

	beforeAll(async () => {
		({ ui, editor, rest } = await openEditor());
	});

	afterAll(async () => {
		await ui?.close();
		console.log(`Dropdowns:\n${seen.join('\n')}`);
	});

	/** Sets the values that show a parameter, through the panel. */
	async function show(node: NodeInfo, values: Record<string, unknown>): Promise<void> {
		if (values.resource !== undefined) {
			const resource = node.resources.find((r) => r.value === values.resource)!;
			await editor.pickOption('resource', resource.label);
			if (values.operation !== undefined) await editor.pickOption('operation', resource.operations.find((o) => o.value === values.operation)!.label);
		}
		for (const [key, value] of Object.entries(values)) {
			if (key === 'resource' || key === 'operation') continue;
			const p = node.properties.find((q) => q.name === key && q.type === 'options' && isShown(q, values));
			if (p) await editor.pickOption(key, optionLabel(p, value));
		}
	}

	test.each(nodes.map((n) => [n.displayName, n] as const))('%s: every list loads, filters while typing, and a pick fills the field', async (_name, node) => {
		const problems = new Problems(ui.page, `dropdowns-${node.name}`);
		const cases = dropdownCases(node);
		const id = await Editor.createWorkflow(rest, workflowWith(node, { ...cases[0].values }));
		await editor.openWorkflow(id);
		await editor.openNode(node.displayName);
		for (const c of cases) {
			const where = `${node.displayName} / ${[c.values.resource, c.values.operation].filter(Boolean).join(' / ') || 'parameters'} / ${c.param.displayName} (${c.method})`;
			const shown = await problems.attempt(where, 'showing the field', async () => {
				await show(node, c.values);
				return true;
			});
			if (!shown) continue;
			if (c.kind === 'list') {
				await problems.attempt(where, 'the list', async () => {
					await editor.rlMode(c.param.name, 'From list');
					const t0 = Date.now();
					const all = await editor.rlOpenList(c.param.name).catch((e) => {
						throw new Error(`the list never showed an entry (${String(e.message).split('\n')[0]})`);
					});
					const loadedMs = Date.now() - t0;
					const word = filterWord(all[all.length - 1]);
					let filtered = all;
					if (word) {
						filtered = await editor.rlFilter(word).catch((e) => {
							throw new Error(`typing "${word}" did not leave only matching entries (${String(e.message).split('\n')[0]})`);
						});
						if (filtered.length > all.length) throw new Error(`typing "${word}" listed more entries (${filtered.length}) than before (${all.length})`);
					}
					const value = await editor.rlPickFirst(c.param.name);
					seen.push(`${where}: ${all.length} entries in ${loadedMs} ms [${all.slice(0, 4).join('; ')}${all.length > 4 ? '; …' : ''}]; "${word}" -> ${filtered.length}; picked "${value}"`);
					return true;
				});
			} else {
				await problems.attempt(where, 'the dropdown', async () => {
					const t0 = Date.now();
					const popper = await editor.openDropdown(c.param.name);
					const all = await editor.dropdownLabels(popper).catch((e) => {
						throw new Error(`the dropdown never showed an entry (${String(e.message).split('\n')[0]})`);
					});
					const loadedMs = Date.now() - t0;
					const word = filterWord(all[all.length - 1]);
					let filtered = all;
					if (word) {
						await editor.page.keyboard.type(word, { delay: 30 });
						await editor.page
							.waitForFunction(
								(needle) => {
									const items = [...(globalThis as any).document.querySelectorAll('.el-select__popper li[data-test-id="parameter-input-item"]')].filter((e: any) => e.offsetParent);
									return items.length > 0 && items.every((e: any) => String(e.textContent).toLowerCase().includes(needle));
								},
								word.toLowerCase(),
								{ timeout: 15_000 },
							)
							.catch(() => {
								throw new Error(`typing "${word}" did not leave only matching entries`);
							});
						filtered = await editor.dropdownLabels(popper);
					}
					await popper.locator('li[data-test-id="parameter-input-item"]:visible').first().click();
					await popper.waitFor({ state: 'hidden' }).catch(() => undefined);
					if (c.param.type === 'multiOptions') await editor.page.keyboard.press('Escape');
					seen.push(`${where}: ${all.length} entries in ${loadedMs} ms [${all.slice(0, 4).join('; ')}${all.length > 4 ? '; …' : ''}]; "${word}" -> ${filtered.length}`);
					return true;
				});
			}
			const flagged = (await editor.waitForNoIssues(3_000)).filter((n) => n === c.param.name);
			if (flagged.length > 0) await problems.add(where, 'the field still shows a warning after an entry was picked');
		}
		await editor.closeNdv().catch(() => undefined);
		problems.assertNone();
	});
});
