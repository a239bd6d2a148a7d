/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * BulkSms Get Status through n8n's real engine against the sandbox, whose test numbers decide
 * each outcome by their last digit (sandbox/README.md).
 */
import { createServer, type Server } from 'node:http';
import type { INodeParameters } from 'n8n-workflow';
import type { AddressInfo } from 'node:net';

import { errorOf, outputOf, runWorkflow } from '../engine/harness';
import {
	FIRST_SESSION_ID,
	startSandbox,
	type FaultOptions,
	type Sandbox,
} from '../../sandbox/server';
import { credentialsFor, getStatus, items, line, send, trigger } from './workflow';

// The service's clock starts on a November day, whatever day the test runs: New York's wall
// clock is then five hours behind UTC.
const NOVEMBER_DAY = Date.parse('2026-11-20T15:00:00Z');

let sandbox: Sandbox;
beforeEach(async () => {
	sandbox = await startSandbox({ timeZone: 'America/New_York', startTime: NOVEMBER_DAY });
});
afterEach(async () => {
	await sandbox.stop();
});

const TEST_NUMBERS = '447700900120, 447700900125, 447700900126, 447700900127, 447700900129';
const credentials = () => credentialsFor(sandbox, { timeZone: 'America/New_York' });

async function sendTestNumbers(): Promise<string> {
	const run = await runWorkflow({
		...line(trigger(), send({ destinations: TEST_NUMBERS, message: 'Hi' })),
		credentials: credentials(),
	});
	return outputOf(run, 'Send')[0].json.batch_id as string;
}

async function statusOf(
	batchId: string | number,
	parameters: INodeParameters = {},
	onError?: 'continueRegularOutput',
) {
	return await runWorkflow({
		...line(
			trigger(),
			items([{ batch_id: batchId }]),
			getStatus({ batchId: '={{ $json.batch_id }}', ...parameters }, onError ? { onError } : {}),
		),
		credentials: credentials(),
	});
}

