import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { wholesaleVoiceApi } from '../../shared/apis';
import { FileOutput } from '../../shared/operation';
import { wait } from '../../shared/timers';
import { createClient } from '../../shared/transport/client';
import { awaitReportFile, goneError, reportOutput } from '../reports';

/**
 * The report-ready callback, collected inside the execution (on a worker in queue mode) with the action node's report
 * code: the rows, the raw file as binary on request, or, when anything goes wrong, the handle with the reason, never nothing.
 */

/** The callback says the file is ready; a 204 now is a race worth a short wait, not five minutes. */
export const COLLECT_MAX_WAIT_MS = 30_000;

export interface CollectOptions {
	includeRawFile: boolean;
	binaryPropertyName: string;
	maxWaitMs?: number;
	/** Replaced in tests. */
	wait?: (ms: number) => Promise<void>;
}

function failed(
	handle: IDataObject,
	itemIndex: number,
	reason: string,
	description?: string | null,
): INodeExecutionData[] {
	return [
		{
			json: {
				...handle,
				collected: false,
				error: reason,
				...(description ? { errorDescription: description } : {}),
			},
			pairedItem: { item: itemIndex },
		},
	];
}

export async function collectReadyReport(
	node: IExecuteFunctions,
	handle: IDataObject,
	itemIndex: number,
	options: CollectOptions,
): Promise<INodeExecutionData[]> {
	const hash = String(handle.hash ?? handle.id ?? '').trim();
	if (!/^[0-9a-f]{32}$/i.test(hash)) {
		return failed(
			handle,
			itemIndex,
			`The report-ready callback carried no report hash (32 hexadecimal characters): ${JSON.stringify(handle.id ?? null)}`,
		);
	}
	const pause = options.wait ?? wait;
	const maxWaitMs = options.maxWaitMs ?? COLLECT_MAX_WAIT_MS;
	try {
		const client = createClient(node, wholesaleVoiceApi, { itemIndex });
		const file = await awaitReportFile(client, hash, maxWaitMs, pause);
		if (file === 'gone') {
			const gone = goneError({ node, itemIndex }, hash);
			return failed(handle, itemIndex, gone.message, gone.description);
		}
		if (file === 'timeout') {
			const reason = `Report ${hash} was still running ${Math.round(maxWaitMs / 1000)} s after its ready callback`;
			return failed(
				handle,
				itemIndex,
				reason,
				`It stays collectable for five minutes once ready: use Wholesale Voice > Report > Get File with hash ${hash}.`,
			);
		}
		const out: INodeExecutionData[] = [];
		for (const entry of reportOutput(hash, file.content, file.contentType, options, handle)) {
			if (!(entry instanceof FileOutput))
				out.push({ json: entry, pairedItem: { item: itemIndex } });
			else {
				const binary = await node.helpers.prepareBinaryData(
					entry.data,
					entry.fileName,
					entry.mimeType,
				);
				out.push({
					json: entry.json,
					binary: { [options.binaryPropertyName || 'data']: binary },
					pairedItem: { item: itemIndex },
				});
			}
		}
		return out;
	} catch (error) {
		const { message, description } = error as Error & { description?: string | null };
		return failed(handle, itemIndex, message, description);
	}
}
