/**
 * The everyday campaign: one personalised SMS per sheet row, the outcome written back
 * to the row, delivery followed by Get Status. A bad row stops nothing: it comes out as its own
 * row, paired with its input, in the same columns as the rows that were sent. Workflows run
 * through n8n's engine against the sandbox on 127.0.0.1.
 */
import type { IDataObject, INode, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { errorOf, outputOf, runWorkflow } from '../engine/harness';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { credentialsFor, getStatus, items, line, send, trigger, writeBack } from './workflow';

let sandbox: Sandbox;

beforeEach(async () => {
	sandbox = await startSandbox({ timeScale: 0 });
});
afterEach(async () => {
	await sandbox.stop();
});

/** Five contacts; Bob's number is national (no Default Country Code) and Dan's too short. */
const CONTACTS = [
	{ name: 'Alice', phone: '+44 7700 900120' },
	{ name: 'Bob', phone: '07700 900126' },
	{ name: 'Chloé', phone: '447700900125' },
	{ name: 'Dan', phone: '12345' },
	{ name: 'Emma', phone: '447700900127' },
];
const SENT = [0, 2, 4];

const CONTINUE: Partial<INode> = { onError: 'continueRegularOutput' };

/** Contacts → Send one personalised message per row, with these options. */
function campaign(
	options: INodeParameters = {},
	extra?: Partial<INode>,
	rows: IDataObject[] = CONTACTS,
) {
	return line(
		trigger(),
		items(rows),
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

const run = (spec: ReturnType<typeof line>) =>
	runWorkflow({ ...spec, credentials: credentialsFor(sandbox) });

const sentMessages = () => sandbox.received().batches.map((batch) => batch.message);

/** Each output item as "<the rows it is paired with>: <send_outcome>". */
const outcomes = (output: INodeExecutionData[]) =>
	output.map((item) => {
		const rows = ([] as Array<{ item: number }>).concat(item.pairedItem as { item: number });
		return `${rows.map((row) => row.item).join(',')}: ${String(item.json.send_outcome)}`;
	});

describe('Skip and Report (the default) skips a bad row, not the run', () => {
	it('a row whose numbers are all invalid is its own skipped item; the other rows are sent', async () => {
		const output = outputOf(await run(campaign()), 'Send');
		expect(outcomes(output)).toEqual([
			'0: accepted',
			'1: skipped',
			'2: accepted',
			'3: skipped',
			'4: accepted',
		]);
		expect(sentMessages().sort()).toEqual(
			SENT.map((i) => `Hi ${CONTACTS[i].name}, your order is ready.`).sort(),
		);
		expect(output[1].json).toMatchObject({
			send_outcome: 'skipped',
			batch_id: null,
			requested: 0,
			destinations: [],
			skipped: [
				{ input: '07700 900126', reason: expect.stringMatching(/^national format/), item: 1 },
			],
			reason: expect.stringMatching(/^"07700 900126": national format/),
		});
		expect(output[3].json).toMatchObject({
			skipped: [{ input: '12345', reason: expect.stringMatching(/^too short/), item: 3 }],
			reason: expect.stringMatching(/^"12345": too short/),
		});
	});

	it('a row with no number at all is skipped with its reason too', async () => {
		const rows = [CONTACTS[0], { name: 'Fay', phone: '' }];
		const output = outputOf(await run(campaign({}, undefined, rows)), 'Send');
		expect(outcomes(output)).toEqual(['0: accepted', '1: skipped']);
		expect(output[1].json).toMatchObject({
			skipped: [{ input: '', reason: 'no number given', item: 1 }],
			reason: 'no number given',
		});
	});

	it('a run that cannot send anything says so once, naming the bad rows and their count', async () => {
		const rows = Array.from({ length: 7 }, (_, i) => ({ name: `n${i}`, phone: `1234${i}` }));
		rows[2].phone = '07700 900126';
		const error = errorOf(await run(campaign({}, undefined, rows)), 'Send');
		expect(error?.message).toBe('No valid destination to send to');
		expect(error?.description).toMatch(
			/^Nothing was sent: none of the 7 items has a number that can be sent\. Item 0: "12340": too short.*; item 2: "07700 900126": national format.*; item 4: "12344": too short[^;]* and 2 more\. Give numbers/,
		);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('opted-out rows alone are not an error, bad rows beside them still are', async () => {
		const optedOut = { doNotSendTo: '447700900120, 447700900125, 447700900127' };
		const output = outputOf(
			await run(campaign(optedOut, undefined, [CONTACTS[0], CONTACTS[2]])),
			'Send',
		);
		expect(output.map((item) => item.json.send_outcome)).toEqual(['skipped', 'skipped']);
		expect(output[0].json.reason).toBe('"447700900120": opted out');

		const error = errorOf(await run(campaign(optedOut)), 'Send');
		expect(error?.message).toBe('No valid destination to send to');
		expect(error?.description).toMatch(/Item 1: "07700 900126".*; item 3: "12345"/);
		expect(error?.description).not.toMatch(/opted out/);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('with Group Items With the Same Message, a row with nothing to send still comes out alone', async () => {
		const rows = CONTACTS.map((contact) => ({ ...contact, name: 'all' }));
		const output = outputOf(
			await run(campaign({ groupSameMessage: true }, undefined, rows)),
			'Send',
		);
		expect(outcomes(output)).toEqual(['0,2,4: accepted', '1: skipped', '3: skipped']);
		expect(output[0].json.skipped).toEqual([]);
	});
});

describe('Fail the Item fails only that item', () => {
	it('without Continue On Fail the run stops before any request, naming every failed row', async () => {
		const error = errorOf(await run(campaign({ onInvalid: 'fail' })), 'Send');
		expect(error?.message).toBe('2 items cannot be sent; nothing was sent');
		expect(error?.description).toMatch(
			/^Item 1: "07700 900126": national format.*; item 3: "12345": too short.*\. Correct them, or set Invalid Numbers to Skip and Report\.$/,
		);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('one failed row keeps its own message', async () => {
		const rows = [CONTACTS[0], CONTACTS[3]];
		const error = errorOf(await run(campaign({ onInvalid: 'fail' }, undefined, rows)), 'Send');
		expect(error?.message).toBe('1 destination(s) are not valid mobile numbers; nothing was sent');
		expect(error?.description).toMatch(/^"12345": too short/);
	});

	it('under Continue On Fail the other rows are sent and a failed row keeps the row shape', async () => {
		const output = outputOf(await run(campaign({ onInvalid: 'fail' }, CONTINUE)), 'Send');
		expect(outcomes(output)).toEqual([
			'0: accepted',
			'1: failed',
			'2: accepted',
			'3: failed',
			'4: accepted',
		]);
		expect(output[3].json).toMatchObject({
			send_outcome: 'failed',
			batch_id: null,
			requested: 0,
			destinations: [],
			skipped: [{ input: '12345', reason: expect.stringMatching(/^too short/), item: 3 }],
			reason: expect.stringMatching(/^"12345": too short/),
			error: '1 destination(s) are not valid mobile numbers; nothing was sent',
			description: expect.stringMatching(/or set Invalid Numbers to Skip and Report\.$/),
		});
		expect(sandbox.received().batches).toHaveLength(3);
	});
});

describe("the option pairs that let a write-back read each row through n8n's pairing", () => {
	const rows = CONTACTS.filter((_, i) => SENT.includes(i));
	const writtenBack = (sendOptions: INodeParameters) =>
		run(
			line(
				trigger(),
				items(rows),
				send({ destinations: '={{ $json.phone }}', message: 'Sale today', sendOptions }),
				writeBack("={{ $('Items').item.json.name }}"),
			),
		);

	it.each([
		['the defaults (one request per row)', {}],
		['Combine with One Item per Destination', { combineItems: true, output: 'destination' }],
		['Group with One Item per Destination', { groupSameMessage: true, output: 'destination' }],
	])('%s: every row is written back with its own columns', async (_, options) => {
		const output = outputOf(await writtenBack(options), 'Write Back');
		expect(output.map((item) => item.json.value)).toEqual(rows.map((row) => row.name));
	});

	it.each([
		['Combine', { combineItems: true }],
		['Group', { groupSameMessage: true }],
	])(
		'%s with One Item per Batch: n8n cannot tell which row, as the guide warns',
		async (_, options) => {
			const error = errorOf(await writtenBack(options), 'Write Back');
			expect(error?.message).toBe('Multiple matches found');
		},
	);
});

describe('One Item per Batch (the default): every item has the same columns', () => {
	const COLUMNS = [
		'send_outcome',
		'batch_id',
		'accepted',
		'batch_size',
		'receive_updates',
		'remaining_credits',
		'requested',
		'destinations',
		'dropped_by_service',
		'skipped',
		'duplicates_removed',
		'reason',
		'encoding',
		'characters',
		'parts',
		'credits_expected',
		'validity_period',
		'valid_until',
		'chunk',
		'chunks',
		'error',
		'description',
		'service_error',
		'not_sent',
	];

	it('sent, skipped, repeated and failed rows alike, null where not applicable', async () => {
		const rows = [...CONTACTS, CONTACTS[0]];
		const output = outputOf(await run(campaign({ onInvalid: 'fail' }, CONTINUE, rows)), 'Send');
		expect(outcomes(output)).toEqual([
			'0: accepted',
			'1: failed',
			'2: accepted',
			'3: failed',
			'4: accepted',
			'5: skipped',
		]);
		for (const item of output) {
			expect(Object.keys(item.json)).toEqual(COLUMNS);
			expect(Object.values(item.json)).not.toContain(undefined);
		}
	});
});

describe('One Item per Destination: every row has the same columns', () => {
	const COLUMNS = [
		'msisdn',
		'input',
		'send_outcome',
		'batch_id',
		'reason',
		'sent_with_item',
		'error',
		'service_error',
		'encoding',
		'characters',
		'parts',
		'credits_expected',
		'validity_period',
		'valid_until',
	];

	const expectSameColumns = (output: INodeExecutionData[]) => {
		for (const row of output) {
			expect(Object.keys(row.json)).toEqual(COLUMNS);
			expect(Object.values(row.json)).not.toContain(undefined);
		}
	};

	it('sent, invalid, opted out and repeated numbers alike, null where not applicable', async () => {
		const rows = [
			{ name: 'Alice', phone: '+44 7700 900120, 12345' },
			{ name: 'Bob', phone: '07700 900126' },
			{ name: 'all', phone: '447700900125, 447700900121' },
			{ name: 'all', phone: '447700900125' },
		];
		const options = { output: 'destination', doNotSendTo: '447700900121', groupSameMessage: true };
		const output = outputOf(await run(campaign(options, undefined, rows)), 'Send');
		expectSameColumns(output);
		const [alice, batch] = sandbox.received().batches.map((b) => b.batch_id);
		expect(
			output.map((row) => [
				row.pairedItem,
				row.json.msisdn,
				row.json.input,
				row.json.send_outcome,
				row.json.batch_id,
				row.json.reason === null ? null : String(row.json.reason).split(':')[0],
				row.json.credits_expected,
			]),
		).toEqual([
			[{ item: 0 }, '447700900120', null, 'accepted', alice, null, 1],
			[{ item: 0 }, null, '12345', 'skipped', null, 'too short', 0],
			[{ item: 1 }, null, '07700 900126', 'skipped', null, 'national format', 0],
			[{ item: 2 }, '447700900125', null, 'accepted', batch, null, 1],
			[{ item: 2 }, '447700900121', '447700900121', 'skipped', null, 'opted out', 0],
			[{ item: 3 }, '447700900125', '447700900125', 'skipped', null, 'duplicate', 0],
		]);
		expect(output[5].json.sent_with_item).toBe(2);
	});

	it('failed rows and rows of a refused request too', async () => {
		await sandbox.upsertAccount({ username: 'demo', credits: 1 });
		const rows = [CONTACTS[0], CONTACTS[3], { name: 'Gus', phone: '447700900122' }];
		const options = { output: 'destination', onInvalid: 'fail', concurrency: 1 };
		const output = outputOf(await run(campaign(options, CONTINUE, rows)), 'Send');
		expectSameColumns(output);
		expect(
			output.map((row) => [row.pairedItem, row.json.send_outcome, row.json.input, row.json.error]),
		).toEqual([
			[{ item: 0 }, 'accepted', null, null],
			[
				{ item: 1 },
				'failed',
				'12345',
				'1 destination(s) are not valid mobile numbers; nothing was sent',
			],
			[{ item: 2 }, 'not accepted', null, expect.stringMatching(/did not accept the batch/)],
		]);
		expect(output[1].json.reason).toMatch(/^too short/);
		expect(output[2].json.service_error).toMatch(/insufficient credits/);
	});
});

describe("Get Delivery Status takes Send's output as it is", () => {
	/** Contacts → Send → Get Status with its defaults (Batch IDs too) and these parameters. */
	const followed = (
		statusParameters: INodeParameters = {},
		sendOptions: INodeParameters = {},
		onError?: Partial<INode>,
	) => {
		const spec = campaign(sendOptions, onError);
		const status = getStatus(statusParameters);
		return line(...spec.nodes, status);
	};

	const NOT_SENT = {
		batch_id: null,
		msisdn: null,
		status: null,
		outcome: 'not sent',
		final: true,
		network_id: null,
		gateway_session_id: null,
		delivery_date: null,
		delivery_date_raw: null,
	};

	it('reads the batch of every sent row by default, and a row never sent passes through paired', async () => {
		const result = await run(followed());
		const ids = outputOf(result, 'Send').map((item) => item.json.batch_id);
		const output = outputOf(result, 'Get Status');
		expect(output.map((item) => [item.pairedItem, item.json.batch_id, item.json.status])).toEqual([
			[{ item: 0 }, ids[0], 'ENROUTE'],
			[{ item: 1 }, null, null],
			[{ item: 2 }, ids[2], 'ENROUTE'],
			[{ item: 3 }, null, null],
			[{ item: 4 }, ids[4], 'ENROUTE'],
		]);
		expect(output[1].json).toEqual({
			...NOT_SENT,
			send_outcome: 'skipped',
			reason: expect.stringMatching(/^"07700 900126": national format/),
		});
		expect(sandbox.requests().filter((r) => r.path === '/api/sms/get_status')).toHaveLength(3);
	});

	it('a row that failed, or whose outcome is unknown, says so too', async () => {
		sandbox.queueFaults('dropAfter');
		const options = { onInvalid: 'fail', concurrency: 1 };
		const output = outputOf(await run(followed({}, options, CONTINUE)), 'Get Status');
		expect(output.map((item) => [item.json.send_outcome, item.json.outcome])).toEqual([
			['unknown', 'unknown'],
			['failed', 'not sent'],
			[undefined, 'pending'],
			['failed', 'not sent'],
			[undefined, 'pending'],
		]);
		expect(output[0].json.reason).toMatch(/outcome is unknown/);
		expect(output[1].json.reason).toMatch(/^"07700 900126": national format/);
	});

	it('One Item per Batch and One Campaign Summary say which rows were never sent', async () => {
		const perBatch = outputOf(await run(followed({ output: 'batch' })), 'Get Status');
		expect(perBatch.map((item) => [item.pairedItem, item.json.total])).toEqual([
			[{ item: 0 }, 1],
			[{ item: 1 }, 0],
			[{ item: 2 }, 1],
			[{ item: 3 }, 0],
			[{ item: 4 }, 1],
		]);
		expect(perBatch[3].json).toEqual({
			batch_id: null,
			total: 0,
			by_status: {},
			by_outcome: { delivered: 0, failed: 0, pending: 0 },
			all_final: true,
			reports: [],
			outcome: 'not sent',
			send_outcome: 'skipped',
			reason: expect.stringMatching(/^"12345": too short/),
		});

		const [summary] = outputOf(await run(followed({ output: 'campaign' })), 'Get Status');
		expect(summary.json).toMatchObject({
			batches: 3,
			messages: 3,
			not_sent: [
				{ item: 1, send_outcome: 'skipped', reason: expect.stringMatching(/^"07700 900126"/) },
				{ item: 3, send_outcome: 'skipped', reason: expect.stringMatching(/^"12345"/) },
			],
		});
		expect(summary.pairedItem).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
	});

	it('an item without a batch ID that is not a row of Send is an error that says what to do', async () => {
		const spec = line(trigger(), items([{ name: 'Alice' }]), getStatus({}));
		const error = errorOf(await run(spec), 'Get Status');
		expect(error?.message).toBe('No batch ID to read for this item');
		expect(error?.description).toMatch(/has no batch_id/);
	});
});
