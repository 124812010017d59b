import type { Sandbox } from '../../sandbox/index';
import { sandboxForFile } from '../harness/sandboxForFile';

/**
 * Answer drift through the admin API (`/_sandbox/drift`): the JSON answers of GET requests under a
 * path prefix come back renamed, with numbers as text, with added fields, without paging links, or
 * as a status; writes and other paths are untouched; DELETE and reset clear it. Read with plain fetch.
 */

let sandbox: Sandbox;
sandboxForFile((started) => (sandbox = started));

const PBX_AUTH = { Authorization: `Basic ${Buffer.from('acme.admin:acme-admin-secret').toString('base64')}` };

async function admin(method: string, body?: unknown) {
	const response = await fetch(`${sandbox.url}/_sandbox/drift`, { method, headers: body === undefined ? {} : { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
	return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function pbx(path: string, init: RequestInit = {}) {
	const response = await fetch(`${sandbox.url}/api/v1${path}`, { ...init, headers: { ...PBX_AUTH, Accept: 'application/json', ...(init.headers ?? {}) } });
	const text = await response.text();
	return { status: response.status, length: Number(response.headers.get('content-length')), text, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

describe('sandbox answer drift', () => {
	it('renames a field, sends a number as text and adds a field, with the right Content-Length', async () => {
		const before = await pbx('/customers/me/creditstatus');
		expect(typeof before.body?.balance).toBe('number');
		expect((await admin('POST', { api: 'pbx', pathPrefix: '/api/v1/customers/*/creditstatus', rename: { accountType: 'plan' }, asText: ['balance'], add: { region: 'eu' } })).status).toBe(200);
		const after = await pbx('/customers/me/creditstatus');
		expect(after.body).toMatchObject({ plan: before.body?.accountType, balance: String(before.body?.balance), region: 'eu' });
		expect(after.body).not.toHaveProperty('accountType');
		expect(after.length).toBe(Buffer.byteLength(after.text));
		expect((await admin('GET')).body.drifts).toEqual([expect.objectContaining({ hits: 1 })]);
	});

	it('changes each item of a list wrapper and drops its paging links', async () => {
		await admin('POST', { api: 'pbx', pathPrefix: '/api/v1/customers/*/calls', dropPaging: true, add: { extra: 1 } });
		const page = await pbx('/customers/me/calls?pageSize=1');
		expect(page.body).not.toHaveProperty('nextPage');
		expect(page.body?.items).toEqual([expect.objectContaining({ extra: 1 })]);
		expect(page.body?.totalItems).toBeGreaterThan(1);
	});

	it('answers a status instead, for GET only; other paths are untouched', async () => {
		await admin('POST', { api: 'pbx', pathPrefix: '/api/v1/customers/*/phonebook', status: 404 });
		expect((await pbx('/customers/me/phonebook')).status).toBe(404);
		const created = await pbx('/customers/me/phonebook', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ type: 'phonebookentry', name: 'Drift', phoneNumber: '+447700900555' }) });
		expect(created.status).toBe(201);
		expect((await pbx('/customers/me/sms')).status).toBe(200);
	});

	it('is cleared by DELETE and by reset, and refuses a drift that changes nothing', async () => {
		await admin('POST', { pathPrefix: '/api/v1/customers', status: 404 });
		expect((await admin('DELETE')).body).toEqual({ removed: 1 });
		expect((await pbx('/customers')).status).toBe(200);
		await admin('POST', { pathPrefix: '/api/v1/customers', status: 404 });
		sandbox.reset();
		expect((await pbx('/customers')).status).toBe(200);
		expect((await admin('POST', { pathPrefix: '/api/v1/customers' })).status).toBe(400);
		expect((await admin('POST', { rename: { a: 'b' } })).status).toBe(400);
	});
});
