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
