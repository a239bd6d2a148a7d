/**
 * The one reader of an answer's body: its format decided by the body itself (JSON or XML), then
 * read by the reader of that format. Each reader has a fast path in a module of its own beside
 * the general path it must equal: lossless JSON (jsonLossless.ts) and the flat XML scanner
 * (xmlFlat.ts, beside xmlGeneral.ts).
 */
import { BodyError } from './bodyError';
import { parseJsonLossless } from './jsonLossless';
import { readXmlGeneral, type XmlDocument } from './xmlGeneral';
import { readFlatXml } from './xmlFlat';
import { attempt } from './values';

export type WireFormat = 'json' | 'xml';

export interface ParsedBody {
	format: WireFormat;
	data: unknown;
	/** XML only: the name of the root element that `data` was unwrapped from. */
	root?: string;
}

/**
 * Decide the format by the body, not the Content-Type: some gateways ignore `Accept` or
 * mislabel their answers. Throws BodyError saying what the body is when it cannot be read.
 */
export function readBody(text: string): ParsedBody {
	const trimmed = text.trim();
	if (trimmed === '') throw new BodyError('it is empty');
	const first = trimmed[0];
	if (first === '{' || first === '[') return { format: 'json', data: parseJsonLossless(trimmed) };
	if (first === '<') return { format: 'xml', ...parseXmlDocument(trimmed) };
	throw new BodyError('it is neither JSON nor XML');
}

/** readBody for callers that only need to know whether a body reads: undefined when not. */
export function parseBody(text: string): ParsedBody | undefined {
	const read = attempt(() => readBody(text));
	if ('value' in read) return read.value;
	if (read.thrown instanceof BodyError) return undefined;
	throw read.thrown;
}

/**
 * An XML document, read as fast-xml-parser reads it with the options of xmlGeneral.ts: the root element
 * unwrapped, every value as trimmed text, delivery_report always a list. Answers of the
 * service's own flat shape take a linear scanner; anything else (or any doubt) the general
 * path, so that both always give the same result. Throws BodyError.
 */
export function parseXmlDocument(text: string): XmlDocument {
	const trimmed = text.trim();
	return readFlatXml(trimmed) ?? readXmlGeneral(trimmed);
}
