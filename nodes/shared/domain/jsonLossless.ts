/**
 * Lossless JSON: JSON.parse, with every integer literal beyond 2^53 kept as its exact digits.
 *
 * The trick: one scan over the text (hopping strings) notes the literals JSON.parse will round,
 * one JSON.parse reads the text, and the noted digits are put back walking the parsed value in
 * document order. The certain way (quoteIntegers: the literals quoted in the text, parsed again)
 * is taken whenever the walk could disagree with the text: keys JSON.parse reorders (a key
 * starting with a digit) or merges (a repeated key). Held equal to JSON.parse wherever no literal
 * is rounded, and exact wherever one is, by test/domain/body.property.test.ts ("lossless JSON:
 * properties", "lossless JSON: ≥ 10,000 generated status answers") and the member-order cases of
 * test/domain/body.test.ts. What it buys: a campaign-sized answer read exactly at a small
 * multiple of plain JSON.parse, which rounds the ids (docs/benchmarks.md, "Parsing").
 */
import { BodyError, MAX_NESTING } from './bodyError';
import { attempt } from './values';

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
