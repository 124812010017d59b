import { config } from '@n8n/node-cli/eslint';

// n8n's community-node rules with n8n Cloud support: the rules of n8n's verification scan (npm run scan),
// none turned off. They are for shipped code (nodes/, credentials/, package.json); the sandbox, tests,
// benchmarks and scripts are type-checked by tsc and may use timers, the console and undici.
export default [
	...config,
	{ ignores: ['test/**', 'sandbox/**', 'bench/**', 'scripts/**', 'examples/**', 'gulpfile.js', 'jest.config.js'] },
];
