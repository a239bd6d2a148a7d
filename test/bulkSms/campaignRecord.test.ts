/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * An interrupted campaign is resumed, never resent (issue 24): Send's record of accepted sends, in
 * n8n's deduplication store, through n8n's engine against the sandbox on 127.0.0.1. Each test
 * counts, per number, how many times the sandbox accepted it, over every run of the campaign.
 */
import type { INode, INodeExecutionData, INodeParameters, WorkflowExecuteMode } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	BULK_SMS,
	engineLogger,
	loadPackageNodeType,
	errorOf,
	failStoreCalls,
	outputOf,
	recordOf,
	runWorkflow,
	startWorkflow,
	storeCalls,
} from '../engine/harness';
import { SendRecord } from '../../nodes/BulkSms/operations/send/record';
import { startSandbox, type QueuedFault, type Sandbox } from '../../sandbox/server';
import { credentialsFor, getStatus, items, line, send, trigger } from './workflow';

let sandbox: Sandbox;

beforeEach(async () => {
	sandbox = await startSandbox({ timeScale: 0 });
});
afterEach(async () => {
	jest.restoreAllMocks();
	await sandbox.stop();
});

const contacts = (count: number) =>
	Array.from({ length: count }, (_, i) => ({ name: `Contact ${i}`, phone: `4477009${10000 + i}` }));

let campaigns = 0;

/** One personalised SMS per contact; every run of one campaign is the same workflow and node. */
function campaign(rows: Array<{ name: string; phone: string }>) {
	const workflowId = `campaign-${++campaigns}`;
	return {
		workflowId,
		run: async (
			options: INodeParameters = {},
			mode: WorkflowExecuteMode = 'manual',
			extra?: Partial<INode>,
		) => await runWorkflow({ ...specOf(rows, options, extra), workflowId, mode, ...account() }),
		start: (options: INodeParameters = {}) =>
			startWorkflow({ ...specOf(rows, options), workflowId, ...account() }),
	};
}

function specOf(rows: object[], options: INodeParameters, extra?: Partial<INode>) {
	return line(
		trigger(),
		items(rows as never),
		send(
			{
				destinations: '={{ $json.phone }}',
				message: '=Hi {{ $json.name }}, your order is ready.',
				sendOptions: options,
			},
			extra,
		),
	);
}

const account = () => ({ credentials: credentialsFor(sandbox) });
const CONTINUE: Partial<INode> = { onError: 'continueRegularOutput' };

/** How many times the sandbox accepted each number, over every run so far. */
function acceptances(rows: Array<{ phone: string }>): number[] {
	const accepted = new Map(
		sandbox.received().destinations.map((d) => [d.msisdn, d.accepted] as const),
	);
	return rows.map((row) => accepted.get(row.phone) ?? 0);
}

/** Numbers sent 0, 1 and 2 or more times. */
function spread(times: number[]): [number, number, number] {
	return [
		times.filter((t) => t === 0).length,
		times.filter((t) => t === 1).length,
		times.filter((t) => t > 1).length,
	];
}

/** The nth request to reach the sandbox meets this fault. */
function faultAt(n: number, fault: QueuedFault) {
	sandbox.queueFaults(...Array<QueuedFault>(n - 1).fill('none'), fault);
}

/** The number whose request met an injected fault. */
function faulted(): string {
	const entry = sandbox.requests().find((request) => request.fault);
	return entry!.form!.destination;
}

const outcomes = (output: INodeExecutionData[]) => output.map((item) => item.json.send_outcome);

