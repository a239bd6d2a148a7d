import { parseBody, parseXmlDocument } from '../../nodes/shared/domain/body';
import { BodyError } from '../../nodes/shared/domain/bodyError';
import { parseJsonLossless } from '../../nodes/shared/domain/jsonLossless';

describe('parseBody: JSON is lossless', () => {
	it.each([
		[
			'unsafe integer stays exact',
			'{"batch_id":9007199254740993}',
			{ batch_id: '9007199254740993' },
		],
		['19-digit id', '{"batch_id":1234567890123456789}', { batch_id: '1234567890123456789' }],
		['20-digit id', '{"id":18446744073709551615}', { id: '18446744073709551615' }],
		['negative unsafe integer', '{"n":-9007199254740993}', { n: '-9007199254740993' }],
		['largest safe integer stays a number', '{"n":9007199254740991}', { n: 9007199254740991 }],
		[
			'small ints and floats stay numbers',
			'{"a":0,"b":-3,"c":1.5,"d":2e3}',
			{ a: 0, b: -3, c: 1.5, d: 2000 },
		],
		[
			'a float with many digits stays a number',
			'{"f":12345678901234567890.5}',
			{ f: Number('12345678901234567890.5') },
		],
		['digits inside strings are untouched', '{"s":"9007199254740993"}', { s: '9007199254740993' }],
		[
			'escaped quotes do not end a string',
			'{"s":"say \\"9007199254740993\\", ok"}',
			{ s: 'say "9007199254740993", ok' },
		],
		['escapes are decoded', '{"s":"a\\\\b\\n\\u00e9"}', { s: 'a\\b\né' }],
		[
			'nested arrays and literals',
			'[1, [true, false, null], {"x": []}]',
			[1, [true, false, null], { x: [] }],
		],
		['whitespace around', '  \n{ "a" : 1 }\n ', { a: 1 }],
		[
			'reports list',
			'{"reports":[{"batch_id":9223372036854775807,"msisdn":"447700900123"}]}',
			{ reports: [{ batch_id: '9223372036854775807', msisdn: '447700900123' }] },
		],
	])('%s', (_name, text, expected) => {
		expect(parseBody(text)).toEqual({ format: 'json', data: expected });
	});

	it('keeps a "__proto__" key as data, never as a prototype', () => {
		const data = parseJsonLossless('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
		expect(Object.keys(data)).toEqual(['__proto__']);
		expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});

describe('parseBody: XML', () => {
	const send =
		'<?xml version="1.0" encoding="UTF-8"?>\n<sms_send><accepted>true</accepted>' +
		'<batch_id>9007199254740993</batch_id><batch_size>2</batch_size>' +
		'<receive_updates>false</receive_updates><remaining_credits>98</remaining_credits></sms_send>';
	const report = (msisdn: string) =>
		`<delivery_report><msisdn>${msisdn}</msisdn><delivery_date>260329023000</delivery_date>` +
		'<network_id>12</network_id><status>DELIVRD</status><batch_id>1234567890123456789</batch_id>' +
		'<gateway_session_id>98765432109876543210</gateway_session_id></delivery_report>';
	const reportData = (msisdn: string) => ({
		msisdn,
		delivery_date: '260329023000',
		network_id: '12',
		status: 'DELIVRD',
		batch_id: '1234567890123456789',
		gateway_session_id: '98765432109876543210',
	});
	const status = (inner: string) => `<sms_get_status><reports>${inner}</reports></sms_get_status>`;

	it.each([
		[
			'send: root unwrapped, all text, declaration ignored',
			send,
			'sms_send',
			{
				accepted: 'true',
				batch_id: '9007199254740993',
				batch_size: '2',
				receive_updates: 'false',
				remaining_credits: '98',
			},
		],
		[
			'one report is still a list',
			status(report('447700900123')),
			'sms_get_status',
			{ reports: { delivery_report: [reportData('447700900123')] } },
		],
		[
			'many reports',
			status(report('447700900123') + report('447700900456')),
			'sms_get_status',
			{ reports: { delivery_report: [reportData('447700900123'), reportData('447700900456')] } },
		],
		[
			'leading zeros are kept',
			status(report('0070')),
			'sms_get_status',
			{ reports: { delivery_report: [reportData('0070')] } },
		],
		[
			'empty <reports/>',
			'<sms_get_status><reports/></sms_get_status>',
			'sms_get_status',
			{ reports: '' },
		],
		['empty <reports></reports>', status(''), 'sms_get_status', { reports: '' }],
		[
			'standard entities are decoded',
			'<sms_send><error>a &amp; b &lt;c&gt;</error></sms_send>',
			'sms_send',
			{ error: 'a & b <c>' },
		],
		[
			'"1e3" and "007" are not numbers',
			'<r><a>1e3</a><b>007</b><c>true</c></r>',
			'r',
			{ a: '1e3', b: '007', c: 'true' },
		],
	])('%s', (_name, text, root, expected) => {
		expect(parseBody(text)).toEqual({ format: 'xml', data: expected, root });
	});
});

describe('parseBody: not JSON nor XML gives undefined', () => {
	it.each([
		['empty', ''],
		['plain text', 'Service Unavailable'],
		['HTML-ish but malformed', '<html><body>oops</html>'],
		['truncated JSON', '{"batch_id": 1234'],
		['JSON with trailing garbage', '{"a":1} x'],
		['JSON with a trailing comma', '{"a":1,}'],
		['single-quoted JSON', "{'a':1}"],
		['raw control character in a JSON string', '{"a":"x\ty"}'],
		['XML with a DTD', '<!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>'],
		['number alone', '42'],
	])('%s', (_name, text) => {
		expect(parseBody(text)).toBeUndefined();
	});
});

describe('parseXmlDocument: roots', () => {
	it('a lone <delivery_report> root is still a list (callbacks)', () => {
		expect(
			parseXmlDocument(
				'<delivery_report><msisdn>1</msisdn><status>DELIVRD</status></delivery_report>',
			),
		).toEqual({ root: 'delivery_report', data: [{ msisdn: '1', status: 'DELIVRD' }] });
	});

	it('two roots of another name are refused', () => {
		expect(() => parseXmlDocument('<sms_send/><sms_send/>')).toThrow(
			new BodyError('it is XML without a single root element'),
		);
	});
});

describe('parseJsonLossless: where JSON.parse changes the order of members', () => {
	it.each([
		[
			'a repeated key keeps its last value, ids exact',
			'{"a":1,"b":9007199254740993,"a":9007199254740995}',
			{ a: '9007199254740995', b: '9007199254740993' },
		],
		[
			'a repeated key whose first value was the id',
			'{"a":9007199254740993,"a":1,"b":9007199254740995}',
			{ a: 1, b: '9007199254740995' },
		],
		[
			'index-like keys come first in JSON.parse, ids stay with their keys',
			'{"b":9007199254740993,"1":9007199254740995,"0":12345678901234567890}',
			{ b: '9007199254740993', 1: '9007199254740995', 0: '12345678901234567890' },
		],
		[
			'a large fraction and an exponent stay numbers beside an id',
			'[1e20,9007199254740993,12345678901234567.5,-9007199254740993]',
			[1e20, '9007199254740993', Number('12345678901234567.5'), '-9007199254740993'],
		],
		['a lone id', '12345678901234567890', '12345678901234567890'],
	])('%s', (_name, text, expected) => {
		expect(parseJsonLossless(text)).toEqual(expected);
	});

	it('stays exact when something made Object.prototype enumerable members', () => {
		Object.defineProperty(Object.prototype, 'polluted', {
			value: 1,
			enumerable: true,
			configurable: true,
		});
		try {
			expect(parseJsonLossless('{"a":{"id":9007199254740993},"b":9007199254740995}')).toEqual({
				a: { id: '9007199254740993' },
				b: '9007199254740995',
			});
		} finally {
			delete (Object.prototype as Record<string, unknown>).polluted;
		}
	});
});
