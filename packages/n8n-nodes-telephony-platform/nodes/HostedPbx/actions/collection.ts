import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { binaryPropertyField } from '../../shared/describe';
import type {
	ApiRequest,
	ApiResponse,
	BodyStream,
	OperationSpec,
	OutputShape,
	Params,
} from '../../shared/operation';
import { FileOutput } from '../../shared/operation';
import { withArticle } from '../../shared/params';
import type { CollectionOptions } from '../fields';
import { customerField, customerPath, idFieldOf, recordPath } from '../fields';
import { pbxOutput, withIdBeside } from '../records';

/** The operations most Hosted PBX collections share: Get Many, Get, Download Audio. */

/** A collection whose records are read: its shape is the Output choice of its Get and Get Many. */
type ReadCollection = CollectionOptions & { shape: OutputShape };

/** Get Many of a customer's collection: Return All / Limit over the PBX list wrapper, with optional filters. */
export function getManyOperation(
	options: ReadCollection & {
		fields?: INodeProperties[];
		query?: (params: Params) => IDataObject;
		validate?: OperationSpec['validate'];
		description?: string;
	},
): OperationSpec {
	return {
		value: 'getAll',
		name: 'Get Many',
		action: `Get many ${options.plural}`,
		description:
			options.description ??
			`List the customer's ${options.plural}, newest pages followed as needed`,
		fields: [customerField, ...(options.fields ?? [])],
		paging: 'pbx',
		validate: options.validate,
		request: (p) => ({
			method: 'GET',
			...customerPath(p, `/${options.collection}`),
			qs: options.query?.(p),
		}),
		output: pbxOutput(`Get many ${options.plural}`, 'any', withIdBeside),
		shape: options.shape,
	};
}

export function getOneOperation(options: ReadCollection): OperationSpec {
	return {
		value: 'get',
		name: 'Get',
		action: `Get ${withArticle(options.singular)}`,
		description: `Get one ${options.singular} by its ID`,
		fields: [customerField, idFieldOf(options)],
		request: (p) => ({ method: 'GET', ...recordPath(options, p) }),
		output: pbxOutput(`Get ${withArticle(options.singular)}`, 'record', withIdBeside),
		shape: options.shape,
	};
}

/** Download Audio of a sound or recording: the WAV file as binary data named after the record. */
export function downloadAudioOperation(options: CollectionOptions): OperationSpec {
	return {
		value: 'download',
		name: 'Download Audio',
		action: `Download the audio of ${withArticle(options.singular)}`,
		description: `Download ${withArticle(options.singular)} as a WAV file (binary data)`,
		fields: [customerField, idFieldOf(options), binaryPropertyField],
		request: (p) => audioRequest(options, p),
		output: (response, p) => audioFile(response, options.singular, String(p[options.id]).trim()),
	};
}

/** The request for the audio of a sound or recording: the WAV streamed, never held whole. */
export function audioRequest(options: CollectionOptions, params: Params): ApiRequest {
	return {
		method: 'GET',
		...recordPath(options, params),
		accept: 'audio/wav',
		responseType: 'stream',
	};
}

/** The audio answer as a file named after the record; an answer that is not audio is an error. */
export function audioFile(response: ApiResponse, singular: string, id: string): FileOutput {
	const data = response.body as BodyStream;
	const type = response.headers['content-type'] ?? '';
	if (/json|text\//i.test(type)) {
		(data as { destroy?: () => void }).destroy?.();
		throw new Error(
			`The Hosted PBX API answered with ${type} instead of audio for ${singular} ${id}`,
		);
	}
	const fileName = `${singular.replace(/\s+/g, '-')}-${id}.wav`;
	const mimeType = /^audio\//i.test(type) ? type.split(';')[0].trim() : 'audio/wav';
	return new FileOutput({ id, fileName, mimeType }, data, fileName, mimeType);
}
