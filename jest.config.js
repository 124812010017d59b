/** Unit, node and sandbox tests. The real-n8n suites have their own scripts (see README). */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': 'ts-jest' },
	testTimeout: 30000,
	// Jest's default is one worker fewer than the cores: one on the 2-core machine, where two take half the time.
	maxWorkers: 2,
	globalSetup: '<rootDir>/test/harness/userFolder.setup.js',
	globalTeardown: '<rootDir>/test/harness/userFolder.teardown.js',
};
