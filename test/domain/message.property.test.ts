/**
 * Message parts against an independent count: a reference written differently from
 * measureMessage (an alphabet spelled as code point ranges, parts cut by slicing the encoded
 * units instead of packing symbol by symbol), on generated texts around every limit.
 */
import fc from 'fast-check';

import { measureMessage, smartEncode } from '../../nodes/shared/domain/message';

/** GSM 03.38 basic set, as code points (3GPP TS 23.038 table 6.2.1). */
const BASIC = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà]$/u;
/** The extension table: escape (0x1B) then the character. */
const EXTENDED = /^[\f^{}\\[\]~|€]$/u;
const ESCAPE = '\u001b';

/** The text as the units that go on the air: septets, or UTF-16 code units. */
function encodedUnits(text: string): { gsm: boolean; units: string[] } {
	const symbols = [...text];
	const gsm = symbols.every((s) => BASIC.test(s) || EXTENDED.test(s));
	if (!gsm) return { gsm, units: text.split('') }; // split('') gives UTF-16 code units
	return { gsm, units: symbols.flatMap((s) => (EXTENDED.test(s) ? [ESCAPE, s] : [s])) };
}

/** Cuts at the capacity, one unit earlier when the cut would part an escape or a surrogate pair. */
function referenceParts(text: string): number {
	const { gsm, units } = encodedUnits(text);
	if (units.length === 0) return 0;
	if (units.length <= (gsm ? 160 : 70)) return 1;
	const capacity = gsm ? 153 : 67;
	let parts = 0;
	for (let start = 0; start < units.length; parts++) {
		let end = start + capacity;
		const last = units[end - 1];
		const opensPair = gsm ? last === ESCAPE : /[\uD800-\uDBFF]/.test(last ?? '');
		if (end < units.length && opensPair) end--;
		start = end;
	}
	return parts;
}

const symbol = fc.oneof(
	{ weight: 8, arbitrary: fc.constantFrom(...'abcXYZ019 .,!?@£Δ\n') },
	{ weight: 2, arbitrary: fc.constantFrom(...'€[]{}^~|\\\f') },
	{ weight: 1, arbitrary: fc.constantFrom('ж', 'ç', '😀', '👍🏽', '’', '“', '—', '…', '\u00A0') },
);
/** A length, often one just around a limit: 67, 70, 153, 160 and their multiples. */
const length = (max: number) =>
	fc
		.oneof(
			{ weight: 1, arbitrary: fc.integer({ min: 0, max }) },
			{
				weight: 3,
				arbitrary: fc.tuple(
					fc.constantFrom(66, 67, 69, 70, 133, 134, 152, 153, 159, 160, 305, 306, 458, 459),
					fc.integer({ min: -1, max: 1 }),
				),
			},
		)
		.map((value) =>
			typeof value === 'number' ? value : Math.min(max, Math.max(0, value[0] + value[1])),
		);

/** Long runs of one kind of text too, so that symbols land on every part boundary. */
/** A symbol that takes two units: where a cut in the wrong place shows. */
const pair = fc.constantFrom('€', '{', '\\', '😀', '👍🏽');

const text = fc.oneof(
	fc.array(symbol, { maxLength: 420 }).map((list) => list.join('')),
	fc
		.tuple(length(480), fc.oneof(symbol, pair), length(480))
		.map(([before, middle, after]) => 'a'.repeat(before) + middle + 'b'.repeat(after)),
	fc
		.tuple(length(210), fc.oneof(symbol, pair), length(210))
		.map(([before, middle, after]) => 'ж'.repeat(before) + middle + 'ж'.repeat(after)),
);

describe('measureMessage against an independent count', () => {
	it('agrees on the encoding and the number of parts', () => {
		fc.assert(
			fc.property(text, (message) => {
				const measure = measureMessage(message);
				expect(measure.parts).toBe(referenceParts(message));
				expect(measure.encoding).toBe(encodedUnits(message).gsm ? 'GSM-7' : 'UCS-2');
				expect(measure.units).toBe(encodedUnits(message).units.length);
			}),
			{ seed: 1301, numRuns: 3000 },
		);
	});
});

/** The generated symbols outside GSM-7 that have no GSM-7 look-alike. */
const NO_LOOK_ALIKE = /ж|ç|😀|👍🏽/u;

describe('smartEncode', () => {
	it('gives GSM-7 text of no more parts, or leaves the text alone', () => {
		let encoded = 0;
		fc.assert(
			fc.property(text, (message) => {
				const smart = smartEncode(message);
				if (smart === undefined) {
					// Left alone only when GSM-7 already, or when a symbol without a look-alike
					// (among those generated) keeps it UCS-2 anyway.
					expect(encodedUnits(message).gsm || NO_LOOK_ALIKE.test(message)).toBe(true);
					return;
				}
				encoded++;
				expect(encodedUnits(message).gsm).toBe(false);
				expect(encodedUnits(smart.text).gsm).toBe(true);
				expect(referenceParts(smart.text)).toBeLessThanOrEqual(referenceParts(message));
				const replaced = smart.replaced.reduce((sum, r) => sum + r.count, 0);
				expect(replaced).toBeGreaterThan(0);
			}),
			{ seed: 1302, numRuns: 3000 },
		);
		// Not a property that holds because nothing was ever encoded.
		expect(encoded).toBeGreaterThan(100);
	});
});
