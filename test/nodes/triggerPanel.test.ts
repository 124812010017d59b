import type { INodeProperties, INodePropertyOptions, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { ConversationIntelligence } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import { ConversationIntelligenceTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node';
import { HostedPbx } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { HostedPbxTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbxTrigger.node';
import { VoiceAgent } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { VoiceAgentTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgentTrigger.node';
import { WholesaleVoice } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { WholesaleVoiceTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoiceTrigger.node';

/**
 * n8n's node panel lists a trigger's events from the first parameter whose label is Event,
 * Events or Trigger On (as the node creator of n8n 1.x and 2.x does), each option one entry named
 * by its `action`. Every event of every trigger must be such an entry.
 */
function panelEntries(description: INodeTypeDescription): string[] {
	const parameter = description.properties.find((p: INodeProperties) => ['event', 'events', 'trigger on'].includes(p.displayName.toLowerCase()));
	return ((parameter?.options ?? []) as INodePropertyOptions[]).map((o) => o.action ?? `(no action) ${o.name}`);
}

const triggers: Array<[string, INodeType, number]> = [
	['Hosted PBX Trigger', new HostedPbxTrigger(), 9],
	['Wholesale Voice Trigger', new WholesaleVoiceTrigger(), 14],
	['Voice Agent Trigger', new VoiceAgentTrigger(), 2],
	['Conversation Intelligence Trigger', new ConversationIntelligenceTrigger(), 5],
];

test.each(triggers)('%s: every event is an entry of the node panel, named "On …"', (_name, node, count) => {
	const entries = panelEntries(node.description);
	expect(entries).toHaveLength(count);
	for (const entry of entries) expect(entry).toMatch(/^On [a-zA-Z0-9]/);
	expect(new Set(entries).size).toBe(entries.length);
});

test('searching "missed call" in the Hosted PBX entries finds "On missed call"', () => {
	const entries = panelEntries(new HostedPbxTrigger().description);
	expect(entries.filter((e) => e.toLowerCase().includes('missed call'))).toEqual(['On missed call']);
});

test('no panel entry carries a note in parentheses: n8n names a node added from the panel after its entry', () => {
	const descriptions: INodeTypeDescription[] = [
		...triggers.map(([, node]) => node.description),
		...[HostedPbx, WholesaleVoice, VoiceAgent, ConversationIntelligence].map((Node) => new Node().description),
	];
	const actions = descriptions.flatMap((d) => d.properties.flatMap((p) => ((p.options ?? []) as INodePropertyOptions[]).map((o) => o.action).filter((a): a is string => !!a)));
	expect(actions.length).toBeGreaterThan(100);
	expect(actions.filter((a) => /[()]/.test(a))).toEqual([]);
});
