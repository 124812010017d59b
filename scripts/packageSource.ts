/**
 * Where the published package's source lives, for the development code around it (scripts,
 * benchmarks): the one TypeScript place that names the folder (scripts/packageFiles.mjs is the
 * plain-Node one).
 */
import { join } from 'node:path';

export const PACKAGE_SOURCE = join(__dirname, '..', 'packages', 'n8n-nodes-telephony-platform');

/**
 * Loads a node module by its `.ts` file, as `nodes/HostedPbx/HostedPbx.node`: tsx would resolve
 * an extensionless `X.node` to the codex file `X.node.json` that sits beside it.
 */
export function nodeModule<T>(relativePath: string): T {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(join(PACKAGE_SOURCE, `${relativePath}.ts`)) as T;
}
