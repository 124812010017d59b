/**
 * The workflows the queue tests import (besides the recipes of examples/), as builders that
 * scripts can reuse: small trigger -> downstream workflows of this package's nodes and n8n's.
 */
import { KEY_CRED, ME, PBX_CRED, PKG, WV_CRED, rl } from './kit';

export const AGENT = 'agent_demo_support';
export const DEMO_SESSION = 'sess_demo_transcript';
export const ONCE_SESSION = 'sess_queue_once';

export const RECIPE = {
	missedCall: 'tpMissedCallSms1',
	incomingCall: 'tpIncomingLookup',
	preCall: 'tpVoicePreCall01',
	postCall: 'tpPostCallSms001',
	liveAnalysis: 'tpLiveAnalysis01',
};
/** The recipes of examples/wholesale and examples/ai-agents, and the wholesale triggers' webhook paths. */
export const MORE_RECIPES = {
	cdrCallLog: 'tpWsCdrCallLog01',
	portSms: 'tpWsPortStatus01',
	reportRows: 'tpWsReportRows01',
	receptionist: 'tpAiReceptionist',
	afterCall: 'tpAfterCallAsst1',
};
export const WHOLESALE_HOOK = {
	cdrCallLog: 'a1b2c3d4-0010-4c0d-8e01-000000000001/wholesale-voice',
	portSms: 'a1b2c3d4-0010-4c0d-8e01-000000000002/wholesale-voice',
	reportRows: 'a1b2c3d4-0010-4c0d-8e01-000000000003/wholesale-voice',
};
export const ID = {
	pbxOnce: 'qPbxLiveOnce0001',
	ciOnce: 'qCiSessionOnce01',
	hook: 'qVaHookOnce00001',
	lastNode: 'qVaLastNode00001',
	immediate: 'qVaImmediate0001',
	respond: 'qVaRespondNode01',
	binary: 'qBinaryFiles0001',
};
export const AGENTS = { hook: 'agent_queue_hook', lastNode: 'agent_queue_last_node', immediate: 'agent_queue_immediate', respond: 'agent_queue_respond_node' };
export const BINARY_HOOK = 'a9e1c3d5-0000-4b00-8c00-00000000b001';

export const node = (id: string, name: string, type: string, x: number, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
	id, name, type, typeVersion: 1, position: [x, 0], parameters, ...extra,
});
export const chain = (...names: string[]) =>
	Object.fromEntries(names.slice(0, -1).map((n, i) => [n, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]));
export const workflow = (id: string, name: string, nodes: Array<Record<string, unknown>>, connections: Record<string, unknown> = {}) => ({
	id, name, nodes, connections, settings: { executionOrder: 'v1' },
});

export function pbxOnceWorkflow() {
	return workflow(ID.pbxOnce, 'queue: one PBX live event, one execution', [
		node('p1', 'SMS received', `${PKG}.hostedPbxTrigger`, 0, { events: ['smsreceived'], options: {} }, { credentials: PBX_CRED, typeVersion: 2 }),
		node('p2', 'Received', 'n8n-nodes-base.noOp', 240, {}),
	], chain('SMS received', 'Received'));
}

export function ciOnceWorkflow() {
	return workflow(ID.ciOnce, 'queue: one session event, one execution', [
		node('c1', 'Session event', `${PKG}.conversationIntelligenceTrigger`, 0, { sessionId: ONCE_SESSION, eventTypes: ['operator_result'], operatorNames: '', includeInterim: false, options: {} }, { credentials: KEY_CRED }),
		node('c2', 'Received', 'n8n-nodes-base.noOp', 240, {}),
	], chain('Session event', 'Received'));
}

export function voiceAgentWorkflow(id: string, agentId: string, webhookId: string, responseMode: string, extraParameters: Record<string, unknown>, downstream: Array<Record<string, unknown>>) {
	const trigger = node(`${id}-t`, 'Call is starting', `${PKG}.voiceAgentTrigger`, 0, { event: 'conversation.initiating', agentId, timeoutMs: 5000, responseMode, ...extraParameters }, { credentials: KEY_CRED, webhookId });
	return workflow(id, `queue: voice agent ${responseMode} (${agentId})`, [trigger, ...downstream], chain('Call is starting', ...downstream.map((n) => String(n.name))));
}

