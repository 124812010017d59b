/**
 * The editor tests in a real browser (test/ui, see test/ui/README.md). Run through
 * `npm run test:ui`, which installs Chromium and playwright-core when missing, builds the package
 * and provisions n8n first. One worker: the files share one n8n and one sandbox (globalSetup),
 * and the machine has 2 cores.
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/ui'],
	testMatch: ['**/*.ui.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
	globalSetup: '<rootDir>/test/ui/globalSetup.ts',
	globalTeardown: '<rootDir>/test/ui/globalTeardown.ts',
	maxWorkers: 1,
	// A test walks every operation of a node in the editor; the editor may be slow when other
	// suites run on the same two cores.
	testTimeout: 15 * 60_000,
	slowTestThreshold: 120,
	verbose: true,
};
