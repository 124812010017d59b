import { validateReportDate } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/account';

import { accountCases } from './account.cases';
import { runCases } from './cases';

describe('account, voice, trunk, report, notification and SMS rules', () => {
	runCases(accountCases);

	test('report dates are read against the real clock when no now is given', () => {
		expect(validateReportDate('date', '2001-01-01').map((issue) => issue.ruleId)).toEqual(['reports.date.window']);
		expect(validateReportDate('date', new Date().toISOString().slice(0, 10))).toEqual([]);
	});
});