describe('a campaign stopped half way is resumed, never resent', () => {
	it('a 500 stops the run; running it again sends only the rest and names the number in doubt', async () => {
		const rows = contacts(40);
		const c = campaign(rows);
		faultAt(20, 'error500');
		expect(errorOf(await c.run(), 'Send')?.message).toMatch(/500/);
		const [, sentFirst] = spread(acceptances(rows));
		expect(sentFirst).toBeGreaterThanOrEqual(19);

		const again = await c.run();
		expect(errorOf(again, 'Send')).toBeUndefined();
		expect(spread(acceptances(rows))).toEqual([1, 39, 0]);
		const output = outputOf(again, 'Send');
		expect(output).toHaveLength(40);
		output.forEach((item, index) => expect(item.pairedItem).toEqual([{ item: index }]));
		const doubt = output.filter((item) => /outcome unknown/.test(String(item.json.reason)));
		expect(doubt.map((item) => item.json.skipped)).toEqual([
			[expect.objectContaining({ input: faulted() })],
		]);
		expect(outcomes(output).filter((o) => o === 'sent before')).toHaveLength(sentFirst + 1);

		// Checked, and not taken: the user asks for the numbers in doubt to be sent.
		await c.run({ resendUnknown: true });
		expect(spread(acceptances(rows))).toEqual([0, 40, 0]);
	});

	it('a Retry, and a second Retry of the same failed execution, send nothing twice', async () => {
		const rows = contacts(30);
		const c = campaign(rows);
		faultAt(10, 'error500');
		await c.run({}, 'trigger');
		expect(errorOf(await c.run({}, 'retry'), 'Send')).toBeUndefined();
		expect(spread(acceptances(rows))).toEqual([1, 29, 0]);
		const second = outputOf(await c.run({}, 'retry'), 'Send');
		expect(new Set(outcomes(second))).toEqual(new Set(['sent before']));
		expect(spread(acceptances(rows))).toEqual([1, 29, 0]);
	});

	it('a connection broken after the service took a request: that number is named, not resent', async () => {
		const rows = contacts(20);
		const c = campaign(rows);
		faultAt(8, 'dropAfter');
		expect(errorOf(await c.run(), 'Send')?.message).toMatch(/unknown/i);
		const taken = faulted();
		await c.run();
		expect(spread(acceptances(rows))).toEqual([0, 20, 0]);
		expect(sandbox.received().destinations.find((d) => d.msisdn === taken)?.accepted).toBe(1);
	});

	it('under Continue On Fail the run succeeds; running it again sends nothing twice', async () => {
		const rows = contacts(30);
		const c = campaign(rows);
		faultAt(15, 'error500');
		const first = outputOf(await c.run({}, 'manual', CONTINUE), 'Send');
		expect(outcomes(first).filter((o) => o === 'unknown')).toHaveLength(1);
		const again = outputOf(await c.run({}, 'manual', CONTINUE), 'Send');
		expect(spread(acceptances(rows))).toEqual([1, 29, 0]);
		expect(new Set(outcomes(again))).toEqual(new Set(['sent before']));
	});

	it('after Stop no request starts; the next run sends the rest and names those cut off', async () => {
		sandbox.setFaults({ latencyMs: 40 });
		const rows = contacts(60);
		const c = campaign(rows);
		const running = c.start({ concurrency: 2 });
		while (sandbox.received().batches.length < 10) await sleep(10);
		running.cancel();
		await running;
		const atStop = sandbox.requests().length;
		await sleep(200);
		expect(sandbox.requests().length).toBe(atStop);
		expect(spread(acceptances(rows))[1]).toBeLessThan(60);

		sandbox.setFaults({});
		const output = outputOf(await c.run(), 'Send');
		// The requests in flight at Stop were cut off by n8n: whether the service took them is
		// unknown, so they are named, not resent.
		const cutOff = output.filter((item) => /outcome unknown/.test(String(item.json.reason)));
		expect(cutOff.length).toBeLessThanOrEqual(2);
		const [never, once, twice] = spread(acceptances(rows));
		expect(twice).toBe(0);
		expect(never).toBeLessThanOrEqual(cutOff.length);
		expect(once + never).toBe(60);
	});
});

