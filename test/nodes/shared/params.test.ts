import { idFromUri, withArticle } from '../../../nodes/shared/params';

describe('idFromUri', () => {
	test.each([
		['https://pbx.example.com/api/v1/customers/1001/phonebook/42', '42'],
		['42', '42'],
		['  https://pbx.example.com/api/v1/customers/1001/  ', '1001'],
		['https://pbx.example.com/api/v1/recordings/abc?download=1', 'abc'],
		['a/b?c/d', 'd'],
		['', ''],
		['///', ''],
	])('%j -> %j', (value, id) => {
		expect(idFromUri(value)).toBe(id);
	});

	test('numbers and absent values', () => {
		expect(idFromUri(7)).toBe('7');
		expect(idFromUri(undefined)).toBe('');
	});
});

describe('withArticle', () => {
	test.each([
		['phone book entry', 'a phone book entry'],
		['SMS message', 'an SMS message'],
		['outgoing caller ID', 'an outgoing caller ID'],
		['UK 999 record', 'a UK 999 record'],
		['update', 'an update'],
		['unit', 'a unit'],
		['call bundle', 'a call bundle'],
	])('%s', (noun, phrase) => {
		expect(withArticle(noun)).toBe(phrase);
	});
});
