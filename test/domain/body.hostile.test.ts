/**
 * Hostile bodies: each is read or refused with a sentence saying what it is, without
 * overflowing the stack, in time and memory proportional to its size (these tests would hang
 * or crash otherwise; nothing here is timed).
 */
import { readBody } from '../../nodes/shared/domain/body';
import { BodyError, MAX_NESTING } from '../../nodes/shared/domain/bodyError';
import { parseJsonLossless } from '../../nodes/shared/domain/jsonLossless';
import {
	readSendAnswer,
	readStatusAnswer,
	ResponseShapeError,
} from '../../nodes/shared/domain/responses';

const MB20 = 20 * 1024 * 1024;

function refusal(read: () => unknown): string {
	try {
		read();
	} catch (error) {
		expect(error).toBeInstanceOf(BodyError);
		return (error as Error).message;
	}
	throw new Error('expected a refusal');
}

describe('hostile JSON', () => {
	it.each([
		['lists nested 5,000 deep', '['.repeat(5000) + ']'.repeat(5000)],
		['objects nested 5,000 deep', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)],
		['a million open brackets', '['.repeat(1_000_000)],
		['just past the limit', '['.repeat(MAX_NESTING + 1) + ']'.repeat(MAX_NESTING + 1)],
	])('%s: refused as nested too deep', (_name, text) => {
		expect(refusal(() => readBody(text))).toBe(
			`it is JSON nested deeper than ${MAX_NESTING} levels`,
		);
	});

	it('nesting up to the limit is read', () => {
		const text = '['.repeat(MAX_NESTING) + ']'.repeat(MAX_NESTING);
		expect(readBody(text).format).toBe('json');
	});

	it('a 20 MB string is read whole, and a status answer made of it says what is wrong', () => {
		const big = 'x'.repeat(MB20);
		expect((parseJsonLossless(`{"s":"${big}"}`) as { s: string }).s.length).toBe(MB20);
		expect(() => readStatusAnswer(`{"reports":"${big}"}`)).toThrow(
			new ResponseShapeError('status response: reports should be a list, got text'),
		);
	});

	it('a 20 MB run of escaped quotes and backslashes stays one string', () => {
		const text = `["${'\\"\\\\'.repeat(MB20 / 4)}"]`;
		const [value] = parseJsonLossless(text) as [string];
		expect(value.length).toBe(MB20 / 2);
		expect(value.startsWith('"\\"\\')).toBe(true);
	});

	it('a batch_id of 20 million digits is refused by its length, not read as a number', () => {
		const digits = '7'.repeat(20_000_000);
		expect(() =>
			readSendAnswer(
				`{"accepted":true,"batch_id":${digits},"batch_size":1,"receive_updates":false,"remaining_credits":1}`,
			),
		).toThrow(
			new ResponseShapeError('send response: batch_id: expected at most 19 digits, got 20000000'),
		);
	});

	it('an unterminated 20 MB string is JSON cut short', () => {
		expect(refusal(() => readBody(`{"a":"${'y'.repeat(MB20)}`))).toBe(
			'it is JSON that ends too early (cut short?)',
		);
	});
});

describe('hostile XML', () => {
	const laughs =
		'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
		Array.from(
			{ length: 9 },
			(_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`,
		).join('') +
		']><sms_get_status><reports>&lol9;</reports></sms_get_status>';

	it.each([
		['billion laughs', laughs],
		['an external entity', '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>'],
		['a doctype in lower case', '<!doctype sms_send><sms_send/>'],
	])('%s: refused for its DOCTYPE', (_name, text) => {
		expect(refusal(() => readBody(text))).toMatch(/^it is XML with a DOCTYPE/);
	});

	it('elements nested 5,000 deep: refused as nested too deep', () => {
		const text = '<a>'.repeat(5000) + '</a>'.repeat(5000);
		expect(refusal(() => readBody(text))).toBe(
			`it is XML nested deeper than ${MAX_NESTING} levels`,
		);
	});

	it('an undeclared entity is not expanded', () => {
		const read = readBody('<sms_send><error>&lol9;</error></sms_send>');
		expect(read.data).toEqual({ error: '&lol9;' });
	});

	it('a 20 MB value is read whole by the flat scanner', () => {
		const text = `<sms_send><accepted>false</accepted><error>${'z'.repeat(MB20)}</error></sms_send>`;
		expect(readSendAnswer(text).error?.length).toBe(MB20);
	});

	it('20 MB of unclosed elements: refused as nested too deep, before any validation', () => {
		expect(refusal(() => readBody('<a>'.repeat(7_000_000)))).toBe(
			`it is XML nested deeper than ${MAX_NESTING} levels`,
		);
	});

	it('elements that do not match: not well-formed, with the line', () => {
		expect(refusal(() => readBody('<sms_send>\n<a><b></a>\n</sms_send>'))).toBe(
			'it starts like XML but is not well-formed XML (line 2)',
		);
	});

	it('a CDATA section holding 20 MB of markup is not counted as elements', () => {
		const text = `<r><![CDATA[${'<a>'.repeat(7_000_000)}]]></r>`;
		expect((readBody(text).data as string).length).toBe(21_000_000);
	});
});
