import type { ServerResponse } from 'node:http';

import { currentTime } from '../core/clock';
import type { SandboxRequest } from '../core/http';
import { HttpError, Router } from '../core/http';
import type { SandboxContext, SandboxModule } from '../core/server';
import { accountRoutes } from './account';
import { buildAdmin } from './admin';
import type { WsRequest } from './context';
import { failure, isRecord, on, reply } from './context';
import { numberRoutes } from './numbers';
import { notificationRoutes } from './notifications';
import { parsePhpForm, rfc2822 } from './php';
import { portingRoutes } from './porting';
import { rateRoutes } from './rates';
import { ReportStore, reportRoutes } from './reports';
import type { Account, WholesaleData } from './seed';
import { seedWholesale } from './seed';
import { voiceRoutes } from './voice';
import type { Encoding, TimestampForm } from './webhooks';
import { Deliveries, encodeDocument, messageId, webhookDocument, withQuery } from './webhooks';

/**
 * The Wholesale Voice API, version 3 (`/v3`): a PHP-style service with HTTP Basic per
 * account, `json_encode` output, lenient methods (`_method`, POST for PUT, GET for POST),
 * parameters from the query string and from JSON or form bodies, asynchronous reports,
 * and webhooks pushed to loopback receivers. The route files hold the subjects.
 */

export const WHOLESALE_PREFIX = '/v3';
export const REALM = 'Wholesale Voice API';

/** Path roots whose second segment is an account id, checked against the credentials. */
const ACCOUNT_ROOTS = new Set(['accounts', 'voice', 'numbers', 'porting', 'files']);

export interface WholesaleSettings {
	/** How long a report runs before its file is ready. */
	reportReadyMs: number;
	/** How long a ready file is kept uncollected (the spec's 5 minutes). */
	reportRetentionMs: number;
	/** Per-request timeout of outbound deliveries. */
	deliveryTimeoutMs: number;
}

export const DEFAULT_WHOLESALE_SETTINGS: WholesaleSettings = {
	reportReadyMs: 2000,
	reportRetentionMs: 300_000,
	deliveryTimeoutMs: 10_000,
};

/** A URL that receives an account's webhooks: for one app, or `default` for every app. */
export interface WebhookTarget {
	account: string;
	app: string;
	url: string;
	headers: Record<string, string>;
	query: Record<string, string>;
	encoding: Encoding;
	timestampForm: TimestampForm;
}

export interface E911Fault {
	code: string;
	count: number;
	field: string | null;
	message: string | null;
}

export class WholesaleSandbox implements SandboxModule {
	readonly name = 'wholesale';
	readonly prefix = WHOLESALE_PREFIX;
	readonly admin: Router;
	settings: WholesaleSettings = { ...DEFAULT_WHOLESALE_SETTINGS };
	/**
	 * The seeded data, made on first use after a start or reset (at the time of that reset): most
	 * tests of other APIs reset the sandbox and never read it, and 3,400 CDRs take a while.
	 */
	get data(): WholesaleData {
		this.seeded ??= seedWholesale(this.seededAt);
		return this.seeded;
	}
	private seeded: WholesaleData | undefined;
	private seededAt = currentTime();
	readonly reports = new ReportStore(this);
	readonly deliveries = new Deliveries(() => this.settings.deliveryTimeoutMs);
	webhookTargets: WebhookTarget[] = [];
	e911Faults: E911Fault[] = [];
	private readonly tools: Router;
	private readonly api: Router;

	constructor(readonly context: SandboxContext) {
		this.tools = this.buildTools();
		this.api = new Router();
		for (const add of [accountRoutes, rateRoutes, reportRoutes, notificationRoutes, voiceRoutes, numberRoutes, portingRoutes]) {
			add(this.api, this);
		}
		this.admin = buildAdmin(this);
	}

	baseUrl(): string {
		return this.context.baseUrl();
	}

	info(baseUrl: string): Record<string, unknown> {
		return {
			baseUrl: `${baseUrl}${WHOLESALE_PREFIX}`,
			auth: 'HTTP Basic with the account\'s API username and password',
			accounts: [...this.data.accounts.values()].map((a) => ({
				accountId: a.id,
				username: a.username,
				password: a.password,
				type: a.type,
				currency: a.currency,
				nanpa: a.nanpa,
			})),
		};
	}

