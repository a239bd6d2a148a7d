/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Every person's delivery after a recovery, in the real product: `n8n start` (n8n 2.x), the packed
 * package, the sandbox on 127.0.0.1. A 300-row reminder with Get Delivery Status after Send fails
 * half way (a 500 at request 151); recovered by a Retry, or run again from the editor with the
 * outcome written back: every row that was sent has its batch id and a status, the one row in
 * doubt says so, and nobody got the reminder twice.
 */
import { nodeRuns, type JsonObject } from '../scripts/n8n/runData';
import { settled, type N8nServer } from '../scripts/n8n/server';
import { contactsCampaign, SEND_NODE_NAME, STATUS_NODE_NAME } from '../scripts/n8n/workflows';
import { faultAt, startHarness, type Harness } from './harness';

const ROWS = 300;
let harness: Harness;
let n8n: N8nServer;

const retried = contactsCampaign(
	'deliveryRetried',
	{ count: ROWS, prefix: '4477311' },
	{},
	{
		webhookPath: 'delivery-retried',
		thenStatus: true,
	},
);
const again = contactsCampaign(
	'deliveryAgain',
	{ count: ROWS, prefix: '4477312' },
	{},
	{
		thenStatus: true,
	},
);

beforeAll(async () => {
	harness = await startHarness({ timeScale: 0 });
	await harness.sandbox.upsertAccount({ username: 'demo', credits: 1_000_000 });
	await harness.n8n.importWorkflow([retried, again]);
	n8n = await harness.n8n.startServerAsOwner();
}, 240_000);
afterAll(() => harness?.stop());

/** How many times the sandbox accepted each number of a campaign: 0, 1 and 2 or more. */
function spread(prefix: string): [number, number, number] {
	const accepted = new Map(
		harness.sandbox.received().destinations.map((d) => [d.msisdn, d.accepted] as const),
	);
	const times = Array.from(
		{ length: ROWS },
		(_, i) => accepted.get(`${prefix}${String(i).padStart(5, '0')}`) ?? 0,
	);
	return [0, 1, 2].map((n) => times.filter((t) => (n < 2 ? t === n : t >= n)).length) as [
		number,
		number,
		number,
	];
}

async function newest(workflowId: string): Promise<JsonObject> {
	const [execution] = await n8n.waitForExecutions(workflowId, settled(1), 120_000);
	return execution;
}

/** Every row of Get Delivery Status: a status read for each row sent, now or before. */
function expectEveryRowFollowed(execution: JsonObject): void {
	const [sent] = nodeRuns(execution, SEND_NODE_NAME);
	const [reports] = nodeRuns(execution, STATUS_NODE_NAME);
	expect(reports).toHaveLength(ROWS);
	const inDoubt = sent.filter((row) => row.send_outcome === 'in doubt');
	expect(inDoubt).toHaveLength(1);
	reports.forEach((report, row) => {
		if (sent[row].send_outcome === 'in doubt') {
			expect(report).toMatchObject({ outcome: 'in doubt', batch_id: null });
			return;
		}
		expect(sent[row].batch_id).toMatch(/^\d+$/);
		expect(report).toMatchObject({ batch_id: sent[row].batch_id, status: expect.any(String) });
	});
	process.stdout.write(
		`[delivery] ${String(execution.mode)} run: ${reports.filter((r) => typeof r.status === 'string').length} of ${ROWS} rows with a status, ${inDoubt.length} in doubt\n`,
	);
}

test('failed half way and retried, then Get Delivery Status: every row that was sent has a status', async () => {
	await n8n.activateWorkflow('deliveryRetried');
	await n8n.waitForWebhook(`${n8n.baseUrl}/webhook/delivery-retried`);
	faultAt(harness.sandbox, 151, 'error500');
	await fetch(`${n8n.baseUrl}/webhook/delivery-retried`, { method: 'POST' });
	const failed = await newest('deliveryRetried');
	expect(failed).toMatchObject({ mode: 'webhook', status: 'error' });
	expect((await n8n.retry(String(failed.id), false)).ok).toBe(true);
	const retry = await newest('deliveryRetried');
	expect(retry).toMatchObject({ mode: 'retry', status: 'success' });
	expect(spread('4477311')).toEqual([1, ROWS - 1, 0]);
	expectEveryRowFollowed(retry);
});

test('failed half way and run again from the editor: every row sent before keeps the batch id that took it', async () => {
	faultAt(harness.sandbox, 151, 'error500');
	const firstId = await n8n.runManually('deliveryAgain');
	await n8n.waitForExecutions('deliveryAgain', settled(1), 120_000);
	const resumedId = await n8n.runManually('deliveryAgain');
	const all = await n8n.waitForExecutions(
		'deliveryAgain',
		(summaries) =>
			settled(1)(summaries) && summaries.some((e) => String(e.id) === resumedId && e.stoppedAt),
		120_000,
	);
	const first = all.find((e) => String(e.id) === firstId)!;
	const resumed = all.find((e) => String(e.id) === resumedId)!;
	expect(first.status).toBe('error');
	expect(spread('4477312')).toEqual([1, ROWS - 1, 0]);
	expectEveryRowFollowed(resumed);
	// The batch each row was accepted in by the failed run, as its error lists them.
	const { error } = (first.data as JsonObject).resultData as {
		error: { context: { items: JsonObject[] } };
	};
	const batchOf = new Map(
		error.context.items
			.filter((entry) => entry.outcome === 'accepted')
			.map((entry) => [(entry.destinations as string[])[0], (entry.batch_ids as string[])[0]]),
	);
	const [rows] = nodeRuns(resumed, SEND_NODE_NAME);
	const numberOf = (row: JsonObject) => String((row.skipped as JsonObject[])[0]?.input);
	for (const row of rows.filter((r) => r.send_outcome === 'sent before')) {
		expect(row.batch_id).toBe(batchOf.get(numberOf(row)));
	}
	expect(rows.filter((r) => r.send_outcome === 'sent before').length).toBeGreaterThanOrEqual(150);
});
