/** Demo data of the Conversation Intelligence sandbox: configurations and the demo script. */

export type OutputType = 'classification' | 'boolean' | 'score' | 'multi_tag' | 'extraction' | 'text';
export const OUTPUT_TYPES: OutputType[] = ['classification', 'boolean', 'score', 'multi_tag', 'extraction', 'text'];

export interface Granularity {
	/** `turn` (after a speaker turn) or `conversation_end` (once, over the whole transcript). */
	on: 'turn' | 'conversation_end';
	/** Run on every Nth turn; null at conversation_end. */
	every: number | null;
	/** Stop running once the operator has matched (a true boolean, a found extraction). */
	until_match: boolean;
}

export interface OperatorRef {
	name: string;
	version: number;
	current_version: number;
	upgrade_available: boolean;
	output_type: OutputType;
	model_tier: 'fast' | 'standard' | 'advanced';
	granularity: Granularity;
	context_window: number;
	include_prior_results: boolean;
	prior_results_window: number;
	include_operator_results: string[];
	operator_results_window: number;
	parameters: Record<string, unknown>;
}

export interface ConfigurationAction {
	action_id: string;
	type: 'webhook' | 'tag_call' | 'notify';
	enabled: boolean;
	/** Fires when this operator's result matches `when`. */
	operator: string;
	when: Record<string, unknown>;
	target: string;
}

export interface Configuration {
	uuid: string;
	name: string;
	description: string;
	version: number;
	template_id: number;
	is_active: boolean;
	/** `live` (serving sessions), `syncing` (a change is being rolled out), `draft` (not deployed). */
	sync_state: 'live' | 'syncing' | 'draft';
	created_at: string;
	updated_at: string;
	operators: OperatorRef[];
	actions: ConfigurationAction[];
}

export const SUPPORT_CONFIG_UUID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
export const SALES_CONFIG_UUID = '0b1f3c2e-5d4a-4e8b-9c6f-2a7d8e9f1b3c';
export const COLLECTIONS_CONFIG_UUID = 'e4d909c2-90d0-4fb8-8a0b-6f1d2c3b4a59';

const turn = (every = 1, untilMatch = false): Granularity => ({ on: 'turn', every, until_match: untilMatch });
const atEnd: Granularity = { on: 'conversation_end', every: null, until_match: false };

function op(
	name: string,
	outputType: OutputType,
	version: number,
	currentVersion: number,
	granularity: Granularity,
	rest: Partial<OperatorRef> = {},
): OperatorRef {
	return {
		name,
		version,
		current_version: currentVersion,
		upgrade_available: currentVersion > version,
		output_type: outputType,
		model_tier: 'standard',
		granularity,
		context_window: granularity.on === 'conversation_end' ? 0 : 6,
		include_prior_results: false,
		prior_results_window: 0,
		include_operator_results: [],
		operator_results_window: 0,
		parameters: {},
		...rest,
	};
}

