import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { booleanField, textField } from '../shared/fields';
import { SESSION_EVENT_TYPES } from './sessionStream';

/**
 * A session event as a flat item under the API's names, an operator's name, version and granularity and its
 * result's `value`, `tags` or `found` lifted to the top. `stream_event_id` is the message's stream id, the
 * one to resume after (not `event_id`, an operator result's own: resuming after it would replay the session).
 */
export function sessionEventItem(event: IDataObject, streamId: string): IDataObject {
	const { operator, result, ...rest } = event as IDataObject & {
		operator?: IDataObject;
		result?: IDataObject;
	};
	const item: IDataObject = {
		event_id: event.event_id ?? null,
		stream_event_id: streamId || null,
		...rest,
	};
	if (operator && typeof operator === 'object') {
		const granularity = (operator.granularity ?? {}) as IDataObject;
		Object.assign(item, {
			operator_name: operator.name ?? null,
			operator_version: operator.version ?? null,
			granularity_on: granularity.on ?? null,
			granularity_every: granularity.every ?? null,
			granularity_until_match: granularity.until_match ?? null,
		});
	}
	if (result && typeof result === 'object') {
		Object.assign(item, {
			value: result.value ?? null,
			...(result.tags !== undefined ? { tags: result.tags } : {}),
			...(result.found !== undefined ? { found: result.found } : {}),
			result,
		});
	}
	return item;
}

export interface SessionEventFilters {
	eventTypes: string[];
	operatorNames: string[];
	includeInterim: boolean;
}

export function sessionEventMatches(event: IDataObject, filters: SessionEventFilters): boolean {
	const type = String(event.event_type ?? '');
	if (filters.eventTypes.length && !filters.eventTypes.includes(type)) return false;
	if (type === 'transcript_utterance' && event.is_final === false && !filters.includeInterim)
		return false;
	if ((type === 'operator_result' || type === 'operator_error') && filters.operatorNames.length) {
		return filters.operatorNames.includes(
			String((event.operator as IDataObject | undefined)?.name ?? ''),
		);
	}
	return true;
}

export function operatorNameList(value: unknown): string[] {
	return String(value ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
}

export function filtersFrom(parameters: IDataObject): SessionEventFilters {
	return {
		eventTypes: (parameters.eventTypes as string[] | undefined) ?? [...SESSION_EVENT_TYPES],
		operatorNames: operatorNameList(parameters.operatorNames),
		includeInterim: Boolean(parameters.includeInterim),
	};
}

/** The filters the trigger and the Watch Events operation share. */
export const sessionFilterFields: INodeProperties[] = [
	{
		displayName: 'Events',
		name: 'eventTypes',
		type: 'multiOptions',
		default: [
			'session_started',
			'operator_result',
			'operator_error',
			'transcript_utterance',
			'session_ended',
		],
		options: [
			{
				name: 'Operator Error',
				action: 'On operator error',
				value: 'operator_error',
				description: 'An operator failed to produce a result',
			},
			{
				name: 'Operator Result',
				action: 'On operator result',
				value: 'operator_result',
				description: 'An analysis operator produced a result',
			},
			{
				name: 'Session Ended',
				action: 'On session ended',
				value: 'session_ended',
				description: 'The call ended; the stream closes',
			},
			{ name: 'Session Started', action: 'On session started', value: 'session_started' },
			{
				name: 'Transcript Utterance',
				action: 'On transcript utterance',
				value: 'transcript_utterance',
				description: 'Live transcript, when the session has transcript events on',
			},
		],
	},
	textField(
		'Operator Names',
		'operatorNames',
		'Only results and errors of these operators (comma-separated); all when empty',
		{ placeholder: 'e.g. churn_risk, refund_requested' },
	),
	booleanField(
		'Include Interim Transcripts',
		'includeInterim',
		'Whether to also emit interim transcript hypotheses; by default only final utterances',
	),
];
