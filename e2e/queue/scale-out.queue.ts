/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The packed package in n8n's queue mode, as a user scales out (docs/queue-mode.md): Postgres,
 * Redis, `n8n start` (main) and two `n8n worker`s, each with its own user folder. One stack, steps in
 * order, because each start costs seconds and the long Wait runs while the trigger is tested:
 *
 * - send-and-track runs on a worker, leaves it during a Wait over 65 s (n8n saves it as `waiting`
 *   in Postgres), the worker that started it is killed, and another worker finishes it, ids exact;
 * - the polling trigger polls in main and its executions run on workers; every status change is
 *   emitted once across an idle worker's kill and restarts of main, first with n8n's default
 *   poller (static data saved only when a poll emits), then with the durable poll scheduler and
 *   durable cursors on;
 * - the callback trigger (Bulk SMS Status Trigger): callbacks are received by main and executed on
 *   workers; a callback the service delivers again seconds later is emitted once; then an `n8n
 *   webhook` process receives beside main, and rounds of 20 copies of one callback posted at
 *   the same moment, split between the two, emit each report once;
 * - two alerts (Webhook → Send) at the same moment, each run on a worker: each is a campaign of its
 *   own, so both reach everyone;
 * - a campaign of 1,000 personalised SMS whose worker is killed half way, then run again: Send's
 *   record in Postgres is shared by every process, so nobody gets the message twice, and at most
 *   Concurrent Requests' numbers are in doubt.
 *
 * The trigger's sandbox has a frozen clock: the test forces each status change, so what each poll
 * sees is decided here, not by timing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { sendDirect } from '../../sandbox/client';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import type { ReportStatus } from '../../sandbox/numbers';
import { QueueStack, type QueueWorker } from '../../scripts/n8n/queue';
import { type JsonObject, nodeRuns } from '../../scripts/n8n/runData';
import { settled } from '../../scripts/n8n/server';
import { DEMO_SANDBOX, sandboxAccount } from '../../scripts/n8n/service';
import {
	alertWorkflow,
	contactsCampaign,
	credential,
	DONE_NODE_NAME,
	loadExample,
	SEND_NODE_NAME,
	STATUS_NODE_NAME,
	STATUS_TRIGGER_NODE_TYPE,
	TRIGGER_NODE_NAME,
	withParameters,
	workflowId,
} from '../../scripts/n8n/workflows';
import { packageTarball } from '../package-under-test';
import { sleep, waitUntil } from '../wait';

// Over n8n's 65 s: the worker saves the execution as waiting and lets it go.
const LONG_WAIT_SECONDS = 66;
const SEND_AND_TRACK = withParameters(loadExample('send-and-track'), 'Wait', {
	amount: LONG_WAIT_SECONDS,
	unit: 'seconds',
});
const SEND_AND_TRACK_ID = workflowId(SEND_AND_TRACK);

// n8n's durable poll scheduler and cursors; the cursors need the scheduler and the publication
// service too, or n8n logs that they "stay disabled".
const DURABLE: NodeJS.ProcessEnv = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
};

const FROZEN_CREDENTIAL = { id: 'bulkSmsFrozen001', name: 'Bulk SMS sandbox, frozen clock' };
const SECRET_CREDENTIAL = { id: 'queueCallbackSecret', name: 'Queue callback secret' };
const LEGACY_WATCH_ID = 'queueWatchLegacy';
const DURABLE_WATCH_ID = 'queueWatchDurabl';
// Numbers the sandbox accepts; with its clock frozen they stay ENROUTE until the test forces them.
const LEGACY_NUMBERS = ['447700900130', '447700900131', '447700900132'];
const DURABLE_NUMBERS = ['447700900140', '447700900141'];

// The status-callback workflow: its webhook is /webhook/<webhookId>/status?token=<secret> on main.
const CALLBACK_ID = 'queueStatusCalls';
const CALLBACK_TRIGGER = 'Bulk SMS Status Trigger';
const CALLBACK_WEBHOOK_ID = '5b7d0c1e-2f3a-4b5c-8d6e-7f8091a2b3c4';
const CALLBACK_SECRET = 'queue-7e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b';
const CALLBACK_NUMBERS = ['447700900150', '447700900156'];
/**
 * Rounds of copies split between main and a webhook process (BULKSMS_QUEUE_SPLIT_ROUNDS, at most
 * 50: each round starts up to two executions, and the listing reads the latest 100).
 */
