/**
 * The sandbox as the end-to-end tests drive it: over HTTP, through the same admin API the demo
 * prints curl commands for (`/_sandbox/...`), plus the example workflows and credentials from
 * `examples/` pointed at a sandbox URL.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { CredentialImport } from './harness';
import { httpRequest, REPO_ROOT } from './harness';

export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/** Where examples/sandbox-credentials.json points: the sandbox's default address. */
export const EXAMPLE_SANDBOX_URL = 'http://127.0.0.1:4010';

/** A request as `GET /_sandbox/requests` lists it. */
export interface SandboxLoggedRequest {
	seq: number;
	time: string;
	api: string;
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	headers: Record<string, string>;
	body: any;
	principal?: string;
	status?: number;
}

export class SandboxAdmin {
	constructor(readonly url: string) {}

	/** `timeoutMs`: longer for a call that waits for what it starts (a script played with `wait`). */
	async call<T = any>(method: string, adminPath: string, body?: unknown, timeoutMs = 60_000): Promise<T> {
		const res = await httpRequest<T>(`${this.url}/_sandbox${adminPath}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
			timeoutMs,
		});
		if (res.status < 200 || res.status >= 300) {
			throw new Error(`${method} /_sandbox${adminPath} answered ${res.status}: ${JSON.stringify(res.body)}`);
		}
		return res.body;
	}

	get<T = any>(adminPath: string) {
		return this.call<T>('GET', adminPath);
	}

	post<T = any>(adminPath: string, body: unknown = {}, timeoutMs?: number) {
		return this.call<T>('POST', adminPath, body, timeoutMs);
	}

	/** The request log (admin calls are not in it). */
	async requests(filter: { api?: string; method?: string; pathPrefix?: string; since?: number } = {}): Promise<SandboxLoggedRequest[]> {
		const query = new URLSearchParams(
			Object.entries(filter)
				.filter(([, v]) => v !== undefined)
				.map(([k, v]): [string, string] => [k, String(v)]),
		);
		return await this.get<SandboxLoggedRequest[]>(`/requests${query.size ? `?${query}` : ''}`);
	}

	/** The sequence number of the newest logged request (0 when none): "since now" for `requests`. */
	async lastSeq(): Promise<number> {
		const all = await this.requests();
		return all.length ? all[all.length - 1].seq : 0;
	}

	/**
	 * Waits until the request log holds `count` requests that match, and returns them (oldest
	 * first). Throws with what the log holds when the time is up.
	 */
	async waitForRequests(
		filter: { api?: string; method?: string; pathPrefix?: string; since?: number },
		match: (r: SandboxLoggedRequest) => boolean,
		options: { count?: number; timeoutMs?: number } = {},
	): Promise<SandboxLoggedRequest[]> {
		const { count = 1, timeoutMs = 30_000 } = options;
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = (await this.requests(filter)).filter(match);
			if (found.length >= count) return found;
			if (Date.now() > deadline) {
				const seen = (await this.requests(filter)).map((r) => `${r.method} ${r.path} ${r.status} ${JSON.stringify(r.body)}`.slice(0, 300));
				throw new Error(`${found.length} of ${count} matching requests reached the sandbox within ${timeoutMs} ms; matching the filter ${JSON.stringify(filter)}:\n${seen.join('\n')}`);
			}
			await new Promise((r) => setTimeout(r, 200));
		}
	}

	/** Polls until `check` gives something truthy; returns it. */
	async until<T>(what: string, check: () => Promise<T | undefined | false | null>, timeoutMs = 30_000): Promise<T> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const value = await check();
			if (value) return value;
			if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
			await new Promise((r) => setTimeout(r, 200));
		}
	}

	/**
	 * Waits until one Hosted PBX live stream is open, opened after `openedAfter` (epoch ms), and has stayed
	 * the same for `forMs`: n8n 2.x activates a newly published trigger twice, under a second apart, the
	 * second replacing the first's stream, so an event published in between reaches no stream.
	 */
	async untilOneStreamSettled({ forMs = 3000, openedAfter = 0 } = {}): Promise<void> {
		let open: { id: number; since: number } | undefined;
		await this.until(`one live stream, the same for ${forMs} ms`, async () => {
			const streams = (await this.get<Array<{ id: number; openedAt: string }>>('/pbx/streams')) ?? [];
			if (streams.length !== 1 || Date.parse(streams[0].openedAt) <= openedAfter) return (open = undefined) !== undefined;
			if (open?.id !== streams[0].id) open = { id: streams[0].id, since: Date.now() };
			return Date.now() - open.since >= forMs;
		});
	}
}

/** An example workflow from `examples/`, parsed (a fresh copy each call). */
/** An example workflow, its addresses of the sandbox pointed at `sandboxUrl` when given (a CRM stand-in, for one). */
export function loadExample(file: string, sandboxUrl?: string): Record<string, any> {
	const text = fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8');
	return JSON.parse(sandboxUrl ? text.split(EXAMPLE_SANDBOX_URL).join(sandboxUrl) : text) as Record<string, any>;
}

/** Every example workflow file in `examples/`. */
export function exampleFiles(): string[] {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json') && f !== 'sandbox-credentials.json')
		.sort();
}

/** examples/sandbox-credentials.json with its base URLs pointed at the given sandbox. */
export function sandboxCredentials(sandboxUrl: string): CredentialImport[] {
	const text = fs.readFileSync(path.join(EXAMPLES_DIR, 'sandbox-credentials.json'), 'utf8');
	return JSON.parse(text.split(EXAMPLE_SANDBOX_URL).join(sandboxUrl)) as CredentialImport[];
}

/** The Wholesale Voice credential of the wholesale recipes, pointed at this sandbox. */
export function wholesaleCredentials(sandboxUrl: string): CredentialImport[] {
	const text = fs.readFileSync(path.join(EXAMPLES_DIR, 'wholesale', 'sandbox-credentials.json'), 'utf8');
	return JSON.parse(text.split(EXAMPLE_SANDBOX_URL).join(sandboxUrl)) as CredentialImport[];
}

/** The node of a workflow with this name (throws when absent). */
export function nodeNamed(workflow: Record<string, any>, name: string): Record<string, any> {
	const found = (workflow.nodes as Array<Record<string, any>>).find((n) => n.name === name);
	if (!found) throw new Error(`workflow ${workflow.id} has no node named ${name}`);
	return found;
}

/** A workflow of one trigger node followed by a No Operation node named End (what the trigger tests run). */
export function triggerWorkflow(id: string, name: string, trigger: Record<string, unknown> & { name: string }): Record<string, unknown> {
	return {
		id,
		name,
		nodes: [{ position: [0, 0], ...trigger }, { id: `${id}-end`, name: 'End', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} }],
		connections: { [trigger.name]: { main: [[{ node: 'End', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}
