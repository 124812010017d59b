/**
 * The check itself: every read of the configured APIs, in rounds (the reads that need no id, then
 * those whose ids the lists returned), each answer compared with what the nodes read of it.
 */
import { writeFileSync } from 'node:fs';

import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import type { ApiClient, ApiRequest, ApiResponse } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import { FileOutput } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import { shapeItems } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/outputShape';
import { redact } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/redaction';
import type { SecretForms } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/redaction';
import { isRecord } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/responseShape';
import { DEFAULT_MAX_RETRIES, createClient } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/transport/client';
import type { CheckedApi, PlannedRead } from './expected';
import type { IdSource } from './expected';
import { APIS, ID_VARIABLES, credentialsFrom, expectedType, idSource, jsonType, paramsOf, plannedReads } from './expected';
import { readOnlyContext } from './readOnlyHttp';

/** A Hosted PBX list is read twice: a first page for its records, then a page of one for its paging link. */
const PBX_PAGE = { pageSize: 20, page: 1 };
/** The longest wait on a 429 (seconds): the check runs unattended, so it waits out a window the nodes would give up on. */
const MAX_RATE_LIMIT_WAIT_SECONDS = 300;

export interface OperationReport {
	operation: string;
	request: string;
	/** ok; mismatch (something the nodes read is missing or changed, or the status is not a success); skipped (no id to read with). */
	result: 'ok' | 'mismatch' | 'skipped';
	status?: number;
	missing: string[];
	changedType: Array<{ field: string; expected: string; found: string }>;
	/** Information only: fields the package does not know. */
	newFields: string[];
	unexpectedStatus?: { status: number; message: string };
	paging?: string;
	note?: string;
}

export interface CheckResult {
	exitCode: number;
	reports: OperationReport[];
	/** Why the check stopped before the end (a refused credential), if it did. */
	stopped?: string;
	jsonPath?: string;
}

export interface CheckOptions {
	env: NodeJS.ProcessEnv;
	/** Where the JSON report goes. */
	jsonPath: string;
	/** One line of the terminal output (already redacted). */
	print: (line: string) => void;
}

class Stop extends Error {}

interface Session {
	api: CheckedApi;
	client: ApiClient;
	forms: SecretForms;
	requests: number;
	budget: number;
}

const statusOf = (error: unknown) => Number((error as { httpCode?: unknown }).httpCode ?? NaN);

/** One request of the check, counted against the budget; a refused credential on an API's first request stops the check. */
async function send(session: Session, request: ApiRequest): Promise<ApiResponse> {
	if (session.requests >= session.budget) throw new Stop(`The request budget of the ${session.api.definition.label} (${session.budget}) is spent; the check stopped`);
	session.requests++;
	try {
		return await session.client.request(request);
	} catch (error) {
		const status = statusOf(error);
		if (session.requests === 1 && (status === 401 || status === 403)) {
			throw new Stop(`The ${session.api.definition.label} refused the credential (${status}): ${(error as Error).message}. Check ${Object.values(session.api.env).join(', ')}. Nothing more was sent.`);
		}
		throw error;
	}
}

/** The records the node makes of an answer, through the operation's own output. */
function recordsOf(read: PlannedRead, response: ApiResponse, params: IDataObject): IDataObject[] {
	const output = read.operation.output ? read.operation.output(response, params) : response.body;
	return (Array.isArray(output) ? output : [output]).filter((item): item is IDataObject => !(item instanceof FileOutput) && isRecord(item));
}

/** Compares the records with what the nodes read of them. */
function compare(read: PlannedRead, records: IDataObject[], report: OperationReport): void {
	if (records.length === 0) {
		report.note = 'no records to compare';
		return;
	}
	for (const field of read.reads) {
		const expected = expectedType(read, field);
		const present = records.filter((record) => record[field] !== undefined);
		if (present.length === 0) {
			if (!expected?.optional) report.missing.push(field);
			continue;
		}
		if (!expected) continue;
		const found = [...new Set(present.map((record) => jsonType(record[field])))].filter((type) => !expected.types.includes(type) && !(type === 'null' && expected.optional));
		if (found.length) report.changedType.push({ field, expected: expected.types.join(' or '), found: found.join(', ') });
	}
	if (read.known.length > 1) report.newFields = [...new Set(records.flatMap((record) => Object.keys(record)))].filter((field) => !read.known.includes(field)).sort();
}

function checkRateHeaders(session: Session, response: ApiResponse, report: OperationReport): void {
	for (const header of session.api.rateHeaders) {
		if (!Number.isFinite(Number(response.headers[header] ?? NaN))) report.missing.push(`header ${header}`);
	}
}

