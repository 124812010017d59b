/**
 * Prints every node's and credential's description as JSON with sorted keys (functions by name),
 * so that a refactoring that must not change what n8n shows can be checked byte for byte:
 *
 *   npx tsx scripts/describeNodes.ts > /tmp/before.json   # before the change
 *   npx tsx scripts/describeNodes.ts > /tmp/after.json    # after it
 *   cmp /tmp/before.json /tmp/after.json
 */
import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

import { PACKAGE_SOURCE } from './packageSource';

function sorted(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(sorted);
	if (typeof value === 'function') return `[function ${value.name}]`;
	if (!value || typeof value !== 'object') return value;
	const record = value as Record<string, unknown>;
	return Object.fromEntries(
		Object.keys(record)
			.sort()
			.map((key) => [key, sorted(record[key])]),
	);
}

const described: Record<string, unknown> = {};
for (const folder of ['nodes', 'credentials']) {
	const files = readdirSync(join(PACKAGE_SOURCE, folder), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile() && /\.(node|credentials)\.ts$/.test(entry.name))
		.map((entry) => join(entry.parentPath, entry.name))
		.sort();
	for (const file of files) {
		const className = basename(file).split('.')[0];
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const Type = (require(file) as Record<string, new () => Record<string, unknown>>)[className];
		if (typeof Type !== 'function') continue;
		const instance = new Type();
		const versions = instance.nodeVersions as Record<string, { description: unknown }> | undefined;
		described[`${relative(PACKAGE_SOURCE, file)}:${className}`] = sorted(
			instance.description || versions
				? { description: instance.description, versions: versions && Object.fromEntries(Object.entries(versions).map(([v, node]) => [v, node.description])) }
				: instance,
		);
	}
}
process.stdout.write(`${JSON.stringify(described, null, 1)}\n`);
