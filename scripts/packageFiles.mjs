#!/usr/bin/env node
// The published package shows the repository's README and LICENSE on npm: copied in at build
// time, because npm pack leaves symlinks out.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PACKAGE_DIR = path.join(repo, 'packages', 'n8n-nodes-telephony-platform');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	for (const file of ['README.md', 'LICENSE']) fs.copyFileSync(path.join(repo, file), path.join(PACKAGE_DIR, file));
}
