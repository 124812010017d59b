/** One n8n user folder for the whole test run (n8n-core reads it); removed by the teardown. */
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = () => {
	if (process.env.N8N_USER_FOLDER) return;
	process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'n8n-telephony-test-'));
	process.env.TELEPHONY_TEST_CREATED_USER_FOLDER = process.env.N8N_USER_FOLDER;
};
