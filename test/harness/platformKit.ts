import type { Sandbox } from '../../sandbox';

/** Platform API Key credentials for the sandbox, by demo key label (full-access, read-only, convai-only, revoked). */
export function platformCredentials(sandbox: Sandbox, label = 'full-access') {
	return { platformApiKeyApi: { baseUrl: sandbox.url, apiKey: sandbox.convai.keys.demo(label), maxRateLimitWait: 0 } };
}
