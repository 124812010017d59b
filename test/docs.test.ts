import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { OPERATION_DOCS, withTable } from '../scripts/docs';

describe('the docs list every operation the nodes have', () => {
	test.each(OPERATION_DOCS.map((d) => [d.file, d.resources] as const))('%s', (file, resources) => {
		const text = readFileSync(join(__dirname, '..', file), 'utf8');
		expect(withTable(text, [...resources])).toBe(text);
	});
});

describe('the docs are for users: what is, in their words', () => {
	const dir = join(__dirname, '..', 'docs');
	const pages = readdirSync(dir).filter((f) => f.endsWith('.md'));
	const read = (page: string) => readFileSync(join(dir, page), 'utf8');

	test('no page tells what the nodes did before (the package has no earlier release)', () => {
		expect(pages.filter((page) => /\bgave before\b|\bas before\b/i.test(read(page)))).toEqual([]);
	});

	test("failures.md says what a user sees and does, without n8n's environment variables or source paths", () => {
		const text = read('failures.md');
		expect(text.match(/N8N_[A-Z_]+|\b(?:nodes|test)\/[\w/.-]+|\w+\.test\.ts|`failure\.cause`/g)).toBeNull();
		for (const heading of ['| You see | It means | What to do |', '## Triggers']) expect(text).toContain(heading);
	});
});
