/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Send with many items: concurrency, what a failure says of every item, grouping, and the
 * options bulk senders expect (Smart Encoding, Do Not Send To, Max Credits, one item per
 * destination). Workflows run through n8n's engine against the sandbox on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { errorOf, outputOf, runWorkflow } from '../engine/harness';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { credentialsFor, items, line, send, trigger } from './workflow';

let sandbox: Sandbox;

beforeEach(async () => {
	sandbox = await startSandbox();
});
afterEach(async () => {
	await sandbox.stop();
});

const CONTINUE: Partial<INode> = { onError: 'continueRegularOutput' };
const number = (i: number) => `4477009001${String(i).padStart(2, '0')}`;
const rows = (count: number) =>
	Array.from({ length: count }, (_, i) => ({ to: number(i), name: `n${i}` }));

/** One personalised message per row. */
const personalised = (count: number, options: INodeParameters = {}, extra?: Partial<INode>) =>
	line(
		trigger(),
		items(rows(count)),
		send(
			{ destinations: '={{ $json.to }}', message: '=Hi {{ $json.name }}', sendOptions: options },
			extra,
		),
	);

const run = (spec: ReturnType<typeof line>) =>
	runWorkflow({ ...spec, credentials: credentialsFor(sandbox) });

const acceptedOnce = () =>
	sandbox
		.received()
		.destinations.filter((d) => d.accepted === 1)
		.map((d) => d.msisdn)
		.sort();

describe('Send with many items, concurrently', () => {
	it('keeps the input order and each item paired, and sends every number once', async () => {
		sandbox.setFaults({ latencyMs: 5 });
		const output = outputOf(await run(personalised(20)), 'Send');
		expect(output.map((item) => [item.json.destinations, item.pairedItem])).toEqual(
			rows(20).map((row, i) => [[row.to], [{ item: i }]]),
		);
		expect(output.map((item) => item.json.send_outcome)).toEqual(Array(20).fill('accepted'));
		expect(acceptedOnce()).toEqual(rows(20).map((row) => row.to));
		const messages = Object.fromEntries(
			sandbox.received().batches.map((b) => [b.messages[0].msisdn, b.message]),
		);
		expect(messages[number(7)]).toBe('Hi n7');
	});

	// The sandbox logs a request as it arrives and answers after its latency: with a whole second,
	// the requests that were started together are all logged before the first answer comes back,
	// however busy the machine running the tests.
	it('has up to Concurrent Requests on their way, and 1 keeps strict order', async () => {
		sandbox.setFaults({ latencyMs: 1000 });
		sandbox.queueFaults('dropAfter');
		const eight = errorOf(await run(personalised(8)), 'Send');
		expect(sandbox.requests()).toHaveLength(8);
		expect(eight?.message).toMatch(/outcome is unknown/);
		expect(eight?.description).toContain('Accepted: 7 destination(s) in 7 batch(es)');

		await sandbox.stop();
		sandbox = await startSandbox();
		sandbox.setFaults({ latencyMs: 1000 });
		sandbox.queueFaults('dropAfter');
		const one = errorOf(await run(personalised(8, { concurrency: 1 })), 'Send');
		expect(sandbox.requests()).toHaveLength(1);
		expect(one?.description).toContain(
			'Not sent (no request starts after a failure): 7 destination(s) of 7 item(s): item 1, 2, 3, 4, 5 and 2 more.',
		);
	});

	// A lower bound that the Retry-After enforces, not a speed: no request may start inside it.
	it('holds every request, not only the one that met it, for a 429 Retry-After', async () => {
		sandbox.setFaults({ latencyMs: 50, retryAfterSeconds: 1 });
		sandbox.queueFaults('error429');
		const output = outputOf(await run(personalised(12)), 'Send');
		expect(output.map((item) => item.json.send_outcome)).toEqual(Array(12).fill('accepted'));
		const log = sandbox.requests();
		const limited = log.findIndex((entry) => entry.outcome === 429);
		// Every other request, also one logged a moment before the 429 (the sandbox logs on arrival).
		const since = log
			.filter((_, index) => index !== limited)
			.map((entry) => Date.parse(entry.at) - Date.parse(log[limited].at));
		// The 7 other requests already on their way, then the retry and items 9 to 12, held.
		expect(since.filter((ms) => ms < 950)).toHaveLength(7);
		expect(since.filter((ms) => ms >= 950)).toHaveLength(5);
		expect(acceptedOnce()).toEqual(rows(12).map((row) => row.to));
	});

	it('retries 429s and 503s met by requests in flight, and sends each number once', async () => {
		sandbox.setFaults({ retryAfterSeconds: 0 });
		sandbox.queueFaults('error429', 'error503', 'error429');
		const output = outputOf(await run(personalised(12)), 'Send');
		expect(output.map((item) => item.json.send_outcome)).toEqual(Array(12).fill('accepted'));
		expect(acceptedOnce()).toEqual(rows(12).map((row) => row.to));
		expect(sandbox.received().destinations.every((d) => d.accepted === 1)).toBe(true);
	});
});

