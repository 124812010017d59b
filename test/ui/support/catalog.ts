/**
 * What the package offers, read the way n8n reads it: package.json's `n8n` section names the
 * built files, each file's class is instantiated, and its description (and the codex file next to
 * it) says what the editor will show. The UI tests iterate over this, so a node or credential
 * added to package.json is covered without touching the tests.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { PACKAGE_DIR } from '../../e2e/harness';

/** A parameter of a node or credential description (the parts the tests read). */
export interface Property {
	displayName: string;
	name: string;
	type: string;
	default?: unknown;
	required?: boolean;
	placeholder?: string;
	options?: Array<{ name: string; value: unknown; action?: string; displayName?: string; values?: Property[] }>;
	displayOptions?: { show?: Record<string, unknown[]>; hide?: Record<string, unknown[]> };
	typeOptions?: Record<string, any>;
	modes?: Array<{ name: string; displayName: string; type: string; placeholder?: string; typeOptions?: Record<string, any> }>;
}

export interface NodeInfo {
	/** e.g. hostedPbx */
	name: string;
	/** e.g. n8n-nodes-telephony-platform.hostedPbx */
	type: string;
	displayName: string;
	/** The version a node added now gets (a versioned node's default version). */
	version: number;
	description: string;
	isTrigger: boolean;
	/** The node's own webhooks (paths), for triggers that receive deliveries. */
	webhookPaths: string[];
	webhooks: Array<{ path: string; isFullPath?: boolean; httpMethod?: string }>;
	credentials: string[];
	icon: unknown;
	properties: Property[];
	/** Codex aliases from the .node.json next to the built file. */
	aliases: string[];
	/** Codex categories. */
	categories: string[];
	/** `methods` of the node: listSearch and loadOptions names. */
	listSearch: string[];
	loadOptions: string[];
	file: string;
	/** The resources and their operations, in description order (empty for nodes without them). */
	resources: Array<{ value: string; label: string; operations: Array<{ value: string; label: string; action?: string }> }>;
}

export interface CredentialInfo {
	name: string;
	displayName: string;
	properties: Property[];
	file: string;
}

interface PackageJson {
	name: string;
	n8n: { credentials?: string[]; nodes?: string[] };
}

export const PACKAGE = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as PackageJson;

/** Instantiates the class a built file exports under its own name (n8n's rule: `X.node.js` exports `X`). */
function instantiate(file: string): any {
	const full = path.join(PACKAGE_DIR, file);
	if (!fs.existsSync(full)) throw new Error(`${file} is listed in package.json but not built: run \`npm run build\``);
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const mod = require(full) as Record<string, unknown>;
	const base = path.basename(file).replace(/\.(node|credentials)\.js$/, '');
	const Cls = (mod[base] ?? Object.values(mod).find((v) => typeof v === 'function')) as (new () => unknown) | undefined;
	if (typeof Cls !== 'function') throw new Error(`${file} exports no class named ${base}`);
	return new Cls();
}

function showValues(p: Property, key: string): unknown[] | undefined {
	return p.displayOptions?.show?.[key];
}

