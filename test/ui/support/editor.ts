/**
 * The n8n 2.40 editor as a person uses it, through the `data-test-id` attributes its own tests
 * rely on: the node panel (node creator), the node details view (NDV) with its parameters,
 * resource locators and dropdowns, "Execute step", the output panel, the credential modal.
 * Found by looking at the editor's DOM; see test/ui/README.md.
 *
 * Code passed to page.evaluate runs in the browser: it is typed loosely (`any`), since the
 * project's tsconfig has no DOM library.
 */
import type { Locator, Page } from 'playwright-core';

import { nodeResult, unflatten, type N8nRun, type RestClient } from '../../e2e/harness';
import type { NodeInfo, Property } from './catalog';
import { launchBrowser, restSession, signIn, uiState, ACTION_TIMEOUT, type UiBrowser } from './session';

export const sel = {
	canvasAdd: '[data-test-id="canvas-add-button"]',
	canvasNode: '[data-test-id="canvas-node"]',
	nodeCreator: '[data-test-id="node-creator"]',
	creatorItem: '[data-test-id="item-iterator-item"]',
	ndv: '[data-test-id="ndv"]',
	params: '[data-test-id="node-parameters"]',
	issues: '[data-test-id="parameter-issues"]',
	executeButton: '[data-test-id="node-execute-button"]',
	outputPanel: '[data-test-id="output-panel"]',
	visiblePopper: '.el-select__popper:visible',
};

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface CreatorItem {
	navId: string;
	name: string;
	description: string;
}

export interface StepResult {
	status: 'success' | 'error' | 'unknown';
	itemsText: string;
	items: number;
	errorText: string;
}

export class Editor {
	readonly base: string;

	constructor(readonly page: Page) {
		this.base = uiState().n8nUrl;
	}

	get ndv(): Locator {
		return this.page.locator(sel.ndv);
	}

	// --- workflows --------------------------------------------------------------------------

	/** An empty workflow with the "Add first step" button. */
	async newWorkflow(): Promise<void> {
		await this.page.goto(`${this.base}/workflow/new`);
		await this.page.locator(sel.canvasAdd).waitFor();
	}

	/** Creates a workflow through the REST API (as an import would) and returns its id. */
	static async createWorkflow(rest: RestClient, workflow: Record<string, unknown>): Promise<string> {
		const created = await rest.post<{ id: string }>('/rest/workflows', {
			settings: { executionOrder: 'v1' },
			connections: {},
			active: false,
			...workflow,
		});
		return created.id;
	}

	async openWorkflow(id: string): Promise<void> {
		await this.page.goto(`${this.base}/workflow/${id}`);
		await this.page.locator(sel.canvasNode).first().waitFor();
	}

	canvasNode(name: string): Locator {
		return this.page.locator(`${sel.canvasNode}[data-node-name="${name}"]`);
	}

	/** Opens a node's details view by double-clicking it on the canvas. */
	async openNode(name: string): Promise<void> {
		await this.canvasNode(name).dblclick();
		await this.ndv.waitFor();
		await this.ndv.locator(sel.params).waitFor();
	}

	async closeNdv(): Promise<void> {
		if (!(await this.ndv.isVisible())) return;
		await this.page.locator('[data-test-id="ndv-close-button"]').click();
		await this.ndv.waitFor({ state: 'hidden' });
	}

	/** Saves the open workflow (Ctrl+S). */
	async save(): Promise<void> {
		await this.page.keyboard.press('Control+s');
	}

	// --- node panel -------------------------------------------------------------------------

	/** Opens the node panel: from "Add first step" on an empty canvas, else from the canvas "+" button. */
	async openNodePanel(): Promise<void> {
		const add = this.page.locator(sel.canvasAdd);
		if (await add.isVisible()) await add.click();
		else await this.page.locator('[data-test-id="node-creator-plus-button"]').click();
		await this.page.locator(`${sel.nodeCreator} input`).first().waitFor();
	}

	/** The items the node panel shows now. */
	async creatorItems(): Promise<CreatorItem[]> {
		return await this.page.$$eval(`${sel.nodeCreator} ${sel.creatorItem}`, (els: any[]) =>
			els.map((e) => ({
				navId: String(e.getAttribute('data-keyboard-nav-id') ?? ''),
				name: String(e.querySelector('[data-test-id="node-creator-item-name"]')?.textContent ?? '').trim(),
				description: String(e.querySelector('[data-test-id="node-creator-item-description"]')?.textContent ?? '').trim(),
			})),
		);
	}

