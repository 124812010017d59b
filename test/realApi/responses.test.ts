/**
 * Real responses through the nodes (issue 19): every response example of the platforms' public
 * documentation that falls within the contract (test/fixtures/real-api/, sources named there) is
 * answered, as is, to the operations that send its endpoint's request, through n8n's execution
 * code. Each must be accepted and its records' fields must reach the items untouched (the node
 * may add fields; where it reshapes a record on purpose, RESHAPED says how and the docs say why). A
 * read with the output choice is read Raw: Simplified is a reshaping the user chooses.
 */
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox';
import type { OperationRequest } from '../contractKit';
import { loggedPath, operationRequests, requestMatches, rowPattern } from '../contractKit';
import { runNode } from '../harness/n8n';

interface Fixture {
	name: string;
	endpoint: string;
	direction: 'request' | 'response' | 'delivery';
	contentType: string | null;
	body: unknown;
	withinContract: boolean;
}

const ROOT = join(__dirname, '../fixtures/real-api');
const fixtures = (['pbx', 'wholesale'] as const).flatMap((api) =>
	readdirSync(join(ROOT, api))
		.filter((file) => file.endsWith('.json'))
		.flatMap((file) => (JSON.parse(readFileSync(join(ROOT, api, file), 'utf8')) as Fixture[]).map((fixture) => ({ api, file, ...fixture }))),
);
const responses = fixtures.filter((f) => f.direction === 'response' && f.withinContract);

/** Operations that reshape a record on purpose: the fields they move, documented in the node's docs page. */
const RESHAPED: Record<string, string> = {
	'wholesaleVoice voice.getCallsInProgress': 'calls and countries keyed by id become lists (docs/wholesale-voice.md, Reading answers)',
	'wholesaleVoice report.listFiles': 'files keyed by hash become a list, one item per file (docs/wholesale-voice.md, Reading answers)',
	'hostedPbx recording.createDownloadLink': 'the single-use token becomes a download link (docs/hosted-pbx.md)',
};

/**
 * What the documentation shows as records: a PBX list's items, the content of a wholesale
 * `{success, data}` wrapper, the one list of a wrapper object (`{Invoices: [...]}`,
 * `{success, cps: [...]}`), an array's elements, or the object itself.
 */
function recordsOf(body: unknown): IDataObject[] {
	if (Array.isArray(body)) return body.filter((r) => r && typeof r === 'object') as IDataObject[];
	if (!body || typeof body !== 'object') return [];
	const object = body as IDataObject;
	if (Array.isArray(object.items)) return object.items as IDataObject[];
	if ('success' in object && 'data' in object) return recordsOf(object.data);
	const others = Object.keys(object).filter((key) => key !== 'success');
	if (others.length === 1 && Array.isArray(object[others[0]])) return recordsOf(object[others[0]]);
	return [object];
}

/** The status the document shows (in the fixture's notes), else 204 for no body, else 200. */
function statusOf(fixture: Fixture & { notes?: string }): number {
	const documented = /Documented status: HTTP\/1\.1 (\d{3})/.exec(fixture.notes ?? '');
	if (documented) return Number(documented[1]);
	return fixture.body === null ? 204 : 200;
}

/** An answer the contract calls a failure (`{success: false, errors}`): the node must raise it, with the API's messages. */
const isFailure = (body: unknown) => !!body && typeof body === 'object' && (body as IDataObject).success === false;

let sandbox: Sandbox;
let runs: OperationRequest[];
let answer: { status: number; contentType: string | null; body: unknown; pattern: RegExp; methods: string } = { status: 200, contentType: null, body: null, pattern: /$^/, methods: '' };
const received: string[] = [];
/** Answers the fixture to requests of its row; every other request (a read before a write) goes on to the sandbox. */
const replay = http.createServer((req, res) => {
	const path = (req.url ?? '').split('?')[0];
	if (!requestMatches(`${req.method} ${path}`, answer.methods, answer.pattern)) {
		const forward = http.request(`${sandbox.url}${req.url}`, { method: req.method, headers: req.headers }, (answered) => {
			res.writeHead(answered.statusCode ?? 502, answered.headers);
			answered.pipe(res);
		});
		req.pipe(forward);
		return;
	}
	received.push(`${req.method} ${req.url}`);
	req.resume();
	const text = answer.body === null ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
	res.writeHead(answer.status, answer.contentType ? { 'content-type': answer.contentType } : {});
	res.end(text);
});
let replayUrl = '';

