/**
 * Destinations on generated input: any value never throws; every entry is accounted for;
 * normalising is idempotent; the ways people write one number give one destination.
 * Seeded and bounded.
 */
import fc from 'fast-check';
import {
	MAX_MSISDN_DIGITS,
	MIN_MSISDN_DIGITS,
	parseDestinations,
	type Destinations,
} from '../../nodes/shared/domain/msisdn';

/**
 * Anything an expression can hand over, and a few things it should not be able to. (A revoked
 * Proxy is in msisdn.test.ts: fast-check itself cannot carry one.)
 */
const anyValue = fc.oneof(
	fc.anything({
		maxDepth: 3,
		maxKeys: 5,
		withBigInt: true,
		withBoxedValues: true,
		withDate: true,
		withMap: true,
		withSet: true,
		withNullPrototype: true,
		withObjectString: true,
		withTypedArray: true,
		withSparseArray: true,
	}),
	fc.string().map((description) => Symbol(description)),
	fc.func(fc.anything()),
	fc.constant(Object.create(null) as unknown),
);

const total = (d: Destinations) => d.destinations.length + d.duplicates + d.rejected.length;

/** An entry that means nothing: skipped by design (`a,,b`, an empty cell). */
const isEmpty = (entry: unknown) =>
	entry === undefined || entry === null || (typeof entry === 'string' && entry.trim() === '');

/** A valid international number: 8..15 digits, not starting with 0. */
const digits = fc
	.tuple(
		fc.integer({ min: 1, max: 9 }),
		fc.array(fc.integer({ min: 0, max: 9 }), {
			minLength: MIN_MSISDN_DIGITS - 1,
			maxLength: MAX_MSISDN_DIGITS - 1,
		}),
	)
	.map(([first, rest]) => `${first}${rest.join('')}`);

/** The number as people write it: a prefix, and separators (or one bracket pair) between digits. */
const written = (number: string) =>
	fc
		.tuple(
			fc.constantFrom('', '+', '00', '+ ', '00 '),
			fc.array(fc.constantFrom('', '', '', ' ', '-', '.', '/', '\u2013'), {
				minLength: number.length,
				maxLength: number.length,
			}),
			fc.option(fc.integer({ min: 0, max: number.length - 2 })),
		)
		.map(([prefix, separators, bracketAt]) => {
			const chars = [...number].map((digit, i) => {
				// A bracket pair around two digits: never `(0)`, which means a trunk 0 to drop.
				if (bracketAt === i) return `(${digit}`;
				if (bracketAt !== null && bracketAt + 1 === i) return `${digit})`;
				return digit + (i < number.length - 1 ? separators[i] : '');
			});
			return prefix + chars.join('');
		});

describe('parseDestinations on any value', () => {
	it('never throws, and every rejection says what was wrong', () => {
		fc.assert(
			fc.property(fc.oneof(fc.array(anyValue), anyValue), (input) => {
				const result = parseDestinations(input);
				for (const { input: text, reason } of result.rejected) {
					expect(typeof text).toBe('string');
					expect(reason).toMatch(/\w/);
				}
			}),
			{ seed: 201, numRuns: 1500 },
		);
	});

	it('accounts for every entry: a destination, a duplicate or a rejection, never dropped', () => {
		const entry = fc.oneof(anyValue, digits, digits.chain(written), fc.string());
		fc.assert(
			fc.property(fc.array(entry, { maxLength: 12 }), (list) => {
				const alone = list.map((one) => total(parseDestinations([one])));
				list.forEach((one, i) => {
					if (!isEmpty(one)) expect(alone[i]).toBeGreaterThanOrEqual(1);
				});
				expect(total(parseDestinations(list))).toBe(alone.reduce((a, b) => a + b, 0));
			}),
			{ seed: 202, numRuns: 1000 },
		);
	});
});

describe('normalisation', () => {
	it('is idempotent: a destination read again is itself', () => {
		fc.assert(
			fc.property(
				fc.array(fc.oneof(digits.chain(written), fc.string()), { maxLength: 8 }),
				(list) => {
					const { destinations } = parseDestinations(list);
					expect(parseDestinations(destinations)).toEqual({
						destinations,
						rejected: [],
						duplicates: 0,
					});
					expect(parseDestinations(destinations.join(', ')).destinations).toEqual(destinations);
				},
			),
			{ seed: 203, numRuns: 2000 },
		);
	});

	it('gives one destination for every way of writing one number', () => {
		const variants = digits.chain((number) =>
			fc.tuple(fc.constant(number), fc.array(written(number), { minLength: 1, maxLength: 6 })),
		);
		fc.assert(
			fc.property(variants, ([number, forms]) => {
				const expected = { destinations: [number], rejected: [], duplicates: forms.length - 1 };
				expect(parseDestinations(forms)).toEqual(expected);
				expect(parseDestinations(forms.join('\n'))).toEqual(expected);
			}),
			{ seed: 204, numRuns: 2000 },
		);
	});

	it('reads a national number with the default country code as the international one', () => {
		const national = fc
			.tuple(fc.constantFrom('1', '44', '49', '353', '880'), digits)
			.filter(([code, rest]) => code.length + rest.length <= MAX_MSISDN_DIGITS)
			.chain(([code, rest]) => fc.tuple(fc.constant(code), fc.constant(rest), written(`0${rest}`)))
			.filter(([, , form]) => !/^(\+|00)/.test(form));
		fc.assert(
			fc.property(national, ([code, rest, form]) => {
				expect(parseDestinations([form, `+${code}${rest}`], { defaultCountryCode: code })).toEqual({
					destinations: [`${code}${rest}`],
					rejected: [],
					duplicates: 1,
				});
			}),
			{ seed: 205, numRuns: 1000 },
		);
	});
});
