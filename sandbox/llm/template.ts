/**
 * The scripted model's small template language: `{{ SOURCE | FILTER | FILTER … }}` inside the
 * text and tool-call arguments of a script step, resolved against the request the model is
 * answering (the messages n8n sent). No code runs: sources and filters are a fixed list.
 *
 * Sources
 *   last_tool_result    the content of the newest `tool` message
 *   tool:NAME           the content of the newest `tool` message answering a call of a tool whose
 *                       name matches NAME (exact, `/regex/flags`, or loosely: case and punctuation ignored)
 *   args:NAME           the arguments (object) of the newest call of that tool
 *   user | system       the newest user message, the system message
 *   tools               the names of the tools offered
 *   'text'              a literal
 * Filters (separated by `|`; a bar inside (…) or […] belongs to the argument, and `\|` is a literal bar)
 *   json                parse a JSON string (get/find/where/count do it themselves)
 *   get:a.b.0           a path; numbers index arrays, negative numbers count from the end
 *   find:KEY            every value of KEY anywhere in the value (depth first) → array
 *   where:KEY=VALUE     every object anywhere in the value whose KEY equals VALUE (KEY~VALUE: contains,
 *                       ignoring case; a phone number also matches on its digits) → array
 *   first | last | count | exists (true unless missing, empty or an empty array)
 *   phone               the first phone number in a text, as + and digits (`"Caller" <+447700900001>` → +447700900001)
 *   match:REGEX         the first group (or the whole match) of REGEX in the text
 *   default:TEXT        TEXT when the value is missing or empty
 *   tojson              JSON text of the value (strings get quotes)
 *   lines               an array joined by new lines
 *
 * Placeholders may nest (the inner one is filled first, as text): `{{ tool:Phone_book |
 * where:phoneNumber~{{ args:Recent_calls | get:From }} | first | get:name }}`.
 * In text, a string is inserted as it is and anything else as JSON. A tool-call argument that is
 * exactly one `{{ … }}` keeps the value's type (a number stays a number).
 */

export interface TemplateContext {
	/** Content of each tool message, newest last, with the tool it answered. */
	toolResults: Array<{ tool: string; content: string }>;
	/** Arguments of each tool call the model made, newest last. */
	toolCalls: Array<{ tool: string; args: unknown }>;
	user: string;
	system: string;
	tools: string[];
}

export class TemplateError extends Error {}

/** Which of `names` a tool reference means: exact, `/regex/flags`, or loose (case and punctuation ignored, then contained). */
export function matchToolName(reference: string, names: string[]): string | undefined {
	if (names.includes(reference)) return reference;
	const regex = /^\/(.+)\/([a-z]*)$/.exec(reference);
	if (regex) {
		const pattern = new RegExp(regex[1], regex[2]);
		return names.find((name) => pattern.test(name));
	}
	const loose = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
	const wanted = loose(reference);
	if (!wanted) return undefined;
	return names.find((name) => loose(name) === wanted) ?? names.find((name) => loose(name).includes(wanted));
}

