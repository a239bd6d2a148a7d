/**
 * How many SMS parts a text needs, as networks count and bill them (GSM 03.38 / 3GPP 23.040).
 */

export interface MessageMeasure {
	encoding: 'GSM-7' | 'UCS-2';
	/** Unicode code points, what a person would count. */
	characters: number;
	/** Septets (GSM-7) or UTF-16 code units (UCS-2). */
	units: number;
	parts: number;
	/** Capacity of each part at this length: the single-part or the concatenated limit. */
	per_part: number;
}

const GSM_BASIC =
	'@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
	'¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** Written as ESC + char: two septets each. */
const GSM_EXTENSION = '\f^{}\\[~]|€';

const GSM_BASIC_SET = new Set(GSM_BASIC);
const GSM_EXTENSION_SET = new Set(GSM_EXTENSION);

const LIMITS = {
	'GSM-7': { single: 160, concatenated: 153 },
	'UCS-2': { single: 70, concatenated: 67 },
} as const;

export function measureMessage(text: string): MessageMeasure {
	const symbols = Array.from(text); // code points: a surrogate pair stays one symbol
	const gsmCosts = gsmCostsOf(symbols);
	const encoding = gsmCosts ? 'GSM-7' : 'UCS-2';
	const costs = gsmCosts ?? symbols.map((symbol) => symbol.length);
	const units = costs.reduce((sum, cost) => sum + cost, 0);
	const limits = LIMITS[encoding];
	const single = units <= limits.single;
	return {
		encoding,
		characters: symbols.length,
		units,
		parts: units === 0 ? 0 : single ? 1 : packParts(costs, limits.concatenated),
		per_part: single ? limits.single : limits.concatenated,
	};
}

/** Septets per symbol, or undefined as soon as one symbol is outside GSM-7. */
function gsmCostsOf(symbols: readonly string[]): number[] | undefined {
	const costs: number[] = [];
	for (const symbol of symbols) {
		if (GSM_BASIC_SET.has(symbol)) costs.push(1);
		else if (GSM_EXTENSION_SET.has(symbol)) costs.push(2);
		else return undefined;
	}
	return costs;
}

/**
 * Fills parts greedily. An escape pair or a surrogate pair cannot be split, so a symbol that
 * does not fit starts a new part and the last unit of the previous one stays empty: dividing
 * the total by the capacity would under-count.
 */
function packParts(costs: readonly number[], capacity: number): number {
	let parts = 1;
	let used = 0;
	for (const cost of costs) {
		if (used + cost > capacity) {
			parts++;
			used = 0;
		}
		used += cost;
	}
	return parts;
}

/** Providers bill every part to every destination. */
export function creditsFor(measure: MessageMeasure, destinations: number): number {
	return measure.parts * destinations;
}

/** What Smart Encoding did to a message, for the output. */
export interface SmartEncoding {
	text: string;
	replaced: Array<{ character: string; with: string; count: number }>;
}

/**
 * Characters that word processors and phones put in place of plain ones. Each costs a whole
 * message its GSM-7 encoding (a curly apostrophe turns 160 characters into three UCS-2
 * parts), while its GSM-7 look-alike reads the same on a phone.
 */
const LOOK_ALIKES: ReadonlyArray<[string, string]> = [
	['\u2018\u2019\u201A\u201B\u2032\u2039\u203A\u02BC\u00B4\u0060', "'"],
	['\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB', '"'],
	['\u2010\u2011\u2012\u2013\u2014\u2015\u2212', '-'],
	[
		'\u00A0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000\t',
		' ',
	],
	['\u00AD\u200B\u2060\uFEFF', ''],
	['\u2026', '...'],
	['\u2022\u00B7', '-'],
	['\u02C6', '^'],
	['\u02DC', '~'],
];
const LOOK_ALIKE = new Map(
	LOOK_ALIKES.flatMap(([characters, plain]) =>
		Array.from(characters, (character): [string, string] => [character, plain]),
	),
);

/**
 * The text with its look-alikes replaced, when that makes the whole text GSM-7; undefined
 * when it is GSM-7 already or would stay UCS-2 anyway (then nothing is worth changing).
 */
export function smartEncode(text: string): SmartEncoding | undefined {
	const counts = new Map<string, number>();
	let plain = '';
	for (const symbol of text) {
		const replacement = LOOK_ALIKE.get(symbol);
		if (replacement === undefined) {
			if (!GSM_BASIC_SET.has(symbol) && !GSM_EXTENSION_SET.has(symbol)) return undefined;
			plain += symbol;
			continue;
		}
		counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
		plain += replacement;
	}
	if (counts.size === 0) return undefined;
	const replaced = [...counts].map(([character, count]) => ({
		character,
		with: LOOK_ALIKE.get(character) as string,
		count,
	}));
	return { text: plain, replaced };
}