describe('what a resumed run says', () => {
	it('One Item per Destination: a row per number, those sent before saying so', async () => {
		const rows = contacts(6);
		const c = campaign(rows);
		faultAt(4, 'error500');
		await c.run({ output: 'destination', concurrency: 1 });
		const output = outputOf(await c.run({ output: 'destination' }), 'Send');
		expect(output.map((row) => [row.pairedItem, row.json.msisdn, row.json.send_outcome])).toEqual(
			rows.map((row, item) => [{ item }, row.phone, item < 4 ? 'sent before' : 'accepted']),
		);
		expect(output.map((row) => String(row.json.reason).split(':')[0])).toEqual([
			'sent before',
			'sent before',
			'sent before',
			'sent before, outcome unknown',
			'null',
			'null',
		]);
	});

	it('Get Delivery Status passes the rows sent before through, paired, saying so', async () => {
		const rows = contacts(4);
		const c = campaign(rows);
		faultAt(3, 'error500');
		await c.run({ concurrency: 1 });
		const followed = line(...specOf(rows, {}).nodes, getStatus({}));
		const result = await runWorkflow({ ...followed, workflowId: c.workflowId, ...account() });
		expect(
			outputOf(result, 'Get Status').map((item) => [item.pairedItem, item.json.outcome]),
		).toEqual([
			[{ item: 0 }, 'sent before'],
			[{ item: 1 }, 'sent before'],
			[{ item: 2 }, 'sent before'],
			[{ item: 3 }, 'pending'],
		]);
	});

	it("a long run's progress goes to n8n's log every 30 seconds", async () => {
		jest.useFakeTimers({
			doNotFake: [
				'nextTick',
				'setImmediate',
				'setTimeout',
				'setInterval',
				'queueMicrotask',
				'clearTimeout',
				'clearInterval',
				'clearImmediate',
				'hrtime',
				'performance',
			],
		});
		const logged = jest.spyOn(engineLogger(), 'info');
		const rows = contacts(6);
		sandbox.setFaults({ latencyMs: 30 });
		const running = campaign(rows).run({ concurrency: 1 });
		const clock = setInterval(() => jest.setSystemTime(Date.now() + 31_000), 20);
		await running.finally(() => clearInterval(clock));
		jest.useRealTimers();
		const lines = logged.mock.calls
			.map((call) => String(call[0]))
			.filter((line) => line.includes('Bulk SMS Send'));
		expect(lines.length).toBeGreaterThanOrEqual(2);
		expect(lines.at(-1)).toMatch(
			/at the end: 6 of 6 numbers: 6 accepted, 0 sent before, 0 not sent, 0 unknown/,
		);
	});
});

describe('one person, one message', () => {
	it('the same number with the same text twice in one run is sent once; the repeat names its row', async () => {
		const rows = [...contacts(3), contacts(3)[1]];
		const output = outputOf(await campaign(rows).run(), 'Send');
		expect(spread(acceptances(rows))).toEqual([0, 4, 0]);
		expect(sandbox.received().batches).toHaveLength(3);
		expect(output[3]).toMatchObject({
			json: {
				send_outcome: 'skipped',
				skipped: [{ input: rows[3].phone, reason: 'duplicate', item: 3, sent_with_item: 1 }],
			},
			pairedItem: [{ item: 3 }],
		});
	});

	it('with Send Each Number Once off, every row is sent as given, also again', async () => {
		const rows = [...contacts(3), contacts(3)[1]];
		const c = campaign(rows);
		await c.run({ sendEachNumberOnce: false });
		await c.run({ sendEachNumberOnce: false });
		expect(acceptances(rows)).toEqual([2, 4, 2, 4]);
		expect(recordOf(c.workflowId, 'Send')).toEqual([]);
	});
});

