/**
 * The output choice of Upgrade Operators, which answers the configuration record: Simplified by
 * default (the UUID as the id, name, version, state, the operators as `name vN`), Raw (the record
 * as answered, with upgraded_operators), Selected Fields.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ConversationIntelligence } from '../../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { fakeClockForFile } from '../../harness/clock';
import { runNode } from '../../harness/n8n';
import { platformCredentials } from '../../harness/platformKit';

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());
fakeClockForFile();

const SUPPORT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const upgrade = (extra: INodeParameters = {}): INodeParameters => ({ resource: 'configuration', operation: 'upgradeOperators', configurationId: SUPPORT, upgrade: 'named', operators: 'sentiment', ...extra });

async function run(parameters: INodeParameters): Promise<IDataObject[]> {
	const result = await runNode({ node: new ConversationIntelligence(), parameters, credentials: platformCredentials(sandbox) });
	expect(result.error).toBeUndefined();
	return result.items.map((item) => item.json as IDataObject);
}

test('Simplified by default: the UUID as the id, flat, the operators pinned, upgraded now and still behind', async () => {
	const [configuration] = await run(upgrade());
	expect(configuration).toEqual({
		id: SUPPORT,
		name: 'Support call QA',
		version: 8,
		is_active: true,
		sync_state: 'live',
		updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
		operators: 'sentiment v3, escalation_requested v4, customer_satisfaction v1, topics v3, order_number v1, customer_satisfaction v1, call_summary v5',
		upgraded: 'sentiment v3',
		upgrade_available: 'customer_satisfaction, order_number, call_summary',
	});
	// Upgrading all leaves nothing behind: the field is left out, not empty.
	expect(await run(upgrade({ upgrade: 'all' }))).toEqual([expect.not.objectContaining({ upgrade_available: expect.anything() })]);
});

test('Raw: the configuration as answered, with the operators the upgrade moved', async () => {
	const before = ((await (await fetch(`${sandbox.url}/_sandbox/intelligence/configurations`)).json()) as IDataObject[]).find((c) => c.uuid === SUPPORT)!;
	const [raw] = await run(upgrade({ output: 'raw' }));
	expect(raw).toMatchObject({ uuid: SUPPORT, version: Number(before.version) + 1, template_id: expect.any(Number), actions: expect.any(Array), upgraded_operators: [{ name: 'sentiment', version: 3 }] });
	expect((raw.operators as IDataObject[])[0]).toMatchObject({ name: 'sentiment', version: 3, current_version: 3, granularity: expect.any(Object) });
});

test('Selected Fields: the id and the chosen fields, as the API names them', async () => {
	const [chosen] = await run(upgrade({ output: 'fields', fields: ['version', 'upgraded_operators'] }));
	expect(chosen).toEqual({ id: SUPPORT, version: 8, upgraded_operators: [{ name: 'sentiment', version: 3 }] });
});