describe('Get Status', () => {
	it('follows a batch from Send by expression, then to its final states', async () => {
		const run = await runWorkflow({
			...line(
				trigger(),
				send({ destinations: TEST_NUMBERS, message: 'Hi' }),
				getStatus({ batchId: '={{ $json.batch_id }}' }),
			),
			credentials: credentials(),
		});
		const batchId = outputOf(run, 'Send')[0].json.batch_id as string;
		const enroute = outputOf(run, 'Get Status');
		expect(enroute).toHaveLength(5);
		expect(enroute[0].pairedItem).toEqual({ item: 0 });
		expect(enroute[0].json).toMatchObject({
			batch_id: batchId,
			status: 'ENROUTE',
			outcome: 'pending',
			final: false,
			delivery_date: null,
		});

		sandbox.advance(60_000);
		const final = outputOf(await statusOf(batchId), 'Get Status').map((item) => item.json);
		expect(final.map((r) => [r.msisdn, r.status, r.outcome, r.final])).toEqual([
			['447700900120', 'DELIVRD', 'delivered', true],
			['447700900125', 'ACCEPTD', 'delivered', true],
			['447700900126', 'UNDELIV', 'failed', true],
			['447700900127', 'REJECTD', 'failed', true],
			['447700900129', 'ENROUTE', 'pending', false],
		]);
		const sent = sandbox.received().batches[0].messages;
		for (const report of final) {
			const message = sent.find((m) => m.msisdn === report.msisdn);
			expect(report.batch_id).toBe(batchId);
			expect(report.gateway_session_id).toBe(message?.gateway_session_id);
			expect(BigInt(report.gateway_session_id as string)).toBeGreaterThan(2n ** 53n);
		}
		const delivered = final[0];
		// November in New York (NOVEMBER_DAY): five hours behind UTC.
		expect(delivered.delivery_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-05:00$/);
		expect(
			Math.abs(
				Date.parse(delivered.delivery_date as string) - Date.parse(sent[0].final_at as string),
			),
		).toBeLessThan(100);
		expect(delivered.delivery_date_raw).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d$/);
	});

	it('reads XML answers into the same reports (the date to the second)', async () => {
		const batchId = await sendTestNumbers();
		sandbox.advance(60_000);
		const json = outputOf(await statusOf(batchId), 'Get Status').map((item) => item.json);
		const xml = outputOf(
			await statusOf(batchId, { statusOptions: { format: 'xml' } }),
			'Get Status',
		).map((item) => item.json);
		// toEqual leaves out a field set to undefined: the raw text differs by format.
		const withoutDates = (reports: typeof json) =>
			reports.map((report) => ({
				...report,
				delivery_date: String(report.delivery_date).slice(0, 19),
				delivery_date_raw: undefined,
			}));
		expect(withoutDates(xml)).toEqual(withoutDates(json));
		expect(xml[0].delivery_date_raw).toMatch(/^\d{12}$/);
		expect(sandbox.requests().at(-1)?.accept).toBe('application/xml');
	});

	it('summarises a batch in one item, with an optional status filter', async () => {
		const batchId = await sendTestNumbers();
		sandbox.advance(60_000);
		const [batch] = outputOf(
			await statusOf(batchId, {
				output: 'batch',
				statusOptions: { statuses: ['DELIVRD', 'ACCEPTD'] },
			}),
			'Get Status',
		);
		expect(batch.json).toMatchObject({
			batch_id: batchId,
			total: 5,
			by_status: { DELIVRD: 1, ACCEPTD: 1, UNDELIV: 1, REJECTD: 1, ENROUTE: 1 },
			by_outcome: { delivered: 2, failed: 2, pending: 1 },
			all_final: false,
		});
		expect((batch.json.reports as Array<{ msisdn: string }>).map((r) => r.msisdn)).toEqual([
			'447700900120',
			'447700900125',
		]);
	});

	it.each([
		[
			['UNDELIV', 'REJECTD'],
			['447700900126', '447700900127'],
		],
		[['ENROUTE'], ['447700900129']],
		[['EXPIRED'], []],
	])('keeps only the reports in %j, one item each', async (statuses, msisdns) => {
		const batchId = await sendTestNumbers();
		sandbox.advance(60_000);
		const reports = outputOf(
			await statusOf(batchId, { statusOptions: { statuses } }),
			'Get Status',
		);
		expect(reports.map((r) => r.json.msisdn)).toEqual(msisdns);
		expect(reports.every((r) => statuses.includes(r.json.status as string))).toBe(true);
		expect(reports.every((r) => r.json.batch_id === batchId)).toBe(true);
	});

	it('says the service failed on a 5xx that outlasts the retries, or continues with an error item', async () => {
		sandbox.setFaults({ error500Rate: 1 });
		const error = errorOf(await statusOf('9007199254740993'), 'Get Status');
		expect(error?.message).toBe('The service failed (HTTP 500)');
		expect(error?.description).toBe(
			'It answered: {"error":"injected fault: internal server error"}',
		);
		expect(sandbox.requests().map((r) => r.outcome)).toEqual([500, 500, 500]);

		const continued = await statusOf('9007199254740993', {}, 'continueRegularOutput');
		expect(outputOf(continued, 'Get Status')).toEqual([
			{
				json: {
					error: 'The service failed (HTTP 500)',
					description: 'It answered: {"error":"injected fault: internal server error"}',
				},
				pairedItem: [{ item: 0 }],
			},
		]);
	});

	it('says when the service does not know the batch, or continues with an error item', async () => {
		const failed = await statusOf('123');
		expect(errorOf(failed, 'Get Status')?.message).toMatch(/does not know batch 123\b/);
		const [item] = outputOf(await statusOf('123', {}, 'continueRegularOutput'), 'Get Status');
		expect(item).toEqual({
			json: {
				error: expect.stringMatching(/does not know batch 123\b/),
				description: expect.any(String),
			},
			pairedItem: [{ item: 0 }],
		});
	});

	it.each([
		['not digits', 'abc', /"abc" is not a batch ID/],
		['empty', '', /^No batch ID to read for this item$/],
		[
			'a number past 2^53',
			Number('9007199254740993'),
			/arrived as a number and may have lost digits/,
		],
	])('refuses a batch id that is %s before any request', async (_, batchId, message) => {
		const run = await statusOf(batchId);
		expect(errorOf(run, 'Get Status')?.message).toMatch(message);
		expect(sandbox.requests()).toHaveLength(0);
	});
});

