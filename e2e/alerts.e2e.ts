/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Alerts in the real product: `n8n start` (n8n 2.41.1), the packed package, the sandbox on
 * 127.0.0.1. An alert workflow (Webhook → Send SMS, the same text to the same numbers every time)
 * is active and called again and again. Each production run is a campaign of its own, so every
 * alert reaches every valid number, whatever an earlier alert met: a bad number, an opt-out, a
 * refusal, a 500, an alert at the same moment, a test from the editor. Counted per number at the
 * sandbox. Then the same workflow run by `n8n execute`, and a run that held numbers back (a
 * Campaign Key makes two calls one campaign) saying so where users look.
 */
import type { FaultOptions } from '../sandbox/server';
import { nodeRuns, nodeTasks, type JsonObject } from '../scripts/n8n/runData';
import { settled, type N8nServer } from '../scripts/n8n/server';
import {
	alertWorkflow,
	SEND_NODE_NAME,
	WEBHOOK_NODE_NAME,
	type SendSetup,
} from '../scripts/n8n/workflows';
import { startHarness, type Harness } from './harness';
import { sleep } from './wait';

const PLENTY = 1_000_000;
/** Alerts one after another come this far apart, as alerts a few seconds apart do. */
const APART_MS = 2000;

/** The calls that make a row's alerts; each resolves once n8n has answered (the run has ended). */
interface Hook {
	live(): Promise<void>;
	/** The editor's test: listening on the Webhook, then a call of its test URL. */
	test(): Promise<void>;
}
type Alerts = (hook: Hook) => Promise<void>;

interface Row {
	title: string;
	/** The valid numbers on the list, each counted at the sandbox. */
	numbers: string[];
	/**
	 * More of the list, never sent: an invalid number. Typed in Send, it fails each run once the
	 * valid numbers are sent (so that an error workflow hears of it).
	 */
	invalid?: string[];
	send?: SendSetup;
	/** What the sandbox does from the row's start. */
	faults?: Partial<FaultOptions>;
	alerts: Alerts;
	/** How many alerts n8n runs. */
	runs: number;
	/** Times each valid number is accepted. */
	expected: number[];
}

/** `count` alerts one after another; `before` sets up what the sandbox does for each. */
function oneAfterAnother(count: number, before: (alert: number) => unknown = () => {}): Alerts {
	return async (hook) => {
		for (let alert = 1; alert <= count; alert++) {
			await before(alert);
			await hook.live();
			await sleep(APART_MS);
		}
	};
}

const atOnce =
	(count: number): Alerts =>
	async (hook) => {
		await Promise.all(Array.from({ length: count }, () => hook.live()));
	};

const testedThenLive: Alerts = async (hook) => {
	await hook.test();
	await hook.live();
};

const onFail = { settings: { onError: 'continueRegularOutput' } };

const ROWS: Row[] = [
	{
		title: 'one valid number',
		numbers: ['447700910101'],
		alerts: oneAfterAnother(3),
		runs: 3,
		expected: [3],
	},
	{
		title: 'two valid numbers and one invalid (12345) on the list',
		numbers: ['447700910201', '447700910202'],
		invalid: ['12345'],
		alerts: oneAfterAnother(3),
		runs: 3,
		expected: [3, 3],
	},
	{
		title: 'one number on the opt-out list (Do Not Send To)',
		numbers: ['447700910301', '447700910302'],
		send: { sendOptions: { doNotSendTo: '447700910302' } },
		alerts: oneAfterAnother(3),
		runs: 3,
		expected: [3, 0],
	},
	{
		// One number a request, one at a time: the second request is the second number's.
		title: "the first alert's second request refused (insufficient credits), Continue On Fail",
		numbers: ['447700910401', '447700910402'],
		send: { sendOptions: { maxPerRequest: 1, concurrency: 1 }, ...onFail },
		alerts: oneAfterAnother(3, (alert) => credits(alert === 1 ? 1 : PLENTY)),
		runs: 3,
		expected: [3, 2],
	},
	{
		title: "the first alert's first request answered 500, Continue On Fail",
		numbers: ['447700910501', '447700910502'],
		send: onFail,
		alerts: oneAfterAnother(3, (alert) => alert === 1 && harness.sandbox.queueFaults('error500')),
		runs: 3,
		expected: [2, 2],
	},
	{
		title: 'two alerts at the same moment (the service answering in 300 ms)',
		numbers: ['447700910601', '447700910602'],
		faults: { latencyMs: 300 },
		alerts: atOnce(2),
		runs: 2,
		expected: [2, 2],
	},
	{
		title: 'tested once from the editor (test webhook URL), then live',
		numbers: ['447700910701', '447700910702'],
		alerts: testedThenLive,
		runs: 2,
		expected: [2, 2],
	},
];

