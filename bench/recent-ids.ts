/**
 * The triggers' duplicate filter (`nodes/shared/triggers/recentIds.ts`: the Wholesale Voice Trigger's
 * Drop Duplicates, the Voice Agent Trigger's, the session stream's replay filter): time per id
 * once the memory is full, at the default bound (10,000), ten times it, and the largest the node
 * allows (1,000,000), with every id new so that each one forgets the oldest. Until 2026-11-26 a
 * full memory cost time in proportion to its bound (about 11 µs per id at 10,000, 60 at 100,000).
 * Run: npm run bench -- recent-ids
 */
import { loadavg } from 'node:os';

import { nodeModule, report } from './lib';

const { RecentIds } = nodeModule<typeof import('../nodes/shared/triggers/recentIds')>('nodes/shared/triggers/recentIds');

const IDS = 2_000_000;

function perId(bound: number): number {
	const ids = new RecentIds(bound, 86_400_000);
	const started = performance.now();
	for (let i = 0; i < IDS; i++) ids.firstSeen(`call_inbound\n${i.toString(16)}`, i);
	if (ids.size !== Math.min(bound, IDS)) throw new Error(`the memory holds ${ids.size} ids, not ${bound}`);
	return ((performance.now() - started) * 1000) / IDS;
}

const bounds = [10_000, 100_000, 1_000_000];
const figures = bounds.map((bound) => ({ bound, us: Math.min(perId(bound), perId(bound)) }));
report(`Recent ids (duplicate filter): ${IDS.toLocaleString('en-US')} new ids each, the better of two runs (Node.js ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`, [
	...figures.map(({ bound, us }) => ({ name: `bound ${bound.toLocaleString('en-US')}: time per id`, value: us, unit: 'µs', target: '<= 2', met: us <= 2 })),
]);
