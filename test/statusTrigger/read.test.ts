/** Every body shape the status trigger reads without configuration, and what it refuses. */
import { readCallback } from '../../nodes/BulkSmsStatusTrigger/read';
import { BATCH, jsonReport, SESSION, xmlReport } from './helpers';

const DELIVERED = {
	batch_id: BATCH,
	msisdn: '447700900001',
	status: 'DELIVRD',
	network_id: 23410,
	gateway_session_id: SESSION,
};
const second = { msisdn: '447700900006', status: 'UNDELIV' };
const XML = '<?xml version="1.0" encoding="UTF-8"?>';
const form = new URLSearchParams({
	batch_id: BATCH,
	msisdn: '447700900001',
	status: 'DELIVRD',
	network_id: '23410',
	gateway_session_id: SESSION,
	delivery_date: '260115100005',
}).toString();

describe('reads', () => {
	it.each<[string, string, Record<string, unknown>, number]>([
		['JSON: one report', jsonReport(), {}, 1],
		['JSON: a list of reports', `[${jsonReport()},${jsonReport(second)}]`, {}, 2],
		[
			'JSON: {reports:[...]} as get_status',
			`{"reports":[${jsonReport()},${jsonReport(second)}]}`,
			{},
			2,
		],
		['XML: one <delivery_report>', XML + xmlReport(), {}, 1],
		[
			'XML: <sms_get_status> as get_status',
			`${XML}<sms_get_status><reports>${xmlReport()}${xmlReport(second)}</reports></sms_get_status>`,
			{},
			2,
		],
		['XML: <reports>', `<reports>${xmlReport()}</reports>`, {}, 1],
		['form fields', form, {}, 1],
		['query parameters (GET, no body)', '', Object.fromEntries(new URLSearchParams(form)), 1],
	])('%s', (_name, body, query, count) => {
		const reading = readCallback({ body, query });
		if (!('reports' in reading)) throw new Error(JSON.stringify(reading));
		expect(reading.reports).toHaveLength(count);
		expect(reading.reports[0]).toMatchObject(DELIVERED);
		// The date is read once, whatever its spelling, to the same wall time.
		expect(reading.reports[0].delivery_wall).toBe(Date.UTC(2026, 0, 15, 10, 0, 5));
		if (count === 2) expect(reading.reports[1]).toMatchObject(second);
	});

	it('keeps 19-digit ids exact in JSON, where JSON.parse would round them', () => {
		const reading = readCallback({
			body: jsonReport({
				batch_id: '9999999999999999001',
				gateway_session_id: '9223372036854775807',
			}),
			query: {},
		});
		expect(reading).toMatchObject({
			reports: [{ batch_id: '9999999999999999001', gateway_session_id: '9223372036854775807' }],
		});
	});

	it('reads an ENROUTE report without a date, and an empty list as no reports', () => {
		expect(
			readCallback({ body: jsonReport({ status: 'ENROUTE', delivery_date: '' }), query: {} }),
		).toMatchObject({ reports: [{ status: 'ENROUTE', delivery_date: '', delivery_wall: null }] });
		expect(readCallback({ body: '{"reports":[]}', query: {} })).toEqual({ reports: [] });
	});
});

describe('refuses, with a one-line reason that quotes nothing of the body', () => {
	it.each<[string, string, Record<string, unknown>, string]>([
		[
			'nothing at all',
			'',
			{},
			'the callback has no body and no report fields in its query (batch_id, msisdn, status, ...)',
		],
		[
			'an HTML page',
			'<html><body>hello</body></html>',
			{},
			'the XML root is <html>, not <delivery_report>, <sms_get_status> or <reports>',
		],
		['plain text', 'hello there', {}, 'the body is neither JSON, XML nor form fields'],
		['JSON that is not a report', '{"event":"ping"}', {}, 'report.batch_id is missing'],
		[
			'a report with a text id',
			jsonReport().replace(`"batch_id":${BATCH}`, '"batch_id":"abc-secret"'),
			{},
			'report.batch_id: expected an id made of digits, got text',
		],
		[
			'a form without report fields',
			'user=alice&password=hunter2',
			{},
			'the form has none of the report fields (batch_id, msisdn, status, ...)',
		],
		[
			'a report with an impossible date',
			jsonReport({ delivery_date: '2026-02-30 10:00:00.0' }),
			{},
			'report.delivery_date: ',
		],
		['broken JSON', '{"reports":[', {}, 'the body cannot be read: '],
	])('%s', (_name, body, query, reason) => {
		const reading = readCallback({ body, query });
		if (!('problem' in reading)) throw new Error('read as reports');
		expect(reading.problem.startsWith(reason)).toBe(true);
		expect(reading.problem).not.toMatch(/hunter2|abc-secret|alice|hello/);
	});
});
