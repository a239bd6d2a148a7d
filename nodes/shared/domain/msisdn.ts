/**
 * Destinations as people paste them, normalised to what the service takes: international
 * format, digits only, no `+`, no leading 0 (E.164).
 */

export interface RejectedDestination {
	input: string;
	reason: string;
}

export interface Destinations {
	destinations: string[];
	rejected: RejectedDestination[];
	duplicates: number;
}

export interface DestinationOptions {
	/**
	 * Country calling code for numbers written nationally (`07700 900123`), e.g. `44`; any
	 * value an expression gives, checked by normaliseCountryCode.
	 */
	defaultCountryCode?: unknown;
}

/** E.164 allows at most 15 digits, country code included. */
export const MAX_MSISDN_DIGITS = 15;
/**
 * 8: shorter is almost always a truncated number. This excludes only a few tiny numbering
 * plans (e.g. Niue +683, Tokelau +690, 7 digits in all); change it here if those matter.
 */
export const MIN_MSISDN_DIGITS = 8;

/** Spaces, dashes, dots, parentheses and slashes are formatting, never part of a number. */
const FORMATTING = /[\s\-\u2010-\u2015.()/]/g;
/** Between entries: commas, semicolons and line breaks. Spaces are not (see splitEntry). */
const ENTRY_SEPARATOR = /[,;\r\n]+/;

type Parsed = { number: string } | { reason: string };

/** Digits only, no leading 0, MIN_MSISDN_DIGITS..MAX_MSISDN_DIGITS long: nothing to normalise. */
const FINAL_FORM = new RegExp(`^[1-9]\\d{${MIN_MSISDN_DIGITS - 1},${MAX_MSISDN_DIGITS - 1}}$`);

/**
 * Text is split into entries; a list gives one entry per element; any other value (from an
 * expression) is one entry. Every entry that is not empty ends up as a destination, a
 * duplicate or a rejected entry with a reason: nothing is dropped silently, and no value
 * a user can give raises a JavaScript error.
 */
export function parseDestinations(input: unknown, options: DestinationOptions = {}): Destinations {
	const countryCode = normaliseCountryCode(options.defaultCountryCode);
	const entries: readonly unknown[] =
		typeof input === 'string' ? input.split(ENTRY_SEPARATOR) : isList(input) ? input : [input];
	const result: Destinations = { destinations: [], rejected: [], duplicates: 0 };
	const seen = new Set<string>();
	for (const entry of entries) {
		for (const { text, parsed } of readEntry(entry, countryCode)) {
			if ('reason' in parsed) result.rejected.push({ input: text, reason: parsed.reason });
			else if (seen.has(parsed.number)) result.duplicates++;
			else {
				seen.add(parsed.number);
				result.destinations.push(parsed.number);
			}
		}
	}
	return result;
}

interface ReadEntry {
	text: string;
	parsed: Parsed;
}

function readEntry(entry: unknown, countryCode: string | undefined): ReadEntry[] {
	if (entry === undefined || entry === null) return [];
	if (typeof entry === 'number' || typeof entry === 'bigint') return [readNumber(entry)];
	if (typeof entry !== 'string') {
		const { text, kind } = describeValue(entry);
		return [{ text, parsed: { reason: `expected a phone number as text, got ${kind}` } }];
	}
	const text = entry.trim();
	if (text === '') return []; // `a,,b` or a trailing comma: nothing was meant
	// Most entries of a large campaign are already in the service's form: what normalise would
	// give them unchanged, without its regular expressions (a Send of 10^5 numbers).
	if (FINAL_FORM.test(text)) return [{ text, parsed: { number: text } }];
	return splitEntry(text, countryCode);
}

/**
 * One entry with spaces inside is one number (`+44 7700 900123`). The ambiguity rule: only
 * when the whole entry is NOT a valid number, and every space-separated piece IS a valid
 * number on its own (`447700900123 447700900456`), is it read as several numbers. Anything
 * else keeps the whole entry together and is judged (and perhaps rejected) as one.
 */
function splitEntry(text: string, countryCode: string | undefined): ReadEntry[] {
	const whole = normalise(text, countryCode);
	if ('number' in whole) return [{ text, parsed: whole }];
	const pieces = text.split(/\s+/);
	if (pieces.length < 2) return [{ text, parsed: whole }];
	const each = pieces.map((piece) => ({ text: piece, parsed: normalise(piece, countryCode) }));
	return each.every(({ parsed }) => 'number' in parsed) ? each : [{ text, parsed: whole }];
}

function readNumber(value: number | bigint): ReadEntry {
	const text = String(value);
	if (typeof value === 'number' && !Number.isSafeInteger(value) && Number.isInteger(value)) {
		const reason =
			'is a number too large to be exact (it was already rounded): pass phone numbers as text';
		return { text, parsed: { reason } };
	}
	if (!Number.isInteger(Number(value)) || value < 0) {
		return {
			text,
			parsed: { reason: 'is not a whole positive number: pass phone numbers as text' },
		};
	}
	return { text, parsed: normalise(text, undefined) };
}

