import { parseDestinations, type Destinations } from '../../nodes/shared/domain/msisdn';

const NATIONAL =
	'national format: set a default country code or write it as +CC… (e.g. +447700900123)';
const tooShort = (n: number) =>
	`too short: ${n} digits, expected at least 8 with the country code (e.g. 447700900123)`;
const tooLong = (n: number) =>
	`too long: ${n} digits, an international number has at most 15 (country code included); separate several numbers with commas`;
const letter = (c: string) =>
	`contains "${c}": a phone number has only digits (and +, spaces, dashes, brackets)`;
const PLUS = 'a "+" can only start a number: separate several numbers with commas';
const ok = (...destinations: string[]): Destinations => ({
	destinations,
	rejected: [],
	duplicates: 0,
});
const rejected = (input: string, reason: string): Destinations => ({
	destinations: [],
	rejected: [{ input, reason }],
	duplicates: 0,
});

describe('parseDestinations: one entry', () => {
	it.each([
		// Formatting people paste.
		['+44 7700 900123', undefined, ok('447700900123')],
		['0044-7700-900123', undefined, ok('447700900123')],
		['447700900123', undefined, ok('447700900123')],
		['+1 (555) 010.0123', undefined, ok('15550100123')],
		['  +44\t7700 900123  ', undefined, ok('447700900123')],
		['+44 (0)7700 900123', undefined, ok('447700900123')],
		['0044 (0) 7700 900123', undefined, ok('447700900123')],
		// National format needs a default country code.
		['(07700) 900123', undefined, rejected('(07700) 900123', NATIONAL)],
		['(07700) 900123', '44', ok('447700900123')],
		['07700 900123', '+44', ok('447700900123')],
		['07700 900123', '0049', ok('497700900123')],
		// Length: 8..15 digits, country code included.
		['12345678', undefined, ok('12345678')],
		['1234567', undefined, rejected('1234567', tooShort(7))],
		['123456789012345', undefined, ok('123456789012345')],
		['1234567890123456', undefined, rejected('1234567890123456', tooLong(16))],
		['+44 7700 900123 4567', undefined, rejected('+44 7700 900123 4567', tooLong(16))],
		['0123', '44', rejected('0123', tooShort(5))],
		// What cannot be a number.
		['call me', undefined, rejected('call me', letter('c'))],
		['4477OO900123', undefined, rejected('4477OO900123', letter('O'))],
		['44+7700900123', undefined, rejected('44+7700900123', PLUS)],
		[
			'00',
			undefined,
			rejected('00', 'has an international prefix (+ or 00) but no number after it'),
		],
		['+', undefined, rejected('+', 'has an international prefix (+ or 00) but no number after it')],
		[
			'+0447700900123',
			undefined,
			rejected(
				'+0447700900123',
				'country codes never start with 0: write it as +CC… or 00CC… (e.g. +447700900123)',
			),
		],
		[
			'000447700900123',
			undefined,
			rejected(
				'000447700900123',
				'country codes never start with 0: write it as +CC… or 00CC… (e.g. +447700900123)',
			),
		],
	])('%j (default country %s)', (input, defaultCountryCode, expected) => {
		expect(parseDestinations(input, { defaultCountryCode })).toEqual(expected);
	});
});

describe('parseDestinations: lists', () => {
	it.each([
		[
			'commas, semicolons, new lines',
			'447700900123,447700900124;447700900125\n447700900126\r\n447700900127',
			{},
			ok('447700900123', '447700900124', '447700900125', '447700900126', '447700900127'),
		],
		[
			'empty entries are ignored',
			',447700900123,, ;\n\n447700900124,',
			{},
			ok('447700900123', '447700900124'),
		],
		['nothing at all', ' , ;\n', {}, ok()],
		[
			'duplicates in any spelling count once, first order kept',
			'447700900124, +44 7700 900123, 0044 7700 900123, 447700900124, 07700 900123',
			{ defaultCountryCode: '44' },
			{ destinations: ['447700900124', '447700900123'], rejected: [], duplicates: 3 },
		],
		[
			'good and bad mixed, in input order',
			'+44 7700 900123, 07700 900124, 12',
			{},
			{
				destinations: ['447700900123'],
				rejected: [
					{ input: '07700 900124', reason: NATIONAL },
					{ input: '12', reason: tooShort(2) },
				],
				duplicates: 0,
			},
		],
	])('%s', (_name, input, options, expected) => {
		expect(parseDestinations(input, options)).toEqual(expected);
	});
});

// The ambiguity rule: spaces inside an entry are formatting; only when the whole entry is
// not a valid number AND every space-separated piece is one, the entry is several numbers.
describe('parseDestinations: spaces between full numbers', () => {
	it.each([
		['two full numbers', '447700900123 447700900124', {}, ok('447700900123', '447700900124')],
		[
			'international prefixes',
			'+447700900123  +4915112345678',
			{},
			ok('447700900123', '4915112345678'),
		],
		[
			'national pieces with a default country',
			'07700900123 07700900124',
			{ defaultCountryCode: '44' },
			ok('447700900123', '447700900124'),
		],
		['a valid whole wins over valid pieces', '12345678 1234567', {}, ok('123456781234567')],
		[
			'formatted numbers separated by spaces stay one (rejected) entry',
			'+44 7700 900123 +44 7700 900124',
			{},
			rejected('+44 7700 900123 +44 7700 900124', PLUS),
		],
		[
			'one bad piece keeps the entry whole',
			'447700900123 12345',
			{},
			rejected('447700900123 12345', tooLong(17)),
		],
	])('%s', (_name, input, options, expected) => {
		expect(parseDestinations(input, options)).toEqual(expected);
	});
});

