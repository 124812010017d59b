/**
 * Shipped code as n8n's template formats it (npm run lint checks the formatting): no function
 * over 80 lines and no file over 600, counted on the formatted text, so that code gets shorter by
 * splitting or removing it, never by joining lines.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

import * as ts from 'typescript';

const PACKAGE = join(__dirname, '..', 'packages', 'n8n-nodes-telephony-platform');
const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 600;

const sources = ['nodes', 'credentials'].flatMap((dir) =>
	readdirSync(join(PACKAGE, dir), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
		.map((entry) => join(entry.parentPath, entry.name)),
);

/** Every function-like node of a source text, with its first line and its length in lines. */
function functionSizes(fileName: string, text: string): Array<{ line: number; lines: number }> {
	const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
	const sizes: Array<{ line: number; lines: number }> = [];
	const visit = (node: ts.Node): void => {
		if (ts.isFunctionLike(node) && 'body' in node && node.body) {
			const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
			const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
			sizes.push({ line: first + 1, lines: last - first + 1 });
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return sizes;
}

test('the measure counts every kind of function, from its first line to its last', () => {
	const text = 'function a() {\n\treturn 1;\n}\nclass C {\n\tm() {\n\t\treturn () => {\n\t\t\treturn 2;\n\t\t};\n\t}\n}\nconst f = function () {};\n';
	expect(functionSizes('x.ts', text)).toEqual([
		{ line: 1, lines: 3 },
		{ line: 5, lines: 5 },
		{ line: 6, lines: 3 },
		{ line: 11, lines: 1 },
	]);
});

test(`no shipped function is over ${MAX_FUNCTION_LINES} lines`, () => {
	const long = sources.flatMap((file) =>
		functionSizes(file, readFileSync(file, 'utf8'))
			.filter((f) => f.lines > MAX_FUNCTION_LINES)
			.map((f) => `${relative(PACKAGE, file)}:${f.line} (${f.lines} lines)`),
	);
	expect(long).toEqual([]);
});

test(`no shipped file is over ${MAX_FILE_LINES} lines`, () => {
	const long = sources.map((file) => [relative(PACKAGE, file), readFileSync(file, 'utf8').split('\n').length] as const).filter(([, lines]) => lines > MAX_FILE_LINES);
	expect(long).toEqual([]);
});
