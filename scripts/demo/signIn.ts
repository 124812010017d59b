/**
 * Where `npm run demo` sends a person, and the lines it ends with. The guide above them is long
 * (it scrolls the sign-in away), so the last lines, beside "ready", say again where to open and
 * how to sign in.
 */

/** Where the recipes are listed in n8n (Overview › Workflows), in n8n 1.x and 2.x. */
export const RECIPES_PATH = '/home/workflows';

/**
 * The address to open: n8n's sign-in page, which after signing in opens the workflow list (the
 * recipes) instead of n8n's own start page; n8n follows a `redirect` that is a path of its own.
 */
export function openUrl(base: string): string {
	return `${base.replace(/\/+$/, '')}/signin?redirect=${encodeURIComponent(RECIPES_PATH)}`;
}

export interface Account {
	email: string;
	password: string;
}

/** The demo's last lines: ready (with the time it took), where to open, and the sign-in. */
export function readyLines(base: string, account: Account, took: string): string[] {
	return [
		`ready in ${took}`,
		`  Open      ${openUrl(base)}`,
		`  Sign in   ${account.email}  /  ${account.password}   (then the recipes are listed)`,
	];
}
