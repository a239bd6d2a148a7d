/**
 * Get Status over a campaign, through n8n's real engine against the sandbox: batch IDs from
 * every input item (Send's output) or a list, each batch read once with bounded concurrency,
 * output per report, per batch, or one campaign summary.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { errorOf, outputOf, runWorkflow } from '../engine/harness';
import { readBatchIdList, summariseCampaign } from '../../nodes/shared/domain/campaign';
import type { DeliveryReport } from '../../nodes/shared/domain/reports';
import type { Outcome } from '../../nodes/shared/domain/status';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { Proxy } from '../trigger/helpers';
import { credentialsFor, getStatus, items, line, send, trigger } from './workflow';

let sandbox: Sandbox;
let proxy: Proxy | undefined;
beforeEach(async () => {
	sandbox = await startSandbox({ timeZone: 'UTC' });
});
afterEach(async () => {
	await proxy?.stop();
	proxy = undefined;
	await sandbox.stop();
});

/** Sends one batch per destination (a personalised campaign) and returns the batch ids. */
async function sendEach(destinations: string[]): Promise<string[]> {
	const run = await runWorkflow({
		...line(
			trigger(),
			items(destinations.map((msisdn) => ({ msisdn }))),
			send({ destinations: '={{ $json.msisdn }}', message: 'Hi {{ $json.msisdn }}' }),
		),
		credentials: credentialsFor(sandbox),
	});
	return outputOf(run, 'Send').map((item) => item.json.batch_id as string);
}

async function statusOf(
	list: IDataObject[],
	parameters: INodeParameters,
	onError?: 'continueRegularOutput',
	baseUrl?: string,
) {
	const credentials = credentialsFor(sandbox);
	if (baseUrl) credentials.bulkSmsApi = { ...credentials.bulkSmsApi, baseUrl };
	return await runWorkflow({
		...line(trigger(), items(list), getStatus(parameters, onError ? { onError } : {})),
		credentials,
	});
}

// Last digit decides the outcome: 0 delivered, 5 accepted, 6 undeliverable, 7 rejected, 9 never final.
const CONTACTS = ['447700900120', '447700900125', '447700900126', '447700900127', '447700900130'];

