import type {
	IDataObject,
	INodeExecutionData,
	INodeProperties,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { hostedPbxApi } from '../../shared/apis';
import { asNodeError } from '../../shared/errors';
import { numericField } from '../../shared/fields';
import type { ApiClient } from '../../shared/operation';
import type { Trigger } from '../../shared/triggers/lifecycle';
import { numericSettings, refusalMessage } from '../../shared/triggers/lifecycle';
import { budgetLow, credentialFingerprint } from '../../shared/transport/rateBudget';
import { clock } from '../../shared/timers';
import { createClient } from '../../shared/transport/client';
import { createdAt } from '../records';
import type { CreditState } from './credit';
import { creditChange, creditItem, creditThresholdField, readCredit } from './credit';
import type { NewRecordEvent, PolledEvent, PolledList } from './events';
import { polledItem } from './events';
import type { PollCursor } from './history';
import { advanceCursor, cursorFloor, primedCursor, recordsAfter } from './history';
import { REFUSED_DESCRIPTION } from './live';
import { recordingItem } from './recordings';
import type { TextState } from './textStatus';
import { outcomeOf, textChanges, textStatusItem } from './textStatus';

/** A test run of polled events shows the newest record of this many days. */
const MANUAL_LOOKBACK_MS = 30 * 86_400_000;

/** The polling cursor's look-back window. */
export function lookbackOption(displayOptions: INodeProperties['displayOptions']): INodeProperties {
	// Every poll re-reads the window: a day is as late as a record may appear and still be read cheaply.
	return numericField(
		'Look-Back Window (Minutes)',
		'lookbackMinutes',
		10,
		{ minValue: 1, maxValue: 1440 },
		{
			description:
				'Records that appear up to this late, or share a timestamp, are still emitted exactly once (1 to 1,440)',
			displayOptions,
		},
	);
}

/** What a poll keeps in the node's static data: a cursor per list, Text Status Changed's messages, Credit Low's state. */
interface PollState {
	cursors: Record<string, PollCursor>;
	texts?: { customer: string; messages: TextState };
	credit?: CreditState;
	at: number;
}

export interface PollSettings {
	events: PolledEvent[];
	customer: string;
	/** The options these events read, declared once by the node. */
	lookback: INodeProperties;
	statusWindow: INodeProperties;
}

const isNewRecord = (event: PolledEvent): event is NewRecordEvent => event.kind === 'newRecord';

/** What one poll reads from a list: the new-record events drawn from it, and whether Text Status Changed reads it too. */
interface ListRead {
	list: PolledList;
	events: NewRecordEvent[];
	texts: boolean;
	/** The server-side filter, when every event of the list asks for the same one. */
	query: IDataObject;
	/** A changed customer or server-side filter starts the cursor afresh (nothing replayed). */
	cursorKey: string;
}

function listReads(settings: PollSettings, filters: IDataObject): ListRead[] {
	const lists = [
		...new Set(
			settings.events
				.filter((event) => event.source !== 'creditstatus')
				.map((event) => event.source as PolledList),
		),
	];
	return lists.map((list) => {
		const events = settings.events.filter(isNewRecord).filter((event) => event.source === list);
		const queries = new Set(events.map((event) => JSON.stringify(event.query(filters))));
		const query = queries.size === 1 ? (JSON.parse([...queries][0]) as IDataObject) : {};
		const texts = settings.events.some(
			(event) => event.kind === 'textStatus' && event.source === list,
		);
		return {
			list,
			events,
			texts,
			query,
			cursorKey: JSON.stringify({ collection: list, customer: settings.customer, query }),
		};
	});
}

/** The numeric options of the chosen polled events, checked before anything is sent (in test runs too). */
function windows(context: IPollFunctions, settings: PollSettings) {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const node = context.getNode();
	const lookbackMs = numericSettings(node, [settings.lookback], options).lookbackMinutes * 60_000;
	const texts = settings.events.some((event) => event.kind === 'textStatus');
	const statusWindowMs = texts
		? numericSettings(node, [settings.statusWindow], options).statusWindowMinutes * 60_000
		: 0;
	const credit = settings.events.some((event) => event.kind === 'creditLow');
	const threshold = credit
		? numericSettings(node, [creditThresholdField], {
				creditThreshold: context.getNodeParameter('creditThreshold', 5),
			}).creditThreshold
		: 0;
	return { lookbackMs, statusWindowMs, threshold };
}

/** One poll at n8n's Poll Time: what is new or changed for every polled event, each once. */
export async function pollEvents(
	context: IPollFunctions,
	trigger: Trigger,
	settings: PollSettings,
): Promise<INodeExecutionData[][] | null> {
	const { lookbackMs, statusWindowMs, threshold } = windows(context, settings);
	// The refusal gate is shared with the live stream of the same node: while it holds, a poll sends nothing.
	const fingerprint = credentialFingerprint(await context.getCredentials('hostedPbxApi'));
	if (trigger.pendingRefusal(fingerprint)) return null;
	if (budgetSpent(context, trigger, fingerprint)) return null;
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const chosenOutcomes = context.getNodeParameter('textOutcomes', []) as string[];
	const client = createClient(context, hostedPbxApi);
	const staticData = context.getWorkflowStaticData('node');
	const known = trigger.load<PollState>(staticData, 'poll', (state) => state.at);
	const now = clock.now();
	const next: PollState = { cursors: {}, at: now };
	const items: INodeExecutionData[] = [];
	try {
		for (const read of listReads(settings, filters)) {
			const cursor =
				known?.cursors[read.list]?.key === read.cursorKey ? known.cursors[read.list] : undefined;
			const floors = [
				...(read.events.length ? [cursorFloor(cursor, lookbackMs, now)] : []),
				...(read.texts ? [now - statusWindowMs] : []),
			];
			const records = await recordsAfter(
				client,
				settings.customer,
				{ collection: read.list, query: read.query },
				Math.min(...floors),
			);
			if (read.events.length) {
				// The first poll (at activation) marks what exists as seen.
				const advanced = cursor
					? advanceCursor(cursor, records, lookbackMs)
					: { fresh: [], cursor: primedCursor(records, read.cursorKey, now) };
				next.cursors[read.list] = advanced.cursor;
				items.push(
					...(await newRecordItems(
						context,
						client,
						settings.customer,
						read.events,
						advanced.fresh,
						filters,
					)),
				);
			}
			if (read.texts) {
				const previous =
					known?.texts?.customer === settings.customer ? known.texts.messages : undefined;
				const changes = textChanges(previous, records, statusWindowMs, now, chosenOutcomes);
				next.texts = { customer: settings.customer, messages: changes.state };
				items.push(...changes.items.map((json) => ({ json })));
			}
		}
		if (settings.events.some((event) => event.kind === 'creditLow')) {
			const change = creditChange(
				known?.credit,
				await readCredit(client, settings.customer),
				threshold,
				now,
			);
			next.credit = change.state;
			if (change.item) items.push({ json: change.item });
		}
	} catch (error) {
		throw pollFailure(context, trigger, error as Error, fingerprint);
	}
	trigger.recovered();
	trigger.save(staticData, 'poll', next);
	return items.length ? [items] : null;
}

/** Whether the hour's request budget is nearly spent: polls then wait, leaving the rest to action nodes. */
function budgetSpent(context: IPollFunctions, trigger: Trigger, fingerprint: string): boolean {
	const budget = budgetLow(fingerprint);
	if (!budget) return false;
	const { write } = trigger.warningDue('budget');
	if (write)
		context.logger.info(
			`Hosted PBX Trigger: ${budget.remaining} of ${budget.limit} requests left in this hour's window; polls wait until it resets (${new Date(budget.resetAt).toISOString()}), leaving the rest to action nodes`,
		);
	return true;
}

async function newRecordItems(
	context: IPollFunctions,
	client: ApiClient,
	customer: string,
	events: NewRecordEvent[],
	records: IDataObject[],
	filters: IDataObject,
): Promise<INodeExecutionData[]> {
	const items: INodeExecutionData[] = [];
	for (const record of records) {
		for (const event of events.filter((candidate) => candidate.matches(record, filters))) {
			items.push(
				event.value === 'newRecording'
					? await recordingItem(context, client, customer, record)
					: { json: polledItem(event.value, record) },
			);
		}
	}
	return items;
}

/** A refusal closes the gate shared with the live stream and says when the next attempt is; other errors pass. */
function pollFailure(
	context: IPollFunctions,
	trigger: Trigger,
	error: Error,
	fingerprint: string,
): NodeApiError | NodeOperationError {
	const status = Number((error as NodeApiError).httpCode);
	if (status === 401 || status === 403) {
		const refusal = trigger.recordRefusal(status, error.message, fingerprint, true);
		return new NodeApiError(
			context.getNode(),
			{},
			{
				message: refusalMessage(hostedPbxApi.label, refusal),
				description: REFUSED_DESCRIPTION,
				failure: { cause: 'credential-invalid' },
			},
		);
	}
	return asNodeError(context.getNode(), error);
}

/** A test run: the newest record of each polled event within 30 days (the current balance for Credit Low), so that fields can be mapped. */
export async function newestRecords(
	context: IPollFunctions,
	settings: PollSettings,
): Promise<INodeExecutionData[]> {
	const { threshold } = windows(context, settings);
	const client = createClient(context, hostedPbxApi);
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const now = clock.now();
	const items: INodeExecutionData[] = [];
	for (const read of listReads(settings, filters)) {
		const newestFirst = (
			await recordsAfter(
				client,
				settings.customer,
				{ collection: read.list, query: read.query },
				now - MANUAL_LOOKBACK_MS,
			)
		).sort((a, b) => createdAt(b) - createdAt(a));
		for (const event of read.events) {
			const newest = newestFirst.find((record) => event.matches(record, filters));
			if (newest)
				items.push(
					...(await newRecordItems(context, client, settings.customer, [event], [newest], filters)),
				);
		}
		const text = read.texts
			? newestFirst.find((record) => record.direction === 'OUT' && outcomeOf(record))
			: undefined;
		if (text) items.push({ json: textStatusItem(text, outcomeOf(text)!) });
	}
	if (settings.events.some((event) => event.kind === 'creditLow'))
		items.push({ json: creditItem(await readCredit(client, settings.customer), threshold, now) });
	if (items.length === 0) {
		const description = 'Make a test call, send a test SMS or make a recording, then try again.';
		throw new NodeOperationError(
			context.getNode(),
			`No ${settings.events.map((event) => event.value).join(' or ')} record in the last 30 days to show as a test event`,
			{ description },
		);
	}
	return items;
}
