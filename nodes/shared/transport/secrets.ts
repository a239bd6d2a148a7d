/**
 * Blanks the account's secrets out of any text that leaves the transport. Pure: no n8n imports.
 *
 * Why the text is read rather than the secret's forms listed: a gateway may echo the password
 * raw, percent-encoded (either hex case, `+` for a space), JSON-escaped (`\"`, `\/`, `\uXXXX`
 * for every character or only some, either case), as HTML entities, or in any mix of these.
 * A list of forms misses the next gateway's. So the text is read as a chain of characters,
 * each written either as itself or as one escape, and every position offers each reading it
 * allows (`+` is a plus or a space; `%41` is "%41" or "A"). The secret is looked for along
 * every reading, so any per-character escaping below, however mixed, in any case, is found.
 * A line break between two characters (a gateway wrapping a long line), raw or escaped, and the
 * indent after it, read as nothing. What is not per-character (base64 of user:password, the
 * Basic token, the hex of the password's bytes) is generated instead.
 */

const BLANK = '***';

/** What a secret is replaced with, and the secrets of one account (see `secretsOf`). */
export interface AccountSecrets {
	username?: unknown;
	password?: unknown;
	/** The credential's Base URL: a password in its `user:password@` part is a secret too. */
	baseUrl?: unknown;
}

/**
 * Hex of fewer bytes is too short to tell from ordinary numbers: "31323334" could be a count,
 * "3132" a year. Four bytes give eight digits, as unlikely by chance as an eight-character
 * password; a password shorter than that is not looked for in hex.
 */
const MIN_HEX_BYTES = 4;

/**
 * The texts that must never leave: the password (any escaping of it is found by reading),
 * the password of a `user:password@` Base URL, the base64 forms of `user:password`
 * (standard and URL-safe; without padding, so a padded token is blanked too), and the hex of
 * the password's bytes in either case (the hex of `user:password` holds it).
 */
export function secretsOf({ username, password, baseUrl }: AccountSecrets): string[] {
	const secrets = new Set<string>();
	const secret = String(password ?? '');
	if (secret !== '') {
		secrets.add(secret);
		for (const plain of [`${String(username ?? '')}:${secret}`, secret]) {
			const base64 = Buffer.from(plain, 'utf8').toString('base64').replace(/=+$/, '');
			secrets.add(base64);
			secrets.add(base64.replace(/\+/g, '-').replace(/\//g, '_'));
		}
		const bytes = Buffer.from(secret, 'utf8');
		if (bytes.length >= MIN_HEX_BYTES) {
			secrets.add(bytes.toString('hex'));
			secrets.add(bytes.toString('hex').toUpperCase());
		}
	}
	const urlPassword = userinfoPassword(String(baseUrl ?? ''));
	if (urlPassword !== '') secrets.add(urlPassword);
	// Longest first, so that a longer secret is blanked whole rather than around a shorter one.
	return [...secrets].sort((a, b) => b.length - a.length);
}

/**
 * Up to the last `@`: a password typed raw into a URL may hold `/`, `?` or `#`, and must not
 * be cut short at one.
 */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)?([^]*)@/i;

/** The password part of `scheme://user:password@host`, decoded; '' when there is none. */
function userinfoPassword(url: string): string {
	const userinfo = USERINFO.exec(url)?.[2];
	const colon = userinfo?.indexOf(':') ?? -1;
	if (userinfo === undefined || colon < 0) return '';
	const password = userinfo.slice(colon + 1);
	try {
		return decodeURIComponent(password);
	} catch {
		return password;
	}
}

/** A URL as it may be shown: any `user:password@` part replaced by `***@`, even when malformed. */
export function withoutUserinfo(url: string): string {
	return url.replace(USERINFO, (_all, scheme = '') => `${scheme}${BLANK}@`);
}

/** The text with every reading of every secret replaced by `***`. */
export function blankSecrets(text: string, secrets: readonly string[]): string {
	const wanted = secrets.filter((secret) => secret !== '');
	if (wanted.length === 0 || text === '') return text;
	const firsts = new Set([
		PLUS,
		PERCENT,
		BACKSLASH,
		AMPERSAND,
		...wanted.map((s) => s.charCodeAt(0)),
	]);
	const spans: Array<[number, number]> = [];
	for (let start = 0; start < text.length; start++) {
		// Cheap test first: a reading starts with the secret's first character or an escape.
		if (!firsts.has(text.charCodeAt(start))) continue;
		let end = -1;
		for (const secret of wanted) end = Math.max(end, readingEnd(text, start, secret));
		if (end > start) spans.push([start, end]);
	}
	return replaceSpans(text, spans);
}

const PLUS = 0x2b;
const PERCENT = 0x25;
const BACKSLASH = 0x5c;
const AMPERSAND = 0x26;

/**
 * Where the longest reading of `secret` that starts at `start` ends, or -1. A search over
 * (position in text, characters of the secret matched, inside a line break), each state
 * visited once. Once a character is matched, a line break (CR or LF in any reading) reads as
 * nothing, and so do the spaces and tabs after it.
 */
function readingEnd(text: string, start: number, secret: string): number {
	let end = -1;
	const seen = new Set<number>();
	const pending: Array<[number, number, boolean]> = [[start, 0, false]];
	const visit = (at: number, matched: number, inBreak: boolean) => {
		const state = (at * (secret.length + 1) + matched) * 2 + (inBreak ? 1 : 0);
		if (seen.has(state)) return;
		seen.add(state);
		pending.push([at, matched, inBreak]);
	};
	for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
		const [at, matched, inBreak] = next;
		for (const [length, read] of readingsAt(text, at)) {
			const to = at + length;
			if (secret.startsWith(read, matched)) {
				const now = matched + read.length;
				if (now === secret.length) end = Math.max(end, to);
				else visit(to, now, false);
			}
			if (matched > 0 && (LINE_BREAK.has(read) || (inBreak && INDENT.has(read)))) {
				visit(to, matched, true);
			}
		}
	}
	return end;
}