/** A Hosted PBX list of two or more records must name its next page when asked for one record a page (`nextPage`, which pagination.ts follows). */
async function checkPaging(session: Session, request: ApiRequest, report: OperationReport): Promise<void> {
	const response = await send(session, { ...request, qs: { ...request.qs, pageSize: 1, page: 1 } });
	const nextPage = isRecord(response.body) ? response.body.nextPage : undefined;
	if (typeof nextPage !== 'string' || nextPage === '') report.paging = `a page of 1 of a list of 2 or more records has no nextPage link (found ${JSON.stringify(nextPage ?? null)})`;
}

async function checkRead(session: Session, read: PlannedRead, ids: IDataObject): Promise<{ report: OperationReport; records: IDataObject[] }> {
	const params = paramsOf(read.operation, ids);
	const environment = await session.client.environment();
	const built = read.operation.request!(params, environment);
	const pbxList = read.operation.paging === 'pbx';
	const request = pbxList ? { ...built, qs: { ...built.qs, ...PBX_PAGE } } : built;
	const report: OperationReport = { operation: read.name, request: `GET ${new URL(environment.absoluteUrl(built.path, built.pathParams)).pathname}`, result: 'ok', missing: [], changedType: [], newFields: [] };
	let records: IDataObject[] = [];
	try {
		const response = await send(session, request);
		report.status = response.status;
		checkRateHeaders(session, response, report);
		try {
			records = recordsOf(read, response, params);
			compare(read, records, report);
		} catch (error) {
			report.missing.push('(the answer: the node cannot read it)');
			report.note = (error as Error).message;
		}
		if (pbxList && records.length >= 2) await checkPaging(session, request, report);
	} catch (error) {
		if (error instanceof Stop) throw error;
		const status = statusOf(error);
		report.status = Number.isFinite(status) ? status : undefined;
		report.unexpectedStatus = { status: report.status ?? 0, message: (error as Error).message };
	}
	if (report.missing.length || report.changedType.length || report.unexpectedStatus || report.paging) report.result = 'mismatch';
	return { report, records };
}

/** The id a list's first fitting record gives for a read that takes one. */
function idFrom(list: PlannedRead, records: IDataObject[], params: IDataObject, pick?: IdSource['pick']): unknown {
	for (const record of records) {
		// The id the node shows (Simplified), wherever it takes it from.
		const id = pick ? pick(record, params) : (shapeItems(list.operation.shape, {}, [record])[0] as IDataObject).id;
		if (id !== undefined && id !== null && id !== '') return id;
	}
	return undefined;
}

/** The ids of a read: from the environment or a list that was read; `wait` while a list is still to be read; why not, otherwise. */
type Ids = { ids: IDataObject } | { wait: true } | { skip: string };

function idsOf(read: PlannedRead, reads: PlannedRead[], done: Map<string, IDataObject[]>, env: NodeJS.ProcessEnv): Ids {
	const ids: IDataObject = {};
	const defaults = paramsOf(read.operation);
	const operation = read.name.split(' ')[1];
	for (const param of read.ids) {
		const source = idSource(read.product, operation, param)!;
		const set = source.env ? env[source.env]?.trim() : undefined;
		const orSet = source.env ? ` (or set ${source.env} to ${source.meaning})` : '';
		if (set) {
			ids[param] = set;
			continue;
		}
		const list = source.from && reads.find((other) => other.name === `${read.product} ${source.from}`);
		if (!list) return { skip: `no list gives ${param}: set ${source.env} to ${source.meaning} to check it` };
		const records = done.get(list.name);
		if (!records) return { wait: true };
		const id = idFrom(list, records, defaults, source.pick);
		if (id === undefined) return { skip: `no id: the list it takes ${param} from (${source.from}) returned none${orSet}` };
		ids[param] = id as IDataObject[string];
	}
	return { ids };
}

/** Every read of one API: rounds until no read that is left can get its ids. */
async function checkApi(session: Session, reads: PlannedRead[], reports: OperationReport[], env: NodeJS.ProcessEnv): Promise<void> {
	const done = new Map<string, IDataObject[]>();
	const skip = (read: PlannedRead, note: string) => {
		reports.push({ operation: read.name, request: '', result: 'skipped', missing: [], changedType: [], newFields: [], note });
		done.set(read.name, []);
	};
	for (const read of reads.filter((r) => r.unfilled.length)) skip(read, `needs ${read.unfilled.join(', ')}, which no list gives`);
	let left = reads.filter((read) => read.unfilled.length === 0);
	while (left.length) {
		const waiting: PlannedRead[] = [];
		for (const read of left) {
			const found = idsOf(read, reads, done, env);
			if ('wait' in found) waiting.push(read);
			else if ('skip' in found) skip(read, found.skip);
			else {
				const { report, records } = await checkRead(session, read, found.ids);
				reports.push(report);
				done.set(read.name, records);
			}
		}
		if (waiting.length === left.length) {
			for (const read of waiting) skip(read, `no id: none of ${read.ids.join(', ')} has a list that was read`);
			break;
		}
		left = waiting;
	}
}