const SPLIT_ROUNDS = Number(process.env.BULKSMS_QUEUE_SPLIT_ROUNDS) || 20;
const COPIES = 20;

// A campaign whose worker is killed half way (Send's record).
const CAMPAIGN_SIZE = 1000;
const CAMPAIGN_PREFIX = '4477888';
const CAMPAIGN = contactsCampaign('queueCampaign', {
	count: CAMPAIGN_SIZE,
	prefix: CAMPAIGN_PREFIX,
});
const CAMPAIGN_ID = workflowId(CAMPAIGN);
/** Send's default Concurrent Requests: what a worker's death may leave in doubt, one number a request. */
const CONCURRENT_REQUESTS = 8;

// An alert called twice at the same moment; main receives the calls, workers run them.
const ALERT_NUMBERS = ['447700911001', '447700911002'];
const ALERT_PATH = 'queue-alert';
const ALERT = alertWorkflow(
	'queueAlert',
	ALERT_NUMBERS.join(', '),
	{},
	{ webhookPath: ALERT_PATH },
);

interface Watched {
	workflowId: string;
	batchId: string;
	/** gateway_session_id of each number */
	sessions: Record<string, string>;
	/** every [msisdn, status] the trigger must emit, once each */
	expected: string[];
}

let live: Sandbox;
let frozen: Sandbox;
let stack: QueueStack;
let legacy: Watched;
let durable: Watched;
let sendAndTrackExecution: string;
let startedOn: QueueWorker;
const report: Record<string, unknown> = {};

beforeAll(async () => {
	// Send-and-track's service finishes messages 3 s after sending; the trigger's is frozen.
	[live, frozen] = await Promise.all([startSandbox(DEMO_SANDBOX), startSandbox({ timeScale: 0 })]);
	legacy = await sendBatch(LEGACY_WATCH_ID, LEGACY_NUMBERS);
	durable = await sendBatch(DURABLE_WATCH_ID, DURABLE_NUMBERS);
	const started = Date.now();
	stack = await QueueStack.start({
		tarball: packageTarball(),
		credentials: [
			credential(sandboxAccount(live)),
			{ ...credential(sandboxAccount(frozen)), ...FROZEN_CREDENTIAL },
			{ ...SECRET_CREDENTIAL, type: 'bulkSmsCallbackApi', data: { secret: CALLBACK_SECRET } },
		],
		workflows: [
			SEND_AND_TRACK,
			watchWorkflow(legacy),
			watchWorkflow(durable),
			callbackWorkflow(),
			CAMPAIGN,
			ALERT,
		],
	});
	report.stackStartMs = Date.now() - started;
	report.stackTimings = stack.timings;
	report.memoryAfterStartMb = stack.memory();
}, 300_000);

afterAll(async () => {
	if (stack) report.logs = keepLogs(stack);
	const stopped = Date.now();
	await stack?.stop();
	await Promise.all([live?.stop(), frozen?.stop()]);
	report.stackStopMs = Date.now() - stopped;
	process.stdout.write(`\n[queue] ${JSON.stringify(report, null, 2)}\n`);
}, 60_000);

describe('send-and-track on workers', () => {
	test(`starts on a worker and, in its ${LONG_WAIT_SECONDS} s Wait, leaves it for Postgres`, async () => {
		const started = await stack.main.request<{ data: { executionId: string } }>(
			'POST',
			`/rest/workflows/${SEND_AND_TRACK_ID}/run`,
			{ body: { triggerToStartFrom: { name: 'Start' } } },
		);
		sendAndTrackExecution = String(started.data.executionId);
		const execution = await waitForExecution(sendAndTrackExecution, ['waiting'], 60_000);

		expect(execution).toMatchObject({ status: 'waiting', mode: 'manual' });
		const worker = stack.workerThatStarted(sendAndTrackExecution);
		expect(worker).toBeDefined();
		startedOn = worker as QueueWorker;
		expect(stack.main.log).not.toContain(`Worker started execution ${sendAndTrackExecution}`);
		report.sendAndTrack = { execution: sendAndTrackExecution, startedOn: startedOn.name };
	});
});

