import type { INodeProperties, INodePropertyOptions, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { ConversationIntelligenceTrigger } from '../../nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node';
import { HostedPbxTrigger } from '../../nodes/HostedPbx/HostedPbxTrigger.node';
import { VoiceAgentTrigger } from '../../nodes/VoiceAgent/VoiceAgentTrigger.node';
import { WholesaleVoiceTrigger } from '../../nodes/WholesaleVoice/WholesaleVoiceTrigger.node';

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
	['Hosted PBX Trigger', new HostedPbxTrigger().getNodeType(), 6],
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
	const entries = panelEntries(new HostedPbxTrigger().getNodeType().description);
	expect(entries.filter((e) => e.toLowerCase().includes('missed call'))).toEqual(['On missed call']);
});
