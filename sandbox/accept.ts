/**
 * Content negotiation by the Accept header. The interface names application/json and application/xml
 * and leaves the absent header open: the sandbox answers JSON then (and for * / *), and 406 when
 * the client accepts neither.
 */
import type { Format } from './render';

interface Range {
	type: string;
	subtype: string;
	q: number;
}

function parseRanges(header: string): Range[] {
	const ranges: Range[] = [];
	for (const item of header.split(',')) {
		const [media, ...params] = item.trim().split(';');
		const [type, subtype] = media.trim().toLowerCase().split('/');
		if (!type || !subtype) continue;
		let q = 1;
		for (const p of params) {
			const [k, v] = p.trim().split('=');
			if (k.trim().toLowerCase() === 'q') q = Number(v);
		}
		ranges.push({ type, subtype, q: Number.isFinite(q) ? q : 0 });
	}
	return ranges;
}

// Both text/xml and application/xml mean XML to a client; JSON has one type.
const CANDIDATES: Array<{ format: Format; type: string; subtype: string }> = [
	{ format: 'json', type: 'application', subtype: 'json' },
	{ format: 'xml', type: 'application', subtype: 'xml' },
	{ format: 'xml', type: 'text', subtype: 'xml' },
];

/** The q and specificity (2 exact, 1 type/*, 0 * / *) of the most specific range that matches. */
function match(ranges: Range[], type: string, subtype: string): { q: number; specificity: number } {
	let best = { q: 0, specificity: -1 };
	for (const r of ranges) {
		const specificity =
			r.type === type && r.subtype === subtype
				? 2
				: r.type === type && r.subtype === '*'
					? 1
					: r.type === '*'
						? 0
						: -1;
		if (specificity > best.specificity) best = { q: r.q, specificity };
	}
	return best;
}

/** The format to answer in, or undefined when only a 406 fits. */
export function negotiate(accept: string | undefined): Format | undefined {
	if (accept === undefined || accept.trim() === '') return 'json';
	const ranges = parseRanges(accept);
	let chosen: { format: Format; q: number; specificity: number } | undefined;
	for (const c of CANDIDATES) {
		const m = match(ranges, c.type, c.subtype);
		if (m.q <= 0) continue;
		// Higher q wins; on a tie the type the client named explicitly wins; then JSON (listed first).
		if (!chosen || m.q > chosen.q || (m.q === chosen.q && m.specificity > chosen.specificity)) {
			chosen = { format: c.format, ...m };
		}
	}
	return chosen?.format;
}
