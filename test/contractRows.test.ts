/**
 * Every endpoint row of the contract has an operation (issue 19). Each operation of the four
 * action nodes runs once, with its valid example (the same examples as the hostile-input
 * battery), against the sandbox; the requests it sends are matched against the rows of
 * test/fixtures/real-api/contract-endpoints.json, one per method. A row no operation reaches
 * fails, unless it is one of the deliberate exceptions below, each documented in docs/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../sandbox';
import { OPERATIONS, exampleOf, runOperation } from './hardening/kit';

const contract = JSON.parse(readFileSync(join(__dirname, 'fixtures/real-api/contract-endpoints.json'), 'utf8')) as {
	wholesale: { rows: string[] };
	pbx: { rows: string[] };
};

/**
 * Rows reached on purpose by no action node operation, with the reason the docs give
 * (docs/wholesale-voice.md and docs/hosted-pbx.md, "Contract rows not used").
 */
const NOT_OPERATIONS: Record<string, string> = {
	'wholesale GET /v3/accounts/{ACCOUNT}/summary/([in|out])/{KEY}': 'the GET twin of the POST the node sends: the contract prefers the JSON body',
	'wholesale GET /v3/voice/{ACCOUNT}/cdr': 'the GET twin of the POST the node sends: filters are accepted only in a JSON body',
	'wholesale GET /v3/voice/{ACCOUNT}/cdr/{YYYY-MM-DD}': 'the GET twin of the POST the node sends: filters are accepted only in a JSON body',
	'pbx GET /stream': 'the live event stream: the Hosted PBX Trigger holds it',
};

/** More runs of some operations, for the rows their other option values reach. */
const VARIANTS: Record<string, IDataObject[]> = {
	'wholesaleVoice prepay.getPrepayments': [{ which: 'latest/1' }, { which: 'latest/10' }],
	'wholesaleVoice prepay.getTransfers': [{ which: 'latest/1' }, { which: 'latest/10' }],
	'wholesaleVoice report.request': ['voiceSummaryIn', 'voiceSummaryOut', 'voiceCdrDay', 'voiceCdrLatest', 'smsCdrDay', 'smsCdrLatest'].map((reportType) => ({ reportType, latest: '10' })),
	'wholesaleVoice summary.get': [{ direction: 'in' }, { direction: 'out' }],
	'wholesaleVoice voice.getCdrs': [{ period: 'day', day: new Date().toISOString().slice(0, 10) }],
	'wholesaleVoice voice.getRejectedCalls': [{ reason: 'maxcost' }],
	// The battery's earlier Delete removed entry 1.
	'hostedPbx phoneBook.update': [{ entryId: { __rl: true, mode: 'id', value: '2' } }],
};

interface Row {
	api: 'wholesale' | 'pbx';
	method: string;
	text: string;
	pattern: RegExp;
}

/** `{NAME}` is one segment; `[a|b]` is one of the alternatives; `[.pdf]` may be there or not; `/([a|b])` is an optional segment. */
function rowPattern(path: string): RegExp {
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
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function rows(): Row[] {
	const all: Row[] = [];
	for (const api of ['wholesale', 'pbx'] as const) {
		for (const row of contract[api].rows) {
			const [methods, path] = row.split(' ');
			for (const method of methods.split(',')) {
				all.push({ api, method, text: `${method} ${path}`, pattern: rowPattern(api === 'pbx' ? `/api/v1${path}` : path) });
			}
		}
	}
	return all;
}

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());

test('every endpoint row of the contract is reached by an operation of an action node', async () => {
	const reached = new Map<string, string[]>();
	const runs = OPERATIONS.flatMap((op) => [exampleOf(op), ...(VARIANTS[op.name] ?? []).map((variant) => ({ ...exampleOf(op), ...variant }) as INodeParameters)].map((parameters) => ({ op, parameters })));
	for (const { op, parameters } of runs) {
		const run = await runOperation(sandbox, op, parameters);
		for (const request of run.requests) {
			const key = `${request.method} ${request.path.split('?')[0]}`;
			reached.set(key, [...(reached.get(key) ?? []), op.name]);
		}
	}
	const byRow = rows().map((row) => {
		const operations = [...reached.entries()]
			.filter(([key]) => {
				const [method, path] = key.split(' ');
				return (row.method === 'ANY' || method === row.method) && row.pattern.test(path);
			})
			.flatMap(([, ops]) => ops);
		return { row: `${row.api} ${row.text}`, operations: [...new Set(operations)] };
	});
	const missing = byRow.filter((r) => r.operations.length === 0 && !(r.row in NOT_OPERATIONS)).map((r) => r.row);
	expect(missing).toEqual([]);
	// The table, for the record (and for docs): which operation covers which row.
	expect(byRow.length).toBeGreaterThan(100);
});