	reset(): void {
		this.reports.reset();
		this.deliveries.reset();
		this.settings = { ...DEFAULT_WHOLESALE_SETTINGS };
		this.seeded = undefined;
		this.seededAt = currentTime();
		this.webhookTargets = [];
		this.e911Faults = [];
	}

	close(): void {
		this.reports.close();
		this.deliveries.close();
	}

	account(id: string): Account | undefined {
		return this.data.accounts.get(id);
	}

	/** A charged operation (999 data, a port): taken from the prepay balance. */
	charge(account: Account, amount: number, description: string): void {
		account.balance = Math.round((account.balance - amount) * 10_000) / 10_000;
		account.charges.push({ datetime: currentTime(), description, amount });
	}

	/** Pushes an event to the account's webhook URL for the app (or its default URL), if one is set. */
	emit(account: Account, app: string, data: Record<string, unknown>, source: 'porting' | 'call'): void {
		const target =
			this.webhookTargets.find((t) => t.account === account.id && t.app === app) ??
			this.webhookTargets.find((t) => t.account === account.id && t.app === 'default');
		if (!target) return;
		const id = messageId();
		const document = webhookDocument(app, id, data, target.timestampForm);
		const { contentType, body } = encodeDocument(document, target.encoding);
		this.deliveries.sendLater({
			source,
			app,
			messageId: id,
			url: withQuery(target.url, target.query),
			headers: target.headers,
			contentType,
			body,
			document,
		});
	}

	// ---- request handling -------------------------------------------------------------

	async handle(raw: SandboxRequest, res: ServerResponse): Promise<void> {
		// The request log entry of this request was made just before this call; form bodies are
		// logged as PHP reads them (nested, repeated keys kept) once parsed.
		const log = this.context.log;
		const entry = log.list({ since: Math.max(0, log.lastSeq - 1) }).find((e) => e.seq === log.lastSeq);
		const req = raw as WsRequest;
		try {
			const bodyError = this.prepare(req);
			if (entry && req.bodyKind === 'form') entry.body = parsePhpForm(req.body.toString('utf8'));
			const tools = req.path === '/tools' || req.path.startsWith('/tools/');
			// Credentials are checked before the body is complained about.
			if (!tools) this.authenticate(req);
			if (bodyError) throw bodyError;
			await this.dispatch(tools ? this.tools : this.api, req, res);
		} catch (error) {
			if (!(error instanceof HttpError)) throw error;
			const body = isRecord(error.body) && 'success' in error.body ? error.body : { success: false, errors: [error.message] };
			reply(req, res, body, error.status, error.headers);
		}
	}

