import {
	creditsFor,
	measureMessage,
	smartEncode,
	type MessageMeasure,
} from '../../nodes/shared/domain/message';

const a = (n: number) => 'a'.repeat(n);
const u = (n: number) => 'ж'.repeat(n); // Cyrillic: outside GSM-7, one UTF-16 unit
const gsm = (
	characters: number,
	units: number,
	parts: number,
	per_part: number,
): MessageMeasure => ({
	encoding: 'GSM-7',
	characters,
	units,
	parts,
	per_part,
});
const ucs = (
	characters: number,
	units: number,
	parts: number,
	per_part: number,
): MessageMeasure => ({
	encoding: 'UCS-2',
	characters,
	units,
	parts,
	per_part,
});

describe('measureMessage', () => {
	it.each([
		['empty', '', gsm(0, 0, 0, 160)],
		['one character', 'a', gsm(1, 1, 1, 160)],
		// GSM-7 boundaries.
		['160 septets: one part', a(160), gsm(160, 160, 1, 160)],
		['161 septets: two parts', a(161), gsm(161, 161, 2, 153)],
		['306 septets: two parts', a(306), gsm(306, 306, 2, 153)],
		['307 septets: three parts', a(307), gsm(307, 307, 3, 153)],
		['basic set incl. £ é Ø Δ ¿ and newline', '£éØΔ¿\n@', gsm(7, 7, 1, 160)],
		// Extension characters cost two septets.
		['extension characters', '^{}\\[~]|€\f', gsm(10, 20, 1, 160)],
		['159 + € = 161 septets: two parts', a(159) + '€', gsm(160, 161, 2, 153)],
		['158 + € = 160 septets: one part', a(158) + '€', gsm(159, 160, 1, 160)],
		// An escape pair never straddles parts: € at septet 153/154 moves to part 2.
		['152 + € + 152: € cannot split, three parts', a(152) + '€' + a(152), gsm(305, 306, 3, 153)],
		['151 + € + 153: € fits part 1, two parts', a(151) + '€' + a(153), gsm(305, 306, 2, 153)],
		// UCS-2 boundaries.
		['70 units: one part', u(70), ucs(70, 70, 1, 70)],
		['71 units: two parts', u(71), ucs(71, 71, 2, 67)],
		['134 units: two parts', u(134), ucs(134, 134, 2, 67)],
		['135 units: three parts', u(135), ucs(135, 135, 3, 67)],
		['one non-GSM character switches all to UCS-2', a(69) + 'ж', ucs(70, 70, 1, 70)],
		['GSM extension chars cost 1 unit in UCS-2', '€ж', ucs(2, 2, 1, 70)],
		// An emoji is two UTF-16 units and one character.
		['emoji', '😀', ucs(1, 2, 1, 70)],
		['68 + emoji = 70 units: one part', u(68) + '😀', ucs(69, 70, 1, 70)],
		['69 + emoji = 71 units: two parts', u(69) + '😀', ucs(70, 71, 2, 67)],
		// A surrogate pair never straddles parts: emoji at unit 67/68 moves to part 2.
		[
			'66 + emoji + 66: emoji cannot split, three parts',
			u(66) + '😀' + u(66),
			ucs(133, 134, 3, 67),
		],
		['65 + emoji + 67: emoji fits part 1, two parts', u(65) + '😀' + u(67), ucs(133, 134, 2, 67)],
	])('%s', (_name, text, expected) => {
		expect(measureMessage(text)).toEqual(expected);
	});
});

describe('creditsFor', () => {
	it.each([
		['one part, one destination', a(10), 1, 1],
		['two parts, three destinations', a(161), 3, 6],
		['three UCS-2 parts, two destinations', u(135), 2, 6],
		['empty text costs nothing', '', 5, 0],
		['no destinations cost nothing', a(10), 0, 0],
	])('%s', (_name, text, destinations, credits) => {
		expect(creditsFor(measureMessage(text), destinations)).toBe(credits);
	});
});

describe('smartEncode', () => {
	it.each([
		['curly quotes', 'It’s “fine”', 'It\'s "fine"'],
		['dashes and minus', 'a–b—c−d', 'a-b-c-d'],
		['ellipsis', 'wait…', 'wait...'],
		['no-break and thin spaces, tab', 'a\u00a0b\u2009c\td', 'a b c d'],
		['zero-width and soft hyphen vanish', 'a\u200bb\u00adc\ufeff', 'abc'],
		['GSM extension kept', '“€5”', '"€5"'],
	])('replaces %s', (_name, text, plain) => {
		expect(smartEncode(text)?.text).toBe(plain);
		expect(measureMessage(plain).encoding).toBe('GSM-7');
	});

	it.each([
		['already GSM-7', 'Hello "you"'],
		['an emoji keeps it UCS-2', 'It’s 😀'],
		['Cyrillic keeps it UCS-2', '‘ж’'],
		['accented letters are not look-alikes', 'garçon ’'],
	])('leaves alone: %s', (_name, text) => {
		expect(smartEncode(text)).toBeUndefined();
	});

	it('says what it replaced and how often', () => {
		expect(smartEncode('’a’ …')?.replaced).toEqual([
			{ character: '’', with: "'", count: 2 },
			{ character: '…', with: '...', count: 1 },
		]);
	});

	it('saves parts: smart quotes can triple the cost', () => {
		const text = `“${'a'.repeat(150)}”`;
		expect(measureMessage(text).parts).toBe(3);
		expect(measureMessage(smartEncode(text)?.text ?? '').parts).toBe(1);
	});
});
