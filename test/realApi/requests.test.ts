/**
 * Real request bodies through the nodes (issue 19): every request example of the platforms'
 * public documentation within the contract (routing configurations, an SMS endpoint, a port
 * submission, PBX writes) is given to the operation that sends it, as a user would (JSON modes
 * take the document as is; field modes its values), and run through n8n's execution code
 * against the sandbox: nothing is refused, and the body that reaches the platform is the
 * document's (the PBX adds the `type` its representations carry).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox';
import type { OperationUnderTest } from '../hardening/kit';
import { OPERATIONS, exampleOf, locator, runOperation } from '../hardening/kit';

interface Fixture {
	name: string;
	endpoint: string;
	direction: string;
	body: unknown;
	withinContract: boolean;
}

const ROOT = join(__dirname, '../fixtures/real-api');
const requests = ['pbx', 'wholesale'].flatMap((api) =>
	readdirSync(join(ROOT, api))
		.filter((file) => file.endsWith('.json'))
		.flatMap((file) => JSON.parse(readFileSync(join(ROOT, api, file), 'utf8')) as Fixture[])
		.filter((f) => f.direction === 'request' && f.withinContract),
);

const operation = (name: string): OperationUnderTest => OPERATIONS.find((op) => op.name === name)!;

/** For each example: the operation that sends it, and its parameters as a user fills them. */
const AS_PARAMETERS: Record<string, (body: IDataObject) => { op: string; parameters: IDataObject }> = {
	'routing-sip-then-pstn-maxcpm': (body) => ({ op: 'wholesaleVoice numberRouting.set', parameters: { mode: 'json', configuration: JSON.stringify(body) } }),
	'routing-forward-all-pstn': (body) => ({ op: 'wholesaleVoice numberRouting.set', parameters: { mode: 'json', configuration: JSON.stringify(body) } }),
	'routing-sip-percent-did': (body) => ({ op: 'wholesaleVoice numberRouting.set', parameters: { mode: 'json', configuration: JSON.stringify(body) } }),
	'number-sms-put': (body) => ({ op: 'wholesaleVoice number.setSmsEndpoint', parameters: { mode: body.mode, endpoint: body.endpoint } }),
	'port-submission': (body) => ({ op: 'wholesaleVoice port.submit', parameters: { mode: 'json', submission: JSON.stringify(body) } }),
	'pbx-phonebook-create': (body) => ({ op: 'hostedPbx phoneBook.create', parameters: { name: body.name, phoneNumber: body.phoneNumber, additionalFields: { speedDial: body.speedDial } } }),
	'pbx-phonebook-update': (body) => ({ op: 'hostedPbx phoneBook.update', parameters: { updateFields: { name: body.name, phoneNumber: body.phoneNumber, speedDial: body.speedDial } } }),
	'pbx-sms-send': (body) => ({ op: 'hostedPbx sms.send', parameters: { from: locator(String(body.from)), to: body.to, body: body.body, defaultCountryCode: '44' } }),
	'pbx-call-originate': (body) => ({ op: 'hostedPbx call.originate', parameters: { endpointId: locator(String(body.endpoint).split('/').pop()!), to: body.to, defaultCountryCode: '44' } }),
};

/**
 * The documents send UK numbers in national form (07902000000); the nodes refuse a national
 * number unless Default Country Code says its country (issue 35), so a user sets 44 and the
 * platform receives the same number in international form.
 */
const internationalForm = (to: unknown) => `+44${String(to).slice(1)}`;
const expectedBody = (fixture: Fixture, body: IDataObject): IDataObject => {
	if (fixture.name === 'pbx-call-originate') return { to: internationalForm(body.to) };
	if (fixture.name === 'pbx-sms-send') return { ...body, to: internationalForm(body.to) };
	return body;
};

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

test('every request example has its operation', () => {
	expect(requests.map((f) => f.name).filter((name) => !AS_PARAMETERS[name])).toEqual([]);
});

test.each(requests.map((f) => [f.name, f] as const))('%s: accepted, and sent as the document shows it', async (_name, fixture) => {
	const body = fixture.body as IDataObject;
	const { op: name, parameters } = AS_PARAMETERS[fixture.name](body);
	const op = operation(name);
	const run = await runOperation(sandbox, op, { ...exampleOf(op), ...parameters } as INodeParameters);
	const refusal = /^Invalid /.test(run.error?.message ?? '') || run.refusedByN8n ? run.error?.message : undefined;
	expect({ refusal }).toEqual({ refusal: undefined });
	const sent = sandbox.context.log.list({}).filter((r) => r.method !== 'GET').pop();
	expect(sent?.body).toMatchObject(expectedBody(fixture, body));
});
