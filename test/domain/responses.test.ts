/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
import { parseBody } from '../../nodes/shared/domain/body';
import {
	readSendAnswer,
	readSendResponse,
	readStatusAnswer,
	readStatusResponse,
	ResponseShapeError,
	type RawReport,
} from '../../nodes/shared/domain/responses';

const dataOf = (text: string): unknown => parseBody(text)?.data;

describe('readSendResponse', () => {
	it.each([
		[
			'JSON accepted, id beyond 2^53',
			'{"accepted":true,"batch_id":9007199254740993,"batch_size":2,"receive_updates":true,"remaining_credits":98}',
			{
				accepted: true,
				batch_id: '9007199254740993',
				batch_size: 2,
				receive_updates: true,
				remaining_credits: 98,
			},
		],
		[
			'JSON accepted, small id as a number',
			'{"accepted":true,"batch_id":42,"batch_size":1,"receive_updates":false,"remaining_credits":0}',
			{
				accepted: true,
				batch_id: '42',
				batch_size: 1,
				receive_updates: false,
				remaining_credits: 0,
			},
		],
		[
			'JSON not accepted',
			'{"accepted":false,"batch_size":0,"receive_updates":false,"remaining_credits":5,"error":"Insufficient credits"}',
			{
				accepted: false,
				batch_size: 0,
				receive_updates: false,
				remaining_credits: 5,
				error: 'Insufficient credits',
			},
		],
		[
			'XML accepted, everything as text',
			'<sms_send><accepted>true</accepted><batch_id>1234567890123456789</batch_id><batch_size>3</batch_size>' +
				'<receive_updates>TRUE</receive_updates><remaining_credits>1000</remaining_credits></sms_send>',
			{
				accepted: true,
				batch_id: '1234567890123456789',
				batch_size: 3,
				receive_updates: true,
				remaining_credits: 1000,
			},
		],
		[
			'XML not accepted',
			'<sms_send><accepted>false</accepted><batch_size>0</batch_size><receive_updates>false</receive_updates>' +
				'<remaining_credits>7</remaining_credits><error>Invalid destination</error></sms_send>',
			{
				accepted: false,
				batch_size: 0,
				receive_updates: false,
				remaining_credits: 7,
				error: 'Invalid destination',
			},
		],
		[
			'a refusal that leaves out the counts keeps its reason',
			'{"accepted":false,"error":"Insufficient credits"}',
			{ accepted: false, batch_size: 0, receive_updates: false, error: 'Insufficient credits' },
		],
	])('%s', (_name, body, expected) => {
		expect(readSendResponse(dataOf(body))).toEqual(expected);
	});

	const base = {
		accepted: true,
		batch_id: '1',
		batch_size: 1,
		receive_updates: true,
		remaining_credits: 1,
	};
	it.each([
		['not an object', [base], 'send response: expected an object, got a list'],
		['accepted missing', { ...base, accepted: undefined }, 'send response: accepted is missing'],
		[
			'accepted not a boolean',
			{ ...base, accepted: 'yes' },
			'send response: accepted: expected true or false, got text',
		],
		[
			'accepted without batch_id',
			{ ...base, batch_id: undefined },
			'send response: accepted is true but batch_id is missing',
		],
		[
			'batch_id not digits',
			{ ...base, batch_id: '12a' },
			'send response: batch_id: expected an id made of digits, got text',
		],
		[
			'batch_id already rounded',
			{ ...base, batch_id: 9007199254740992 },
			'send response: batch_id: the id was already rounded (beyond 2^53); parse the body losslessly',
		],
		[
			'batch_size missing',
			{ ...base, batch_size: undefined },
			'send response: batch_size is missing',
		],
		[
			'batch_size a fraction',
			{ ...base, batch_size: 1.5 },
			'send response: batch_size: expected an integer, got a fraction',
		],
		[
			'batch_size negative',
			{ ...base, batch_size: -1 },
			'send response: batch_size: expected a count, got a negative number',
		],
		[
			'remaining_credits not a number',
			{ ...base, remaining_credits: 'lots' },
			'send response: remaining_credits: expected a number, got text',
		],
	])('%s → ResponseShapeError', (_name, data, message) => {
		expect(() => readSendResponse(data)).toThrow(new ResponseShapeError(message));
		expect(() => readSendResponse(data)).toThrow(ResponseShapeError);
	});
});