function cell(report: OperationReport): string {
	if (report.result === 'skipped') return `skipped: ${report.note}`;
	const parts = [
		report.unexpectedStatus && `unexpected status ${report.unexpectedStatus.status}: ${report.unexpectedStatus.message}`,
		report.missing.length && `missing: ${report.missing.join(', ')}`,
		report.changedType.length && `other type: ${report.changedType.map((c) => `${c.field} (${c.found}, expected ${c.expected})`).join(', ')}`,
		report.paging && `paging: ${report.paging}`,
		report.newFields.length && `new (information): ${report.newFields.join(', ')}`,
		report.note && report.result === 'ok' && report.note,
	].filter(Boolean);
	return [report.result === 'ok' ? 'ok' : 'MISMATCH', ...parts].join('; ');
}

/** Runs the check over every API whose credential is in the environment. */
export async function checkLive(options: CheckOptions): Promise<CheckResult> {
	const configured: Array<{ api: CheckedApi; credentials: ICredentialDataDecryptedObject }> = [];
	const problems: string[] = [];
	for (const api of APIS) {
		const found = credentialsFrom(api, options.env);
		if (Array.isArray(found)) problems.push(`${api.definition.label}: set ${found.join(', ')} too (or none of ${Object.values(api.env).join(', ')})`);
		else if (found) configured.push({ api, credentials: { ...found, maxRateLimitWait: MAX_RATE_LIMIT_WAIT_SECONDS } });
	}
	const allForms = configured.map(({ api, credentials }) => api.definition.secretForms(credentials));
	const print = (line: string) => options.print(allForms.reduce((text, forms) => redact(text, forms), line));
	if (problems.length || configured.length === 0) {
		for (const problem of problems) print(problem);
		if (configured.length === 0 && !problems.length) print(`No credentials: set the variables of at least one API (${APIS.map((api) => Object.values(api.env).join(', ')).join('; ')})`);
		return { exitCode: 2, reports: [], stopped: 'credentials' };
	}
	const plans = configured.map(({ api, credentials }) => {
		const reads = plannedReads(api);
		// A few per read: one, a second for a PBX list's paging link; each may be retried after a 429.
		const budget = reads.reduce((sum, read) => sum + (read.operation.paging === 'pbx' ? 2 : 1), 0);
		const client = createClient(readOnlyContext(api.definition, credentials), api.definition);
		return { api, reads, session: { api, client, forms: api.definition.secretForms(credentials), requests: 0, budget } as Session };
	});
	for (const { api, reads, session } of plans) {
		const hourly = api.key === 'hostedPbx' ? ' (the Hosted PBX allows 1,200 an hour)' : '';
		print(`${api.definition.label}: ${reads.length} reads, at most ${session.budget} requests${hourly}, each retried at most ${DEFAULT_MAX_RETRIES} times after a 429; only GET is sent`);
	}
	print(`Ids no list gives, from the environment: ${ID_VARIABLES.map((name) => `${name} ${options.env[name]?.trim() ? 'set' : 'not set'}`).join(', ')}`);
	const reports: OperationReport[] = [];
	let stopped: string | undefined;
	try {
		for (const { reads, session } of plans) await checkApi(session, reads, reports, options.env);
	} catch (error) {
		if (!(error instanceof Stop)) throw error;
		stopped = error.message;
	}
	const width = Math.max(...reports.map((r) => r.operation.length), 9);
	print('');
	print(`${'Operation'.padEnd(width)}  Status  Result`);
	for (const report of reports) print(`${report.operation.padEnd(width)}  ${String(report.status ?? '-').padEnd(6)}  ${cell(report)}`);
	const mismatches = reports.filter((r) => r.result === 'mismatch').length;
	const skipped = reports.filter((r) => r.result === 'skipped').length;
	print('');
	if (stopped) print(`STOPPED: ${stopped}`);
	print(`${reports.length - mismatches - skipped} ok, ${mismatches} mismatched, ${skipped} skipped`);
	const redactedReports = JSON.parse(allForms.reduce((text, forms) => redact(text, forms), JSON.stringify({ stopped, reports }))) as { stopped?: string; reports: OperationReport[] };
	writeFileSync(options.jsonPath, `${JSON.stringify(redactedReports, null, '\t')}\n`);
	print(`JSON report: ${options.jsonPath}`);
	return { exitCode: stopped ? 2 : mismatches ? 1 : 0, reports: redactedReports.reports, stopped: redactedReports.stopped, jsonPath: options.jsonPath };
}
