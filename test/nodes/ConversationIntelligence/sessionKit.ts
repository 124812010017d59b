import { resetTriggers } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/triggers/lifecycle';
import type { Sandbox } from '../../../sandbox';
import { sandboxForFile } from '../../harness/sandboxForFile';

/**
 * One sandbox for the test file, handed over through `started`; before each test it is reset and
 * what the process keeps of triggers is forgotten, as in a fresh n8n.
 */
export function sessionTestBed(started: (sandbox: Sandbox) => void): void {
	sandboxForFile(started);
	beforeEach(() => resetTriggers());
}