describe('A failed send says what became of every item', () => {
	it('names the later items that were not sent, and lists every item in the context', async () => {
		await sandbox.upsertAccount({ username: 'demo', credits: 2 });
		const error = errorOf(await run(personalised(5, { concurrency: 1 })), 'Send');
		const [first, second] = sandbox.received().batches.map((b) => b.batch_id);
		expect(error?.message).toMatch(/^The service did not accept the batch: insufficient credits/);
		expect(error?.description).toContain(
			`Accepted: 2 destination(s) in 2 batch(es): ${first}, ${second}.`,
		);
		expect(error?.description).toContain(
			'Not sent (no request starts after a failure): 2 destination(s) of 2 item(s): item 3, 4.',
		);
		const context = (error as unknown as { context: { items: IDataObject[] } }).context;
		expect(context.items).toEqual([
			{ item: 0, outcome: 'accepted', batch_ids: [first], destinations: [number(0)] },
			{ item: 1, outcome: 'accepted', batch_ids: [second], destinations: [number(1)] },
			{ item: 2, outcome: 'not accepted', batch_ids: [], destinations: [number(2)] },
			{ item: 3, outcome: 'not sent', batch_ids: [], destinations: [number(3)] },
			{ item: 4, outcome: 'not sent', batch_ids: [], destinations: [number(4)] },
		]);
	});

	it('keeps the description short for thousands of items: counts and the first few', async () => {
		await sandbox.upsertAccount({ username: 'demo', credits: 5 });
		const error = errorOf(await run(personalised(2000, { concurrency: 1 })), 'Send');
		expect(error?.description).toMatch(
			/Accepted: 5 destination\(s\) in 5 batch\(es\): \d+, \d+, \d+, \d+, \d+\. .*Not sent \(no request starts after a failure\): 1,994 destination\(s\) of 1,994 item\(s\): item 6, 7, 8, 9, 10 and 1,989 more\.$/,
		);
		expect(error?.description?.length).toBeLessThan(600);
		const context = (error as unknown as { context: { items: IDataObject[] } }).context;
		expect(context.items).toHaveLength(2000);
	});

	it('accounts for every destination whatever the concurrency, matching what the service took', async () => {
		await sandbox.upsertAccount({ username: 'demo', credits: 20 });
		sandbox.setFaults({ latencyMs: 2, error500Rate: 0.2, dropAfterRate: 0.1, seed: 7 });
		const error = errorOf(await run(personalised(30)), 'Send');
		const context = (error as unknown as { context: { items: IDataObject[] } }).context;
		const claims = new Map<string, string>();
		for (const entry of context.items) {
			for (const msisdn of entry.destinations as string[])
				claims.set(msisdn, String(entry.outcome));
		}
		expect([...claims.keys()].sort()).toEqual(rows(30).map((row) => row.to));
		const taken = new Set(acceptedOnce());
		for (const [msisdn, outcome] of claims) {
			if (outcome === 'accepted') expect(taken.has(msisdn)).toBe(true);
			if (outcome === 'not sent' || outcome === 'not accepted')
				expect(taken.has(msisdn)).toBe(false);
		}
		expect(sandbox.received().destinations.every((d) => d.accepted === 1)).toBe(true);
	});
});

describe('accepted = false with a batch_id', () => {
	// The sandbox never answers this way; a gateway that contradicts itself might.
	let gateway: Server;
	let baseUrl: string;
	beforeEach(async () => {
		gateway = createServer((req, res) => {
			req.resume();
			res.setHeader('Content-Type', 'application/json');
			res.end(
				'{"accepted":false,"batch_id":9223372036854775807,"batch_size":0,"receive_updates":false,"remaining_credits":5,"error":"queue full"}',
			);
		});
		await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
		baseUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
	});
	afterEach(async () => {
		await new Promise((resolve) => gateway.close(resolve));
	});

	const sendVia = (extra?: Partial<INode>) =>
		runWorkflow({
			...line(trigger(), send({ destinations: '447700900120', message: 'Hi' }, extra)),
			credentials: credentialsFor(sandbox, { baseUrl }),
		});

	it('is an unknown outcome that names the batch, never "not sent"', async () => {
		const error = errorOf(await sendVia(), 'Send');
		expect(error?.message).toBe(
			'The service refused the batch but returned batch 9223372036854775807: it may have been taken',
		);
		expect(error?.description).toMatch(/queue full.*Check batch 9223372036854775807/);
		expect(error?.description).toContain('Outcome unknown: 1 destination(s)');

		const [item] = outputOf(await sendVia(CONTINUE), 'Send');
		expect(item.json).toMatchObject({
			send_outcome: 'unknown',
			batch_id: '9223372036854775807',
			service_error: 'queue full',
			destinations: ['447700900120'],
		});
	});
});

