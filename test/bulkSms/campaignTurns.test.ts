/**
 * Runs of one campaign at the same moment, in one n8n process: each takes its turn, so every run
 * ends, every number gets the text once, and a run that waits says so in n8n's log and never
 * waits for ever. Through n8n's engine against the sandbox on 127.0.0.1.
 */
import type { INodeExecutionData, IRun } from 'n8n-workflow';

import {
	BULK_SMS,
	engineLogger,
	errorOf,
	loadPackageNodeType,
	outputOf,
	runWorkflow,
} from '../engine/harness';
import { overrideTurnBound } from '../../nodes/BulkSms/operations/send/record';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { credentialsFor, items, line, send, trigger } from './workflow';

let sandbox: Sandbox;

beforeEach(async () => {
	sandbox = await startSandbox({ timeScale: 0 });
});
afterEach(async () => {
	jest.restoreAllMocks();
	await sandbox.stop();
});

const NUMBERS = ['447700911001', '447700911002', '447700911003'];
let workflows = 0;

/** A webhook's alert to three numbers with a Campaign Key, called `runs` times at once. */
async function atOnce(runs: number, sendOptions = {}): Promise<IRun[]> {
	const spec = {
		...line(
			trigger(),
			items([{ phones: NUMBERS.join(',') }] as never),
			send({
				destinations: '={{ $json.phones }}',
				message: 'Outage 42: we are on it',
				sendOptions: { campaign: 'outage-42', output: 'destination', ...sendOptions },
			}),
		),
		workflowId: `turns-${++workflows}`,
		nodeTypes: { [BULK_SMS]: loadPackageNodeType(BULK_SMS)! },
		credentials: credentialsFor(sandbox),
	};
	return await Promise.all(
		Array.from({ length: runs }, async () => await runWorkflow({ ...spec, mode: 'webhook' })),
	);
}

const timesAccepted = () =>
	NUMBERS.map(
		(msisdn) => sandbox.received().destinations.find((d) => d.msisdn === msisdn)?.accepted ?? 0,
	);
const outcomesOf = (run: IRun) => outputOf(run, 'Send').map((row) => row.json.send_outcome);

describe('runs of one Campaign Key at the same moment all end, each number once', () => {
	test.each([
		[2, 0],
		[3, 0],
		[5, 0],
		[2, 300],
		[3, 300],
		[5, 300],
	])('%i runs, the service answering in %i ms', async (runs, latencyMs) => {
		sandbox.setFaults({ latencyMs });
		const done = await atOnce(runs);
		expect(timesAccepted()).toEqual([1, 1, 1]);
		const outcomes = done.map(outcomesOf);
		expect(outcomes.filter((run) => run.every((o) => o === 'accepted'))).toHaveLength(1);
		const later = done.filter((run) => outcomesOf(run).every((o) => o === 'sent before'));
		expect(later).toHaveLength(runs - 1);
		// Each later run names the batch that took the number.
		for (const run of later) {
			for (const row of outputOf(run, 'Send')) expect(row.json.batch_id).toMatch(/^\d+$/);
		}
	});

	it('when the first is refused (no credits left), the others try in turn, and all end', async () => {
		sandbox.setFaults({ latencyMs: 300 });
		await sandbox.upsertAccount({ username: 'demo', credits: 0 });
		const done = await atOnce(3);
		expect(done.map((run) => errorOf(run, 'Send')?.message)).toEqual([
			expect.stringMatching(/did not accept/),
			expect.stringMatching(/did not accept/),
			expect.stringMatching(/did not accept/),
		]);
		expect(timesAccepted()).toEqual([0, 0, 0]);
	});
});

describe('a run that waits for another', () => {
	it("says so in n8n's log while it waits, and past the bound names what the other has not settled in doubt", async () => {
		const restore = overrideTurnBound(300);
		const said = jest.spyOn(engineLogger(), 'info');
		sandbox.setFaults({ latencyMs: 1_500 });
		try {
			const [first, second] = await atOnce(2, { maxPerRequest: 1, concurrency: 1 });
			expect(timesAccepted()).toEqual([1, 1, 1]);
			const [sending, waited] = outcomesOf(first).includes('accepted')
				? [first, second]
				: [second, first];
			expect(outcomesOf(sending)).toEqual(['accepted', 'accepted', 'accepted']);
			const rows: INodeExecutionData[] = outputOf(waited, 'Send');
			expect(rows.map((row) => row.json.send_outcome)).toEqual([
				'in doubt',
				'in doubt',
				'in doubt',
			]);
			expect(rows[0].json.reason).toMatch(
				/^in doubt: Campaign Key "outage-42" \(execution harness-\d+\) handed it to the service and that run, still sending in this n8n process, had not finished with it when this run stopped waiting/,
			);
			const lines = said.mock.calls.map((call) => String(call[0]));
			expect(lines).toContainEqual(
				expect.stringMatching(
					/^Bulk SMS Send "Send" \(workflow turns-\d+, execution harness-\d+\): waiting for execution harness-\d+, which is sending Campaign Key "outage-42", to end \(0 s so far, at most 0.3 s\)$/,
				),
			);
		} finally {
			restore();
		}
	});
});
