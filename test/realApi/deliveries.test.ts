/**
 * Real pushed documents through the triggers (issue 19): every webhook and HTTP POST example of
 * the Wholesale API's public documentation within the contract is delivered, byte for byte with
 * its documented content type, to the Wholesale Voice Trigger as n8n hosts it, with only its
 * event selected; and the Hosted PBX stream example is streamed to the Hosted PBX Trigger. Each
 * must start the workflow with the document's fields untouched.
 */
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { HostedPbxTrigger } from '../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbxTrigger.node';
import { resetTriggers } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/triggers/lifecycle';
import { categoryOf } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/trigger/events';
import { contexts } from '../harness/n8n';
import { waitFor } from '../harness/wait';
import { OPEN, hostTrigger, post } from '../nodes/WholesaleVoice/triggerKit';

interface Fixture {
	name: string;
	endpoint: string;
	direction: string;
	contentType: string | null;
	body: unknown;
	withinContract: boolean;
}

const ROOT = join(__dirname, '../fixtures/real-api');
const load = (api: string) =>
	readdirSync(join(ROOT, api))
		.filter((file) => file.endsWith('.json'))
		.flatMap((file) => JSON.parse(readFileSync(join(ROOT, api, file), 'utf8')) as Fixture[])
		.filter((f) => f.direction === 'delivery' && f.withinContract);

/** Where the trigger reshapes a document on purpose (docs/wholesale-voice-trigger.md). */
const RESHAPED: Record<string, string[]> = {
	// calls and countries keyed by id become lists, as the action node gives them
	inprogress_summary: ['calls', 'countries'],
};

/** The document as the platform posts it: JSON text as the document shows it, or the form body. */
const wire = (fixture: Fixture) => (typeof fixture.body === 'string' ? fixture.body : JSON.stringify(fixture.body));
const documentOf = (fixture: Fixture): IDataObject =>
	typeof fixture.body === 'string' ? (JSON.parse(new URLSearchParams(fixture.body).get('payload') ?? '{}') as IDataObject) : (fixture.body as IDataObject);

describe('the Wholesale Voice Trigger', () => {
	// Two examples share an id (the docs repeat one): each test is a fresh n8n, as far as repeats go.
	beforeEach(() => resetTriggers());
	test.each(load('wholesale').map((f) => [f.name, f] as const))('%s starts the workflow with its fields untouched', async (_name, fixture) => {
		const document = documentOf(fixture);
		const app = String(document.app);
		const host = await hostTrigger({ events: [categoryOf(app)], ...OPEN });
		try {
			const answer = await post(host.url, wire(fixture), fixture.contentType ? { 'content-type': fixture.contentType } : {});
			expect(answer.status).toBe(200);
			await host.settled();
			const items = host.emitted();
			expect(items.length).toBeGreaterThan(0);
			const item = items[0];
			// A legacy fax has no id: its hash identifies it.
			expect(item).toMatchObject({ app, id: document.id ?? document.hash ?? null });
			const data = document.data;
			if (data && typeof data === 'object' && !Array.isArray(data)) {
				for (const [key, value] of Object.entries(data as IDataObject)) {
					if (RESHAPED[app]?.includes(key)) continue;
					const name = ['app', 'id', 'timestamp', 'eventTime', 'eventTimeSource', 'receivedAt', 'query', 'dataIndex'].includes(key) ? `data_${key}` : key;
					expect({ key, value: item[name] }).toEqual({ key, value });
				}
			}
		} finally {
			await host.close();
		}
	});
});

describe('the Hosted PBX Trigger', () => {
	test.each(load('pbx').map((f) => [f.name, f] as const))('%s streamed live: emitted with its values untouched', async (_name, fixture) => {
		resetTriggers();
		const server = http.createServer((req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write(`${JSON.stringify(fixture.body)}\n`);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		const event = fixture.body as { event: string; values: IDataObject };
		const emitted: IDataObject[] = [];
		const { trigger } = contexts({
			node: new HostedPbxTrigger(),
			parameters: { events: [event.event], options: { recoverMissedEvents: false } },
			credentials: { hostedPbxApi: { baseUrl: `${url}/api/v1`, username: 'user', password: 'secret-password' } },
		});
		const context = trigger(
			(data: INodeExecutionData[][]) => emitted.push(...data[0].map((i) => i.json)),
			(error) => {
				throw error;
			},
		);
		const response = await new HostedPbxTrigger().trigger.call(context);
		try {
			await waitFor(() => emitted.length === 1);
			expect(emitted[0]).toMatchObject({ event: event.event, ...event.values, location: null });
			if (typeof event.values.endpoint === 'string') expect(emitted[0].endpointId).toBe(event.values.endpoint.split('/').pop());
		} finally {
			await response.closeFunction?.();
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		}
	});
});