describe('Any value an expression gives is read or refused in words', () => {
	const bare = '={{ Object.create(null) }}';
	it.each<[string, INodeParameters, RegExp]>([
		['Message', { message: bare }, /^The message is not text \(got an object\)$/],
		['Valid For', { validity: 'duration', validityHours: bare }, /validity duration/i],
		[
			'Valid Until',
			{ validity: 'until', validityUntil: bare },
			/Valid Until must be a date and time/,
		],
		['Default Country Code', { sendOptions: { defaultCountryCode: bare } }, /country calling code/],
		['Max Destinations per Request', { sendOptions: { maxPerRequest: bare } }, /^$/],
		['Do Not Send To', { sendOptions: { doNotSendTo: bare } }, /^$/],
	])('%s', async (_name, parameters, expected) => {
		const spec = line(
			trigger(),
			send({ destinations: '447700900120', message: 'Hi', ...parameters }),
		);
		const error = errorOf(await run(spec), 'Send');
		expect(error?.message ?? '').toMatch(expected);
		expect(error?.message ?? '').not.toMatch(/primitive|TypeError|Cannot/);
	});

	it('a bare object in Destinations is a skipped entry with a reason', async () => {
		const error = errorOf(
			await run(line(trigger(), send({ destinations: bare, message: 'Hi' }))),
			'Send',
		);
		expect(error?.message).toBe('No valid destination to send to');
		expect(error?.description).toMatch(/expected a phone number as text, got an object/);
	});
});

describe('Group Items With the Same Message', () => {
	const grouped = (options: IDataObject = {}) =>
		line(
			trigger(),
			items([
				{ to: number(0), m: 'A' },
				{ to: number(1), m: 'B' },
				{ to: `${number(2)}, ${number(0)}`, m: 'A' },
				{ to: number(3), m: 'A' },
				{ to: number(4), m: 'B' },
			]),
			send({
				destinations: '={{ $json.to }}',
				message: '={{ $json.m }}',
				sendOptions: { groupSameMessage: true, ...options },
			}),
		);

	it('sends one batch per message, each paired with its items', async () => {
		const output = outputOf(await run(grouped()), 'Send');
		expect(sandbox.requests()).toHaveLength(2);
		expect(output.map((item) => [item.json.destinations, item.pairedItem])).toEqual([
			[
				[number(0), number(2), number(3)],
				[{ item: 0 }, { item: 2 }, { item: 3 }],
			],
			[
				[number(1), number(4)],
				[{ item: 1 }, { item: 4 }],
			],
		]);
		expect(output[0].json.duplicates_removed).toBe(1);
		expect(sandbox.received().batches.map((b) => b.message)).toEqual(['A', 'B']);
	});

	it('pairs each destination with its own item in one item per destination', async () => {
		const output = outputOf(await run(grouped({ output: 'destination' })), 'Send');
		const [a, b] = sandbox.received().batches.map((batch) => batch.batch_id);
		expect(
			output.map((row) => [
				row.pairedItem,
				row.json.msisdn,
				row.json.send_outcome,
				row.json.batch_id,
			]),
		).toEqual([
			[{ item: 0 }, number(0), 'accepted', a],
			[{ item: 1 }, number(1), 'accepted', b],
			[{ item: 2 }, number(2), 'accepted', a],
			[{ item: 2 }, number(0), 'skipped', null],
			[{ item: 3 }, number(3), 'accepted', a],
			[{ item: 4 }, number(4), 'accepted', b],
		]);
		expect(output[3].json).toMatchObject({ reason: 'duplicate', sent_with_item: 0 });
	});
});

