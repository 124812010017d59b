import type { ApiClient, ApiRequest } from '../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';

/** Requests a scripted client answers before it fails the test: paging that does not stop would never yield to Jest's timeout. */
export const RUNAWAY = 1_000;

/** An API client whose every answer (status 200) comes from `answer`, recording each request. */
export function scripted(answer: (req: ApiRequest, count: number) => unknown, runaway = RUNAWAY) {
	const requests: ApiRequest[] = [];
	const client: ApiClient = {
		stream: async () => {
			throw new Error('no streams here');
		},
		environment: async () => ({ absoluteUrl: (p) => p, variables: {}, redact: (text) => text }),
		request: async <T>(req: ApiRequest) => {
			if (requests.length >= runaway) throw new Error(`runaway paging: more than ${runaway} requests`);
			requests.push(req);
			return { status: 200, headers: {}, body: answer(req, requests.length) as T };
		},
	};
	return { client, requests };
}
