/**
 * Redaction against every encoding a server may echo a secret in: errors and logs lose any run of
 * 8 characters of it, output items its whole and any start of 12 characters, and say so.
 */
import { MASK, REDACTED_FIELD, basicSecretForms, maskAnswer, secretForms } from '../../../nodes/shared/redaction';
import { ENCODINGS, htmlPage, leaks, prefixLeaks } from '../../hardening/secretEchoes';

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

	test.each(ENCODINGS)('%s: in an answer, the whole secret and its first 12 characters are masked', (_name, encode) => {
		for (const text of [encode(secret), encode(secret.slice(0, 12)), `note: ${encode(secret.slice(0, 15))}!`]) {
			const masked = forms.maskOutput(text);
			expect(masked).toContain(MASK);
			expect(prefixLeaks(masked, [secret])).toEqual([]);
		}
	});
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

	test('every object that held a masked value says so, up to the item; others are untouched', () => {
		const body = {
			success: true,
			data: [
				{ id: 1, note: `received ${secret}` },
				{ id: 2, note: 'nothing', nested: { echo: Buffer.from(`x${secret}`).toString('base64') } },
				{ id: 3, note: 'nothing' },
			],
		};
		const { value, masked } = maskAnswer(body, forms);
		expect(masked).toBe(true);
		expect(value).toEqual({
			success: true,
			[REDACTED_FIELD]: true,
			data: [
				{ id: 1, note: `received ${MASK}`, [REDACTED_FIELD]: true },
				{ id: 2, note: 'nothing', nested: { echo: expect.stringContaining(MASK), [REDACTED_FIELD]: true }, [REDACTED_FIELD]: true },
				{ id: 3, note: 'nothing' },
			],
		});
	});

	test('a key that is a secret is masked too, and `__proto__` stays a field', () => {
		const body = JSON.parse(`{"${secret}": 1, "__proto__": {"a": 1}}`) as Record<string, unknown>;
		const { value } = maskAnswer(body, forms);
		expect(Object.keys(value as object).sort()).toEqual([MASK, '__proto__', REDACTED_FIELD].sort());
		expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
	});

	test('an answer without a secret is not walked: the cheap scan says so', () => {
		expect(forms.mayHoldSecret(JSON.stringify({ a: 'x'.repeat(100_000) }))).toBe(false);
	});
});
