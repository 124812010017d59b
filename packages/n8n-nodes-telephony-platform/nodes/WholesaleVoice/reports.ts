import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { binaryPropertyField } from '../shared/describe';
import { parseCsv, csvRecords } from '../shared/csv';
import type {
	ApiClient,
	ApiPath,
	OperationContext,
	OutputItem,
	Params,
	ValidationIssue,
} from '../shared/operation';
import type { Check } from '../shared/validation';
import { httpUrl, integerInRange, isBlank, issues, kindOf } from '../shared/validation';
import { FileOutput } from '../shared/operation';
import { findRecords } from '../shared/pagination';
import { isRecord } from '../shared/responseShape';
import { clock } from '../shared/timers';
import { booleanField, numericField, shownFor, textField } from '../shared/fields';
import { unwrap } from './fields';

/**
 * Asynchronous reports: a POST returns a handle; the file is fetched from `/v3/files` exactly once (204 while running,
 * 404 once collected or five minutes after it is ready). The one retrieval is never lost: unreadable rows give the raw file.
 */

const REPORT_RETENTION_SECONDS = 300;

/** Poll delays 1 s, 2 s, 4 s, then every 5 s: a ready report is collected within 5 s, a minute's wait costs about 15 polls. */
function pollDelay(attempt: number): number {
	return Math.min(5000, 1000 * 2 ** attempt);
}

const waiting = shownFor('waitForResult', true);

/** Ten thousand rows of CDRs make an item of a few megabytes: larger groups gain little and strain n8n's memory. */
const MAX_ROWS_PER_ITEM = 10_000;

/** Rows in groups: a 100,000-row report as 100 items, not 100,000. */
export const rowsPerItemField = numericField(
	'Rows per Item',
	'rowsPerItem',
	1,
	{ minValue: 1, maxValue: MAX_ROWS_PER_ITEM, numberPrecision: 0 },
	{
		description:
			'1 outputs one item per row. More puts up to that many rows in the rows list of each item: 100,000 rows in groups of 1,000 make 100 items, and a database node can write each group with one statement (for example with Postgres json_to_recordset).',
	},
);

export const reportFields: INodeProperties[] = [
	booleanField(
		'Wait for the Result',
		'waitForResult',
		"Whether to wait until the report is ready, collect it (it can be fetched only once) and output its rows. Off: output the handle, for Report > Get File or the trigger's report-ready event.",
		{ default: true },
	),
	numericField(
		'Max Wait (Seconds)',
		'maxWaitSeconds',
		240,
		{ minValue: 5, maxValue: REPORT_RETENTION_SECONDS - 10 },
		{
			...waiting,
			description:
				'Give up waiting after this long; the report stays collectable for five minutes after it is ready',
		},
	),
	{ ...rowsPerItemField, ...waiting },
	booleanField(
		'Include Raw File',
		'includeRawFile',
		'Whether to also output the report file as binary data (on the first item)',
		waiting,
	),
	{
		...binaryPropertyField,
		displayOptions: { show: { waitForResult: [true], includeRawFile: [true] } },
	},
	textField(
		'Callback URL',
		'callback',
		'Optional: the platform POSTs here when the report is ready (the Wholesale Voice Trigger receives it)',
		{ placeholder: 'e.g. https://n8n.example.com/webhook/…' },
	),
];

/** Checks every report operation shares: how its rows are grouped when it is waited for, where the platform may call back. */
export function reportIssues(params: Params): ValidationIssue[] {
	return issues(
		params.waitForResult ? rowsPerItemIssue(params.rowsPerItem) : undefined,
		httpUrl('Callback URL', params.callback),
	);
}

/** Rows per Item: absent is one row per item; anything else a whole number in range (not true, a list or empty). */
export function rowsPerItemIssue(value: unknown): Check {
	const field = 'Rows per Item';
	const rule = `a whole number from 1 to ${MAX_ROWS_PER_ITEM}`;
	if (value === undefined) return undefined;
	if (typeof value !== 'number' && typeof value !== 'string')
		return { field, problem: `it is ${kindOf(value)}, not a number`, rule };
	if (isBlank(value)) return { field, problem: 'it is empty', rule };
	return integerInRange(field, value, 1, MAX_ROWS_PER_ITEM);
}

/** The report handle: the answer's `data` when it is a record, else the answer. */
function handleOf(body: unknown): IDataObject {
	const record = (body ?? {}) as IDataObject;
	return isRecord(record.data) ? record.data : record;
}

/** Rows of a report file, CSV or JSON (a list, maybe in an envelope; an empty list is no rows; else `data` as one row); JSON.parse throws on a broken file. */
export function reportRows(content: Buffer, contentType: string): IDataObject[] {
	const text = content.toString('utf8');
	if (/csv/i.test(contentType)) return csvRecords(parseCsv(text));
	const parsed = JSON.parse(text) as unknown;
	const records = findRecords(parsed);
	if (records) return records;
	const body = unwrap(parsed);
	if (
		body === null ||
		body === undefined ||
		body === '' ||
		(isRecord(body) && Object.keys(body).length === 0)
	)
		return [];
	return [isRecord(body) ? body : { value: body as string }];
}

