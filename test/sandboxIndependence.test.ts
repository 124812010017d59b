/**
 * The sandbox judges the nodes, so it is written from the contract alone: no file under
 * sandbox/ may load anything from the published package (packages/n8n-nodes-telephony-platform:
 * nodes/, credentials/), by path or by its name. A rule shared by both could never be caught by a
 * test against the sandbox.
 *
 * Each file's text is parsed (TypeScript's parser, no compilation, no module resolution) and
 * every module reference is collected: import and import type, side-effect imports, export …
 * from, import x = require(), require() and require.resolve() anywhere, dynamic import(), and
 * jest.mock-style calls; then any string literal that is a relative path, in case a path is
 * built apart from the call that loads it. Relative paths are resolved against the file, the
 * package's name (a workspace link in node_modules) and bare `nodes/…` or `credentials/…`
 * specifiers (a baseUrl import) against the package folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..');
const SANDBOX = path.join(ROOT, 'sandbox');
const PACKAGE_NAME = 'n8n-nodes-telephony-platform';
const PACKAGE = path.join(ROOT, 'packages', PACKAGE_NAME);
const SOURCE = /\.(ts|tsx|js|jsx|mjs|cjs|mts|cts)$/;

function sourceFiles(dir: string): string[] {
	const out: string[] = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...sourceFiles(full));
		else if (SOURCE.test(entry.name)) out.push(full);
	}
	return out;
}

const LOADERS = new Set(['require', 'require.resolve', 'jest.mock', 'jest.doMock', 'jest.requireActual', 'jest.requireMock']);

function literalText(node: ts.Node | undefined): string | undefined {
	return node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
}

/** The module specifiers a file refers to, and the relative-path strings it holds. */
export function moduleReferences(text: string, fileName = 'file.ts'): { specifiers: string[]; pathStrings: string[] } {
	const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
	const specifiers: string[] = [];
	const pathStrings: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
			const specifier = literalText(node.moduleSpecifier);
			if (specifier !== undefined) specifiers.push(specifier);
		} else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
			const specifier = literalText(node.moduleReference.expression);
			if (specifier !== undefined) specifiers.push(specifier);
		} else if (ts.isCallExpression(node)) {
			const callee = node.expression.kind === ts.SyntaxKind.ImportKeyword ? 'import' : node.expression.getText(source);
			const specifier = literalText(node.arguments[0]);
			if ((callee === 'import' || LOADERS.has(callee)) && specifier !== undefined) specifiers.push(specifier);
		} else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
			const specifier = literalText(node.argument.literal);
			if (specifier !== undefined) specifiers.push(specifier);
		}
		const literal = literalText(node);
		if (literal !== undefined && /^\.\.?\//.test(literal)) pathStrings.push(literal);
		ts.forEachChild(node, visit);
	};
	visit(source);
	return { specifiers, pathStrings };
}

/** Where a specifier points, when it is a path in this repository; undefined for packages. */
function resolvedTarget(file: string, specifier: string): string | undefined {
	if (specifier.startsWith('.') || specifier.startsWith('/')) return path.resolve(path.dirname(file), specifier);
	const [first, ...rest] = specifier.split('/');
	if (first === PACKAGE_NAME) return path.join(PACKAGE, ...rest);
	if (first === 'nodes' || first === 'credentials') return path.join(PACKAGE, specifier);
	return undefined;
}

function inside(target: string, dir: string): boolean {
	const relative = path.relative(dir, target);
	return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function forbiddenTargets(file: string, text: string): string[] {
	const { specifiers, pathStrings } = moduleReferences(text, file);
	const targets = [...specifiers, ...pathStrings]
		.map((specifier) => resolvedTarget(file, specifier))
		.filter((target): target is string => target !== undefined && inside(target, PACKAGE))
		.map((target) => path.relative(PACKAGE, target) || '.');
	return [...new Set(targets)];
}

describe('the sandbox is independent of the package it judges', () => {
	test('no file under sandbox/ imports, requires or re-exports anything from the package', () => {
		const files = sourceFiles(SANDBOX);
		expect(files.length).toBeGreaterThan(20);
		const offending = files.flatMap((file) => forbiddenTargets(file, fs.readFileSync(file, 'utf8')).map((target) => `${path.relative(ROOT, file)} -> ${target}`));
		expect(offending).toEqual([]);
	});

	test('the scan finds every form of reference, and ignores comments (it would catch a regression)', () => {
		const file = path.join(SANDBOX, 'wholesale', 'numbers.ts');
		const sample = [
			"import { validateNumberConfiguration } from '../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation';",
			'import type { Issue } from "../../packages/n8n-nodes-telephony-platform/nodes/shared/validation";',
			"import '../../packages/n8n-nodes-telephony-platform/nodes/shared/sideEffect';",
			"export { x } from '../../packages/n8n-nodes-telephony-platform/credentials/WholesaleVoiceApi.credentials';",
			"export * from '../../packages/n8n-nodes-telephony-platform/nodes/shared/transport';",
			"import rules = require('../../packages/n8n-nodes-telephony-platform/nodes/shared/rules');",
			'import {\n\tmultiLine,\n} from "../../packages/n8n-nodes-telephony-platform/nodes/x";',
			"import { fine } from './rules'; // '../../packages/n8n-nodes-telephony-platform/nodes/only/in/a/comment'",
			'/* import { no } from "../../packages/n8n-nodes-telephony-platform/nodes/commented/out"; */',
			"const quote = /[\"']/; function late() { return require('../../packages/n8n-nodes-telephony-platform/nodes/late'); }",
			"async function lazy() { return await import('../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/stream'); }",
			"type T = typeof import('../../packages/n8n-nodes-telephony-platform/nodes/typeOnly');",
			"const where = '../../packages/n8n-nodes-telephony-platform/credentials'; const loaded = require(path.join(where, 'X'));",
			"import { baseUrl } from 'nodes/shared/transport';",
			"import { HostedPbx } from 'n8n-nodes-telephony-platform/dist/nodes/HostedPbx/HostedPbx.node';",
			"import { Workflow } from 'n8n-workflow';",
		].join('\n');
		expect(forbiddenTargets(file, sample).sort()).toEqual(
			[
				'nodes/WholesaleVoice/validation',
				'nodes/shared/validation',
				'nodes/shared/sideEffect',
				'credentials/WholesaleVoiceApi.credentials',
				'nodes/shared/transport',
				'nodes/shared/rules',
				'nodes/x',
				'nodes/late',
				'nodes/HostedPbx/stream',
				'nodes/typeOnly',
				'credentials',
				'dist/nodes/HostedPbx/HostedPbx.node',
			].sort(),
		);
		// A folder that only starts the same stays outside.
		expect(inside(`${PACKAGE}-extra/x`, PACKAGE)).toBe(false);
	});
});