const LINE_BREAK = new Set(['\n', '\r']);
const INDENT = new Set([' ', '\t']);

type Reading = [length: number, read: string];

/** Each way the text at `at` can be read as one character: itself, and any escape there. */
function readingsAt(text: string, at: number): Reading[] {
	if (at >= text.length) return [];
	const readings: Reading[] = [[1, text[at]]];
	const code = text.charCodeAt(at);
	if (code === PLUS) readings.push([1, ' ']);
	else if (code === PERCENT) pushIf(readings, percentEscape(text, at));
	else if (code === BACKSLASH) pushIf(readings, backslashEscape(text, at));
	else if (code === AMPERSAND) pushIf(readings, htmlEntity(text, at));
	return readings;
}

function pushIf(readings: Reading[], reading: Reading | undefined): void {
	if (reading) readings.push(reading);
}

const HEX2 = /^[0-9a-f]{2}$/i;
const HEX4 = /^[0-9a-f]{4}$/i;

/** `%XX`, or the `%XX%XX…` of one UTF-8 encoded character. */
function percentEscape(text: string, at: number): Reading | undefined {
	const byteAt = (i: number) => {
		const hex = text.slice(i + 1, i + 3);
		return text[i] === '%' && HEX2.test(hex) ? parseInt(hex, 16) : -1;
	};
	const lead = byteAt(at);
	if (lead < 0) return undefined;
	const extra = lead < 0x80 ? 0 : lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : -1;
	if (extra < 0) return undefined;
	let codePoint = extra === 0 ? lead : lead & (0x3f >> extra);
	for (let i = 1; i <= extra; i++) {
		const byte = byteAt(at + 3 * i);
		if (byte < 0x80 || byte > 0xbf) return undefined;
		codePoint = (codePoint << 6) | (byte & 0x3f);
	}
	return codePoint > 0x10ffff ? undefined : [3 * (extra + 1), String.fromCodePoint(codePoint)];
}

const SIMPLE_ESCAPES: Record<string, string> = {
	'"': '"',
	"'": "'",
	'/': '/',
	'\\': '\\',
	n: '\n',
	r: '\r',
	t: '\t',
	b: '\b',
	f: '\f',
};

/** JSON and JavaScript escapes: `\"`, `\/`, `\n`…, `\uXXXX` (one UTF-16 unit), `\xXX`. */
function backslashEscape(text: string, at: number): Reading | undefined {
	const kind = text[at + 1];
	if (kind !== undefined && kind in SIMPLE_ESCAPES) return [2, SIMPLE_ESCAPES[kind]];
	const pattern = kind === 'u' ? HEX4 : kind === 'x' ? HEX2 : undefined;
	const hex = text.slice(at + 2, at + (kind === 'u' ? 6 : 4));
	if (pattern === undefined || !pattern.test(hex)) return undefined;
	return [2 + hex.length, String.fromCharCode(parseInt(hex, 16))];
}

const NAMED_ENTITIES: Record<string, string> = {
	amp: '&',
	lt: '<',
	gt: '>',
	quot: '"',
	apos: "'",
	sol: '/',
	bsol: '\\',
	colon: ':',
	plus: '+',
	equals: '=',
	percnt: '%',
	num: '#',
	excl: '!',
	quest: '?',
	commat: '@',
	nbsp: '\u00a0',
};

/** `&#NN;`, `&#xHH;` (either case, up to 8 digits) and the common named entities. */
function htmlEntity(text: string, at: number): Reading | undefined {
	const entity = /^&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,8})|([a-zA-Z]{2,6}));/.exec(
		text.slice(at, at + 12),
	);
	if (!entity) return undefined;
	const [whole, decimal, hex, name] = entity;
	if (name !== undefined) {
		const read = NAMED_ENTITIES[name.toLowerCase()];
		return read === undefined ? undefined : [whole.length, read];
	}
	const codePoint = decimal !== undefined ? parseInt(decimal, 10) : parseInt(hex, 16);
	return codePoint > 0x10ffff ? undefined : [whole.length, String.fromCodePoint(codePoint)];
}

/** Replaces each span (merged where they overlap) by the blank. */
function replaceSpans(text: string, spans: Array<[number, number]>): string {
	if (spans.length === 0) return text;
	let result = '';
	let copied = 0;
	for (const [start, end] of spans) {
		if (end <= copied) continue;
		result += text.slice(copied, Math.max(start, copied));
		if (start >= copied) result += BLANK;
		copied = end;
	}
	return result + text.slice(copied);
}
