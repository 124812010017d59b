import { validatePortSubmission } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/port';

import { runCases } from './cases';
import { NOW, portCases, submission } from './port.cases';

describe('validatePortSubmission', () => {
	runCases(portCases);

	test('reads the clock when no now is given', () => {
		const found = validatePortSubmission({ ...submission, port_date: '2001-01-01 00:00:00' });
		expect(found.map((issue) => issue.ruleId)).toEqual(['port.port_date.not-past']);
	});

	test('compares port_date with the injected now, not the real clock', () => {
		const longAgo = new Date('2001-06-01T00:00:00Z');
		expect(validatePortSubmission({ ...submission, port_date: '2002-01-01 00:00:00' }, { now: longAgo })).toEqual([]);
		expect(validatePortSubmission({ ...submission, port_date: '2029-06-01 11:59:59' }, { now: NOW })).toHaveLength(1);
	});
});
