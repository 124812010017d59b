import type { FaultQueue, StatusFault } from './faults';
import { HttpError } from './http';

/**
 * Refused credentials: a module's named endpoints answer 401 or 403, every request until the
 * refusal is cleared (or the next `count`), in the module's own error shape, and each refusal
 * counts the requests it answered. Built on the shared fault queue, labelled per module so that
 * one module's refusals are listed and cleared without touching other faults.
 */

export interface RefusalInput {
	/** 401 (credential refused) or 403 (not allowed); default 401. */
	status?: number;
	/** Which endpoints (the module's target names, or `all`); default every target of the module. */
	targets?: string[];
	/** Only the next N requests of each target; persistent when absent. */
	count?: number;
}

export interface RefusalTargets {
	/** Target name to path prefix (`*` is one segment). */
	paths: Record<string, string>;
	/** The prefix of every path of the API, for the target `all`. */
	all: string;
}

export interface RefusalAnswer {
	body: unknown;
	headers?: Record<string, string>;
}

function labelOf(api: string, target: string): string {
	return `refusal:${api}:${target}`;
}

export function addRefusals(
	faults: FaultQueue,
	api: string,
	targets: RefusalTargets,
	input: RefusalInput,
	answer: (status: number, target: string) => RefusalAnswer,
): StatusFault[] {
	const status = input.status ?? 401;
	if (status !== 401 && status !== 403) throw new HttpError(400, { message: 'status must be 401 or 403' });
	const names = input.targets ?? Object.keys(targets.paths);
	if (!Array.isArray(names) || names.length === 0) throw new HttpError(400, { message: 'targets must be a non-empty list' });
	for (const name of names) {
		if (name !== 'all' && !Object.hasOwn(targets.paths, name)) {
			throw new HttpError(400, { message: `unknown target ${String(name)}; use ${[...Object.keys(targets.paths), 'all'].join(', ')}` });
		}
	}
	return names.map((target) => {
		const { body, headers } = answer(status, target);
		return faults.add({
			kind: 'status',
			api,
			method: 'GET',
			pathPrefix: target === 'all' ? targets.all : targets.paths[target],
			status,
			body,
			headers,
			...(input.count === undefined ? { persist: true } : { count: input.count }),
			label: labelOf(api, target),
		});
	});
}

export function listRefusals(faults: FaultQueue, api: string): { refusals: Array<{ id: number; target: string; status: number; pathPrefix: string | undefined; hits: number; remaining: number | null }>; hits: number } {
	const prefix = labelOf(api, '');
	const refusals = faults
		.list()
		.filter((fault) => fault.label?.startsWith(prefix))
		.map((fault) => ({
			id: fault.id,
			target: String(fault.label).slice(prefix.length),
			status: fault.status,
			pathPrefix: fault.pathPrefix,
			hits: fault.hits,
			remaining: fault.remaining,
		}));
	return { refusals, hits: refusals.reduce((sum, refusal) => sum + refusal.hits, 0) };
}

export function clearRefusals(faults: FaultQueue, api: string): number {
	const prefix = labelOf(api, '');
	return faults.removeMatching((fault) => Boolean(fault.label?.startsWith(prefix)));
}
