/**
 * A hostile or broken server answering 2xx with the wrong shape: a clear error naming the
 * operation and what was expected, never a TypeError, never silently zero items, never items
 * made up from a string's characters. Each answer is scripted with a sandbox request fault.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ConversationIntelligence } from '../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import { VoiceAgent } from '../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { runNode } from '../harness/n8n';
import { platformCredentials } from '../harness/platformKit';
import { locator, runPbx } from './HostedPbx/pbxTestKit';
import { runWholesale } from './WholesaleVoice/wholesaleKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** The next matching request is answered 200 with this JSON text. */
function answer(api: string, pathPrefix: string, json: string, method?: string) {
	sandbox.context.faults.add({ api, pathPrefix, method, status: 200, body: json, headers: { 'Content-Type': 'application/json' } });
}

const WRONG_BODIES: Array<[string, string]> = [
	['"hello"', 'text'],
	['null', 'null'],
	['42', 'a number'],
	['true', 'a boolean \\(true\\)'],
];

const TYPE_ERROR = /Cannot read properties|is not a function|is not iterable/;

function expectShapeError(run: { error?: { message: string; description?: string | null } }, operation: string, kind: string, expected: string) {
	expect(run.error?.message).toMatch(new RegExp(`^${operation}: the .+ answered with ${kind} where ${expected} was expected$`));
	expect(run.error?.message).not.toMatch(TYPE_ERROR);
	expect(run.error?.description).toMatch(/Nothing was made up/);
}

describe('Hosted PBX', () => {
	const ME = '/api/v1/customers/me';

	test.each([
		['customer get', { resource: 'customer', operation: 'get' }, ME],
		['phone book get many', { resource: 'phoneBook', operation: 'getAll', returnAll: true }, `${ME}/phonebook`],
		['phone book get', { resource: 'phoneBook', operation: 'get', entryId: locator('1') }, `${ME}/phonebook/1`],
		['credit status get', { resource: 'creditStatus', operation: 'get' }, `${ME}/creditstatus`],
		['endpoint get DND', { resource: 'endpoint', operation: 'getDnd', endpointId: locator('201') }, `${ME}/endpoints/201`],
	])('%s: {"items":[null]} is no TypeError from withId', async (_name, parameters, path) => {
		answer('pbx', path, '{"items":[null]}');
		const run = await runPbx(sandbox, parameters as INodeParameters);
		expect(run.error?.message ?? '').not.toMatch(TYPE_ERROR);
		expect(run.error).toBeUndefined();
		// Passed on unchanged; the executor keeps a non-object element as `{ value }`.
		expect(run.items.map((i) => i.json)).toEqual([{ value: null }]);
	});

	describe.each(WRONG_BODIES)('a 2xx body of %s', (json, kind) => {
		test.each([
			['Get a customer', { resource: 'customer', operation: 'get' }, ME, 'a record'],
			['Get a phone book entry', { resource: 'phoneBook', operation: 'get', entryId: locator('1') }, `${ME}/phonebook/1`, 'a record'],
			['Get many phone book entries', { resource: 'phoneBook', operation: 'getAll', returnAll: true }, `${ME}/phonebook`, 'a record or a list'],
			['Get the credit status', { resource: 'creditStatus', operation: 'get' }, `${ME}/creditstatus`, 'a record'],
			[
				'Create a phone book entry',
				{ resource: 'phoneBook', operation: 'create', name: 'Dana Scully', phoneNumber: '+447700900555' },
				`${ME}/phonebook`,
				'a record',
			],
			[
				'Send an SMS',
				{ resource: 'sms', operation: 'send', from: '+441632960001', to: '+447700900123', body: 'hi' },
				`${ME}/sms`,
				'a record',
			],
		])('%s is an error naming the operation, not 0 items', async (operation, parameters, path, expected) => {
			answer('pbx', path, json);
			const run = await runPbx(sandbox, parameters as INodeParameters);
			expectShapeError(run, operation, kind, expected);
			expect(run.items).toHaveLength(0);
		});

		test('Update: the read answered wrongly sends no PUT; the PUT answered wrongly is an error too', async () => {
			answer('pbx', `${ME}/phonebook/2`, json, 'GET');
			const parameters = { resource: 'phoneBook', operation: 'update', entryId: locator('2'), updateFields: { name: 'Robert' } };
			const read = await runPbx(sandbox, parameters);
			expectShapeError(read, 'Update a phone book entry \\(reading it first; nothing was changed\\)', kind, 'a record');
			expect(read.requests.map((r) => r.method)).toEqual(['GET']);

			answer('pbx', `${ME}/phonebook/2`, json, 'PUT');
			const write = await runPbx(sandbox, parameters);
			expectShapeError(write, 'Update a phone book entry', kind, 'a record');
			expect(write.error?.description).toMatch(/may have taken effect/);
			expect(write.requests.map((r) => r.method)).toEqual(['GET', 'PUT']);
		});
	});

	test('answers the contract leaves open still work: a delete 204, Set DND and Make Call without a record', async () => {
		const removed = await runPbx(sandbox, { resource: 'phoneBook', operation: 'delete', entryId: locator('3') });
		expect(removed.items.map((i) => i.json)).toEqual([{ deleted: true, id: '3' }]);

		answer('pbx', `${ME}/endpoints/201/phonestatus`, 'null', 'PUT');
		const dnd = await runPbx(sandbox, { resource: 'endpoint', operation: 'setDnd', endpointId: locator('201'), dndActive: true });
		expect(dnd.error).toBeUndefined();
		expect(dnd.items.map((i) => i.json)).toEqual([{ endpointId: '201', dndActive: true }]);

		sandbox.context.faults.add({ api: 'pbx', pathPrefix: `${ME}/calls`, method: 'POST', kind: 'empty' });
		const call = await runPbx(sandbox, { resource: 'call', operation: 'originate', endpointId: locator('201'), to: '+447700900123' });
		expect(call.error).toBeUndefined();
		expect(call.items.map((i) => i.json)).toEqual([{ success: true, endpointId: '201', to: '+447700900123' }]);
	});
});

