import type { IDataObject, INodeExecutionData, INodeProperties, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { hostedPbxApi } from '../../shared/apis';
import type { ApiClient } from '../../shared/operation';
import type { Trigger } from '../../shared/triggers/lifecycle';
import { credentialFingerprint, numericSettings, refusalMessage } from '../../shared/triggers/lifecycle';
import { clock } from '../../shared/timers';
import { createClient } from '../../shared/transport';
import { createdAt } from '../records';
import type { PolledEvent } from './events';
import { polledItem } from './events';
import type { PollCursor, PollSource } from './history';
import { pollNewRecords, primeCursor } from './history';
import { REFUSED_DESCRIPTION } from './live';

/** A test run of polled events shows the newest record of this many days. */
const MANUAL_LOOKBACK_MS = 30 * 86_400_000;

/** The polling cursor's look-back window. */
export function lookbackOption(displayOptions: INodeProperties['displayOptions']): INodeProperties {
	return {
		displayName: 'Look-Back Window (Minutes)',
		name: 'lookbackMinutes',
		type: 'number',
		default: 10,
		// Every poll re-reads the window: a day is as late as a record may appear and still be read cheaply.
		typeOptions: { minValue: 1, maxValue: 1440 },
		description: 'Records that appear up to this late, or share a timestamp, are still emitted exactly once (1 to 1,440)',
		displayOptions,
	};
}

/** What a poll keeps in the node's static data: a cursor per list read, and when it was written. */
interface PollState {
	cursors: Record<string, PollCursor>;
	at: number;
}

/** One read per list, shared by the events drawn from it (missed calls and finished calls read the call history once). */
interface ListRead {
	source: PollSource;
	events: PolledEvent[];
	/** A changed customer or server-side filter starts afresh (nothing replayed). */
	cursorKey: string;
}

function listReads(events: PolledEvent[], customer: string, filters: IDataObject): ListRead[] {
	const reads = new Map<string, ListRead>();
	for (const event of events) {
		const read = reads.get(event.source);
		if (read) read.events.push(event);
		else reads.set(event.source, { source: { collection: event.source, query: {}, matches: () => true }, events: [event], cursorKey: '' });
	}
	for (const read of reads.values()) {
		// The server filters only when every event of the list asks for the same filter.
		const queries = read.events.map((event) => JSON.stringify(event.query(filters)));
		read.source.query = new Set(queries).size === 1 ? (JSON.parse(queries[0]) as IDataObject) : {};
		read.cursorKey = JSON.stringify({ collection: read.source.collection, customer, query: read.source.query });
	}
	return [...reads.values()];
}

function itemsOf(read: ListRead, records: IDataObject[], filters: IDataObject): IDataObject[] {
	return records.flatMap((record) => read.events.filter((event) => event.matches(record, filters)).map((event) => polledItem(event.value, record)));
}

export interface PollSettings {
	events: PolledEvent[];
	customer: string;
	lookback: INodeProperties;
}

/** One poll at n8n's Poll Time: the new records of every polled event, each once. */
export async function pollEvents(context: IPollFunctions, trigger: Trigger, settings: PollSettings): Promise<INodeExecutionData[][] | null> {
	const lookbackMs = lookbackWindowMs(context, settings.lookback);
	// The refusal gate is shared with the live stream of the same node: while it holds, a poll sends nothing.
	const fingerprint = credentialFingerprint(await context.getCredentials('hostedPbxApi'));
	if (trigger.pendingRefusal(fingerprint)) return null;
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const client = createClient(context, hostedPbxApi);
	const staticData = context.getWorkflowStaticData('node');
	const known = trigger.load<PollState>(staticData, 'poll', (state) => state.at)?.cursors ?? {};
	const cursors: Record<string, PollCursor> = {};
	const items: IDataObject[] = [];
	try {
		for (const read of listReads(settings.events, settings.customer, filters)) {
			const cursor = known[read.source.collection]?.key === read.cursorKey ? known[read.source.collection] : undefined;
			if (!cursor) {
				// The first poll (at activation) marks what exists as seen.
				cursors[read.source.collection] = await primeCursor(client, settings.customer, read.source, read.cursorKey, lookbackMs);
				continue;
			}
			const { fresh, cursor: next } = await pollNewRecords(client, settings.customer, read.source, cursor, lookbackMs);
			cursors[read.source.collection] = next;
			items.push(...itemsOf(read, fresh, filters));
		}
	} catch (error) {
		throw pollFailure(context, trigger, error as Error, fingerprint);
	}
	trigger.recovered();
	trigger.save(staticData, 'poll', { cursors, at: clock.now() });
	return items.length ? [context.helpers.returnJsonArray(items)] : null;
}

/** The Look-Back Window, checked before a poll sends anything (in test runs too). */
export function lookbackWindowMs(context: IPollFunctions, lookback: INodeProperties): number {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	return numericSettings(context.getNode(), [lookback], options).lookbackMinutes * 60_000;
}

/** A refusal closes the gate shared with the live stream and says when the next attempt is; other errors pass. */
function pollFailure(context: IPollFunctions, trigger: Trigger, error: Error, fingerprint: string): NodeApiError | NodeOperationError {
	const status = Number((error as NodeApiError).httpCode);
	if (status === 401 || status === 403) {
		const refusal = trigger.recordRefusal(status, error.message, fingerprint, true);
		return new NodeApiError(context.getNode(), {}, { message: refusalMessage(hostedPbxApi.label, refusal), description: REFUSED_DESCRIPTION });
	}
	return error instanceof NodeApiError || error instanceof NodeOperationError ? error : new NodeOperationError(context.getNode(), error);
}

/** The newest record of each polled event within 30 days, so that fields can be mapped in a test run. */
export async function newestRecords(context: IPollFunctions, settings: PollSettings): Promise<IDataObject[]> {
	lookbackWindowMs(context, settings.lookback);
	const client: ApiClient = createClient(context, hostedPbxApi);
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const items: IDataObject[] = [];
	for (const read of listReads(settings.events, settings.customer, filters)) {
		const month: PollCursor = { since: new Date(clock.now()).toISOString(), seen: [], key: read.cursorKey };
		const { fresh } = await pollNewRecords(client, settings.customer, read.source, month, MANUAL_LOOKBACK_MS);
		const newestFirst = fresh.sort((a, b) => createdAt(b) - createdAt(a));
		for (const event of read.events) {
			const newest = newestFirst.find((record) => event.matches(record, filters));
			if (newest) items.push(polledItem(event.value, newest));
		}
	}
	if (items.length === 0) {
		throw new NodeOperationError(context.getNode(), `No ${settings.events.map((event) => event.value).join(' or ')} record in the last 30 days to show as a test event`, {
			description: 'Make a test call or send a test SMS, then try again.',
		});
	}
	return items;
}
