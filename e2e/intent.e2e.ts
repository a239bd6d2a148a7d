/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * What the user meant, in the editor and on every recovery, in the real product: `n8n start`
 * (n8n 2.x), the packed package, the sandbox on 127.0.0.1. Each row of what users met (a clinic's
 * on-call alert to three phones, a 300-row appointment reminder) is done as they do it, the
 * editor's actions through the REST calls the editor makes, and counted per number at the
 * sandbox: nobody twice by any recovery, a test that sends, a loop that sends on every pass, runs
 * of one campaign at once that all end, a mistyped number that fails the run, a number in doubt
 * where the user looks first and resent in one step.
 */
import { nodeRuns, type JsonObject } from '../scripts/n8n/runData';
import { settled, type N8nServer } from '../scripts/n8n/server';
import {
	alertWorkflow,
	contactsCampaign,
	errorWorkflow,
	escalationWorkflow,
	SEND_NODE_NAME,
	WEBHOOK_NODE_NAME,
} from '../scripts/n8n/workflows';
import { faultAt, startHarness, type Harness } from './harness';

let harness: Harness;
let n8n: N8nServer;
const table: string[] = [];

const ROWS = 300;
const reminder = contactsCampaign(
	'intentReminder',
	{ count: ROWS, prefix: '4477301' },
	{},
	{
		webhookPath: 'intent-reminder',
	},
);
const ALERT_NUMBERS = ['447730200001', '447730200002', '447730200003'];
const alert = alertWorkflow(
	'intentAlert',
	ALERT_NUMBERS.join(', '),
	{},
	{ webhookPath: 'intent-alert' },
);
const ESCALATED = ['447730300001', '447730300002', '447730300003'];
const escalation = escalationWorkflow('intentEscalation', ESCALATED.join(', '), 3, {
	webhookPath: 'intent-escalation',
});
const TYPO = ['447730400001', '4477304000O2', '447730400003'];
const typo = alertWorkflow(
	'intentTypo',
	TYPO.join(', '),
	{},
	{
		webhookPath: 'intent-typo',
		errorWorkflow: 'intentErrors',
	},
);
const PATIENTS = 10;
const patients = contactsCampaign(
	'intentPatients',
	{ count: PATIENTS, prefix: '4477305' },
	{ settings: { onError: 'continueRegularOutput' } },
);
const AT_ONCE: Array<[number, number]> = [
	[2, 0],
	[3, 0],
	[5, 0],
	[2, 300],
	[3, 300],
	[5, 300],
];
const keyed = AT_ONCE.map(([runs, latency], index) =>
	alertWorkflow(
		`intentKeyed${index}`,
		[1, 2, 3].map((n) => `44773060${index}00${n}`).join(', '),
		{ sendOptions: { campaign: `outage-${runs}-${latency}` } },
		{ webhookPath: `intent-keyed-${index}` },
	),
);

beforeAll(async () => {
	harness = await startHarness({ timeScale: 0 });
	await harness.sandbox.upsertAccount({ username: 'demo', credits: 1_000_000 });
	await harness.n8n.importWorkflow([
		reminder,
		alert,
		escalation,
		errorWorkflow('intentErrors'),
		typo,
		patients,
		...keyed,
	]);
	n8n = await harness.n8n.startServerAsOwner();
}, 240_000);
afterAll(async () => {
	process.stdout.write(`[intent] what the user meant, after the change:\n${table.join('\n')}\n`);
	await harness?.stop();
});

/** How many times the sandbox accepted each number. */
function timesAccepted(numbers: readonly string[]): number[] {
	const accepted = new Map(
		harness.sandbox.received().destinations.map((d) => [d.msisdn, d.accepted] as const),
	);
	return numbers.map((msisdn) => accepted.get(msisdn) ?? 0);
}

const reminderNumbers = Array.from(
	{ length: ROWS },
	(_, i) => `4477301${String(i).padStart(5, '0')}`,
);
const patientNumbers = Array.from(
	{ length: PATIENTS },
	(_, i) => `4477305${String(i).padStart(5, '0')}`,
);