describe('readStatusResponse', () => {
	const delivered: RawReport = {
		batch_id: '1234567890123456789',
		msisdn: '447700900123',
		status: 'DELIVRD',
		network_id: 12,
		gateway_session_id: '98765432109876543210',
		delivery_date: '2026-03-29 02:30:00.0',
		delivery_wall: Date.UTC(2026, 2, 29, 2, 30),
	};
	const enroute: RawReport = {
		...delivered,
		msisdn: '0044',
		status: 'ENROUTE',
		delivery_date: '',
		delivery_wall: null,
	};
	const xmlReport = (msisdn: string, status: string, date: string) =>
		`<delivery_report><msisdn>${msisdn}</msisdn><delivery_date>${date}</delivery_date><network_id>12</network_id>` +
		`<status>${status}</status><batch_id>1234567890123456789</batch_id>` +
		'<gateway_session_id>98765432109876543210</gateway_session_id></delivery_report>';

	it.each([
		[
			'JSON, ids beyond 2^53, ENROUTE without a date',
			'{"reports":[{"batch_id":1234567890123456789,"msisdn":"447700900123","status":"DELIVRD","network_id":12,' +
				'"gateway_session_id":98765432109876543210,"delivery_date":"2026-03-29 02:30:00.0"},' +
				'{"batch_id":1234567890123456789,"msisdn":"0044","status":"ENROUTE","network_id":"12",' +
				'"gateway_session_id":"98765432109876543210"}]}',
			[delivered, enroute],
		],
		[
			'JSON, null date',
			'{"reports":[{"batch_id":1234567890123456789,"msisdn":"0044","status":"ENROUTE","network_id":12,"gateway_session_id":98765432109876543210,"delivery_date":null}]}',
			[enroute],
		],
		['JSON, empty list', '{"reports":[]}', []],
		[
			'XML, one report',
			`<sms_get_status><reports>${xmlReport('447700900123', 'DELIVRD', '2026-03-29 02:30:00.0')}</reports></sms_get_status>`,
			[delivered],
		],
		[
			'XML, two reports, empty date element',
			`<sms_get_status><reports>${xmlReport('447700900123', 'DELIVRD', '2026-03-29 02:30:00.0')}${xmlReport('0044', 'ENROUTE', '')}</reports></sms_get_status>`,
			[delivered, enroute],
		],
		['XML, <reports/>', '<sms_get_status><reports/></sms_get_status>', []],
		['XML, no reports element', '<sms_get_status></sms_get_status>', []],
	])('%s', (_name, body, expected) => {
		expect(readStatusResponse(dataOf(body))).toEqual(expected);
	});

	const wire = {
		batch_id: '1',
		msisdn: '447700900123',
		status: 'DELIVRD',
		network_id: 1,
		gateway_session_id: '2',
	};
	it('upper-cases a status code once, so filters and outcomes agree', () => {
		expect(readStatusResponse({ reports: [{ ...wire, status: ' delivrd ' }] })[0].status).toBe(
			'DELIVRD',
		);
	});

	it.each([
		[
			'no reports field (some other document)',
			{ message: 'ok' },
			'status response has no reports field',
		],
		['reports is text', { reports: 'none' }, 'status response: reports should be a list, got text'],
		['a report is not an object', { reports: [5] }, 'reports[0]: expected an object, got a number'],
		[
			'msisdn missing',
			{ reports: [wire, { ...wire, msisdn: undefined }] },
			'reports[1].msisdn is missing',
		],
		[
			'a date in neither form',
			{ reports: [{ ...wire, delivery_date: '29/03/2026' }] },
			'reports[0].delivery_date: delivery_date "29/03/2026" is not a date: expected yyyy-MM-dd HH:mm:ss.S or yyMMddHHmmss',
		],
		['status empty', { reports: [{ ...wire, status: '' }] }, 'reports[0].status is empty'],
		[
			'network_id text',
			{ reports: [{ ...wire, network_id: 'vodafone' }] },
			'reports[0].network_id: expected an integer, got text',
		],
		[
			'gateway_session_id missing',
			{ reports: [{ ...wire, gateway_session_id: undefined }] },
			'reports[0].gateway_session_id is missing',
		],
		[
			'batch_id negative',
			{ reports: [{ ...wire, batch_id: -1 }] },
			'reports[0].batch_id: expected an id made of digits, got a number',
		],
	])('%s → ResponseShapeError', (_name, data, message) => {
		expect(() => readStatusResponse(data)).toThrow(new ResponseShapeError(message));
	});
});

describe('answers that contradict themselves', () => {
	it('a refusal that names a batch_id keeps it: the service may have taken the batch', () => {
		expect(
			readSendResponse(
				dataOf('{"accepted":false,"batch_id":1234567890123456789,"error":"Try later"}'),
			),
		).toEqual({
			accepted: false,
			batch_id: '1234567890123456789',
			batch_size: 0,
			receive_updates: false,
			error: 'Try later',
		});
	});

	it('a 20-digit batch_id is refused in JSON and XML', () => {
		expect(() =>
			readSendAnswer(
				'{"accepted":true,"batch_id":12345678901234567890,"batch_size":1,"receive_updates":false,"remaining_credits":1}',
			),
		).toThrow(
			new ResponseShapeError('send response: batch_id: expected at most 19 digits, got 20'),
		);
		expect(() =>
			readSendAnswer(
				'<sms_send><accepted>true</accepted><batch_id>12345678901234567890</batch_id><batch_size>1</batch_size>' +
					'<receive_updates>false</receive_updates><remaining_credits>1</remaining_credits></sms_send>',
			),
		).toThrow(
			new ResponseShapeError('send response: batch_id: expected at most 19 digits, got 20'),
		);
	});
});

describe('readStatusAnswer / readSendAnswer say what an unreadable body is', () => {
	it.each([
		['plain text', 'Service Unavailable', 'it is neither JSON nor XML'],
		['empty', '  ', 'it is empty'],
		['cut short', '{"reports":[{"batch_id":1', 'it is JSON that ends too early (cut short?)'],
		['broken JSON', '{"reports":[}', 'it starts like JSON but is not valid JSON'],
		[
			'nested 5,000 deep',
			'['.repeat(5000) + ']'.repeat(5000),
			'it is JSON nested deeper than 100 levels',
		],
		[
			'an HTML page',
			'<html><body>oops</html>',
			'it starts like XML but is not well-formed XML (line 1)',
		],
	])('%s', (_name, body, reason) => {
		expect(() => readStatusAnswer(body)).toThrow(new ResponseShapeError(reason));
		expect(() => readSendAnswer(body)).toThrow(new ResponseShapeError(reason));
	});

	it('never quotes the body in the reason (it may hold personal data)', () => {
		const secret = 'hunter2-447700900123';
		for (const body of [`{"a":"${secret}" x}`, `{"${secret}`, `<a>${secret}</b>`, `${secret}`]) {
			expect(() => readStatusAnswer(body)).toThrow(ResponseShapeError);
			expect(() => readStatusAnswer(body)).not.toThrow(/hunter2|447700900123/);
		}
	});
});
