import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';

/** One sandbox for the test file, handed over through `started`, reset before each test. */
export function sandboxForFile(started: (sandbox: Sandbox) => void): void {
	let sandbox: Sandbox;
	beforeAll(async () => started((sandbox = await startSandbox())));
	afterAll(async () => await sandbox.close());
	beforeEach(() => sandbox.reset());
}
