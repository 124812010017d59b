import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../../shared/responseShape';
import { clock } from '../../shared/timers';

interface TranscriptTurn {
	role?: string;
	message?: string;
	time_in_call_secs?: number;
}

/** Beyond this many seconds from 1970 a JavaScript date does not exist (±100,000,000 days). */
const LAST_SECOND = 8.64e12;

function isoFromUnix(seconds: unknown): string | null {
	const value = Number(seconds);
	if (
		seconds === undefined ||
		seconds === null ||
		seconds === '' ||
		!Number.isFinite(value) ||
		Math.abs(value) > LAST_SECOND
	)
		return null;
	return new Date(value * 1000).toISOString();
}

/** Whether a body is a delivery of the service: a JSON object with a string `type` (the contract's wrapper). */
export function isDelivery(body: unknown): body is IDataObject & { type: string } {
	return isRecord(body) && typeof body.type === 'string';
}

export function transcriptText(transcript: unknown): string {
	if (!Array.isArray(transcript)) return '';
	return (transcript as TranscriptTurn[])
		.filter((turn) => turn && typeof turn.message === 'string')
		.map((turn) => `${turn.role ?? 'unknown'}: ${turn.message}`)
		.join('\n');
}

/**
 * A delivery as a flat item under the API's own names: the wrapper's `type` and `timestamp` with an ISO
 * time, then the `data` fields, the completed event's metadata, transcript and analysis lifted to the top.
 */
export function deliveryItem(body: IDataObject, receivedAt = new Date(clock.now())): IDataObject {
	const data = isRecord(body.data) ? body.data : {};
	const base: IDataObject = {
		event_type: body.type ?? null,
		event_time: isoFromUnix(body.timestamp),
		timestamp: body.timestamp ?? null,
		received_at: receivedAt.toISOString(),
	};
	// `data` that is not an object (the contract says it is) is kept as it came, not spread into fields.
	if (body.data !== undefined && body.data !== null && !isRecord(body.data)) base.data = body.data;
	if (body.type !== 'conversation.completed') return { ...base, ...data };

	const { metadata, transcript, analysis, ...rest } = data as {
		metadata?: IDataObject;
		transcript?: unknown;
		analysis?: IDataObject;
	} & IDataObject;
	return {
		...base,
		...rest,
		conversation_id: data.conversation_id ?? null,
		agent_id: data.agent_id ?? null,
		status: data.status ?? null,
		start_time: isoFromUnix(metadata?.start_time_unix_secs),
		start_time_unix_secs: metadata?.start_time_unix_secs ?? null,
		call_duration_secs: metadata?.call_duration_secs ?? null,
		transcript: Array.isArray(transcript) ? (transcript as IDataObject[]) : [],
		transcript_text: transcriptText(transcript),
		transcript_summary: analysis?.transcript_summary ?? null,
		call_successful: analysis?.call_successful ?? null,
		data_collection_results: (analysis?.data_collection_results as IDataObject | undefined) ?? {},
	};
}
