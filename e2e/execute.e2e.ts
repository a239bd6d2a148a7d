/**
 * (b) Headless: examples/send-and-track.json, exactly as a user imports it, runs with
 * `n8n execute` against the sandbox (the demo's clock: final 3 s after sending), looping
 * Wait → Get Status until every message is final, and ends with one row per number given (what the
 * Table view shows). Its output must match what the sandbox's test numbers decide and what the
 * sandbox received.
 */
import { type JsonObject, nodeRuns } from '../scripts/n8n/runData';
import { DEMO_SANDBOX } from '../scripts/n8n/service';
import {
	DONE_NODE_NAME,
	loadExample,
	SEND_NODE_NAME,
	STATUS_NODE_NAME,
	workflowId,
} from '../scripts/n8n/workflows';
import { startHarness, type Harness } from './harness';

const EXAMPLE = loadExample('send-and-track');

// The example's destinations, by what the sandbox does with them (sandbox/README.md).
const EXPECTED_REPORTS = [
	{ msisdn: '447700900120', status: 'DELIVRD', outcome: 'delivered', final: true }, // "+44 7700 900120"
	{ msisdn: '447700900125', status: 'ACCEPTD', outcome: 'delivered', final: true },
	{ msisdn: '447700900126', status: 'UNDELIV', outcome: 'failed', final: true },
	{ msisdn: '447700900127', status: 'REJECTD', outcome: 'failed', final: true },
];
const ACCEPTED = EXPECTED_REPORTS.map((report) => report.msisdn);
const DROPPED_BY_SANDBOX = '999123456780'; // valid format, unassigned country code
const INVALID = '12345'; // too short: the node skips it before sending

describe('n8n execute of examples/send-and-track.json', () => {
	let harness: Harness;
	let run: JsonObject;
	let sent: JsonObject;
	let batch: JsonObject;
	let rows: JsonObject[];

	beforeAll(async () => {
		harness = await startHarness(DEMO_SANDBOX);
		await harness.n8n.importWorkflow(EXAMPLE);
		run = await harness.n8n.executeWorkflow(workflowId(EXAMPLE));
		[sent] = nodeRuns(run, SEND_NODE_NAME)[0];
		[batch] = nodeRuns(run, STATUS_NODE_NAME).at(-1) ?? [];
		[rows] = nodeRuns(run, DONE_NODE_NAME);
	});
	afterAll(() => harness?.stop());

	test('the run succeeds and loops until final', () => {
		expect(run).toMatchObject({ status: 'success', finished: true, mode: 'cli' });
		expect(nodeRuns(run, SEND_NODE_NAME)).toHaveLength(1);
		expect(nodeRuns(run, STATUS_NODE_NAME).length).toBeGreaterThanOrEqual(1);
		expect(nodeRuns(run, DONE_NODE_NAME)).toHaveLength(1);
	});

	test('batch_id is the exact string of digits the sandbox issued, above 2^53', () => {
		const [received] = harness.sandbox.received().batches;
		expect(sent.batch_id).toBe(received.batch_id);
		expect(String(sent.batch_id)).toMatch(/^\d+$/);
		expect(BigInt(String(sent.batch_id))).toBeGreaterThan(2n ** 53n);
		expect(batch.batch_id).toBe(received.batch_id);
	});

	test('Send reports what it skipped, what the service dropped and the credits left', () => {
		expect(sent).toMatchObject({
			accepted: true,
			requested: 5,
			batch_size: 4,
			dropped_by_service: 1,
			destinations: [...ACCEPTED, DROPPED_BY_SANDBOX],
			remaining_credits: 996,
		});
		expect(sent.skipped).toEqual([
			{ input: INVALID, reason: expect.stringMatching(/\w/), item: 0 },
		]);
	});

	test('Get Status gives each test number its status and outcome, ids as the sandbox has them', () => {
		const [received] = harness.sandbox.received().batches;
		const sessionIds = received.messages.map((message) => message.gateway_session_id);
		const reports = batch.reports as JsonObject[];
		expect(reports).toEqual(
			EXPECTED_REPORTS.map((expected, index) =>
				expect.objectContaining({
					...expected,
					batch_id: received.batch_id,
					gateway_session_id: sessionIds[index],
				}),
			),
		);
		expect(batch).toMatchObject({
			all_final: true,
			total: 4,
			by_status: { DELIVRD: 1, ACCEPTD: 1, UNDELIV: 1, REJECTD: 1 },
			by_outcome: { delivered: 2, failed: 2, pending: 0 },
		});
	});

	test('ends with one row per number given: sent with its report, dropped, or skipped and why', () => {
		const reports = batch.reports as JsonObject[];
		const reported = EXPECTED_REPORTS.map(({ msisdn, status, outcome }, index) => ({
			number: msisdn,
			result: 'sent',
			status,
			outcome,
			delivery_date: reports[index].delivery_date,
			reason: '',
			batch_id: batch.batch_id,
		}));
		expect(rows).toEqual([
			...reported,
			{
				number: DROPPED_BY_SANDBOX,
				result: 'dropped',
				status: '',
				outcome: '',
				delivery_date: null,
				reason: 'not taken by the service (no delivery report)',
				batch_id: batch.batch_id,
			},
			{
				number: INVALID,
				result: 'skipped',
				status: '',
				outcome: '',
				delivery_date: null,
				reason: (sent.skipped as JsonObject[])[0].reason,
				batch_id: '',
			},
		]);
		for (const row of reported)
			expect(row.delivery_date).toMatch(/^\d{4}-\d\d-\d\dT.*[+-]\d\d:\d\d$/);
	});

	test('the sandbox accepted each destination exactly once, and nothing else', () => {
		const { batches, destinations } = harness.sandbox.received();
		expect(batches).toHaveLength(1);
		expect(destinations).toEqual(
			ACCEPTED.map((msisdn) => ({ msisdn, accepted: 1, batch_ids: [batches[0].batch_id] })),
		);
	});
});
