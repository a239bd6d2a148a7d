/**
 * The smoke: what a user meets first, on each n8n release the README's compatibility table names.
 * It runs with the other e2e suites on n8n 2.x, and alone on the last 1.x line (`npm run
 * test:e2e:n8n1`; BULKSMS_N8N_VERSION picks the release, scripts/n8n/provision.ts). One n8n:
 * headless, examples/send-and-track.json and Bulk SMS as an AI tool through n8n's Tool Executor;
 * then in `n8n start`, the credential test with the right and a wrong password, the polling
 * trigger and the Status Trigger (examples/status-callbacks.json) active. The other suites check
 * each in depth on 2.x.
 */
import { sendDirect } from '../sandbox/client';
import {
	connectStatusCallbacks,
	importStatusCallbacks,
	type StatusCallbacks,
} from '../scripts/n8n/callbacks';
import { type JsonObject, nodeRuns } from '../scripts/n8n/runData';
import { type N8nServer, settled } from '../scripts/n8n/server';
import { DEMO_SANDBOX, sandboxAccount } from '../scripts/n8n/service';
import {
	credential,
	DONE_NODE_NAME,
	loadExample,
	SEND_NODE_NAME,
	STATUS_TRIGGER_NODE_TYPE,
	TOOL_EXECUTOR_NODE_NAME,
	toolWorkflow,
	TRIGGER_NODE_NAME,
	withParameters,
	workflowId,
} from '../scripts/n8n/workflows';
import { startHarness, type Harness } from './harness';

const SEND_AND_TRACK = loadExample('send-and-track');
const WATCH = loadExample('watch-deliveries');
const TOOL_ID = 'e2eSmokeAiTool01';
const TOOL_CALL = { destinations: '+44 7700 900120', message: 'Sent by an AI tool call' };
/**
 * A tool whose Message reads `$json`: as a tool, n8n resolves `$json` over the items of the node
 * that calls it (the Tool Executor's, here Start's empty item), not over the call; Send's reading
 * of `$json` from its input items (nodes/shared/jsonExpressions.ts) must then step aside.
 */
const TOOL_JSON_ID = 'e2eSmokeAiTool02';
const TOOL_JSON_MESSAGE = '=Tool call, destinations in $json: [{{ $json.destinations }}]';

// What the example's numbers become (sandbox/README.md): the rows of its last node.
const TRACKED_ROWS = [
	['447700900120', 'sent', 'DELIVRD'],
	['447700900125', 'sent', 'ACCEPTD'],
	['447700900126', 'sent', 'UNDELIV'],
	['447700900127', 'sent', 'REJECTD'],
	['999123456780', 'dropped', ''],
	['12345', 'skipped', ''],
];

let harness: Harness;
let server: N8nServer;
let tracked: JsonObject;
let toolRun: JsonObject;
let toolJsonRun: JsonObject;
let trackedBatchId: string;
let callbacks: StatusCallbacks;

beforeAll(async () => {
	harness = await startHarness(DEMO_SANDBOX);
	const version = harness.n8n.provisioned.n8nVersion;
	const tool = toolWorkflow(TOOL_ID, TOOL_CALL, version);
	const toolJson = toolWorkflow(TOOL_JSON_ID, TOOL_CALL, version, TOOL_JSON_MESSAGE);
	await harness.n8n.importWorkflow([SEND_AND_TRACK, tool, toolJson]);
	tracked = await harness.n8n.executeWorkflow(workflowId(SEND_AND_TRACK));
	toolRun = await harness.n8n.executeWorkflow(TOOL_ID);
	toolJsonRun = await harness.n8n.executeWorkflow(TOOL_JSON_ID);
	trackedBatchId = String(nodeRuns(tracked, SEND_NODE_NAME)[0][0].batch_id);
	// The trigger watches the batch just tracked: final by now, so its first poll reports it.
	const watch = { batchIds: trackedBatchId, emit: 'changes', emitExisting: true };
	await harness.n8n.importWorkflow(withParameters(WATCH, TRIGGER_NODE_NAME, watch));
	// examples/status-callbacks.json with its callback credential, as `npm run editor` sets it up,
	// every execution kept so that the test can read them (the example keeps failed ones only).
	callbacks = await importStatusCallbacks(harness.n8n, { keepEveryExecution: true });
	server = await harness.n8n.startServerAsOwner();
}, 300_000);

