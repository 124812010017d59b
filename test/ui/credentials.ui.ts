/**
 * Every credential type of the package, created through the editor's credential dialog against
 * the sandbox: with the sandbox's demo values the test succeeds; with a wrong password or key it
 * fails with a short message a user can act on, with no stack trace and no secret in it.
 */
import type { Locator, Page } from 'playwright-core';

import { packageCredentials, type CredentialInfo } from './support/catalog';
import { launchBrowser, Problems, signIn, uiState, type UiBrowser } from './support/session';

const credentials = packageCredentials();

/** A message a user can act on names what to check. */
const ACTIONABLE = /password|username|user name|key|account|credential|unauthori[sz]ed|forbidden|denied|invalid|revoked|scope|not found|wrong|check/i;
/** Signs of a stack trace or an internal error in a message. */
const STACK = /\n\s*at\s|\bat\s+\S+\s+\(|\.(js|ts):\d+|TypeError|ReferenceError|Cannot read prop|undefined is not|\[object Object\]/;

interface Variant {
	/** What is wrong, for the report. */
	what: string;
	values: Record<string, string>;
	/** Text that must not appear in the message (the secret typed). */
	secret: string;
}

/**
 * Wrong values for a credential type: each password field (typeOptions.password) with a wrong
 * value of the same shape, and for a key, one that is not a key at all.
 */
function wrongVariants(info: CredentialInfo, good: Record<string, unknown>): Variant[] {
	const variants: Variant[] = [];
	for (const p of info.properties.filter((q) => q.typeOptions?.password)) {
		const current = String(good[p.name] ?? '');
		const prefix = /^([a-z]+_)/.exec(current)?.[1] ?? '';
		const wrong = prefix ? `${prefix}${'0123456789abcdef'.repeat(4).slice(0, current.length - prefix.length)}` : `wrong-${p.name}-Zq7x`;
		variants.push({ what: `a wrong ${p.displayName}`, values: { [p.name]: wrong }, secret: wrong });
		if (prefix) variants.push({ what: `a ${p.displayName} that is not a key`, values: { [p.name]: 'my-key-Zq7x' }, secret: 'my-key-Zq7x' });
	}
	return variants;
}

/** Mistakes whose message must name them, by credential type: the field, the wrong value, the words. */
const NAMED_MISTAKES: Record<string, Array<{ what: string; field: string; value: (good: string) => string; names: RegExp }>> = {
	hostedPbxApi: [
		{ what: 'a wrong password', field: 'password', value: () => 'wrong-password-Zq7x', names: /wrong username or password/i },
		{ what: 'a Base URL without /api/v1', field: 'baseUrl', value: (good) => good.replace(/\/api\/v1\/?$/, ''), names: /must end with the API version.*\/api\/v1/i },
	],
};

/**
 * Saves (n8n tests the credential on save) and returns the outcome the dialog shows: the
 * success banner, or the failure banner's message (after "More details"). The test's answer
 * (`POST /rest/credentials/test`) says which to wait for, so a banner left from the previous
 * save is not mistaken for this one.
 */
async function waitForTestResult(
	page: Page,
	dialog: Locator,
	action: () => Promise<void>,
	expectSent: Record<string, string> = {},
): Promise<{ ok: boolean; message: string; shown: boolean; sent: Record<string, unknown> }> {
	// The dialog takes typed values after a short debounce; a Save clicked before that tests
	// the previous values. Save again until the test carries the values typed.
	let response;
	let sent: Record<string, unknown> = {};
	for (let attempt = 1; ; attempt++) {
		const tested = page.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()) && r.request().method() === 'POST', { timeout: 30_000 });
		await action();
		response = await tested.catch(() => undefined);
		if (!response) {
			// Saved before the dialog had taken the values ("Problem creating credential"): again.
			if (attempt >= 5) throw new Error('no credential test followed five clicks on Save');
			console.log(`credential dialog: no test after Save (attempt ${attempt}); saving again`);
			await dialog.locator('[data-test-id="credential-save-button"]:not([disabled])').waitFor();
			continue;
		}
		sent = ((response.request().postDataJSON() as { credentials?: { data?: Record<string, unknown> } } | null)?.credentials?.data ?? {}) as Record<string, unknown>;
		const stale = Object.entries(expectSent).filter(([name, value]) => sent[name] !== value);
		if (stale.length === 0) break;
		if (attempt >= 5) throw new Error(`the dialog kept testing ${stale.map(([n]) => `${n} = ${JSON.stringify(sent[n])}`).join(', ')}, not the values typed`);
		await dialog.locator('[data-test-id="credential-save-button"]:not([disabled])').waitFor();
	}
	const body = (await response.json().catch(() => ({}))) as { data?: { status?: string; message?: string } };
	const success = dialog.locator('[data-test-id="credentials-config-container-test-success"]');
	const failure = dialog.getByText(/Couldn.t connect with these settings/).first();
	if (body.data?.status === 'OK') {
		await success.waitFor({ timeout: 60_000 });
		return { ok: true, message: (await success.innerText()).replace(/\bRetry\b/, '').trim(), shown: true, sent };
	}
	await failure.waitFor({ timeout: 60_000 });
	const details = dialog.getByText('More details');
	if ((await details.count()) > 0 && (await details.first().isVisible())) await details.first().click();
	const message = String(body.data?.message ?? '').trim();
	// The message the dialog shows under "Couldn't connect with these settings".
	const shown = message ? await dialog.getByText(message.slice(0, 60), { exact: false }).first().isVisible().catch(() => false) : false;
	if (message && !shown) {
		await dialog.getByText(message.slice(0, 60), { exact: false }).first().waitFor({ timeout: 10_000 }).catch(() => undefined);
	}
	return { ok: false, message, shown: shown || (message ? await dialog.getByText(message.slice(0, 60), { exact: false }).first().isVisible().catch(() => false) : false), sent };
}

