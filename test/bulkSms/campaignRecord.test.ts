/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/node-usable-as-tool
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Send's record, through n8n's engine against the sandbox on 127.0.0.1: every new occurrence of a
 * recurring workflow reaches every valid number, and an interrupted campaign is resumed, never
 * resent. Each test counts, per number, how many times the sandbox accepted it over every run.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypeDescription,
	IRun,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeConnectionTypes, sleep } from 'n8n-workflow';

import {
	BULK_SMS,
	engineLogger,
	errorOf,
	failStoreCalls,
	loadPackageNodeType,
	executeStep,
	outputOf,
	recordOf,
	retryRun,
	runWorkflow,
	startWorkflow,
	stopTheClock,
} from '../engine/harness';
import { STEP } from '../../nodes/BulkSms/operations/send/record/facts';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { credentialsFor, getStatus, items, line, send, trigger } from './workflow';

let sandbox: Sandbox;

beforeEach(async () => {
	sandbox = await startSandbox({ timeScale: 0 });
});
afterEach(async () => {
	jest.restoreAllMocks();
	await sandbox.stop();
});

interface Row {
	name: string;
	phone: string;
}

const contacts = (count: number, from = 0): Row[] =>
	Array.from({ length: count }, (_, i) => ({
		name: `Contact ${from + i}`,
		phone: `4477009${10000 + from + i}`,
	}));

const TEXT = '=Hi {{ $json.name }}, your order is ready.';
const CONTINUE: Partial<INode> = { onError: 'continueRegularOutput' };
let campaigns = 0;

/**
 * One Send node in one workflow, run as often as a test likes: every run of it is a run of the
 * same node, so its record is shared; all runs of one test share one n8n process.
 */
function workflow(rows: Row[], message = TEXT) {
	const workflowId = `campaign-${++campaigns}`;
	const oneProcess = { [BULK_SMS]: loadPackageNodeType(BULK_SMS)! };
	// Numbers In Doubt is a parameter of its own; every other option is one of Options.
	const spec = ({ inDoubt, ...options }: INodeParameters = {}, extra?: Partial<INode>) => ({
		...line(
			trigger(),
			items(rows as never),
			send({ destinations: '={{ $json.phone }}', message, sendOptions: options, inDoubt }, extra),
		),
		workflowId,
		nodeTypes: oneProcess,
		credentials: credentialsFor(sandbox),
	});
	return {
		workflowId,
		spec,
		run: async (
			options: INodeParameters = {},
			mode: WorkflowExecuteMode = 'manual',
			extra?: Partial<INode>,
		) => await runWorkflow({ ...spec(options, extra), mode }),
		start: (options: INodeParameters = {}, mode: WorkflowExecuteMode = 'manual') =>
			startWorkflow({ ...spec(options), mode }),
		/** n8n's Retry of a failed execution, with the workflow as it is or as the user saved it since. */
		retry: async (failed: IRun, options: INodeParameters = {}) =>
			await retryRun(failed, spec(options)),
	};
}