function parseMaybeJson(value: unknown): unknown {
	if (typeof value !== 'string') return value;
	const text = value.trim();
	if (!/^[[{"]|^-?\d|^(true|false|null)$/.test(text)) return value;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return value;
	}
}

function walk(value: unknown, visit: (node: unknown) => void): void {
	visit(value);
	if (Array.isArray(value)) for (const entry of value) walk(entry, visit);
	else if (value !== null && typeof value === 'object') for (const entry of Object.values(value)) walk(entry, visit);
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const digits = (text: string) => text.replace(/\D/g, '');

function equalsLoosely(actual: unknown, expected: string, contains: boolean): boolean {
	if (actual === undefined || actual === null) return false;
	const text = typeof actual === 'string' ? actual : JSON.stringify(actual);
	if (!contains) return text === expected;
	// Containing nothing is no match (an empty reference, e.g. an unknown caller, finds nobody).
	if (expected === '') return false;
	if (text.toLowerCase().includes(expected.toLowerCase())) return true;
	// Phone numbers: "+44 7700 900001" contains "07700900001" on their last ten digits.
	const want = digits(expected);
	return want.length >= 7 && digits(text).endsWith(want.slice(-10));
}

/** Splits on `|`, except `\|` and bars inside (…) or […] (regex alternatives such as `match:(?:a|b)`). */
function splitFilters(expression: string): string[] {
	const parts: string[] = [];
	let current = '';
	let depth = 0;
	for (let i = 0; i < expression.length; i++) {
		const char = expression[i];
		if (char === '\\' && expression[i + 1] === '|') {
			current += depth > 0 ? '\\|' : '|';
			i++;
		} else if (char === '\\' && i + 1 < expression.length) {
			current += char + expression[i + 1];
			i++;
		} else if (char === '|' && depth === 0) {
			parts.push(current.trim());
			current = '';
		} else {
			if (char === '(' || char === '[') depth++;
			else if ((char === ')' || char === ']') && depth > 0) depth--;
			current += char;
		}
	}
	parts.push(current.trim());
	return parts;
}

function source(name: string, context: TemplateContext): unknown {
	const literal = /^'(.*)'$/s.exec(name) ?? /^"(.*)"$/s.exec(name);
	if (literal) return literal[1];
	if (name === 'last_tool_result') {
		const last = context.toolResults[context.toolResults.length - 1];
		if (!last) throw new TemplateError('last_tool_result: no tool message in the request yet');
		return last.content;
	}
	if (name === 'user') return context.user;
	if (name === 'system') return context.system;
	if (name === 'tools') return context.tools;
	const toolRef = /^(tool|args):(.+)$/s.exec(name);
	if (toolRef) {
		const [, kind, reference] = toolRef;
		if (kind === 'tool') {
			const names = [...new Set(context.toolResults.map((r) => r.tool))];
			const tool = matchToolName(reference.trim(), names);
			const found = [...context.toolResults].reverse().find((r) => r.tool === tool);
			if (!found) throw new TemplateError(`tool:${reference}: no result of a matching tool yet (results of: ${names.join(', ') || 'none'})`);
			return found.content;
		}
		const names = [...new Set(context.toolCalls.map((c) => c.tool))];
		const tool = matchToolName(reference.trim(), names);
		const found = [...context.toolCalls].reverse().find((c) => c.tool === tool);
		if (!found) throw new TemplateError(`args:${reference}: no call of a matching tool yet (calls of: ${names.join(', ') || 'none'})`);
		return found.args;
	}
	throw new TemplateError(`unknown source "${name}" (last_tool_result, tool:NAME, args:NAME, user, system, tools, 'text')`);
}

function applyFilter(value: unknown, filter: string): unknown {
	const colon = filter.indexOf(':');
	const name = colon < 0 ? filter : filter.slice(0, colon).trim();
	const argument = colon < 0 ? '' : filter.slice(colon + 1);
	switch (name) {
		case 'json':
			return parseMaybeJson(value);
		case 'get': {
			let current = parseMaybeJson(value);
			for (const key of argument.split('.').map((k) => k.trim()).filter(Boolean)) {
				current = parseMaybeJson(current);
				if (Array.isArray(current) && /^-?\d+$/.test(key)) {
					const index = Number(key);
					current = current[index < 0 ? current.length + index : index];
				} else if (isRecord(current)) {
					current = current[key];
				} else {
					return undefined;
				}
			}
			return current;
		}
		case 'find': {
			const key = argument.trim();
			const found: unknown[] = [];
			walk(parseMaybeJson(value), (node) => {
				if (isRecord(node) && key in node) found.push(node[key]);
			});
			return found;
		}
		case 'where': {
			const where = /^([^=~]+)([=~])(.*)$/s.exec(argument);
			if (!where) throw new TemplateError(`where:${argument}: write where:KEY=VALUE or where:KEY~VALUE`);
			const [, key, operator, expected] = where;
			const found: unknown[] = [];
			walk(parseMaybeJson(value), (node) => {
				if (isRecord(node) && equalsLoosely(node[key.trim()], expected.trim(), operator === '~')) found.push(node);
			});
			return found;
		}
		case 'first':
			return Array.isArray(value) ? value[0] : value;
		case 'last':
			return Array.isArray(value) ? value[value.length - 1] : value;
		case 'count': {
			const parsed = parseMaybeJson(value);
			if (Array.isArray(parsed)) return parsed.length;
			return parsed === undefined || parsed === null || parsed === '' ? 0 : 1;
		}
		case 'phone': {
			if (value === undefined || value === null) return undefined;
			const text = typeof value === 'string' ? value : JSON.stringify(value);
			const found = /\+?\d[\d\s().-]{5,}\d/.exec(text);
			if (!found) return undefined;
			return `${found[0].trim().startsWith('+') ? '+' : ''}${digits(found[0])}`;
		}
		case 'match': {
			if (value === undefined || value === null) return undefined;
			const text = typeof value === 'string' ? value : JSON.stringify(value);
			let pattern: RegExp;
			try {
				pattern = new RegExp(argument);
			} catch (error) {
				throw new TemplateError(`match:${argument}: ${(error as Error).message}`);
			}
			const found = pattern.exec(text);
			return found ? (found[1] ?? found[0]) : undefined;
		}
		case 'exists': {
			const parsed = parseMaybeJson(value);
			return !(parsed === undefined || parsed === null || parsed === '' || (Array.isArray(parsed) && parsed.length === 0));
		}
		case 'default':
			return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0) ? argument : value;
		case 'tojson':
			return JSON.stringify(value ?? null);
		case 'lines':
			return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n') : value;
		default:
			throw new TemplateError(`unknown filter "${name}"`);
	}
}

/** The value of one `{{ … }}` expression. */
export function evaluate(expression: string, context: TemplateContext): unknown {
	const [first, ...filters] = splitFilters(expression);
	let value = source(first, context);
	for (const filter of filters) value = applyFilter(value, filter);
	return value;
}

/** A placeholder with no other placeholder inside it (placeholders may nest; the innermost are filled first). */
const INNERMOST = /\{\{((?:(?!\{\{)[\s\S])*?)\}\}/;
const MAX_PLACEHOLDERS = 1_000;

function asText(value: unknown): string {
	if (value === undefined || value === null) return '';
	return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A text with its placeholders filled, innermost first, left to right. Filled text is not read
 * again: a tool result that happens to contain `{{` stays as it is.
 */
export function renderText(template: string, context: TemplateContext): string {
	let out = '';
	let rest = template;
	for (let n = 0; n < MAX_PLACEHOLDERS; n++) {
		const found = INNERMOST.exec(rest);
		if (!found) return out + rest;
		const filled = asText(evaluate(found[1], context));
		const before = rest.slice(0, found.index);
		const after = rest.slice(found.index + found[0].length);
		// An enclosing placeholder still open before this one: fill this one into it and read on.
		const open = before.lastIndexOf('{{');
		if (open >= 0 && before.indexOf('}}', open) < 0) {
			rest = before + filled.replace(/\{\{|\}\}/g, ' ') + after;
		} else {
			out += before + filled;
			rest = after;
		}
	}
	throw new TemplateError(`more than ${MAX_PLACEHOLDERS} placeholders`);
}

/** The expression of a text that is exactly one (possibly nesting) placeholder, or undefined. */
function wholePlaceholder(text: string): string | undefined {
	const trimmed = text.trim();
	if (!trimmed.startsWith('{{') || !trimmed.endsWith('}}')) return undefined;
	let depth = 0;
	for (let i = 0; i < trimmed.length; i++) {
		if (trimmed.startsWith('{{', i)) {
			depth++;
			i++;
		} else if (trimmed.startsWith('}}', i)) {
			depth--;
			i++;
			if (depth === 0 && i < trimmed.length - 1) return undefined;
		}
	}
	return depth === 0 ? trimmed.slice(2, -2) : undefined;
}

/** Tool-call arguments with placeholders filled, recursively; a string that is one placeholder keeps the value's type. */
export function renderValue(value: unknown, context: TemplateContext): unknown {
	if (typeof value === 'string') {
		const whole = wholePlaceholder(value);
		if (whole !== undefined) return evaluate(renderText(whole, context), context);
		return renderText(value, context);
	}
	if (Array.isArray(value)) return value.map((entry) => renderValue(entry, context));
	if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, renderValue(entry, context)]));
	return value;
}