/** Numbers sent 0, 1 and 2 or more times. */
function spread(numbers: readonly string[]): [number, number, number] {
	const times = timesAccepted(numbers);
	return [
		times.filter((t) => t === 0).length,
		times.filter((t) => t === 1).length,
		times.filter((t) => t > 1).length,
	];
}

async function post(path: string): Promise<number> {
	return (await fetch(`${n8n.baseUrl}/webhook/${path}`, { method: 'POST' })).status;
}

async function activate(id: string, path: string): Promise<void> {
	await n8n.activateWorkflow(id);
	await n8n.waitForWebhook(`${n8n.baseUrl}/webhook/${path}`);
}

/** The editor's Execute workflow, and its execution once ended. */
async function fromEditor(workflowId: string): Promise<JsonObject> {
	const id = await n8n.runManually(workflowId);
	return await endedExecution(workflowId, id);
}

async function endedExecution(workflowId: string, id: string): Promise<JsonObject> {
	const all = await n8n.waitForExecutions(
		workflowId,
		(summaries) =>
			settled(1)(summaries) && summaries.some((e) => String(e.id) === id && e.stoppedAt),
		120_000,
	);
	return all.find((execution) => String(execution.id) === id)!;
}

async function newest(workflowId: string): Promise<JsonObject> {
	const [execution] = await n8n.waitForExecutions(workflowId, settled(1), 120_000);
	return execution;
}

/** Send's items on its first output (All) or its second (Needs Action), in its last pass. */
function sendItems(execution: JsonObject, output = 0): JsonObject[] {
	return nodeRuns(execution, SEND_NODE_NAME, output).at(-1) ?? [];
}

function said(row: string, what: string): void {
	table.push(`| ${row} | ${what} |`);
}

test('a reminder campaign started by a webhook fails at request 151; run again from the editor, then a Retry of the failed execution: nobody twice', async () => {
	await activate('intentReminder', 'intent-reminder');
	faultAt(harness.sandbox, 151, 'error500');
	expect(await post('intent-reminder')).toBe(500);
	const failed = await newest('intentReminder');
	expect(failed).toMatchObject({ mode: 'webhook', status: 'error' });

	const resumed = await fromEditor('intentReminder');
	expect(resumed.status).toBe('success');
	expect(spread(reminderNumbers)).toEqual([1, ROWS - 1, 0]);
	const outcomes = sendItems(resumed).map((item) => item.send_outcome);
	expect(outcomes.filter((o) => o === 'sent before').length).toBeGreaterThanOrEqual(150);
	expect(outcomes.filter((o) => o === 'in doubt')).toHaveLength(1);
	for (const item of sendItems(resumed)) {
		if (item.send_outcome !== 'in doubt') expect(item.batch_id).toMatch(/^\d+$/);
	}
	expect(sendItems(resumed, 1).map((item) => item.send_outcome)).toEqual(['in doubt']);

	expect((await n8n.retry(String(failed.id), false)).ok).toBe(true);
	expect(spread(reminderNumbers)).toEqual([1, ROWS - 1, 0]);
	said(
		'the reminder campaign, started by a Webhook, failed at request 151; run again from the editor; then a Retry of the failed execution',
		`${spread(reminderNumbers).join(' / ')} patients got it 0 / 1 / 2+ times; the editor run named 1 in doubt, on Needs Action; every row sent before has its batch id`,
	);
});

test('the alert tested from the editor, published, fired three times, then tested again: every test sends', async () => {
	const test_ = async () => {
		await n8n.listenForTestEvent('intentAlert', WEBHOOK_NODE_NAME);
		expect(
			(await fetch(`${n8n.baseUrl}/webhook-test/intent-alert`, { method: 'POST' })).status,
		).toBe(200);
	};
	await test_();
	await activate('intentAlert', 'intent-alert');
	for (let fired = 0; fired < 3; fired++) expect(await post('intent-alert')).toBe(200);
	await test_();
	expect(timesAccepted(ALERT_NUMBERS)).toEqual([5, 5, 5]);
	said(
		'the alert tested from the editor, published, fired three times, then tested again',
		'each phone 5 times: both tests sent',
	);
});