describe("the polling trigger in main, n8n's default poller", () => {
	test('polls in main on activation; its execution runs on a worker', async () => {
		await pollSoonAfterActivation(legacy);
		await stack.main.activateWorkflow(legacy.workflowId);
		const [first] = await stack.main.waitForExecutions(legacy.workflowId, settled(1), 30_000);

		expect(first).toMatchObject({ mode: 'trigger', status: 'success' });
		expect(emitted(first, legacy)).toEqual(pairs(LEGACY_NUMBERS, 'ENROUTE'));
		expect(stack.workerThatStarted(String(first.id))).toBeDefined();
	});

	test("n8n's own scheduled poll finds no change and emits nothing (n8n saves no static data)", async () => {
		const polls = statusRequests(legacy);
		await waitUntil(() => statusRequests(legacy) > polls, 65_000);
		await sleep(2000); // room for an execution that should not come

		expect(await stack.main.executions(legacy.workflowId)).toHaveLength(1);
	});

	test("after an idle worker's kill and a restart of main, the changes made meanwhile are emitted once", async () => {
		// The worker that started send-and-track is idle: the execution waits in Postgres.
		await stack.main.waitForExecutions(legacy.workflowId, settled(1), 10_000);
		await startedOn.kill();
		await force(legacy, { '447700900130': 'DELIVRD', '447700900131': 'UNDELIV' });
		const restarted = Date.now();
		// A third worker meanwhile, for the durable part, which kills one more.
		await Promise.all([
			stack.restartMain().then(() => (report.mainRestartMs = Date.now() - restarted)),
			stack.addWorker(),
		]);

		// n8n polls again when main activates the workflow at start.
		const [latest] = await stack.main.waitForExecutions(legacy.workflowId, settled(2), 30_000);
		expect(emitted(latest, legacy)).toEqual([
			['447700900130', 'DELIVRD'],
			['447700900131', 'UNDELIV'],
		]);
		expect(stack.workerThatStarted(String(latest.id))).not.toBe(startedOn);
	});
});

describe('the polling trigger with the durable poll scheduler and durable cursors', () => {
	test('main restarted with them on: the cursors are enabled and a new trigger emits what it finds', async () => {
		await stack.restartMain(DURABLE);
		expect(stack.main.log).not.toContain('durable poll cursors stay disabled');

		await stack.main.activateWorkflow(durable.workflowId);
		const [first] = await stack.main.waitForExecutions(durable.workflowId, settled(1), 30_000);
		expect(emitted(first, durable)).toEqual(pairs(DURABLE_NUMBERS, 'ENROUTE'));
		expect(stack.workerThatStarted(String(first.id))).toBeDefined();
	});
});

describe('send-and-track resumes (its Wait ran meanwhile)', () => {
	test('on the other worker, after its Wait, and ends with the exact batch id', async () => {
		const execution = await waitForExecution(sendAndTrackExecution, ['success', 'error'], 90_000);
		expect(execution.status).toBe('success');

		const resumedOn = [...stack.workers.values()].filter(
			(worker) =>
				worker !== startedOn && worker.startedExecutions().includes(sendAndTrackExecution),
		);
		expect(resumedOn).toHaveLength(1);
		expect(startedOn.alive).toBe(false);

		// The batch the sandbox issued (above 2^53), as a string everywhere, sent once.
		const received = live.received();
		const [batch] = received.batches;
		const [sent] = nodeRuns(execution, SEND_NODE_NAME)[0];
		const [status] = nodeRuns(execution, STATUS_NODE_NAME).at(-1) ?? [];
		const [rows] = nodeRuns(execution, DONE_NODE_NAME);
		expect(received.batches).toHaveLength(1);
		expect(sent.batch_id).toBe(batch.batch_id);
		expect(BigInt(String(sent.batch_id))).toBeGreaterThan(2n ** 53n);
		expect(status.batch_id).toBe(batch.batch_id);
		const sentRows = rows.filter((row) => row.result === 'sent');
		expect(sentRows.length).toBeGreaterThan(0);
		for (const row of sentRows) expect(row.batch_id).toBe(batch.batch_id);
		for (const destination of received.destinations) expect(destination.accepted).toBe(1);
		report.sendAndTrack = {
			...(report.sendAndTrack as object),
			resumedOn: resumedOn[0].name,
			batchId: batch.batch_id,
		};
	});
});

