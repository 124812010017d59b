/**
 * Every endpoint row of the contract has an operation (issue 19). Each operation of the four
 * action nodes runs once, with its valid example (the same examples as the hostile-input
 * battery), against the sandbox; the requests it sends are matched against the rows of
 * test/fixtures/real-api/contract-endpoints.json, one per method. A row no operation reaches
 * fails, unless it is one of the deliberate exceptions below, each documented in docs/.
 */
import { startSandbox, type Sandbox } from '../sandbox';
import { contract, loggedPath, operationRequests, requestMatches, rowPattern } from './contractKit';

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

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());

test('every endpoint row of the contract is reached by an operation of an action node', async () => {
	const runs = await operationRequests(sandbox);
	const byRow = (['wholesale', 'pbx'] as const).flatMap((api) =>
		contract[api].rows.flatMap((row) => {
			const [methods, path] = row.split(' ');
			const pattern = rowPattern(loggedPath(api, path));
			return methods.split(',').map((method) => ({
				row: `${api} ${method} ${path}`,
				operations: [...new Set(runs.filter((run) => run.requests.some((request) => requestMatches(request, method, pattern))).map((run) => run.op.name))],
			}));
		}),
	);
	const missing = byRow.filter((r) => r.operations.length === 0 && !(r.row in NOT_OPERATIONS)).map((r) => r.row);
	expect(missing).toEqual([]);
	expect(byRow.length).toBeGreaterThan(100);
	// Every operation runs (seconds; more on a busy machine): a generous bound, not Jest's 30 s.
}, 180_000);