export function seedConfigurations(): Configuration[] {
	return [
		{
			uuid: SUPPORT_CONFIG_UUID,
			name: 'Support call QA',
			description: 'Live sentiment, escalation and order tracking for inbound support calls, with a summary at the end.',
			version: 7,
			template_id: 1201,
			is_active: true,
			sync_state: 'live',
			created_at: '2026-01-12T10:15:00Z',
			updated_at: '2026-03-02T16:40:11Z',
			operators: [
				op('sentiment', 'classification', 2, 3, turn(), {
					model_tier: 'fast',
					include_prior_results: true,
					prior_results_window: 3,
					parameters: { labels: ['positive', 'neutral', 'negative'], speaker: 'caller' },
				}),
				op('escalation_requested', 'boolean', 4, 4, turn(1, true), {
					include_operator_results: ['sentiment'],
					operator_results_window: 2,
					parameters: { question: 'Has the caller asked for a manager, a supervisor or a complaint?' },
				}),
				op('customer_satisfaction', 'score', 1, 2, turn(3), {
					context_window: 10,
					include_prior_results: true,
					prior_results_window: 2,
					parameters: { min: 1, max: 5, rubric: '1 = very unhappy, 5 = delighted' },
				}),
				op('topics', 'multi_tag', 3, 3, turn(2), {
					model_tier: 'fast',
					parameters: { tags: ['billing', 'delivery', 'order_status', 'refund', 'technical', 'account'], max_tags: 3 },
				}),
				op('order_number', 'extraction', 1, 2, turn(1, true), {
					model_tier: 'fast',
					context_window: 2,
					parameters: { description: 'The order number the caller gives', pattern: '^\\d{5}$' },
				}),
				op('customer_satisfaction', 'score', 1, 2, atEnd, {
					model_tier: 'advanced',
					include_operator_results: ['sentiment', 'escalation_requested'],
					operator_results_window: 10,
					parameters: { min: 1, max: 5, rubric: '1 = very unhappy, 5 = delighted' },
				}),
				op('call_summary', 'text', 5, 6, atEnd, {
					model_tier: 'advanced',
					include_operator_results: ['topics', 'order_number'],
					operator_results_window: 5,
					parameters: { max_words: 60, style: 'third person, past tense' },
				}),
			],
			actions: [
				{ action_id: 'act_escalation_alert', type: 'notify', enabled: true, operator: 'escalation_requested', when: { value: true }, target: 'support-leads@acme.example' },
				{ action_id: 'act_crm_summary', type: 'webhook', enabled: true, operator: 'call_summary', when: {}, target: 'https://crm.acme.example/hooks/call-summary' },
			],
		},
		{
			uuid: SALES_CONFIG_UUID,
			name: 'Sales discovery',
			description: 'Qualification signals on outbound sales calls.',
			version: 3,
			template_id: 1305,
			is_active: true,
			sync_state: 'live',
			created_at: '2026-02-03T08:00:00Z',
			updated_at: '2026-02-20T12:30:45Z',
			operators: [
				op('buying_intent', 'classification', 2, 2, turn(2), { parameters: { labels: ['none', 'exploring', 'evaluating', 'ready'] } }),
				op('budget_mentioned', 'boolean', 1, 1, turn(1, true), { model_tier: 'fast', parameters: { question: 'Did the prospect mention a budget?' } }),
				op('competitors', 'multi_tag', 1, 1, turn(1), { model_tier: 'fast', parameters: { tags: ['Globex', 'Initech', 'Umbrella'] } }),
				op('next_step', 'text', 2, 2, atEnd, { model_tier: 'advanced', parameters: { max_words: 30 } }),
			],
			actions: [
				{ action_id: 'act_tag_hot', type: 'tag_call', enabled: true, operator: 'buying_intent', when: { value: 'ready' }, target: 'hot-lead' },
			],
		},
		{
			uuid: COLLECTIONS_CONFIG_UUID,
			name: 'Collections compliance',
			description: 'Checks the mandatory disclosures on collections calls. Not deployed yet.',
			version: 1,
			template_id: 1410,
			is_active: false,
			sync_state: 'draft',
			created_at: '2026-03-10T14:05:00Z',
			updated_at: '2026-03-10T14:05:00Z',
			operators: [
				op('mini_miranda_given', 'boolean', 1, 3, turn(1, true), { model_tier: 'advanced', parameters: { question: 'Did the agent state that this is an attempt to collect a debt?' } }),
				op('promise_to_pay', 'extraction', 2, 2, turn(1), { parameters: { description: 'Amount and date the debtor promises to pay' } }),
				op('compliance_score', 'score', 1, 1, atEnd, { model_tier: 'advanced', parameters: { min: 0, max: 100 } }),
			],
			actions: [],
		},
	];
}

/** One step of a script: an event to emit, as given (the sandbox fills the rest). */
export type ScriptEvent = Record<string, unknown> & { event_type: string };

const utterance = (speaker: 'caller' | 'recipient', text: string, start: number, duration: number): ScriptEvent[] => {
	const words = text.split(' ');
	const steps: ScriptEvent[] = [];
	const cuts = words.length > 6 ? [Math.ceil(words.length / 3), Math.ceil((2 * words.length) / 3)] : [Math.ceil(words.length / 2)];
	cuts.forEach((cut, index) => {
		steps.push({
			event_type: 'transcript_utterance',
			speaker,
			text: words.slice(0, cut).join(' '),
			start,
			is_final: false,
			confidence: [0.58, 0.71][index] ?? 0.7,
			duration: Math.round(((duration * cut) / words.length) * 100) / 100,
			call_elapsed_seconds: start + (duration * cut) / words.length,
		});
	});
	steps.push({
		event_type: 'transcript_utterance',
		speaker,
		text,
		start,
		is_final: true,
		confidence: 0.94,
		duration,
		call_elapsed_seconds: start + duration,
	});
	return steps;
};

