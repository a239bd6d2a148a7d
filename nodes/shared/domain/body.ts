import { XMLParser, XMLValidator } from 'fast-xml-parser';

export type WireFormat = 'json' | 'xml';

export interface ParsedBody {
	format: WireFormat;
	data: unknown;
	/** XML only: the name of the root element that `data` was unwrapped from. */
	root?: string;
}

/**
 * Decide the format by the body, not the Content-Type: some gateways ignore `Accept` or
 * mislabel their answers. Returns undefined for anything that is neither JSON nor XML.
 */
export function parseBody(text: string): ParsedBody | undefined {
	const trimmed = text.trim();
	try {
		if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
			return { format: 'json', data: parseJsonLossless(trimmed) };
		}
		if (trimmed.startsWith('<')) return parseXml(trimmed);
	} catch {
		return undefined;
	}
	return undefined;
}

// ---------------------------------------------------------------- JSON

/**
 * JSON.parse rounds integers beyond 2^53 (batch_id has up to 19 digits), and Node 20 cannot
 * see the source text from a reviver. So: a small parser that keeps such integers as strings
 * of their exact digits. Everything else comes out as JSON.parse would give it.
 */
export function parseJsonLossless(text: string): unknown {
	const reader = new JsonReader(text);
	const value = reader.value();
	reader.end();
	return value;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** Finds where a string ends; JSON.parse then rejects raw control characters and bad escapes. */
const STRING = /"(?:[^"\\]|\\.)*"/y;
const WHITESPACE = /[ \t\n\r]*/y;

class JsonReader {
	private pos = 0;

	constructor(private readonly text: string) {}

	value(): unknown {
		this.skipWhitespace();
		const c = this.text[this.pos];
		if (c === '{') return this.object();
		if (c === '[') return this.array();
		if (c === '"') return this.string();
		if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
		for (const [word, literal] of LITERALS) {
			if (this.text.startsWith(word, this.pos)) {
				this.pos += word.length;
				return literal;
			}
		}
		throw this.fail('a value');
	}

	end(): void {
		this.skipWhitespace();
		if (this.pos !== this.text.length) throw this.fail('end of input');
	}

	private object(): Record<string, unknown> {
		const result: Record<string, unknown> = {};
		this.pos++;
		if (this.consume('}')) return result;
		do {
			this.skipWhitespace();
			if (this.text[this.pos] !== '"') throw this.fail('a property name');
			const key = this.string();
			this.expect(':');
			// defineProperty so that a "__proto__" key stays data, never a prototype.
			Object.defineProperty(result, key, {
				value: this.value(),
				enumerable: true,
				writable: true,
				configurable: true,
			});
		} while (this.consume(','));
		this.expect('}');
		return result;
	}

	private array(): unknown[] {
		const result: unknown[] = [];
		this.pos++;
		if (this.consume(']')) return result;
		do result.push(this.value());
		while (this.consume(','));
		this.expect(']');
		return result;
	}

	private string(): string {
		// JSON.parse on the exact slice decodes escapes and validates; a string loses nothing.
		return JSON.parse(this.match(STRING, 'a string')) as string;
	}

	private number(): number | string {
		const literal = this.match(NUMBER, 'a number');
		const value = Number(literal);
		const isInteger = /^-?\d+$/.test(literal);
		return isInteger && !Number.isSafeInteger(value) ? literal : value;
	}

	private match(pattern: RegExp, what: string): string {
		pattern.lastIndex = this.pos;
		const found = pattern.exec(this.text);
		if (!found) throw this.fail(what);
		this.pos += found[0].length;
		return found[0];
	}

	private expect(char: string): void {
		if (!this.consume(char)) throw this.fail(`'${char}'`);
	}

	/** Skips whitespace, then steps over `char` if it comes next. */
	private consume(char: string): boolean {
		this.skipWhitespace();
		if (this.text[this.pos] !== char) return false;
		this.pos++;
		return true;
	}

	private skipWhitespace(): void {
		WHITESPACE.lastIndex = this.pos;
		WHITESPACE.exec(this.text);
		this.pos = WHITESPACE.lastIndex;
	}

	private fail(expected: string): SyntaxError {
		return new SyntaxError(`JSON: expected ${expected} at position ${this.pos}`);
	}
}

const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
	['true', true],
	['false', false],
	['null', null],
];

// ---------------------------------------------------------------- XML

/** Elements that are lists even when the service sends only one of them. */
const XML_LISTS = new Set(['delivery_report']);

function xmlParser(): XMLParser {
	return new XMLParser({
		ignoreAttributes: true,
		ignoreDeclaration: true,
		ignorePiTags: true,
		// An MSISDN or an id is text: `007` stays `007`, 19 digits stay 19 digits.
		parseTagValue: false,
		parseAttributeValue: false,
		trimValues: true,
		isArray: (name) => XML_LISTS.has(name),
	});
}

function parseXml(text: string): ParsedBody | undefined {
	// The service never declares a DTD; refusing one rules out entity-expansion tricks.
	if (/<!DOCTYPE/i.test(text)) return undefined;
	if (XMLValidator.validate(text) !== true) return undefined;
	const document: unknown = xmlParser().parse(text);
	if (!isRecord(document)) return undefined;
	const roots = Object.keys(document);
	if (roots.length !== 1) return undefined;
	const root = roots[0];
	return { format: 'xml', data: document[root], root };
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
