/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Property and differential tests of body parsing, seeded and bounded (fast-check).
 * - lossless JSON (jsonLossless.ts) agrees with JSON.parse on every document without unsafe
 *   integers, and keeps every integer literal beyond 2^53 as its exact digits, wherever it stands;
 * - the flat XML scanner (xmlFlat.ts) agrees with the validated fast-xml-parser path
 *   (xmlGeneral.ts) on every answer it takes, and takes every plain answer of the service's shape.
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';

import { parseXmlDocument } from '../../nodes/shared/domain/body';
import { parseJsonLossless } from '../../nodes/shared/domain/jsonLossless';
import { readFlatXml } from '../../nodes/shared/domain/xmlFlat';
import { readXmlGeneral } from '../../nodes/shared/domain/xmlGeneral';

const SEED = 20261123;

/** expect(...).toStrictEqual, with Node's quicker comparison first: these run 10,000 times. */
function expectSame(actual: unknown, expected: unknown): void {
	if (!isDeepStrictEqual(actual, expected)) expect(actual).toStrictEqual(expected);
}
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A piece of JSON text and the value the lossless parser must give for it. */
interface Piece {
	text: string;
	value: unknown;
}

const space = fc.constantFrom('', '', ' ', '\n', '\t', '\r\n  ');

/** Integers around every edge: small, 2^53 ± a few, 16 to 19 digits, beyond 19 digits. */
const integer = fc
	.tuple(
		fc.oneof(
			fc.bigInt(0n, 1000n),
			fc.bigInt(MAX_SAFE - 5n, MAX_SAFE + 5n),
			fc.bigInt(10n ** 15n, 10n ** 16n),
			fc.bigInt(10n ** 16n, 10n ** 19n - 1n),
			fc.bigInt(10n ** 19n, 10n ** 30n),
		),
		fc.boolean(),
	)
	.map(([magnitude, negative]): Piece => {
		const n = negative ? -magnitude : magnitude;
		const text = n.toString();
		const safe = n <= MAX_SAFE && n >= -MAX_SAFE;
		return { text, value: safe ? Number(text) : text };
	});

/** Numbers that are not integer literals stay numbers, however large. */
const otherNumber = fc
	.oneof(
		fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
		fc.constantFrom(
			'1e20',
			'1E+25',
			'-2.5e30',
			'9007199254740993.0',
			'12345678901234567890.5',
			'1e400',
			'0.0000000000000001',
			'-0',
		),
	)
	// JSON.stringify writes 1e20 as 100000000000000000000: an integer literal, read as an id.
	.filter((text) => !/^-?\d{16,}$/.test(text))
	.map((text): Piece => ({ text, value: JSON.parse(text) as number }));

/** One way of writing a string: plain, \uXXXX for chosen characters, '\/' for '/'. */
function writeString(value: string, escapeEvery: number): string {
	const plain = JSON.stringify(value);
	if (escapeEvery === 0) return plain;
	let out = '"';
	let index = 0;
	for (const unit of value.split('')) {
		const code = unit.charCodeAt(0);
		if (index++ % escapeEvery === 0 || code > 126) {
			out += `\\u${code.toString(16).padStart(4, '0')}`;
		} else if (unit === '/') {
			out += '\\/';
		} else {
			out += JSON.stringify(unit).slice(1, -1);
		}
	}
	return `${out}"`;
}

const stringValue = fc.oneof(
	fc.string({ unit: 'binary', maxLength: 12 }),
	// Digits, quotes and escapes inside strings must stay untouched.
	fc.bigInt(10n ** 15n, 10n ** 25n).map((n) => n.toString()),
	fc.bigInt(10n ** 15n, 10n ** 25n).map((n) => `say "${n}", :${n}, [${n}]\\`),
	fc.constantFrom('', '\\', '\\\\', '"', '\\"', 'a/b', '\u2028', '😀', '__proto__'),
);

const stringPiece = fc
	.tuple(stringValue, fc.constantFrom(0, 0, 1, 3))
	.map(([value, every]): Piece => ({ text: writeString(value, every), value }));