describe('the durable poll scheduler and cursors, continued', () => {
	test("after an idle worker's kill and a restart of main, n8n's scheduled polls emit each change once", async () => {
		await stack.main.waitForExecutions(durable.workflowId, settled(1), 10_000);
		const idle = [...stack.workers.values()].filter((worker) => worker.alive);
		await idle[0].kill();
		await force(legacy, { '447700900132': 'DELIVRD' });
		await force(durable, { '447700900140': 'DELIVRD', '447700900141': 'REJECTD' });
		await stack.restartMain(DURABLE);

		// Jobs already scheduled: no poll at start; the scheduler's next minute does it.
		const [legacyLatest] = await stack.main.waitForExecutions(
			legacy.workflowId,
			settled(3),
			75_000,
		);
		const [durableLatest] = await stack.main.waitForExecutions(
			durable.workflowId,
			settled(2),
			75_000,
		);
		expect(emitted(legacyLatest, legacy)).toEqual([['447700900132', 'DELIVRD']]);
		expect(emitted(durableLatest, durable)).toEqual([
			['447700900140', 'DELIVRD'],
			['447700900141', 'REJECTD'],
		]);
	});
});

describe('exactly once, over every execution', () => {
	test.each([
		['default poller, then durable', () => legacy],
		['durable', () => durable],
	])('%s: each status change emitted once, each execution on a worker', async (_, watched) => {
		const { workflowId: id, expected } = watched();
		await sleep(2000); // room for an execution that should not come
		const executions = await stack.main.executions(id);
		const all = executions.flatMap((execution) => emitted(execution, watched()));

		expect(all.map((pair) => pair.join(' ')).sort()).toEqual([...expected].sort());
		for (const execution of executions)
			expect(stack.workerThatStarted(String(execution.id))).toBeDefined();
		report[`emitted ${id}`] = executions.map((execution) => ({
			execution: execution.id,
			on: stack.workerThatStarted(String(execution.id))?.name,
			items: emitted(execution, watched()).map((pair) => pair.join(' ')),
		}));
		report.memoryAtEndMb = stack.memory();
	});
});

describe('the callback trigger', () => {
	test('callbacks are received by main and run on workers; one delivered again 3 s later is emitted once', async () => {
		await stack.main.activateWorkflow(CALLBACK_ID);
		const url = `${stack.main.baseUrl}/webhook/${CALLBACK_WEBHOOK_ID}/status?token=${CALLBACK_SECRET}`;
		await frozen.upsertAccount({ username: 'demo', callbackUrl: url });
		// The first two callbacks are delivered twice, as at-least-once delivery may: the repeat 3 s
		// after the first copy was acknowledged, as a service that missed the answer would resend.
		// The trigger remembers what it emitted when that execution ends on a worker; a repeat or
		// another callback arriving before then is the window docs/queue-mode.md describes.
		frozen.setCallbacks({ spacingMs: 1500, duplicateAfterMs: 3000 });
		frozen.queueCallbackFaults('duplicate', 'duplicate');
		const calls = await sendBatch(CALLBACK_ID, CALLBACK_NUMBERS);
		await frozen.callbacksIdle();
		await force(calls, { '447700900150': 'DELIVRD', '447700900156': 'UNDELIV' });
		await frozen.callbacksIdle();

		const { totals } = frozen.callbacks();
		const expected = [...CALLBACK_NUMBERS.map((msisdn) => `${msisdn} ENROUTE`), ...calls.expected];
		await sleep(2000); // room for an execution that should not come
		const executions = await stack.main.waitForExecutions(
			CALLBACK_ID,
			settled(expected.length),
			30_000,
		);
		const items = (execution: JsonObject) => nodeRuns(execution, CALLBACK_TRIGGER)[0];
		report.callbacks = {
			totals,
			executions: executions.map((execution) => ({
				execution: execution.id,
				on: stack.workerThatStarted(String(execution.id))?.name,
				items: items(execution).map((item) => `${String(item.msisdn)} ${String(item.status)}`),
			})),
		};
		expect(totals).toMatchObject({ duplicated: 2, failed: 0 });
		const seen = executions.flatMap((execution) =>
			items(execution).map((item) => {
				expect(item.batch_id).toBe(calls.batchId);
				return `${String(item.msisdn)} ${String(item.status)}`;
			}),
		);
		expect(seen.sort()).toEqual(expected.sort());
		for (const execution of executions) {
			expect(execution).toMatchObject({ mode: 'webhook', status: 'success' });
			expect(stack.workerThatStarted(String(execution.id))).toBeDefined();
		}
	});
});

