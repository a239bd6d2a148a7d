import { XMLParser, XMLValidator } from 'fast-xml-parser';

import { attempt, isRecord } from './values';

export type WireFormat = 'json' | 'xml';

export interface ParsedBody {
	format: WireFormat;
	data: unknown;
	/** XML only: the name of the root element that `data` was unwrapped from. */
	root?: string;
}

/**
 * A body that cannot be read. The message says what the body is, in words that never quote it:
 * answers may hold personal data or an echoed password.
 */
export class BodyError extends Error {
	constructor(reason: string) {
		super(reason);
		this.name = 'BodyError';
	}
}

/** Service answers nest 3 levels deep; anything near this is hostile or broken, not an answer. */
export const MAX_NESTING = 100;

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

// ---------------------------------------------------------------- JSON

/**
 * JSON.parse rounds integers beyond 2^53 (batch_id has up to 19 digits), and Node 20 cannot
 * see the source text from a reviver. So one pass over the text notes, in document order, the
 * number literals that JSON.parse will round; JSON.parse reads the text; then those values are
 * put back as strings of their exact digits. Everything else is exactly as JSON.parse gives it
 * (a "__proto__" key stays data). Throws BodyError.
 */
export function parseJsonLossless(text: string): unknown {
	const scan = scanJson(text);
	const parsed = parseJson(text);
	if (scan.rounded.length === 0) return parsed.root;
	// Document order is the order of the parsed values unless keys were reordered or merged.
	if (!scan.digitKeys && restoreExactIntegers(parsed, scan)) return parsed.root;
	return parseJson(quoteIntegers(text, scan)).root;
}

function parseJson(text: string): { root: unknown } {
	const read = attempt(() => JSON.parse(text) as unknown);
	if ('value' in read) return { root: read.value };
	if (!(read.thrown instanceof SyntaxError)) throw read.thrown;
	throw new BodyError(jsonProblem(read.thrown, text.length));
}

/** Never JSON.parse's own message: it may quote the body. */
function jsonProblem(error: SyntaxError, length: number): string {
	const position = /at position (\d+)/.exec(error.message);
	const atEnd = position !== null && Number(position[1]) >= length;
	return atEnd || /end of JSON input|Unterminated string/.test(error.message)
		? 'it is JSON that ends too early (cut short?)'
		: 'it starts like JSON but is not valid JSON';
}

interface JsonScan {
	/**
	 * Every number literal that JSON.parse rounds (beyond 2^53), in document order: an integer
	 * literal as its exact digits, anything else (1e20, 12345678901234567.5) as its number.
	 */
	rounded: Array<string | number>;
	/** Where each of them starts in the text. */
	starts: number[];
	/** Object members (colons outside strings): fewer parsed means duplicate keys were merged. */
	members: number;
	/** A key starting with a digit: JSON.parse puts index-like keys first, out of order. */
	digitKeys: boolean;
}

const QUOTE = 34;
const BACKSLASH = 92;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;
const COLON = 58;

/** Shorter literals without an exponent are always below 2^53: no need to look at them. */
const SHORTEST_ROUNDED = 16;

/**
 * Hops over strings (digits inside them are not numbers) and notes the number literals that
 * JSON.parse will round. Refuses nesting deeper than MAX_NESTING. Validation is JSON.parse's job.
 */
function scanJson(text: string): JsonScan {
	const scan: JsonScan = { rounded: [], starts: [], members: 0, digitKeys: false };
	const length = text.length;
	let depth = 0;
	let stringStartsWithDigit = false;
	let i = 0;
	while (i < length) {
		const c = text.charCodeAt(i);
		if (c === QUOTE) {
			const first = text.charCodeAt(i + 1);
			stringStartsWithDigit = first >= ZERO && first <= NINE;
			i = stringEnd(text, i);
		} else if (c === MINUS || (c >= ZERO && c <= NINE)) {
			const start = i;
			// Digits, then maybe '.', 'e', '+', '-': the characters that can make up a number.
			let integer = true;
			for (i++; ; i++) {
				const d = text.charCodeAt(i);
				if (d >= ZERO && d <= NINE) continue;
				if (d !== 46 && d !== 43 && d !== MINUS && d !== 101 && d !== 69) break;
				integer = false;
			}
			if (i - start >= SHORTEST_ROUNDED || !integer) noteIfRounded(scan, text, start, i, integer);
		} else {
			if (c === 91 || c === 123) {
				if (++depth > MAX_NESTING) {
					throw new BodyError(`it is JSON nested deeper than ${MAX_NESTING} levels`);
				}
			} else if (c === 93 || c === 125) {
				depth--;
			} else if (c === COLON) {
				scan.members++;
				if (stringStartsWithDigit) scan.digitKeys = true;
			}
			i++;
		}
	}
	return scan;
}