	/**
	 * Types a search into the node panel and waits until an item whose type starts with `type`
	 * is listed (the panel groups a trigger with its regular node under the regular node's type).
	 * Returns what was listed, and whether the node was among it.
	 */
	async searchPanel(text: string, type: string, timeoutMs = 10_000): Promise<{ found: boolean; items: CreatorItem[] }> {
		const input = this.page.locator(`${sel.nodeCreator} input`).first();
		await input.fill('');
		await input.fill(text);
		const prefix = `${type}-`;
		// Found as soon as the item shows; not found once the list has not changed for 2 s.
		const outcome = await this.page
			.waitForFunction(
				([selector, p]) => {
					const w = globalThis as any;
					const els = [...w.document.querySelectorAll(selector)];
					if (els.some((e: any) => String(e.getAttribute('data-keyboard-nav-id')).startsWith(p))) return 'found';
					const signature = els.map((e: any) => String(e.getAttribute('data-keyboard-nav-id')).replace(/-[0-9a-f-]{36}$/, '')).join('|') + '#' + w.document.querySelector('[data-test-id="node-creator"] input')?.value;
					const now = Date.now();
					if (w.__uiSearchSignature !== signature) {
						w.__uiSearchSignature = signature;
						w.__uiSearchSince = now;
						return false;
					}
					return now - w.__uiSearchSince > 2000 ? 'settled' : false;
				},
				[`${sel.nodeCreator} ${sel.creatorItem}`, prefix] as const,
				{ timeout: timeoutMs, polling: 100 },
			)
			.then((h) => h.jsonValue())
			.catch(() => 'timeout');
		return { found: outcome === 'found', items: await this.creatorItems() };
	}

	/** Adds a node from the panel: searches, clicks the item of that type (e.g. n8n-nodes-base.manualTrigger). */
	async addFromPanel(text: string, type: string): Promise<void> {
		await this.openNodePanel();
		const { found, items } = await this.searchPanel(text, type);
		if (!found) throw new Error(`the node panel lists no ${type} for "${text}" (it lists ${items.map((i) => i.name).join(', ')})`);
		await this.creatorItem(`${type}-`).first().click();
		await this.page.locator(`${sel.canvasNode}[data-node-type="${type}"]`).waitFor({ state: 'attached' });
	}

	creatorItem(navIdPrefix: string): Locator {
		return this.page.locator(`${sel.nodeCreator} ${sel.creatorItem}[data-keyboard-nav-id^="${navIdPrefix}"]`);
	}

	// --- parameters -------------------------------------------------------------------------

	param(name: string): Locator {
		return this.ndv.locator(`[data-test-id="parameter-input-${name}"]`).first();
	}

	/** The text an options/string parameter shows. */
	async paramValue(name: string): Promise<string> {
		const input = this.param(name).locator('input, textarea').first();
		return await input.inputValue();
	}

	/** Opens an options dropdown and returns the open list (a visible popper). */
	async openDropdown(name: string): Promise<Locator> {
		const popper = this.page.locator(sel.visiblePopper);
		if ((await popper.count()) > 0) {
			await this.page.keyboard.press('Escape');
			await popper.first().waitFor({ state: 'hidden' }).catch(() => undefined);
		}
		// A click while the panel is still rendering (or loading the options) may not open it: retry.
		for (let attempt = 1; ; attempt++) {
			await this.param(name).click();
			try {
				await popper.first().waitFor({ timeout: attempt < 3 ? 8_000 : ACTION_TIMEOUT });
				return popper.first();
			} catch (e) {
				if (attempt >= 3) throw e;
			}
		}
	}

	/** The option labels an open dropdown lists (waits until it lists at least one, or times out). */
	async dropdownLabels(popper: Locator, timeoutMs = 20_000): Promise<string[]> {
		const items = popper.locator('li[data-test-id="parameter-input-item"]:visible');
		await items.first().waitFor({ timeout: timeoutMs });
		return (await items.evaluateAll((els: any[]) =>
			els.map((e) => String((e.querySelector('.option-headline') ?? e).textContent ?? '').trim()),
		)) as string[];
	}