describe('copies of a callback split between two receivers', () => {
	test(`main and an n8n webhook process, ${SPLIT_ROUNDS} rounds of ${COPIES} copies posted at once: each report emitted once`, async () => {
		const workflow = await stack.main.request<JsonObject>(
			'GET',
			`/api/v1/workflows/${CALLBACK_ID}`,
			{
				auth: 'apiKey',
			},
		);
		if (!workflow.active) await stack.main.activateWorkflow(CALLBACK_ID); // when run alone (-t)
		const webhook = await stack.addWebhookProcess();
		const receivers = [stack.main.baseUrl, webhook.baseUrl];
		const path = `/webhook/${CALLBACK_WEBHOOK_ID}/status?token=${CALLBACK_SECRET}`;
		const before = new Set((await stack.main.executionSummaries(CALLBACK_ID)).map((e) => e.id));
		const sessions: string[] = [];
		for (let round = 0; round < SPLIT_ROUNDS; round++) {
			const session = String(18014398509500001n + BigInt(round));
			sessions.push(session);
			const body = `{"reports":[{"batch_id":9007199254740993,"network_id":23410,"status":"DELIVRD","msisdn":"447700900160","gateway_session_id":${session},"delivery_date":"2026-01-15 10:00:05.0"}]}`;
			const answers = await Promise.all(
				Array.from({ length: COPIES }, (_, i) =>
					fetch(`${receivers[i % 2]}${path}`, {
						method: 'POST',
						headers: { 'Content-Type': 'application/json' },
						body,
					}),
				),
			);
			expect(answers.map((answer) => answer.status)).toEqual(Array(COPIES).fill(200));
		}
		await sleep(3000); // room for executions still being queued
		const all = await stack.main.waitForExecutions(
			CALLBACK_ID,
			(summaries) => summaries.every((e) => Boolean(e.stoppedAt)),
			60_000,
		);
		const executions = all.filter((execution) => !before.has(execution.id));
		const times = new Map(sessions.map((session) => [session, 0]));
		for (const execution of executions) {
			for (const item of nodeRuns(execution, CALLBACK_TRIGGER)[0]) {
				const session = String(item.gateway_session_id);
				times.set(session, (times.get(session) ?? 0) + 1);
			}
		}
		const counts = [...times.values()];
		report.splitCopies = {
			rounds: SPLIT_ROUNDS,
			copies: COPIES,
			executions: executions.length,
			emittedTwice: counts.filter((n) => n > 1).length,
			twiceInRounds: counts.flatMap((n, round) => (n > 1 ? [round] : [])),
			missed: counts.filter((n) => n === 0).length,
			on: executions.map((execution) => stack.workerThatStarted(String(execution.id))?.name),
		};
		expect(counts).toEqual(Array(SPLIT_ROUNDS).fill(1));
	});
});

describe('alerts on workers', () => {
	test('two alerts at the same moment (the service answering in 300 ms) run on workers and both reach everyone', async () => {
		live.setFaults({ latencyMs: 300 });
		await stack.main.activateWorkflow(workflowId(ALERT));
		const url = `${stack.main.baseUrl}/webhook/${ALERT_PATH}`;
		await stack.main.waitForWebhook(url);
		const answers = await Promise.all([1, 2].map(() => fetch(url, { method: 'POST' })));
		live.setFaults({});

		expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
		const executions = await stack.main.waitForExecutions(workflowId(ALERT), settled(2), 60_000);
		const accepted = new Map(live.received().destinations.map((d) => [d.msisdn, d.accepted]));
		report.alertsAtOnce = {
			accepted: ALERT_NUMBERS.map((msisdn) => accepted.get(msisdn) ?? 0),
			on: executions.map((execution) => stack.workerThatStarted(String(execution.id))?.name),
		};
		expect(ALERT_NUMBERS.map((msisdn) => accepted.get(msisdn))).toEqual([2, 2]);
		for (const execution of executions) {
			expect(execution).toMatchObject({ mode: 'webhook', status: 'success' });
			expect(stack.workerThatStarted(String(execution.id))).toBeDefined();
			const outcomes = nodeRuns(execution, SEND_NODE_NAME)[0].map((item) => item.send_outcome);
			expect(outcomes).toEqual(['accepted']);
		}
	});
});

