import { currentTime } from '../core/clock';
import type { Router } from '../core/http';
import { failure, on, ok, reply, sendRaw } from './context';
import { DECKS, deckRate, destinationOf, rateCardCsv } from './destinations';
import type { WholesaleSandbox } from './module';

/** Rates: the tariff list, rate cards as CSV, and the rate of one destination number. */

interface Tariff {
	description: string;
	servicelevel: number;
	quality: string;
	prefix: number;
	/** The path segment of its CSV. */
	file: string;
	deck: number;
	factor: number;
	isDefault?: boolean;
}

export const TARIFFS: Tariff[] = [
	{ description: 'Platinum', servicelevel: 1, quality: 'premium', prefix: 9001, file: 'platinum', deck: DECKS.platinum, factor: 1 },
	{ description: 'Gold', servicelevel: 2, quality: 'high', prefix: 9002, file: 'gold', deck: DECKS.gold, factor: 1 },
	{ description: 'Silver', servicelevel: 3, quality: 'standard', prefix: 9003, file: 'silver', deck: DECKS.silver, factor: 1, isDefault: true },
	{ description: 'CLI routes 2026', servicelevel: 2, quality: 'cli', prefix: 9050, file: 'cli-routes-2026', deck: DECKS.gold, factor: 1.3 },
];

/** The first day of the current month: when the current cards took effect. */
export function effectiveDate(now = new Date(currentTime())): string {
	return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
}

export function rateRoutes(r: Router, _m: WholesaleSandbox): void {
	on(r, 'GET', '/accounts/:account/rates/tariffs', (req, res) =>
		reply(
			req,
			res,
			ok(
				TARIFFS.map((t) => ({
					description: t.description,
					servicelevel: t.servicelevel,
					quality: t.quality,
					prefix: t.prefix,
					...(t.isDefault ? { default: true } : {}),
					url: `/v3/accounts/${req.account.id}/rates/csv/${t.file}`,
				})),
			),
		),
	);

	on(r, 'GET', '/accounts/:account/rates/csv/:deck', (req, res) => {
		const name = req.params.deck.replace(/\.csv$/i, '');
		const tariff = name === 'default' ? TARIFFS.find((t) => t.isDefault) : TARIFFS.find((t) => t.file === name);
		if (!tariff) throw failure(404, `No rate card ${name}: use default, silver, gold, platinum or a file name from the tariff list`);
		sendRaw(res, rateCardCsv(effectiveDate(), tariff.deck, tariff.factor), 'text/csv; charset=utf-8', {
			'Content-Disposition': `attachment; filename="${req.account.id}-${tariff.file}.csv"`,
		});
	});

	on(r, 'GET', '/accounts/:account/rate/:number', (req, res) => {
		const number = req.params.number.trim().replace(/^\+/, '');
		if (!/^\d{4,15}$/.test(number)) throw failure(400, `${req.params.number} is not an E.164 number`);
		const destination = destinationOf(number);
		if (!destination) throw failure(404, `No rate for ${number}: the destination is not on the rate card`);
		const rates: Record<string, Record<string, string>> = {};
		for (const deck of [DECKS.platinum, DECKS.gold, DECKS.silver]) {
			const rate = deckRate(destination, deck);
			rates[String(deck)] = { p: rate.p.toFixed(4), o: rate.o.toFixed(4), w: rate.w.toFixed(4), c: rate.c.toFixed(4) };
		}
		reply(req, res, { desc: destination.location, rates });
	});
}
