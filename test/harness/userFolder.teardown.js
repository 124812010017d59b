/** Removes the n8n user folder the setup made (never one the caller named). */
const { rmSync } = require('node:fs');

module.exports = () => {
	const folder = process.env.TELEPHONY_TEST_CREATED_USER_FOLDER;
	if (folder) rmSync(folder, { recursive: true, force: true });
};