describe('what counts as the same send, and when it is forgotten', () => {
	it('a run in production that reached everyone ends the campaign: the next run sends again', async () => {
		const rows = contacts(5);
		const c = campaign(rows);
		await c.run({}, 'trigger');
		expect(recordOf(c.workflowId, 'Send')).toEqual([]);
		await c.run({}, 'trigger');
		expect(acceptances(rows)).toEqual([2, 2, 2, 2, 2]);
	});

	it('a run in production with a skipped row leaves its campaign open: a fixed row is sent alone', async () => {
		const rows = [...contacts(4), { name: 'Bad', phone: '12345' }];
		const c = campaign(rows);
		await c.run({}, 'trigger');
		rows[4].phone = '447700919999';
		const again = outputOf(await c.run({}, 'trigger'), 'Send');
		expect(acceptances(rows)).toEqual([1, 1, 1, 1, 1]);
		expect(outcomes(again)).toEqual([
			'sent before',
			'sent before',
			'sent before',
			'sent before',
			'accepted',
		]);
	});

	it('alerts running side by side in production each end their own: the next alert is sent', async () => {
		const [alice, bob] = contacts(2);
		const alert = campaign([alice]);
		// One n8n process: its node type instance, and with it its turns at the record.
		const oneProcess = { [BULK_SMS]: loadPackageNodeType(BULK_SMS)! };
		const run = (row: typeof alice) =>
			runWorkflow({
				...specOf([row], {}),
				workflowId: alert.workflowId,
				mode: 'webhook',
				nodeTypes: oneProcess,
				...account(),
			});
		await Promise.all([run(alice), run(bob), run(alice)]);
		expect(acceptances([alice, bob])).toEqual([1, 1]);
		await run(alice);
		expect(acceptances([alice, bob])).toEqual([2, 1]);
		expect(recordOf(alert.workflowId, 'Send').filter((v) => !v.startsWith('used'))).toEqual([]);
	});

	it('beside a large open campaign, a run ends its own when taking it back is cheap, else leaves it to Resume Within', async () => {
		const c = campaign([]);
		const run = async (rows: object[], options: INodeParameters, mode: WorkflowExecuteMode) =>
			await runWorkflow({ ...specOf(rows, options), workflowId: c.workflowId, mode, ...account() });
		await sandbox.upsertAccount({ username: 'demo', credits: 60_000 });
		// From the editor, never ended: 50,000 numbers in one item, 100,001 entries.
		const all = Array.from({ length: 50_000 }, (_, i) => `4477009${50000 + i}`).join(',');
		await run([{ name: 'All', phone: all }], { campaign: 'big' }, 'manual');
		const held = () => recordOf(c.workflowId, 'Send').length;
		expect(held()).toBe(100_001);

		const [few, many] = [contacts(10), contacts(1_000).slice(10)];
		await run(few, {}, 'trigger'); // 21 values × 100,021 entries: taken back
		expect(held()).toBe(100_001);
		await run(many, {}, 'trigger'); // 1,981 values × 102,000 entries: left open
		expect(held()).toBe(100_001 + 2 * 990);
		const again = outputOf(await run([...few, ...many], {}, 'trigger'), 'Send');
		expect(acceptances(few)).toEqual(Array(10).fill(2));
		expect(new Set(acceptances(many))).toEqual(new Set([1]));
		expect(new Set(outcomes(again).slice(10))).toEqual(new Set(['sent before']));
	});

	it('an editor run never ends a campaign: running a step again sends nothing twice', async () => {
		const rows = contacts(4);
		const c = campaign(rows);
		await c.run();
		await c.run();
		expect(acceptances(rows)).toEqual([1, 1, 1, 1]);
	});

	it('an unfinished campaign is forgotten Resume Within hours after the record was last used', async () => {
		const rows = contacts(3);
		const c = campaign(rows);
		await c.run();
		const now = Date.now();
		jest.spyOn(Date, 'now').mockReturnValue(now + 11 * 3_600_000);
		await c.run();
		expect(acceptances(rows)).toEqual([1, 1, 1]);
		jest.spyOn(Date, 'now').mockReturnValue(now + 23 * 3_600_000);
		await c.run({ resumeWithinHours: 12 });
		expect(acceptances(rows)).toEqual([1, 1, 1]); // used 12 hours before: still resumed
		jest.spyOn(Date, 'now').mockReturnValue(now + 37 * 3_600_000);
		await c.run();
		expect(acceptances(rows)).toEqual([2, 2, 2]);
	});

	it('a Retry resumes however old the record', async () => {
		const rows = contacts(3);
		const c = campaign(rows);
		await c.run();
		jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 100 * 3_600_000);
		await c.run({}, 'retry');
		expect(acceptances(rows)).toEqual([1, 1, 1]);
	});

	it('another campaign name, or another text, is another send', async () => {
		const rows = contacts(3);
		const c = campaign(rows);
		await c.run({ campaign: 'spring' });
		await c.run({ campaign: 'spring' });
		await c.run({ campaign: 'summer' });
		expect(acceptances(rows)).toEqual([2, 2, 2]);
	});
});

