import fs from 'node:fs';
import path from 'node:path';

/**
 * The codex files decide whether a user finds a node in the editor's panel. What the editor
 * tests (test/ui/panel.ui.ts) saw in n8n 2.40.7, kept here as cheap checks.
 */
const root = path.resolve(__dirname, '..', '..');
const codexFiles = fs
	.readdirSync(path.join(root, 'nodes'))
	.flatMap((dir) => fs.readdirSync(path.join(root, 'nodes', dir)).filter((f) => f.endsWith('.node.json')).map((f) => path.join(root, 'nodes', dir, f)));

interface Codex {
	node: string;
	categories: string[];
	subcategories?: Record<string, string[]>;
	alias?: string[];
}
const read = (file: string): Codex => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('codex files', () => {
	test('one per node of the package', () => {
		expect(codexFiles.length).toBe(8);
	});

	test.each(codexFiles.map((f) => [path.basename(f), f]))('%s names its node type and has search words', (_name, file) => {
		const codex = read(file);
		const nodeName = path.basename(file, '.node.json');
		expect(codex.node).toBe(`n8n-nodes-telephony-platform.${nodeName[0].toLowerCase()}${nodeName.slice(1)}`);
		expect(codex.alias?.length).toBeGreaterThan(3);
	});

	test.each(codexFiles.map((f) => [path.basename(f), f]))('%s is not hidden from the panel search by an "AI" category', (_name, file) => {
		// n8n 2.x leaves nodes of category "AI" out of the panel's search unless they are AI root
		// nodes, so "Voice Agent" typed in the panel found nothing.
		const codex = read(file);
		if (codex.categories.includes('AI')) expect(codex.subcategories?.AI).toContain('Root Nodes');
	});

	test.each(codexFiles.filter((f) => f.endsWith('Trigger.node.json')).map((f) => [path.basename(f), f]))(
		'%s: the regular node carries every search word of its trigger',
		(_name, file) => {
			// The panel groups "X Trigger" under "X" and matches the regular node's aliases.
			const regular = read(file.replace('Trigger.node.json', '.node.json'));
			expect(read(file).alias?.filter((word) => !regular.alias?.includes(word))).toEqual([]);
		},
	);

	test.each(codexFiles.filter((f) => f.endsWith('Trigger.node.json')).map((f) => [path.basename(f), f]))(
		'%s: its search words are about its events, not the action node\'s operations',
		(_name, file) => {
			const ACTION_ONLY = ['click to call', 'DND', 'do not disturb', 'phone book', 'contact', 'sound', 'greeting', 'music on hold', 'call bundle', 'caller ID', 'SSE', 'server-sent events', 'QA', 'operator', 'webhook'];
			const words = read(file).alias ?? [];
			expect(words.filter((word) => ACTION_ONLY.includes(word) && !file.includes('WholesaleVoice'))).toEqual([]);
			const regular = read(file.replace('Trigger.node.json', '.node.json'));
			expect(words.length).toBeLessThan(regular.alias?.length ?? 0);
		},
	);
});
