import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ConversationIntelligence } from '../../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { fakeClockForFile } from '../../harness/clock';
import { runNode } from '../../harness/n8n';
import { platformCredentials } from '../../harness/platformKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());
// Watch Events' Time Limit is on it: a watch ends by its events, never by a slow machine reaching 20 s.
fakeClockForFile();

const SUPPORT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

async function run(parameters: INodeParameters, label = 'full-access') {
	const since = sandbox.context.log.lastSeq;
	const result = await runNode({ node: new ConversationIntelligence(), parameters, credentials: platformCredentials(sandbox, label) });
	return { ...result, json: result.items.map((i) => i.json as IDataObject), requests: sandbox.context.log.list({ since }) };
}

async function admin(path: string, body: unknown) {
	const response = await fetch(`${sandbox.url}/_sandbox/intelligence${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return (await response.json()) as IDataObject;
}

describe('Configuration: upgrade operators', () => {
	test('all: the version goes up and every reference is current', async () => {
		const before = (await (await fetch(`${sandbox.url}/_sandbox/intelligence/configurations`)).json()) as IDataObject[];
		const old = before.find((c) => c.uuid === SUPPORT)!;
		const result = await run({ resource: 'configuration', operation: 'upgradeOperators', configurationId: SUPPORT, upgrade: 'all', output: 'raw' });
		expect(result.error).toBeUndefined();
		expect(result.requests[0]).toMatchObject({ method: 'POST', path: `/intelligence/v1/configurations/${SUPPORT}/upgrade-operators`, body: { all: true } });
		const [record] = result.json;
		expect(record.version).toBe(Number(old.version) + 1);
		expect((record.operators as IDataObject[]).every((op) => op.version === op.current_version)).toBe(true);
		expect((record.upgraded_operators as IDataObject[]).length).toBe((record.operators as IDataObject[]).length);
	});

	test('named operators only', async () => {
		const result = await run({ resource: 'configuration', operation: 'upgradeOperators', configurationId: SUPPORT, upgrade: 'named', operators: 'sentiment', output: 'raw' });
		expect(result.requests[0].body).toEqual({ all: false, operators: ['sentiment'] });
		expect(result.json[0].upgraded_operators).toEqual([{ name: 'sentiment', version: expect.any(Number) }]);
	});

	test('checked before sending; a key without intelligence:write gets a 403 naming it', async () => {
		const invalid = await run({ resource: 'configuration', operation: 'upgradeOperators', configurationId: 'support-qa', upgrade: 'named', operators: ' , ' });
		expect(invalid.error?.message).toMatch(/^Invalid Configuration UUID/);
		expect(invalid.error?.description).toMatch(/Operator Names: no operator is named/);
		expect(invalid.requests).toHaveLength(0);
		const denied = await run({ resource: 'configuration', operation: 'upgradeOperators', configurationId: SUPPORT, upgrade: 'all' }, 'read-only');
		expect(denied.error?.message).toMatch(/^The API key lacks the scope intelligence:write \(403\)/);
	});
});

describe('Session', () => {
	test('get a stream token', async () => {
		const result = await run({ resource: 'session', operation: 'getStreamToken', sessionId: 'sess_demo_transcript' });
		expect(result.json[0]).toMatchObject({ session_id: 'sess_demo_transcript', token: expect.stringMatching(/^sst_/), expires_at: expect.any(String) });
	});

	test('watch events: one flat item per event, filtered, until the session ends', async () => {
		await admin('/sessions/sess_demo_transcript/script', { preset: 'demo', intervalMs: 5 });
		const result = await run({
			resource: 'session',
			operation: 'watchEvents',
			sessionId: 'sess_demo_transcript',
			eventTypes: ['operator_result', 'transcript_utterance', 'session_ended'],
			operatorNames: '',
			includeInterim: false,
			maxEvents: 1000,
			timeLimitSeconds: 20,
		});
		expect(result.error).toBeUndefined();
		const types = new Set(result.json.map((e) => e.event_type));
		expect([...types].sort()).toEqual(['operator_result', 'session_ended', 'transcript_utterance']);
		expect(result.json.at(-1)?.event_type).toBe('session_ended');
		expect(result.json.filter((e) => e.event_type === 'transcript_utterance').every((e) => e.is_final === true)).toBe(true);
		const operatorResult = result.json.find((e) => e.event_type === 'operator_result')!;
		expect(operatorResult).toMatchObject({
			event_id: expect.any(String),
			operator_name: expect.any(String),
			operator_version: expect.any(Number),
			granularity_on: expect.any(String),
			output_type: expect.any(String),
			confidence: expect.any(Number),
		});
		expect('value' in operatorResult).toBe(true);
	});

	test('watch events stops at Max Events', async () => {
		await admin('/sessions/sess_demo_transcript/script', { preset: 'demo', intervalMs: 5 });
		const result = await run({
			resource: 'session',
			operation: 'watchEvents',
			sessionId: 'sess_demo_transcript',
			eventTypes: ['operator_result'],
			operatorNames: '',
			maxEvents: 2,
			timeLimitSeconds: 20,
		});
		expect(result.json.map((e) => e.event_type)).toEqual(['operator_result', 'operator_result']);
	});
});
