/**
 * The catalogue is the contract between the validators, their tests and the docs: every rule
 * must be shown accepting a value and refusing one (with its id and field path), and the docs
 * must list every rule and nothing else.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { RULES, RULE_SUBJECTS, type RuleId } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/rules';
import { printFigure } from '../../../harness/figures';

import { accountCases } from './account.cases';
import { coverageOf, type RuleCase } from './cases';
import { e911Cases } from './e911.cases';
import { portCases } from './port.cases';
import { routingCases } from './routing.cases';
import { uk999Cases } from './uk999.cases';

const tables: Record<string, RuleCase[]> = {
	'routing.test.ts': routingCases,
	'uk999.test.ts': uk999Cases,
	'e911.test.ts': e911Cases,
	'port.test.ts': portCases,
	'account.test.ts': accountCases,
};
const allCases = Object.values(tables).flat();
const DOCS = join(__dirname, '../../../../docs/wholesale-validation-rules.md');

describe('rule catalogue', () => {
	test('every rule has a valid and an invalid case in the tables', () => {
		const coverage = coverageOf(allCases);
		const missing: string[] = [];
		for (const rule of RULES) {
			const entry = coverage.get(rule.id);
			if (!entry?.valid) missing.push(`${rule.id}: no valid case`);
			if (!entry?.invalid) missing.push(`${rule.id}: no invalid case`);
		}
		const covered = RULES.filter((rule) => !missing.some((line) => line.startsWith(`${rule.id}:`))).length;
		// Printed with TELEPHONY_FIGURES=1 only (docs/wholesale-validation-rules.md).
		printFigure(`validation rules covered: ${covered} of ${RULES.length}`);
		expect(missing).toEqual([]);
	});

	test('rule ids are unique, well formed, and belong to a known subject', () => {
		const ids = RULES.map((rule) => rule.id);
		expect(new Set(ids).size).toBe(ids.length);
		for (const rule of RULES) {
			expect(rule.id).toMatch(/^[a-z0-9-]+(\.[A-Za-z0-9_-]+)+$/);
			expect(Object.keys(RULE_SUBJECTS)).toContain(rule.subject);
			expect(rule.text).toMatch(/\.$/);
		}
		for (const subject of Object.keys(RULE_SUBJECTS)) {
			expect(RULES.some((rule) => rule.subject === subject)).toBe(true);
		}
	});

	test('case titles are unique per rule, so a failing case is easy to find', () => {
		const names = allCases.map((ruleCase) => `${ruleCase.ruleId}: ${ruleCase.title}`);
		expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
	});

	test('the docs list every rule with the test files of its cases, and no rule that does not exist', () => {
		const docs = readFileSync(DOCS, 'utf8');
		const listed = new Map<string, string[]>();
		for (const line of docs.split('\n')) {
			const match = /^\| `([^`]+)` \| .* \| ((?:`[^`]+\.test\.ts`(?:, )?)+) \|$/.exec(line);
			if (match) listed.set(match[1], [...match[2].matchAll(/`([^`]+)`/g)].map((file) => file[1]));
		}
		const testFilesOf = (id: RuleId) =>
			Object.entries(tables)
				.filter(([, cases]) => cases.some((ruleCase) => ruleCase.ruleId === id))
				.map(([file]) => file)
				.sort();
		const expected = new Map(RULES.map((rule) => [rule.id as string, testFilesOf(rule.id)]));
		expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(expected));
	});
});