describe('Options bulk senders expect', () => {
	const sendOne = (parameters: INodeParameters) =>
		line(trigger(), send({ destinations: '447700900120', message: 'Hi', ...parameters }));

	it('Smart Encoding replaces look-alikes so the message stays GSM-7, and says what it saved', async () => {
		const message = `It’s “great” — 50% off… ${'a'.repeat(60)}`;
		const [batch] = outputOf(
			await run(sendOne({ message, sendOptions: { smartEncoding: true } })),
			'Send',
		);
		expect(sandbox.received().batches[0].message).toBe(
			`It's "great" - 50% off... ${'a'.repeat(60)}`,
		);
		expect(batch.json).toMatchObject({
			encoding: 'GSM-7',
			parts: 1,
			smart_encoding: {
				replaced: [
					{ character: '’', with: "'", count: 1 },
					{ character: '“', with: '"', count: 1 },
					{ character: '”', with: '"', count: 1 },
					{ character: '—', with: '-', count: 1 },
					{ character: '…', with: '...', count: 1 },
				],
				parts_before: 2,
				parts_saved: 1,
				credits_saved: 1,
			},
		});
	});

	it('Smart Encoding leaves a message alone when it would stay UCS-2, and is off by default', async () => {
		const outputs = [];
		for (const parameters of [
			{ message: 'It’s 😀', sendOptions: { smartEncoding: true } },
			{ message: 'It’s' },
		]) {
			outputs.push(outputOf(await run(sendOne(parameters)), 'Send')[0].json);
		}
		expect(sandbox.received().batches.map((b) => b.message)).toEqual(['It’s 😀', 'It’s']);
		expect(outputs.map((json) => [json.encoding, json.smart_encoding])).toEqual([
			['UCS-2', undefined],
			['UCS-2', undefined],
		]);
	});

	it('Do Not Send To leaves out opted-out numbers, however written, and reports them', async () => {
		const result = await run(
			line(
				trigger(),
				items([{ to: `${number(0)}, ${number(1)}` }, { to: number(2) }]),
				send({
					destinations: '={{ $json.to }}',
					message: 'Hi',
					sendOptions: { doNotSendTo: `={{ ['+44 7700 9001 01', '0044-7700-900102', 'phone'] }}` },
				}),
			),
		);
		const output = outputOf(result, 'Send');
		expect(acceptedOnce()).toEqual([number(0)]);
		expect(output[0].json.skipped).toEqual([{ input: number(1), reason: 'opted out', item: 0 }]);
		expect(output[1].json).toMatchObject({
			send_outcome: 'skipped',
			requested: 0,
			skipped: [{ input: number(2), reason: 'opted out', item: 1 }],
		});
		expect(output[1].pairedItem).toEqual([{ item: 1 }]);
		expect(sandbox.requests()).toHaveLength(1);
	});

	it('Max Credits refuses the whole send before any request', async () => {
		const spec = line(
			trigger(),
			items(rows(3)),
			send({
				destinations: `={{ $json.to }}, 44770090019{{ $itemIndex }}`,
				message: 'a'.repeat(161), // two parts
				sendOptions: { maxCredits: 11 },
			}),
		);
		const error = errorOf(await run(spec), 'Send');
		expect(error?.message).toBe(
			'This send would use 12 credits, more than Max Credits (11); nothing was sent',
		);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('One Item per Destination gives a row per number given, paired with its row', async () => {
		const result = await run(
			line(
				trigger(),
				items([{ to: `${number(0)}, abc` }, { to: `${number(1)}, ${number(2)}` }]),
				send({
					destinations: '={{ $json.to }}',
					message: 'Sale',
					sendOptions: { combineItems: true, maxPerRequest: 2, output: 'destination' },
				}),
			),
		);
		const [first, second] = sandbox.received().batches.map((b) => b.batch_id);
		expect(
			outputOf(result, 'Send').map((row) => [
				row.pairedItem,
				row.json.msisdn,
				row.json.send_outcome,
				row.json.batch_id,
				row.json.reason,
			]),
		).toEqual([
			[{ item: 0 }, number(0), 'accepted', first, null],
			[{ item: 0 }, null, 'skipped', null, expect.any(String)],
			[{ item: 1 }, number(1), 'accepted', first, null],
			[{ item: 1 }, number(2), 'accepted', second, null],
		]);
	});

	it('One Item per Destination under Continue On Fail says the outcome of each number', async () => {
		await sandbox.upsertAccount({ username: 'demo', credits: 2 });
		const spec = line(
			trigger(),
			items(rows(4)),
			send(
				{
					destinations: '={{ $json.to }}',
					message: 'Hi',
					sendOptions: {
						combineItems: true,
						maxPerRequest: 2,
						output: 'destination',
						concurrency: 1,
					},
				},
				CONTINUE,
			),
		);
		const output = outputOf(await run(spec), 'Send');
		expect(output.map((row) => [row.pairedItem, row.json.msisdn, row.json.send_outcome])).toEqual([
			[{ item: 0 }, number(0), 'accepted'],
			[{ item: 1 }, number(1), 'accepted'],
			[{ item: 2 }, number(2), 'not accepted'],
			[{ item: 3 }, number(3), 'not accepted'],
		]);
		expect(output[2].json.error).toMatch(/did not accept the batch: insufficient credits/);
	});
});
