import { forgetFailureReports } from '../../../nodes/shared/triggers/failureReports';
import { forgetRefusals } from '../../../nodes/shared/triggers/refusals';
import { forgetTriggerMemories } from '../../../nodes/shared/triggers/triggerMemory';
import type { Sandbox } from '../../../sandbox';
import { sandboxForFile } from '../../harness/sandboxForFile';

/**
 * One sandbox for the test file, handed over through `started`; before each test it is reset and
 * what the trigger keeps per process is forgotten (refusals, resume states, failure reports), as
 * in a fresh n8n.
 */
export function sessionTestBed(started: (sandbox: Sandbox) => void): void {
	sandboxForFile(started);
	beforeEach(() => {
		forgetRefusals();
		forgetTriggerMemories();
		forgetFailureReports();
	});
}