export const answerByLastNode = () =>
	voiceAgentWorkflow(ID.lastNode, AGENTS.lastNode, 'b2f4a6c8-0000-4b00-8c00-00000000a001', 'lastNode', {}, [
		{ ...node('l2', 'Answer', 'n8n-nodes-base.set', 240, { mode: 'raw', jsonOutput: '={{ JSON.stringify({ dynamic_variables: { answered_by: "last node", conversation: $json.conversation_id } }) }}', options: {} }), typeVersion: 3.4 },
	]);
export const answerImmediately = () =>
	voiceAgentWorkflow(ID.immediate, AGENTS.immediate, 'b2f4a6c8-0000-4b00-8c00-00000000a002', 'withValues',
		{ dynamicVariables: { pairs: [{ name: 'answered_by', value: 'trigger' }, { name: 'plan', value: 'gold' }] }, configOverride: '{}' },
		[node('i2', 'Runs later', 'n8n-nodes-base.noOp', 240, {})]);
export const answerByRespondNode = () =>
	voiceAgentWorkflow(ID.respond, AGENTS.respond, 'b2f4a6c8-0000-4b00-8c00-00000000a003', 'responseNode', {}, [
		node('r2', 'Respond', 'n8n-nodes-base.respondToWebhook', 240, {
			respondWith: 'json',
			responseBody: '={{ JSON.stringify({ dynamic_variables: { answered_by: "respond node", conversation: $json.conversation_id } }) }}',
			options: {},
		}),
	]);
export const hookOnce = () =>
	voiceAgentWorkflow(ID.hook, AGENTS.hook, 'b2f4a6c8-0000-4b00-8c00-00000000a004', 'immediately', {}, [node('h2', 'Received', 'n8n-nodes-base.noOp', 240, {})]);

/** Webhook → three downloads on the worker, each followed by a node that hashes the bytes it reads back from the store. */
export function binaryWorkflow(invoiceNumber: string) {
	const hash = (id: string, name: string, x: number) => ({
		...node(id, name, 'n8n-nodes-base.crypto', x, { action: 'hash', binaryData: true, binaryPropertyName: 'data', type: 'SHA256', dataPropertyName: 'sha256', encoding: 'hex' }),
		typeVersion: 2,
	});
	return workflow(ID.binary, 'queue: binary files made on a worker', [
		{ ...node('b0', 'Files wanted', 'n8n-nodes-base.webhook', 0, { httpMethod: 'POST', path: 'queue-binary', responseMode: 'onReceived', options: {} }), typeVersion: 2, webhookId: BINARY_HOOK },
		node('b1', 'Recordings', `${PKG}.hostedPbx`, 200, { resource: 'recording', operation: 'getAll', customerId: ME, returnAll: false, limit: 1, filters: {} }, { credentials: PBX_CRED }),
		node('b2', 'Recording', `${PKG}.hostedPbx`, 400, { resource: 'recording', operation: 'download', customerId: ME, recordingId: rl('={{ $json.id }}'), binaryPropertyName: 'data' }, { credentials: PBX_CRED }),
		hash('b3', 'Hash the recording', 600),
		node('b4', 'Invoice', `${PKG}.wholesaleVoice`, 800, { resource: 'invoice', operation: 'download', invoiceNumber, binaryPropertyName: 'data' }, { credentials: WV_CRED }),
		hash('b5', 'Hash the invoice', 1000),
		node('b6', 'Call history', `${PKG}.hostedPbx`, 1200, { resource: 'call', operation: 'exportCsv', customerId: ME, filters: {}, binaryPropertyName: 'data' }, { credentials: PBX_CRED }),
		hash('b7', 'Hash the call history', 1400),
	], chain('Files wanted', 'Recordings', 'Recording', 'Hash the recording', 'Invoice', 'Hash the invoice', 'Call history', 'Hash the call history'));
}


