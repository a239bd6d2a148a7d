/**
 * What a caller can make the status trigger hold, answer and log: nothing it sent is echoed
 * beyond a short excerpt, each report field is what it says it is, and a callback with more
 * reports than the trigger takes is answered 413 before it is read where its size tells.
 * Also what every answer says, for a person reading the provider's delivery log.
 */
import { readStatusAnswer } from '../../nodes/shared/domain/responses';
import type { WebhookServer } from '../engine/webhook';
import { captureWarnings, jsonReport, post, startTrigger, xmlReport } from './helpers';

let server: WebhookServer;
afterEach(() => server?.stop());

const MB = 1_000_000;
const huge = (size: number, char = 'A') => char.repeat(size);
const emitted = () => server.executions().map((items) => items.map((i) => i.json));

describe('nothing a caller sent is echoed beyond a short excerpt', () => {
	it('an unknown XML root of 5 MB: a 400 of one short line, and a short log line', async () => {
		const warnings = captureWarnings();
		try {
			// A bound high enough for the body to be read at all.
			server = await startTrigger({ parameters: { options: { maxReports: 100_000 } } });
			const name = huge(5 * MB);
			const res = await post(server, `<${name}><x>1</x></${name}>`, 'application/xml');
			expect(res.status).toBe(400);
			expect(res.body.length).toBeLessThan(300);
			expect(JSON.parse(res.body).error).toMatch(
				/^Not a delivery report: the XML root is <A{40}…>, not <delivery_report>/,
			);
			expect(warnings.lines).toHaveLength(1);
			expect(warnings.lines[0].length).toBeLessThan(300);
		} finally {
			warnings.restore();
		}
	});

	it('the same root in a service answer is cut alike', () => {
		const name = huge(MB);
		expect(() => readStatusAnswer(`<${name}/>`)).toThrow(
			/^the XML root is <A{40}…>, not <sms_get_status>$/,
		);
	});
});

describe('report fields are what they say they are', () => {
	it.each<[string, Record<string, string>, string]>([
		[
			'a 1 MB msisdn',
			{ msisdn: huge(MB, '4') },
			'msisdn: expected a phone number of 8 to 15 digits',
		],
		['a 16-digit msisdn', { msisdn: '4477009000011234' }, 'msisdn'],
		['a 7-digit msisdn', { msisdn: '4477009' }, 'msisdn'],
		['an msisdn with letters', { msisdn: '44770090000x' }, 'msisdn'],
		['a 1 MB status', { status: huge(MB) }, 'status: expected a status code such as DELIVRD'],
		['a status of words', { status: 'DELIVERED TO PHONE' }, 'status'],
		['a 41-digit gateway_session_id', { gateway_session_id: '1'.repeat(41) }, 'gateway_session_id'],
	])('%s: 400, nothing emitted, nothing of it echoed', async (_name, fields, reason) => {
		server = await startTrigger({ parameters: { emit: 'changes' } });
		const res = await post(server, jsonReport(fields));
		expect(res.status).toBe(400);
		expect(JSON.parse(res.body).error).toContain(`reports[0].${reason}`);
		expect(res.body.length).toBeLessThan(300);
		expect(server.executions()).toEqual([]);
	});

	it.each<[string, Record<string, string>]>([
		['12 digits', { msisdn: '447700900001' }],
		['8 digits', { msisdn: '49170123' }],
		['15 digits', { msisdn: '447700900001234' }],
		['a leading +', { msisdn: '+447700900001' }],
		['a lower-case status', { status: 'delivrd' }],
		['a 40-digit gateway_session_id', { gateway_session_id: '9'.repeat(40) }],
	])('takes %s', async (_name, fields) => {
		server = await startTrigger({ parameters: { emit: 'changes' } });
		expect((await post(server, jsonReport(fields))).status).toBe(200);
		expect(server.executions()).toHaveLength(1);
	});

	it('a status code the interface does not list is taken as pending, as Get Status reads it', async () => {
		server = await startTrigger({ parameters: { emit: 'changes' } });
		await post(server, jsonReport({ status: 'SCHEDLD' }));
		expect(emitted()).toEqual([
			[expect.objectContaining({ status: 'SCHEDLD', outcome: 'pending', final: false })],
		]);
		await server.stop();
		server = await startTrigger(); // final statuses only: a pending one starts nothing
		expect((await post(server, jsonReport({ status: 'SCHEDLD' }))).status).toBe(200);
		expect(server.executions()).toEqual([]);
	});
});

describe('how many reports one callback may carry', () => {
	const list = (count: number) =>
		`[${Array.from({ length: count }, (_, i) =>
			jsonReport({ msisdn: String(447700900000 + i), gateway_session_id: String(1000 + i) }),
		).join(',')}]`;

	it('more than Max Reports per Callback (default 1,000): 413 with a sentence, nothing started', async () => {
		server = await startTrigger();
		const res = await post(server, list(1001));
		expect(res.status).toBe(413);
		expect(JSON.parse(res.body)).toEqual({
			error:
				'Too many reports: the callback carries 1001 reports, more than Max Reports per Callback (1000): send fewer reports per callback, or raise that option',
		});
		expect(server.executions()).toEqual([]);
		expect((await post(server, list(1000))).status).toBe(200);
		expect(emitted()[0]).toHaveLength(1000);
	});

	it('the option raises the bound, and lowers it', async () => {
		server = await startTrigger({ parameters: { options: { maxReports: 2 } } });
		expect((await post(server, list(3))).status).toBe(413);
		expect((await post(server, list(2))).status).toBe(200);
	});

	it('a body larger than its reports could be is refused before it is parsed', async () => {
		server = await startTrigger({ parameters: { options: { maxReports: 1 } } });
		// Not even JSON: a 400 would mean it was read.
		const res = await post(server, `[${huge(5000, ' ')}`, 'text/plain');
		expect(res.status).toBe(413);
		expect(JSON.parse(res.body).error).toMatch(
			/^Too many reports: the callback's body \(5,001 characters\) is larger than Max Reports per Callback \(1\) can fill/,
		);
	});
});

describe('every answer says what became of the callback', () => {
	it.each<[string, () => Promise<unknown>, number, object]>([
		[
			'a report that starts the workflow',
			() => post(server, jsonReport()),
			200,
			{ received: 1, repeated: 0, late: 0, emitted: 1 },
		],
		[
			'the same report again',
			async () => {
				await post(server, jsonReport());
				return await post(server, jsonReport());
			},
			200,
			{ received: 1, repeated: 1, late: 0, emitted: 0 },
		],
		[
			'a report filtered out (ENROUTE, final statuses only)',
			() => post(server, jsonReport({ status: 'ENROUTE', delivery_date: '' })),
			200,
			{ received: 1, repeated: 0, late: 0, emitted: 0 },
		],
		[
			'an XML report',
			() => post(server, xmlReport(), 'application/xml'),
			200,
			{ received: 1, repeated: 0, late: 0, emitted: 1 },
		],
	])('%s', async (_name, call, status, body) => {
		server = await startTrigger();
		const res = (await call()) as { status: number; body: string; headers: Headers };
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		expect([res.status, JSON.parse(res.body)]).toEqual([status, body]);
	});
});
