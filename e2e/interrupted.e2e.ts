/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * An interrupted campaign is resumed, never resent, in the real product (issue 24): `n8n start`
 * (n8n 2.41.1), the packed package, the sandbox on 127.0.0.1. A campaign of 1,000 personalised
 * SMS is broken as users meet it (a 500, a connection broken after the service took a request,
 * Continue On Fail, Stop, kill -9 of n8n) and recovered every way n8n offers (Retry with the
 * original or the saved workflow, twice; running it again). Each number is counted at the
 * sandbox: nobody twice, nobody left out but the numbers the resumed run names as in doubt.
 */
import type { QueuedFault } from '../sandbox/server';
import type { JsonObject } from '../scripts/n8n/runData';
import { nodeRuns } from '../scripts/n8n/runData';
import { settled, type N8nServer } from '../scripts/n8n/server';
import { sleep } from '../scripts/n8n/processes';
import { contactsCampaign, SEND_NODE_NAME } from '../scripts/n8n/workflows';
import { startHarness, type Harness } from './harness';

const COUNT = 1000;

interface Scenario {
	id: string;
	prefix: string;
	workflow: JsonObject;
}

let harness: Harness;
let n8n: N8nServer;
let scenarios = 0;

function scenario(send: { sendOptions?: JsonObject; settings?: JsonObject } = {}): Scenario {
	const index = ++scenarios;
	const id = `interrupted${index}`;
	const prefix = `4477${String(index).padStart(3, '0')}`;
	return { id, prefix, workflow: contactsCampaign(id, { count: COUNT, prefix }, send) };
}

const retryFailed = scenario();
const retrySaved = scenario();
const runAgain = scenario();
const broken = scenario();
const continued = scenario({ settings: { onError: 'continueRegularOutput' } });
const stopped = scenario();
const crashed = scenario();

beforeAll(async () => {
	harness = await startHarness({ timeScale: 0 });
	await harness.sandbox.upsertAccount({ username: 'demo', credits: 1_000_000 });
	await harness.n8n.importWorkflow(
		[retryFailed, retrySaved, runAgain, broken, continued, stopped, crashed].map((s) => s.workflow),
	);
	n8n = await harness.n8n.startServerAsOwner();
}, 240_000);
afterAll(() => harness?.stop());

/** The nth request to reach the sandbox from now on meets this fault. */
function faultAt(n: number, fault: QueuedFault): void {
	harness.sandbox.setFaults({});
	harness.sandbox.queueFaults(...Array<QueuedFault>(n - 1).fill('none'), fault);
}

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

/** Send's rows that name a number as in doubt (sent by an earlier run, outcome unknown). */
function namedInDoubt(execution: JsonObject): string[] {
	const [items] = nodeRuns(execution, SEND_NODE_NAME);
	return items
		.filter((item) => /outcome unknown/.test(String(item.reason)))
		.flatMap((item) => (item.skipped as JsonObject[]).map((entry) => String(entry.input)));
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
	const inDoubt = resumed ? namedInDoubt(resumed).length : 0;
	process.stdout.write(
		`[interrupted] ${what}: sent 0 / 1 / 2+ times: ${never} / ${once} / ${twice}; named in doubt: ${inDoubt}\n`,
	);
}

/** The resumed run sent everyone else once; the numbers left out are the ones it names in doubt. */
function expectResumed(s: Scenario, resumed: JsonObject): void {
	const [never, once, twice] = spread(s);
	expect(twice).toBe(0);
	expect(once + never).toBe(COUNT);
	const inDoubt = namedInDoubt(resumed);
	const times = acceptances(s);
	const leftOut = times.flatMap((t, i) =>
		t === 0 ? [`${s.prefix}${String(i).padStart(5, '0')}`] : [],
	);
	for (const number of leftOut) expect(inDoubt).toContain(number);
}

describe('a 500 at row 500 stops the run', () => {
	test.each([
		['the original workflow', retryFailed, false],
		['the currently saved workflow', retrySaved, true],
	])(
		'Retry with %s, then a second Retry of the same execution: nobody twice',
		async (which, s, load) => {
			faultAt(500, 'error500');
			const failed = await run(s);
			expect(failed.status).toBe('error');

			expect((await n8n.retry(String(failed.id), load)).ok).toBe(true);
			expect(spread(s)).toEqual([1, COUNT - 1, 0]);
			expectResumed(s, await latest(s));
			expect(namedInDoubt(await latest(s))).toEqual([faultedNumber(s)]);

			expect((await n8n.retry(String(failed.id), load)).ok).toBe(true);
			expect(spread(s)).toEqual([1, COUNT - 1, 0]);
			report(`500 at row 500, Retry with ${which}, twice`, s, await latest(s));
		},
	);

	test('running the workflow again sends the rest and names the number in doubt', async () => {
		faultAt(500, 'error500');
		expect((await run(runAgain)).status).toBe('error');
		const resumed = await run(runAgain);
		expect(resumed.status).toBe('success');
		expect(spread(runAgain)).toEqual([1, COUNT - 1, 0]);
		expect(namedInDoubt(resumed)).toEqual([faultedNumber(runAgain)]);
		report('500 at row 500, run again', runAgain, resumed);
	});
});

test('a connection broken after the service took request 500: run again, nobody twice', async () => {
	faultAt(500, 'dropAfter');
	expect((await run(broken)).status).toBe('error');
	const resumed = await run(broken);
	expect(spread(broken)).toEqual([0, COUNT, 0]);
	expect(namedInDoubt(resumed)).toEqual([faultedNumber(broken)]);
	report('connection broken after the service took request 500, run again', broken, resumed);
});

test('Continue On Fail, a 500 at row 498: the run succeeds, Retry is refused, running again sends nobody twice', async () => {
	faultAt(498, 'error500');
	const first = await run(continued);
	expect(first.status).toBe('success');
	expect((await n8n.retry(String(first.id), false)).status).toBe(409);
	const resumed = await run(continued);
	expect(spread(continued)).toEqual([1, COUNT - 1, 0]);
	expect(namedInDoubt(resumed)).toEqual([faultedNumber(continued)]);
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
	expect(spread(stopped)[0]).toBeLessThanOrEqual(8); // at most the requests in flight at Stop
	report('Stop after 300 sends, run again', stopped, resumed);
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
	const [never] = spread(crashed);
	// In doubt: the requests in flight, and claimed ahead, when n8n died; a small share.
	expect(never).toBeLessThan(COUNT - sentBeforeCrash);
	report(`kill -9 after ${sentBeforeCrash} accepted, restart, run again`, crashed, resumed);
});