// --- restarts and faults (faults.queue.ts) ------------------------------------------------------

export const FAULT_SESSION = 'sess_queue_faults';
export const FAULT = {
	live: 'qFaultPbxLive001',
	poll: 'qFaultPbxPoll001',
	missed: 'qFaultMissedCal1',
	sse: 'qFaultSession001',
	slow: 'qFaultSlowHook01',
};
export const SLOW_HOOK = 'a9e1c3d5-0000-4b00-8c00-00000000f001';
export const FAULT_TEAM = '+447700900888';

const smsTo = (id: string, name: string, x: number, body: string) =>
	node(id, name, `${PKG}.hostedPbx`, x, { resource: 'sms', operation: 'send', customerId: ME, from: rl('+441632960001'), to: FAULT_TEAM, body }, { credentials: PBX_CRED });

/** Live PBX events (smsreceived) -> an SMS naming the event's seq: one SMS per event that reached n8n. */
export function faultLiveWorkflow() {
	return workflow(FAULT.live, 'queue faults: PBX live event -> SMS', [
		node('fl1', 'Live event', `${PKG}.hostedPbxTrigger`, 0, { events: ['smsreceived'], options: {} }, { credentials: PBX_CRED, typeVersion: 2 }),
		smsTo('fl2', 'Report', 240, '=fault live {{ $json.seq }}'),
	], chain('Live event', 'Report'));
}

/** New call records, polled every 10 s (the least the trigger accepts) -> an SMS naming the record: one SMS per record. */
export function faultPollWorkflow() {
	return workflow(FAULT.poll, 'queue faults: PBX polled call record -> SMS', [
		node('fp1', 'New call record', `${PKG}.hostedPbxTrigger`, 0, { pollTimes: { item: [{ mode: 'everyMinute' }] }, events: ['callRecord'], customerId: ME, filters: { direction: 'in' }, options: {} }, { credentials: PBX_CRED, typeVersion: 2 }),
		smsTo('fp2', 'Report', 240, '=fault poll {{ $json.id }} {{ $json.fromNumber }}'),
	], chain('New call record', 'Report'));
}

/** Missed calls, polled every 10 s (the least the trigger accepts) -> an SMS naming the record (a poller that has not emitted yet when main restarts). */
export function faultMissedWorkflow() {
	return workflow(FAULT.missed, 'queue faults: PBX polled missed call -> SMS', [
		node('fm1', 'Missed call', `${PKG}.hostedPbxTrigger`, 0, { pollTimes: { item: [{ mode: 'everyMinute' }] }, events: ['missedCall'], customerId: ME, options: {} }, { credentials: PBX_CRED, typeVersion: 2 }),
		smsTo('fm2', 'Report', 240, '=fault missed {{ $json.id }} {{ $json.fromNumber }}'),
	], chain('Missed call', 'Report'));
}

/** A session's operator results (SSE) -> an SMS naming the event id: one SMS per event. */
export function faultSessionWorkflow() {
	return workflow(FAULT.sse, 'queue faults: session event -> SMS', [
		node('fs1', 'Session event', `${PKG}.conversationIntelligenceTrigger`, 0, { sessionId: FAULT_SESSION, eventTypes: ['operator_result'], operatorNames: '', includeInterim: false, options: {} }, { credentials: KEY_CRED }),
		smsTo('fs2', 'Report', 240, '=fault sse {{ $json.event_id }}'),
	], chain('Session event', 'Report'));
}

/** A webhook whose execution takes `seconds` on the worker (a Wait node, in the worker's memory) and answers with its last node. */
export function slowWebhookWorkflow(seconds: number) {
	return workflow(FAULT.slow, 'queue faults: a slow execution', [
		{ ...node('sw1', 'Slow request', 'n8n-nodes-base.webhook', 0, { httpMethod: 'POST', path: 'queue-slow', responseMode: 'lastNode', options: {} }), typeVersion: 2, webhookId: SLOW_HOOK },
		{ ...node('sw2', 'Take a while', 'n8n-nodes-base.wait', 240, { resume: 'timeInterval', amount: seconds, unit: 'seconds' }), typeVersion: 1.1 },
		{ ...node('sw3', 'Done', 'n8n-nodes-base.set', 480, { mode: 'raw', jsonOutput: '={"done": true}', options: {} }), typeVersion: 3.4 },
	], chain('Slow request', 'Take a while', 'Done'));
}

