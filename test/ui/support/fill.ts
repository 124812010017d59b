/**
 * Filling a node's required fields the way a person does: look at what the panel flags (the red
 * triangle next to a parameter), give each flagged parameter a value, and check that nothing is
 * flagged any more.
 */
import { defaultValues, shownProperties, type NodeInfo, type Property } from './catalog';
import type { Editor } from './editor';
import { sample } from './expectations';
import type { Problems } from './session';

export interface FillOptions {
	/** Give resource locators a value from their list (default), or type the sample / ID. */
	preferList?: boolean;
	/** Receives "where: parameter what-was-done" for each value given. */
	log?: string[];
}

/**
 * Gives every parameter that shows an issue a value; records a problem for what is still flagged
 * after that. `values` are the parameter values the test set (resource, operation, a choice).
 */
export async function fillFlagged(
	editor: Editor,
	problems: Problems,
	node: NodeInfo,
	values: Record<string, unknown>,
	where: string,
	options: FillOptions = {},
): Promise<void> {
	const shown = shownProperties(node, defaultValues(node, values));
	const filled: string[] = [];
	for (let round = 0; round < 3; round++) {
		const flagged = (await editor.issues()).filter((n) => !filled.includes(n));
		if (flagged.length === 0) break;
		for (const name of flagged) {
			const p: Property | undefined = shown.find((s) => s.name === name) ?? node.properties.find((s) => s.name === name);
			filled.push(name);
			if (!p) {
				await problems.add(where, `"${name}" shows a warning, but the description has no such parameter`);
				continue;
			}
			if (!p.required) await problems.add(where, `"${p.displayName}" (${name}) shows a warning although it is optional`);
			const given = sample(node, values.resource as string | undefined, values.operation as string | undefined, name);
			const done = await problems.attempt(where, `giving "${p.displayName}" a value`, () =>
				editor.fillRequired(p, p.type === 'resourceLocator' && options.preferList !== false && given === undefined ? undefined : given),
			);
			if (done) options.log?.push(`${where}: ${p.displayName} ${done}`);
		}
	}
	const left = await editor.waitForNoIssues();
	if (left.length > 0) {
		const names = left.map((n) => shown.find((s) => s.name === n)?.displayName ?? n);
		await problems.add(where, `still shows a warning after the required fields were filled: ${names.join(', ')}`);
	}
}
