/**
 * How many SMS parts a message costs. Providers bill per part per destination, so the sandbox
 * charges the same way: GSM 03.38 7-bit when every character is in the GSM alphabet, else UCS-2.
 */

// GSM 03.38 basic character set (without ESC, which only introduces the extension table).
const GSM_BASIC = new Set(
	Array.from(
		'@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
			'¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
	),
);
// Extension table: each costs an escape plus the character, 2 septets.
const GSM_EXTENDED = new Set(Array.from('^{}\\[~]|€\f'));

export type Encoding = 'GSM-7' | 'UCS-2';

export interface PartCount {
	encoding: Encoding;
	parts: number;
}

const LIMITS: Record<Encoding, { single: number; multi: number }> = {
	'GSM-7': { single: 160, multi: 153 },
	'UCS-2': { single: 70, multi: 67 },
};

export function encodingOf(message: string): Encoding {
	for (const ch of message) {
		if (!GSM_BASIC.has(ch) && !GSM_EXTENDED.has(ch)) return 'UCS-2';
	}
	return 'GSM-7';
}

/** Cost of each character in the unit of its encoding: septets, or UTF-16 code units. */
function unitCosts(message: string, encoding: Encoding): number[] {
	const costs: number[] = [];
	for (const ch of message) {
		if (encoding === 'GSM-7') costs.push(GSM_EXTENDED.has(ch) ? 2 : 1);
		else costs.push(ch.length); // a surrogate pair (emoji) is 2 code units
	}
	return costs;
}

export function countParts(message: string): PartCount {
	const encoding = encodingOf(message);
	const costs = unitCosts(message, encoding);
	const total = costs.reduce((sum, c) => sum + c, 0);
	const { single, multi } = LIMITS[encoding];
	if (total === 0) return { encoding, parts: 0 };
	if (total <= single) return { encoding, parts: 1 };
	// Fill parts greedily: an escape sequence or surrogate pair never straddles two parts.
	let parts = 1;
	let used = 0;
	for (const cost of costs) {
		if (used + cost > multi) {
			parts += 1;
			used = 0;
		}
		used += cost;
	}
	return { encoding, parts };
}
