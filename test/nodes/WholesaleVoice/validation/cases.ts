/**
 * The shape of the validators' table-driven tests. Each case demonstrates one catalogue rule:
 * a valid case expects no issue at all, an invalid case expects exactly the listed issues
 * (field path and rule id). The tables live in `*.cases.ts` modules so that both their own
 * test file and the catalogue coverage check (`catalogue.test.ts`) can import them: jest gives
 * each test file its own module registry, so a registry filled at run time would not be shared.
 */
import type { ValidationIssue } from '../../../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import { ruleText, type RuleId } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/rules';

export interface ExpectedIssue {
	field: string;
	ruleId: RuleId;
}

export interface RuleCase {
	/** The rule this case demonstrates, valid or invalid. */
	ruleId: RuleId;
	title: string;
	run: () => ValidationIssue[];
	/** Empty for a valid case; otherwise every issue the validator must return, no more. */
	expected: ExpectedIssue[];
	/** For invalid cases: what the problem of the case's own issue must say. */
	problem?: RegExp;
}

/** A value the rule accepts: the validator returns no issue at all. */
export function valid(ruleId: RuleId, title: string, run: () => ValidationIssue[]): RuleCase {
	return { ruleId, title, run, expected: [] };
}

/** A value the rule refuses: one issue at `field` under `ruleId`, plus any `others` the input also breaks. */
export function invalid(
	ruleId: RuleId,
	title: string,
	run: () => ValidationIssue[],
	field: string,
	...others: ExpectedIssue[]
): RuleCase {
	return { ruleId, title, run, expected: [{ field, ruleId }, ...others] };
}

/** The same invalid case, also asserting what its problem says (a hint the user needs). */
export function saying(problem: RegExp, ruleCase: RuleCase): RuleCase {
	return { ...ruleCase, problem };
}

const byFieldThenRule = (a: ExpectedIssue, b: ExpectedIssue) =>
	a.field.localeCompare(b.field) || a.ruleId.localeCompare(b.ruleId);

export function runCases(cases: RuleCase[]): void {
	const named = cases.map((ruleCase): [string, RuleCase] => [
		`${ruleCase.ruleId}: ${ruleCase.expected.length === 0 ? 'accepts' : 'refuses'} ${ruleCase.title}`,
		ruleCase,
	]);
	test.each(named)('%s', (_name, ruleCase) => {
		const found = ruleCase.run();
		const actual = found.map(({ field, ruleId }) => ({ field, ruleId: ruleId as RuleId })).sort(byFieldThenRule);
		expect(actual).toEqual([...ruleCase.expected].sort(byFieldThenRule));
		for (const issue of found) {
			// Every issue quotes its catalogue rule and says what is wrong with the value.
			expect(issue.rule).toBe(ruleText(issue.ruleId as RuleId));
			expect(issue.problem).toMatch(/\S/);
		}
		if (ruleCase.problem) {
			const own = found.filter((issue) => issue.ruleId === ruleCase.ruleId);
			expect(own.map((issue) => issue.problem)).toEqual(expect.arrayContaining([expect.stringMatching(ruleCase.problem)]));
		}
	});
}

export interface RuleCoverage {
	valid: number;
	invalid: number;
}

/** For each rule: how many cases accept a value under it and how many refuse one with its id. */
export function coverageOf(cases: RuleCase[]): Map<RuleId, RuleCoverage> {
	const coverage = new Map<RuleId, RuleCoverage>();
	for (const ruleCase of cases) {
		const entry = coverage.get(ruleCase.ruleId) ?? { valid: 0, invalid: 0 };
		if (ruleCase.expected.length === 0) entry.valid += 1;
		else if (ruleCase.expected.some((issue) => issue.ruleId === ruleCase.ruleId)) entry.invalid += 1;
		coverage.set(ruleCase.ruleId, entry);
	}
	return coverage;
}
