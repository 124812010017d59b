/**
 * The queue-mode tests (test/e2e/queue, see docs/scaling.md): the package in n8n's queue mode
 * (Postgres, Redis, main, two workers, a webhook processor). Run through `npm run test:queue`,
 * which installs Postgres and Redis when missing, builds, provisions n8n 2.x and runs this.
 * One worker: each file brings up its own cluster, and the machine has 2 cores.
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e/queue'],
	testMatch: ['**/*.queue.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
	maxWorkers: 1,
	// A cluster takes one to three minutes to come up on a busy 2-core machine; the load test
	// sends 2,000 events; a worker's stalled job takes its lock duration to be noticed.
	testTimeout: 15 * 60_000,
	slowTestThreshold: 120,
	verbose: true,
};
