/** docs/interface.md 4.2 (get_status): both representations, both date formats, and the error answers. */
import type { Sandbox } from '../server';
import { startSandbox } from '../server';
import {
	getStatus,
	jsonReports,
	parseJsonLossless,
	parseXml,
	rawNumbers,
	sendOk,
	xmlReports,
} from './helpers';

const T0 = Date.UTC(2026, 0, 15, 10, 0, 0, 0);
let sb: Sandbox;
beforeEach(async () => {
	sb = await startSandbox({
		timeScale: 0,
		startTime: T0,
		accounts: [
			{ username: 'demo', password: 'demo-password', credits: 1000 },
			{ username: 'other', password: 'pw', credits: 10 },
		],
	});
});
afterEach(() => sb.stop());

it('JSON: {reports:[...]} with the fields of 2.3 and ids as bare numbers of full precision', async () => {
	const batch = await sendOk(sb, { destination: '447700900001,33612345679', message: 'x' });
	sb.advance(5000);
	const res = await getStatus(sb, batch);
	expect(res.status).toBe(200);
	expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
	const [s1, s2] = sb.received().batches[0].messages.map((m) => m.gateway_session_id);
	expect(res.text).toBe(
		'{"reports":[' +
			`{"batch_id":${batch},"network_id":23410,"status":"DELIVRD","msisdn":"447700900001","gateway_session_id":${s1},"delivery_date":"2026-01-15 10:00:05.0"},` +
			`{"batch_id":${batch},"network_id":20801,"status":"ENROUTE","msisdn":"33612345679","gateway_session_id":${s2},"delivery_date":""}` +
			']}',
	);
	for (const id of rawNumbers(res.text, 'gateway_session_id'))
		expect(BigInt(id) > 2n ** 53n).toBe(true);
});

it('XML: sms_get_status > reports > delivery_report, children in the order of rule 2, yyMMddHHmmss', async () => {
	const batch = await sendOk(sb, { destination: '447700900001,33612345679', message: 'x' });
	sb.advance(5000);
	const res = await getStatus(sb, batch, { accept: 'application/xml' });
	expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
	const [s1, s2] = sb.received().batches[0].messages.map((m) => m.gateway_session_id);
	const report = (msisdn: string, date: string, network: number, status: string, session: string) =>
		`<delivery_report><msisdn>${msisdn}</msisdn><delivery_date>${date}</delivery_date><network_id>${network}</network_id>` +
		`<status>${status}</status><batch_id>${batch}</batch_id><gateway_session_id>${session}</gateway_session_id></delivery_report>`;
	expect(res.text).toBe(
		'<?xml version="1.0" encoding="UTF-8"?><sms_get_status><reports>' +
			report('447700900001', '260115100005', 23410, 'DELIVRD', s1) +
			report('33612345679', '', 20801, 'ENROUTE', s2) +
			'</reports></sms_get_status>',
	);
});

it('a batch of one still has one delivery_report inside reports', async () => {
	const batch = await sendOk(sb, { destination: '4915123456780', message: 'x' });
	const xml = xmlReports((await getStatus(sb, batch, { accept: 'application/xml' })).text);
	expect(xml).toHaveLength(1);
	expect(xml[0]).toMatchObject({
		msisdn: '4915123456780',
		network_id: '26201',
		batch_id: batch,
	});
});

it.each([
	['UTC', '2026-01-15 10:00:05.0', '260115100005'],
	['+05:30', '2026-01-15 15:30:05.0', '260115153005'],
	['Europe/Berlin', '2026-01-15 11:00:05.0', '260115110005'],
	['America/New_York', '2026-01-15 05:00:05.0', '260115050005'],
])('delivery_date in the sandbox time zone %s', async (timeZone, json, xml) => {
	const zoned = await startSandbox({ timeScale: 0, startTime: T0, timeZone });
	try {
		const batch = await sendOk(zoned, { destination: '447700900001', message: 'x' });
		zoned.advance(5000);
		expect(jsonReports((await getStatus(zoned, batch)).text)[0].delivery_date).toBe(json);
		expect(
			xmlReports((await getStatus(zoned, batch, { accept: 'application/xml' })).text)[0]
				.delivery_date,
		).toBe(xml);
	} finally {
		await zoned.stop();
	}
});

it('the fractional digit is tenths of a second', async () => {
	const batch = await sendOk(sb, { destination: '447700900001', message: 'x' });
	sb.advance(5789);
	expect(jsonReports((await getStatus(sb, batch)).text)[0].delivery_date).toBe(
		'2026-01-15 10:00:05.0',
	);
	const late = await startSandbox({ timeScale: 0, startTime: T0 + 789 });
	try {
		const id = await sendOk(late, { destination: '447700900001', message: 'x' });
		late.advance(5000);
		expect(jsonReports((await getStatus(late, id)).text)[0].delivery_date).toBe(
			'2026-01-15 10:00:05.7',
		);
	} finally {
		await late.stop();
	}
});

describe('errors', () => {
	it.each([
		['missing batch_id', '/api/sms/get_status', 400, /batch_id is required/],
		['empty batch_id', '/api/sms/get_status?batch_id=', 400, /batch_id is required/],
		['letters', '/api/sms/get_status?batch_id=abc', 400, /1 to 19 digits/],
		['negative', '/api/sms/get_status?batch_id=-5', 400, /1 to 19 digits/],
		['20 digits', '/api/sms/get_status?batch_id=12345678901234567890', 400, /1 to 19 digits/],
		['a float', '/api/sms/get_status?batch_id=9007199254740992.0', 400, /1 to 19 digits/],
		['unknown', '/api/sms/get_status?batch_id=9007199254740991', 404, /no batch 9007199254740991/],
	])('%s: %i with a body that says so', async (_name, path, status, message) => {
		for (const accept of ['application/json', 'application/xml']) {
			const res = await fetch(`${sb.baseUrl}${path}`, {
				headers: {
					Accept: accept,
					Authorization: `Basic ${Buffer.from('demo:demo-password').toString('base64')}`,
				},
			});
			expect(res.status).toBe(status);
			const text = await res.text();
			const error =
				accept === 'application/json' ? parseJsonLossless(text).error : parseXml(text).error;
			expect(error).toMatch(message);
		}
	});

	it("another account's batch is 404, as if it did not exist", async () => {
		const batch = await sendOk(sb, { destination: '447700900001', message: 'x' });
		const res = await getStatus(sb, batch, { auth: { username: 'other', password: 'pw' } });
		expect(res.status).toBe(404);
		expect(parseJsonLossless(res.text).error).toMatch(/no batch/);
		expect((await getStatus(sb, batch)).status).toBe(200);
	});

	it('the id as the corrupted double a careless client would send is another (unknown) batch', async () => {
		const batch = await sendOk(sb, { destination: '447700900001', message: 'x' });
		expect((await getStatus(sb, String(Number(batch)))).status).toBe(404);
	});

	it('leading zeros name the same batch', async () => {
		const batch = await sendOk(sb, { destination: '447700900001', message: 'x' });
		expect((await getStatus(sb, `000${batch}`)).status).toBe(200);
	});
});
