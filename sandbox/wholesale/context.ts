import type { ServerResponse } from 'node:http';

import type { Router, SandboxRequest } from '../core/http';
import { HttpError, send } from '../core/http';
import { phpJson } from './php';
import type { Account } from './seed';

/** What the route files of the Wholesale Voice sandbox share: the request as the module prepared it, and replies. */

export interface WsRequest extends SandboxRequest {
	/** The account whose credentials authenticated the request (the path's account on account routes). */
	account: Account;
	/** Parameters: the query string, then the body over it (JSON or form-encoded, PHP style). `_method` and `pretty` removed. */
	input: Record<string, unknown>;
	/** The body's own parameters (a JSON object, or the parsed form), without the query string. */
	bodyParams: Record<string, unknown>;
	/** The body parsed as JSON when it was JSON, else undefined (filters are read only from here). */
	bodyJson: unknown;
	bodyKind: 'none' | 'json' | 'form';
	pretty: boolean;
}

export type WsHandler = (req: WsRequest, res: ServerResponse) => unknown;

/** Registers one handler for several methods. */
export function on(router: Router, methods: string | string[], template: string, handler: WsHandler): void {
	for (const method of Array.isArray(methods) ? methods : [methods]) {
		router.add(method, template, (req, res) => handler(req as WsRequest, res));
	}
}

export const JSON_TYPE = 'application/json';

/** Writes a body the way the service does (`json_encode`, pretty on request). */
export function reply(req: WsRequest, res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
	send(res, status, Buffer.from(phpJson(body, req.pretty)), { 'Content-Type': JSON_TYPE, ...headers });
}

/** `send` for bodies that are already encoded (CSV, PDF). */
export function sendRaw(res: ServerResponse, body: Buffer | string, contentType: string, headers: Record<string, string> = {}): void {
	send(res, 200, Buffer.isBuffer(body) ? body : Buffer.from(body), { 'Content-Type': contentType, ...headers });
}

/** `{success: true, data}`. */
export function ok(data?: unknown): Record<string, unknown> {
	return data === undefined ? { success: true } : { success: true, data };
}

/** The service's error form: `{success: false, errors: [text...]}` with an HTTP status. */
export function failure(status: number, errors: string | string[], headers: Record<string, string> = {}): HttpError {
	return new HttpError(status, { success: false, errors: Array.isArray(errors) ? errors : [errors] }, headers);
}

/** A parameter as text (strings trimmed, numbers as text); undefined when absent, null or not a scalar. */
export function text(req: WsRequest, name: string): string | undefined {
	const value = req.input[name];
	if (typeof value === 'string') return value.trim();
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return undefined;
}

export function present(req: WsRequest, name: string): boolean {
	return Object.hasOwn(req.input, name);
}

/** A decimal amount parameter, or undefined when it is absent; NaN when it is not a number. */
export function amountParam(req: WsRequest, name: string): number | undefined {
	const value = req.input[name];
	if (value === undefined) return undefined;
	if (typeof value === 'number') return value;
	if (typeof value === 'string' && /^\s*-?(\d+(\.\d*)?|\.\d+)\s*$/.test(value)) return Number(value);
	return Number.NaN;
}

/** A whole-number parameter with a default; NaN when present but not a whole number. */
export function integerParam(req: WsRequest, name: string, fallback: number): number {
	const value = req.input[name];
	if (value === undefined || value === '' || value === null) return fallback;
	if (typeof value === 'number') return Number.isInteger(value) ? value : Number.NaN;
	if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) return Number(value);
	return Number.NaN;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
