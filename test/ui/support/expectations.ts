/**
 * What the UI tests know about the package's nodes beyond their descriptions: the words a user
 * types for each node, values the sandbox accepts for required fields, the typical operation of
 * each node (for its picture), and how the sandbox makes each trigger fire. A node that appears
 * in package.json without an entry here still gets every generic check (its codex aliases as
 * search words, placeholders as values); only what needs knowledge of the sandbox is skipped or
 * reported as missing.
 */
import type { NodeInfo } from './catalog';

/** Words a user would type to find each node (besides its display name). */
const SEARCH_WORDS: Record<string, string[]> = {
	hostedPbx: ['SMS', 'send sms', 'text message', 'missed call', 'recording', 'call recording', 'phone book', 'caller ID'],
	hostedPbxTrigger: ['missed call', 'incoming call', 'SMS', 'text message', 'recording', 'call recording', 'credit low'],
	voiceAgent: ['voice agent', 'AI receptionist', 'transcript'],
	voiceAgentTrigger: ['voice agent', 'transcript', 'call summary'],
	conversationIntelligence: ['transcript', 'sentiment', 'call analysis'],
	conversationIntelligenceTrigger: ['transcript', 'sentiment', 'escalation'],
	wholesaleVoice: ['port', 'e911', '999', 'CDR', 'SIP trunk', 'rate card'],
	wholesaleVoiceTrigger: ['CDR', 'port', 'wholesale'],
};

export function searchWords(node: NodeInfo): string[] {
	return SEARCH_WORDS[node.name] ?? node.aliases.slice(0, 4);
}

/**
 * Values for required fields that the sandbox accepts (demo data), by node, then by
 * `resource.operation.parameter`, `resource.parameter` or `parameter`. For options, the label.
 * Fields not listed get their list's first item, their placeholder, or "test".
 */
const SAMPLES: Record<string, Record<string, string>> = {
	hostedPbx: {
		to: '+447700900123',
		body: 'Hello from the UI test',
		name: 'Pat Example',
		phoneNumber: '+447700900321',
		endpointId: '201',
	},
	voiceAgent: {
		url: 'https://hooks.example.com/ui-test',
		webhookId: 'wh_000000000000000000000000',
	},
	conversationIntelligence: {
		configurationId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
		operators: 'sentiment',
		sessionId: 'sess_demo_transcript',
	},
	conversationIntelligenceTrigger: {
		sessionId: 'sess_demo_transcript',
	},
	wholesaleVoice: {
		number: '441632960001',
		'e911.number': '12025550143',
		'rate.getDestinationRate.number': '447700900123',
		// A day the CDR search accepts: within the last 90 days.
		'voice.getCdr.day': new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
		trunk: '123456-office',
		'trunk.create.trunk': 'ui-test',
		destination: 'ops@example.com',
		endpoint: 'https://hooks.example.com/sms',
		// The sandbox numbers account 123456's invoices from 700056 up.
		invoiceNumber: '700056',
		hash: '0',
		ref: '1',
		key: 'destination',
		callId: '1',
		name: 'Pat Example',
		premises: '1',
		thoroughfare: 'High Street',
		locality: 'London',
		postcode: 'SW1A 1AA',
		streetNum: '1600',
		streetInfo: 'Pennsylvania Ave NW',
		city: 'Washington',
		state: 'DC',
		postalCode: '20500',
		mbn: '01632960000',
		contactEmail: 'porting@example.com',
		billingPostcode: 'SW1A 1AA',
	},
	wholesaleVoiceTrigger: {
		customNetworks: '127.0.0.1/32',
		secret: 'ui-test-secret',
	},
};

export function sample(node: NodeInfo, resource: string | undefined, operation: string | undefined, parameter: string): string | undefined {
	const table = SAMPLES[node.name] ?? {};
	return table[`${resource}.${operation}.${parameter}`] ?? table[`${resource}.${parameter}`] ?? table[parameter];
}

/**
 * The samples given for one resource or operation only (`e911.number`): a field keeps its value
 * when the operation changes, so before a run these are typed even when the field is not empty.
 */
export function specificSamples(node: NodeInfo, resource: string, operation: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(SAMPLES[node.name] ?? {})) {
		const parts = key.split('.');
		if (parts.length === 2 && parts[0] === resource) out[parts[1]] = value;
		if (parts.length === 3 && parts[0] === resource && parts[1] === operation) out[parts[2]] = value;
	}
	return out;
}

/** The operation each node's picture shows (after "Execute step"), when it has resources. */
export const TYPICAL_OPERATION: Record<string, { resource: string; operation: string }> = {
	hostedPbx: { resource: 'call', operation: 'getAll' },
	voiceAgent: { resource: 'webhook', operation: 'getAll' },
	conversationIntelligence: { resource: 'session', operation: 'getStreamToken' },
	wholesaleVoice: { resource: 'trunk', operation: 'getAll' },
};

