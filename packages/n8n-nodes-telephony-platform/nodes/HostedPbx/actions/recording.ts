import type { IDataObject } from 'n8n-workflow';

import { filtersField, textField } from '../../shared/fields';
import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { plain, utcTime } from '../../shared/outputShape';
import { compact, idFromUri, isoUtc } from '../../shared/params';
import { customerField, idFieldOf, recordPath } from '../fields';
import { downloadAudioOperation, getManyOperation, getOneOperation } from './collection';

/** A recording as Simplified shows it: direction, the recorded party, when, the call legs, the endpoint. */
export const recordingShape: OutputShape = {
	fields: [
		'callId',
		'created',
		'direction',
		'endpoint',
		'linkedId',
		'partyId',
		'size',
		'started',
		'type',
		'uri',
	],
	simplify: (r) =>
		plain({
			direction: r.direction,
			party: r.partyId,
			started: utcTime(r.started),
			callId: r.callId,
			linkedId: r.linkedId,
			endpointId: typeof r.endpoint === 'string' ? idFromUri(r.endpoint) : undefined,
		}),
};

const RECORDINGS = {
	collection: 'recordings',
	id: 'recordingId',
	singular: 'recording',
	plural: 'call recordings',
	shape: recordingShape,
};

const DATE_FILTERS = ['createdAfter', 'createdBefore', 'startedAfter', 'startedBefore'];

export const recording: ResourceSpec = {
	value: 'recording',
	name: 'Recording',
	description: 'Call recordings and their audio',
	operations: [
		{
			value: 'createDownloadLink',
			name: 'Create Download Link',
			action: 'Create a one-time download link for a recording',
			description:
				'Make a link that downloads the recording once without credentials, for a browser or a CRM. The link works a single time.',
			fields: [customerField, idFieldOf(RECORDINGS)],
			// Two calls: a single-use token from the token generator, then the link that carries it.
			run: async ({ client, environment }, p) => {
				// The link is built (and its ids checked) before a single-use token is spent on it.
				const { path, pathParams } = recordPath(RECORDINGS, p);
				const link = `${environment.absoluteUrl(path, pathParams)}.wav`;
				const token = (
					await client.request<IDataObject>({ method: 'GET', path: '/tokengenerator' })
				).body;
				if (typeof token?.id !== 'string' || token.id.trim() === '') {
					throw new Error('The token generator answered without a token id; no link was made');
				}
				const url = `${link}?tokenid=${encodeURIComponent(token.id)}`;
				return {
					recordingId: String(p.recordingId),
					url,
					singleUse: true,
					tokenCreated: token.created,
					tokenExpires: token.expires,
				};
			},
		},
		downloadAudioOperation(RECORDINGS),
		getOneOperation(RECORDINGS),
		getManyOperation({
			...RECORDINGS,
			description:
				'List call recordings, filtered by time, by one call leg (call ID) or by a whole call (linked ID)',
			fields: [
				filtersField([
					textField('Call ID', 'callId', 'Only recordings of this call leg'),
					{ displayName: 'Created After', name: 'createdAfter', type: 'dateTime', default: '' },
					{ displayName: 'Created Before', name: 'createdBefore', type: 'dateTime', default: '' },
					textField(
						'Linked ID',
						'linkedId',
						'Only recordings of every leg of this call (the linkedId of a call record)',
					),
					{ displayName: 'Started After', name: 'startedAfter', type: 'dateTime', default: '' },
					{ displayName: 'Started Before', name: 'startedBefore', type: 'dateTime', default: '' },
				]),
			],
			query: (p) => {
				const f = (p.filters as IDataObject | undefined) ?? {};
				const query: IDataObject = { callId: f.callId, linkedId: f.linkedId };
				for (const name of DATE_FILTERS) query[name] = isoUtc(f[name]);
				return compact(query);
			},
		}),
	],
};
