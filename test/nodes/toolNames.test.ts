/**
 * How the operations look to an AI Agent. With the default tool description ("Set
 * Automatically"), n8n names and describes a tool "<action> in <node display name>", and models
 * (OpenAI among them) refuse tool names over 64 characters. So every action must fit, read well,
 * and say when the operation costs money or changes live routing.
 */
import { ConversationIntelligence, conversationIntelligenceResources } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import { HostedPbx, hostedPbxResources } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import type { ResourceSpec } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import { VoiceAgent, voiceAgentResources } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { WholesaleVoice, wholesaleVoiceResources } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';

const NODES: Array<[string, ResourceSpec[]]> = [
	[new HostedPbx().description.displayName, hostedPbxResources],
	[new WholesaleVoice().description.displayName, wholesaleVoiceResources],
	[new VoiceAgent().description.displayName, voiceAgentResources],
	[new ConversationIntelligence().description.displayName, conversationIntelligenceResources],
];

const tools = NODES.flatMap(([node, resources]) =>
	resources.flatMap((r) => r.operations.map((op) => ({ key: `${r.value}.${op.value}`, name: `${op.action} in ${node}`, description: op.description ?? '' }))),
);

/** Operations that cost money or change live routing or emergency data. */
const UNSAFE = ['sms.send', 'call.originate', 'uk999.set', 'e911.set', 'e911.remove', 'port.submit', 'numberRouting.set', 'numberRouting.remove', 'number.remove', 'notification.addRecipient'];

test.each(tools.map((t) => [t.name, t.name.length]))('"%s" fits a tool name (%i of 64 characters)', (_name, length) => {
	expect(length).toBeLessThanOrEqual(64);
});

test('articles read well ("an SMS", "an outgoing caller ID")', () => {
	// "a one-time", "a US address" sound like a consonant and are right.
	const wrong = /\ba (?!one\b|one-|US\b|uni|use)(?:[aeiou]|SMS\b)/i;
	expect(tools.filter((t) => wrong.test(t.name)).map((t) => t.name)).toEqual([]);
});

/** Actions named as people search for them; their description (shown under the action, and pasted as a tool's description) says what they cost. */
const PLAIN_NAMED = ['sms.send'];

test('charged and routing-changing operations say so in their action, or in their description where the action is the name people search for', () => {
	const found = tools.filter((t) => UNSAFE.includes(t.key));
	expect(found.map((t) => t.key).sort()).toEqual([...UNSAFE].sort());
	const says = (t: (typeof tools)[number]) => /charged|live routing|emergency/i.test(PLAIN_NAMED.includes(t.key) ? t.description : t.name);
	expect(found.filter((t) => !says(t)).map((t) => t.name)).toEqual([]);
});