/**
 * The read operation "Execute step" runs for each resource, when the generic choice (Get Many,
 * else the first Get… without required fields) is not the right one.
 */
export const READ_OPERATION: Record<string, Record<string, string>> = {
	hostedPbx: { authToken: 'generate', endpoint: 'getDnd', creditStatus: 'get' },
	wholesaleVoice: { number: 'get', rate: 'getTariffs', e911: 'get', uk999: 'get', summary: 'get', tool: 'time', report: 'request' },
};

/** Operations that download a file: the output must show it with its name and MIME type. */
export function isDownload(operation: { value: string; label: string }): boolean {
	return /^download/i.test(operation.value) || /^download/i.test(operation.label);
}

/**
 * How each trigger is set up for "Listen for test event", how to tell the sandbox is connected
 * (a stream opened, a webhook registered), and what the sandbox does to make it fire once.
 */
export interface TriggerPlan {
	/** Sandbox set-up before the workflow is opened (a session to watch, ...). */
	prepare?(context: TriggerContext): Promise<void>;
	/** The parameters of the trigger in the test workflow. */
	parameters(context: TriggerContext): Record<string, unknown>;
	/** Resolves when the trigger is listening at the sandbox (stream open, webhook registered). */
	listening(context: TriggerContext): Promise<void>;
	/** Makes the sandbox send one event; returns what was sent, for the report. */
	fire(context: TriggerContext): Promise<string>;
	/** What the picture shows. */
	shows: string;
}

export interface TriggerContext {
	admin: import('../../e2e/sandboxAdmin').SandboxAdmin;
	/** The test webhook URL of the node (for triggers with webhooks). */
	testWebhookUrl?: string;
	/** A fresh id for this run (sessions, conversations). */
	runId: string;
}

export const TRIGGER_PLANS: Record<string, TriggerPlan> = {
	hostedPbxTrigger: {
		parameters: () => ({ events: ['incomingcall'], options: {} }),
		listening: async ({ admin }) => {
			await admin.until('the PBX live stream', async () => (await admin.get<unknown[]>('/pbx/streams')).length > 0, 60_000);
		},
		fire: async ({ admin }) => {
			await admin.post('/pbx/calls/incoming', { from: '+447700900555', callerIdName: 'Pat Caller', endpointId: '202', outcome: 'ANSWERED' });
			return 'an incoming call from +447700900555 (POST /_sandbox/pbx/calls/incoming)';
		},
		shows: 'Hosted PBX Trigger (Incoming Call) after "Fetch Test Event": the incoming call the sandbox sent',
	},
	voiceAgentTrigger: {
		parameters: () => ({ event: 'conversation.initiating', agentId: 'agent_demo_support', timeoutMs: 5000, responseMode: 'immediately' }),
		listening: async ({ admin }) => {
			await admin.until(
				'the test webhook registered with the voice agent',
				async () => (await admin.get<Array<{ url: string }>>('/convai/webhooks')).some((w) => w.url.includes('/webhook-test/')),
				60_000,
			);
		},
		fire: async ({ admin }) => {
			await admin.post('/convai/conversations', { agent_id: 'agent_demo_support', completed: false });
			return 'a conversation.initiating delivery (POST /_sandbox/convai/conversations)';
		},
		shows: 'Voice Agent Trigger (conversation.initiating) after "Listen for test event": the delivery the sandbox sent',
	},
	conversationIntelligenceTrigger: {
		prepare: async ({ admin, runId }) => {
			await admin.post('/intelligence/sessions', { session_id: `sess_ui_${runId}`, transcript_events: true });
		},
		parameters: ({ runId }) => ({ sessionId: `sess_ui_${runId}`, options: {} }),
		listening: async ({ admin, runId }) => {
			await admin.until('the session stream', async () => (await admin.get<Array<{ sessionId: string }>>('/intelligence/streams')).some((s) => s.sessionId === `sess_ui_${runId}`), 60_000);
		},
		fire: async ({ admin, runId }) => {
			await admin.post(`/intelligence/sessions/sess_ui_${runId}/script`, { preset: 'demo', intervalMs: 50 });
			return `the demo script on session sess_ui_${runId} (POST /_sandbox/intelligence/sessions/…/script)`;
		},
		shows: 'Conversation Intelligence Trigger after "Listen for test event": the first event of a live session (SSE)',
	},
	wholesaleVoiceTrigger: {
		parameters: () => ({ events: ['cdr'], sourceNetworks: 'any', secretLocation: 'none', options: {} }),
		listening: async () => undefined,
		fire: async ({ admin, testWebhookUrl }) => {
			if (!testWebhookUrl) throw new Error('no test webhook URL');
			await admin.post('/wholesale/deliveries', { url: testWebhookUrl, app: 'cdr' });
			return `a CDR delivery to ${testWebhookUrl} (POST /_sandbox/wholesale/deliveries)`;
		},
		shows: 'Wholesale Voice Trigger (CDR) after "Listen for test event": the CDR delivery the sandbox sent',
	},
};