afterAll(() => harness?.stop());

test('examples/send-and-track.json runs to its end: a row per number, each final', () => {
	expect(tracked).toMatchObject({ status: 'success', finished: true });
	const [rows] = nodeRuns(tracked, DONE_NODE_NAME);
	expect(rows.map((row) => [row.number, row.result, row.status])).toEqual(TRACKED_ROWS);
});

test("as an AI tool, through n8n's Tool Executor, it sends what the call asks, once", () => {
	expect(toolRun).toMatchObject({ status: 'success', finished: true });
	const tool = harness.sandbox
		.received()
		.batches.filter((batch) => batch.message === TOOL_CALL.message);
	expect(tool.map((batch) => batch.messages.map((message) => message.msisdn))).toEqual([
		['447700900120'],
	]);
	const [answer] = nodeRuns(toolRun, TOOL_EXECUTOR_NODE_NAME)[0];
	expect(JSON.stringify(answer)).toContain(tool[0].batch_id);
});

test('as an AI tool, its $json is what n8n makes of it, not the tool call', () => {
	expect(toolJsonRun).toMatchObject({ status: 'success', finished: true });
	const messages = harness.sandbox
		.received()
		.batches.map((batch) => batch.message)
		.filter((message) => message.startsWith('Tool call'));
	expect(messages).toEqual(['Tool call, destinations in $json: []']);
});

test('the credential test passes with the right password and refuses a wrong one', async () => {
	const testWith = (password: string) => {
		const { data, ...saved } = credential(sandboxAccount(harness.sandbox));
		const credentials = { ...saved, data: { ...(data as JsonObject), password } };
		return server.request<JsonObject>('POST', '/rest/credentials/test', { body: { credentials } });
	};
	// n8n 1.x words a 401 itself, before the credential's own rules see it (README, "Compatibility").
	const refused =
		harness.n8n.provisioned.n8nVersion.split('.')[0] === '1'
			? 'Authorization failed - please check your credentials'
			: expect.stringMatching(/^Wrong username or password/);

	expect(await testWith(sandboxAccount(harness.sandbox).password)).toMatchObject({
		data: { status: 'OK' },
	});
	expect(await testWith('wrong')).toEqual({ data: { status: 'Error', message: refused } });
});

test('the polling trigger, active, reports the watched batch', async () => {
	const id = workflowId(WATCH);
	await server.activateWorkflow(id);
	const [first] = await server.waitForExecutions(id, settled(1), 60_000);

	expect(first).toMatchObject({ mode: 'trigger', status: 'success' });
	const [items] = nodeRuns(first, TRIGGER_NODE_NAME);
	expect(items.map((item) => [item.batch_id, item.msisdn, item.status])).toEqual(
		TRACKED_ROWS.filter(([, result]) => result === 'sent').map(([msisdn, , status]) => [
			trackedBatchId,
			msisdn,
			status,
		]),
	);
});

test('the Status Trigger, active, starts the workflow for each callback and refuses a wrong token', async () => {
	const url = await connectStatusCallbacks(server, callbacks, harness.sandbox);
	const id = workflowId(callbacks.workflow);
	const trigger = (callbacks.workflow.nodes as JsonObject[]).find(
		(node) => node.type === STATUS_TRIGGER_NODE_TYPE,
	);
	const batchId = await sendDirect(harness.sandbox.baseUrl, ['447700900001'], { message: 'smoke' });
	// ENROUTE at once, DELIVRD 3 s later (the demo's clock): two callbacks, two executions.
	const executions = await server.waitForExecutions(id, settled(2), 60_000);
	const reports = executions.flatMap((execution) =>
		nodeRuns(execution, String(trigger?.name))[0].map((item) => [item.batch_id, item.status]),
	);
	expect(reports.sort()).toEqual([
		[batchId, 'DELIVRD'],
		[batchId, 'ENROUTE'],
	]);

	const wrong = await fetch(url.replace(callbacks.secret, 'not-the-secret'), {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ reports: [{ batch_id: batchId, msisdn: '447700900001' }] }),
	});
	expect(wrong.status).toBe(401);
	expect(await server.executionSummaries(id)).toHaveLength(2);
});
