import type { ResourceSpec } from '../../shared/operation';
import { compact } from '../../shared/params';
import { downloadAudioOperation, getManyOperation, getOneOperation } from './collection';

const SOUNDS = { collection: 'sounds', id: 'soundId', singular: 'sound', plural: 'sounds' };

export const sound: ResourceSpec = {
	value: 'sound',
	name: 'Sound',
	description: 'Greetings, announcements and music on hold',
	operations: [
		downloadAudioOperation(SOUNDS),
		getOneOperation(SOUNDS),
		getManyOperation({
			...SOUNDS,
			description: 'List the customer\'s prompts (greetings, announcements) and music on hold',
			fields: [
				{
					displayName: 'Type',
					name: 'type',
					type: 'options',
					default: '',
					options: [
						{ name: 'All', value: '' },
						{ name: 'Prompt', value: 'prompt', description: 'Greetings and announcements' },
						{ name: 'Music', value: 'music', description: 'Music on hold or in a queue' },
					],
				},
			],
			query: (p) => compact({ type: p.type }),
		}),
	],
};