/** How many times the sandbox accepted each number, over every run so far. */
function acceptances(rows: Row[]): number[] {
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

/** The number whose request met an injected fault. */
function faulted(): string {
	const entry = sandbox.requests().find((request) => request.fault);
	return entry!.form!.destination;
}

const LOOP_BACK = 'harness.loopBack';

/** An escalation as users build it: the alert again while unanswered (an If back into Send). */
class LoopBack implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Loop Back',
		name: 'loopBack',
		group: ['transform'],
		version: 1,
		description: 'Gives its items again, until its last pass',
		defaults: { name: 'Loop Back' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Passes', name: 'passes', type: 'number', default: 1 },
			{ displayName: 'Item', name: 'item', type: 'json', default: '{}' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const passes = this.getNodeParameter('passes', 0) as number;
		const json = JSON.parse(this.getNodeParameter('item', 0) as string) as IDataObject;
		const pass = this.getWorkflowDataProxy(0).$runIndex as number;
		return [pass < passes - 1 ? [{ json, pairedItem: { item: 0 } }] : []];
	}
}

/** An alert that loops back into Send so that Send runs `passes` times within one execution. */
function loopedAlert(rows: Row[], passes: number) {
	const alert = { phones: rows.map((row) => row.phone).join(',') };
	const spec = line(
		trigger(),
		items([alert] as never),
		send({ destinations: '={{ $json.phones }}', message: 'Still down' }),
	);
	spec.nodes.push({
		id: 'Again',
		name: 'Again',
		type: LOOP_BACK,
		typeVersion: 1,
		position: [0, 200],
		parameters: { passes, item: JSON.stringify(alert) },
	});
	spec.connections.Send = { main: [[{ node: 'Again', type: 'main', index: 0 }]] };
	spec.connections.Again = { main: [[{ node: 'Send', type: 'main', index: 0 }]] };
	return {
		...spec,
		workflowId: `loop-${++campaigns}`,
		credentials: credentialsFor(sandbox),
		nodeTypes: { [BULK_SMS]: loadPackageNodeType(BULK_SMS)!, [LOOP_BACK]: new LoopBack() },
	};
}

const outcomes = (output: INodeExecutionData[]) => output.map((item) => item.json.send_outcome);
const inDoubt = (output: INodeExecutionData[]) =>
	output.filter((item) => item.json.send_outcome === 'in doubt');

const PRODUCTION: WorkflowExecuteMode[] = ['trigger', 'webhook', 'cli', 'integrated'];

describe('every new occurrence of a recurring workflow reaches every valid number', () => {
	test.each(PRODUCTION)('three alerts started in mode %s: each number gets three', async (mode) => {
		const rows = contacts(2);
		const alert = workflow(rows, 'Server down');
		for (let i = 0; i < 3; i++) await alert.run({}, mode);
		expect(acceptances(rows)).toEqual([3, 3]);
	});

	it('whatever the earlier alerts left: a bad number, a refusal, a 500, an unknown, an opt-out', async () => {
		const rows = [...contacts(2), { name: 'Bad', phone: '12345' }];
		const alert = workflow(rows, 'Backup failed');
		const options = { doNotSendTo: rows[1].phone };
		// 1: a bad number on the list; 2: the first request answered 500; 3: refused (no credits);
		// 4: the connection broke after the service took it.
		await alert.run(options, 'webhook', CONTINUE);
		sandbox.queueFaultAt(1, 'error500');
		await alert.run(options, 'webhook', CONTINUE);
		await sandbox.upsertAccount({ username: 'demo', credits: 0 });
		await alert.run(options, 'webhook', CONTINUE);
		await sandbox.upsertAccount({ username: 'demo', credits: 100 });
		sandbox.queueFaultAt(1, 'dropAfter');
		await alert.run(options, 'webhook', CONTINUE);
		const last = outputOf(await alert.run(options, 'webhook', CONTINUE), 'Send');
		// Accepted by the first, the fourth (taken before the break) and the fifth alert.
		expect(acceptances(rows.slice(0, 1))).toEqual([3]);
		expect(outcomes(last)).toEqual(['accepted', 'skipped', 'skipped']);
		expect(sandbox.requests().map((request) => request.form?.destination)).toEqual(
			Array(5).fill(rows[0].phone),
		);
	});

	it('two alerts at the same moment, while the service takes 300 ms to answer: both go out', async () => {
		sandbox.setFaults({ latencyMs: 300 });
		const rows = contacts(2);
		const alert = workflow(rows, 'Server down');
		await Promise.all([alert.run({}, 'webhook'), alert.run({}, 'webhook')]);
		expect(acceptances(rows)).toEqual([2, 2]);
	});

	it('two alerts that n8n started in the same millisecond: both go out, each its own campaign', async () => {
		const rows = contacts(2);
		const alert = workflow(rows, 'Server down');
		sandbox.setFaults({ latencyMs: 100 });
		const now = Date.now();
		jest.spyOn(Date, 'now').mockReturnValue(now);
		const both = await Promise.all([alert.run({}, 'webhook'), alert.run({}, 'webhook')]);
		expect(acceptances(rows)).toEqual([2, 2]);
		expect(both.map((run) => errorOf(run, 'Send'))).toEqual([undefined, undefined]);
	});

	it('tested once from the editor, then live: the first live alert goes out', async () => {
		const rows = contacts(2);
		const alert = workflow(rows, 'Shift starts at 6');
		await alert.run({}, 'manual');
		await alert.run({}, 'webhook');
		expect(acceptances(rows)).toEqual([2, 2]);
	});

	it('a production run that ended well takes its campaign out of the record', async () => {
		const alert = workflow(contacts(3), 'Server down');
		await alert.run({}, 'trigger');
		expect(recordOf(alert.workflowId, 'Send')).toEqual([expect.stringMatching(/^looked \d+$/)]);
	});

	it('a loop back into Send within one execution sends on every pass, from the editor as in production', async () => {
		for (const mode of ['manual', 'webhook'] as const) {
			const rows = contacts(2, mode === 'manual' ? 0 : 10);
			const looped = loopedAlert(rows, 3);
			await runWorkflow({ ...looped, mode });
			expect(acceptances(rows)).toEqual([3, 3]);
		}
	});
});

describe('an interrupted campaign is resumed, never resent', () => {
	it('a 500 stops a production run; a Retry, and a second Retry of it, send only the rest', async () => {
		const rows = contacts(30);
		const c = workflow(rows);
		sandbox.queueFaultAt(10, 'error500');
		const failed = await c.run({}, 'trigger');
		expect(errorOf(failed, 'Send')?.message).toMatch(/500/);
		const retried = await c.retry(failed);
		expect(errorOf(retried, 'Send')).toBeUndefined();
		expect(spread(acceptances(rows))).toEqual([1, 29, 0]);
		const output = outputOf(retried, 'Send');
		expect(inDoubt(output).map((item) => item.json.skipped)).toEqual([
			[expect.objectContaining({ input: faulted() })],
		]);
		const second = outputOf(await c.retry(failed), 'Send');
		expect(new Set(outcomes(second))).toEqual(new Set(['sent before', 'in doubt']));
		expect(spread(acceptances(rows))).toEqual([1, 29, 0]);
	});

	it('a Retry with the workflow as saved since (other options, the same text) resumes too', async () => {
		const rows = contacts(6);
		const c = workflow(rows);
		sandbox.queueFaultAt(3, 'error500');
		const failed = await c.run({ concurrency: 1 }, 'webhook');
		expect(errorOf(failed, 'Send')).toBeDefined();
		await c.retry(failed, { concurrency: 4, output: 'destination' });
		expect(spread(acceptances(rows))).toEqual([1, 5, 0]);
	});

	it('a 500 in the editor: running it again from the editor sends only the rest', async () => {
		const rows = contacts(40);
		const c = workflow(rows);
		sandbox.queueFaultAt(20, 'error500');
		expect(errorOf(await c.run(), 'Send')?.message).toMatch(/500/);
		const again = await c.run();
		expect(errorOf(again, 'Send')).toBeUndefined();
		expect(spread(acceptances(rows))).toEqual([1, 39, 0]);
		const output = outputOf(again, 'Send');
		expect(output).toHaveLength(40);
		output.forEach((item, index) => expect(item.pairedItem).toEqual([{ item: index }]));
		// Checked, and not taken: the user asks for the numbers in doubt to be sent.
		await c.run({ inDoubt: 'resend' });
		expect(spread(acceptances(rows))).toEqual([0, 40, 0]);
	});

	it('a connection broken after the service took a request: that number is in doubt, not resent', async () => {
		const rows = contacts(20);
		const c = workflow(rows);
		sandbox.queueFaultAt(8, 'dropAfter');
		expect(errorOf(await c.run(), 'Send')?.message).toMatch(/unknown/i);
		const taken = faulted();
		const again = outputOf(await c.run(), 'Send');
		expect(spread(acceptances(rows))).toEqual([0, 20, 0]);
		expect(sandbox.received().destinations.find((d) => d.msisdn === taken)?.accepted).toBe(1);
		expect(inDoubt(again).map((item) => item.json.reason)).toEqual([
			expect.stringMatching(/the connection broke before the service answered/),
		]);
	});

	it('under Continue On Fail the editor run succeeds; running it again sends nothing twice', async () => {
		const rows = contacts(30);
		const c = workflow(rows);
		sandbox.queueFaultAt(15, 'error500');
		const first = outputOf(await c.run({}, 'manual', CONTINUE), 'Send');
		expect(outcomes(first).filter((o) => o === 'unknown')).toHaveLength(1);
		const again = outputOf(await c.run({}, 'manual', CONTINUE), 'Send');
		expect(spread(acceptances(rows))).toEqual([1, 29, 0]);
		expect(new Set(outcomes(again))).toEqual(new Set(['sent before', 'in doubt']));
	});

	it('after Stop no request starts, those on their way finish; the next run sends the rest', async () => {
		sandbox.setFaults({ latencyMs: 40 });
		const rows = contacts(60);
		const c = workflow(rows);
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
		// The requests on their way at Stop were answered, and their answers recorded: none in doubt.
		expect(inDoubt(output)).toEqual([]);
		expect(spread(acceptances(rows))).toEqual([0, 60, 0]);
	});

	it('a run from the editor after one that ended well is a test of its own: it sends', async () => {
		const rows = contacts(4);
		const c = workflow(rows);
		await c.run();
		const again = outputOf(await c.run(), 'Send');
		expect(acceptances(rows)).toEqual([2, 2, 2, 2]);
		expect(new Set(outcomes(again))).toEqual(new Set(['accepted']));
	});

	it('a failed production run, run again from the editor, then retried: nobody twice', async () => {
		const rows = contacts(30);
		const c = workflow(rows);
		sandbox.queueFaultAt(12, 'error500');
		const failed = await c.run({}, 'webhook');
		expect(errorOf(failed, 'Send')).toBeDefined();
		const fromEditor = outputOf(await c.run(), 'Send');
		expect(spread(acceptances(rows))).toEqual([1, 29, 0]);
		expect(inDoubt(fromEditor)).toHaveLength(1);
		expect(fromEditor[0].json.reason).toMatch(
			/^sent before: accepted earlier in the interrupted run it resumes \(execution harness-\d+, batch \d+\)$/,
		);
		const retried = await c.retry(failed);
		expect(errorOf(retried, 'Send')).toBeUndefined();
		expect(spread(acceptances(rows))).toEqual([1, 29, 0]);
		// Its number in doubt keeps it open until the user decides: in one step, Resend.
		expect(inDoubt(outputOf(await c.run(), 'Send'))).toHaveLength(1);
		await c.run({ inDoubt: 'resend' });
		expect(spread(acceptances(rows))).toEqual([0, 30, 0]);
		// Nothing left: the next run from the editor is a test of its own, and sends.
		await c.run();
		expect(spread(acceptances(rows))).toEqual([0, 0, 30]);
	});

	it('Execute step on a later step, after an edit before Send: n8n runs Send again, nothing goes out, the later step runs', async () => {
		const rows = contacts(3);
		const c = workflow(rows);
		const withStatus = { ...c.spec(), ...line(...c.spec().nodes, getStatus({})) };
		const first = await runWorkflow(withStatus);
		const stepped = await executeStep(withStatus, 'Get Status', first, ['Items']);
		expect(acceptances(rows)).toEqual([1, 1, 1]);
		const sent = outputOf(stepped, 'Send');
		expect(outcomes(sent)).toEqual(['sent before', 'sent before', 'sent before']);
		expect(sent[0].json.batch_id).toEqual(outputOf(first, 'Send')[0].json.batch_id);
		expect(sent[0].json.reason).toMatch(/n8n ran Send again only on the way to "Get Status"/);
		// The later step still runs, and reads the batches of this n8n process's earlier run.
		expect(outputOf(stepped, 'Get Status').map((item) => item.json.outcome)).toEqual([
			'pending',
			'pending',
			'pending',
		]);
	});

	it('Execute step on Send itself sends what it says, like a run of the whole workflow', async () => {
		const rows = contacts(2);
		const c = workflow(rows);
		const first = await c.run();
		await executeStep(c.spec(), 'Send', first, ['Items']);
		expect(acceptances(rows)).toEqual([2, 2]);
	});

	it('a combined send resumes by request: a request in doubt holds back only its own numbers', async () => {
		const rows = contacts(30).map(({ phone }) => ({ name: 'all', phone }));
		const c = workflow(rows, 'Sale today');
		const combined = { combineItems: true, maxPerRequest: 10, concurrency: 1 };
		sandbox.queueFaultAt(2, 'error500');
		expect(errorOf(await c.run(combined), 'Send')).toBeDefined();
		const output = outputOf(await c.run(combined), 'Send');
		expect(output[1].json.reason).toMatch(/the service answered with an error/);
		expect(acceptances(rows)).toEqual([
			...Array(10).fill(1),
			...Array(10).fill(0),
			...Array(10).fill(1),
		]);
		expect(outcomes(output)).toEqual(['sent before', 'in doubt', 'accepted']);
	});
});

describe('what a run that holds back says', () => {
	it('One Item per Destination: sent before and in doubt are outcomes of their own, with true reasons', async () => {
		const rows = contacts(6);
		const c = workflow(rows);
		sandbox.queueFaultAt(4, 'error500');
		await c.run({ output: 'destination', concurrency: 1 });
		const output = outputOf(await c.run({ output: 'destination' }), 'Send');
		expect(output.map((row) => [row.pairedItem, row.json.msisdn, row.json.send_outcome])).toEqual(
			rows.map((row, item) => [
				{ item },
				row.phone,
				item < 3 ? 'sent before' : item === 3 ? 'in doubt' : 'accepted',
			]),
		);
		expect(output[0].json.reason).toMatch(
			/^sent before: accepted earlier in the interrupted run it resumes \(execution harness-\d+, batch \d+\)$/,
		);
		expect(output[0].json.batch_id).toMatch(/^\d+$/);
		expect(output[3].json.reason).toMatch(
			/^in doubt: the interrupted run it resumes handed it to the service and the service answered with an error/,
		);
	});

	it('a row sent before by another n8n process: the batch id the row holds (a sheet written back), or words saying none is known', async () => {
		const rows = contacts(2, 600);
		const keyed = { campaign: 'autumn', output: 'destination' };
		const c = workflow(rows);
		const first = outputOf(await c.run(keyed, 'webhook'), 'Send');
		// Another process (another node type instance), reading the sheet as written back: one row
		// with its batch id, one without.
		const writtenBack = [{ ...rows[0], batch_id: first[0].json.batch_id }, rows[1]];
		const spec = c.spec(keyed);
		const again = outputOf(
			await runWorkflow({
				...spec,
				...line(spec.nodes[0], items(writtenBack as never), spec.nodes[2]),
				nodeTypes: { [BULK_SMS]: loadPackageNodeType(BULK_SMS)! },
				mode: 'webhook',
			}),
			'Send',
		);
		expect(again.map((row) => [row.json.send_outcome, row.json.batch_id])).toEqual([
			['sent before', first[0].json.batch_id],
			['sent before', null],
		]);
		expect(again[0].json.reason).toMatch(/, as the row says\)$/);
		expect(again[1].json.reason).toMatch(/its batch id is not known here/);
		expect(acceptances(rows)).toEqual([1, 1]);
	});

	it('the rows that want a person come out again on Needs Action, where the canvas counts them', async () => {
		const rows = [...contacts(3), { name: 'Typo', phone: '4477009O0000' }];
		const c = workflow(rows);
		const options = { output: 'destination', concurrency: 1, doNotSendTo: rows[2].phone };
		sandbox.queueFaultAt(2, 'error500');
		const first = await c.run(options, 'manual', CONTINUE);
		const needsAction = (run: IRun) =>
			outputOf(run, 'Send', 1).map((row) => [row.pairedItem, row.json.send_outcome]);
		// Not the accepted row, nor the opted-out one (the user's own list).
		expect(needsAction(first)).toEqual([
			[{ item: 1 }, 'unknown'],
			[{ item: 3 }, 'skipped'],
		]);
		// Run again: the row in doubt still wants a decision; the one sent before does not.
		expect(needsAction(await c.run(options, 'manual', CONTINUE))).toEqual([
			[{ item: 1 }, 'in doubt'],
			[{ item: 3 }, 'skipped'],
		]);
	});

	it('the run gives n8n a hint that says how many it held back, and what to do', async () => {
		const rows = contacts(3);
		const c = workflow(rows);
		sandbox.queueFaultAt(3, 'error500');
		await c.run({ concurrency: 1 });
		const run = await c.run();
		const [task] = run.data.resultData.runData.Send;
		expect(task.hints).toEqual([
			expect.objectContaining({
				type: 'warning',
				message: expect.stringMatching(
					/^Did not send again to 2 number\(s\) that the interrupted run it resumes sent this text before[^]*1 number\(s\) are in doubt/,
				),
			}),
		]);
	});

	it('Get Delivery Status reads the batch of every row sent before, and passes the row in doubt through', async () => {
		const rows = contacts(4);
		const c = workflow(rows);
		sandbox.queueFaultAt(3, 'error500');
		await c.run({ concurrency: 1 });
		const followed = line(...c.spec().nodes, getStatus({}));
		const result = await runWorkflow({ ...c.spec(), ...followed });
		expect(
			outputOf(result, 'Get Status').map((item) => [item.pairedItem, item.json.outcome]),
		).toEqual([
			[{ item: 0 }, 'pending'],
			[{ item: 1 }, 'pending'],
			[{ item: 2 }, 'in doubt'],
			[{ item: 3 }, 'pending'],
		]);
	});

	it("a long run's progress goes to n8n's log every 30 seconds", async () => {
		stopTheClock(Date.now());
		const logged = jest.spyOn(engineLogger(), 'info');
		const rows = contacts(6);
		sandbox.setFaults({ latencyMs: 30 });
		const running = workflow(rows).run({ concurrency: 1 });
		const clock = setInterval(() => jest.setSystemTime(Date.now() + 31_000), 20);
		await running.finally(() => clearInterval(clock));
		jest.useRealTimers();
		const lines = logged.mock.calls
			.map((call) => String(call[0]))
			.filter((text) => text.includes('Bulk SMS Send'));
		expect(lines.length).toBeGreaterThanOrEqual(2);
		expect(lines.at(-1)).toMatch(
			/at the end: 6 of 6 numbers: 6 accepted, 0 held back, 0 not sent, 0 unknown/,
		);
	});
});