describe("the record's own failures and costs", () => {
	it('when the record cannot be written nothing is sent, and the error says why', async () => {
		const rows = contacts(3);
		failStoreCalls(1);
		const error = errorOf(await campaign(rows).run(), 'Send');
		expect(error?.message).toMatch(
			/record of accepted sends could not be written, so nothing was sent/,
		);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('claims go to the record a window at a time, not one call per row', async () => {
		const rows = contacts(400);
		const before = storeCalls();
		await campaign(rows).run();
		expect(spread(acceptances(rows))).toEqual([0, 400, 0]);
		expect(storeCalls() - before).toBeLessThan(400 / 4);
	});

	it('a window holds at most a fiftieth of the run, so that a crash leaves little in doubt', async () => {
		await sandbox.upsertAccount({ username: 'demo', credits: 5_000 });
		const rows = contacts(3_000);
		const windows: number[] = [];
		// A record call as slow as a busy database's, so that many answers come in during each.
		const claim = SendRecord.prototype.claim;
		const record = jest.spyOn(SendRecord.prototype, 'claim').mockImplementation(async function (
			this: SendRecord,
			...args
		) {
			await sleep(50);
			return await claim.apply(this, args);
		});
		await campaign(rows).run();
		for (const [claims] of record.mock.calls) if (claims.length > 0) windows.push(claims.length);
		expect(spread(acceptances(rows))).toEqual([0, 3_000, 0]);
		expect(Math.max(...windows)).toBeLessThanOrEqual(3_000 / 50);
	});

	it('a combined send resumes by number: a request in doubt holds back only its own numbers', async () => {
		const numbers = contacts(30).map((row) => row.phone);
		const rows = numbers.map((phone) => ({ name: 'all', phone }));
		const c = campaign(rows);
		const combined = { combineItems: true, maxPerRequest: 10, concurrency: 1 };
		const message = { message: 'Sale today' };
		faultAt(2, 'error500');
		const spec = (options: INodeParameters) => ({
			...specOf(rows, options),
			workflowId: c.workflowId,
			...account(),
		});
		const withMessage = (options: INodeParameters) => {
			const s = spec(options);
			s.nodes[2].parameters = { ...s.nodes[2].parameters, ...message };
			return s;
		};
		expect(errorOf(await runWorkflow(withMessage(combined)), 'Send')).toBeDefined();
		const output = outputOf(await runWorkflow(withMessage(combined)), 'Send');
		expect(acceptances(rows)).toEqual([
			...Array(10).fill(1),
			...Array(10).fill(0),
			...Array(10).fill(1),
		]);
		expect(outcomes(output)).toEqual(['sent before', 'sent before', 'accepted']);
	});
});

describe('Sending Speed Limit', () => {
	it('spaces the requests over every request in flight', async () => {
		const rows = contacts(6);
		await campaign(rows).run({ speedLimit: { limit: { messages: 10, per: 'second' } } });
		// A request leaves its turn 100 ms after the one before; arrival adds jitter, never a rush.
		const times = sandbox.requests().map((request) => Date.parse(request.at));
		expect(times.at(-1)! - times[0]).toBeGreaterThanOrEqual(450);
		expect(spread(acceptances(rows))).toEqual([0, 6, 0]);
	});

	it('is refused in words when it is not a number above 0', async () => {
		const error = errorOf(
			await campaign(contacts(1)).run({ speedLimit: { limit: { messages: 0, per: 'minute' } } }),
			'Send',
		);
		expect(error?.message).toMatch(/^Sending Speed Limit must be a number of messages above 0/);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('Stop ends the wait: no request starts after it, and the next run resumes', async () => {
		const rows = contacts(4);
		const c = campaign(rows);
		const running = c.start({ speedLimit: { limit: { messages: 1, per: 'minute' } } });
		while (sandbox.received().batches.length < 1) await sleep(10);
		running.cancel();
		await running;
		expect(sandbox.requests()).toHaveLength(1);
		await c.run();
		expect(spread(acceptances(rows))).toEqual([0, 4, 0]);
	});
});
