import { validateNumberConfiguration } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/routing';

import { runCases } from './cases';
import { routingCases } from './routing.cases';

describe('validateNumberConfiguration', () => {
	runCases(routingCases);

	test('collects every issue of a configuration in one pass, each with its path', () => {
		const found = validateNumberConfiguration({
			routing: {
				default: [[{ type: 'sip', endpoint: 'office@sip.example.com', timeout: 0 }], [{ type: 'busy', timeout: 5 }]],
				weekend: [[{ type: 'pstn' }]],
			},
			extra: true,
		});
		expect(found.map((issue) => `${issue.field} ${issue.ruleId}`).sort()).toEqual([
			'extra configuration.known-sections',
			'routing.default[0][0].timeout routing.block.timeout',
			'routing.default[1][0].timeout routing.block.timeout-not-on-busy-or-fax',
			'routing.weekend routing.key.defined',
			'routing.weekend[0][0].number routing.pstn.number.required',
		]);
	});

	// A backtracking blow-up on 90 placeholders never returns: Jest's own timeout fails it. No wall-clock bound (a busy machine is not a defect).
	test('a long endpoint of placeholders is refused quickly (no backtracking blow-up)', () => {
		const found = validateNumberConfiguration({
			routing: { default: [[{ type: 'sip', endpoint: `${'%e164'.repeat(90)}!` }]] },
		});
		expect(found.map((issue) => issue.ruleId)).toEqual(['routing.sip.endpoint.form']);
	});
});
