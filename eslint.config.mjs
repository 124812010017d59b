import { configWithoutCloudSupport } from '@n8n/node-cli/eslint';

// n8n's community-node rules, without the n8n Cloud rules: this package ships runtime
// dependencies (undici, eventsource) and long-running triggers, so it targets self-hosted n8n.
// The rules are for shipped code; the sandbox, tests, benchmarks and scripts are type-checked by tsc.
export default [
	...configWithoutCloudSupport,
	{
		// The design asks for two runtime dependencies, undici (the PBX stream) and eventsource (the
		// session SSE stream); self-hosted n8n installs them with the package.
		files: ['package.json'],
		rules: { '@n8n/community-nodes/no-runtime-dependencies': 'off' },
	},
	{ ignores: ['test/**', 'sandbox/**', 'bench/**', 'scripts/**', 'examples/**', 'gulpfile.js', 'jest.config.js'] },
];