test('an escalation loops back into Send three times in one execution: three alerts, in production and from the editor', async () => {
	await activate('intentEscalation', 'intent-escalation');
	expect(await post('intent-escalation')).toBe(200);
	expect(timesAccepted(ESCALATED)).toEqual([3, 3, 3]);
	const fromTheEditor = await fromEditor('intentEscalation');
	expect(fromTheEditor.status).toBe('success');
	expect(timesAccepted(ESCALATED)).toEqual([6, 6, 6]);
	said(
		'an escalation: Send → Wait → Code (not acknowledged) → Send, three passes',
		'production 3, the editor 3 more',
	);
});

describe('runs of one Campaign Key at the same moment all end, each number once', () => {
	test.each(AT_ONCE.map(([runs, latency], index) => [runs, latency, index]))(
		'%i webhook calls at once, the service answering in %i ms',
		async (runs, latency, index) => {
			const id = `intentKeyed${index}`;
			const numbers = [1, 2, 3].map((n) => `44773060${index}00${n}`);
			await activate(id, `intent-keyed-${index}`);
			harness.sandbox.setFaults({ latencyMs: latency });
			const answers = await Promise.all(
				Array.from({ length: runs }, async () => await post(`intent-keyed-${index}`)),
			);
			harness.sandbox.setFaults({});
			expect(answers).toEqual(Array(runs).fill(200));
			expect(timesAccepted(numbers)).toEqual([1, 1, 1]);
			const executions = await n8n.waitForExecutions(id, settled(runs), 60_000);
			expect(executions.map((e) => e.status)).toEqual(Array(runs).fill('success'));
			said(
				`${runs} calls of one Campaign Key at once, ${latency} ms`,
				`each number once; ${runs} of ${runs} executions finished, every caller answered 200`,
			);
		},
	);
});

test('one on-call number mistyped among three typed in Send: the others get it, the execution fails naming it, the error workflow hears', async () => {
	// n8n 2.x runs an error workflow only once it is published (active).
	await n8n.activateWorkflow('intentErrors');
	await activate('intentTypo', 'intent-typo');
	expect(await post('intent-typo')).toBe(500);
	expect(timesAccepted([TYPO[0], TYPO[2]])).toEqual([1, 1]);
	const failed = await newest('intentTypo');
	expect(failed.status).toBe('error');
	const error = JSON.stringify((failed.data as JsonObject).resultData);
	expect(error).toMatch(/typed in Destinations are not valid: \\"4477304000O2\\"/);
	const heard = await n8n.waitForExecutions('intentErrors', settled(1), 60_000);
	expect(heard[0]).toMatchObject({ mode: 'error' });
	said(
		'one on-call number mistyped (4477304000O2) among three typed in Send',
		'the two others got it; the execution failed naming the typo; the error workflow ran',
	);
});

test('a 500 on one patient under Continue On Fail: Needs Action holds the patient; set Numbers In Doubt to Resend and run again: once, nobody twice', async () => {
	faultAt(harness.sandbox, 4, 'error500');
	const first = await fromEditor('intentPatients');
	expect(first.status).toBe('success');
	expect(sendItems(first, 1).map((item) => item.send_outcome)).toEqual(['unknown']);
	const again = await fromEditor('intentPatients');
	expect(sendItems(again, 1).map((item) => item.send_outcome)).toEqual(['in doubt']);
	expect(spread(patientNumbers)).toEqual([1, PATIENTS - 1, 0]);
	await n8n.updateWorkflow('intentPatients', (workflow) => {
		const send = (workflow.nodes as JsonObject[]).find((node) => node.name === SEND_NODE_NAME)!;
		(send.parameters as JsonObject).inDoubt = 'resend';
	});
	const resent = await fromEditor('intentPatients');
	expect(spread(patientNumbers)).toEqual([0, PATIENTS, 0]);
	expect(sendItems(resent, 1)).toEqual([]);
	said(
		'a 500 on one patient (Continue On Fail)',
		'the patient on Needs Action (1 item on the canvas), in doubt on the next run; Numbers In Doubt → Resend: sent once, nobody twice',
	);
});
