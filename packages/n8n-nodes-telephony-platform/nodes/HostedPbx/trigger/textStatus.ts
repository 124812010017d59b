import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { numericField, shownFor } from '../../shared/fields';
import { createdAt } from '../records';

/**
 * Text Status Changed: the pushed delivery receipt names no message, so each poll re-reads a window of sent
 * messages and emits each once when it fails or its status turns final, or as "no final status" when it
 * leaves the window without one.
 */

export const OUTCOMES = {
	failed: 'Failed to Send',
	delivered: 'Delivered',
	rejectedByHandset: 'Rejected by Handset',
	rejectedByCarrier: 'Rejected by Carrier',
	noFinalStatus: 'No Final Status in Time',
} as const;
export type Outcome = keyof typeof OUTCOMES;

/** The spec's delivery statuses in words; 1, 2 and 16 are final. */
export const DELIVERY_STATUSES: Record<number, string> = {
	1: 'delivered to handset',
	2: 'rejected from handset',
	4: 'buffered in transit',
	8: 'accepted by SMS carrier',
	16: 'rejected by SMS carrier',
};
const FINAL: Record<number, Outcome> = {
	1: 'delivered',
	2: 'rejectedByHandset',
	16: 'rejectedByCarrier',
};

/** Messages known at most; beyond it the oldest are forgotten (a window of a very busy account). */
const MAX_KNOWN = 5000;

export const textOutcomesField: INodeProperties = {
	displayName: 'Text Outcomes',
	name: 'textOutcomes',
	type: 'multiOptions',
	default: ['failed', 'rejectedByHandset', 'rejectedByCarrier', 'noFinalStatus'],
	description: 'Which outcomes of a sent SMS start the workflow (each message at most once)',
	options: Object.entries(OUTCOMES).map(([value, name]) => ({ name, value })),
	displayOptions: { show: { events: ['textStatus'] } },
};

// Receipts come within minutes; an hour keeps a poll to one request for up to 200 texts an hour.
export const statusWindowOption = numericField(
	'Text Status Window (Minutes)',
	'statusWindowMinutes',
	60,
	{ minValue: 5, maxValue: 1440 },
	{
		description:
			'How long after sending a text is watched for its final status (5 to 1,440); one still open then is "no final status"',
		...shownFor('/events', 'textStatus'),
	},
);

/** Per message id: its created time, and while it is open the last record seen (for the "no final status" item). */
export type TextState = Record<string, { created: number; open?: IDataObject }>;

/** The final outcome of an outgoing message, if it has one. */
export function outcomeOf(record: IDataObject): Outcome | undefined {
	if (record.sendStatus === 'FAILED') return 'failed';
	return FINAL[Number(record.deliveryStatus)];
}

export function textStatusItem(record: IDataObject, outcome: Outcome): IDataObject {
	const status =
		record.deliveryStatus === undefined || record.deliveryStatus === null
			? null
			: Number(record.deliveryStatus);
	return {
		event: 'textStatus',
		outcome,
		outcomeText: OUTCOMES[outcome],
		id: record.id ?? null,
		to: record.to ?? null,
		from: record.from ?? null,
		body: record.body ?? null,
		sendStatus: record.sendStatus ?? null,
		deliveryStatus: status,
		deliveryStatusText: status === null ? null : (DELIVERY_STATUSES[status] ?? 'unknown'),
		cost: record.cost ?? null,
		created: record.created ?? null,
	};
}

/** One poll's changes in the messages of the window; the first poll (`known` undefined) emits nothing: what is final is history. */
export function textChanges(
	known: TextState | undefined,
	read: IDataObject[],
	windowMs: number,
	now: number,
	chosen: string[],
) {
	const state: TextState = { ...(known ?? {}) };
	const items: IDataObject[] = [];
	const emit = (record: IDataObject, outcome: Outcome) =>
		chosen.includes(outcome) && items.push(textStatusItem(record, outcome));
	const floor = now - windowMs;
	for (const record of read) {
		const id = record.id === undefined || record.id === null ? '' : String(record.id);
		const created = createdAt(record);
		const entry = state[id];
		// Not watched: not a sent message, never seen within the window, or decided already.
		if (
			record.direction !== 'OUT' ||
			id === '' ||
			(!entry && created <= floor) ||
			(entry && !entry.open)
		)
			continue;
		const outcome = outcomeOf(record);
		if (outcome && known) emit(record, outcome);
		state[id] = outcome ? { created } : { created, open: record };
	}
	for (const [id, entry] of Object.entries(state)) {
		if (entry.created > floor) continue;
		if (entry.open) emit(entry.open, 'noFinalStatus');
		delete state[id];
	}
	const ids = Object.keys(state);
	for (const id of ids.slice(0, Math.max(0, ids.length - MAX_KNOWN))) delete state[id];
	return { items, state };
}