describe('a Campaign Key', () => {
	it('makes production runs one campaign: the same key resumes, a new key sends', async () => {
		const rows = contacts(3);
		const c = workflow(rows, 'Spring sale');
		sandbox.queueFaultAt(2, 'error500');
		await c.run({ campaign: 'spring', concurrency: 1 }, 'webhook');
		await c.run({ campaign: 'spring' }, 'webhook');
		expect(acceptances(rows)).toEqual([1, 0, 1]);
		await c.run({ campaign: 'spring-2' }, 'webhook');
		expect(acceptances(rows)).toEqual([2, 1, 2]);
	});

	it('two runs of one key at once: the second waits for the first, then holds back what it sent, with its batch', async () => {
		sandbox.setFaults({ latencyMs: 200 });
		const rows = contacts(8);
		const c = workflow(rows, 'Spring sale');
		const [a, b] = await Promise.all([
			c.run({ campaign: 'spring', output: 'destination' }, 'webhook'),
			c.run({ campaign: 'spring', output: 'destination' }, 'webhook'),
		]);
		expect(acceptances(rows)).toEqual(Array(8).fill(1));
		const held = [...outputOf(a, 'Send'), ...outputOf(b, 'Send')].filter(
			(row) => row.json.send_outcome !== 'accepted',
		);
		expect(held).toHaveLength(8);
		for (const row of held) {
			expect(row.json).toMatchObject({ send_outcome: 'sent before', batch_id: expect.any(String) });
			expect(row.json.reason).toMatch(
				/^sent before: accepted earlier in Campaign Key "spring" \(execution harness-\d+, batch \d+\)$/,
			);
		}
	});
});