const leaf: fc.Arbitrary<Piece> = fc.oneof(
	integer,
	otherNumber,
	stringPiece,
	fc.constantFrom<Piece>(
		{ text: 'true', value: true },
		{ text: 'false', value: false },
		{ text: 'null', value: null },
	),
);

const key = fc.oneof(
	fc.string({ unit: 'binary', maxLength: 6 }),
	fc.constantFrom('batch_id', '__proto__', 'constructor', '1', '0', '10', '2x'),
);

const { piece } = fc.letrec<{ piece: Piece; list: Piece; object: Piece }>((tie) => ({
	piece: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('list'), tie('object')),
	list: fc.tuple(fc.array(fc.tuple(tie('piece'), space, space), { maxLength: 5 }), space).map(
		([items, inner]): Piece => ({
			text: `[${inner}${items.map(([item, a, b]) => `${a}${item.text}${b}`).join(',')}]`,
			value: items.map(([item]) => item.value),
		}),
	),
	object: fc
		.tuple(fc.array(fc.tuple(key, tie('piece'), space), { maxLength: 5 }), space)
		.map(([members, inner]): Piece => {
			const value: Record<string, unknown> = {};
			// A repeated key keeps its last value, as in JSON.parse.
			for (const [name, member] of members) {
				Object.defineProperty(value, name, {
					value: member.value,
					enumerable: true,
					writable: true,
					configurable: true,
				});
			}
			const text = members
				.map(([name, member, gap]) => `${gap}${JSON.stringify(name)}${gap}:${gap}${member.text}`)
				.join(',');
			return { text: `{${text}${inner}}`, value };
		}),
}));

describe('lossless JSON: properties', () => {
	it('agrees with JSON.parse on every document without unsafe integers', () => {
		const withoutUnsafeIntegers = (value: unknown): unknown => {
			if (typeof value === 'number') {
				return Number.isInteger(value) && !Number.isSafeInteger(value) ? 0 : value;
			}
			if (Array.isArray(value)) return value.map(withoutUnsafeIntegers);
			if (typeof value === 'object' && value !== null) {
				const out: Record<string, unknown> = {};
				for (const [name, member] of Object.entries(value)) {
					Object.defineProperty(out, name, {
						value: withoutUnsafeIntegers(member),
						enumerable: true,
						writable: true,
						configurable: true,
					});
				}
				return out;
			}
			return value;
		};
		fc.assert(
			fc.property(
				fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 }).map(withoutUnsafeIntegers),
				fc.constantFrom(undefined, 2, '\t'),
				(value, indent) => {
					const text = JSON.stringify(value, null, indent);
					expectSame(parseJsonLossless(text), JSON.parse(text));
				},
			),
			{ seed: SEED, numRuns: 3000 },
		);
	});

	it('keeps every integer exact and everything else as JSON.parse gives it', () => {
		fc.assert(
			fc.property(piece, space, space, ({ text, value }, before, after) => {
				expectSame(parseJsonLossless(`${before}${text}${after}`), value);
			}),
			{ seed: SEED, numRuns: 5000 },
		);
	});
});

// ---------------------------------------------------------------- status answers

const STATUSES = ['DELIVRD', 'ENROUTE', 'UNDELIV', 'delivrd', 'REJECTD'];

interface Report {
	batchId: bigint;
	session: bigint;
	msisdn: string;
	status: string;
	network: number;
	date: string;
}

const report: fc.Arbitrary<Report> = fc.record({
	batchId: fc.oneof(fc.bigInt(1n, 10n ** 19n - 1n), fc.bigInt(10n ** 18n, 10n ** 19n - 1n)),
	session: fc.oneof(fc.bigInt(0n, 10n ** 12n), fc.bigInt(10n ** 15n, 10n ** 24n)),
	msisdn: fc.stringMatching(/^0{0,2}[1-9]\d{6,14}$/),
	status: fc.constantFrom(...STATUSES),
	network: fc.integer({ min: 0, max: 99999 }),
	date: fc.constantFrom('', '2026-03-29 02:30:00.0', '260329023000'),
});

/** What either parser must give for an id written as bare digits. */
const exactId = (n: bigint): unknown => (n <= MAX_SAFE ? Number(n) : n.toString());

