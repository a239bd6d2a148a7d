/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * An interrupted campaign is resumed, never resent, in the real product: `n8n start`
 * (n8n 2.x), the packed package, the sandbox on 127.0.0.1. A campaign of 1,000 personalised
 * SMS, from the editor or started by a webhook, is broken as users meet it (a 500, a connection
 * broken after the service took a request, Continue On Fail, Stop, kill -9 of n8n) and recovered
 * every way n8n offers (Retry with the original or the saved workflow, twice; running it again
 * from the editor; Execute step on a later step after an upstream edit). Each number is counted at the sandbox:
 * nobody twice, nobody left out but the numbers the resumed run names as in doubt.
 */
import type { Json, JsonObject } from '../scripts/n8n/runData';
import { nodeRuns, nodeTasks } from '../scripts/n8n/runData';
import { settled, type N8nServer } from '../scripts/n8n/server';
import { sleep } from '../scripts/n8n/processes';
import {
	CONTACTS_NODE_NAME,
	contactsCampaign,
	SEND_NODE_NAME,
	STATUS_NODE_NAME,
	type SendSetup,
	type Start,
} from '../scripts/n8n/workflows';
import { faultAt, startHarness, type Harness } from './harness';

const COUNT = 1000;
/** Send's default Concurrent Requests: what n8n's end may leave in doubt, one number a request. */
const CONCURRENT_REQUESTS = 8;

interface Scenario {
	id: string;
	prefix: string;
	workflow: JsonObject;
}

let harness: Harness;
let n8n: N8nServer;
let scenarios = 0;

function scenario(send: SendSetup = {}, start: Start = {}): Scenario {
	const index = ++scenarios;
	const id = `interrupted${index}`;
	const prefix = `4477${String(index).padStart(3, '0')}`;
	return { id, prefix, workflow: contactsCampaign(id, { count: COUNT, prefix }, send, start) };
}

const retryFailed = scenario();
const retrySaved = scenario();
const runAgain = scenario();
const broken = scenario();
const continued = scenario({ settings: { onError: 'continueRegularOutput' } });
const stopped = scenario();
const crashed = scenario();
const HOOK_PATH = 'interrupted-campaign';
const hooked = scenario({}, { webhookPath: HOOK_PATH });
const stepped = scenario({}, { thenStatus: true });

beforeAll(async () => {
	harness = await startHarness({ timeScale: 0 });
	await harness.sandbox.upsertAccount({ username: 'demo', credits: 1_000_000 });
	await harness.n8n.importWorkflow(
		[retryFailed, retrySaved, runAgain, broken, continued, stopped, crashed, hooked, stepped].map(
			(s) => s.workflow,
		),
	);
	n8n = await harness.n8n.startServerAsOwner();
}, 240_000);
afterAll(() => harness?.stop());

/** How many times the sandbox accepted each number of the scenario. */
function acceptances({ prefix }: Scenario): number[] {
	const accepted = new Map(
		harness.sandbox.received().destinations.map((d) => [d.msisdn, d.accepted] as const),
	);
	return Array.from(
		{ length: COUNT },
		(_, i) => accepted.get(`${prefix}${String(i).padStart(5, '0')}`) ?? 0,
	);
}

/** Numbers sent 0, 1 and 2 or more times. */
function spread(s: Scenario): [number, number, number] {
	const times = acceptances(s);
	return [0, 1, 2].map((n) => times.filter((t) => (n < 2 ? t === n : t >= n)).length) as [
		number,
		number,
		number,
	];
}

/** Runs the campaign from the editor's Execute workflow and waits for its end. */
async function run(s: Scenario): Promise<JsonObject> {
	const id = await n8n.runManually(s.id);
	return await ended(s, id);
}

async function ended(s: Scenario, executionId: string): Promise<JsonObject> {
	const all = await n8n.waitForExecutions(
		s.id,
		(summaries) =>
			settled(1)(summaries) && summaries.some((e) => String(e.id) === executionId && e.stoppedAt),
		120_000,
	);
	return all.find((execution) => String(execution.id) === executionId)!;
}

async function latest(s: Scenario): Promise<JsonObject> {
	const [newest] = await n8n.waitForExecutions(s.id, settled(1), 120_000);
	return newest;
}

interface InDoubt {
	msisdn: string;
	/** Of the row that holds it back: one number a request, so the number's own. */
	send_outcome: Json;
	reason: string;
}

/** The numbers Send holds back as in doubt (an earlier run handed them over, outcome unknown). */
function inDoubt(execution: JsonObject): InDoubt[] {
	const [items] = nodeRuns(execution, SEND_NODE_NAME);
	return items.flatMap((item) =>
		(item.skipped as JsonObject[])
			.filter((entry) => entry.state === 'in doubt')
			.map((entry) => ({
				msisdn: String(entry.input),
				send_outcome: item.send_outcome,
				reason: String(entry.reason),
			})),
	);
}