const CALLER_1 = "Hi, my order 55231 never arrived and I'm really annoyed.";
const CALLER_2 = "If it doesn't come by Friday I want a refund, or I'll need to speak to a manager.";
const CALLER_3 = "Oh, that's great, thank you.";

/**
 * The `demo` preset: a short support call. Results reference operators of the session's
 * configuration by name (and granularity when the name is deployed twice).
 */
export function demoScript(): ScriptEvent[] {
	return [
		{ event_type: 'session_started', call_elapsed_seconds: 0 },
		...utterance('recipient', 'Thank you for calling Acme support, this is Sam. How can I help?', 0.6, 3.1),
		...utterance('caller', CALLER_1, 4.2, 3.6),
		{
			event_type: 'operator_result', operator: 'sentiment', result: { value: 'negative' }, confidence: 0.91,
			reasoning: 'The caller says they are really annoyed about a missing order.', speaker: 'caller', trigger_text: CALLER_1, turn_index: 1, call_elapsed_seconds: 8.1,
		},
		{
			event_type: 'operator_result', operator: 'order_number', result: { value: '55231', found: true }, confidence: 0.97,
			reasoning: null, speaker: 'caller', trigger_text: CALLER_1, turn_index: 1, call_elapsed_seconds: 8.2,
		},
		{
			event_type: 'operator_result', operator: 'escalation_requested', result: { value: false }, confidence: 0.83,
			reasoning: 'No request for a manager yet.', speaker: 'caller', trigger_text: CALLER_1, turn_index: 1, call_elapsed_seconds: 8.3,
		},
		...utterance('recipient', "I'm sorry to hear that. Let me check the tracking for you.", 8.5, 3.0),
		{
			event_type: 'operator_result', operator: 'topics', result: { tags: ['delivery', 'order_status'] }, confidence: 0.88,
			reasoning: 'The call is about an order that has not been delivered.', speaker: 'recipient', trigger_text: "I'm sorry to hear that. Let me check the tracking for you.", turn_index: 2, call_elapsed_seconds: 11.7,
		},
		...utterance('caller', CALLER_2, 12.4, 4.4),
		{
			event_type: 'operator_result', operator: 'escalation_requested', result: { value: true }, confidence: 0.86,
			reasoning: 'The caller says they will need to speak to a manager.', speaker: 'caller', trigger_text: CALLER_2, turn_index: 3, call_elapsed_seconds: 17.0,
		},
		{
			event_type: 'operator_result', operator: 'customer_satisfaction', granularity: 'turn', result: { value: 2 }, confidence: 0.64,
			reasoning: 'Frustrated, threatening a refund.', speaker: 'caller', trigger_text: CALLER_2, turn_index: 3, call_elapsed_seconds: 17.1,
		},
		{
			event_type: 'operator_error', operator: 'sentiment', speaker: 'caller', trigger_text: CALLER_2, turn_index: 3, call_elapsed_seconds: 17.2,
			error: { code: 'model_timeout', message: 'The operator did not answer within 8 seconds' },
		},
		...utterance('recipient', "It's out for delivery today, you'll have it by 6 pm, and I've added a 10% credit to your account.", 17.5, 5.2),
		...utterance('caller', CALLER_3, 23.1, 1.6),
		{
			event_type: 'operator_result', operator: 'sentiment', result: { value: 'positive' }, confidence: 0.93,
			reasoning: 'The caller thanks the agent.', speaker: 'caller', trigger_text: CALLER_3, turn_index: 5, call_elapsed_seconds: 25.0,
		},
		{
			event_type: 'operator_result', operator: 'customer_satisfaction', granularity: 'conversation_end', result: { value: 4 }, confidence: 0.78,
			reasoning: 'Started frustrated, ended satisfied after a delivery time and a credit.', call_elapsed_seconds: 26.0,
		},
		{
			event_type: 'operator_result', operator: 'call_summary', result: { value: 'The caller reported that order 55231 had not arrived and threatened to ask for a refund or a manager. The agent confirmed delivery today by 6 pm and added a 10% credit; the caller was satisfied.' },
			confidence: 0.9, reasoning: null, call_elapsed_seconds: 26.2,
		},
		{ event_type: 'session_ended', call_elapsed_seconds: 26.5 },
	];
}
