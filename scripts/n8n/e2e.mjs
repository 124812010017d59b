#!/usr/bin/env node
/**
 * The end-to-end run: build the package, provision n8n, run jest on test/e2e.
 *
 *   node scripts/n8n/e2e.mjs [--target 2|1] [--skip-build] [jest arguments…]
 *   npm run test:e2e            (target 2: n8n 2.x on Node 24)
 *   npm run test:e2e:n8n1       (target 1: n8n 1.123 on Node 22)
 *   npm run test:e2e -- -t credentials        (jest arguments pass through)
 *
 * Postgres (Debian's package, for the CDR recipe's database: test/e2e/cdrPull.e2e.ts) is installed
 * with apt-get when missing. Prints how long each step and the whole run took. Exits with jest's
 * status.
 */
import path from 'node:path';
import { createRequire } from 'node:module';

import { createSteps, npm, repo } from '../steps.mjs';
import { ensureQueueServices } from './services.mjs';

const require = createRequire(path.join(repo, 'package.json'));

let target = process.env.TELEPHONY_N8N_TARGET || '2';
let skipBuild = false;
const jestArgs = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	const a = argv[i];
	if (a === '--target') target = String(argv[++i]);
	else if (a.startsWith('--target=')) target = a.slice('--target='.length);
	else if (a === '--skip-build') skipBuild = true;
	else jestArgs.push(a);
}
if (target !== '1' && target !== '2') {
	console.error(`--target must be 1 or 2, not ${target}`);
	process.exit(2);
}

const { step, summary, provision, say } = createSteps('test:e2e');
const done = (status) => {
	summary(status, `target ${target}: `);
	process.exit(status);
};

if (!skipBuild) {
	const build = step('build', npm, ['run', 'build']);
	if (build.status !== 0) {
		say('the build failed: fix it (or retry if someone is mid-change) and run again');
		done(build.status);
	}
}

provision(target, done);
ensureQueueServices({ redis: false, log: say });

const jestBin = require.resolve('jest/bin/jest');
const jest = step('jest', process.execPath, [jestBin, '--config', path.join(repo, 'jest.e2e.config.js'), ...jestArgs], {
	env: { ...process.env, TELEPHONY_N8N_TARGET: target },
});
done(jest.status);