describe('the record at campaign scale', () => {
	/** The most values the record held while `run` went on, read every few milliseconds. */
	async function widest(workflowId: string, run: Promise<IRun>): Promise<number> {
		let most = 0;
		const watch = setInterval(() => {
			most = Math.max(most, recordOf(workflowId, 'Send').length);
		}, 2);
		await run.finally(() => clearInterval(watch));
		return Math.max(most, recordOf(workflowId, 'Send').length);
	}

	it('what a call rewrites does not grow with what the campaign has sent', async () => {
		const small = workflow(contacts(200, 5_000));
		const large = workflow(contacts(2_000, 6_000));
		const keyed = { campaign: 'scale', concurrency: 8 };
		const widestSmall = await widest(small.workflowId, small.run(keyed));
		const widestLarge = await widest(large.workflowId, large.run(keyed));
		// Two segments of requests' facts at most (facts.ts), whatever the campaign's size.
		expect(widestLarge).toBeLessThanOrEqual(2 * STEP * 3 + 32);
		expect(widestLarge).toBeLessThanOrEqual(widestSmall * 2);
	});

	it('the largest Concurrent Requests keeps that many on their way: claims never wait for a checkpoint', async () => {
		await sandbox.stop();
		sandbox = await startSandbox({ timeScale: 0, faults: { latencyMs: 200 } });
		const rows = contacts(300, 8_000);
		await workflow(rows).run({ campaign: 'wide', concurrency: 32 });
		expect(spread(acceptances(rows))).toEqual([0, 300, 0]);
		expect(sandbox.inFlight().max).toBe(32);
	});

	it('a campaign stopped past many checkpoints resumes where it stopped: nobody twice, one in doubt', async () => {
		const rows = contacts(700, 7_000);
		const c = workflow(rows);
		const keyed = { campaign: 'spring' };
		sandbox.queueFaultAt(300, 'error500');
		expect(errorOf(await c.run(keyed, 'webhook'), 'Send')).toBeDefined();
		const again = outputOf(await c.run(keyed, 'webhook'), 'Send');
		expect(spread(acceptances(rows))).toEqual([1, 699, 0]);
		expect(inDoubt(again)).toHaveLength(1);
		await c.run({ ...keyed, inDoubt: 'resend' }, 'webhook');
		expect(spread(acceptances(rows))).toEqual([0, 700, 0]);
		const third = outputOf(await c.run(keyed, 'webhook'), 'Send');
		expect(new Set(outcomes(third))).toEqual(new Set(['sent before']));
	});

	it('a run from the editor resumes a run that left a number in doubt past its checkpoints (Continue On Fail)', async () => {
		const rows = contacts(300, 9_000);
		const c = workflow(rows);
		sandbox.queueFaultAt(198, 'error500');
		await c.run({}, 'manual', CONTINUE);
		const again = outputOf(await c.run({}, 'manual', CONTINUE), 'Send');
		expect(spread(acceptances(rows))).toEqual([1, 299, 0]);
		expect(outcomes(again).filter((o) => o === 'sent before')).toHaveLength(299);
		expect(inDoubt(again)).toHaveLength(1);
	});

	it('what a run did not send behind a checkpoint is read back exactly: in doubt held, not sent sent', async () => {
		const rows = contacts(400, 8_000).map(({ phone }) => ({ name: 'all', phone }));
		const c = workflow(rows, 'Sale today');
		const combined = { campaign: 'sale', combineItems: true, maxPerRequest: 1, concurrency: 1 };
		sandbox.queueFaultAt(51, 'error500');
		// Continue On Fail: the send's later requests are not sent, and the run ends.
		await c.run(combined, 'webhook', CONTINUE);
		expect(spread(acceptances(rows))).toEqual([350, 50, 0]);
		const again = outputOf(await c.run(combined, 'webhook', CONTINUE), 'Send');
		expect(spread(acceptances(rows))).toEqual([1, 399, 0]);
		expect(inDoubt(again)).toHaveLength(1);
		expect(again[50].json.reason).toMatch(/the service answered with an error/);
		// Resent behind its checkpoint, it leaves nothing in doubt for the next run.
		await c.run({ ...combined, inDoubt: 'resend' }, 'webhook', CONTINUE);
		const last = outputOf(await c.run(combined, 'webhook', CONTINUE), 'Send');
		expect(spread(acceptances(rows))).toEqual([0, 400, 0]);
		expect(new Set(outcomes(last))).toEqual(new Set(['sent before']));
	});
});

