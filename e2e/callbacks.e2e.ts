/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The status trigger inside `n8n start`: a workflow is activated through the public API, the
 * sandbox calls back its production webhook URL (/webhook/<webhookId>/status) with every status
 * change, repeats included, and each change starts the workflow once; a callback with a wrong
 * secret is refused with 401. Then examples/status-callbacks.json wired as `npm run editor` wires
 * it (scripts/n8n/callbacks.ts): a Send run by n8n starts callback executions, and every answer
 * is JSON that says what became of the reports. A credential with a blank secret, and a Bulk SMS
 * credential whose time zone does not exist, are refused at activation. Copies of a callback
 * posted at the same moment start the workflow with their report once, and different callbacks
 * posted at once share executions.
 */
import { sendDirect } from '../sandbox/client';
import { type JsonObject, nodeRuns } from '../scripts/n8n/runData';
import { type N8nServer, settled } from '../scripts/n8n/server';
import {
	callbackUrl,
	connectStatusCallbacks,
	importStatusCallbacks,
	type StatusCallbacks,
} from '../scripts/n8n/callbacks';
import { sandboxAccount } from '../scripts/n8n/service';
import {
	credential,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	SEND_NODE_NAME,
	sendOnlyWorkflow,
	STATUS_TRIGGER_NODE_TYPE,
	workflowId,
} from '../scripts/n8n/workflows';
import { startHarness, type Harness } from './harness';
import { sleep, waitUntil } from './wait';

const WORKFLOW_ID = 'e2eStatusCallback';
const TRIGGER = 'Bulk SMS Status Trigger';
const WEBHOOK_ID = '3f0c2a71-6b8e-4d95-a1c4-8e7d2b5f9a60';
const SECRET = 'e2e-9c4b1f7a2d6e3b8c5a0f1e2d3c4b5a69';
const NUMBERS = ['447700900001', '447700900005', '447700900006', '447700900007'];
/** Copies of one callback posted at the same moment, as a provider retrying on a timeout may. */
const COPIES = 20;

