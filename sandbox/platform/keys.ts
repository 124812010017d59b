import { createHash, randomBytes } from 'node:crypto';

import type { Router, SandboxRequest } from '../core/http';
import { HttpError, jsonBody, send } from '../core/http';
import type { SandboxContext } from '../core/server';
import { currentTime } from '../core/clock';

/**
 * The platform's Bearer keys, shared by the Voice Agent (`convai`) and Conversation
 * Intelligence (`intelligence`) sandboxes: one store per running sandbox. A key is
 * `tpk_` followed by 48 lowercase hexadecimal characters; the store looks keys up by their
 * SHA-256 hash, as the platform does, and keeps the plain text only of the demo keys so the
 * startup line and the README can show them.
 */

export const KEY_PREFIX = 'tpk_';
export const KEY_PATTERN = /^tpk_[0-9a-f]{48}$/;

export type PlatformService = 'convai' | 'intelligence';
export type ScopeAction = 'read' | 'write' | 'delete' | 'admin';

export const ALL_SCOPES: string[] = ['convai', 'intelligence'].flatMap((service) =>
	['read', 'write', 'delete', 'admin'].map((action) => `${service}:${action}`),
);

export interface StoredKey {
	label: string;
	/** Plain text, kept for demo keys and keys created through the admin API only. */
	key: string;
	hash: string;
	scopes: string[];
	revoked: boolean;
	createdAt: string;
	revokedAt: string | null;
}

export interface PublicKeyInfo {
	label: string;
	key: string;
	scopes: string[];
	revoked: boolean;
}

/** A fixed key per label, so the demo keys are the same on every start. */
function demoKey(label: string): string {
	return `${KEY_PREFIX}${createHash('sha256').update(`telephony-sandbox-demo-key:${label}`).digest('hex').slice(0, 48)}`;
}

function hashKey(key: string): string {
	return createHash('sha256').update(key).digest('hex');
}

const DEMO_KEYS: Array<{ label: string; scopes: string[]; revoked?: boolean }> = [
	{ label: 'full-access', scopes: [...ALL_SCOPES] },
	{ label: 'read-only', scopes: ['convai:read', 'intelligence:read'] },
	{ label: 'convai-only', scopes: ['convai:read', 'convai:write', 'convai:delete', 'convai:admin'] },
	{ label: 'revoked', scopes: [...ALL_SCOPES], revoked: true },
];

/** The scope a request needs: `read` for GET (and HEAD), `delete` for DELETE, `write` otherwise. */
export function scopeFor(service: PlatformService, method: string): string {
	const upper = method.toUpperCase();
	const action: ScopeAction = upper === 'GET' || upper === 'HEAD' ? 'read' : upper === 'DELETE' ? 'delete' : 'write';
	return `${service}:${action}`;
}

export class KeyStore {
	private keys: StoredKey[] = [];
	private byHash = new Map<string, StoredKey>();

	constructor() {
		this.reset();
	}

	reset(): void {
		this.keys = [];
		this.byHash.clear();
		const createdAt = '2026-01-05T09:00:00Z';
		for (const demo of DEMO_KEYS) {
			this.store({
				label: demo.label,
				key: demoKey(demo.label),
				scopes: [...demo.scopes],
				revoked: Boolean(demo.revoked),
				createdAt,
				revokedAt: demo.revoked ? '2026-01-06T09:00:00Z' : null,
			});
		}
	}

	private store(entry: Omit<StoredKey, 'hash'>): StoredKey {
		const stored: StoredKey = { ...entry, hash: hashKey(entry.key) };
		this.keys.push(stored);
		this.byHash.set(stored.hash, stored);
		return stored;
	}

	/** The plain text of a demo key by label (`full-access`, `read-only`, `convai-only`, `revoked`). */
	demo(label: string): string {
		const found = this.keys.find((k) => k.label === label);
		if (!found) throw new Error(`No demo key labelled ${label}`);
		return found.key;
	}

	list(): PublicKeyInfo[] {
		return this.keys.map((k) => ({ label: k.label, key: k.key, scopes: [...k.scopes], revoked: k.revoked }));
	}