export function goneError(
	context: Pick<OperationContext, 'node' | 'itemIndex'>,
	hash: string,
): NodeApiError {
	return new NodeApiError(
		context.node.getNode(),
		{ httpCode: '404' },
		{
			httpCode: '404',
			itemIndex: context.itemIndex,
			message: `Report file ${hash} is gone: it was already collected (a file can be fetched once, by another run or the report-ready trigger) or it expired (files are kept five minutes after they are ready)`,
			description:
				'Request the report again; an identical request for a report already collected runs it anew.',
		},
	);
}

/** Fetches a report file once it is ready. 204 means not yet; 404 means gone. */
export async function fetchReportFile(
	client: ApiClient,
	hash: string,
): Promise<
	{ ready: false } | { ready: true; content: Buffer; contentType: string } | { gone: true }
> {
	const response = await client.request<Buffer>({
		method: 'GET',
		path: '/v3/files/{ACCOUNT}/{hash}',
		pathParams: { hash },
		okStatuses: [204, 404],
		responseType: 'binary',
		accept: '*/*',
	});
	if (response.status === 404) return { gone: true };
	if (response.status === 204) return { ready: false };
	return {
		ready: true,
		content: response.body,
		contentType: response.headers['content-type'] ?? '',
	};
}

/**
 * The file as items: rows, the raw file on the first when asked, or the raw file alone when rows cannot be read. A report
 * without rows is one item saying so (`rows: 0`, with `about`): the file is fetched only once, so its collection must show.
 */
export function reportOutput(
	hash: string,
	content: Buffer,
	contentType: string,
	params: Params,
	about: IDataObject = {},
): OutputItem[] {
	const fileName = `report-${hash}.${/csv/i.test(contentType) ? 'csv' : 'json'}`;
	const mimeType = contentType.split(';')[0].trim() || 'application/json';
	let rows: IDataObject[];
	try {
		rows = reportRows(content, contentType);
	} catch (error) {
		const parseError = `The report was collected but its rows could not be read: ${(error as Error).message}. The raw file is attached.`;
		return [
			new FileOutput(
				{ hash, collected: true, rows: null, parseError, fileName, fileSize: content.length },
				content,
				fileName,
				mimeType,
			),
		];
	}
	const [first, ...rest] = rowItems(hash, rows, Number(params.rowsPerItem ?? 1), about);
	if (!params.includeRawFile) return [first, ...rest];
	return [new FileOutput(first, content, fileName, mimeType), ...rest];
}

/**
 * One item per row, or with `rowsPerItem` over 1 the rows in groups, in file order (the last may be shorter).
 * No rows is still one item, saying the report was collected.
 */
function rowItems(
	hash: string,
	rows: IDataObject[],
	rowsPerItem: number,
	about: IDataObject,
): IDataObject[] {
	const collected = { ...about, hash, collected: true };
	if (!(rowsPerItem > 1)) return rows.length ? rows : [{ ...collected, rows: 0 }];
	if (!rows.length)
		return [{ ...collected, group: 0, groups: 0, firstRow: null, rowCount: 0, rows: [] }];
	const groups = Math.ceil(rows.length / rowsPerItem);
	return Array.from({ length: groups }, (_, index) => {
		const first = index * rowsPerItem;
		const group = rows.slice(first, first + rowsPerItem);
		return {
			hash,
			group: index + 1,
			groups,
			firstRow: first + 1,
			rowCount: group.length,
			rows: group,
		};
	});
}

/** Polls until the file is ready, with capped backoff, or until `maxWaitMs` is up: the file, or 'gone', or 'timeout'. */
export async function awaitReportFile(
	client: ApiClient,
	hash: string,
	maxWaitMs: number,
	sleep: (ms: number) => Promise<void>,
) {
	const deadline = clock.now() + maxWaitMs;
	for (let attempt = 0; ; attempt++) {
		const file = await fetchReportFile(client, hash);
		if ('gone' in file) return 'gone';
		if (file.ready) return file;
		const delay = pollDelay(attempt);
		if (clock.now() + delay > deadline) return 'timeout';
		await sleep(delay);
	}
}

/** Request, wait and collect: the body of every report operation. */
export async function runReport(
	context: OperationContext,
	params: Params,
	path: ApiPath,
	body: IDataObject,
): Promise<OutputItem[]> {
	const callback = String(params.callback ?? '').trim();
	const requestBody = callback ? { ...body, callback } : body;
	const response = await context.client.request({
		method: 'POST',
		...path,
		body: Object.keys(requestBody).length ? requestBody : undefined,
	});
	const handle = handleOf(response.body);
	const hash = String(handle.hash ?? '');
	if (!params.waitForResult) return [handle];
	const { node, itemIndex } = context;
	if (!/^[0-9a-f]{32}$/i.test(hash)) {
		throw new NodeOperationError(
			node.getNode(),
			'The report request answered without a report hash',
			{ itemIndex, description: JSON.stringify(handle).slice(0, 500) },
		);
	}
	const file = await awaitReportFile(
		context.client,
		hash,
		Number(params.maxWaitSeconds ?? 240) * 1000,
		context.sleep,
	);
	if (file === 'gone') throw goneError(context, hash);
	if (file === 'timeout') {
		throw new NodeOperationError(
			node.getNode(),
			`Report ${hash} was not ready within ${params.maxWaitSeconds} s`,
			{
				itemIndex,
				description: `It is still running and stays collectable for five minutes once ready: use Report > Get File with hash ${hash}, or raise Max Wait.`,
			},
		);
	}
	return reportOutput(hash, file.content, file.contentType, params);
}
