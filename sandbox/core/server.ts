import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { DriftTable } from './drift';
import type { FaultSpec } from './faults';
import { FaultQueue } from './faults';
import type { Handler, SandboxRequest } from './http';
import { HttpError, Router, jsonBody, parseQuery, readBody, send } from './http';
import { RequestLog } from './log';

/** What every module gets: the shared log and faults, and the sandbox's own address. */
export interface SandboxContext {
	log: RequestLog;
	faults: FaultQueue;
	/** Answers changed as a platform that changed would send them (see `drift.ts`). */
	drifts: DriftTable;
	baseUrl(): string;
}

export interface SandboxModule {
	/** Short name used in the log and admin paths: `pbx`, `convai`, `intelligence`, `wholesale`. */
	name: string;
	/** Path prefix of the API (`/api/v1`). */
	prefix: string;
	handle(req: SandboxRequest, res: ServerResponse): unknown;
	/** Admin routes, served under `/_sandbox/<name>`. */
	admin?: Router;
	/** The largest request body the API takes (default 20 MiB); a larger one is answered 413. */
	maxBodyBytes?: number;
	/** Base URL and demo credentials, for the startup line and tests. */
	info(baseUrl: string): Record<string, unknown>;
	reset(): void;
	close(): void;
}

export type ModuleFactory = (context: SandboxContext) => SandboxModule;

export interface RunningSandbox {
	url: string;
	port: number;
	context: SandboxContext;
	modules: Record<string, SandboxModule>;
	info(): Record<string, unknown>;
	reset(): void;
	close(): Promise<void>;
}

export const ADMIN_PREFIX = '/_sandbox';

function splitPath(rawUrl: string): { path: string; search: string } {
	const index = rawUrl.indexOf('?');
	const rawPath = index < 0 ? rawUrl : rawUrl.slice(0, index);
	return { path: rawPath, search: index < 0 ? '' : rawUrl.slice(index + 1) };
}

async function toSandboxRequest(raw: IncomingMessage, prefix: string, maxBodyBytes?: number): Promise<SandboxRequest> {
	const { path, search } = splitPath(raw.url ?? '/');
	const body = await readBody(raw, maxBodyBytes);
	const method = (raw.method ?? 'GET').toUpperCase();
	return {
		method,
		rawMethod: method,
		path: path.slice(prefix.length) || '/',
		fullPath: path,
		query: parseQuery(search),
		headers: raw.headers,
		body,
		params: {},
		raw,
	};
}

async function dispatch(router: Router, req: SandboxRequest, res: ServerResponse): Promise<void> {
	const found = router.match(req.method, req.path);
	if (!found) throw new HttpError(404, { message: `No resource at ${req.fullPath}` });
	if ('allowed' in found) {
		throw new HttpError(405, { message: `${req.method} is not allowed on ${req.fullPath}` }, { Allow: found.allowed.join(', ') });
	}
	req.params = found.params;
	await found.handler(req, res);
}

/** Runs a module router, answering `HttpError`s thrown by handlers. */
export function routeHandler(router: Router): Handler {
	return async (req, res) => await dispatch(router, req, res);
}