	create(label: string, scopes: string[]): StoredKey {
		return this.store({
			label,
			key: `${KEY_PREFIX}${randomBytes(24).toString('hex')}`,
			scopes: [...scopes],
			revoked: false,
			createdAt: new Date(currentTime()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
			revokedAt: null,
		});
	}

	/** Revokes by key or label; revocation takes effect on the next request. */
	revoke(keyOrLabel: string): StoredKey | undefined {
		const found = this.byHash.get(hashKey(keyOrLabel)) ?? this.keys.find((k) => k.label === keyOrLabel);
		if (found && !found.revoked) {
			found.revoked = true;
			found.revokedAt = new Date(currentTime()).toISOString().replace(/\.\d{3}Z$/, 'Z');
		}
		return found;
	}

	/**
	 * The key of a request, checked for the scope its method needs on that service.
	 * 401 for a missing, malformed, unknown or revoked key; 403 naming the missing scope.
	 */
	authorize(req: SandboxRequest, service: PlatformService, scope = scopeFor(service, req.method)): StoredKey {
		const header = String(req.headers.authorization ?? '');
		const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
		if (!match) {
			throw unauthorized(
				header === ''
					? 'Authentication required: send Authorization: Bearer <API key>'
					: 'The Authorization header must be Bearer <API key>',
			);
		}
		const key = match[1];
		const stored = KEY_PATTERN.test(key) ? this.byHash.get(hashKey(key)) : undefined;
		if (!stored || stored.revoked) throw unauthorized('The API key is unknown or has been revoked');
		req.principal = `${stored.label} (${KEY_PREFIX}…${key.slice(-4)})`;
		if (!stored.scopes.includes(scope)) {
			throw new HttpError(
				403,
				{
					status: 403,
					error: 'insufficient_scope',
					message: `The API key lacks the scope ${scope} required for ${req.method} ${req.fullPath}`,
					required_scope: scope,
				},
				{ 'WWW-Authenticate': `Bearer realm="platform", error="insufficient_scope", scope="${scope}"` },
			);
		}
		return stored;
	}
}

function unauthorized(message: string): HttpError {
	return new HttpError(
		401,
		{ status: 401, error: 'unauthorized', message },
		{ 'WWW-Authenticate': 'Bearer realm="platform"' },
	);
}

const STORES = new WeakMap<SandboxContext, KeyStore>();

/** The one key store of a running sandbox, shared by every module given the same context. */
export function platformKeys(context: SandboxContext): KeyStore {
	let store = STORES.get(context);
	if (!store) {
		store = new KeyStore();
		STORES.set(context, store);
	}
	return store;
}

/**
 * Key administration, mounted in both modules' admin routers (`/_sandbox/convai/keys` and
 * `/_sandbox/intelligence/keys` reach the same store).
 */
export function addKeyAdminRoutes(router: Router, keys: KeyStore): Router {
	router.add('GET', '/keys', (_req, res) => send(res, 200, keys.list()));
	router.add('POST', '/keys', (req, res) => {
		const body = jsonBody<{ label?: unknown; scopes?: unknown }>(req) ?? {};
		const label = typeof body.label === 'string' && body.label.trim() !== '' ? body.label : `key-${currentTime()}`;
		if (!Array.isArray(body.scopes) || body.scopes.some((s) => typeof s !== 'string' || !ALL_SCOPES.includes(s))) {
			throw new HttpError(400, { message: `scopes must be an array of: ${ALL_SCOPES.join(', ')}`, field: 'scopes' });
		}
		const created = keys.create(label, body.scopes as string[]);
		send(res, 201, { label: created.label, key: created.key, scopes: created.scopes, revoked: false });
	});
	router.add('POST', '/keys/revoke', (req, res) => {
		const body = jsonBody<{ key?: unknown; label?: unknown }>(req) ?? {};
		const which = typeof body.key === 'string' ? body.key : typeof body.label === 'string' ? body.label : '';
		const revoked = keys.revoke(which);
		if (!revoked) throw new HttpError(404, { message: 'No such key (give key or label)' });
		send(res, 200, { label: revoked.label, revoked: true, revokedAt: revoked.revokedAt });
	});
	return router;
}
