/**
 * The dates the nodes work out for themselves (today's CDR day, the 90-day report window, a CSV's
 * file name) read the package's clock, like its timers: a workflow replayed on a fake clock sees
 * that clock's day, never the machine's.
 */
import type { Sandbox } from '../../sandbox';
import { setSandboxTime } from '../../sandbox/core/clock';
import { useClock } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/timers';
import { validateNotificationHistoryPeriod } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/account';
import { validatePortSubmission } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/port';
import { FakeClock } from '../harness/clock';
import { sandboxForFile } from '../harness/sandboxForFile';
import { runPbx } from './HostedPbx/pbxTestKit';
import { expectRefused, runWholesale } from './WholesaleVoice/wholesaleKit';

let sandbox: Sandbox;
sandboxForFile((started) => (sandbox = started));

// Years away from the machine's day, so a node reading the machine's clock fails each test.
const NOW = Date.parse('2031-03-04T12:00:00Z');
beforeEach(() => {
	const clock = new FakeClock(NOW);
	useClock(clock);
	setSandboxTime(clock);
});
afterEach(() => {
	useClock(undefined);
	setSandboxTime(undefined);
});

const cdrsOfDay = (day: string) =>
	runWholesale(sandbox, { resource: 'voice', operation: 'getCdrs', period: 'day', day, returnAll: false, limit: 5, filters: {} });

test('Wholesale Voice CDRs of a day: a blank day is the clock’s today', async () => {
	const run = await cdrsOfDay('');
	expect(run.requests.map((r) => r.path)).toEqual(['/v3/voice/123456/cdr/2031-03-04']);
});

test('Wholesale Voice CDRs of a day: the 90-day window ends on the clock’s today', async () => {
	const inside = await cdrsOfDay('2031-01-01');
	expect(inside.requests.map((r) => r.path)).toEqual(['/v3/voice/123456/cdr/2031-01-01']);
	expectRefused(await cdrsOfDay('2030-11-01'), 'Day');
	expectRefused(await cdrsOfDay('2031-03-05'), 'Day');
});

test('Hosted PBX Export CSV: the file is named for the clock’s day', async () => {
	const run = await runPbx(sandbox, { resource: 'call', operation: 'exportCsv', filters: {}, binaryPropertyName: 'data' });
	expect(run.error).toBeUndefined();
	expect(run.items.map((item) => item.binary?.data.fileName)).toEqual(['call-history-me-2031-03-04.csv']);
});

test('the notification history window (60 days) and the port date (not in the past) are the clock’s', () => {
	const fields = (issues: Array<{ field: string }>) => issues.map((issue) => issue.field);
	expect(fields(validateNotificationHistoryPeriod('2031-02-01 00:00:00', undefined))).toEqual([]);
	expect(fields(validateNotificationHistoryPeriod('2030-12-01 00:00:00', undefined))).toEqual(['date_start']);
	const portDateIssues = (portDate: string) => fields(validatePortSubmission({ port_date: portDate })).filter((field) => field === 'port_date');
	expect(portDateIssues('2031-03-04 11:00:00')).toEqual(['port_date']);
	expect(portDateIssues('2031-03-04 13:00:00')).toEqual([]);
});
