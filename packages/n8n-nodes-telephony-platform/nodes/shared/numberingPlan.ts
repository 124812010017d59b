/**
 * The national (trunk) prefix of the countries whose numbers the nodes convert, as facts: a national
 * number is converted to international form only where its country is here, and refused otherwise.
 * Source: the national prefixes ITU-T publishes with the E.164 country codes (ITU Operational
 * Bulletin, "Dialling procedures (international prefix, national (trunk) prefix and national
 * (significant) number)", Annex to ITU-T E.164), and the NANP's numbering plan (NANPA) for +1.
 */
export interface NumberingPlan {
	country: string;
	/** Dialled before a national number and never from abroad; '' where the country has none (its national number is dialled whole). */
	prefix: string;
	/** The number after the country code (national significant number), where the plan fixes its form. */
	nsn?: RegExp;
	/** What `nsn` requires, in words. */
	nsnRule?: string;
}

/** Countries whose national prefix is 0: no number there begins with 0 after the country code. */
const trunkZero = (country: string): NumberingPlan => ({
	country,
	prefix: '0',
	nsn: /^[1-9]/,
	nsnRule: 'no 0 after the country code: 0 is the national prefix, dialled only inside the country',
});
/** Closed plans without a national prefix, whose numbers never begin with 0. */
const noPrefix = (country: string): NumberingPlan => ({
	country,
	prefix: '',
	nsn: /^[1-9]/,
	nsnRule:
		'no 0 after the country code: the country has no national prefix and no number there begins with 0',
});
/** Italy and the states inside its numbering: no national prefix, the 0 of a fixed number is part of it (+39 06 6988 3251). */
const zeroKept = (country: string): NumberingPlan => ({ country, prefix: '' });

export const NUMBERING_PLANS: Readonly<Record<string, NumberingPlan>> = {
	1: {
		country: 'the NANP (United States, Canada, Caribbean)',
		prefix: '1',
		nsn: /^[2-9]\d{9}$/,
		nsnRule: '10 digits after +1, the area code first, beginning 2 to 9',
	},
	7: {
		country: 'Russia and Kazakhstan',
		prefix: '8',
		nsn: /^\d{10}$/,
		nsnRule: '10 digits after +7 (8 is the national prefix, dialled only inside the country)',
	},
	27: trunkZero('South Africa'),
	30: noPrefix('Greece'),
	31: trunkZero('the Netherlands'),
	32: trunkZero('Belgium'),
	33: trunkZero('France'),
	34: noPrefix('Spain'),
	36: {
		country: 'Hungary',
		prefix: '06',
		nsn: /^[1-9]/,
		nsnRule: 'no 0 after +36: 06 is the national prefix, dialled only inside the country',
	},
	39: zeroKept('Italy'),
	41: trunkZero('Switzerland'),
	43: trunkZero('Austria'),
	44: trunkZero('the United Kingdom'),
	45: noPrefix('Denmark'),
	46: trunkZero('Sweden'),
	47: noPrefix('Norway'),
	48: noPrefix('Poland'),
	49: trunkZero('Germany'),
	61: trunkZero('Australia'),
	64: trunkZero('New Zealand'),
	81: trunkZero('Japan'),
	82: trunkZero('South Korea'),
	86: trunkZero('China'),
	90: trunkZero('Türkiye'),
	91: trunkZero('India'),
	351: noPrefix('Portugal'),
	352: noPrefix('Luxembourg'),
	353: trunkZero('Ireland'),
	354: noPrefix('Iceland'),
	358: trunkZero('Finland'),
	378: zeroKept('San Marino'),
	379: zeroKept('Vatican City'),
	420: noPrefix('Czechia'),
	972: trunkZero('Israel'),
};

/** The country code in the table that international digits (no + or 00) begin with; country codes are prefix-free, so at most one does. */
export function plannedCountryCode(digits: string): string | undefined {
	return [1, 2, 3].map((length) => digits.slice(0, length)).find((code) => code in NUMBERING_PLANS);
}