function normalise(text: string, countryCode: string | undefined): Parsed {
	const compact = text.replace(FORMATTING, '');
	// `+44 (0)7700 900123`: the bracketed trunk 0 is dropped when dialling internationally.
	const stripped =
		/^(\+|00)/.test(compact) && text.includes('(0)')
			? text.replace(/\(0\)/g, '').replace(FORMATTING, '')
			: compact;
	const international = /^(?:\+|00)(.*)$/.exec(stripped);
	if (international) return checkInternational(international[1]);
	if (/^0/.test(stripped)) return national(stripped, countryCode);
	return checkDigits(stripped);
}

function checkInternational(rest: string): Parsed {
	if (rest === '')
		return { reason: 'has an international prefix (+ or 00) but no number after it' };
	if (rest.startsWith('0')) {
		return {
			reason: 'country codes never start with 0: write it as +CC… or 00CC… (e.g. +447700900123)',
		};
	}
	return checkDigits(rest);
}

function national(digits: string, countryCode: string | undefined): Parsed {
	if (countryCode === undefined) {
		return {
			reason:
				'national format: set a default country code or write it as +CC… (e.g. +447700900123)',
		};
	}
	return checkDigits(countryCode + digits.slice(1));
}

function checkDigits(digits: string): Parsed {
	if (FINAL_FORM.test(digits)) return { number: digits };
	if (digits.includes('+')) {
		return { reason: 'a "+" can only start a number: separate several numbers with commas' };
	}
	const foreign = digits.match(/\D/);
	if (foreign) {
		return {
			reason: `contains "${foreign[0]}": a phone number has only digits (and +, spaces, dashes, brackets)`,
		};
	}
	if (digits.length > MAX_MSISDN_DIGITS) {
		return {
			reason: `too long: ${digits.length} digits, an international number has at most ${MAX_MSISDN_DIGITS} (country code included); separate several numbers with commas`,
		};
	}
	if (digits.length < MIN_MSISDN_DIGITS) {
		return {
			reason: `too short: ${digits.length} digits, expected at least ${MIN_MSISDN_DIGITS} with the country code (e.g. 447700900123)`,
		};
	}
	return { number: digits };
}

/**
 * Accepts `44`, `+44` or `0044` (or the number 44 from an expression); anything else is a
 * configuration mistake, reported at once.
 */
function normaliseCountryCode(code: unknown): string | undefined {
	if (code === undefined || code === null) return undefined;
	const text = typeof code === 'string' || typeof code === 'number' ? String(code).trim() : '';
	if (typeof code === 'string' && text === '') return undefined;
	const digits = text.replace(/^(\+|00)/, '');
	if (!/^[1-9]\d{0,2}$/.test(digits)) {
		throw new Error(
			`Default country code "${describeValue(code).text}" is not a country calling code: use 1 to 3 digits, e.g. 44`,
		);
	}
	return digits;
}

/** Array.isArray, except that it cannot throw (it does on a revoked Proxy). */
function isList(value: unknown): value is readonly unknown[] {
	try {
		return Array.isArray(value);
	} catch {
		return false;
	}
}

/**
 * What a value that is not text is, in words, and a short text to show it by. String() is not
 * used on it: it throws for a symbol in a template, an object without a prototype, or one
 * whose toString throws.
 */
function describeValue(value: unknown): { text: string; kind: string } {
	switch (typeof value) {
		case 'string':
			return { text: excerpt(value), kind: 'text' };
		case 'number':
		case 'bigint':
			return { text: String(value), kind: 'a number' };
		case 'boolean':
			return { text: String(value), kind: 'true or false' };
		case 'symbol':
			return { text: 'a symbol', kind: 'a symbol' };
		case 'function':
			return { text: 'a function', kind: 'a function' };
		case 'undefined':
			return { text: 'undefined', kind: 'nothing' };
	}
	if (value === null) return { text: 'null', kind: 'nothing' };
	if (isList(value)) return { text: asJson(value, 'a list'), kind: 'a list' };
	if (isDate(value)) return { text: asJson(value, 'a date'), kind: 'a date' };
	return { text: asJson(value, 'an object'), kind: 'an object' };
}

function isDate(value: unknown): boolean {
	try {
		return Object.prototype.toString.call(value) === '[object Date]';
	} catch {
		return false;
	}
}

/** JSON, shortened; `fallback` when the value has none (a cycle, a BigInt, a throwing getter). */
function asJson(value: unknown, fallback: string): string {
	try {
		const json = JSON.stringify(value);
		return typeof json === 'string' ? excerpt(json) : fallback;
	} catch {
		return fallback;
	}
}

function excerpt(text: string): string {
	return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
