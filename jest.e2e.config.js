/**
 * End-to-end tests against a real n8n (test/e2e, see test/e2e/README.md). Run through
 * `npm run test:e2e` (n8n 2.x) or `npm run test:e2e:n8n1` (n8n 1.x): they build the package and
 * provision n8n first. One worker: each suite starts its own n8n, and the machine has 2 cores.
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
	maxWorkers: 1,
	// n8n start takes 10-30 s, one CLI command 3-10 s; a cold provision (when jest is run
	// directly on a machine without the cache) takes several minutes inside beforeAll.
	testTimeout: 5 * 60_000,
	slowTestThreshold: 60,
	verbose: true,
};