describe('Voice Agent webhooks', () => {
	async function runAgent(parameters: INodeParameters) {
		return await runNode({ node: new VoiceAgent(), parameters, credentials: platformCredentials(sandbox) });
	}

	test('Get Many with [null] is no TypeError from normaliseWebhook', async () => {
		answer('convai', '/convai/v1/webhooks', '[null]');
		const run = await runAgent({ resource: 'webhook', operation: 'getAll', returnAll: true });
		expect(run.error?.message ?? '').not.toMatch(TYPE_ERROR);
		expect(run.error).toBeUndefined();
		// Passed on unchanged; the executor keeps a non-object element as `{ value }`.
		expect(run.items.map((i) => i.json)).toEqual([{ value: null }]);
	});

	test.each(WRONG_BODIES)('Get Many and Get with %s are errors naming the operation', async (json, kind) => {
		answer('convai', '/convai/v1/webhooks', json);
		expectShapeError(await runAgent({ resource: 'webhook', operation: 'getAll', returnAll: true }), 'Get many webhooks', kind, 'a list');
		answer('convai', '/convai/v1/webhooks/wh_1', json);
		expectShapeError(await runAgent({ resource: 'webhook', operation: 'get', webhookId: 'wh_1' }), 'Get a webhook', kind, 'a record');
	});
});

describe('Conversation Intelligence: Upgrade Operators', () => {
	const SUPPORT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
	const path = `/intelligence/v1/configurations/${SUPPORT}/upgrade-operators`;
	async function upgrade(output = 'raw') {
		return await runNode({
			node: new ConversationIntelligence(),
			parameters: { resource: 'configuration', operation: 'upgradeOperators', configurationId: SUPPORT, upgrade: 'all', output },
			credentials: platformCredentials(sandbox),
		});
	}

	test('operators that are no list: an error saying the upgrade may have taken effect, no "filter is not a function"', async () => {
		answer('intelligence', path, JSON.stringify({ uuid: SUPPORT, version: 8, operators: 'x' }));
		const run = await upgrade();
		expectShapeError(run, 'Upgrade configuration operators', 'text', 'a list of operator references in `operators`');
		expect(run.error?.description).toMatch(/may have taken effect/);
	});

	test('a null operator reference is skipped, the others counted', async () => {
		const operators = [null, { name: 'sentiment', version: 3, current_version: 3 }];
		answer('intelligence', path, JSON.stringify({ uuid: SUPPORT, version: 8, operators }));
		const run = await upgrade();
		expect(run.error).toBeUndefined();
		expect(run.items.map((i) => (i.json as IDataObject).upgraded_operators)).toEqual([[{ name: 'sentiment', version: 3 }]]);
		// Simplified names the operators it can read, and no "null v undefined".
		answer('intelligence', path, JSON.stringify({ uuid: SUPPORT, version: 8, operators }));
		expect((await upgrade('simple')).items.map((i) => i.json)).toEqual([{ id: SUPPORT, version: 8, operators: 'sentiment v3', upgraded: 'sentiment v3' }]);
	});

	test.each(WRONG_BODIES)('a body of %s is an error, not a record made of its characters', async (json, kind) => {
		answer('intelligence', path, json);
		const run = await upgrade();
		expectShapeError(run, 'Upgrade configuration operators', kind, 'a configuration record');
		expect(run.items).toHaveLength(0);
	});
});

describe('Wholesale Voice lists', () => {
	test.each(WRONG_BODIES)('Trunk Get Many, Invoice Get Many, Report List Files with %s: errors, no invented items', async (json, kind) => {
		answer('wholesale', '/v3/voice/123456/trunks', json);
		const trunks = await runWholesale(sandbox, { resource: 'trunk', operation: 'getAll', returnAll: true });
		expectShapeError(trunks, 'Get many trunks', kind, 'a list of trunks');
		expect(trunks.json).toEqual([]);

		answer('wholesale', '/v3/accounts/123456/credit/invoices/unpaid', json);
		const invoices = await runWholesale(sandbox, { resource: 'invoice', operation: 'getAll', status: 'unpaid', returnAll: true });
		expectShapeError(invoices, 'Get many invoices', kind, 'an object with Invoices');

		answer('wholesale', '/v3/files/123456', json);
		const files = await runWholesale(sandbox, { resource: 'report', operation: 'listFiles' });
		expectShapeError(files, 'List uncollected report files', kind, 'an object keyed by file hash');
	});

	test('a trunk list of bare names still gives one {trunk} item each', async () => {
		answer('wholesale', '/v3/voice/123456/trunks', '["123456-L001","123456-office"]');
		const run = await runWholesale(sandbox, { resource: 'trunk', operation: 'getAll', returnAll: true, output: 'raw' });
		expect(run.json).toEqual([{ trunk: '123456-L001' }, { trunk: '123456-office' }]);
		// Simplified: the name is the id.
		answer('wholesale', '/v3/voice/123456/trunks', '["123456-L001","123456-office"]');
		expect((await runWholesale(sandbox, { resource: 'trunk', operation: 'getAll', returnAll: true })).json).toEqual([{ id: '123456-L001' }, { id: '123456-office' }]);
	});
});
