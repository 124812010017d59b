import { prng, round } from './php';

/**
 * The destination table behind the rate cards, destination rates, CDRs and calls in progress:
 * a few hundred prefixes, each with a location (some with commas and quotes, as real rate
 * decks have), a destination id, the ISO country and a silver-deck rate.
 */

export interface Destination {
	prefix: string;
	location: string;
	destId: number;
	iso: string;
	country: string;
	kind: 'fixed' | 'mobile' | 'special';
	/** Silver (deck 3) per-minute rates; the other decks scale them. */
	day: number;
	evening: number;
	weekend: number;
	connection: number;
	minimumSec: number;
	incrementSec: number;
}

/** Decks by number, as the destination-rate answer keys them: 1 platinum, 2 gold, 3 silver. */
export const DECKS = { platinum: 1, gold: 2, silver: 3 } as const;
export type DeckName = keyof typeof DECKS;
const DECK_FACTOR: Record<number, number> = { 1: 1.25, 2: 1.12, 3: 1 };

/** iso | name | country code | mobile prefixes (after the country code) | fixed city prefixes */
const COUNTRIES = `
FR|France|33|6 7|1 4 9
DE|Germany|49|151 152 157 159 160 162 163 170 171 172 175 176 177 178 179|30 40 69 89
IE|Ireland|353|83 85 86 87 89|1 21
ES|Spain|34|6 7|91 93
IT|Italy|39|32 33 34 35 36 38 39|2 6
NL|Netherlands|31|6|20 10
BE|Belgium|32|46 47 48 49|2
CH|Switzerland|41|75 76 77 78 79|44 22
AT|Austria|43|650 660 664 676 680 688 699|1
PT|Portugal|351|91 92 93 96|21
SE|Sweden|46|70 72 73 76 79|8
NO|Norway|47|4 9|
DK|Denmark|45|2 3 4 5 6 7 8|
FI|Finland|358|40 44 45 50|9
PL|Poland|48|50 51 53 57 60 66 69 72 73 78 79 88|22
CZ|Czech Republic|420|60 70 72 73 77 79|2
GR|Greece|30|69|21
RO|Romania|40|72 73 74 75 76 77 78|21
HU|Hungary|36|20 30 70|1
TR|Turkey|90|50 53 54 55|212 312
RU|Russian Federation|7|9|495 812
UA|Ukraine|380|50 63 66 67 68 73 93 95 96 97 98 99|44
IL|Israel|972|50 52 53 54 55 58|2 3
AE|United Arab Emirates|971|50 52 54 55 56 58|4
SA|Saudi Arabia|966|50 53 54 55 56 57 58 59|11
IN|India|91|6 7 8 9|11 22
PK|Pakistan|92|30 31 32 33 34|21 42
BD|Bangladesh|880|13 14 15 16 17 18 19|2
CN|China|86|13 14 15 17 18 19|10 21
HK|Hong Kong|852|5 6 9|
JP|Japan|81|70 80 90|3 6
KR|Korea, Republic of|82|10|2
TW|Taiwan, Province of China|886|9|2
SG|Singapore|65|8 9|6
MY|Malaysia|60|1|3
TH|Thailand|66|6 8 9|2
PH|Philippines|63|9|2
VN|Viet Nam|84|3 5 7 8 9|24 28
ID|Indonesia|62|8|21
AU|Australia|61|4|2 3 7 8
NZ|New Zealand|64|2|9
ZA|South Africa|27|6 7 8|11 21
NG|Nigeria|234|70 80 81 90 91|1
KE|Kenya|254|7 1|20
EG|Egypt|20|10 11 12 15|2
MA|Morocco|212|6 7|5
CI|Côte d'Ivoire|225|01 05 07|27
CD|Congo, The Democratic Republic of the|243|81 82 84 85 89 97 99|
TZ|Tanzania, United Republic of|255|6 7|22
IR|Iran, Islamic Republic of|98|9|21
LA|Lao People's Democratic Republic|856|20|21
MD|Moldova, Republic of|373|6 7|22
MK|North Macedonia, Republic of|389|7|2
PS|Palestine, State of|970|56 59|
VG|Virgin Islands, British|1284|3 4 5|49
FM|Micronesia, Federated States of|691|92 93 95|
BQ|Bonaire, Sint Eustatius and Saba|599|7 3|
CW|Curaçao|5999|5 6 9|4
RE|Réunion|262|692 693|262
MX|Mexico|52|1|55 33
BR|Brazil|55|11 21 31|
AR|Argentina|54|9|11
CO|Colombia|57|3|1
CL|Chile|56|9|2
PE|Peru|51|9|1
`;

let cached: Destination[] | undefined;

