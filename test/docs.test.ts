import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { OPERATION_DOCS, withTable } from '../scripts/docs';

describe('the docs list every operation the nodes have', () => {
	test.each(OPERATION_DOCS.map((d) => [d.file, d.resources] as const))('%s', (file, resources) => {
		const text = readFileSync(join(__dirname, '..', file), 'utf8');
		expect(withTable(text, [...resources])).toBe(text);
	});
});