describe('a campaign whose worker dies half way', () => {
	test('run again on another worker: nobody gets the message twice', async () => {
		await live.upsertAccount({ username: 'demo', credits: 1_000_000 });
		live.setFaults({ latencyMs: 5 });
		const first = await stack.main.runManually(CAMPAIGN_ID);
		const accepted = () => campaignAcceptances().filter((n) => n > 0).length;
		await waitUntil(() => accepted() >= CAMPAIGN_SIZE / 2, 120_000);
		const worker = stack.workerThatStarted(first);
		expect(worker).toBeDefined();
		await worker!.kill();
		const beforeKill = accepted();
		live.setFaults({});
		await stack.addWorker();
		const again = await stack.main.runManually(CAMPAIGN_ID);
		const [resumed] = (
			await stack.main.waitForExecutions(
				CAMPAIGN_ID,
				(summaries) => summaries.some((e) => String(e.id) === again && e.stoppedAt),
				120_000,
			)
		).filter((execution) => String(execution.id) === again);
		expect(resumed.status).toBe('success');
		const times = campaignAcceptances();
		// One number a request: a row in doubt holds back that one number.
		const doubtful = nodeRuns(resumed, SEND_NODE_NAME)[0].filter(
			(item) => item.send_outcome === 'in doubt',
		);
		const inDoubt = doubtful.flatMap((item) =>
			(item.skipped as JsonObject[])
				.filter((entry) => entry.state === 'in doubt')
				.map((entry) => String(entry.input)),
		);
		report.campaignWorkerKilled = {
			acceptedBeforeKill: beforeKill,
			twice: times.filter((n) => n > 1).length,
			inDoubt: inDoubt.length,
			neverSent: times.filter((n) => n === 0).length,
			resumedOn: stack.workerThatStarted(again)?.name,
		};
		expect(times.filter((n) => n > 1)).toEqual([]);
		times.forEach((n, i) => {
			if (n === 0) expect(inDoubt).toContain(campaignNumber(i));
		});
		expect(inDoubt).toHaveLength(doubtful.length);
		expect(inDoubt.length).toBeLessThanOrEqual(CONCURRENT_REQUESTS);
		for (const item of doubtful)
			expect(item.reason).toMatch(/^in doubt: .* no answer was recorded/);
	});
});

function campaignNumber(index: number): string {
	return `${CAMPAIGN_PREFIX}${String(index).padStart(5, '0')}`;
}

function campaignAcceptances(): number[] {
	const accepted = new Map(
		live.received().destinations.map((d) => [d.msisdn, d.accepted] as const),
	);
	return Array.from({ length: CAMPAIGN_SIZE }, (_, i) => accepted.get(campaignNumber(i)) ?? 0);
}

// ---------------------------------------------------------------------------------------------

/**
 * Writes every process's log to e2e/queue/logs (replaced each run, ignored by git) and returns
 * where, with the warnings and errors n8n logged: what explains a failure in a CI excerpt.
 */
function keepLogs(queue: QueueStack): { folder: string; warnings: string[] } {
	const folder = path.join(__dirname, 'logs');
	fs.rmSync(folder, { recursive: true, force: true });
	fs.mkdirSync(folder);
	const warnings: string[] = [];
	for (const [name, log] of Object.entries(queue.logs())) {
		fs.writeFileSync(path.join(folder, `${name}.log`), log);
		for (const line of log.split('\n'))
			if (/\b(warn|warning|error)\b/i.test(line)) warnings.push(`${name}: ${line.slice(0, 300)}`);
	}
	return { folder, warnings: warnings.slice(-40) };
}