const workflowIdOf = (row: number) => `alertRow${row}`;
const pathOf = (row: number) => `alert-row-${row}`;
const ROW_WORKFLOWS = ROWS.map((row, index) =>
	alertWorkflow(
		workflowIdOf(index),
		[...row.numbers, ...(row.invalid ?? [])].join(', '),
		row.send,
		{
			webhookPath: pathOf(index),
		},
	),
);

const CLI_NUMBERS = ['447700910801', '447700910802'];
const CLI_WORKFLOW = alertWorkflow('alertCli', CLI_NUMBERS.join(', '));

// Two calls that give one Campaign Key are one campaign: the second holds back what the first sent.
const KEYED_NUMBERS = ['447700910901', '447700910902'];
const KEYED_PATH = 'alert-keyed';
const KEYED_WORKFLOW = alertWorkflow(
	'alertKeyed',
	KEYED_NUMBERS.join(', '),
	{ sendOptions: { campaign: 'outage-42', maxPerRequest: 1, concurrency: 1 } },
	{ webhookPath: KEYED_PATH },
);

let harness: Harness;
let n8n: N8nServer;
const table: string[] = [];

beforeAll(async () => {
	harness = await startHarness({ timeScale: 0 });
	await harness.n8n.importWorkflow([...ROW_WORKFLOWS, CLI_WORKFLOW, KEYED_WORKFLOW]);
	n8n = await harness.n8n.startServerAsOwner();
}, 240_000);
afterAll(async () => {
	process.stdout.write(`[alerts] each valid number got:\n${table.join('\n')}\n`);
	await harness?.stop();
});

async function credits(count: number): Promise<void> {
	await harness.sandbox.upsertAccount({ username: 'demo', credits: count });
}

/** How many times the sandbox accepted each number. */
function timesAccepted(numbers: readonly string[]): number[] {
	const accepted = new Map(
		harness.sandbox.received().destinations.map((d) => [d.msisdn, d.accepted] as const),
	);
	return numbers.map((msisdn) => accepted.get(msisdn) ?? 0);
}

async function post(url: string): Promise<Response> {
	return await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
}

/** `answered`: what n8n answers a live call (500 once the run failed). */
function hookOf(workflowId: string, path: string, answered = 200): Hook {
	return {
		live: async () => {
			expect((await post(`${n8n.baseUrl}/webhook/${path}`)).status).toBe(answered);
		},
		test: async () => {
			await n8n.listenForTestEvent(workflowId, WEBHOOK_NODE_NAME);
			expect((await post(`${n8n.baseUrl}/webhook-test/${path}`)).status).toBe(200);
		},
	};
}

async function activate(workflowId: string, path: string): Promise<void> {
	await n8n.activateWorkflow(workflowId);
	await n8n.waitForWebhook(`${n8n.baseUrl}/webhook/${path}`);
}

/** Send's items in an execution, and the hints n8n stored with them. */
function sendOf(execution: JsonObject): { items: JsonObject[]; hints: JsonObject[] } {
	const [items] = nodeRuns(execution, SEND_NODE_NAME);
	const [task] = nodeTasks(execution, SEND_NODE_NAME);
	return { items, hints: (task.hints as JsonObject[] | undefined) ?? [] };
}

