/**
 * The contract's endpoint rows as patterns, and which operation of the action nodes sends which
 * request (each run once with its valid example against the sandbox): shared by the contract-row
 * test and the real-API fixture tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../sandbox';
import type { OperationUnderTest } from './hardening/kit';
import { OPERATIONS, exampleOf, runOperation } from './hardening/kit';

export const contract = JSON.parse(readFileSync(join(__dirname, 'fixtures/real-api/contract-endpoints.json'), 'utf8')) as {
	wholesale: { rows: string[]; webhookApps: string[]; httpPostApps: string[] };
	pbx: { rows: string[] };
};

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `{NAME}` is one segment; `[a|b]` is one of the alternatives; `[.pdf]` may be there or not; `/([a|b])` is an optional segment. */
export function rowPattern(path: string): RegExp {
	let source = '';
	for (const part of path.split(/(\/\(\[[^\]]+\]\)|\{[^}]+\}|\[[^\]]+\])/)) {
		if (!part) continue;
		if (part.startsWith('/([')) source += `(?:/(?:${part.slice(3, -2).split('|').map(escape).join('|')}))?`;
		else if (part.startsWith('{')) source += '[^/]+';
		else if (part.startsWith('[')) {
			const inner = part.slice(1, -1);
			source += inner.includes('|') ? `(?:${inner.split('|').map((a) => (a === 'name' ? '[^/]+' : escape(a))).join('|')})` : `(?:${escape(inner)})?`;
		} else source += escape(part);
	}
	return new RegExp(`^${source}/?$`);
}

/** A row's path as the sandbox logs it (the PBX API lives under /api/v1). */
export const loggedPath = (api: 'wholesale' | 'pbx', path: string) => (api === 'pbx' ? `/api/v1${path}` : path);

export interface OperationRequest {
	op: OperationUnderTest;
	parameters: INodeParameters;
	/** Every request of the run, `METHOD /path` without the query. */
	requests: string[];
	/** The run succeeded (its requests are the operation's whole exchange; a failed one-request run still shows its request). */
	ok: boolean;
}

/** More runs of some operations, for the rows their other option values reach. */
export const VARIANTS: Record<string, IDataObject[]> = {
	'wholesaleVoice prepay.getPrepayments': [{ which: 'latest/1' }, { which: 'latest/10' }],
	'wholesaleVoice prepay.getTransfers': [{ which: 'latest/1' }, { which: 'latest/10' }],
	'wholesaleVoice prepay.requestSummary': [{ waitForResult: false }],
	'wholesaleVoice report.request': ['voiceSummaryIn', 'voiceSummaryOut', 'voiceCdrDay', 'voiceCdrLatest', 'smsCdrDay', 'smsCdrLatest'].map((reportType) => ({ reportType, latest: '10', waitForResult: false })),
	'wholesaleVoice summary.get': [{ direction: 'in' }, { direction: 'out' }],
	'wholesaleVoice voice.getCdrs': [{ period: 'day', day: new Date().toISOString().slice(0, 10) }],
	'wholesaleVoice voice.getRejectedCalls': [{ reason: 'maxcost' }],
};

/** Each operation run with its example and its variants: the requests it sent. */
export async function operationRequests(sandbox: Sandbox): Promise<OperationRequest[]> {
	const out: OperationRequest[] = [];
	for (const op of OPERATIONS) {
		for (const parameters of [exampleOf(op), ...(VARIANTS[op.name] ?? []).map((variant) => ({ ...exampleOf(op), ...variant }) as INodeParameters)]) {
			// Each run against the seed, so that an earlier Delete does not leave a later Get nothing to read.
			sandbox.reset();
			const run = await runOperation(sandbox, op, parameters);
			out.push({ op, parameters, requests: run.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`), ok: !run.error });
		}
	}
	return out;
}

/** Whether a request `METHOD /path` is one of the row's (a row's methods separated by commas, or ANY). */
export function requestMatches(request: string, methods: string, pattern: RegExp): boolean {
	const [method, path] = request.split(' ');
	return (methods === 'ANY' || methods.split(',').includes(method)) && pattern.test(path);
}
