import type {
	IDataObject,
	INodeExecutionData,
	INodeProperties,
	IPollFunctions,
} from 'n8n-workflow';

import { booleanField, textField } from '../../shared/fields';
import type { ApiClient } from '../../shared/operation';
import { collectList } from '../../shared/pagination';
import { audioFile, audioRequest } from '../actions/collection';
import { customerPath } from '../fields';
import { pbxRecords } from '../records';
import { withParties } from './events';

/** New Recording's extras, off by default as each costs a request per recording; a failed extra is said in the item, never drops it. */

const show = { show: { '/events': ['newRecording'] } };

export const recordingOptions: INodeProperties[] = [
	booleanField(
		'Include Call Details',
		'includeCallDetails',
		'Whether to add the call the recording belongs to, found in the call history around its start (one request per recording)',
		{ displayOptions: show },
	),
	booleanField(
		'Download Audio',
		'downloadAudio',
		'Whether to attach the recording as a WAV file (binary data; one request per recording, up to the download limit)',
		{ displayOptions: show },
	),
	textField('Put Audio in Field', 'audioProperty', 'The binary field that holds the WAV file', {
		default: 'data',
		displayOptions: { show: { '/events': ['newRecording'], downloadAudio: [true] } },
	}),
];

/** How far from the recording's start the call may have started, either way. */
const CALL_SEARCH_MS = 10 * 60_000;

const RECORDING = {
	collection: 'recordings',
	id: 'recordingId',
	singular: 'recording',
	plural: 'recordings',
};

/** The call of a recording: its call leg, else a call of the same linked call, started around the recording's start. */
async function callOf(
	client: ApiClient,
	customer: string,
	recording: IDataObject,
): Promise<IDataObject | undefined> {
	const started = Date.parse(String(recording.started ?? ''));
	if (Number.isNaN(started))
		throw new Error(
			`the recording has no start time to look its call up by (${JSON.stringify(recording.started ?? null)})`,
		);
	const window = {
		startedAfter: new Date(started - CALL_SEARCH_MS).toISOString(),
		startedBefore: new Date(started + CALL_SEARCH_MS).toISOString(),
	};
	const calls = await collectList(
		client,
		'pbx',
		{ method: 'GET', ...customerPath({ customerId: customer }, '/calls'), qs: window },
		1000,
		pbxRecords,
	);
	return (
		calls.find((call) => recording.callId && call.callId === recording.callId) ??
		calls.find((call) => recording.linkedId && call.linkedId === recording.linkedId)
	);
}

/** A new recording as the item it gives, with the extras the options ask for. */
export async function recordingItem(
	context: IPollFunctions,
	client: ApiClient,
	customer: string,
	recording: IDataObject,
): Promise<INodeExecutionData> {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const json: IDataObject = { event: 'newRecording', ...recording };
	const item: INodeExecutionData = { json };
	if (options.includeCallDetails === true) {
		try {
			const call = await callOf(client, customer, recording);
			json.call = call ? withParties(call) : null;
			if (!call)
				json.callError =
					'No call with this call or linked ID started within 10 minutes of the recording';
		} catch (error) {
			json.call = null;
			json.callError = (error as Error).message;
		}
	}
	if (options.downloadAudio === true) {
		try {
			const id = String(recording.id ?? '');
			const file = audioFile(
				await client.request(audioRequest(RECORDING, { customerId: customer, recordingId: id })),
				'recording',
				id,
			);
			const binary = await context.helpers.prepareBinaryData(
				file.data,
				file.fileName,
				file.mimeType,
			);
			item.binary = { [String(options.audioProperty || 'data')]: binary };
		} catch (error) {
			json.audioError = (error as Error).message;
		}
	}
	return item;
}
