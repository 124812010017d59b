import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { NUMBERING_PLANS, plannedCountryCode } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/numberingPlan';
import { dialledNumber, e164, nationalIssue, phoneNumber, trunkPrefixIssue, withoutTrunkPrefix } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/phoneNumbers';

/** The issue a Send SMS `To` would raise, or the number it would send. */
function dial(to: string, countryCode = ''): string {
	const issue = phoneNumber('To', to, countryCode) ?? nationalIssue('To', to, countryCode);
	return issue ? `refused: ${issue.problem} | ${issue.rule}` : dialledNumber(to, countryCode);
}

describe('the numbering plan', () => {
	test('its country codes are prefix-free, so a number names at most one', () => {
		const codes = Object.keys(NUMBERING_PLANS);
		expect(codes.filter((code) => codes.some((other) => other !== code && other.startsWith(code)))).toEqual([]);
		expect([plannedCountryCode('447700900123'), plannedCountryCode('390669883251'), plannedCountryCode('35312345678'), plannedCountryCode('2125550142')]).toEqual([
			'44',
			'39',
			'353',
			undefined,
		]);
	});

	test('docs/safety.md lists exactly the country codes of the table, each with its national prefix', () => {
		const page = readFileSync(join(__dirname, '../../../docs/safety.md'), 'utf8');
		const section = page.slice(page.indexOf('### Phone numbers and the numbering plan'), page.indexOf('### Webhook and callback addresses'));
		const rows = [...section.matchAll(/^\| ([\d, ]+) \| [^|]+ \| ([^|]+) \|/gm)].flatMap(([, codes, prefix]) =>
			codes.split(', ').map((code) => [code, prefix.trim() === 'none' ? '' : prefix.trim()]),
		);
		expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(Object.entries(NUMBERING_PLANS).map(([code, plan]) => [code, plan.prefix])));
	});
});

describe('a national prefix after the country code', () => {
	test.each([
		['+44 (0) 20 7946 0123', '+442079460123'],
		['+44(0)7700 900123', '+447700900123'],
		['0044 (0)20 7946 0123', '00442079460123'],
		['+39 06 6988 3251', '+390669883251'],
		['+7 800 555 35 35', '+78005553535'],
		['+1 (212) 555-0142', '+12125550142'],
		['+225 07 12 34 56 78', '+2250712345678'],
		['101', '101'],
		['12345', '12345'],
	])('%s is dialled as %s', (typed, sent) => {
		expect(dial(typed)).toBe(sent);
	});

	test.each([
		['+44 07902 000000', /is not a number of the United Kingdom in international form \| \+44 numbers: no 0 after the country code/],
		['+44 0 7902 000000', /not a number of the United Kingdom/],
		['+44 (0) 020 7946 0123', /not a number of the United Kingdom/],
		['+44 020 7946 0123', /not a number of the United Kingdom/],
		['4402079460123', /not a number of the United Kingdom/],
		['+39 (0)6 6988 3251', /has a 0 in brackets after \+39: Italy has no national prefix and the 0 is part of the number/],
		['+7 (0) 912 345 67 89', /the national prefix of Russia and Kazakhstan is 8, not 0/],
		['+212 (0) 5 22 00 00 00', /after \+212, a country code whose national prefix the numbering plan does not hold/],
		['4420 (0) 7946 0123', /national 0 in brackets that does not follow a country code/],
		['+36 06 1 234 5678', /\+36 numbers: no 0 after \+36: 06 is the national prefix/],
		['+7 8 912 345 67 89', /\+7 numbers: 10 digits after \+7/],
		['+1 1 212 555 0142', /\+1 numbers: 10 digits after \+1/],
	])('%s is refused with the rule', (typed, problem) => {
		expect(dial(typed)).toMatch(problem);
	});

	test('the rule applies to E.164 fields and Wholesale numbers, with or without the +', () => {
		expect(e164('Number', '4407902000000')?.problem).toMatch(/not a number of the United Kingdom/);
		expect(e164('Number', '+390669883251')).toBeUndefined();
		expect(trunkPrefixIssue('Number', '+44 (0) 020 7946 0123')?.rule).toMatch(/no 0 after the country code/);
	});

	test('a phone book number keeps its form, without a (0) the plan drops', () => {
		expect([withoutTrunkPrefix('+44 (0) 20 7946 0123'), withoutTrunkPrefix('+39 (0)6 6988 3251')]).toEqual(['+44 20 7946 0123', '+39 (0)6 6988 3251']);
	});
});

describe('a national number is converted by its country’s national prefix, never guessed', () => {
	test.each([
		['07700 900123', '44', '+447700900123'],
		['020 7946 0999', '+44', '+442079460999'],
		['06 6988 3251', '39', '+390669883251'],
		['347 123 4567', '39', '+393471234567'],
		['06 1 234 5678', '36', '+3612345678'],
		['8 (912) 345-67-89', '7', '+79123456789'],
		['(212) 555-0142', '1', '+12125550142'],
		['1 212 555 0142', '1', '+12125550142'],
		['01 23 45 67 89', '33', '+33123456789'],
		['0049 30 1234567', '44', '0049301234567'],
		['+33 1 23 45 67 89', '44', '+33123456789'],
		['202', '44', '202'],
	])('%s with Default Country Code %s is sent as %s', (typed, code, sent) => {
		expect(dial(typed, code)).toBe(sent);
	});

	test.each([
		['07700 900123', '', /is a national number: its country cannot be told/],
		['0612345678', '212', /national number for \+212, a country code whose national prefix the numbering plan does not hold/],
		['447700900123', '44', /is not a national number of the United Kingdom: those begin with the national prefix 0/],
		['912 345 67 89', '7', /not a national number of Russia and Kazakhstan: those begin with the national prefix 8/],
		['01 234 5678', '36', /not a national number of Hungary: those begin with the national prefix 06/],
		['393 471 234 567', '39', /begins with 39, the country code, and Italy has no national prefix/],
		['212 555 014', '1', /not a national number of the NANP/],
		['1 012 555 0142', '1', /after the national prefix, 10 digits after \+1/],
		['02 21 23 45 67', '47', /not a national number of Norway/],
	])('%s with Default Country Code "%s" is refused', (typed, code, problem) => {
		expect(dial(typed, code)).toMatch(problem);
		expect(dial(typed, code)).toMatch(/international form with \+/);
	});
});