describe('Get Status against a gateway that mislabels its answers or ignores Accept', () => {
	const BATCH_ID = '9223372036854775807'; // 19 digits, the seed's longest

	it.each<[string, Partial<FaultOptions>, string, string, string]>([
		[
			'JSON labelled text/plain',
			{ mislabel: true },
			'json',
			'application/json',
			'2026-11-22 10:15:00.0',
		],
		[
			'XML sent to a JSON request and labelled text/plain',
			{ mislabel: true, answerFormat: 'xml' },
			'json',
			'application/json',
			'261122101500',
		],
		[
			'JSON sent to an XML request',
			{ answerFormat: 'json' },
			'xml',
			'application/xml',
			'2026-11-22 10:15:00.0',
		],
	])('reads %s', async (_, faults, format, accept, raw) => {
		await sandbox.stop();
		sandbox = await startSandbox({
			timeScale: 0,
			startTime: Date.parse('2026-11-22T10:14:55Z'),
			firstBatchId: BATCH_ID,
		}); // afterEach stops it
		const sent = await runWorkflow({
			...line(trigger(), send({ destinations: '447700900120', message: 'Hi' })),
			credentials: credentialsFor(sandbox),
		});
		expect(outputOf(sent, 'Send')[0].json.batch_id).toBe(BATCH_ID);
		sandbox.advance(5000);
		sandbox.setFaults(faults);

		const run = await runWorkflow({
			...line(trigger(), getStatus({ batchId: BATCH_ID, statusOptions: { format } })),
			credentials: credentialsFor(sandbox),
		});
		expect(outputOf(run, 'Get Status').map((item) => item.json)).toEqual([
			{
				batch_id: BATCH_ID,
				msisdn: '447700900120',
				status: 'DELIVRD',
				outcome: 'delivered',
				final: true,
				network_id: 23410,
				gateway_session_id: FIRST_SESSION_ID.toString(),
				delivery_date: '2026-11-22T10:15:00.000+00:00',
				delivery_date_raw: raw,
			},
		]);
		expect(sandbox.requests().at(-1)).toMatchObject({
			path: '/api/sms/get_status',
			accept,
			outcome: 200,
		});
	});
});

describe('Get Status against odd gateways', () => {
	let server: Server;
	let reply: { type: string; body: string; status?: number };
	beforeEach(async () => {
		// Not the sandbox: it answers only JSON or XML, never an HTML page or other text.
		server = createServer((_, res) => {
			res.writeHead(reply.status ?? 200, { 'Content-Type': reply.type }).end(reply.body);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	});
	afterEach(async () => {
		await new Promise<void>((resolve) => server.close(() => resolve()));
	});

	const ask = async () =>
		runWorkflow({
			...line(trigger(), getStatus({ batchId: '9007199254740993' })),
			credentials: credentialsFor({
				baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
			} as Sandbox),
		});

	it('gives the status and a short excerpt for a body that is neither JSON nor XML', async () => {
		reply = {
			type: 'text/html',
			body: `Service temporarily unavailable ${'x'.repeat(500)}`,
			status: 200,
		};
		const error = errorOf(await ask(), 'Get Status');
		expect(error?.message).toBe(
			"The service's answer could not be read: it is neither JSON nor XML",
		);
		expect(error?.description).toMatch(
			/^HTTP 200, body starts: Service temporarily unavailable x+…$/,
		);
		expect((error?.description ?? '').length).toBeLessThan(200);
	});

	it('does not read an HTML page as an empty batch', async () => {
		reply = { type: 'text/html', body: '<html><body>Welcome</body></html>' };
		expect(errorOf(await ask(), 'Get Status')?.message).toBe(
			"The service's answer could not be read: it is an HTML page",
		);
	});
});
