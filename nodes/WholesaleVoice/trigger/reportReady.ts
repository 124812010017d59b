import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { wholesaleVoiceApi } from '../../shared/apis';
import type { OperationContext } from '../../shared/operation';
import { FileOutput } from '../../shared/operation';
import { collectList } from '../../shared/pagination';
import { clock, wait } from '../../shared/timers';
import { createClient } from '../../shared/transport/client';
import { fetchReportFile, goneError, pollDelay, reportOutput } from '../reports';

/**
 * The report-ready callback, collected. The webhook answers the platform at once and emits the
 * handle; this runs inside the execution (on a worker in queue mode), where the one retrieval
 * the platform allows is made with the action node's own report code: the file's rows, the raw
 * file as binary on request, or, when anything goes wrong, the handle with the reason, never
 * nothing.
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

function failed(handle: IDataObject, itemIndex: number, reason: string, description?: string | null): INodeExecutionData[] {
	return [{ json: { ...handle, collected: false, error: reason, ...(description ? { errorDescription: description } : {}) }, pairedItem: { item: itemIndex } }];
}

export async function collectReadyReport(
	node: IExecuteFunctions,
	handle: IDataObject,
	itemIndex: number,
	options: CollectOptions,
): Promise<INodeExecutionData[]> {
	const hash = String(handle.hash ?? handle.id ?? '').trim();
	if (!/^[0-9a-f]{32}$/i.test(hash)) {
		return failed(handle, itemIndex, `The report-ready callback carried no report hash (32 hexadecimal characters): ${JSON.stringify(handle.id ?? null)}`);
	}
	const pause = options.wait ?? (async (ms: number) => await wait(ms));
	try {
		const client = createClient(node, wholesaleVoiceApi, { itemIndex });
		const context: OperationContext = {
			client,
			environment: await client.environment(),
			node,
			itemIndex,
			sleep: pause,
			list: async (request, limit) => await collectList(client, 'client', request, limit),
		};
		const deadline = clock.now() + (options.maxWaitMs ?? COLLECT_MAX_WAIT_MS);
		for (let attempt = 0; ; attempt++) {
			const file = await fetchReportFile(client, hash);
			if ('gone' in file) {
				const gone = goneError(context, hash);
				return failed(handle, itemIndex, gone.message, gone.description);
			}
			if (file.ready) {
				const out: INodeExecutionData[] = [];
				for (const entry of reportOutput(hash, file.content, file.contentType, options, handle)) {
					if (!(entry instanceof FileOutput)) {
						out.push({ json: entry, pairedItem: { item: itemIndex } });
						continue;
					}
					const binary = await node.helpers.prepareBinaryData(entry.data, entry.fileName, entry.mimeType);
					out.push({ json: entry.json, binary: { [options.binaryPropertyName || 'data']: binary }, pairedItem: { item: itemIndex } });
				}
				return out;
			}
			const delay = pollDelay(attempt);
			if (clock.now() + delay > deadline) {
				return failed(
					handle,
					itemIndex,
					`Report ${hash} was still running ${Math.round((options.maxWaitMs ?? COLLECT_MAX_WAIT_MS) / 1000)} s after its ready callback`,
					`It stays collectable for five minutes once ready: use Wholesale Voice > Report > Get File with hash ${hash}.`,
				);
			}
			await pause(delay);
		}
	} catch (error) {
		const { message, description } = error as Error & { description?: string | null };
		return failed(handle, itemIndex, message, description);
	}
}