describe('lossless JSON: ≥ 10,000 generated status answers', () => {
	it('every id exact, digits inside strings untouched, all else as JSON.parse', () => {
		fc.assert(
			fc.property(fc.array(report, { maxLength: 6 }), space, (reports, gap) => {
				const text =
					`{${gap}"reports":${gap}[` +
					reports
						.map(
							(r) =>
								`{"batch_id":${gap}${r.batchId},"msisdn":"${r.msisdn}","status":"${r.status}",` +
								`"network_id":${r.network},${gap}"gateway_session_id":${r.session},` +
								`"delivery_date":"${r.date}","note":"id ${r.batchId}, next: ${r.session}"}`,
						)
						.join(`,${gap}`) +
					`]${gap}}`;
				expectSame(parseJsonLossless(text), {
					reports: reports.map((r) => ({
						batch_id: exactId(r.batchId),
						msisdn: r.msisdn,
						status: r.status,
						network_id: r.network,
						gateway_session_id: exactId(r.session),
						delivery_date: r.date,
						note: `id ${r.batchId}, next: ${r.session}`,
					})),
				});
			}),
			{ seed: SEED, numRuns: 10_000 },
		);
	});
});

// ---------------------------------------------------------------- XML

/** Text as XML writes it: the five predefined entities, sometimes; raw '>' and quotes too. */
function xmlText(value: string, style: number): string {
	const escaped = value.replace(/&/g, '&amp;').replace(/</g, '&lt;');
	if (style === 0) return escaped;
	return escaped.replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Things outside the flat shape: the scanner must give way, never a different result. */
const DOUBTS = [
	(xml: string) => xml.replace('<status>', '<status code="1">'),
	(xml: string) => xml.replace('<msisdn>', '<!-- note --><msisdn>'),
	(xml: string) => xml.replace(/<status>([^<]*)<\/status>/, '<status><![CDATA[$1]]></status>'),
	(xml: string) => xml.replace('</delivery_report>', '<extra>1</extra></delivery_report>'),
	(xml: string) => xml.replace(/(<network_id>[^<]*<\/network_id>)/, '$1$1'),
	(xml: string) => xml.replace('<msisdn>', '<msisdn><b>x</b>'),
	(xml: string) => xml.replace('<delivery_report>', '<delivery_report>text'),
	(xml: string) => xml.replace('</status>', '</status >'),
	(xml: string) => xml.replace('<status>', '<status>&#65;&nbsp;'),
	(xml: string) => xml.replace('<reports>', '<reports><reports>'),
	(xml: string) => `<!DOCTYPE r [<!ENTITY x "y">]>${xml}`,
	(xml: string) => xml.replace(/^<\?xml[^>]*>/, "<?xml version='1.0'?>"),
	(xml: string) => `${xml}<!-- trailing -->`,
	(xml: string) => xml.replace('sms_get_status>', 'SMS_get_status>'),
	(xml: string) => xml.replace('</msisdn>', ''),
	(xml: string) => xml.replace('<status>', '<status>a & b'),
	(xml: string) => xml.replace('<status>', '<status>a\r\nb\rc'),
];

interface XmlCase {
	text: string;
	/** Plain service shape: the scanner must take it. */
	plain: boolean;
	reports: Report[];
}

const valueText = fc.oneof(
	fc.constantFrom(...STATUSES),
	// A line break inside a value is fast-xml-parser's to normalise: a doubt, tested below.
	fc.string({ unit: 'binary', maxLength: 8 }).map((text) => text.replace(/\r/g, '')),
	fc.constantFrom('a & b', '<c>', '"q"', "'a'", 'x > y', ' \u00a0pad\u00a0 ', 'é😀'),
);

const xmlCase: fc.Arbitrary<XmlCase> = fc
	.record({
		reports: fc.array(fc.tuple(report, valueText), { maxLength: 4 }),
		declaration: fc.constantFrom(
			'',
			'<?xml version="1.0"?>',
			'<?xml version="1.0" encoding="UTF-8"?>\n',
		),
		gap: space,
		pad: fc.constantFrom('', ' ', '\n  ', '\t'),
		style: fc.constantFrom(0, 1),
		empty: fc.constantFrom('<reports/>', '<reports></reports>', '<reports> </reports>', ''),
		selfClosingDate: fc.boolean(),
		doubt: fc.oneof(
			{ arbitrary: fc.constant(null), weight: 9 },
			{ arbitrary: fc.integer({ min: 0, max: DOUBTS.length - 1 }), weight: 1 },
		),
	})
	.map(({ reports, declaration, gap, pad, style, empty, selfClosingDate, doubt }) => {
		const field = (name: string, value: string) =>
			selfClosingDate && name === 'delivery_date' && value === ''
				? `<${name}/>`
				: `<${name}>${pad}${xmlText(value, style)}${pad}</${name}>`;
		const body = reports
			.map(
				([r, status]) =>
					`${gap}<delivery_report>${gap}${field('msisdn', r.msisdn)}${gap}` +
					`${field('delivery_date', r.date)}${field('network_id', String(r.network))}` +
					`${gap}${field('status', status)}${field('batch_id', String(r.batchId))}` +
					`${field('gateway_session_id', String(r.session))}${gap}</delivery_report>`,
			)
			.join('');
		const reportsElement = reports.length === 0 ? empty : `<reports>${body}${gap}</reports>`;
		const plain = `${declaration}<sms_get_status>${gap}${reportsElement}${gap}</sms_get_status>${gap}`;
		const text = doubt === null ? plain : DOUBTS[doubt](plain);
		return {
			text,
			plain: doubt === null,
			reports: reports.map(([r, status]) => ({ ...r, status })),
		};
	});

const sendCase = fc
	.record({
		accepted: fc.boolean(),
		batchId: fc.bigInt(1n, 10n ** 19n - 1n),
		error: valueText,
		gap: space,
		doubt: fc.option(fc.constantFrom(...DOUBTS.slice(10)), { freq: 4 }),
	})
	.map(({ accepted, batchId, error, gap, doubt }) => {
		const fields = accepted
			? `<accepted>true</accepted>${gap}<batch_id>${batchId}</batch_id><batch_size>2</batch_size>`
			: `<accepted>false</accepted><error>${xmlText(error, 1)}</error>${gap}<batch_size>0</batch_size>`;
		const plain = `<sms_send>${gap}${fields}<receive_updates>false</receive_updates>${gap}</sms_send>`;
		return { text: doubt === null ? plain : doubt(plain), plain: doubt === null };
	});

/** What a parser gave: the document, or the words of its refusal. */
function outcome(read: () => unknown): unknown {
	try {
		return { document: read() };
	} catch (error) {
		return { refused: (error as Error).message };
	}
}

describe('flat XML scanner: ≥ 10,000 generated answers against fast-xml-parser', () => {
	it('status answers: same result whenever it answers, and it answers every plain one', () => {
		let scanned = 0;
		fc.assert(
			fc.property(xmlCase, ({ text, plain, reports }) => {
				const general = outcome(() => readXmlGeneral(text.trim()));
				const flat = readFlatXml(text.trim());
				if (plain) expect(flat).toBeDefined();
				if (flat !== undefined) {
					scanned++;
					expectSame({ document: flat }, general);
				} else {
					expectSame(
						outcome(() => parseXmlDocument(text)),
						general,
					);
				}
				if (plain && reports.length > 0) {
					// One report is still a list; every value is trimmed text, ids exact.
					const list = (flat?.data as { reports: { delivery_report: unknown[] } }).reports
						.delivery_report;
					expect(list).toHaveLength(reports.length);
					expect(list.map((r) => (r as Record<string, string>).batch_id)).toEqual(
						reports.map((r) => String(r.batchId)),
					);
				}
			}),
			{ seed: SEED, numRuns: 11_000 },
		);
		expect(scanned).toBeGreaterThanOrEqual(10_000);
	});

	it('send answers: same result whenever it answers', () => {
		fc.assert(
			fc.property(sendCase, ({ text, plain }) => {
				const general = outcome(() => readXmlGeneral(text));
				const flat = readFlatXml(text);
				if (plain) expect(flat).toBeDefined();
				if (flat !== undefined) expectSame({ document: flat }, general);
				expectSame(
					outcome(() => parseXmlDocument(text)),
					general,
				);
			}),
			{ seed: SEED, numRuns: 2_000 },
		);
	});
});
