/**
 * Report rows in groups (Rows per Item): a large CDR report as a few items of up to N rows each,
 * in file order, instead of one item per row; checked before sending, against the sandbox.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { report } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/actions/report';
import { reportIssues, reportOutput } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/reports';
import type { RequestEnvironment } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import type { Sandbox } from '../../../sandbox';
import { fakeClockForFile } from '../../harness/clock';
import { sandboxForFile } from '../../harness/sandboxForFile';
import { expectRefused, runWholesale } from './wholesaleKit';

let sandbox: Sandbox;
sandboxForFile((started) => (sandbox = started));
// The node waits for the report on it, the sandbox makes the report ready on it.
const time = fakeClockForFile();

/** The next report the sandbox makes: its type, its size and how long it runs. */
async function nextReport(body: IDataObject) {
	const response = await fetch(`${sandbox.url}/_sandbox/wholesale/reports/next`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	expect(response.status).toBe(200);
}

const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const request = (extra: INodeParameters): INodeParameters => ({ resource: 'report', operation: 'request', reportType: 'voiceCdrDay', date: yesterday(), waitForResult: true, maxWaitSeconds: 30, callback: '', ...extra });
const collectedHash = (run: Awaited<ReturnType<typeof runWholesale>>) => run.requests.find((r) => r.path.startsWith('/v3/files/') && r.status === 200)!.path.split('/').pop()!;
const rowsOf = (items: IDataObject[]) => items.flatMap((item) => item.rows as IDataObject[]);

describe('Report > Rows per Item', () => {
	test('2,500 rows in groups of 1,000: three items in file order, the same rows one per item gives', async () => {
		await nextReport({ type: 'voice_cdr', rows: 2500, readyMs: 300 });
		const grouped = await time.clock.finish(runWholesale(sandbox, request({ rowsPerItem: 1000, includeRawFile: true, binaryPropertyName: 'data' })));
		expect(grouped.error).toBeUndefined();
		const hash = collectedHash(grouped);
		expect(grouped.json.map(({ rows: _rows, ...group }) => group)).toEqual([
			{ hash, group: 1, groups: 3, firstRow: 1, rowCount: 1000 },
			{ hash, group: 2, groups: 3, firstRow: 1001, rowCount: 1000 },
			{ hash, group: 3, groups: 3, firstRow: 2001, rowCount: 500 },
		]);
		expect(grouped.json.map((item) => (item.rows as IDataObject[]).length)).toEqual([1000, 1000, 500]);

		// The same file (collected once already) given again, to Get File with one row per item.
		sandbox.context.faults.add({ api: 'wholesale', method: 'GET', pathPrefix: `/v3/files/123456/${hash}`, status: 200, body: grouped.binary(), contentType: 'application/json' });
		const single = await runWholesale(sandbox, { resource: 'report', operation: 'getFile', hash, rowsPerItem: 1, includeRawFile: false });
		expect(single.error).toBeUndefined();
		expect(single.json).toHaveLength(2500);
		expect(single.json[0]).toMatchObject({ call_id: expect.any(String) });
		expect(rowsOf(grouped.json)).toEqual(single.json);
	});

	test('an empty report in groups is one item saying it was collected, with no rows', async () => {
		await nextReport({ type: 'voice_cdr', rows: 0, readyMs: 200 });
		const run = await time.clock.finish(runWholesale(sandbox, request({ rowsPerItem: 1000, includeRawFile: false })));
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([{ hash: collectedHash(run), collected: true, group: 0, groups: 0, firstRow: null, rowCount: 0, rows: [] }]);
	});

	test('Get File with groups and Include Raw File: the file on the first item only, its rows across the groups', async () => {
		await nextReport({ type: 'voice_cdr', rows: 2500, readyMs: 100 });
		const handle = await runWholesale(sandbox, request({ waitForResult: false }));
		const hash = String(handle.json[0].hash);
		await time.clock.advance(100);
		const run = await runWholesale(sandbox, { resource: 'report', operation: 'getFile', hash, rowsPerItem: 1000, includeRawFile: true, binaryPropertyName: 'file' });
		expect(run.error).toBeUndefined();
		expect(run.json.map((item) => item.rowCount)).toEqual([1000, 1000, 500]);
		expect(run.items.map((item) => Object.keys(item.binary ?? {}))).toEqual([['file'], [], []]);
		expect(run.items[0].binary?.file).toMatchObject({ fileName: `report-${hash}.json`, mimeType: 'application/json' });
		const file = JSON.parse(run.binary(0, 'file').toString()) as IDataObject[];
		expect(rowsOf(run.json)).toEqual(file);
	});

	test('an unreadable file keeps its raw form and parse error, grouped or not', async () => {
		await nextReport({ type: 'voice_cdr', malformed: true, readyMs: 200 });
		const run = await time.clock.finish(runWholesale(sandbox, request({ rowsPerItem: 1000 })));
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([expect.objectContaining({ collected: true, rows: null, parseError: expect.stringMatching(/could not be read/) })]);
		expect(run.binary().length).toBeGreaterThan(0);
	});

	test('one row per item (1 or absent) is the output of before: rows, or the collection of an empty report', () => {
		const hash = 'b'.repeat(32);
		const file = (rows: IDataObject[]) => Buffer.from(JSON.stringify(rows));
		const rows = [{ cdr_id: 1 }, { cdr_id: 2 }, { cdr_id: 3 }];
		expect(reportOutput(hash, file(rows), 'application/json', { rowsPerItem: 1 })).toEqual(rows);
		expect(reportOutput(hash, file(rows), 'application/json', {})).toEqual(rows);
		expect(reportOutput(hash, file([]), 'application/json', { rowsPerItem: 1 })).toEqual([{ hash, collected: true, rows: 0 }]);
		// More rows per item than the report holds: one group, all of them.
		expect(reportOutput(hash, file(rows), 'application/json', { rowsPerItem: 10_000 })).toEqual([{ hash, group: 1, groups: 1, firstRow: 1, rowCount: 3, rows }]);
	});

	test("the operations' own rules refuse what the field's type check lets through; a hidden field is not judged", () => {
		const getFile = report.operations.find((operation) => operation.value === 'getFile')!;
		const fileIssues = (rowsPerItem: unknown) => getFile.validate!({ hash: 'c'.repeat(32), rowsPerItem }, {} as RequestEnvironment);
		for (const bad of [0, -1, 1.5, NaN, 10_001, 'abc', '', null, {}, [5], true]) {
			expect([bad, reportIssues({ waitForResult: true, rowsPerItem: bad }).map((issue) => issue.field)]).toEqual([bad, ['Rows per Item']]);
			expect([bad, fileIssues(bad).map((issue) => issue.field)]).toEqual([bad, ['Rows per Item']]);
		}
		for (const good of [undefined, 1, 1000, 10_000, '250']) {
			expect(reportIssues({ waitForResult: true, rowsPerItem: good })).toEqual([]);
			expect(fileIssues(good)).toEqual([]);
		}
		expect(reportIssues({ waitForResult: false, rowsPerItem: 0 })).toEqual([]);
	});

	test.each<[string, unknown]>([
		['0', 0],
		['a negative number', -5],
		['a fraction', 2.5],
		['NaN', NaN],
		['more than 10,000', 10_001],
		['text', 'a thousand'],
		['empty text', ''],
		['an object', { size: 1000 }],
		['a list', [1000]],
		['true', true],
	])('%s is refused before any request, naming Rows per Item', async (_name, rowsPerItem) => {
		for (const parameters of [request({ rowsPerItem: rowsPerItem as never }), { resource: 'report', operation: 'getFile', hash: 'c'.repeat(32), rowsPerItem: rowsPerItem as never }]) {
			const since = sandbox.context.log.lastSeq;
			const run = await runWholesale(sandbox, parameters);
			expectRefused(run, 'Rows per Item');
			expect(sandbox.context.log.list({ since, method: 'POST', pathPrefix: '/v3/accounts/123456/reports' })).toEqual([]);
			expect(run.error?.description).toMatch(/whole number from 1 to 10000/);
		}
	});
});