describe('parseDestinations: arrays', () => {
	it.each([
		[
			'strings and safe numbers',
			['+44 7700 900123', 447700900124],
			ok('447700900123', '447700900124'),
		],
		[
			'null, undefined and empty strings are ignored',
			[null, undefined, '', '  ', '447700900123'],
			ok('447700900123'),
		],
		[
			'no comma splitting inside an element',
			['447700900123,447700900124'],
			rejected('447700900123,447700900124', letter(',')),
		],
		[
			'a number beyond 2^53 was already rounded',
			[Number('9007199254740993')],
			rejected(
				'9007199254740992',
				'is a number too large to be exact (it was already rounded): pass phone numbers as text',
			),
		],
		[
			'a fraction',
			[4477009001.5],
			rejected('4477009001.5', 'is not a whole positive number: pass phone numbers as text'),
		],
		[
			'a negative number',
			[-447700900123],
			rejected('-447700900123', 'is not a whole positive number: pass phone numbers as text'),
		],
		['a bigint is exact', [BigInt('447700900123')], ok('447700900123')],
		[
			'an object',
			[{ phone: '447700900123' }],
			rejected('{"phone":"447700900123"}', 'expected a phone number as text, got an object'),
		],
		['a boolean', [true], rejected('true', 'expected a phone number as text, got true or false')],
		[
			'duplicates across types',
			['447700900123', 447700900123],
			{ ...ok('447700900123'), duplicates: 1 },
		],
	])('%s', (_name, input, expected) => {
		expect(parseDestinations(input)).toEqual(expected);
	});
});

// Each of these raised a raw TypeError (`Cannot convert object to primitive value`) or showed
// the user `[object Object]`.
describe('parseDestinations: values that are not text', () => {
	const bare = Object.assign(Object.create(null) as object, { phone: '447700900123' });
	const cyclic: Record<string, unknown> = { phone: '447700900123' };
	cyclic.self = cyclic;
	const hostile = {
		toString() {
			throw new Error('no');
		},
		toJSON() {
			throw new Error('no');
		},
	};
	const { proxy: revoked, revoke } = Proxy.revocable({}, {});
	revoke();
	const got = (kind: string) => `expected a phone number as text, got ${kind}`;

	it.each<[string, unknown, string, string]>([
		['an object without a prototype', bare, '{"phone":"447700900123"}', got('an object')],
		['a symbol', Symbol('447700900123'), 'a symbol', got('a symbol')],
		['a function', () => '447700900123', 'a function', got('a function')],
		['a list inside the list', ['447700900123'], '["447700900123"]', got('a list')],
		['a date', new Date('2026-01-01T00:00:00Z'), '"2026-01-01T00:00:00.000Z"', got('a date')],
		['an object holding a BigInt', { n: 1n }, 'an object', got('an object')],
		['an object holding itself', cyclic, 'an object', got('an object')],
		['an object whose toString throws', hostile, 'an object', got('an object')],
		['a revoked proxy', revoked, 'an object', got('an object')],
		['a long object', { text: 'x'.repeat(100) }, `{"text":"${'x'.repeat(51)}…`, got('an object')],
	])('%s in a list is rejected with a reason', (_name, entry, text, reason) => {
		expect(parseDestinations(['447700900123', entry])).toEqual({
			destinations: ['447700900123'],
			rejected: [{ input: text, reason }],
			duplicates: 0,
		});
	});

	it.each<[string, unknown, Destinations]>([
		['an object without a prototype', bare, rejected('{"phone":"447700900123"}', got('an object'))],
		['a number', 447700900123, ok('447700900123')],
		['a bigint', 447700900123n, ok('447700900123')],
		['nothing', undefined, ok()],
	])('%s given instead of a list is one entry', (_name, input, expected) => {
		expect(parseDestinations(input)).toEqual(expected);
	});
});

describe('parseDestinations: default country code', () => {
	it.each<[unknown, string]>([
		[{}, '{}'],
		[Object.create(null), '{}'],
		[true, 'true'],
		[4444, '4444'],
		[Symbol('44'), 'a symbol'],
	])('%p is refused in words', (code, shown) => {
		expect(() => parseDestinations('07700900123', { defaultCountryCode: code as string })).toThrow(
			`Default country code "${shown}" is not a country calling code: use 1 to 3 digits, e.g. 44`,
		);
	});

	it('the number 44 from an expression is the code 44', () => {
		expect(
			parseDestinations('07700900123', { defaultCountryCode: 44 as unknown as string }),
		).toEqual(ok('447700900123'));
	});

	it.each([['abc'], ['0'], ['1234'], ['+']])('%j is refused at once', (code) => {
		expect(() => parseDestinations('07700900123', { defaultCountryCode: code })).toThrow(
			`Default country code "${code}" is not a country calling code: use 1 to 3 digits, e.g. 44`,
		);
	});

	it('blank means none', () => {
		expect(parseDestinations('07700900123', { defaultCountryCode: ' ' })).toEqual(
			rejected('07700900123', NATIONAL),
		);
	});
});
