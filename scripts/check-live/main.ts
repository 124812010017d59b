/**
 * `npm run check-live`: a read-only check of the real platform against what the package reads.
 * Credentials come from the environment only (see CONTRIBUTING.md, "Checking against the real
 * platform"); `--json <path>` (or TELEPHONY_CHECK_JSON) says where the JSON report goes.
 */
import { resolve } from 'node:path';

import { checkLive } from './check';

function jsonPathOf(argv: string[], env: NodeJS.ProcessEnv): string {
	const at = argv.indexOf('--json');
	return resolve(at >= 0 && argv[at + 1] ? argv[at + 1] : (env.TELEPHONY_CHECK_JSON ?? 'check-live-report.json'));
}

void checkLive({ env: process.env, jsonPath: jsonPathOf(process.argv.slice(2), process.env), print: (line) => process.stdout.write(`${line}\n`) }).then(
	(result) => {
		process.exitCode = result.exitCode;
	},
	(error: Error) => {
		process.stderr.write(`check-live failed: ${error.message}\n`);
		process.exitCode = 2;
	},
);
