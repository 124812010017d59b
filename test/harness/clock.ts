import { useClock } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/timers';
import { setSandboxTime } from '../../sandbox/core/clock';
import { FakeClock } from './fakeClock';

export { FakeClock, settle } from './fakeClock';

/**
 * A fake clock for every test of the file, shared by the package and the sandbox running in the
 * test's process (record times and windows agree): installed before each test, real time after.
 */
export function fakeClockForFile(): { readonly clock: FakeClock } {
	const holder = { clock: new FakeClock() };
	beforeEach(() => {
		const clock = new FakeClock();
		holder.clock = clock;
		useClock(clock);
		setSandboxTime(clock);
	});
	afterEach(() => {
		useClock(undefined);
		setSandboxTime(undefined);
	});
	return holder;
}