/** The table (built once; every start and reset gets the same rows). */
export function destinations(): Destination[] {
	if (cached) return cached;
	const random = prng(20260301);
	const rows: Destination[] = [];
	const ids = new Map<string, number>();
	const add = (prefix: string, location: string, iso: string, country: string, kind: Destination['kind'], base: number) => {
		let destId = ids.get(location);
		if (destId === undefined) {
			destId = 1001 + ids.size;
			ids.set(location, destId);
		}
		const day = round(base * (0.85 + random() * 0.3), 4);
		rows.push({
			prefix,
			location,
			destId,
			iso,
			country,
			kind,
			day,
			evening: round(day * 0.8, 4),
			weekend: round(day * 0.6, 4),
			connection: kind === 'special' ? 0.05 : random() < 0.2 ? 0.01 : 0,
			minimumSec: kind === 'special' ? 60 : random() < 0.15 ? 30 : 0,
			incrementSec: kind === 'special' ? 60 : 1,
		});
	};

	// The United Kingdom and North America first, with their own ranges.
	add('44', 'United Kingdom - Other', 'GB', 'United Kingdom', 'fixed', 0.01);
	add('441', 'United Kingdom - Fixed', 'GB', 'United Kingdom', 'fixed', 0.004);
	add('442', 'United Kingdom - Fixed', 'GB', 'United Kingdom', 'fixed', 0.004);
	add('443', 'United Kingdom - Non-Geographic 03', 'GB', 'United Kingdom', 'fixed', 0.004);
	add('4470', 'United Kingdom - Personal Numbering', 'GB', 'United Kingdom', 'special', 0.25);
	for (const [prefix, operator] of [
		['4471', 'Vodafone'], ['4472', 'EE'], ['4473', 'O2'], ['4474', 'Three'], ['4475', 'EE'],
		['4477', 'Vodafone'], ['4478', 'O2'], ['4479', 'Three'], ['447700', 'Other'],
	]) {
		add(prefix, `United Kingdom - Mobile, ${operator}`, 'GB', 'United Kingdom', 'mobile', 0.009);
	}
	add('4476', 'United Kingdom - Pagers', 'GB', 'United Kingdom', 'special', 0.2);
	add('4480', 'United Kingdom - Freephone', 'GB', 'United Kingdom', 'special', 0.02);
	add('4484', 'United Kingdom - Non-Geographic 084', 'GB', 'United Kingdom', 'special', 0.06);
	add('4487', 'United Kingdom - Non-Geographic 087', 'GB', 'United Kingdom', 'special', 0.09);
	add('449', 'United Kingdom - Premium Rate "09"', 'GB', 'United Kingdom', 'special', 1.2);
	add('1', 'United States', 'US', 'United States', 'fixed', 0.006);
	for (const area of ['201', '202', '212', '213', '305', '312', '415', '617', '646', '702', '713', '718', '805', '917']) {
		add(`1${area}`, 'United States', 'US', 'United States', 'fixed', 0.006);
	}
	add('1907', 'United States - Alaska', 'US', 'United States', 'fixed', 0.03);
	add('1808', 'United States - Hawaii', 'US', 'United States', 'fixed', 0.02);
	for (const area of ['204', '403', '416', '514', '604', '613', '905']) add(`1${area}`, 'Canada', 'CA', 'Canada', 'fixed', 0.007);
	add('1876', 'Jamaica - Fixed', 'JM', 'Jamaica', 'fixed', 0.09);
	add('18763', 'Jamaica - Mobile, "Digicel"', 'JM', 'Jamaica', 'mobile', 0.2);
	add('1868', 'Trinidad and Tobago', 'TT', 'Trinidad and Tobago', 'fixed', 0.08);

	for (const line of COUNTRIES.trim().split('\n')) {
		const [iso, name, cc, mobile, cities] = line.split('|');
		const fixedBase = 0.005 + random() * 0.05;
		const mobileBase = fixedBase * (1.5 + random() * 3);
		add(cc, `${name} - Fixed`, iso, name, 'fixed', fixedBase);
		for (const city of cities.split(' ').filter(Boolean)) add(`${cc}${city}`, `${name} - Fixed`, iso, name, 'fixed', fixedBase * 0.9);
		for (const m of mobile.split(' ').filter(Boolean)) add(`${cc}${m}`, `${name} - Mobile`, iso, name, 'mobile', mobileBase);
		if (random() < 0.25) add(`${cc}90`, `${name} - Special Services "Premium"`, iso, name, 'special', 0.6 + random());
	}
	cached = rows;
	return rows;
}

let byPrefix: Map<string, Destination> | undefined;

/** The row with the longest prefix of the number (E.164 digits), if any. */
export function destinationOf(number: string): Destination | undefined {
	byPrefix ??= new Map(destinations().map((d) => [d.prefix, d]));
	for (let length = Math.min(number.length, 7); length > 0; length--) {
		const found = byPrefix.get(number.slice(0, length));
		if (found) return found;
	}
	return undefined;
}

export function deckRate(destination: Destination, deck: number, factor = 1): { p: number; o: number; w: number; c: number } {
	const f = (DECK_FACTOR[deck] ?? 1) * factor;
	return {
		p: round(destination.day * f, 4),
		o: round(destination.evening * f, 4),
		w: round(destination.weekend * f, 4),
		c: round(destination.connection * f, 4),
	};
}

/** A rate card: `Effective: <date>`, a header row, one row per prefix, quoted as CSV needs. */
export function rateCardCsv(effective: string, deck: number, factor = 1): string {
	const cell = (value: string | number) => {
		const text = String(value);
		return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
	};
	const lines = [`Effective: ${effective}`, 'prefix,location,day,evening,weekend,connection,minimum_sec,increment_sec'];
	for (const d of destinations()) {
		const r = deckRate(d, deck, factor);
		lines.push(
			[d.prefix, d.location, r.p.toFixed(4), r.o.toFixed(4), r.w.toFixed(4), r.c.toFixed(4), d.minimumSec, d.incrementSec]
				.map(cell)
				.join(','),
		);
	}
	return `${lines.join('\n')}\n`;
}