	/** Body, parameters, `pretty` and `_method`; a body that cannot be read is returned as the error to answer. */
	private prepare(req: WsRequest): HttpError | undefined {
		const rawUrl = req.raw.url ?? '';
		const search = rawUrl.includes('?') ? rawUrl.slice(rawUrl.indexOf('?') + 1) : '';
		const query = parsePhpForm(search);
		const type = String(req.headers['content-type'] ?? '');
		const bodyText = req.body.toString('utf8');
		req.bodyJson = undefined;
		req.bodyKind = 'none';
		req.pretty = query.pretty === 'true' || query.pretty === '1';
		let bodyError: HttpError | undefined;
		let fromBody: Record<string, unknown> = {};
		if (bodyText.trim() !== '') {
			const looksJson = /^\s*[[{]/.test(bodyText);
			if (/json/i.test(type) || (looksJson && !/x-www-form-urlencoded/i.test(type))) {
				try {
					req.bodyJson = JSON.parse(bodyText) as unknown;
					req.bodyKind = 'json';
					if (isRecord(req.bodyJson)) fromBody = { ...req.bodyJson };
				} catch {
					bodyError = failure(400, 'The request body is not valid JSON');
				}
			} else if (type === '' || /x-www-form-urlencoded/i.test(type)) {
				req.bodyKind = 'form';
				fromBody = parsePhpForm(bodyText);
			}
		}
		// `_method` in the body wins over one in the query string; neither is a parameter.
		const override = fromBody._method ?? query._method;
		delete fromBody._method;
		req.bodyParams = fromBody;
		const input: Record<string, unknown> = { ...query, ...fromBody };
		delete input._method;
		if (Object.hasOwn(query, 'pretty') && !Object.hasOwn(fromBody, 'pretty')) delete input.pretty;
		req.input = input;
		if (typeof override === 'string' && override.trim() !== '' && (req.rawMethod === 'GET' || req.rawMethod === 'POST')) {
			const method = override.trim().toUpperCase();
			if (['GET', 'POST', 'PUT', 'DELETE'].includes(method)) req.method = method;
			else bodyError ??= failure(400, `_method ${override} is not GET, POST, PUT or DELETE`);
		}
		return bodyError;
	}

	private authenticate(req: WsRequest): void {
		const match = /^Basic\s+(.+)$/i.exec(String(req.headers.authorization ?? ''));
		let account: Account | undefined;
		if (match) {
			const decoded = Buffer.from(match[1], 'base64').toString('utf8');
			const split = decoded.indexOf(':');
			const username = decoded.slice(0, split);
			const password = decoded.slice(split + 1);
			account = [...this.data.accounts.values()].find((a) => a.username === username && a.password === password);
		}
		if (!account) {
			throw failure(401, 'Authentication required: use the API username and password of the account', {
				'WWW-Authenticate': `Basic realm="${REALM}"`,
			});
		}
		req.account = account;
		req.principal = `${account.username} (account ${account.id})`;
		const [, root, accountId] = req.path.split('/');
		if (ACCOUNT_ROOTS.has(root) && accountId !== undefined && accountId !== '' && decodeURIComponent(accountId) !== account.id) {
			throw failure(403, `These API credentials do not give access to account ${decodeURIComponent(accountId)}`);
		}
	}

	/** Routes with the service's leniency: POST in place of PUT, GET in place of POST; never for DELETE. */
	private async dispatch(router: Router, req: WsRequest, res: ServerResponse): Promise<void> {
		let found = router.match(req.method, req.path);
		if (found && 'allowed' in found) {
			const substitute = req.method === 'POST' && found.allowed.includes('PUT') ? 'PUT' : req.method === 'GET' && found.allowed.includes('POST') ? 'POST' : undefined;
			if (substitute) {
				req.method = substitute;
				found = router.match(substitute, req.path);
			}
		}
		if (!found) throw failure(404, `No resource at ${req.fullPath}`);
		if ('allowed' in found) {
			throw failure(405, `${req.method} is not supported on ${req.fullPath}`, { Allow: [...new Set(found.allowed)].join(', ') });
		}
		req.params = found.params;
		await found.handler(req, res);
	}

	private buildTools(): Router {
		const r = new Router();
		on(r, 'GET', '/tools/myip', (req, res) => reply(req, res, { ip: remoteAddress(req) }));
		on(r, 'GET', '/tools/time', (req, res) => {
			const now = currentTime();
			reply(req, res, { timestamp: Math.floor(now / 1000), rfc: rfc2822(now) });
		});
		on(r, '*', '/tools/explain', (req, res) => {
			const headers: Record<string, string> = {};
			for (const [key, value] of Object.entries(req.headers)) {
				if (value === undefined) continue;
				const text = Array.isArray(value) ? value.join(', ') : value;
				headers[key] = key === 'authorization' ? text.replace(/^(\w+)\s+.*$/, '$1 ******') : text;
			}
			const rawUrl = req.raw.url ?? '';
			reply(req, res, {
				method: req.rawMethod,
				effective_method: req.method,
				uri: rawUrl,
				path: req.fullPath,
				remote_addr: remoteAddress(req),
				content_type: req.headers['content-type'] ?? null,
				body_format: req.bodyKind,
				body_length: req.body.length,
				query: parsePhpForm(rawUrl.includes('?') ? rawUrl.slice(rawUrl.indexOf('?') + 1) : ''),
				parameters: req.input,
				headers,
			});
		});
		return r;
	}
}

function remoteAddress(req: WsRequest): string {
	return (req.raw.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

export const wholesaleModule = (context: SandboxContext) => new WholesaleSandbox(context);
