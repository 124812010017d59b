import { optionsField } from '../../shared/fields';
import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { plain } from '../../shared/outputShape';
import { compact } from '../../shared/params';
import { downloadAudioOperation, getManyOperation, getOneOperation } from './collection';

/** A sound as Simplified shows it: its name, whether it is a prompt or music, and (music) whether it plays. */
export const soundShape: OutputShape = {
	fields: ['created', 'enabled', 'name', 'size', 'type', 'uri'],
	simplify: (r) => plain({ name: r.name, type: r.type, enabled: r.enabled }),
};

const SOUNDS = {
	collection: 'sounds',
	id: 'soundId',
	singular: 'sound',
	plural: 'sounds',
	shape: soundShape,
};

export const sound: ResourceSpec = {
	value: 'sound',
	name: 'Sound',
	description: 'Greetings, announcements and music on hold',
	operations: [
		downloadAudioOperation(SOUNDS),
		getOneOperation(SOUNDS),
		getManyOperation({
			...SOUNDS,
			description: "List the customer's prompts (greetings, announcements) and music on hold",
			fields: [
				optionsField('Type', 'type', '', [
					['All', ''],
					['Prompt', 'prompt', 'Greetings and announcements'],
					['Music', 'music', 'Music on hold or in a queue'],
				]),
			],
			query: (p) => compact({ type: p.type }),
		}),
	],
};
