import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import type { ValidationIssue } from '../operation';
import { pathSegmentIssue } from '../validation';

export function baseUrlOf(credentials: ICredentialDataDecryptedObject): string {
	return String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
}

export function joinUrl(base: string, path: string): string {
	return `${base}/${path.replace(/^\/+/, '')}`;
}

/** A link the API gave, its path and query only, on the credential's own origin: credentials never go elsewhere. */
export function rebase(link: string, base: string): string {
	const target = new URL(link, `${base}/`);
	if (target.protocol !== 'http:' && target.protocol !== 'https:')
		throw new Error(`The API gave a link that is not a web address (${target.protocol})`);
	return `${new URL(base).origin}${target.pathname}${target.search}`;
}

/** `host:port` of a URL, with the scheme's port when the URL names none. */
export function hostAndPort(url: string): string {
	const { protocol, hostname, port } = new URL(url);
	return `${hostname}:${port || (protocol === 'https:' ? '443' : '80')}`;
}

/**
 * Why a Base URL is refused, never repeating it: a user name or password in it would be masked nowhere,
 * a query or fragment would come before every request's path.
 */
export function baseUrlProblem(label: string, baseUrl: unknown): string | undefined {
	const text = String(baseUrl ?? '').trim();
	const authority = /^[^:/?#]*:[/\\]*([^/?#\\]*)/.exec(text)?.[1] ?? '';
	if (authority.includes('@')) {
		return `The Base URL of the ${label} credential contains a user name or password (text before an @ in the host): remove it and put the sign-in in the credential's own fields`;
	}
	const extra = /[?#]/.exec(text)?.[0];
	if (!extra) return undefined;
	return `The Base URL of the ${label} credential contains ${extra === '?' ? 'a query (text from a ?)' : 'a fragment (text from a #)'}: every request's path would come after it. Remove it; the Base URL ends with the path the API lives under`;
}

/** Why a Base URL has no usable scheme or host; only its host is quoted (user info is refused before). */
export function schemeProblem(label: string, base: string): string | undefined {
	const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(base)?.[1];
	const host = (scheme ? base.slice(scheme.length + 3) : base)
		.split(/[/\\]/)[0]
		.split('@')
		.pop()
		?.slice(0, 100);
	if (!host)
		return `The ${label} credential has no Base URL with a host: enter the address the API lives under, starting with https://`;
	if (!scheme)
		return `The Base URL of the ${label} credential has no scheme: write https://${host} (or http:// for a server without TLS), then the path the API lives under`;
	if (!/^https?$/i.test(scheme))
		return `The Base URL of the ${label} credential starts with ${scheme}://: the nodes speak https:// (or http:// to a server without TLS), as in https://${host}`;
	if (/\s/.test(host) || !URL.canParse(base))
		return `The Base URL of the ${label} credential is not a valid web address (host ${host}): check it for spaces and stray characters`;
	return undefined;
}

/** `entryId` → `Entry ID`, for path parameters the caller gave no label for. */
function humanise(name: string): string {
	return name
		.replace(/Id$/, 'ID')
		.replace(/([a-z])([A-Z])/g, '$1 $2')
		.replace(/^\w/, (c) => c.toUpperCase());
}

/** Fills `{ACCOUNT}` variables (the credential's) and `{name}` parameters, each checked as one segment and encoded. */
export function fillPath(
	path: string,
	pathParams: Record<string, unknown> = {},
	variables: Record<string, string> = {},
	labels: Record<string, string> = {},
): { path: string } | { issues: ValidationIssue[] } {
	const found: ValidationIssue[] = [];
	const filled = path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => {
		const fromCredential = /^[A-Z_]+$/.test(name);
		if (!fromCredential && !(name in pathParams))
			throw new Error(`The path ${path} names {${name}} but the request gives no value for it`);
		const value = fromCredential ? variables[name] : pathParams[name];
		const issue = pathSegmentIssue(fromCredential ? name : (labels[name] ?? humanise(name)), value);
		if (issue) {
			found.push(issue);
			return '_';
		}
		return encodeURIComponent(String(value).trim());
	});
	return found.length ? { issues: found } : { path: filled };
}

/** PHP-style form fields: arrays as `name[]`, objects as `name[key]`. */
export function flattenForm(body: IDataObject, prefix = ''): Array<[string, string]> {
	const out: Array<[string, string]> = [];
	for (const [key, value] of Object.entries(body)) {
		const name = prefix ? `${prefix}[${key}]` : key;
		if (value === undefined) continue;
		if (Array.isArray(value)) for (const entry of value) out.push([`${name}[]`, String(entry)]);
		else if (value !== null && typeof value === 'object')
			out.push(...flattenForm(value as IDataObject, name));
		else out.push([name, value === null ? '' : String(value)]);
	}
	return out;
}
