import { currentTime } from '../core/clock';
import type { Router } from '../core/http';
import type { WsRequest } from './context';
import { failure, on, ok, reply, text } from './context';
import { dateTimeParam, windowStart } from './filters';
import { gmt, md5 } from './php';
import { notificationDestinationProblems } from './rules';
import type { Account, HistoryItem, NotificationMethod, Recipient } from './seed';
import { NOTIFICATION_TYPES } from './seed';
import type { WholesaleSandbox } from './module';

/**
 * Notifications: the types, their e-mail and SMS recipients (added by address, addressed by
 * the md5 of the address), and the history of sent notifications (the last 60 days).
 */

export const HISTORY_WINDOW_DAYS = 60;

const recipientRecord = (r: Recipient) => ({ type: r.type, method: r.method, destination: r.destination, hash: r.hash });

function typeOf(req: WsRequest): string {
	const type = req.params.type;
	if (!NOTIFICATION_TYPES.some((t) => t.type === type)) {
		throw failure(404, `Unknown notification type ${type}; the types are ${NOTIFICATION_TYPES.map((t) => t.type).join(', ')}`);
	}
	return type;
}

function methodOf(req: WsRequest): NotificationMethod {
	const method = req.params.method;
	if (method !== 'email' && method !== 'sms') throw failure(404, `Unknown notification method ${method}: use email or sms`);
	return method;
}

export function historyRecord(item: HistoryItem): Record<string, unknown> {
	return {
		datetime: gmt(item.datetime),
		class: item.class,
		type: item.type,
		method: item.method,
		destination: item.destination,
		subject: item.subject,
		data: item.data,
	};
}

/** Records a notification as sent (trunk created, port changed), with passwords already redacted. */
export function notify(account: Account, type: string, subject: string, data: Record<string, unknown>): void {
	const kind = NOTIFICATION_TYPES.find((t) => t.type === type);
	if (!kind) return;
	for (const recipient of account.recipients.filter((r) => r.type === type)) {
		account.history.push({ datetime: currentTime(), class: kind.class, type, method: recipient.method, destination: recipient.destination, subject, data });
	}
}

export function notificationRoutes(r: Router, _m: WholesaleSandbox): void {
	on(r, 'GET', '/accounts/:account/notifications', (req, res) =>
		reply(
			req,
			res,
			ok(
				NOTIFICATION_TYPES.map((t) => ({
					type: t.type,
					class: t.class,
					description: t.description,
					recipients: req.account.recipients.filter((x) => x.type === t.type).map(recipientRecord),
				})),
			),
		),
	);
	on(r, 'GET', '/accounts/:account/notifications/available', (req, res) =>
		reply(req, res, ok(NOTIFICATION_TYPES.map((t) => ({ type: t.type, class: t.class, description: t.description, methods: ['email', 'sms'] })))),
	);
	on(r, 'GET', '/accounts/:account/notifications/history', (req, res) => {
		const now = currentTime();
		const earliest = windowStart(now, HISTORY_WINDOW_DAYS);
		const window = `last ${HISTORY_WINDOW_DAYS} days`;
		const start = dateTimeParam(req, 'date_start', earliest, earliest, window);
		const end = dateTimeParam(req, 'date_end', now, earliest, window);
		if (start >= end) throw failure(400, 'date_start must be before date_end');
		const wanted = text(req, 'class');
		reply(
			req,
			res,
			req.account.history
				.filter((h) => h.datetime >= start && h.datetime <= end && (!wanted || h.class === wanted))
				.map(historyRecord),
		);
	});

	on(r, 'GET', '/accounts/:account/notifications/:type', (req, res) => {
		const type = typeOf(req);
		reply(req, res, ok(req.account.recipients.filter((x) => x.type === type).map(recipientRecord)));
	});
	on(r, 'DELETE', '/accounts/:account/notifications/:type', (req, res) => {
		const type = typeOf(req);
		req.account.recipients = req.account.recipients.filter((x) => x.type !== type);
		reply(req, res, ok());
	});
	on(r, 'GET', '/accounts/:account/notifications/:type/:method', (req, res) => {
		const type = typeOf(req);
		const method = methodOf(req);
		reply(req, res, ok(req.account.recipients.filter((x) => x.type === type && x.method === method).map(recipientRecord)));
	});
	on(r, 'POST', '/accounts/:account/notifications/:type/:method', (req, res) => {
		const type = typeOf(req);
		const method = methodOf(req);
		const destination = text(req, 'destination') ?? '';
		const errors = notificationDestinationProblems(method, destination);
		if (errors.length) throw failure(400, errors);
		const hash = md5(destination);
		let recipient = req.account.recipients.find((x) => x.type === type && x.method === method && x.hash === hash);
		if (!recipient) {
			recipient = { type, method, destination, hash, added: currentTime() };
			req.account.recipients.push(recipient);
		}
		reply(req, res, ok(recipientRecord(recipient)));
	});
	const find = (req: WsRequest) => {
		const type = typeOf(req);
		const method = methodOf(req);
		const hash = req.params.hash.toLowerCase();
		const recipient = req.account.recipients.find((x) => x.type === type && x.method === method && x.hash === hash);
		if (!recipient) throw failure(404, `No ${method} recipient ${hash} for ${type} notifications`);
		return recipient;
	};
	on(r, 'GET', '/accounts/:account/notifications/:type/:method/:hash', (req, res) => reply(req, res, ok(recipientRecord(find(req)))));
	on(r, 'DELETE', '/accounts/:account/notifications/:type/:method/:hash', (req, res) => {
		const recipient = find(req);
		req.account.recipients = req.account.recipients.filter((x) => x !== recipient);
		reply(req, res, ok());
	});
}