describe('an alert reaches every valid number, every time', () => {
	test.each(ROWS.map((row, index) => ({ ...row, index })))(
		'$title: each valid number gets $expected',
		async (row) => {
			const id = workflowIdOf(row.index);
			harness.sandbox.setFaults(row.faults ?? {});
			await credits(PLENTY);
			await activate(id, pathOf(row.index));

			await row.alerts(hookOf(id, pathOf(row.index), row.invalid ? 500 : 200));

			const got = timesAccepted(row.numbers);
			table.push(`  ${row.title}: ${got.join(' / ')} (expected ${row.expected.join(' / ')})`);
			expect(got).toEqual(row.expected);
			expect(timesAccepted(row.invalid ?? [])).toEqual((row.invalid ?? []).map(() => 0));
			// Each run its own campaign: none held anything back, none said it did.
			const executions = await n8n.waitForExecutions(id, settled(row.runs), 60_000);
			expect(executions.map((execution) => execution.status)).toEqual(
				Array(row.runs).fill(row.invalid ? 'error' : 'success'),
			);
			if (row.invalid) return; // what a failed run sent is in its error: see intent.e2e.ts
			for (const { items, hints } of executions.map(sendOf)) {
				const outcomes = items.map((item) => item.send_outcome);
				expect(outcomes).not.toContain('sent before');
				expect(outcomes).not.toContain('in doubt');
				expect(hints).toEqual([]);
			}
		},
	);
});

test('run by n8n execute (mode cli) three times: each run sends to everyone', async () => {
	harness.sandbox.setFaults({});
	const runs: JsonObject[] = [];
	for (let run = 0; run < 3; run++) runs.push(await harness.n8n.executeWorkflow('alertCli'));

	const got = timesAccepted(CLI_NUMBERS);
	table.push(`  run by n8n execute three times: ${got.join(' / ')} (expected 3 / 3)`);
	expect(runs.map(({ mode, status }) => ({ mode, status }))).toEqual(
		Array(3).fill({ mode: 'cli', status: 'success' }),
	);
	expect(got).toEqual([3, 3]);
});

test("a production run that held numbers back says so: a hint in its stored run data and a warning in n8n's log", async () => {
	harness.sandbox.setFaults({});
	await activate('alertKeyed', KEYED_PATH);
	const hook = hookOf('alertKeyed', KEYED_PATH);
	// The first call: the first number accepted, the second answered 500 (the run fails).
	harness.sandbox.queueFaults('none', 'error500');
	await post(`${n8n.baseUrl}/webhook/${KEYED_PATH}`);
	await hook.live();

	const [second, first] = await n8n.waitForExecutions('alertKeyed', settled(2), 60_000);
	expect([first.status, second.status]).toEqual(['error', 'success']);
	expect(timesAccepted(KEYED_NUMBERS)).toEqual([1, 0]);
	const { items, hints } = sendOf(second);
	expect(items.map(({ send_outcome, reason }) => ({ send_outcome, reason }))).toEqual([
		{
			send_outcome: 'sent before',
			reason: expect.stringMatching(/^sent before: accepted earlier in Campaign Key "outage-42"/),
		},
		{
			send_outcome: 'in doubt',
			reason: expect.stringContaining('the service answered with an error'),
		},
	]);
	expect(hints).toEqual([
		expect.objectContaining({
			message: expect.stringMatching(
				/^Did not send again to 1 number\(s\) that Campaign Key "outage-42" sent this text before[^]*1 number\(s\) are in doubt/,
			),
		}),
	]);
	const where = `(workflow alertKeyed, execution ${String(second.id)})`;
	expect(n8n.log).toContain(
		`Bulk SMS Send "${SEND_NODE_NAME}" ${where}: Did not send again to 1 number(s)`,
	);
});