// --- load (load.queue.ts) -----------------------------------------------------------------------

export const LOAD = { wholesale: 'qLoadWholesale01', pbx: 'qLoadPbxLive0001', pbxBatch: 'qLoadPbxBatch001' };
export const LOAD_HOOK = 'a9e1c3d5-0000-4b00-8c00-00000000c001';
export const LOAD_TEAM = '+447700900777';

/** Wholesale Voice Trigger (loopback allowed, duplicates dropped) -> an SMS naming the delivery's id. */
export function loadWholesaleWorkflow() {
	return workflow(LOAD.wholesale, 'queue load: wholesale webhook -> SMS', [
		node('lw1', 'Wholesale event', `${PKG}.wholesaleVoiceTrigger`, 0, { sourceNetworks: 'custom', customNetworks: '127.0.0.1/32', options: {} }, { webhookId: LOAD_HOOK }),
		node('lw2', 'Report', `${PKG}.hostedPbx`, 240, { resource: 'sms', operation: 'send', customerId: ME, from: rl('+441632960001'), to: LOAD_TEAM, body: '=load wholesale {{ $json.id }}' }, { credentials: PBX_CRED }),
	], chain('Wholesale event', 'Report'));
}

/** PBX live events (incomingcall) -> an SMS naming the event's seq and when the sandbox sent it. */
export function loadPbxWorkflow() {
	return workflow(LOAD.pbx, 'queue load: PBX live event -> SMS', [
		node('lp1', 'Live event', `${PKG}.hostedPbxTrigger`, 0, { events: ['incomingcall'], options: {} }, { credentials: PBX_CRED, typeVersion: 2 }),
		node('lp2', 'Report', `${PKG}.hostedPbx`, 240, { resource: 'sms', operation: 'send', customerId: ME, from: rl('+441632960001'), to: LOAD_TEAM, body: '=load pbx {{ $json.run }} {{ $json.seq }} {{ $json.sentAt }}' }, { credentials: PBX_CRED }),
	], chain('Live event', 'Report'));
}

/** Events a batch SMS can name: its text stays within Maximum Parts (10), about 10 characters an event. */
export const LOAD_BATCH_SIZE = 100;

/**
 * PBX live events (incomingcall) in batches of 100 (Batch Window at its default) -> one SMS per
 * execution naming every event of its batch: `load batch <run> <base> <seq>+<ms> …`, each event's
 * seq and the time the sandbox sent it, as milliseconds after `base` (the first one's, rounded down).
 */
export function loadPbxBatchWorkflow() {
	const first = "$('Live event').first().json";
	const base = `Math.floor(${first}.sentAt)`;
	const body = `={{ 'load batch ' + ${first}.run + ' ' + ${base} + ' ' + $('Live event').all().map((i) => i.json.seq + '+' + Math.round(i.json.sentAt - ${base})).join(' ') }}`;
	return workflow(LOAD.pbxBatch, 'queue load: PBX live events in batches -> one SMS per batch', [
		node('lb1', 'Live event', `${PKG}.hostedPbxTrigger`, 0, { events: ['incomingcall'], options: { batchSize: LOAD_BATCH_SIZE } }, { credentials: PBX_CRED, typeVersion: 2 }),
		node('lb2', 'Report', `${PKG}.hostedPbx`, 240, { resource: 'sms', operation: 'send', customerId: ME, from: rl('+441632960001'), to: LOAD_TEAM, body, maxParts: 10 }, { credentials: PBX_CRED, executeOnce: true }),
	], chain('Live event', 'Report'));
}