function namedInDoubt(execution: JsonObject): string[] {
	return inDoubt(execution).map((number) => number.msisdn);
}

/** Why the run names numbers in doubt: the reason's words between "the service and" and its advice. */
function doubtCauses(execution: JsonObject): string[] {
	const cause = (reason: string) =>
		reason.split(' handed it to the service and ')[1]?.split('. Check with')[0];
	return [...new Set(inDoubt(execution).map(({ reason }) => cause(reason)))];
}

/** The number the sandbox answered with the injected fault. */
function faultedNumber(s: Scenario): string {
	const entry = harness.sandbox
		.requests()
		.find((request) => request.fault && request.form?.destination.startsWith(s.prefix));
	return String(entry?.form?.destination);
}

/** The per-number line of a scenario, for the log: how many numbers the sandbox took 0, 1, 2+ times. */
function report(what: string, s: Scenario, resumed?: JsonObject): void {
	const [never, once, twice] = spread(s);
	const doubt = resumed ? namedInDoubt(resumed).length : 0;
	const why = resumed && doubt > 0 ? ` (${doubtCauses(resumed).join('; ')})` : '';
	process.stdout.write(
		`[interrupted] ${what}: sent 0 / 1 / 2+ times: ${never} / ${once} / ${twice}; named in doubt: ${doubt}${why}\n`,
	);
}

/** The resumed run sent everyone else once; the numbers left out are the ones it names in doubt. */
function expectResumed(s: Scenario, resumed: JsonObject): void {
	const [never, once, twice] = spread(s);
	expect(twice).toBe(0);
	expect(once + never).toBe(COUNT);
	const named = inDoubt(resumed);
	for (const number of named) {
		expect(number).toMatchObject({
			send_outcome: 'in doubt',
			reason: expect.stringMatching(/^in doubt: /),
		});
	}
	const times = acceptances(s);
	const leftOut = times.flatMap((t, i) =>
		t === 0 ? [`${s.prefix}${String(i).padStart(5, '0')}`] : [],
	);
	for (const number of leftOut) expect(named.map((n) => n.msisdn)).toContain(number);
}

describe('a 500 at row 500 stops the run', () => {
	test.each([
		['the original workflow', retryFailed, false],
		['the currently saved workflow', retrySaved, true],
	])(
		'Retry with %s, then a second Retry of the same execution: nobody twice',
		async (which, s, load) => {
			faultAt(harness.sandbox, 500, 'error500');
			const failed = await run(s);
			expect(failed.status).toBe('error');

			expect((await n8n.retry(String(failed.id), load)).ok).toBe(true);
			expect(spread(s)).toEqual([1, COUNT - 1, 0]);
			expectResumed(s, await latest(s));
			expect(namedInDoubt(await latest(s))).toEqual([faultedNumber(s)]);
			expect(doubtCauses(await latest(s))).toEqual([
				expect.stringMatching(/^the service answered with an error/),
			]);

			expect((await n8n.retry(String(failed.id), load)).ok).toBe(true);
			expect(spread(s)).toEqual([1, COUNT - 1, 0]);
			report(`500 at row 500, Retry with ${which}, twice`, s, await latest(s));
		},
	);

	test('running the workflow again sends the rest and names the number in doubt', async () => {
		faultAt(harness.sandbox, 500, 'error500');
		expect((await run(runAgain)).status).toBe('error');
		const resumed = await run(runAgain);
		expect(resumed.status).toBe('success');
		expect(spread(runAgain)).toEqual([1, COUNT - 1, 0]);
		expect(namedInDoubt(resumed)).toEqual([faultedNumber(runAgain)]);
		expect(doubtCauses(resumed)).toEqual([
			expect.stringMatching(/^the service answered with an error/),
		]);
		report('500 at row 500, run again', runAgain, resumed);
	});
});

test('a connection broken after the service took request 500: run again, nobody twice', async () => {
	faultAt(harness.sandbox, 500, 'dropAfter');
	expect((await run(broken)).status).toBe('error');
	const resumed = await run(broken);
	expect(spread(broken)).toEqual([0, COUNT, 0]);
	expect(namedInDoubt(resumed)).toEqual([faultedNumber(broken)]);
	expect(doubtCauses(resumed)).toEqual([expect.stringMatching(/^the connection broke/)]);
	report('connection broken after the service took request 500, run again', broken, resumed);
});

test('Continue On Fail, a 500 at row 498: the run succeeds, Retry is refused, running again sends nobody twice', async () => {
	faultAt(harness.sandbox, 498, 'error500');
	const first = await run(continued);
	expect(first.status).toBe('success');
	expect((await n8n.retry(String(first.id), false)).status).toBe(409);
	const resumed = await run(continued);
	expect(spread(continued)).toEqual([1, COUNT - 1, 0]);
	expect(namedInDoubt(resumed)).toEqual([faultedNumber(continued)]);
	expect(doubtCauses(resumed)).toEqual([
		expect.stringMatching(/^the service answered with an error/),
	]);
	report('Continue On Fail, 500 at row 498, run again', continued, resumed);
});