describe('credentials through the editor', () => {
	let ui: UiBrowser;
	const seen: string[] = [];

	beforeAll(async () => {
		ui = await launchBrowser();
		await signIn(ui.page);
	});

	afterAll(async () => {
		await ui?.close();
		console.log(`Credential test messages:\n${seen.join('\n')}`);
	});

	test.each(credentials.map((c) => [c.displayName, c] as const))('%s: Test succeeds with the sandbox values, and a wrong password or key gets a short message', async (_name, info) => {
		const page = ui.page;
		const problems = new Problems(page, `credential-${info.name}`);
		const state = uiState();
		const good = state.credentialValues[info.name];
		if (!good) throw new Error(`globalSetup has no sandbox values for the credential type ${info.name}: add them in test/ui/globalSetup.ts`);

		await page.goto(`${state.n8nUrl}/home/credentials/create`);
		await page.locator('[data-test-id="new-credential-type-select"]').click();
		await page.keyboard.type(info.displayName);
		await page.locator('.el-select-dropdown__item:visible', { hasText: new RegExp(`^\\s*${info.displayName}\\s*$`) }).first().click();
		await page.locator('[data-test-id="new-credential-type-button"]').click();
		const dialog = page.locator('[data-test-id="editCredential-modal"]');
		await dialog.waitFor();

		const setField = async (name: string, value: string) => {
			const input = dialog.locator(`[data-test-id="parameter-input-${name}"] input`).first();
			await input.fill(value);
			await input.press('Tab');
			// The dialog takes a typed value after a short debounce: wait until Save is enabled.
			await dialog.locator('[data-test-id="credential-save-button"]:not([disabled])').waitFor();
		};
		for (const p of info.properties) {
			if (good[p.name] === undefined || !['string', 'number'].includes(p.type)) continue;
			await setField(p.name, String(good[p.name]));
		}
		const save = dialog.locator('[data-test-id="credential-save-button"]');
		const first = await problems.attempt(info.displayName, 'saving with the sandbox values', () => waitForTestResult(page, dialog, () => save.click()));
		if (first && !first.ok) await problems.add(`${info.displayName} (sandbox values)`, `the test failed: "${first.message}"`);
		if (first?.ok) seen.push(`${info.displayName}, sandbox values: ${first.message}`);

		for (const variant of wrongVariants(info, good)) {
			const where = `${info.displayName} (${variant.what})`;
			for (const [name, value] of Object.entries(variant.values)) await setField(name, value);
			const result = await problems.attempt(where, 'saving', () => waitForTestResult(page, dialog, () => save.click(), variant.values));
			for (const [name] of Object.entries(variant.values)) await setField(name, String(good[name]));
			if (!result) continue;
			seen.push(`${where}: ${result.ok ? 'SUCCEEDED' : `"${result.message}"`}`);
			if (result.ok) {
				await problems.add(where, 'the test succeeded');
				continue;
			}
			const secrets = [variant.secret, ...info.properties.filter((p) => p.typeOptions?.password).map((p) => String(good[p.name] ?? ''))].filter((s) => s.length >= 4);
			if (!result.message) await problems.add(where, 'the failure shows no message');
			else if (!result.shown) await problems.add(where, `the dialog does not show the message "${result.message}"`);
			else if (result.message.length > 300) await problems.add(where, `the message is long (${result.message.length} characters): "${result.message.slice(0, 300)}…"`);
			if (STACK.test(result.message)) await problems.add(where, `the message looks like a stack trace or an internal error: "${result.message}"`);
			if (result.message && !ACTIONABLE.test(result.message)) await problems.add(where, `the message does not say what to check: "${result.message}"`);
			for (const secret of secrets) if (result.message.includes(secret)) await problems.add(where, 'the message repeats a secret');
		}
		// Mistakes a user makes, each named in the dialog (issue 20): the credential's test rules.
		for (const mistake of NAMED_MISTAKES[info.name] ?? []) {
			const where = `${info.displayName} (${mistake.what})`;
			const value = mistake.value(String(good[mistake.field] ?? ''));
			await setField(mistake.field, value);
			const result = await problems.attempt(where, 'saving', () => waitForTestResult(page, dialog, () => save.click(), { [mistake.field]: value }));
			await setField(mistake.field, String(good[mistake.field]));
			if (!result) continue;
			seen.push(`${where}: ${result.ok ? 'SUCCEEDED' : `"${result.message}"`}`);
			if (result.ok) await problems.add(where, 'the test succeeded');
			else if (!result.shown) await problems.add(where, `the dialog does not show the message "${result.message}"`);
			else if (!mistake.names.test(result.message)) await problems.add(where, `the message does not name the mistake (${mistake.names}): "${result.message}"`);
		}
		// Leave it saved with the sandbox values.
		const secretsTyped = Object.fromEntries(info.properties.filter((p) => p.typeOptions?.password).map((p) => [p.name, String(good[p.name])]));
		await problems.attempt(info.displayName, 'saving the sandbox values again', async () => {
			const last = await waitForTestResult(page, dialog, () => save.click(), secretsTyped);
			if (!last.ok) throw new Error(`the test failed again with the sandbox values: "${last.message}"`);
		});
		await page.keyboard.press('Escape');
		problems.assertNone();
	});
});
