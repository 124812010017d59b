/**
 * Stops n8n and the sandbox that globalSetup.ts started, and writes docs/images/README.md from
 * the images this run produced (plus the rows of images it did not produce this time).
 */
import * as fs from 'node:fs';

import type { UiGlobals } from './globalSetup';
import { writeImagesReadme } from './support/images';
import { STATE_FILE } from './support/session';

export default async function globalTeardown(): Promise<void> {
	const globals = (globalThis as unknown as { __telephonyUi?: UiGlobals }).__telephonyUi;
	try {
		writeImagesReadme();
	} finally {
		if (globals) {
			await globals.n8n.dispose();
			await globals.sandbox.close();
			console.log(`[test:ui] n8n and sandbox stopped; the run took ${((Date.now() - globals.started) / 1000).toFixed(1)} s from globalSetup`);
		}
		fs.rmSync(STATE_FILE, { force: true });
	}
}
