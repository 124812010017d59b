/**
 * What every UI test file shares: the n8n and sandbox started by `globalSetup.ts` (read from
 * `test-results/ui/session.json`), a Chromium from Debian's package driven by playwright-core,
 * a signed-in editor, and a record of problems, each with a screenshot of the moment.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

import { DEFAULT_OWNER, REPO_ROOT, RestClient } from '../../e2e/harness';
import { SandboxAdmin } from '../../e2e/sandboxAdmin';
import { slug } from './catalog';

export const RESULTS_DIR = path.join(REPO_ROOT, 'test-results', 'ui');
export const DOCS_IMAGES_DIR = path.join(REPO_ROOT, 'docs', 'images');
export const STATE_FILE = path.join(RESULTS_DIR, 'session.json');
/** Images written by this run (file, what it shows): globalTeardown turns it into docs/images/README.md. */
export const IMAGES_MANIFEST = path.join(RESULTS_DIR, 'images.json');
/** Every docs image must stay under this size (bytes). */
export const MAX_IMAGE_BYTES = 150 * 1024;

export interface CredentialRef {
	id: string;
	name: string;
}

export interface UiState {
	n8nUrl: string;
	n8nVersion: string;
	sandboxUrl: string;
	owner: { email: string; password: string };
	/** Credential type -> the sandbox credential imported for it. */
	credentials: Record<string, CredentialRef>;
	/** Values the sandbox accepts, by credential type (for the credential tests). */
	credentialValues: Record<string, Record<string, unknown>>;
	startedAt: string;
}

export function uiState(): UiState {
	if (!fs.existsSync(STATE_FILE)) {
		throw new Error(`${STATE_FILE} is missing: run the UI tests through jest.ui.config.js (its globalSetup starts n8n and the sandbox)`);
	}
	return JSON.parse(fs.readFileSync(STATE_FILE, 'utf8')) as UiState;
}

export function sandboxAdmin(): SandboxAdmin {
	return new SandboxAdmin(uiState().sandboxUrl);
}

/** A REST session of the owner (for creating workflows to open in the editor). */
export async function restSession(): Promise<RestClient> {
	const state = uiState();
	const client = new RestClient(state.n8nUrl);
	await client.login(state.owner.email, state.owner.password);
	return client;
}

/** Debian's Chromium (scripts/ui/run.mjs installs it); TELEPHONY_CHROMIUM overrides. */
export function chromiumPath(): string {
	const candidates = [process.env.TELEPHONY_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((c): c is string => !!c);
	const found = candidates.find((c) => fs.existsSync(c));
	if (!found) throw new Error(`No Chromium at ${candidates.join(', ')}: run \`npm run test:ui\` (it installs Debian's chromium) or set TELEPHONY_CHROMIUM`);
	return found;
}

/** The flags verified on these machines: no sandbox (root), no GPU, nothing that calls Google. */
export const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-dev-shm-usage',
];

export interface UiBrowser {
	browser: Browser;
	context: BrowserContext;
	page: Page;
	userDataDir: string;
	close(): Promise<void>;
}

/** Generous: the machine has 2 cores and other test suites may be running. */
export const ACTION_TIMEOUT = 45_000;
export const NAVIGATION_TIMEOUT = 90_000;

/**
 * Launches Chromium with a fresh profile and a 1400x900 light-theme page at device scale
 * factor 1 (the docs images depend on it).
 */
export async function launchBrowser(): Promise<UiBrowser> {
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'telephony-ui-chromium-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: chromiumPath(),
		headless: true,
		args: CHROMIUM_ARGS,
		viewport: { width: 1400, height: 900 },
		deviceScaleFactor: 1,
		colorScheme: 'light',
		timezoneId: 'UTC',
		locale: 'en-GB',
	});
	context.setDefaultTimeout(ACTION_TIMEOUT);
	context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT);
	const page = context.pages()[0] ?? (await context.newPage());
	const browser = context.browser() as Browser;
	return {
		browser,
		context,
		page,
		userDataDir,
		async close() {
			await context.close().catch(() => undefined);
			fs.rmSync(userDataDir, { recursive: true, force: true });
		},
	};
}

/** Signs in through the sign-in page, as a person does. */
export async function signIn(page: Page): Promise<void> {
	const state = uiState();
	await page.goto(`${state.n8nUrl}/signin`);
	const email = page.locator('input[type="email"], input[name="email"], input[name="emailOrLdapLoginId"]').first();
	await email.fill(state.owner.email);
	await page.locator('input[type="password"]').first().fill(state.owner.password);
	await page.keyboard.press('Enter');
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: NAVIGATION_TIMEOUT });
}

/**
 * Problems seen during a test: each names where (node, operation), what was seen, and the
 * screenshot saved at that moment. A test collects them and fails once at the end with all of them.
 */
export class Problems {
	readonly list: string[] = [];
	private count = 0;

	constructor(
		private readonly page: Page,
		private readonly file: string,
	) {}

	/** Saves a screenshot of the page now; returns its path relative to the repository. */
	async shot(label: string): Promise<string> {
		fs.mkdirSync(RESULTS_DIR, { recursive: true });
		const name = `${slug(this.file)}-${String(++this.count).padStart(2, '0')}-${slug(label)}.png`;
		const full = path.join(RESULTS_DIR, name);
		try {
			await this.page.screenshot({ path: full, timeout: 15_000 });
		} catch (e) {
			return `(no screenshot: ${String((e as Error).message).split('\n')[0]})`;
		}
		return path.relative(REPO_ROOT, full);
	}

	/** Records a problem with a screenshot of the moment. */
	async add(where: string, what: string): Promise<void> {
		const file = await this.shot(where);
		const line = `${where}: ${what} [screenshot: ${file}]`;
		this.list.push(line);
		console.warn(`UI problem: ${line}`);
	}

	/** Runs a step; an exception becomes a problem (with the first lines of its message). Returns undefined then. */
	async attempt<T>(where: string, what: string, fn: () => Promise<T>): Promise<T | undefined> {
		try {
			return await fn();
		} catch (e) {
			const message = String((e as Error)?.message ?? e)
				.split('\n')
				.filter((l) => l.trim() && !/^\s*at /.test(l) && !l.includes('Call log:'))
				.slice(0, 3)
				.join(' | ');
			await this.add(where, `${what}: ${message}`);
			return undefined;
		}
	}

	/** Fails the test with every problem, one per line. */
	assertNone(): void {
		if (this.list.length > 0) {
			throw new Error(`${this.list.length} problem(s):\n- ${this.list.join('\n- ')}`);
		}
	}
}

/** Records an image written for the docs (what it shows), for docs/images/README.md. */
export function recordImage(file: string, shows: string): void {
	fs.mkdirSync(RESULTS_DIR, { recursive: true });
	const list = fs.existsSync(IMAGES_MANIFEST) ? (JSON.parse(fs.readFileSync(IMAGES_MANIFEST, 'utf8')) as Array<Record<string, unknown>>) : [];
	const bytes = fs.statSync(path.join(DOCS_IMAGES_DIR, file)).size;
	const entry = { file, shows, bytes, at: new Date().toISOString(), n8nVersion: uiState().n8nVersion };
	const others = list.filter((e) => e.file !== file);
	fs.writeFileSync(IMAGES_MANIFEST, JSON.stringify([...others, entry], null, 2));
}

export { DEFAULT_OWNER };
