/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The status trigger inside `n8n start`: a workflow with the Bulk SMS Status Trigger is activated
 * through the public API, the sandbox calls back its production webhook URL
 * (/webhook/<webhookId>/status) with every status change, repeats included, and each change
 * starts the workflow once; a callback with a wrong secret is refused with 401. Callbacks are
 * spaced so that executions do not overlap: see docs/decisions.md for what holds when they do.
 */
import { sendDirect } from '../sandbox/client';
import { nodeRuns, settled, type JsonObject, type N8nServer } from '../scripts/n8n/runtime';
import { CREDENTIAL_ID, CREDENTIAL_NAME, STATUS_TRIGGER_NODE_TYPE } from '../scripts/n8n/workflows';
import { startHarness, type Harness } from './harness';

const WORKFLOW_ID = 'e2eStatusCallback';
const TRIGGER = 'Bulk SMS Status Trigger';
const WEBHOOK_ID = '3f0c2a71-6b8e-4d95-a1c4-8e7d2b5f9a60';
const SECRET = 'e2e-9c4b1f7a2d6e3b8c5a0f1e2d3c4b5a69';
const NUMBERS = ['447700900001', '447700900005', '447700900006', '447700900007'];

function statusWorkflow(): JsonObject {
	return {
		id: WORKFLOW_ID,
		name: 'Bulk SMS: status callbacks',
		nodes: [
			{
				id: 'c0a1b2c3-0000-4000-8000-000000000001',
				name: TRIGGER,
				type: STATUS_TRIGGER_NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				webhookId: WEBHOOK_ID,
				parameters: { authentication: 'token', secret: SECRET, emit: 'all', options: {} },
				credentials: { bulkSmsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
			},
			{
				id: 'c0a1b2c3-0000-4000-8000-000000000002',
				name: 'Report',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [240, 0],
				parameters: {},
			},
		],
		connections: { [TRIGGER]: { main: [[{ node: 'Report', type: 'main', index: 0 }]] } },
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

let harness: Harness;
let server: N8nServer;
let webhookUrl: string;

beforeAll(async () => {
	harness = await startHarness({
		timeScale: 0,
		// One callback at a time, and a repeat well after its first copy, as a provider that
		// resends on a timeout does: the trigger's memory is saved when an execution ends, so
		// executions that overlap (last writer wins) could let a repeat through (docs/decisions.md).
		callbacks: {
			retryBaseMs: 200,
			maxAttempts: 8,
			timeoutMs: 10_000,
			spacingMs: 1000,
			duplicateAfterMs: 1000,
		},
	});
	await harness.n8n.importWorkflow(statusWorkflow());
	server = await harness.n8n.startServer();
	await server.setupOwner();
	await server.createApiKey();
	await server.activateWorkflow(WORKFLOW_ID);
	webhookUrl = `${server.baseUrl}/webhook/${WEBHOOK_ID}/status`;
}, 300_000);

afterAll(() => harness?.stop());

test('every status change called back starts the workflow once, repeats included', async () => {
	await harness.sandbox.upsertAccount({
		username: 'demo',
		callbackUrl: `${webhookUrl}?token=${SECRET}`,
	});
	// Two callbacks are delivered twice, as at-least-once delivery does.
	harness.sandbox.queueCallbackFaults('duplicate', 'duplicate');
	const batchId = await sendDirect(harness.sandbox.baseUrl, NUMBERS, { message: 'e2e' });
	await harness.sandbox.callbacksIdle();
	harness.sandbox.queueCallbackFaults('duplicate'); // before the final statuses are seen
	harness.sandbox.advance(5000);
	await harness.sandbox.callbacksIdle();

	const { totals } = harness.sandbox.callbacks();
	expect(totals).toMatchObject({ callbacks: 8, acknowledged: 8, duplicated: 3, failed: 0 });
	const executions = await server.waitForExecutions(WORKFLOW_ID, settled(8), 60_000);
	const seen = executions.flatMap((execution) => {
		expect(execution).toMatchObject({ mode: 'webhook', status: 'success' });
		return nodeRuns(execution, TRIGGER)[0].map(
			(item) => `${String(item.msisdn)} ${String(item.status)}`,
		);
	});
	const expected = [
		...NUMBERS.map((n) => `${n} ENROUTE`),
		'447700900001 DELIVRD',
		'447700900005 ACCEPTD',
		'447700900006 UNDELIV',
		'447700900007 REJECTD',
	];
	expect(seen.sort()).toEqual(expected.sort());
	const ids = executions.flatMap((e) => nodeRuns(e, TRIGGER)[0].map((item) => item.batch_id));
	expect(new Set(ids)).toEqual(new Set([batchId])); // exact, as text
});

test('a callback with a wrong secret or none is refused with 401 and starts nothing', async () => {
	const before = (await server.executions(WORKFLOW_ID)).length;
	const report = `{"reports":[{"batch_id":9007199254740993,"network_id":23410,"status":"DELIVRD","msisdn":"447700900001","gateway_session_id":18014398509481985,"delivery_date":"2026-01-15 10:00:05.0"}]}`;
	const post = (url: string) =>
		fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: report });
	const wrong = await post(`${webhookUrl}?token=not-the-secret`);
	const none = await post(webhookUrl);
	expect([wrong.status, none.status]).toEqual([401, 401]);
	expect(await wrong.json()).toEqual({ error: 'wrong token' });
	// Something else with the right secret: 400, nothing started either.
	const ping = await fetch(`${webhookUrl}?token=${SECRET}`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: '{"event":"ping"}',
	});
	expect(ping.status).toBe(400);
	expect((await server.executions(WORKFLOW_ID)).length).toBe(before);
	expect(server.log).not.toContain(SECRET);
});
