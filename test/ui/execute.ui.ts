/**
 * "Execute step" in the editor against the sandbox: for every regular node, one read operation
 * per resource runs and the output panel shows its items; every download operation shows a file
 * with its name and MIME type. Then each node's picture for the docs: its panel on its typical
 * operation, after a run (docs/images/node-<name>.png).
 */
import type { RestClient } from '../e2e/harness';
import { defaultValues, packageNodes, shownProperties, type NodeInfo } from './support/catalog';
import { Editor, openEditor, workflowWith } from './support/editor';
import { isDownload, READ_OPERATION, specificSamples, TYPICAL_OPERATION } from './support/expectations';
import { fillFlagged } from './support/fill';
import { saveDocsImage } from './support/images';
import { Problems, sandboxAdmin, uiState, type UiBrowser } from './support/session';

const nodes = packageNodes().filter((n) => n.resources.length > 0);

type Resource = NodeInfo['resources'][number];
type Operation = Resource['operations'][number];

/** The read operation "Execute step" runs for a resource (see READ_OPERATION), or undefined. */
function readOperation(node: NodeInfo, resource: Resource): Operation | undefined {
	const chosen = READ_OPERATION[node.name]?.[resource.value];
	if (chosen) return resource.operations.find((o) => o.value === chosen);
	return (
		resource.operations.find((o) => o.value === 'getAll') ??
		resource.operations.find((o) => /^get/.test(o.value)) ??
		resource.operations.find((o) => /^(list|search|lookup)/.test(o.value))
	);
}

describe('Execute step in the editor', () => {
	let ui: UiBrowser;
	let editor: Editor;
	let rest: RestClient;
	const ran: string[] = [];
	const seeded: string[] = [];

	beforeAll(async () => {
		({ ui, editor, rest } = await openEditor());
		// The Voice Agent lists webhooks: give it one (for a made-up agent, so no trigger collides).
		const state = uiState();
		const key = String(state.credentialValues.platformApiKeyApi?.apiKey ?? '');
		const res = await fetch(`${state.sandboxUrl}/convai/v1/webhooks`, {
			method: 'POST',
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: JSON.stringify({ event_type: 'conversation.completed', url: 'http://127.0.0.1:9/summary', agent_id: 'agent_ui_docs' }),
		});
		if (res.ok) seeded.push(((await res.json()) as { webhook_id: string }).webhook_id);
	});

	afterAll(async () => {
		await ui?.close();
		const state = uiState();
		const key = String(state.credentialValues.platformApiKeyApi?.apiKey ?? '');
		for (const id of seeded) {
			await fetch(`${state.sandboxUrl}/convai/v1/webhooks/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } }).catch(() => undefined);
		}
		console.log(`Executed:\n${ran.join('\n')}`);
	});

	async function runOperation(problems: Problems, node: NodeInfo, resource: Resource, operation: Operation): Promise<boolean> {
		const where = `${node.displayName} / ${resource.label} / ${operation.label}`;
		const chosen = await problems.attempt(where, 'choosing it', async () => {
			await editor.pickOption('resource', resource.label);
			await editor.pickOption('operation', operation.label);
			return true;
		});
		if (!chosen) return false;
		await fillFlagged(editor, problems, node, { resource: resource.value, operation: operation.value }, where);
		const shown = shownProperties(node, defaultValues(node, { resource: resource.value, operation: operation.value }));
		for (const [name, value] of Object.entries(specificSamples(node, resource.value, operation.value))) {
			const p = shown.find((q) => q.name === name);
			if (p && ['string', 'number'].includes(p.type)) await problems.attempt(where, `typing ${name}`, () => editor.fill(name, value));
		}
		const result = await problems.attempt(where, '"Execute step"', () => editor.executeStep(rest, node.displayName));
		if (!result) return false;
		ran.push(`${where}: ${result.status}, ${result.itemsText || `${result.items} items`}${result.errorText ? ` (${result.errorText.slice(0, 160)})` : ''}`);
		if (result.status !== 'success') {
			await problems.add(where, `"Execute step" failed: ${result.errorText.slice(0, 400)}`);
			return false;
		}
		if (result.items < 1) {
			await problems.add(where, `the output panel shows no items (${JSON.stringify(result.itemsText)})`);
			return false;
		}
		return true;
	}

	test.each(nodes.map((n) => [n.displayName, n] as const))('%s: one read operation per resource shows its items; downloads show a file', async (_name, node) => {
		const problems = new Problems(ui.page, `execute-${node.name}`);
		const first = node.resources[0];
		const id = await Editor.createWorkflow(rest, workflowWith(node, { resource: first.value, operation: first.operations[0]?.value }));
		await editor.openWorkflow(id);
		await editor.openNode(node.displayName);

		for (const resource of node.resources) {
			const operation = readOperation(node, resource);
			if (!operation) {
				ran.push(`${node.displayName} / ${resource.label}: no read operation (${resource.operations.map((o) => o.label).join(', ')})`);
				continue;
			}
			await runOperation(problems, node, resource, operation);
		}

		for (const resource of node.resources) {
			for (const operation of resource.operations.filter(isDownload)) {
				const where = `${node.displayName} / ${resource.label} / ${operation.label}`;
				if (!(await runOperation(problems, node, resource, operation))) continue;
				const files = await problems.attempt(where, 'reading the file in the output panel', () => editor.outputFiles());
				if (!files) continue;
				ran.push(`${where}: files ${files.map((f) => `${f.fileName} (${f.mimeType})`).join(', ')}`);
				if (files.length === 0 || files.some((f) => !f.fileName || !f.mimeType)) {
					await problems.add(where, `the output panel shows no file name and MIME type: ${JSON.stringify(files)}`);
				}
			}
		}

		// The picture for the docs: the typical operation, after a run.
		const typical = TYPICAL_OPERATION[node.name] ?? { resource: first.value, operation: readOperation(node, first)?.value ?? first.operations[0].value };
		const resource = node.resources.find((r) => r.value === typical.resource);
		const operation = resource?.operations.find((o) => o.value === typical.operation);
		if (!resource || !operation) {
			await problems.add(node.displayName, `TYPICAL_OPERATION names ${typical.resource}/${typical.operation}, which the node does not have`);
		} else if (await runOperation(problems, node, resource, operation)) {
			await editor.setTheme('light');
			await editor.page.locator('[data-test-id="radio-button-table"]').last().click().catch(() => undefined);
			await problems.attempt(node.displayName, 'saving its picture', () =>
				saveDocsImage(
					editor.page,
					`node-${node.name}.png`,
					`${node.displayName}: ${resource.label} / ${operation.label}, after "Execute step" against the sandbox (parameters and output)`,
					{ target: editor.ndv },
				),
			);
		}
		await editor.closeNdv().catch(() => undefined);
		problems.assertNone();
	});

	test('the sandbox answered every request of the runs without a server error', async () => {
		const admin = sandboxAdmin();
		const errors = (await admin.requests()).filter((r) => (r.status ?? 0) >= 500);
		expect(errors.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([]);
	});
});