test("the editor's Stop after 300 sends: no request after it, and running again sends the rest", async () => {
	harness.sandbox.setFaults({ latencyMs: 5 });
	const executionId = await n8n.runManually(stopped.id);
	while (spread(stopped)[1] < 300) await sleep(20);
	await n8n.stopExecution(executionId);
	await ended(stopped, executionId);
	const atStop = harness.sandbox.requests().length;
	await sleep(1000);
	expect(harness.sandbox.requests().length).toBe(atStop);
	harness.sandbox.setFaults({});
	const resumed = await run(stopped);
	expectResumed(stopped, resumed);
	// At most the requests in flight at Stop, one number each.
	expect(namedInDoubt(resumed).length).toBeLessThanOrEqual(CONCURRENT_REQUESTS);
	report('Stop after 300 sends, run again', stopped, resumed);
});

test('a webhook-started campaign, a 500 at row 500: Retry with the original, then the saved workflow: nobody twice', async () => {
	await n8n.activateWorkflow(hooked.id);
	const url = `${n8n.baseUrl}/webhook/${HOOK_PATH}`;
	await n8n.waitForWebhook(url);
	faultAt(harness.sandbox, 500, 'error500');
	await fetch(url, { method: 'POST' }); // answered once the run has failed
	const failed = await latest(hooked);
	expect(failed).toMatchObject({ mode: 'webhook', status: 'error' });

	for (const load of [false, true]) {
		expect((await n8n.retry(String(failed.id), load)).ok).toBe(true);
		const resumed = await latest(hooked);
		expect(resumed).toMatchObject({ mode: 'retry', status: 'success' });
		expect(spread(hooked)).toEqual([1, COUNT - 1, 0]);
		expectResumed(hooked, resumed);
		expect(namedInDoubt(resumed)).toEqual([faultedNumber(hooked)]);
	}
	report(
		'webhook-started, 500 at row 500, Retry with the original, then the saved workflow',
		hooked,
		await latest(hooked),
	);
});

test("the editor's Execute step on Get Status after Contacts was edited: n8n runs Send again, nobody twice, Get Status runs", async () => {
	const first = await run(stepped);
	expect(spread(stepped)).toEqual([0, COUNT, 0]);
	const { runData } = (first.data as JsonObject).resultData as JsonObject;

	const id = await n8n.executeStep(stepped.id, STATUS_NODE_NAME, {
		runData,
		dirtyNodeNames: [CONTACTS_NODE_NAME],
	});
	const step = await ended(stepped, id);
	expect(step).toMatchObject({ mode: 'manual', status: 'success' });
	const startOf = (execution: JsonObject, node: string) =>
		nodeTasks(execution, node)[0].startTime as number;
	expect(startOf(step, CONTACTS_NODE_NAME)).toBeGreaterThan(startOf(first, CONTACTS_NODE_NAME));
	expect(startOf(step, SEND_NODE_NAME)).toBeGreaterThan(startOf(first, SEND_NODE_NAME));
	const [items] = nodeRuns(step, SEND_NODE_NAME);
	// Nothing went out; each row names the batch this n8n process sent it in, for Get Status.
	expect(items.map((item) => item.send_outcome)).toEqual(Array(COUNT).fill('sent before'));
	expect(items.every((item) => /^\d+$/.test(String(item.batch_id)))).toBe(true);
	expect(spread(stepped)).toEqual([0, COUNT, 0]);
	const [reports] = nodeRuns(step, STATUS_NODE_NAME);
	expect(reports).toHaveLength(COUNT);
	expect(reports.every((report) => typeof report.status === 'string')).toBe(true);
	report('Execute step on Get Status after editing Contacts', stepped, step);
});

test('kill -9 of n8n after 500 sends: restarted, Retry is refused, running again sends nobody twice', async () => {
	harness.sandbox.setFaults({ latencyMs: 5 });
	const executionId = await n8n.runManually(crashed.id);
	while (spread(crashed)[1] < 500) await sleep(20);
	await n8n.crash();
	const sentBeforeCrash = spread(crashed)[1];
	harness.sandbox.setFaults({});
	n8n = await harness.n8n.startServer();
	await n8n.login();
	const apiKey = await n8n.createApiKey('after-crash');
	n8n.useApiKey(apiKey);
	const refused = await n8n.retry(executionId, false);
	expect(refused.ok).toBe(false);
	const resumed = await run(crashed);
	expect(resumed.status).toBe('success');
	expectResumed(crashed, resumed);
	// In doubt: the requests claimed and not answered in the record when n8n died, one number each.
	expect(namedInDoubt(resumed).length).toBeLessThanOrEqual(CONCURRENT_REQUESTS);
	expect(doubtCauses(resumed)).toEqual([expect.stringMatching(/^no answer was recorded/)]);
	report(`kill -9 after ${sentBeforeCrash} accepted, restart, run again`, crashed, resumed);
});