export function nodeInfo(file: string): NodeInfo {
	const loaded = instantiate(file);
	// A versioned node (n8n's VersionedNodeType): new nodes get its default version.
	const node = typeof loaded.getNodeType === 'function' ? loaded.getNodeType() : loaded;
	const d = node.description;
	const props = d.properties as Property[];
	const codexFile = path.join(PACKAGE_DIR, file.replace(/\.js$/, '.json'));
	const codex = fs.existsSync(codexFile) ? (JSON.parse(fs.readFileSync(codexFile, 'utf8')) as { alias?: string[]; categories?: string[] }) : {};
	const resourceProp = props.find((p) => p.name === 'resource' && p.type === 'options');
	const resources = (resourceProp?.options ?? []).map((r) => {
		const opProp = props.find((p) => p.name === 'operation' && p.type === 'options' && (showValues(p, 'resource') ?? []).includes(r.value));
		return {
			value: String(r.value),
			label: r.name,
			operations: (opProp?.options ?? []).map((o) => ({ value: String(o.value), label: o.name, action: o.action })),
		};
	});
	return {
		name: d.name,
		type: `${PACKAGE.name}.${d.name}`,
		displayName: d.displayName,
		version: Math.max(...[d.version as number | number[]].flat()),
		description: d.description,
		isTrigger: (d.group as string[]).includes('trigger'),
		webhookPaths: ((d.webhooks ?? []) as Array<{ path: string }>).map((w) => w.path),
		webhooks: (d.webhooks ?? []) as Array<{ path: string; isFullPath?: boolean; httpMethod?: string }>,
		credentials: ((d.credentials ?? []) as Array<{ name: string }>).map((c) => c.name),
		icon: d.icon,
		properties: props,
		aliases: codex.alias ?? [],
		categories: codex.categories ?? [],
		listSearch: Object.keys(node.methods?.listSearch ?? {}),
		loadOptions: Object.keys(node.methods?.loadOptions ?? {}),
		file,
		resources,
	};
}

/** Every node package.json lists, from the built dist/. */
export function packageNodes(): NodeInfo[] {
	return (PACKAGE.n8n.nodes ?? []).map(nodeInfo);
}

/** Every credential type package.json lists, from the built dist/. */
export function packageCredentials(): CredentialInfo[] {
	return (PACKAGE.n8n.credentials ?? []).map((file) => {
		const c = instantiate(file);
		return { name: c.name, displayName: c.displayName, properties: c.properties as Property[], file };
	});
}

/** The node whose name is given (throws when the package has none). */
export function packageNode(name: string): NodeInfo {
	const found = packageNodes().find((n) => n.name === name);
	if (!found) throw new Error(`package.json lists no node named ${name}`);
	return found;
}

/**
 * Whether a property is shown for the given parameter values, as n8n decides it for the simple
 * cases these descriptions use (`show`/`hide` on sibling values).
 */
export function isShown(p: Property, values: Record<string, unknown>): boolean {
	for (const [key, allowed] of Object.entries(p.displayOptions?.show ?? {})) {
		if (key.startsWith('@')) continue;
		if (!(allowed as unknown[]).includes(values[key] as never)) return false;
	}
	for (const [key, hidden] of Object.entries(p.displayOptions?.hide ?? {})) {
		if (key.startsWith('@')) continue;
		if ((hidden as unknown[]).includes(values[key] as never)) return false;
	}
	return true;
}

/** The top-level parameters shown for these values (first definition wins, as in the panel). */
export function shownProperties(node: NodeInfo, values: Record<string, unknown>): Property[] {
	const seen = new Set<string>();
	const out: Property[] = [];
	for (const p of node.properties) {
		if (seen.has(p.name) || !isShown(p, values)) continue;
		seen.add(p.name);
		out.push(p);
	}
	return out;
}

/** The default values of the top-level parameters for the given resource and operation. */
export function defaultValues(node: NodeInfo, fixed: Record<string, unknown> = {}): Record<string, unknown> {
	const values: Record<string, unknown> = { ...fixed };
	// Twice: a default may decide whether a later parameter is shown.
	for (let pass = 0; pass < 2; pass++) {
		for (const p of node.properties) {
			if (p.name in fixed) continue;
			if (isShown(p, values) && !(p.name in values)) values[p.name] = p.default;
		}
	}
	return values;
}

/** The label the panel shows for an option value of a parameter. */
export function optionLabel(p: Property, value: unknown): string {
	const found = (p.options ?? []).find((o) => o.value === value);
	if (!found) throw new Error(`${p.name} has no option ${JSON.stringify(value)}`);
	return found.name;
}

/** The node's name without " Trigger" / the type of the regular node it is grouped with in the panel. */
export function panelBaseName(node: NodeInfo): string {
	return node.isTrigger ? node.name.replace(/Trigger$/, '') : node.name;
}

export function slug(text: string): string {
	return text
		.replace(/[^A-Za-z0-9]+/g, '-')
		.replace(/^-+|-+$/g, '')
		.slice(0, 80);
}