	/** Picks an option of an options parameter by the label the panel shows. */
	async pickOption(name: string, label: string): Promise<void> {
		if ((await this.paramValue(name).catch(() => '')) === label) return;
		const popper = await this.openDropdown(name);
		const item = popper
			.locator('li[data-test-id="parameter-input-item"]')
			.filter({ has: this.page.locator('.option-headline', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) }) })
			.first();
		await item.click();
		await popper.waitFor({ state: 'hidden' }).catch(() => undefined);
		await this.page.waitForFunction(
			([selector, expected]) => {
				const input = (globalThis as any).document.querySelector(selector);
				return input && String(input.value).trim() === expected;
			},
			[`${sel.ndv} [data-test-id="parameter-input-${name}"] input`, label] as const,
			{ timeout: ACTION_TIMEOUT },
		);
	}

	/** Picks the first option a dropdown lists (options loaded from the service); returns its label. */
	async pickFirstOption(name: string): Promise<string> {
		const popper = await this.openDropdown(name);
		const [label] = await this.dropdownLabels(popper);
		await popper.locator('li[data-test-id="parameter-input-item"]').first().click();
		await popper.waitFor({ state: 'hidden' }).catch(() => undefined);
		return label;
	}

	/** Types into a string or number parameter and leaves the field. */
	async fill(name: string, value: string): Promise<void> {
		const input = this.param(name).locator('input:not([type="hidden"]), textarea').first();
		await input.click();
		await input.fill(value);
		await input.press('Tab');
	}

	/** The names of the parameters that show an issue (the red triangle) in the panel now. */
	async issues(): Promise<string[]> {
		return await this.ndv.locator(`${sel.params} ${sel.issues}`).evaluateAll((els: any[]) =>
			els.map((e) => {
				let el = e;
				while (el && el.getAttribute) {
					const id = String(el.getAttribute('data-test-id') ?? '');
					const m = /^(?:parameter-input|resource-locator)-(.+)$/.exec(id) ?? /^(.+)-parameter-input-options-container$/.exec(id);
					if (m && !['field', 'item'].includes(m[1])) return m[1];
					const path = el.getAttribute('data-parameter-path');
					if (path) return String(path).replace(/^parameters\./, '');
					el = el.parentElement;
				}
				return '(unknown parameter)';
			}),
		);
	}

	/** Waits until no parameter shows an issue; returns the ones still showing one after the wait. */
	async waitForNoIssues(timeoutMs = 5_000): Promise<string[]> {
		const deadline = Date.now() + timeoutMs;
		let current = await this.issues();
		while (current.length > 0 && Date.now() < deadline) {
			await this.page.waitForTimeout(200);
			current = await this.issues();
		}
		return current;
	}

	// --- resource locators ------------------------------------------------------------------

	rl(name: string): Locator {
		return this.ndv.locator(`[data-test-id="resource-locator-${name}"]`).first();
	}

	/** Switches a resource locator to a mode by its label (From list, By ID, By URL). */
	async rlMode(name: string, label: string): Promise<void> {
		const selector = this.rl(name).locator('[data-test-id="rlc-mode-selector"]');
		const current = await selector.locator('input').inputValue();
		if (current.trim().toLowerCase() === label.toLowerCase()) return;
		await selector.click();
		const popper = this.page.locator(sel.visiblePopper).first();
		await popper.waitFor();
		await popper.locator('li', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`, 'i') }).first().click();
		await popper.waitFor({ state: 'hidden' }).catch(() => undefined);
	}

	/** Opens a resource locator's list; returns the labels once it has loaded (at least one). */
	async rlOpenList(name: string, timeoutMs = 30_000): Promise<string[]> {
		const search = this.page.locator('[data-test-id="rlc-search"]:visible');
		if (!(await search.isVisible().catch(() => false))) await this.rl(name).locator('[data-test-id="rlc-input"]').click();
		await search.first().waitFor();
		return await this.rlItems(timeoutMs);
	}

	async rlItems(timeoutMs = 30_000): Promise<string[]> {
		const items = this.page.locator('[data-test-id="rlc-item"]:visible');
		await items.first().waitFor({ timeout: timeoutMs });
		return (await items.evaluateAll((els: any[]) => els.map((e) => String(e.textContent ?? '').trim()))) as string[];
	}

	/** Types into an open resource locator list's search and waits until the list shows only matches. */
	async rlFilter(text: string, timeoutMs = 30_000): Promise<string[]> {
		const search = this.page.locator('[data-test-id="rlc-search"]:visible').first();
		await search.fill(text);
		await this.page.waitForFunction(
			(needle) => {
				const items = [...(globalThis as any).document.querySelectorAll('[data-test-id="rlc-item"]')].filter((e: any) => e.offsetParent);
				return items.length > 0 && items.every((e: any) => String(e.textContent).toLowerCase().includes(needle));
			},
			text.toLowerCase(),
			{ timeout: timeoutMs },
		);
		return await this.rlItems(timeoutMs);
	}

	/** Picks the first item of the open resource locator list; returns the value the field shows. */
	async rlPickFirst(name: string): Promise<string> {
		await this.page.locator('[data-test-id="rlc-item"]:visible').first().click();
		const input = this.rl(name).locator('[data-test-id="rlc-input"]');
		await this.page.waitForFunction((el: any) => String(el.value ?? '') !== '', await input.elementHandle(), { timeout: ACTION_TIMEOUT });
		return await input.inputValue();
	}

	/** Types a value into a resource locator in a typed mode (By ID, By URL). */
	async rlType(name: string, value: string): Promise<void> {
		const input = this.rl(name).locator('[data-test-id="rlc-input"]');
		await input.click();
		await input.fill(value);
		await input.press('Tab');
	}

	// --- filling a required parameter ----------------------------------------------------------

	/**
	 * Gives a parameter that shows an issue a value, the way a person would: a resource locator
	 * from its list (or by ID), a dropdown's first option, a text field the sample value.
	 * Returns what was done, for the report.
	 */
	async fillRequired(p: Property, sample: string | undefined): Promise<string> {
		switch (p.type) {
			case 'resourceLocator': {
				const modes = (p.modes ?? []).map((m) => m.name);
				if (sample === undefined && modes.includes('list')) {
					await this.rlMode(p.name, 'From list');
					const labels = await this.rlOpenList(p.name);
					const value = await this.rlPickFirst(p.name);
					return `picked "${value}" from a list of ${labels.length}`;
				}
				const idMode = (p.modes ?? []).find((m) => m.name === 'id') ?? (p.modes ?? []).find((m) => m.type === 'string');
				if (!idMode) throw new Error(`${p.name}: no typed mode`);
				await this.rlMode(p.name, idMode.displayName);
				const value = sample ?? placeholderSample(idMode.placeholder) ?? '1';
				await this.rlType(p.name, value);
				return `typed "${value}" (${idMode.displayName})`;
			}
			case 'options': {
				if (sample !== undefined) {
					await this.pickOption(p.name, sample);
					return `chose "${sample}"`;
				}
				return `chose "${await this.pickFirstOption(p.name)}"`;
			}
			case 'multiOptions': {
				const label = await this.pickFirstOption(p.name);
				await this.page.keyboard.press('Escape');
				return `chose "${label}"`;
			}
			case 'number': {
				const value = sample ?? '1';
				await this.fill(p.name, value);
				return `typed ${value}`;
			}
			case 'boolean':
				await this.param(p.name).locator('.el-switch, [role="switch"]').first().click();
				return 'switched';
			case 'dateTime': {
				// The date picker keeps a typed date only when its OK button confirms it.
				const value = sample ?? new Date().toISOString().slice(0, 10);
				const input = this.param(p.name).locator('input:not([type="hidden"])').first();
				await input.click();
				await input.fill(value);
				await this.page.locator('.el-picker-panel__footer button:visible', { hasText: /^\s*OK\s*$/ }).first().click();
				return `typed ${value} and confirmed it`;
			}
			case 'json': {
				const value = sample ?? '{}';
				await this.fill(p.name, value);
				return `typed ${value}`;
			}
			default: {
				const value = sample ?? placeholderSample(p.placeholder) ?? 'test';
				await this.fill(p.name, value);
				return `typed "${value}"`;
			}
		}
	}

	// --- running ------------------------------------------------------------------------------

	/**
	 * Clicks "Execute step", waits for that execution to finish (n8n's REST API says when: the
	 * output panel keeps the previous run's data until the new one arrives), then for the output
	 * panel to show it. `nodeName` is the node whose details are open.
	 */
	async executeStep(rest: RestClient, nodeName: string, timeoutMs = 120_000): Promise<StepResult> {
		const started = this.page.waitForResponse((r) => /\/rest\/workflows\/[^/]+\/run/.test(r.url()) && r.request().method() === 'POST', { timeout: timeoutMs });
		await this.ndv.locator(sel.executeButton).click();
		const response = await started;
		const body = (await response.json().catch(() => ({}))) as { data?: { executionId?: string } };
		const executionId = body.data?.executionId;
		if (!executionId) throw new Error(`"Execute step" started no execution (answer ${response.status()}: ${JSON.stringify(body).slice(0, 300)})`);
		const deadline = Date.now() + timeoutMs;
		let run: N8nRun | undefined;
		for (;;) {
			const found = await rest.get<{ status?: string; finished?: boolean; stoppedAt?: string | null; data: string | N8nRun['data'] }>(`/rest/executions/${executionId}`).catch(() => undefined);
			if (found && !['new', 'running', 'waiting'].includes(String(found.status)) && (found.stoppedAt || found.finished !== undefined)) {
				run = { ...found, data: typeof found.data === 'string' ? (unflatten(found.data) as N8nRun['data']) : found.data } as N8nRun;
				break;
			}
			if (Date.now() > deadline) throw new Error(`execution ${executionId} did not finish within ${timeoutMs} ms`);
			await this.page.waitForTimeout(250);
		}
		const result = nodeResult(run, nodeName);
		const expectError = !!result.error;
		const panel = this.ndv.locator(sel.outputPanel);
		const count = result.items.length;
		if (expectError) await panel.locator('[data-test-id="node-error-message"]').first().waitFor({ timeout: 30_000 });
		else if (count === 0) await panel.getByText(/No output data|0 items/).first().waitFor({ timeout: 30_000 });
		else await panel.locator('[data-test-id="ndv-items-count"]', { hasText: new RegExp(`\\b${count} items?\\b`) }).first().waitFor({ timeout: 30_000 });
		return await this.readOutput(result.error ? String(result.error.message ?? '') : undefined, count);
	}

	/** What the output panel shows now. */
	async readOutput(restError?: string, restItems?: number): Promise<StepResult> {
		const panel = this.ndv.locator(sel.outputPanel);
		const errorBox = panel.locator('[data-test-id="node-error-message"]');
		const hasError = (await errorBox.count()) > 0 && (await errorBox.first().isVisible());
		const itemsText = ((await panel.locator('[data-test-id="ndv-items-count"]').first().textContent({ timeout: 5_000 }).catch(() => '')) ?? '').trim();
		const items = Number(/(\d+)\s+items?/.exec(itemsText)?.[1] ?? restItems ?? 0);
		const errorText = hasError
			? [await errorBox.first().innerText().catch(() => ''), await panel.locator('[data-test-id="node-error-description"]').first().innerText().catch(() => '')].join(' ').replace(/\s+/g, ' ').trim()
			: (restError ?? '');
		return { status: hasError || restError ? 'error' : 'success', itemsText, items, errorText };
	}

	/** The binary files the output panel shows (Binary view): name and MIME type of each. */
	async outputFiles(): Promise<Array<{ text: string; fileName?: string; mimeType?: string }>> {
		const panel = this.ndv.locator(sel.outputPanel);
		const binaryTab = panel.locator('[data-test-id="radio-button-binary"]');
		if ((await binaryTab.count()) > 0 && (await binaryTab.isVisible())) await binaryTab.click();
		const cards = panel.locator('[data-test-id^="ndv-binary-data_"]');
		await cards.first().waitFor({ timeout: 15_000 });
		const texts = (await cards.evaluateAll((els: any[]) => els.map((e) => String(e.innerText ?? '')))) as string[];
		return texts.map((text) => ({
			text: text.replace(/\s+/g, ' ').trim(),
			fileName: /File Name:\s*(\S[^\n]*)/.exec(text)?.[1]?.trim(),
			mimeType: /Mime Type:\s*(\S[^\n]*)/.exec(text)?.[1]?.trim(),
		}));
	}

	// --- themes and icons ---------------------------------------------------------------------

	async setTheme(scheme: 'light' | 'dark'): Promise<void> {
		await this.page.emulateMedia({ colorScheme: scheme });
	}

	/**
	 * The node icons an element shows: source, whether the image loaded (naturalWidth > 0), and the
	 * contrast between the icon's opaque pixels and the background behind it (WCAG ratio, 1-21).
	 */
	async icons(scope: Locator): Promise<Array<{ src: string; loaded: boolean; width: number; contrast: number | null; background: string }>> {
		const imgs = scope.locator('img');
		await imgs.first().waitFor({ state: 'attached' });
		const deadline = Date.now() + 15_000;
		while (Date.now() < deadline && !(await imgs.evaluateAll((els: any[]) => els.every((e) => e.complete)))) await this.page.waitForTimeout(100);
		return (await imgs.evaluateAll((els: any[]) => {
			const w: any = globalThis;
			const lum = (r: number, g: number, b: number) => {
				const f = (c: number) => {
					const s = c / 255;
					return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
				};
				return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
			};
			const backgroundOf = (el: any): number[] => {
				let cur = el;
				while (cur) {
					const c = w.getComputedStyle(cur).backgroundColor;
					const m = /rgba?\(([^)]+)\)/.exec(c);
					if (m) {
						const parts = m[1].split(',').map((x: string) => Number(x.trim()));
						if (parts.length < 4 || parts[3] > 0.5) return parts.slice(0, 3);
					}
					cur = cur.parentElement;
				}
				return [255, 255, 255];
			};
			return els.map((img) => {
				const loaded = img.complete && img.naturalWidth > 0;
				const bg = backgroundOf(img);
				let contrast: number | null = null;
				if (loaded) {
					try {
						const canvas = w.document.createElement('canvas');
						canvas.width = 48;
						canvas.height = 48;
						const ctx = canvas.getContext('2d');
						ctx.drawImage(img, 0, 0, 48, 48);
						const data = ctx.getImageData(0, 0, 48, 48).data;
						let r = 0;
						let g = 0;
						let b = 0;
						let n = 0;
						for (let i = 0; i < data.length; i += 4) {
							if (data[i + 3] < 128) continue;
							r += data[i];
							g += data[i + 1];
							b += data[i + 2];
							n++;
						}
						if (n > 0) {
							const l1 = lum(r / n, g / n, b / n);
							const l2 = lum(bg[0], bg[1], bg[2]);
							contrast = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
						}
					} catch {
						contrast = null;
					}
				}
				return { src: String(img.getAttribute('src') ?? ''), loaded, width: img.naturalWidth, contrast, background: `rgb(${bg.join(',')})` };
			});
		})) as Array<{ src: string; loaded: boolean; width: number; contrast: number | null; background: string }>;
	}
}

/** A usable value from a placeholder: "me or 1001" -> "me", "e.g. 42" -> "42". */
export function placeholderSample(placeholder: string | undefined): string | undefined {
	if (!placeholder) return undefined;
	const first = placeholder.replace(/^e\.g\.\s*/i, '').split(/\s+or\s+|,\s+/)[0].trim();
	if (!first || first.includes('…') || first.includes('...')) return undefined;
	return first;
}

/** A workflow with a Manual Trigger and one node of this package, credentials set. */
export function workflowWith(node: NodeInfo, parameters: Record<string, unknown>, name = node.displayName): Record<string, unknown> {
	const state = uiState();
	const credentials: Record<string, { id: string; name: string }> = {};
	for (const type of node.credentials) {
		const ref = state.credentials[type];
		if (ref) credentials[type] = ref;
	}
	const nodes: Array<Record<string, unknown>> = [];
	const connections: Record<string, unknown> = {};
	const main: Record<string, unknown> = {
		id: 'ui-node-1',
		name,
		type: node.type,
		typeVersion: node.version,
		position: [300, 0],
		parameters,
		credentials,
	};
	if (node.webhookPaths.length > 0) main.webhookId = cryptoRandomUuid();
	if (!node.isTrigger) {
		nodes.push({ id: 'ui-trigger', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} });
		connections.Start = { main: [[{ node: name, type: 'main', index: 0 }]] };
	}
	nodes.push(main);
	return { name: `UI: ${node.displayName} ${new Date().toISOString()}`, nodes, connections };
}

function cryptoRandomUuid(): string {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return (require('node:crypto') as typeof import('node:crypto')).randomUUID();
}

/** What each test file starts with: a browser signed in to n8n, its editor, and a REST session. */
export async function openEditor(): Promise<{ ui: UiBrowser; editor: Editor; rest: RestClient }> {
	const ui = await launchBrowser();
	await signIn(ui.page);
	return { ui, editor: new Editor(ui.page), rest: await restSession() };
}
