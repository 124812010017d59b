import { normaliseE911Address } from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/e911';

import { runCases } from './cases';
import { e911Cases, whiteHouse } from './e911.cases';

describe('validateE911Address and validateUsNumber', () => {
	runCases(e911Cases);
});

describe('normaliseE911Address', () => {
	test('trims text and leaves out optional fields sent empty', () => {
		expect(
			normaliseE911Address({ ...whiteHouse, city: '  Washington ', location: '  ', postalCodePlusFour: '' }),
		).toEqual(whiteHouse);
	});

	test('never sends postalCodePlusFour as an empty string, nor location as null', () => {
		const sent = normaliseE911Address({ ...whiteHouse, postalCodePlusFour: '   ', location: null });
		expect(sent).not.toHaveProperty('postalCodePlusFour');
		expect(sent).not.toHaveProperty('location');
	});

	test('keeps optional fields that have a value, trimmed', () => {
		expect(normaliseE911Address({ ...whiteHouse, location: ' Suite 200 ', postalCodePlusFour: ' 0003 ' })).toEqual({
			...whiteHouse,
			location: 'Suite 200',
			postalCodePlusFour: '0003',
		});
	});

	test('sends a street number typed as a number as text, and keeps fields the spec does not list', () => {
		expect(normaliseE911Address({ ...whiteHouse, streetNum: 1600, note: ' as typed ' })).toEqual({
			...whiteHouse,
			streetNum: '1600',
			note: 'as typed',
		});
	});

	test('does not change the address it was given', () => {
		const given = { ...whiteHouse, city: ' Washington ' };
		normaliseE911Address(given);
		expect(given.city).toBe(' Washington ');
	});
});