describe('the record', () => {
	it('when it cannot be written nothing is sent, and the error says why', async () => {
		const rows = contacts(3);
		failStoreCalls(100); // n8n's database out of reach
		const error = errorOf(await workflow(rows).run(), 'Send');
		failStoreCalls(0);
		expect(error?.message).toMatch(
			/record of accepted sends could not be written, so nothing was sent/,
		);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('never holds more claims without an answer than Concurrent Requests: all a crash leaves in doubt', async () => {
		sandbox.setFaults({ latencyMs: 15 });
		const rows = contacts(200);
		const c = workflow(rows);
		const running = c.run({ concurrency: 4 });
		let widest = 0;
		const watch = setInterval(() => {
			const record = new Set(recordOf(c.workflowId, 'Send'));
			// Numbers' claims (a request's claim names the request: facts.ts).
			const open = [...record]
				.filter((value) => value.startsWith('claim ') && !value.includes(' request '))
				.filter((claim) => !record.has(claim.replace(/^claim /, 'accepted ')));
			widest = Math.max(widest, open.length);
		}, 2);
		await running.finally(() => clearInterval(watch));
		expect(spread(acceptances(rows))).toEqual([0, 200, 0]);
		expect(widest).toBeGreaterThan(0);
		expect(widest).toBeLessThanOrEqual(4);
	});

	it('forgets what was kept Resume Within hours after the last run that kept something', async () => {
		const rows = contacts(3);
		const c = workflow(rows);
		const now = Date.now();
		const at = (hours: number) => jest.spyOn(Date, 'now').mockReturnValue(now + hours * 3_600_000);
		const keyed = { campaign: 'autumn' };
		at(0);
		await c.run(keyed);
		at(11);
		await c.run(keyed);
		expect(acceptances(rows)).toEqual([1, 1, 1]);
		at(23);
		await c.run({ ...keyed, resumeWithinHours: 12 });
		expect(acceptances(rows)).toEqual([1, 1, 1]); // kept 12 hours before: still resumed
		at(37);
		await c.run(keyed);
		expect(acceptances(rows)).toEqual([2, 2, 2]);
	});

	it('a Retry resumes however old the record, unless another run has emptied it since: then it says so', async () => {
		const rows = contacts(3);
		const c = workflow(rows);
		sandbox.queueFaultAt(3, 'error500');
		const failed = await c.run({ concurrency: 1 }, 'trigger');
		const later = Date.now() + 100 * 3_600_000;
		jest.spyOn(Date, 'now').mockReturnValue(later);
		await c.retry(failed);
		expect(acceptances(rows)).toEqual([1, 1, 0]);
		// 100 hours after the Retry, the first run of this node finds nothing kept: it empties the record.
		jest.spyOn(Date, 'now').mockReturnValue(later + 100 * 3_600_000);
		await c.run({}, 'webhook');
		const forgotten = await c.retry(failed);
		expect(errorOf(forgotten, 'Send')?.message).toMatch(
			/^Send's record no longer holds the run this Retry continues/,
		);
		expect(acceptances(rows)).toEqual([2, 2, 1]);
	});
});

describe('Sending Speed Limit', () => {
	it('spaces the requests over every request in flight', async () => {
		const rows = contacts(6);
		await workflow(rows).run({ speedLimit: { limit: { messages: 10, per: 'second' } } });
		// A request leaves its turn 100 ms after the one before; arrival adds jitter, never a rush.
		const times = sandbox.requests().map((request) => Date.parse(request.at));
		expect(times.at(-1)! - times[0]).toBeGreaterThanOrEqual(450);
		expect(spread(acceptances(rows))).toEqual([0, 6, 0]);
	});

	it('is refused in words when it is not a number above 0', async () => {
		const error = errorOf(
			await workflow(contacts(1)).run({ speedLimit: { limit: { messages: 0, per: 'minute' } } }),
			'Send',
		);
		expect(error?.message).toMatch(/^Sending Speed Limit must be a number of messages above 0/);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('Stop ends the wait: no request starts after it, and the next run resumes', async () => {
		const rows = contacts(4);
		const c = workflow(rows);
		const running = c.start({ speedLimit: { limit: { messages: 1, per: 'minute' } } });
		while (sandbox.received().batches.length < 1) await sleep(10);
		running.cancel();
		await running;
		expect(sandbox.requests()).toHaveLength(1);
		// The first went out before Stop; the others, given back, go now.
		const again = outputOf(await c.run(), 'Send');
		expect(spread(acceptances(rows))).toEqual([0, 4, 0]);
		expect(outcomes(again)).toEqual(['sent before', 'accepted', 'accepted', 'accepted']);
	});
});