/** A Bulk SMS Status Trigger (every status, secret in the URL) and a No Op. */
function callbackWorkflow(): JsonObject {
	return {
		id: CALLBACK_ID,
		name: 'Queue: status callbacks',
		nodes: [
			{
				id: '5b7d0c1e-0000-4000-8000-000000000001',
				name: CALLBACK_TRIGGER,
				type: STATUS_TRIGGER_NODE_TYPE,
				typeVersion: 1.1,
				position: [0, 0],
				webhookId: CALLBACK_WEBHOOK_ID,
				parameters: { emit: 'changes', options: {} },
				credentials: { bulkSmsCallbackApi: SECRET_CREDENTIAL, bulkSmsApi: FROZEN_CREDENTIAL },
			},
			{
				id: '5b7d0c1e-0000-4000-8000-000000000002',
				name: 'Report',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [240, 0],
				parameters: {},
			},
		],
		connections: { [CALLBACK_TRIGGER]: { main: [[{ node: 'Report', type: 'main', index: 0 }]] } },
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

async function sendBatch(id: string, numbers: string[]): Promise<Watched> {
	const { username, password } = sandboxAccount(frozen);
	const batchId = await sendDirect(frozen.baseUrl, numbers, {
		message: 'queue mode',
		username,
		password,
	});
	const batch = frozen.received().batches.find((sent) => sent.batch_id === batchId);
	if (!batch) throw new Error(`the sandbox holds no batch ${batchId} after sending it`);
	const sessions = Object.fromEntries(
		batch.messages.map((message) => [message.msisdn, message.gateway_session_id]),
	);
	return { workflowId: id, batchId: batch.batch_id, sessions, expected: [] };
}

/** examples/watch-deliveries.json on the frozen sandbox: every change, and what is there at first. */
function watchWorkflow(watched: Watched, initial = true): JsonObject {
	if (initial)
		watched.expected.push(...Object.keys(watched.sessions).map((msisdn) => `${msisdn} ENROUTE`));
	const example = withParameters(loadExample('watch-deliveries'), TRIGGER_NODE_NAME, {
		batchIds: watched.batchId,
		emit: 'changes',
		emitExisting: true,
	});
	const nodes = (example.nodes as JsonObject[]).map((node) =>
		node.credentials ? { ...node, credentials: { bulkSmsApi: FROZEN_CREDENTIAL } } : node,
	);
	return { ...example, id: watched.workflowId, name: `Queue: ${watched.workflowId}`, nodes };
}

/**
 * Sets the trigger's schedule to once a minute at the second 10 s from now (a custom cron, as a
 * user may set it): n8n's first scheduled poll then follows the activation's within seconds,
 * instead of up to a minute later with "Every Minute".
 */
async function pollSoonAfterActivation(watched: Watched): Promise<void> {
	const second = (new Date().getUTCSeconds() + 10) % 60;
	const workflow = withParameters(watchWorkflow(watched, false), TRIGGER_NODE_NAME, {
		pollTimes: { item: [{ mode: 'custom', cronExpression: `${second} * * * * *` }] },
	});
	const { name, nodes, connections, settings } = workflow;
	await stack.main.request('PUT', `/api/v1/workflows/${watched.workflowId}`, {
		auth: 'apiKey',
		body: { name, nodes, connections, settings },
	});
}

async function force(watched: Watched, statuses: Record<string, ReportStatus>): Promise<void> {
	for (const [msisdn, status] of Object.entries(statuses)) {
		await frozen.forceStatus(watched.sessions[msisdn], status);
		watched.expected.push(`${msisdn} ${status}`);
	}
}

/** [msisdn, status] of each item the trigger emitted in one execution. */
function emitted(execution: JsonObject, watched: Watched): string[][] {
	const [items] = nodeRuns(execution, TRIGGER_NODE_NAME);
	for (const item of items) expect(item.batch_id).toBe(watched.batchId);
	return items.map((item) => [String(item.msisdn), String(item.status)]);
}

function pairs(numbers: string[], status: string): string[][] {
	return numbers.map((msisdn) => [msisdn, status]);
}

/** get_status requests for the watched batch the sandbox answered so far. */
function statusRequests(watched: Watched): number {
	return frozen
		.requests()
		.filter((request) => request.query.includes(`batch_id=${watched.batchId}`)).length;
}

/** One execution through the public API, once its status is one of `statuses`. */
async function waitForExecution(
	id: string,
	statuses: string[],
	timeoutMs: number,
): Promise<JsonObject> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const execution = await stack.main.request<JsonObject>(
			'GET',
			`/api/v1/executions/${id}?includeData=true`,
			{ auth: 'apiKey' },
		);
		if (statuses.includes(String(execution.status))) return execution;
		if (Date.now() > deadline)
			throw new Error(`execution ${id} still ${String(execution.status)} after ${timeoutMs} ms`);
		await sleep(500);
	}
}
