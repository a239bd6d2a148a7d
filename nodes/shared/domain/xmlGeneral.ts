/**
 * The general XML path: refused when hostile (a DOCTYPE, nesting past MAX_NESTING, not
 * well-formed), then read by fast-xml-parser. It reads any XML; the flat scanner beside it
 * (xmlFlat.ts) takes the service's own plain answers faster and must give exactly what this
 * path gives.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

import { BodyError, MAX_NESTING } from './bodyError';
import { attempt, isRecord } from './values';

export interface XmlDocument {
	/** The root element's name. */
	root: string;
	/** What the root element holds: an object of its children, or '' when it has none. */
	data: unknown;
}

/** Elements that are lists even when the service sends only one of them. */
const XML_LISTS = new Set(['delivery_report']);

/** One parser for every document: each parse() starts from a fresh state of its own. */
const XML_PARSER = new XMLParser({
	ignoreAttributes: true,
	ignoreDeclaration: true,
	ignorePiTags: true,
	// An MSISDN or an id is text: `007` stays `007`, 19 digits stay 19 digits.
	parseTagValue: false,
	parseAttributeValue: false,
	trimValues: true,
	isArray: (name) => XML_LISTS.has(name),
	maxNestedTags: MAX_NESTING,
});

/** The general path: validated, then fast-xml-parser. Exported for the differential tests. */
export function readXmlGeneral(text: string): XmlDocument {
	// The service never declares a DTD; refusing one rules out entity-expansion tricks.
	if (/<!DOCTYPE/i.test(text)) {
		throw new BodyError(
			'it is XML with a DOCTYPE, which the service never sends and which is refused ' +
				'because its entities can expand without bound',
		);
	}
	// Before the validator, which spends seconds on millions of unclosed elements.
	if (xmlDepthExceeds(text, MAX_NESTING)) {
		throw new BodyError(`it is XML nested deeper than ${MAX_NESTING} levels`);
	}
	const validation = XMLValidator.validate(text);
	if (validation !== true) {
		throw new BodyError(
			`it starts like XML but is not well-formed XML (line ${validation.err.line})`,
		);
	}
	const document = parseValidXml(text);
	const roots = isRecord(document) ? Object.keys(document) : [];
	// Two roots of one name come as a list; delivery_report is a list however many there are.
	const repeated = Array.isArray((document as Record<string, unknown>)[roots[0]]);
	if (roots.length !== 1 || (repeated && !XML_LISTS.has(roots[0]))) {
		throw new BodyError('it is XML without a single root element');
	}
	const root = roots[0];
	return { root, data: (document as Record<string, unknown>)[root] };
}

/**
 * Counts open elements from tag to tag, stepping over comments and CDATA. A '>' inside an
 * attribute value can make it count one too many, never too few: at worst a contrived
 * document is refused as nested too deep.
 */
function xmlDepthExceeds(text: string, limit: number): boolean {
	let depth = 0;
	let open = text.indexOf('<');
	while (open !== -1) {
		const end = tagEnd(text, open);
		if (end === -1) return false;
		const next = text.charCodeAt(open + 1);
		if (next === SLASH) {
			depth--;
		} else if (next !== 33 && next !== 63 && text.charCodeAt(end - 1) !== SLASH) {
			// Not <!...>, not <?...?>, not <empty/>.
			if (++depth > limit) return true;
		}
		open = text.indexOf('<', end + 1);
	}
	return false;
}

/** Where the markup opening at `open` ends: its '>', or the end of a comment or CDATA. */
function tagEnd(text: string, open: number): number {
	for (const [start, stop] of SKIPPED_MARKUP) {
		if (text.startsWith(start, open)) {
			const found = text.indexOf(stop, open + start.length);
			return found === -1 ? -1 : found + stop.length - 1;
		}
	}
	return text.indexOf('>', open + 1);
}

const SKIPPED_MARKUP: ReadonlyArray<readonly [string, string]> = [
	['<!--', '-->'],
	['<![CDATA[', ']]>'],
];

function parseValidXml(text: string): unknown {
	const read = attempt(() => XML_PARSER.parse(text) as unknown);
	if ('value' in read) return read.value;
	if (/nested tags/i.test(String((read.thrown as Error)?.message))) {
		throw new BodyError(`it is XML nested deeper than ${MAX_NESTING} levels`);
	}
	// The parser's own words may quote the body (element names): not passed on.
	throw new BodyError('it is XML that could not be read (an element name is not allowed)');
}

const SLASH = 47;