/** The index after the closing quote of the string opening at `open` (or the end of text). */
function stringEnd(text: string, open: number): number {
	let from = open + 1;
	for (;;) {
		const close = text.indexOf('"', from);
		if (close === -1) return text.length;
		// Escaped when an odd number of backslashes stands before it.
		let before = close - 1;
		while (text.charCodeAt(before) === BACKSLASH) before--;
		if ((close - 1 - before) % 2 === 0) return close + 1;
		from = close + 1;
	}
}

function noteIfRounded(
	scan: JsonScan,
	text: string,
	start: number,
	end: number,
	integer: boolean,
): void {
	if (integer) {
		const digits = text.charCodeAt(start) === MINUS ? end - start - 1 : end - start;
		// 17 digits or more are always beyond 2^53; 16 may be either.
		if (digits < SHORTEST_ROUNDED) return;
		const literal = text.slice(start, end);
		if (digits === SHORTEST_ROUNDED && !isRounded(Number(literal))) return;
		scan.rounded.push(literal);
		scan.starts.push(start);
		return;
	}
	// A fraction: only a long one or one with an exponent can reach 2^53.
	if (end - start < SHORTEST_ROUNDED && !/[eE]/.test(text.slice(start, end))) return;
	const value = Number(text.slice(start, end));
	if (!isRounded(value)) return;
	scan.rounded.push(value);
	scan.starts.push(start);
}

function isRounded(value: number): boolean {
	return value > Number.MAX_SAFE_INTEGER || value < -Number.MAX_SAFE_INTEGER;
}

/**
 * Puts the exact digits back in place of the rounded values, walking the parsed value in
 * document order. False when the walk did not meet exactly the noted literals (merged
 * duplicate keys, a polluted prototype): the caller then takes the slower, certain way.
 */
function restoreExactIntegers(parsed: { root: unknown }, scan: JsonScan): boolean {
	const walk = new IntegerRestorer(scan.rounded);
	walk.visit(parsed);
	return walk.next === scan.rounded.length && walk.members === scan.members + 1;
}

class IntegerRestorer {
	next = 0;
	members = 0;

	constructor(private readonly rounded: Array<string | number>) {}

	visit(container: object): void {
		if (Array.isArray(container)) {
			for (let i = 0; i < container.length; i++) {
				const item: unknown = container[i];
				if (typeof item === 'number') {
					if (item > Number.MAX_SAFE_INTEGER || item < -Number.MAX_SAFE_INTEGER) {
						container[i] = this.exact(item);
					}
				} else if (typeof item === 'object' && item !== null) {
					this.visit(item);
				}
			}
			return;
		}
		const record = container as Record<string, unknown>;
		for (const key in record) {
			this.members++;
			const item = record[key];
			if (typeof item === 'number') {
				// An own "__proto__" member is written as data, like any other member.
				if (item > Number.MAX_SAFE_INTEGER || item < -Number.MAX_SAFE_INTEGER) {
					record[key] = this.exact(item);
				}
			} else if (typeof item === 'object' && item !== null) {
				this.visit(item);
			}
		}
	}

	private exact(rounded: number): string | number {
		const noted = this.rounded[this.next++];
		return typeof noted === 'string' ? noted : rounded;
	}
}

/** The certain way: the noted integer literals in quotes, for JSON.parse to read as strings. */
function quoteIntegers(text: string, scan: JsonScan): string {
	let quoted = '';
	let copied = 0;
	scan.rounded.forEach((literal, index) => {
		if (typeof literal !== 'string') return;
		const start = scan.starts[index];
		quoted += `${text.slice(copied, start)}"${literal}"`;
		copied = start + literal.length;
	});
	return quoted + text.slice(copied);
}

// ---------------------------------------------------------------- XML

export interface XmlDocument {
	/** The root element's name. */
	root: string;
	/** What the root element holds: an object of its children, or '' when it has none. */
	data: unknown;
}