describe('Get Status over a campaign', () => {
	it('one campaign summary for the batch_id of every input item, until all final', async () => {
		const ids = await sendEach(CONTACTS);
		const perItem = ids.map((batch_id) => ({ batch_id }));
		const parameters = { batchId: '={{ $json.batch_id }}', output: 'campaign' };
		const [early] = outputOf(await statusOf(perItem, parameters), 'Get Status');
		expect(early.json).toMatchObject({
			batches: 5,
			messages: 5,
			by_outcome: { pending: 5, delivered: 0, failed: 0 },
			all_final: false,
		});
		expect(early.pairedItem).toEqual(ids.map((_, item) => ({ item })));

		sandbox.advance(60_000);
		const [done] = outputOf(await statusOf(perItem, parameters), 'Get Status');
		expect(done.json).toEqual({
			batches: 5,
			messages: 5,
			by_status: { DELIVRD: 2, ACCEPTD: 1, UNDELIV: 1, REJECTD: 1 },
			by_outcome: { delivered: 3, failed: 2, pending: 0 },
			all_final: true,
			unfinished_batches: [],
			failed: [
				{ msisdn: '447700900126', batch_id: ids[2], status: 'UNDELIV' },
				{ msisdn: '447700900127', batch_id: ids[3], status: 'REJECTD' },
			],
		});
	});

	it('reads each distinct batch once, at most eight at a time', async () => {
		proxy = await new Proxy(sandbox.baseUrl).start();
		const ids = await sendEach(
			Array.from({ length: 20 }, (_, i) => `4477009002${String(i).padStart(2, '0')}9`),
		);
		// Every batch twice (two items each), and "0"-prefixed forms of the same ids.
		const list = [...ids, ...ids.map((id) => `0${id}`)].map((batch_id) => ({ batch_id }));
		const run = await statusOf(
			list,
			{ batchId: '={{ $json.batch_id }}', output: 'campaign' },
			undefined,
			proxy.baseUrl,
		);
		const [summary] = outputOf(run, 'Get Status');
		expect(summary.json).toMatchObject({ batches: 20, messages: 20, all_final: false });
		expect((summary.json.unfinished_batches as string[]).sort()).toEqual([...ids].sort());
		expect(proxy.batchesRequested().sort()).toEqual([...ids].sort());
		expect(proxy.maxInFlight).toBeGreaterThan(1);
		expect(proxy.maxInFlight).toBeLessThanOrEqual(8);
	});

	it('takes a list in one item: per report, per batch, in the order given', async () => {
		const ids = await sendEach(CONTACTS.slice(0, 3));
		const batchId = `${ids[2]}, ${ids[0]}\n${ids[1]}`;
		const reports = outputOf(await statusOf([{}], { batchId }), 'Get Status');
		expect(reports.map((r) => r.json.batch_id)).toEqual([ids[2], ids[0], ids[1]]);
		expect(reports.every((r) => JSON.stringify(r.pairedItem) === '{"item":0}')).toBe(true);
		const batches = outputOf(await statusOf([{}], { batchId, output: 'batch' }), 'Get Status');
		expect(batches.map((b) => [b.json.batch_id, b.json.total])).toEqual([
			[ids[2], 1],
			[ids[0], 1],
			[ids[1], 1],
		]);
	});

	it('keeps the output in input order, each item paired, whatever order the answers come in', async () => {
		const ids = await sendEach(CONTACTS);
		const run = await statusOf(
			[...ids].reverse().map((batch_id) => ({ batch_id })),
			{ batchId: '={{ $json.batch_id }}' },
		);
		const output = outputOf(run, 'Get Status');
		expect(output.map((item) => item.json.batch_id)).toEqual([...ids].reverse());
		expect(output.map((item) => item.pairedItem)).toEqual(ids.map((_, item) => ({ item })));
	});

	it('fails naming an unknown batch, or lists it under Continue On Fail and is not all final', async () => {
		const [known] = await sendEach(['447700900120']);
		sandbox.advance(60_000);
		const list = [{ batch_id: known }, { batch_id: '4242424242424242424' }];
		const parameters = { batchId: '={{ $json.batch_id }}', output: 'campaign' };
		const failed = await statusOf(list, parameters);
		expect(errorOf(failed, 'Get Status')?.message).toMatch(
			/does not know batch 4242424242424242424/,
		);
		// Shown for the item that asked for the batch.
		expect(errorOf(failed, 'Get Status')?.context?.itemIndex).toBe(1);

		const [summary] = outputOf(
			await statusOf(list, parameters, 'continueRegularOutput'),
			'Get Status',
		);
		expect(summary.json).toMatchObject({
			batches: 2,
			messages: 1,
			all_final: false,
			unread_batches: [
				{ batch_id: '4242424242424242424', error: expect.stringMatching(/does not know batch/) },
			],
		});
	});

	it('under Continue On Fail, an item with a bad id gets its error item in its place', async () => {
		const ids = await sendEach(CONTACTS.slice(0, 2));
		const run = await statusOf(
			[{ batch_id: ids[0] }, { batch_id: '12x' }, { batch_id: ids[1] }],
			{ batchId: '={{ $json.batch_id }}' },
			'continueRegularOutput',
		);
		const output = outputOf(run, 'Get Status');
		expect(output.map((item) => [item.pairedItem, item.json.batch_id ?? item.json.error])).toEqual([
			[{ item: 0 }, ids[0]],
			[[{ item: 1 }], expect.stringMatching(/"12x" is not a batch ID/)],
			[{ item: 2 }, ids[1]],
		]);
	});

	it('refuses a bad id in any item before any request, naming it', async () => {
		const run = await statusOf([{ batch_id: '123' }, { batch_id: '12x' }], {
			batchId: '={{ $json.batch_id }}',
			output: 'campaign',
		});
		expect(errorOf(run, 'Get Status')?.message).toMatch(/"12x" is not a batch ID/);
		expect(sandbox.requests().filter((r) => r.path === '/api/sms/get_status')).toHaveLength(0);
	});
});

describe('summariseCampaign and readBatchIdList', () => {
	const report = (msisdn: string, status: string, outcome: Outcome, final: boolean) =>
		({ batch_id: '1', msisdn, status, outcome, final }) as DeliveryReport;

	it('a batch without reports keeps the campaign unfinished; unread batches are counted and listed', () => {
		const summary = summariseCampaign(
			[
				{ batchId: '1', reports: [report('11', 'UNDELIV', 'failed', true)] },
				{ batchId: '2', reports: [] },
			],
			[{ batch_id: '3', error: 'HTTP 500' }],
		);
		expect(summary).toEqual({
			batches: 3,
			messages: 1,
			by_status: { UNDELIV: 1 },
			by_outcome: { delivered: 0, failed: 1, pending: 0 },
			all_final: false,
			unfinished_batches: ['2'],
			failed: [{ msisdn: '11', batch_id: '1', status: 'UNDELIV' }],
			unread_batches: [{ batch_id: '3', error: 'HTTP 500' }],
		});
		expect(summariseCampaign([]).all_final).toBe(false);
	});

	it.each<[string, unknown, unknown]>([
		[
			'text with any separators',
			'9007199254740993, 9007199254740995;\n7',
			['9007199254740993', '9007199254740995', '7'],
		],
		[
			'nested lists from expressions',
			[['0123', '123'], ['9007199254740993']],
			['123', '9007199254740993'],
		],
		['nothing at all', ' , ', []],
	])('reads %s', (_, value, batchIds) => {
		expect(readBatchIdList(value)).toEqual({ batchIds });
	});

	it('refuses a number past 2^53 in a list, in words', () => {
		expect(readBatchIdList(['1', Number('9007199254740993')])).toMatchObject({
			problem: expect.stringMatching(/number/),
		});
	});
});
