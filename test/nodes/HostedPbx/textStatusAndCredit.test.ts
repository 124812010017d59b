import type { IDataObject } from 'n8n-workflow';

import { creditChange } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/trigger/credit';
import type { TextState } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/trigger/textStatus';
import { textChanges } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/trigger/textStatus';

const MINUTE = 60_000;
const NOW = Date.parse('2026-11-28T12:00:00Z');
const ALL = ['failed', 'delivered', 'rejectedByHandset', 'rejectedByCarrier', 'noFinalStatus'];

/** An outgoing message created `minutesAgo` before NOW, in the platform's offset form. */
const sent = (id: string, minutesAgo: number, status: IDataObject = {}): IDataObject => ({
	id,
	direction: 'OUT',
	to: '+447700900123',
	from: 'Acme',
	body: `Text ${id}`,
	created: new Date(NOW - minutesAgo * MINUTE).toISOString().replace('Z', '+0000'),
	sendStatus: 'PENDING',
	cost: 0.04,
	...status,
});

/** Polls every minute over `reads` (one list per poll), returning what each poll emitted as `id:outcome`. */
function polls(reads: IDataObject[][], options: { windowMinutes?: number; chosen?: string[] } = {}) {
	let state: TextState | undefined;
	return reads.map((read, i) => {
		const { items, state: next } = textChanges(state, read, (options.windowMinutes ?? 60) * MINUTE, NOW + i * MINUTE, options.chosen ?? ALL);
		state = next;
		return items.map((item) => `${item.id}:${item.outcome}`);
	});
}

describe('Text Status Changed', () => {
	test('the first poll is history: what is final then is never emitted; what becomes final later is, once', () => {
		expect(
			polls([
				[sent('1', 5, { sendStatus: 'FAILED' }), sent('2', 5)],
				[sent('1', 6, { sendStatus: 'FAILED' }), sent('2', 6, { sendStatus: 'SENT', deliveryStatus: 8 })],
				[sent('1', 7, { sendStatus: 'FAILED' }), sent('2', 7, { sendStatus: 'SENT', deliveryStatus: 16 })],
				[sent('1', 8, { sendStatus: 'FAILED' }), sent('2', 8, { sendStatus: 'SENT', deliveryStatus: 16 })],
			]),
		).toEqual([[], [], ['2:rejectedByCarrier'], []]);
	});

	test('a message sent after the first poll that fails at once is emitted; each final status in words and number', () => {
		const { items } = textChanges({}, [sent('3', 1, { sendStatus: 'SENT', deliveryStatus: 2 }), sent('4', 1, { sendStatus: 'SENT', deliveryStatus: 1 }), sent('5', 1, { sendStatus: 'FAILED' })], 60 * MINUTE, NOW, ALL);
		expect(items).toEqual([
			expect.objectContaining({ id: '3', outcome: 'rejectedByHandset', deliveryStatus: 2, deliveryStatusText: 'rejected from handset', to: '+447700900123', body: 'Text 3', cost: 0.04 }),
			expect.objectContaining({ id: '4', outcome: 'delivered', deliveryStatus: 1, deliveryStatusText: 'delivered to handset' }),
			expect.objectContaining({ id: '5', outcome: 'failed', sendStatus: 'FAILED', deliveryStatus: null }),
		]);
	});

	test('a message still open when it leaves the window is emitted once as having no final status, and never again', () => {
		const pending = [sent('6', 7, { sendStatus: 'SENT', deliveryStatus: 4 })];
		// Polls a minute apart, a window of 10 minutes: 7 minutes old at the first poll, 10 at the fourth.
		expect(polls([pending, pending, pending, pending, pending, pending], { windowMinutes: 10 })).toEqual([[], [], [], ['6:noFinalStatus'], [], []]);
	});

	test('one that stays PENDING and drops out of the read leaves the window the same way, from what was last seen', () => {
		// Seen 3 minutes old at the second poll, then no longer read: 5 minutes old at the fourth.
		expect(polls([[], [sent('7', 2)], [], [], []], { windowMinutes: 5 })).toEqual([[], [], [], ['7:noFinalStatus'], []]);
	});

	test('only the outcomes chosen are emitted; inbound messages and messages without an id are not watched', () => {
		const read = [sent('8', 1, { sendStatus: 'FAILED' }), sent('9', 1, { sendStatus: 'SENT', deliveryStatus: 1 }), { ...sent('10', 1, { sendStatus: 'FAILED' }), direction: 'IN' }, { ...sent('', 1, { sendStatus: 'FAILED' }), id: undefined }];
		expect(textChanges({}, read, 60 * MINUTE, NOW, ['delivered']).items.map((item) => item.id)).toEqual(['9']);
	});

	test('what it keeps stays bounded by the window: decided messages are forgotten once they leave it', () => {
		let state: TextState = {};
		for (let i = 0; i < 200; i++) state = textChanges(state, [sent(String(i), 0, { sendStatus: 'FAILED' })], 10 * MINUTE, NOW + i * MINUTE, ALL).state;
		expect(Object.keys(state).length).toBeLessThanOrEqual(11);
	});
});

describe('Credit Low', () => {
	const balance = (value: number, accountType = 'PREPAID') => ({ type: 'creditstatus', accountType, balance: value });

	test('once per fall below the threshold, again only after it was back at or above it; a low balance at the first poll is one event', () => {
		let state;
		const emitted: number[] = [];
		for (const value of [3, 2, 1, 6, 4, 4, 5, 4.99]) {
			const change = creditChange(state, balance(value), 5, NOW);
			state = change.state;
			if (change.item) emitted.push(change.item.balance as number);
		}
		expect(emitted).toEqual([3, 4, 4.99]);
	});

	test('the item says balance, threshold, account type and currency; a POSTPAID account is polled like any other', () => {
		expect(creditChange(undefined, balance(-12.75, 'POSTPAID'), 0, NOW).item).toEqual({
			event: 'creditLow', balance: -12.75, threshold: 0, low: true, accountType: 'POSTPAID', currency: 'GBP', checkedAt: new Date(NOW).toISOString(),
		});
	});

	test('a changed threshold starts afresh; a balance that is not a number is an error, not an event', () => {
		const { state } = creditChange(undefined, balance(3), 5, NOW);
		expect(creditChange(state, balance(3), 4, NOW).item).toMatchObject({ balance: 3, threshold: 4 });
		expect(() => creditChange(undefined, { balance: 'n/a' }, 5, NOW)).toThrow(/no balance that is a number/);
	});
});
