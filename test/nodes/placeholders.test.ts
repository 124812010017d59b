import type { INodeProperties, INodePropertyMode, INodeType } from 'n8n-workflow';

import { ConversationIntelligence } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import { ConversationIntelligenceTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligenceTrigger.node';
import { HostedPbx } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { HostedPbxTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbxTrigger.node';
import { VoiceAgent } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { VoiceAgentTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgentTrigger.node';
import { WholesaleVoice } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { WholesaleVoiceTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoiceTrigger.node';
import { seedConfigurations } from '../../sandbox/intelligence/seed';
import { seedPbx } from '../../sandbox/pbx/seed';
import { seedWholesale } from '../../sandbox/wholesale/seed';
import { CREDENTIAL_TYPES } from '../harness/n8n';

const NODES: INodeType[] = [
	new HostedPbx(), new HostedPbxTrigger(), new WholesaleVoice(), new WholesaleVoiceTrigger(),
	new VoiceAgent(), new VoiceAgentTrigger(), new ConversationIntelligence(), new ConversationIntelligenceTrigger(),
];

/** Every field with its path, inside collections and fixed collections too. */
function walk(properties: INodeProperties[], where: string): Array<{ path: string; field: INodeProperties }> {
	return properties.flatMap((field) => {
		const path = `${where} › ${field.displayName}`;
		const inner = (field.options ?? []).flatMap((option) => {
			if ('values' in option && Array.isArray(option.values)) return walk(option.values, `${path} › ${option.displayName}`);
			return 'type' in option && 'name' in option ? walk([option as INodeProperties], path) : [];
		});
		return [{ path, field }, ...inner];
	});
}

/** Every value of the sandbox's seed data, which the demo shows a user: a placeholder holding one looks filled in. */
function values(data: unknown): string[] {
	if (Array.isArray(data)) return data.flatMap(values);
	if (data !== null && typeof data === 'object') return Object.values(data).flatMap(values);
	return typeof data === 'string' || typeof data === 'number' ? [String(data)] : [];
}
const SEEDED = new Set([...values(seedPbx()), ...values(seedWholesale()), ...values(seedConfigurations()), '+447700900123', '447700900123']);
/** The example values of a placeholder: `e.g. 202 or 301` holds 202 and 301. */
const examples = (placeholder: string) => placeholder.replace(/^e\.g\. /, '').split(/, | or /).map((value) => value.trim());

const fields = [
	...NODES.flatMap((node) => walk(node.description.properties, node.description.displayName)),
	...Object.values(CREDENTIAL_TYPES).flatMap((credential) => walk(credential.properties, credential.displayName)),
];

test('the placeholder of every required field reads as an example (n8n: "e.g. …") and holds no value of the demo data', () => {
	const required = fields.filter(({ field }) => field.required && typeof field.placeholder === 'string' && field.placeholder !== '');
	expect(required.length).toBeGreaterThan(20);
	const wrong = required
		.filter(({ field }) => !/^e\.g\. \S/.test(String(field.placeholder)) || examples(String(field.placeholder)).some((value) => SEEDED.has(value)))
		.map(({ path, field }) => `${path}: ${JSON.stringify(field.placeholder)}`);
	expect([...new Set(wrong)]).toEqual([]);
});

test('every typed mode of a resource locator (By ID, By URL, By Name) has an example placeholder ("e.g. …") holding no value of the demo data', () => {
	const modes = fields.flatMap(({ path, field }) =>
		field.type === 'resourceLocator' ? ((field.modes ?? []) as INodePropertyMode[]).filter((mode) => mode.type !== 'list').map((mode) => ({ path: `${path} › ${mode.displayName}`, placeholder: mode.placeholder })) : [],
	);
	expect(modes.length).toBeGreaterThan(10);
	const wrong = modes
		.filter(({ placeholder }) => typeof placeholder !== 'string' || !/^e\.g\. \S/.test(placeholder) || examples(placeholder).some((value) => SEEDED.has(value)))
		.map(({ path, placeholder }) => `${path}: ${JSON.stringify(placeholder)}`);
	expect([...new Set(wrong)]).toEqual([]);
});