/**
 * An XML document, read as fast-xml-parser reads it with the options below: the root element
 * unwrapped, every value as trimmed text, delivery_report always a list. Answers of the
 * service's own flat shape take a linear scanner; anything else (or any doubt) the general
 * path, so that both always give the same result. Throws BodyError.
 */
export function parseXmlDocument(text: string): XmlDocument {
	const trimmed = text.trim();
	return readFlatXml(trimmed) ?? readXmlGeneral(trimmed);
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

// ---------------------------------------------------------------- XML, the service's flat shape

/**
 * The fields of a delivery report (seed 2.3), in the order the service writes them (any order
 * is read); also what tells a status callback's query or form from anything else.
 */
export const REPORT_FIELDS = [
	'msisdn',
	'delivery_date',
	'network_id',
	'status',
	'batch_id',
	'gateway_session_id',
] as const;
const SEND_FIELDS = [
	'accepted',
	'batch_id',
	'batch_size',
	'receive_updates',
	'remaining_credits',
	'error',
] as const;

/** Thrown inside the scanner when the text is not plainly the flat shape. */
const DOUBT = new Error('not the flat shape');

/** Only the declaration the service writes: anything else goes the general way. */
const DECLARATION =
	/<\?xml version="1\.[0-9]"(?: encoding="[A-Za-z][A-Za-z0-9._-]*")?(?: standalone="(?:yes|no)")?[ \t\r\n]*\?>/y;
const PREDEFINED_ENTITY = /&(lt|gt|amp|apos|quot);/g;
const OTHER_AMPERSAND = /&(?!(?:lt|gt|amp|apos|quot);)/;
const ENTITY_TEXT: Record<string, string> = {
	lt: '<',
	gt: '>',
	amp: '&',
	apos: "'",
	quot: '"',
};

const LESS_THAN = 60;
const GREATER_THAN = 62;
const SLASH = 47;

/**
 * sms_get_status > reports > delivery_report* > (leaf fields), or sms_send > (leaf fields),
 * no attributes, comments, CDATA, other entities or repeated fields. Undefined on any doubt.
 * Exported for the differential tests.
 */
export function readFlatXml(text: string): XmlDocument | undefined {
	const read = attempt(() => new FlatXmlScanner(text).document());
	if ('value' in read) return read.value;
	if (read.thrown === DOUBT) return undefined;
	throw read.thrown;
}

class FlatXmlScanner {
	private pos = 0;
	/** No entity and no line break anywhere: then values need no look of their own. */
	private readonly plainValues: boolean;
	/** The field names met at each place of the previous element, tried first at the next. */
	private readonly lastOrder: string[] = [];

	constructor(private readonly text: string) {
		this.plainValues = text.indexOf('&') === -1 && text.indexOf('\r') === -1;
	}

	document(): XmlDocument {
		if (this.text.startsWith('<?xml', 0)) {
			DECLARATION.lastIndex = 0;
			if (!DECLARATION.test(this.text)) throw DOUBT;
			this.pos = DECLARATION.lastIndex;
			this.skipSpace();
		}
		const result = this.rootElement();
		this.skipSpace();
		if (this.pos !== this.text.length) throw DOUBT;
		return result;
	}

	private rootElement(): XmlDocument {
		for (const root of ['sms_get_status', 'sms_send']) {
			if (this.emptyElement(root)) return { root, data: '' };
		}
		if (this.openTag('sms_get_status')) {
			return { root: 'sms_get_status', data: this.statusContent() };
		}
		if (this.openTag('sms_send')) {
			return { root: 'sms_send', data: this.fields(SEND_FIELDS, 'sms_send') };
		}
		throw DOUBT;
	}

	/** After <sms_get_status>: nothing, <reports/>, or <reports> with delivery reports. */
	private statusContent(): unknown {
		this.skipSpace();
		if (this.closeTag('sms_get_status')) return '';
		let data: unknown;
		if (this.emptyElement('reports')) {
			data = { reports: '' };
		} else if (this.openTag('reports')) {
			const reports = this.reportList();
			data = { reports: reports.length === 0 ? '' : { delivery_report: reports } };
		} else {
			throw DOUBT;
		}
		this.skipSpace();
		if (!this.closeTag('sms_get_status')) throw DOUBT;
		return data;
	}

	private reportList(): unknown[] {
		const reports: unknown[] = [];
		for (;;) {
			this.skipSpace();
			if (this.closeTag('reports')) return reports;
			if (!this.openTag('delivery_report')) throw DOUBT;
			reports.push(this.fields(REPORT_FIELDS, 'delivery_report'));
		}
	}

	/** Leaf children up to </parent>: an object of their texts, or '' when there are none. */
	private fields(names: readonly string[], parent: string): unknown {
		const text = this.text;
		const record: Record<string, string> = {};
		let count = 0;
		for (;;) {
			this.skipSpace();
			if (this.closeTag(parent)) return count === 0 ? '' : record;
			const name = this.fieldName(names, count);
			const after = this.pos + 1 + name.length;
			let value = '';
			if (text.charCodeAt(after) === GREATER_THAN) {
				const valueEnd = text.indexOf('<', after + 1);
				if (valueEnd === -1) throw DOUBT;
				value = this.value(text.slice(after + 1, valueEnd));
				this.pos = valueEnd;
				if (!this.closeTag(name)) throw DOUBT;
			} else if (text.charCodeAt(after) === SLASH && text.charCodeAt(after + 1) === GREATER_THAN) {
				// <name/> is an empty field.
				this.pos = after + 2;
			} else {
				throw DOUBT;
			}
			// A repeated field becomes a list in the general path.
			if (record[name] !== undefined) throw DOUBT;
			record[name] = value;
			count++;
		}
	}

	/** The known field whose tag opens here: the one met in this place last time, first. */
	private fieldName(names: readonly string[], index: number): string {
		const guess = this.lastOrder[index];
		if (guess !== undefined && this.fieldTagAt(guess)) return guess;
		for (const name of names) {
			if (this.fieldTagAt(name)) {
				this.lastOrder[index] = name;
				return name;
			}
		}
		throw DOUBT;
	}

	/** `<name>` or `<name/>` starts here (a longer name or an attribute does not). */
	private fieldTagAt(name: string): boolean {
		const text = this.text;
		const end = text.charCodeAt(this.pos + 1 + name.length);
		return (
			text.charCodeAt(this.pos) === LESS_THAN &&
			(end === GREATER_THAN || end === SLASH) &&
			text.startsWith(name, this.pos + 1)
		);
	}

	/** Trimmed as fast-xml-parser trims; only the five predefined entities are decoded here. */
	private value(raw: string): string {
		const trimmed = raw.trim();
		if (this.plainValues) return trimmed;
		// fast-xml-parser turns line breaks inside a value into '\n': its way, not ours.
		if (trimmed.indexOf('\r') !== -1) throw DOUBT;
		if (trimmed.indexOf('&') === -1) return trimmed;
		if (OTHER_AMPERSAND.test(trimmed)) throw DOUBT;
		return trimmed.replace(PREDEFINED_ENTITY, (_, name: string) => ENTITY_TEXT[name]);
	}

	/** Steps over `<name>` when it comes next. */
	private openTag(name: string): boolean {
		return this.step(1, name, GREATER_THAN);
	}

	/** Steps over `</name>` when it comes next. */
	private closeTag(name: string): boolean {
		return this.text.charCodeAt(this.pos + 1) === SLASH && this.step(2, name, GREATER_THAN);
	}

	/** Steps over `<name/>` when it comes next. */
	private emptyElement(name: string): boolean {
		return (
			this.text.charCodeAt(this.pos + name.length + 2) === GREATER_THAN && this.step(1, name, SLASH)
		);
	}

	/** '<', `name` at `offset` from it, then `last`: steps past `last` when so. */
	private step(offset: number, name: string, last: number): boolean {
		const text = this.text;
		const at = this.pos;
		if (text.charCodeAt(at) !== LESS_THAN) return false;
		if (text.charCodeAt(at + offset + name.length) !== last) return false;
		if (!text.startsWith(name, at + offset)) return false;
		this.pos = at + offset + name.length + 1 + (last === SLASH ? 1 : 0);
		return true;
	}

	/** XML's own whitespace only: anything else between elements goes the general way. */
	private skipSpace(): void {
		const text = this.text;
		let pos = this.pos;
		for (;;) {
			const c = text.charCodeAt(pos);
			if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
			pos++;
		}
		this.pos = pos;
	}
}
