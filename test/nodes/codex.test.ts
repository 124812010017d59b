import fs from 'node:fs';
import path from 'node:path';

import type { INodePropertyOptions, INodeType } from 'n8n-workflow';

import { ConversationIntelligence } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import { ConversationIntelligenceTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node';
import { HostedPbx } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { HostedPbxTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbxTrigger.node';
import { VoiceAgent } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { VoiceAgentTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgentTrigger.node';
import { WholesaleVoice } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { WholesaleVoiceTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoiceTrigger.node';

/**
 * The codex files decide whether a user finds a node in the editor's panel. What the editor
 * tests (test/ui/panel.ui.ts) saw in n8n 2.40.7, kept here as cheap checks.
 */
const root = path.resolve(__dirname, '..', '..', 'packages', 'n8n-nodes-telephony-platform');
const codexFiles = fs
	.readdirSync(path.join(root, 'nodes'))
	.flatMap((dir) => fs.readdirSync(path.join(root, 'nodes', dir)).filter((f) => f.endsWith('.node.json')).map((f) => path.join(root, 'nodes', dir, f)));

interface Codex {
	node: string;
	nodeVersion: string;
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

	const NODES: INodeType[] = [
		new HostedPbx(), new HostedPbxTrigger(), new WholesaleVoice(), new WholesaleVoiceTrigger(),
		new VoiceAgent(), new VoiceAgentTrigger(), new ConversationIntelligence(), new ConversationIntelligenceTrigger(),
	];
	test.each(codexFiles.map((f) => [path.basename(f), f]))('%s: nodeVersion is the version of its node', (_name, file) => {
		const codex = read(file);
		const node = NODES.find((candidate) => `n8n-nodes-telephony-platform.${candidate.description.name}` === codex.node);
		const versions = [node?.description.version ?? []].flat();
		expect(codex.nodeVersion).toBe(`${Math.max(...versions)}.0`);
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

/**
 * What a person types in the node panel. n8n's search (sublimeSearch, n8n 1.x and 2.x) lists a
 * node when the whole search text is found, letter by letter in order, in its name or in one of
 * its codex aliases; picking the node then filters its actions by the same rule, on their names.
 */
describe('the node panel finds a task typed as a person types it', () => {
	const inOrder = (search: string, text: string) => {
		let at = 0;
		for (const letter of text.toLowerCase()) if (letter === search[at]) at += 1;
		return at === search.length;
	};
	const actions = new HostedPbx().description.properties
		.filter((p) => p.name === 'operation')
		.flatMap((p) => (p.options as INodePropertyOptions[]).map((o) => o.action ?? ''));
	const codex = read(path.join(root, 'nodes', 'HostedPbx', 'HostedPbx.node.json'));

	test.each(['send sms', 'send an sms', 'send text message', 'sms', 'text message'])('"%s" lists Hosted PBX', (search) => {
		expect(['Hosted PBX', ...(codex.alias ?? [])].filter((word) => inOrder(search, word))).not.toEqual([]);
	});

	test.each(['send sms', 'send an sms'])('"%s", Hosted PBX picked: its first action is "Send an SMS"', (search) => {
		expect(actions.filter((name) => inOrder(search, name))[0]).toBe('Send an SMS');
	});
});
