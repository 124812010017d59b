/**
 * What the executor hands n8n, whatever shape a list answer's elements have: every item's json is
 * an object (null as json crashes n8n's engine in normalizeNodeErrors, even with Continue On Fail).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { HostedPbx } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { WholesaleVoice } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { runNode } from '../../harness/n8n';
import type { TestServer } from '../../harness/testServer';
import { json, startTestServer } from '../../harness/testServer';

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(async () => await server.close());
beforeEach(() => (server.requests.length = 0));

const ODD_LIST = [{ a: 1 }, null, 7, 'x', [1]];
const AS_ITEMS = [{ a: 1 }, { value: null }, { value: 7 }, { value: 'x' }, { value: [1] }];

async function runWholesale(parameters: INodeParameters) {
	return await runNode({
		node: new WholesaleVoice(),
		parameters,
		credentials: {
			wholesaleVoiceApi: { baseUrl: server.url, apiUsername: 'api123456', apiPassword: 'wv-demo-123456', accountId: '123456', maxRateLimitWait: 0 },
		},
	});
}

test('Wholesale Get CDRs: null, a number, a string and a list in the list become objects { value }, without Continue On Fail', async () => {
	server.answer(json(200, { success: true, data: ODD_LIST }));
	const run = await runWholesale({ resource: 'voice', operation: 'getCdrs', returnAll: true });
	expect(run.error).toBeUndefined();
	expect(run.items.map((item) => item.json)).toEqual(AS_ITEMS);
	expect(run.items.every((item) => item.json !== null && typeof item.json === 'object' && !Array.isArray(item.json))).toBe(true);
	expect(run.items.map((item) => item.pairedItem)).toEqual(AS_ITEMS.map(() => ({ item: 0 })));
	expect(server.requests).toHaveLength(1);
});

test('a client-paged list (Wholesale Get Rejected Calls) with the same elements gives the same items', async () => {
	server.answer(json(200, { success: true, data: ODD_LIST }));
	const run = await runWholesale({ resource: 'voice', operation: 'getRejectedCalls', returnAll: false, limit: 10 });
	expect(run.error).toBeUndefined();
	expect(run.items.map((item) => item.json as IDataObject)).toEqual(AS_ITEMS);
});

test('Return All through the executor: a server that ignores start fails the node with the repeated-page error after 2 requests', async () => {
	server.answer(json(200, { success: true, data: Array.from({ length: 500 }, (_v, row) => ({ row })) }));
	const run = await runWholesale({ resource: 'voice', operation: 'getCdrs', returnAll: true });
	expect(run.error?.message).toMatch(/^The API answered the same page again: request 2 brought the same 500 records as request 1, so it ignores `start`/);
	expect(run.error?.description).toMatch(/Nothing more was requested/);
	expect(server.requests).toHaveLength(2);
});

test('Hosted PBX Get Many: null and a number among the items become objects { value }, without Continue On Fail', async () => {
	server.answer(json(200, { items: [{ uri: 'https://pbx/customers/me/phonebook/1', name: 'A' }, null, 7] }));
	const getMany = async (output: string) =>
		await runNode({
			node: new HostedPbx(),
			parameters: { resource: 'phoneBook', operation: 'getAll', customerId: { __rl: true, mode: 'id', value: 'me' }, returnAll: true, output },
			credentials: { hostedPbxApi: { baseUrl: `${server.url}/api/v1/`, username: 'u', password: 'p', maxRateLimitWait: 0 } },
		});
	const run = await getMany('raw');
	expect(run.error).toBeUndefined();
	expect(run.items.map((item) => item.json)).toEqual([
		{ uri: 'https://pbx/customers/me/phonebook/1', name: 'A' },
		{ value: null },
		{ value: 7 },
	]);
	// Simplified shapes the record only: what is no record passes unchanged.
	expect((await getMany('simple')).items.map((item) => item.json)).toEqual([{ id: '1', name: 'A' }, { value: null }, { value: 7 }]);
});
