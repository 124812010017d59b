import { smsParts } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/smsParts';

describe('SMS parts, estimated', () => {
	test.each([
		['empty', '', 'GSM-7', 0, 1],
		['160 GSM-7 characters: one part', 'a'.repeat(160), 'GSM-7', 160, 1],
		['161: two parts of 153', 'a'.repeat(161), 'GSM-7', 161, 2],
		['306: two parts', 'a'.repeat(306), 'GSM-7', 306, 2],
		['307: three', 'a'.repeat(307), 'GSM-7', 307, 3],
		['extension characters count two', '€'.repeat(80), 'GSM-7', 160, 1],
		['one more extension character tips it over', `${'€'.repeat(80)}[`, 'GSM-7', 162, 2],
		['GSM accented letters stay GSM-7 (ë is not one of them)', 'Zoé à Ørsted ¿qué?', 'GSM-7', 18, 1],
		['ë is not GSM-7', 'Zoë', 'UCS-2', 3, 1],
		['70 UCS-2 code units: one part', 'ć'.repeat(70), 'UCS-2', 70, 1],
		['71: two parts of 67', 'ć'.repeat(71), 'UCS-2', 71, 2],
		['an emoji is two UTF-16 code units', '📞'.repeat(35), 'UCS-2', 70, 1],
		['one character outside GSM-7 makes the whole text UCS-2', `${'a'.repeat(100)}ć`, 'UCS-2', 101, 2],
	])('%s', (_name, text, encoding, units, parts) => {
		expect(smsParts(text)).toEqual({ encoding, units, parts });
	});
});