export async function startSandboxServer(
	factories: ModuleFactory[],
	options: { port?: number; host?: string } = {},
): Promise<RunningSandbox> {
	let url = '';
	const context: SandboxContext = { log: new RequestLog(), faults: new FaultQueue(), drifts: new DriftTable(), baseUrl: () => url };
	const modules = factories.map((factory) => factory(context));
	const byName = Object.fromEntries(modules.map((m) => [m.name, m]));
	const sockets = new Set<Socket>();

	const info = () => ({
		sandbox: 'n8n-nodes-telephony-platform',
		baseUrl: url,
		admin: `${url}${ADMIN_PREFIX}`,
		apis: Object.fromEntries(modules.map((m) => [m.name, m.info(url)])),
	});
	const reset = () => {
		context.log.clear();
		context.faults.clear();
		context.drifts.clear();
		for (const m of modules) m.reset();
	};

	const admin = new Router()
		.add('GET', '/info', (_req, res) => send(res, 200, info()))
		.add('GET', '/requests', (req, res) =>
			send(
				res,
				200,
				context.log.list({
					api: req.query.api as string | undefined,
					method: req.query.method as string | undefined,
					pathPrefix: req.query.pathPrefix as string | undefined,
					since: req.query.since ? Number(req.query.since) : undefined,
				}),
			),
		)
		.add('DELETE', '/requests', (_req, res) => {
			context.log.clear();
			send(res, 204);
		})
		.add('POST', '/reset', (_req, res) => {
			reset();
			send(res, 200, { reset: true });
		})
		.add('POST', '/faults', (req, res) => {
			const fault = context.faults.add(jsonBody<FaultSpec>(req) as FaultSpec);
			send(res, 200, { queued: true, fault });
		})
		.add('GET', '/faults', (_req, res) => send(res, 200, { faults: context.faults.list(), openAnswers: context.faults.openAnswers() }))
		.add('GET', '/faults/:id', (req, res) => {
			const fault = context.faults.get(Number(req.params.id));
			if (!fault) throw new HttpError(404, { message: `No fault ${req.params.id} (it may have been used up)` });
			send(res, 200, fault);
		})
		.add('DELETE', '/faults', (_req, res) => {
			const removed = context.faults.list().length;
			context.faults.clear();
			send(res, 200, { removed });
		})
		.add('POST', '/drift', (req, res) => send(res, 200, { drift: context.drifts.add(jsonBody(req)) }))
		.add('GET', '/drift', (_req, res) => send(res, 200, { drifts: context.drifts.list() }))
		.add('DELETE', '/drift', (_req, res) => {
			const removed = context.drifts.list().length;
			context.drifts.clear();
			send(res, 200, { removed });
		})
		.add('DELETE', '/faults/:id', (req, res) => {
			if (!context.faults.remove(Number(req.params.id))) throw new HttpError(404, { message: `No fault ${req.params.id}` });
			send(res, 200, { removed: 1 });
		});

	async function handleAdmin(req: SandboxRequest, res: ServerResponse): Promise<void> {
		const [, moduleName] = req.path.split('/');
		const module = byName[moduleName];
		if (module?.admin) {
			req.path = req.path.slice(moduleName.length + 1) || '/';
			await dispatch(module.admin, req, res);
			return;
		}
		await dispatch(admin, req, res);
	}

	const server: Server = createServer(async (raw, res) => {
		try {
			const pathOnly = splitPath(raw.url ?? '/').path;
			if (pathOnly.startsWith(`${ADMIN_PREFIX}/`)) {
				await handleAdmin(await toSandboxRequest(raw, ADMIN_PREFIX), res);
				return;
			}
			const module = modules.find((m) => pathOnly === m.prefix || pathOnly.startsWith(`${m.prefix}/`));
			if (!module) throw new HttpError(404, { message: `No API at ${pathOnly}` });
			const req = await toSandboxRequest(raw, module.prefix, module.maxBodyBytes);
			const entry = context.log.record(module.name, req);
			res.on('finish', () => {
				// The module may have changed the method (`_method`) after the entry was made.
				entry.method = req.method;
				entry.status = res.statusCode;
				if (req.principal) entry.principal = req.principal;
			});
			const fault = context.faults.take(module.name, req.method, req.fullPath);
			if (fault) {
				entry.fault = `${fault.kind}#${fault.id}`;
				if (fault.kind !== 'hang') entry.status = fault.status;
				context.faults.play(fault, res, send);
				return;
			}
			const drift = context.drifts.take(module.name, req.method, req.fullPath);
			if (drift?.status !== undefined) throw new HttpError(drift.status, { message: `No resource at ${req.fullPath} (sandbox drift #${drift.id})` });
			if (drift) context.drifts.apply(drift, res);
			await module.handle(req, res);
		} catch (error) {
			if (error instanceof HttpError) {
				send(res, error.status, error.body, error.headers);
			} else {
				send(res, 500, { message: `sandbox error: ${(error as Error).message}` });
			}
		}
	});
	// An idle connection is the client's to drop: with Node's 5 s default the server could close one
	// while a client (undici keeps them 4 s) was sending on it, after the process was busy for a while
	// ("fetch failed"). Every socket is still destroyed on close().
	server.keepAliveTimeout = 65_000;
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	url = `http://${options.host ?? '127.0.0.1'}:${port}`;

	return {
		url,
		port,
		context,
		modules: byName,
		info,
		reset,
		close: async () => {
			for (const m of modules) m.close();
			context.faults.clear();
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				for (const socket of sockets) socket.destroy();
			});
		},
	};
}
