/**
 * A small `multipart/form-data` reader (RFC 7578) for the bodies the sandbox receives whole:
 * the parts with their names, file names, types and bytes. It refuses a body or a part larger
 * than its bounds, and more parts than it allows, before copying anything.
 */

export interface MultipartPart {
	name: string;
	/** Present on file parts (`filename` or `filename*`). */
	filename?: string;
	contentType?: string;
	/** The part's headers, names in lower case. */
	headers: Record<string, string>;
	/** A view into the body, not a copy. */
	data: Buffer;
}

export interface MultipartLimits {
	/** The whole body (default 26 MiB). */
	maxBytes?: number;
	/** One part's content (default: `maxBytes`). */
	maxPartBytes?: number;
	/** How many parts (default 100). */
	maxParts?: number;
}

export class MultipartError extends Error {
	/** `tooLarge`: a bound was passed (answer 413); `malformed`: the body is not multipart as declared (400). */
	constructor(
		message: string,
		readonly reason: 'malformed' | 'tooLarge',
		readonly bytes?: number,
	) {
		super(message);
	}
}

/** `name=value` and `name="quoted \"value\""` parameters of a header value, names in lower case. */
export function headerParams(value: string): Record<string, string> {
	const out: Record<string, string> = {};
	const pattern = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
	for (let found = pattern.exec(value); found; found = pattern.exec(value)) {
		out[found[1].toLowerCase()] = found[2] !== undefined ? found[2].replace(/\\(.)/g, '$1') : found[3].trim();
	}
	return out;
}

/** Whether a Content-Type is multipart/form-data, and its boundary if it names one. */
export function multipartType(contentType: string): { multipart: boolean; boundary?: string } {
	if (!/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return { multipart: false };
	const boundary = headerParams(contentType).boundary;
	return { multipart: true, boundary: boundary || undefined };
}

/** The boundary a body opens with (`--boundary` CRLF), for a client that left it out of the header. */
export function sniffBoundary(body: Buffer): string | undefined {
	const line = body.subarray(0, Math.min(body.length, 200)).toString('latin1').split('\r\n')[0];
	return /^--([^\s]{1,70})$/.exec(line)?.[1];
}

/** RFC 5987 `UTF-8''name%20with%20spaces`, or the text itself when it is not encoded so. */
function extendedValue(value: string): string {
	const found = /^([\w-]+)'[^']*'(.*)$/.exec(value);
	if (!found) return value;
	try {
		return decodeURIComponent(found[2]);
	} catch {
		return found[2];
	}
}

function partHeaders(text: string): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const line of text.split('\r\n')) {
		const colon = line.indexOf(':');
		if (colon <= 0) throw new MultipartError(`a part header is not "Name: value": ${JSON.stringify(line.slice(0, 80))}`, 'malformed');
		headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
	}
	return headers;
}

/** The parts of a multipart body; throws `MultipartError` when it is malformed or too large. */
export function parseMultipart(body: Buffer, boundary: string, limits: MultipartLimits = {}): MultipartPart[] {
	const maxBytes = limits.maxBytes ?? 26 * 1024 * 1024;
	const maxPartBytes = limits.maxPartBytes ?? maxBytes;
	const maxParts = limits.maxParts ?? 100;
	if (body.length > maxBytes) throw new MultipartError(`the body is ${body.length} bytes; at most ${maxBytes}`, 'tooLarge', body.length);
	const delimiter = Buffer.from(`--${boundary}`, 'latin1');
	const parts: MultipartPart[] = [];
	// The first delimiter may follow a preamble; every later one follows a CRLF.
	let at = body.indexOf(delimiter);
	if (at < 0 || (at > 0 && body.toString('latin1', at - 2, at) !== '\r\n')) {
		throw new MultipartError('the body does not open with the boundary its Content-Type names', 'malformed');
	}
	for (;;) {
		at += delimiter.length;
		if (body.toString('latin1', at, at + 2) === '--') return parts;
		if (parts.length === maxParts) throw new MultipartError(`more than ${maxParts} parts`, 'tooLarge');
		// Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
		while (body[at] === 0x20 || body[at] === 0x09) at += 1;
		if (body.toString('latin1', at, at + 2) !== '\r\n') throw new MultipartError('a boundary is not followed by CRLF or "--"', 'malformed');
		at += 2;
		const headerEnd = body.indexOf('\r\n\r\n', at, 'latin1');
		if (headerEnd < 0) throw new MultipartError('a part has no blank line after its headers', 'malformed');
		const headers = headerEnd === at ? {} : partHeaders(body.toString('utf8', at, headerEnd));
		const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
		if (next < 0) throw new MultipartError('the body ends before its closing boundary', 'malformed');
		const data = body.subarray(headerEnd + 4, next);
		const disposition = headers['content-disposition'] ?? '';
		if (!/^\s*form-data\s*(;|$)/i.test(disposition)) throw new MultipartError('a part has no "Content-Disposition: form-data"', 'malformed');
		const params = headerParams(disposition);
		if (params.name === undefined) throw new MultipartError('a part has no name', 'malformed');
		if (data.length > maxPartBytes) {
			throw new MultipartError(`the part "${params.name}" is ${data.length} bytes; at most ${maxPartBytes}`, 'tooLarge', data.length);
		}
		const filename = params['filename*'] !== undefined ? extendedValue(params['filename*']) : params.filename;
		parts.push({
			name: params.name,
			...(filename !== undefined ? { filename } : {}),
			...(headers['content-type'] ? { contentType: headers['content-type'] } : {}),
			headers,
			data,
		});
		at = next + 2;
	}
}