function statusWorkflow(): JsonObject {
	return {
		id: WORKFLOW_ID,
		name: 'Bulk SMS: status callbacks',
		nodes: [
			{
				id: 'c0a1b2c3-0000-4000-8000-000000000001',
				name: TRIGGER,
				type: STATUS_TRIGGER_NODE_TYPE,
				typeVersion: 1.1,
				position: [0, 0],
				webhookId: WEBHOOK_ID,
				parameters: { emit: 'changes', options: {} },
				credentials: {
					bulkSmsCallbackApi: { id: 'e2eCallbackSecret', name: 'Callback secret' },
					bulkSmsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME },
				},
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

const SEND_ONLY_ID = 'e2eCallbackSend01';
const BLANK_ID = 'e2eBlankSecret001';
const BAD_ZONE_ID = 'e2eBadTimeZone01';

/**
 * A trigger that can only fail, which activation must refuse: its credential's secret is only
 * spaces, or its Bulk SMS credential's time zone does not exist.
 */
function refusedWorkflow(id: string, webhookId: string, credentials: JsonObject): JsonObject {
	const workflow = statusWorkflow();
	const [trigger, report] = workflow.nodes as JsonObject[];
	return {
		...workflow,
		id,
		name: `Bulk SMS: ${id}`,
		nodes: [{ ...trigger, webhookId, credentials }, report],
	};
}

let harness: Harness;
let server: N8nServer;
let webhookUrl: string;
let example: StatusCallbacks;

beforeAll(async () => {
	harness = await startHarness({
		timeScale: 0,
		// One callback at a time, and a repeat a second after its first copy was acknowledged, as a
		// provider that missed the answer resends (copies at the same moment: the test below).
		callbacks: {
			retryBaseMs: 200,
			maxAttempts: 8,
			timeoutMs: 10_000,
			spacingMs: 1000,
			duplicateAfterMs: 1000,
		},
	});
	const secret = { bulkSmsCallbackApi: { id: 'e2eCallbackSecret', name: 'Callback secret' } };
	await harness.n8n.importWorkflow([
		statusWorkflow(),
		sendOnlyWorkflow(SEND_ONLY_ID),
		refusedWorkflow(BLANK_ID, '3f0c2a71-6b8e-4d95-a1c4-8e7d2b5f9a61', {
			bulkSmsCallbackApi: { id: 'e2eBlankSecret', name: 'Blank secret' },
		}),
		refusedWorkflow(BAD_ZONE_ID, '3f0c2a71-6b8e-4d95-a1c4-8e7d2b5f9a62', {
			...secret,
			bulkSmsApi: { id: 'e2eBadZone', name: 'Mistyped zone' },
		}),
	]);
	for (const [id, name, type, data] of [
		['e2eCallbackSecret', 'Callback secret', 'bulkSmsCallbackApi', { secret: SECRET }],
		['e2eBlankSecret', 'Blank secret', 'bulkSmsCallbackApi', { secret: '   ' }],
	] as const)
		await harness.n8n.importCredential({ id, name, type, data });
	const mistyped = credential({ ...sandboxAccount(harness.sandbox), timeZone: 'Europe/Berlim' });
	await harness.n8n.importCredential({ ...mistyped, id: 'e2eBadZone', name: 'Mistyped zone' });
	example = await importStatusCallbacks(harness.n8n, { keepEveryExecution: true });
	server = await harness.n8n.startServerAsOwner();
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
	// One answer for every refusal: it says neither the method nor what was wrong.
	expect([await wrong.json(), await none.json()]).toEqual([UNAUTHENTICATED, UNAUTHENTICATED]);
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

const UNAUTHENTICATED = {
	error: 'Not authenticated: this callback URL takes only callbacks that carry its secret',
};

test("the editor's wiring: a Send run by n8n starts callback executions of the example", async () => {
	await connectStatusCallbacks(server, example, harness.sandbox);
	const run = await harness.n8n.executeWorkflow(SEND_ONLY_ID);
	const [sent] = nodeRuns(run, SEND_NODE_NAME)[0];
	await harness.sandbox.callbacksIdle();
	const exampleId = workflowId(example.workflow);
	// One ENROUTE callback per message of the batch, each an execution (Every Status Change).
	const messages = Number(sent.batch_size);
	const executions = await server.waitForExecutions(exampleId, settled(messages), 60_000);
	const reports = executions.flatMap((e) => nodeRuns(e, 'Bulk SMS Status Trigger')[0]);
	expect(reports).toHaveLength(messages);
	expect(new Set(reports.map((report) => report.batch_id))).toEqual(new Set([sent.batch_id]));
	expect(executions.every((e) => e.status === 'success')).toBe(true);
	expect(server.log).not.toContain(example.secret);
});

test('every answer of the credential-based trigger is JSON that says what became of the report', async () => {
	const url = callbackUrl(server, example);
	const report = `{"batch_id":9007199254740999,"network_id":23410,"status":"DELIVRD","msisdn":"447700900099","gateway_session_id":18014398509489999,"delivery_date":"2026-01-15 10:00:05.0"}`;
	const post = (target: string, body = report) =>
		fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
	const exampleId = workflowId(example.workflow);
	const before = (await server.executions(exampleId)).length;
	const answers = [];
	for (const target of [url, url, `${url}x`]) {
		const res = await post(target);
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		answers.push([res.status, await res.json()]);
		await server.waitForExecutions(exampleId, settled(before + 1), 60_000);
	}
	expect(answers).toEqual([
		[200, { received: 1, repeated: 0, late: 0, emitted: 1 }],
		[200, { received: 1, repeated: 1, late: 0, emitted: 0 }],
		[401, UNAUTHENTICATED],
	]);
});

test('a report sent with a content type n8n does not parse is read from its raw body', async () => {
	// From version 1.1 on, n8n leaves such a body unread; the trigger reads it itself (webhook.ts).
	const url = callbackUrl(server, example);
	const report = (n: number) =>
		`{"batch_id":9007199254740999,"network_id":23410,"status":"DELIVRD","msisdn":"44770090014${n}","gateway_session_id":1801439850949004${n},"delivery_date":"2026-01-15 10:00:05.0"}`;
	const answers = [];
	for (const [n, type] of [
		'application/octet-stream',
		'application/vnd.provider.report',
	].entries()) {
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'Content-Type': type },
			body: report(n),
		});
		answers.push([res.status, await res.json()]);
	}
	expect(answers).toEqual(Array(2).fill([200, { received: 1, repeated: 0, late: 0, emitted: 1 }]));
});

test('copies posted at the same moment start the workflow with their report once; different callbacks at once share executions', async () => {
	const url = callbackUrl(server, example);
	const exampleId = workflowId(example.workflow);
	const before = new Set((await server.executionSummaries(exampleId)).map((e) => e.id));
	const report = (n: number) =>
		`{"reports":[{"batch_id":9007199254740999,"network_id":23410,"status":"DELIVRD","msisdn":"447700900170","gateway_session_id":${18014398509490001n + BigInt(n)},"delivery_date":"2026-01-15 10:00:05.0"}]}`;
	const postAll = (bodies: string[]) =>
		Promise.all(
			bodies.map(async (body) => {
				const res = await fetch(url, {
					method: 'POST',
					headers: { 'Content-Type': 'application/json' },
					body,
				});
				return [res.status, (await res.json()) as JsonObject] as const;
			}),
		);
	const ROUNDS = 5;
	for (let round = 0; round < ROUNDS; round++) {
		const answers = await postAll(Array<string>(COPIES).fill(report(round)));
		const emitted = answers.filter(([, body]) => body.emitted === 1);
		expect(emitted).toEqual([[200, { received: 1, repeated: 0, late: 0, emitted: 1 }]]);
		expect(answers.filter(([, body]) => body.emitted !== 1)).toEqual(
			Array(COPIES - 1).fill([200, { received: 1, repeated: 1, late: 0, emitted: 0 }]),
		);
	}
	const different = Array.from({ length: COPIES }, (_, i) => report(ROUNDS + i));
	const answers = await postAll(different);
	expect(answers).toEqual(
		different.map(() => [200, { received: 1, repeated: 0, late: 0, emitted: 1 }]),
	);
	await sleep(2000); // room for an execution that should not come
	const executions = (
		await server.waitForExecutions(exampleId, (all) => all.every((e) => Boolean(e.stoppedAt)))
	).filter((execution) => !before.has(execution.id));
	const sessions = executions.flatMap((e) =>
		nodeRuns(e, 'Bulk SMS Status Trigger')[0].map((item) => String(item.gateway_session_id)),
	);
	const expected = Array.from({ length: ROUNDS + COPIES }, (_, n) =>
		String(18014398509490001n + BigInt(n)),
	);
	expect(sessions.sort()).toEqual(expected.sort());
	// The different callbacks rode together: fewer executions than callbacks.
	expect(executions.length).toBeLessThan(ROUNDS + COPIES);
});

/**
 * n8n 2.41.1 publishes a workflow through its outbox, after the API call has answered: the
 * trigger's refusal reaches the editor as "workflowFailedToActivate" with its message, and
 * n8n's log; the webhook is never registered.
 */
test.each([
	[
		'a credential whose secret is blank',
		BLANK_ID,
		'a61',
		"Bulk SMS Status Trigger: the credential's Secret is only spaces",
	],
	[
		'a Bulk SMS credential whose time zone does not exist',
		BAD_ZONE_ID,
		'a62',
		'Bulk SMS Status Trigger: the Service Time Zone of the Bulk SMS credential, "Europe/Berlim", is not a time zone',
	],
])('%s is refused at activation, with a sentence', async (_name, id, webhookEnd, sentence) => {
	await server.activateWorkflow(id);
	await waitUntil(() => server.log.includes(sentence), 30_000);
	const url = `${server.baseUrl}/webhook/3f0c2a71-6b8e-4d95-a1c4-8e7d2b5f9${webhookEnd}/status`;
	const res = await fetch(`${url}?token=${SECRET}`, { method: 'POST', body: '{}' });
	expect(res.status).toBe(404);
});
