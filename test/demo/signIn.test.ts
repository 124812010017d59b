/**
 * How `npm run demo` ends: a person who opens what it prints and signs in lands on the recipes,
 * and the sign-in is on screen beside "ready", not 80 lines up in the guide.
 */
import fs from 'node:fs';
import path from 'node:path';

import { RECIPES_PATH, openUrl, readyLines } from '../../scripts/demo/signIn';

const ACCOUNT = { email: 'demo@example.com', password: 'Demo-Passw0rd' };

test("the address to open is n8n's sign-in, sent on to the workflow list (the recipes)", () => {
	const url = new URL(openUrl('http://127.0.0.1:5678/'));
	expect(url.origin + url.pathname).toBe('http://127.0.0.1:5678/signin');
	// n8n's sign-in follows a redirect that is one of its own paths; /home/workflows lists the workflows in 1.x and 2.x.
	expect(url.searchParams.get('redirect')).toBe('/home/workflows');
	expect(RECIPES_PATH).toBe('/home/workflows');
});

test('the last lines say ready, where to open and how to sign in', () => {
	const lines = readyLines('http://127.0.0.1:5678', ACCOUNT, '17 min 02 s (build 41 s, provision 14 min 10 s)');
	expect(lines).toEqual([
		'ready in 17 min 02 s (build 41 s, provision 14 min 10 s)',
		'  Open      http://127.0.0.1:5678/signin?redirect=%2Fhome%2Fworkflows',
		'  Sign in   demo@example.com  /  Demo-Passw0rd   (then the recipes are listed)',
	]);
	// Within a terminal of 80 columns.
	for (const line of lines.slice(1)) expect(line.length).toBeLessThan(80);
});

test('the demo prints them last, after the guide, and opens the same address in the guide', () => {
	const demo = fs.readFileSync(path.join(__dirname, '../../scripts/demo.mjs'), 'utf8');
	const main = demo.slice(demo.indexOf('async function main()'));
	const guide = main.indexOf('printGuide(');
	const ready = main.indexOf('signIn.readyLines(n8n.baseUrl, OWNER');
	expect([guide > 0, ready > guide]).toEqual([true, true]);
	// Nothing but the ready lines and the session watcher come after the guide.
	expect(main.slice(ready, main.indexOf('\n}', ready)).match(/\b(say|print)\(/g)).toEqual(['say(', 'print(']);
	expect(demo).toContain('` Open      ${signIn.openUrl(base)}');
	expect(demo).not.toMatch(/` Open {6}\$\{base\}`/);
});
