/**
 * Redaction against every encoding a server may echo a secret in (base64 of base64 too): errors and
 * logs lose any run of 8 characters of it, output items any run of 12, and say so beside their data.
 */
import { MASK, REDACTED_FIELD, basicSecretForms, markedItems, maskAnswer, secretForms } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/redaction';
import { ENCODINGS, htmlPage, leaks, outputLeaks } from '../../hardening/secretEchoes';

const SECRETS = ['Cn4ry-pbx-Qm9XfLz2kP', "p&ss<wo>rd \"q\"/'é+%=ñ", 'tpk_0123456789abcdef0123456789abcdef01234567'];

describe.each(SECRETS.map((secret) => [secret]))('secret %s', (secret) => {
	const forms = secretForms([secret]);

	test.each(ENCODINGS)('%s: the whole secret and any run of 8 of it are gone from an error page', (_name, encode) => {
		const whole = forms.redact(htmlPage(encode(secret)));
		expect(leaks(whole, [secret])).toEqual([]);
		for (let at = 0; at + 8 <= secret.length; at += 3) {
			const cut = forms.redact(htmlPage(`…${encode(secret.slice(at, at + 8))}…`));
			expect({ at, leaks: leaks(cut, [secret]) }).toEqual({ at, leaks: [] });
		}
	});

	test.each(ENCODINGS)('%s: in an answer, the whole secret and any 12 characters of it are masked', (_name, encode) => {
		const cuts = [secret, secret.slice(0, 12), secret.slice(-12), secret.slice(5, 17)];
		for (const text of [...cuts.map(encode), `note: ${encode(secret.slice(0, 15))}!`, `tail: ${encode(secret.slice(-13))}.`]) {
			const masked = forms.maskOutput(text);
			expect(masked).toContain(MASK);
			expect(outputLeaks(masked, [secret])).toEqual([]);
		}
	});
});

test('a secret with one space inserted: its longer side is masked when it has 12 characters (output) or 8 (errors)', () => {
	const secret = 'Cn4ry-pbx-Qm9XfLz2kPw7Hd';
	const forms = secretForms([secret]);
	for (let at = 1; at < secret.length; at++) {
		const spaced = `${secret.slice(0, at)} ${secret.slice(at)}`;
		// 24 characters: one side always has 12, so the whole secret never shows.
		expect({ at, output: forms.maskOutput(spaced).includes(MASK), error: forms.redact(spaced).includes(MASK) }).toEqual({ at, output: true, error: true });
		expect(outputLeaks(forms.maskOutput(spaced), [secret])).toEqual([]);
		expect(leaks(forms.redact(spaced), [secret])).toEqual([]);
	}
});

test('Basic credentials: an Authorization header echoed inside an encoded payload loses the password', () => {
	const password = 'S3cret-Pa55word-9x';
	const forms = basicSecretForms('canary.user', password);
	const header = `Authorization: Basic ${Buffer.from(`canary.user:${password}`).toString('base64')}`;
	for (const offset of [0, 1, 2]) {
		const payload = Buffer.from(`${'{'.repeat(offset)}"headers":"${header}"`).toString('base64');
		expect(leaks(forms.redact(payload), [password])).toEqual([]);
		expect(outputLeaks(forms.maskOutput(`echo=${payload}`), [password])).toEqual([]);
	}
});

test('text without a secret is left as it is, in errors and in answers', () => {
	const forms = secretForms([SECRETS[0]]);
	const text = htmlPage('no credentials here: &#120;&#121; 0123456789abcdef Zm9vYmFy %2F%3A');
	expect(forms.redact(text)).toBe(text);
	expect(forms.maskOutput(text)).toBe(text);
	// A start shorter than 12 characters may be ordinary data in an answer; in an error it is not kept.
	expect(forms.maskOutput('Cn4ry-pbx-Q')).toBe('Cn4ry-pbx-Q');
	expect(forms.redact('Cn4ry-pbx-Q')).toBe(MASK);
});

test('secrets shorter than 4 characters are not masked (they would mask ordinary text)', () => {
	expect(secretForms(['abc']).redact('abc abc')).toBe('abc abc');
});

test('Basic credentials: the Authorization header as sent is masked, user name and all', () => {
	const forms = basicSecretForms('canary.user', 'S3cret-Pa55word');
	const header = Buffer.from('canary.user:S3cret-Pa55word').toString('base64');
	expect(forms.redact(`Authorization: Basic ${header}`)).toBe(`Authorization: Basic ${MASK}`);
});

describe('answers', () => {
	const secret = SECRETS[0];
	const forms = secretForms([secret]);

	test('the data keeps its shape; each item that held a masked value says so beside it, copies and unwrapped parts too', () => {
		const body = {
			success: true,
			data: [
				{ id: 1, note: `received ${secret}` },
				{ id: 2, note: 'nothing', request_headers: { 'X-Secret': Buffer.from(`x${secret}`).toString('base64') } },
				{ id: 3, note: 'nothing' },
			],
		};
		const { value, masked } = maskAnswer(body, forms);
		expect(masked).toBe(true);
		const records = (value as typeof body).data;
		expect(JSON.parse(JSON.stringify(value))).toEqual({
			success: true,
			data: [
				{ id: 1, note: `received ${MASK}` },
				{ id: 2, note: 'nothing', request_headers: { 'X-Secret': expect.stringContaining(MASK) } },
				{ id: 3, note: 'nothing' },
			],
		});
		expect(markedItems([...records, { ...records[1], extra: 1 }, Object.assign({ id: '1' }, records[0])])).toEqual([
			{ id: 1, note: `received ${MASK}`, [REDACTED_FIELD]: true },
			{ id: 2, note: 'nothing', request_headers: { 'X-Secret': expect.stringContaining(MASK) }, [REDACTED_FIELD]: true },
			{ id: 3, note: 'nothing' },
			{ id: 2, note: 'nothing', request_headers: { 'X-Secret': expect.stringContaining(MASK) }, extra: 1, [REDACTED_FIELD]: true },
			{ id: 1, note: `received ${MASK}`, [REDACTED_FIELD]: true },
		]);
		// The marker is beside the data, never inside it (a map of header names gains no `redacted` header).
		expect(Object.keys(records[1].request_headers ?? {})).toEqual(['X-Secret']);
		expect(markedItems([value])).toEqual([expect.objectContaining({ success: true, [REDACTED_FIELD]: true })]);
	});

	test('a key that is a secret is masked too, and `__proto__` stays a field', () => {
		const body = JSON.parse(`{"${secret}": 1, "__proto__": {"a": 1}}`) as Record<string, unknown>;
		const { value } = maskAnswer(body, forms);
		expect(Object.keys(value as object).sort()).toEqual([MASK, '__proto__'].sort());
		expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
	});

	test('an answer without a secret is not walked: the cheap scan says so', () => {
		expect(forms.mayHoldSecret(JSON.stringify({ a: 'x'.repeat(100_000) }))).toBe(false);
	});
});
