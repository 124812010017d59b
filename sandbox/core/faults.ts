export interface StatusFault {
	/** Which module's requests it applies to (`pbx`, `convai`, ...); any when absent. */
	api?: string;
	pathPrefix?: string;
	method?: string;
	status: number;
	/** How many requests get it. */
	count: number;
	body?: unknown;
	headers?: Record<string, string>;
}

/** Queued "answer the next N requests with this status" faults. */
export class FaultQueue {
	private faults: StatusFault[] = [];

	add(fault: StatusFault): void {
		this.faults.push({ ...fault, count: fault.count ?? 1 });
	}

	take(api: string, method: string, path: string): StatusFault | undefined {
		const fault = this.faults.find(
			(f) =>
				(!f.api || f.api === api) &&
				(!f.method || f.method.toUpperCase() === method) &&
				(!f.pathPrefix || path.startsWith(f.pathPrefix)),
		);
		if (!fault) return undefined;
		fault.count -= 1;
		if (fault.count <= 0) this.faults.splice(this.faults.indexOf(fault), 1);
		return fault;
	}

	clear(): void {
		this.faults = [];
	}
}