// Every operation runs once first (seconds; more on a busy machine): a generous bound, not Jest's 30 s.
beforeAll(async () => {
	sandbox = await startSandbox();
	runs = await operationRequests(sandbox);
	await new Promise<void>((resolve) => replay.listen(0, '127.0.0.1', resolve));
	replayUrl = `http://127.0.0.1:${(replay.address() as AddressInfo).port}`;
}, 180_000);
afterAll(async () => {
	await sandbox.close();
	await new Promise((resolve) => replay.close(resolve));
});

/**
 * The operations whose answer is the fixture's row (their last request), leaving out file
 * downloads for JSON examples (they ask for CSV or audio). A GET twin's example is replayed
 * through the POST the node sends instead (the same answer, docs/wholesale-voice.md).
 */
function operationsFor(fixture: (typeof responses)[number]): OperationRequest[] {
	const [methods, path] = fixture.endpoint.split(' ');
	const pattern = rowPattern(loggedPath(fixture.api, path));
	const twin = GET_TWINS.some((row) => row.test(path)) ? 'GET,POST' : methods;
	const json = typeof fixture.body !== 'string';
	return runs.filter((run) => (run.ok || run.requests.length === 1) && requestMatches(run.requests[run.requests.length - 1], twin, pattern) && !(json && isDownload(run)));
}
/** An operation whose answer is a file (it asks for CSV or audio); a report's optional raw file does not count. */
const isDownload = (run: OperationRequest) => run.op.fields.some((f) => f.name === 'binaryPropertyName') && !run.op.fields.some((f) => f.name === 'includeRawFile');
const GET_TWINS = [/^\/v3\/accounts\/\{ACCOUNT\}\/summary\//, /^\/v3\/voice\/\{ACCOUNT\}\/cdr/];
/** Where the records of an example are not where recordsOf looks. */
const RECORDS: Record<string, (body: IDataObject) => unknown> = {
	// One item per invoice, with the totals due added to each.
	'invoices-list': (body) => body.Invoices,
};

function credentialsAt(run: OperationRequest, url: string) {
	const credentials = run.op.node.credentials(sandbox);
	const [type, values] = Object.entries(credentials)[0];
	return { [type]: { ...values, baseUrl: run.op.node.key === 'hostedPbx' ? `${url}/api/v1` : url } };
}

test('every response example has an operation to replay it through', () => {
	const uncovered = responses.filter((f) => operationsFor(f).length === 0).map((f) => `${f.name} (${f.endpoint})`);
	expect(uncovered).toEqual([]);
	expect(responses.length).toBeGreaterThan(60);
});

test.each(responses.map((f) => [f.name, f] as const))('%s: accepted, fields untouched', async (_name, fixture) => {
	const operations = operationsFor(fixture);
	const [methods, path] = fixture.endpoint.split(' ');
	for (const run of operations) {
		answer = { status: statusOf(fixture), contentType: fixture.contentType, body: fixture.body, pattern: rowPattern(loggedPath(fixture.api, path)), methods: GET_TWINS.some((row) => row.test(path)) ? 'GET,POST' : methods };
		received.length = 0;
		const records = recordsOf(RECORDS[fixture.name] ? RECORDS[fixture.name](fixture.body as IDataObject) : fixture.body);
		const parameters = {
			...run.parameters,
			...(run.op.fields.some((f) => f.name === 'limit') ? { returnAll: false, limit: Math.max(1, records.length) } : {}),
			// The records as answered (Output: Raw): Simplified renames and leaves out fields on purpose (docs, Output).
			...(run.op.spec.shape ? { output: 'raw' } : {}),
		} as INodeParameters;
		const result = await runNode({ node: run.op.node.type(), parameters, credentials: credentialsAt(run, replayUrl) });
		const context = `${fixture.name} through ${run.op.name}`;
		expect({ context, requests: received.length }).toEqual({ context, requests: 1 });
		if (isFailure(fixture.body)) {
			for (const message of ((fixture.body as IDataObject).errors as string[]) ?? []) expect(result.error?.message).toContain(message);
			continue;
		}
		expect({ context, error: result.error?.message }).toEqual({ context, error: undefined });
		if (typeof fixture.body !== 'object' || fixture.body === null || run.op.name in RESHAPED) continue;
		const items = result.items.map((i) => i.json);
		if (fixture.name === 'pbx-creditstatus-representation') {
			// Raw is the answer as it came: the variant with `creditRemaining` gets no `balance` added
			// (Simplified reads either name).
			expect(items[0]).not.toHaveProperty('balance');
		}
		records.forEach((record, index) => {
			const item = items[index] ?? {};
			for (const [key, value] of Object.entries(record)) {
				expect({ context, index, key, value: item[key] }).toEqual({ context, index, key, value });
			}
		});
	}
});
