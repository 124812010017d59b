const memories = new Set<{ forget(): void }>();

/**
 * What each running trigger of this process last wrote to its static data, by node. n8n may
 * activate a trigger again with an older copy of its static data (n8n 1.x reactivates after an
 * error with the workflow data of the first activation, whose static data can predate every
 * emit); starting from that copy would read back what was already delivered, or ask again about
 * a session that is over. A restart has no memory and starts from the saved static data.
 */
export class TriggerMemory<State extends object> {
	private readonly states = new Map<string, State>();

	/** `freshness` orders two states of one node: the higher one was written later. */
	constructor(private readonly freshness: (state: State) => number | undefined) {
		memories.add(this);
	}

	/** The fresher of the static data n8n handed over and what this process saw last for the node; copied into the handed-over state, so n8n saves it. */
	freshest(key: string, state: State): State {
		const remembered = this.states.get(key);
		if (remembered && remembered !== state && (this.freshness(remembered) ?? 0) > (this.freshness(state) ?? 0)) {
			Object.assign(state, JSON.parse(JSON.stringify(remembered)) as State);
		}
		this.states.set(key, state);
		return state;
	}

	forget(): void {
		this.states.clear();
	}
}

/** Forgets what every trigger remembers (a fresh process, as tests need between cases). */
export function forgetTriggerMemories(): void {
	for (const memory of memories) memory.forget();
}
