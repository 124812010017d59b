/**
 * Writes the operation tables of the docs from the operation specs, between
 * `<!-- operations:start -->` and `<!-- operations:end -->`, so the docs list every operation
 * the nodes have. `npm run docs` rewrites them; the test `test/docs.test.ts` fails when stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { ResourceSpec } from '../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import { nodeModule } from './packageSource';

const { hostedPbxResources } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node')>('nodes/HostedPbx/HostedPbx.node');
const { wholesaleVoiceResources } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node')>('nodes/WholesaleVoice/WholesaleVoice.node');
const { voiceAgentResources } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node')>('nodes/VoiceAgent/VoiceAgent.node');
const { conversationIntelligenceResources } = nodeModule<typeof import('../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node')>(
	'nodes/ConversationIntelligence/ConversationIntelligence.node',
);

export const OPERATION_DOCS: Array<{ file: string; resources: ResourceSpec[] }> = [
	{ file: 'docs/hosted-pbx.md', resources: hostedPbxResources },
	{ file: 'docs/wholesale-voice.md', resources: wholesaleVoiceResources },
	{ file: 'docs/voice-agent.md', resources: voiceAgentResources },
	{ file: 'docs/conversation-intelligence.md', resources: conversationIntelligenceResources },
];

const START = '<!-- operations:start -->';
const END = '<!-- operations:end -->';

/** The Output column: the reads that offer the choice (what each holds is in the page's Output section). */
const OUTPUT_CHOICE = 'Simplified (default), Raw, Selected Fields';

export function operationTable(resources: ResourceSpec[]): string {
	const rows = [...resources]
		.sort((a, b) => a.name.localeCompare(b.name))
		.flatMap((resource) =>
			resource.operations.map(
				(op) =>
					`| ${resource.name} | ${op.name} | ${op.description.replace(/\|/g, '\\|')}${op.paging ? ' (Return All / Limit)' : ''} | ${op.shape ? OUTPUT_CHOICE : ''} |`,
			),
		);
	return ['| Resource | Operation | What it does | Output |', '|---|---|---|---|', ...rows].join('\n');
}

export function withTable(text: string, resources: ResourceSpec[]): string {
	const start = text.indexOf(START);
	const end = text.indexOf(END);
	if (start < 0 || end < start) throw new Error('the page has no operations markers');
	return `${text.slice(0, start + START.length)}\n${operationTable(resources)}\n${text.slice(end)}`;
}

if (require.main === module) {
	const root = join(__dirname, '..');
	for (const { file, resources } of OPERATION_DOCS) {
		const path = join(root, file);
		writeFileSync(path, withTable(readFileSync(path, 'utf8'), resources));
		process.stdout.write(`updated ${file}\n`);
	}
}
