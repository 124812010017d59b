import { idFromUri, pairsToObject, withArticle } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/params';

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

describe('pairsToObject', () => {
	test('name/value pairs as an object; blank names skipped, missing values empty', () => {
		expect(pairsToObject({ pairs: [{ name: 'a', value: '1' }, { name: '', value: 'x' }, { name: 'b' }] })).toEqual({ a: '1', b: '' });
		expect(pairsToObject(undefined)).toEqual({});
	});

	test('a pair named __proto__ is kept as a field: never the prototype, never dropped', () => {
		const out = pairsToObject({ pairs: [{ name: '__proto__', value: 'x' }, { name: 'constructor', value: 'y' }] });
		expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
		expect(JSON.stringify(out)).toBe('{"__proto__":"x","constructor":"y"}');
	});
});
