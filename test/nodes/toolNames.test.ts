/**
 * How the operations look to an AI Agent. With the default tool description ("Set
 * Automatically"), n8n names and describes a tool "<action> in <node display name>", and models
 * (OpenAI among them) refuse tool names over 64 characters. So every action must fit, read well,
 * and say when the operation costs money or changes live routing.
 */
import { ConversationIntelligence, conversationIntelligenceResources } from '../../nodes/ConversationIntelligence/ConversationIntelligence.node';
import { HostedPbx, hostedPbxResources } from '../../nodes/HostedPbx/HostedPbx.node';
import type { ResourceSpec } from '../../nodes/shared/operation';
import { VoiceAgent, voiceAgentResources } from '../../nodes/VoiceAgent/VoiceAgent.node';
import { WholesaleVoice, wholesaleVoiceResources } from '../../nodes/WholesaleVoice/WholesaleVoice.node';

const NODES: Array<[string, ResourceSpec[]]> = [
	[new HostedPbx().description.displayName, hostedPbxResources],
	[new WholesaleVoice().description.displayName, wholesaleVoiceResources],
	[new VoiceAgent().description.displayName, voiceAgentResources],
	[new ConversationIntelligence().description.displayName, conversationIntelligenceResources],
];

const tools = NODES.flatMap(([node, resources]) =>
	resources.flatMap((r) => r.operations.map((op) => ({ key: `${r.value}.${op.value}`, name: `${op.action} in ${node}` }))),
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

test('charged and routing-changing operations say so in their action', () => {
	const found = tools.filter((t) => UNSAFE.includes(t.key));
	expect(found.map((t) => t.key).sort()).toEqual([...UNSAFE].sort());
	expect(found.filter((t) => !/charged|live routing|emergency/i.test(t.name)).map((t) => t.name)).toEqual([]);
});
