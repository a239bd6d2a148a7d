/**
 * BulkSms Send through n8n's real engine (WorkflowExecute, expressions, generic auth)
 * against the sandbox on 127.0.0.1.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import { errorOf, outputOf, runWorkflow, stopTheClock } from '../engine/harness';
import {
	FIRST_BATCH_ID,
	startSandbox,
	type FaultOptions,
	type Sandbox,
} from '../../sandbox/server';
import { credentialsFor, items, line, send, trigger } from './workflow';

let sandbox: Sandbox;

beforeEach(async () => {
	sandbox = await startSandbox();
});
afterEach(async () => {
	await sandbox.stop();
});

const run = (spec: ReturnType<typeof line>, credentials = credentialsFor(sandbox)) =>
	runWorkflow({ ...spec, credentials });

/** Manual Trigger → Send 'Hi' to one delivering test number, with these parameters on top. */
const sendOne = (parameters: INodeParameters = {}, extra?: Partial<INode>) =>
	line(trigger(), send({ destinations: '447700900120', message: 'Hi', ...parameters }, extra));

describe('Send', () => {
	it('normalises, deduplicates and skips with reasons, then sends once', async () => {
		const result = await run(
			line(
				trigger(),
				send({
					destinations: '+44 7700 900120; 0044-7700-900121\n447700900120, abc',
					message: 'Hello',
					sendOptions: { onInvalid: 'skip' },
				}),
			),
		);
		const [batch, ...rest] = outputOf(result, 'Send');
		expect(rest).toHaveLength(0);
		expect(batch.pairedItem).toEqual([{ item: 0 }]);
		expect(batch.json).toMatchObject({
			accepted: true,
			batch_id: FIRST_BATCH_ID.toString(),
			batch_size: 2,
			remaining_credits: 998,
			requested: 2,
			dropped_by_service: 0,
			destinations: ['447700900120', '447700900121'],
			duplicates_removed: 1,
			encoding: 'GSM-7',
			parts: 1,
			credits_expected: 2,
			validity_period: null,
			chunk: 1,
			chunks: 1,
		});
		expect(batch.json.skipped).toEqual([{ input: 'abc', reason: expect.any(String), item: 0 }]);
		expect(sandbox.received().destinations.map((d) => [d.msisdn, d.accepted])).toEqual([
			['447700900120', 1],
			['447700900121', 1],
		]);
	});

	it('a number mistyped in Destinations: the others are sent, then the run fails saying which', async () => {
		const result = await run(
			line(
				trigger(),
				send({ destinations: '447700910001, 4477009110O2, 447700910003', message: 'On call' }),
			),
		);
		expect(sandbox.received().destinations.map((d) => [d.msisdn, d.accepted])).toEqual([
			['447700910001', 1],
			['447700910003', 1],
		]);
		const error = errorOf(result, 'Send');
		expect(error?.message).toMatch(
			/^1 number\(s\) typed in Destinations are not valid: "4477009110O2": contains "O"[^]*; the others were sent$/,
		);
		expect(error?.description).toMatch(
			/^Accepted: 2 destination\(s\) in 1 batch\(es\): \d+\.[^]*correct Destinations/,
		);
		// The execution fails, so an error workflow hears of it.
		expect(result.status).toBe('error');
	});

	it('a number that is not valid in a row read by an expression is skipped and reported, and the run succeeds', async () => {
		const result = await run(
			line(
				trigger(),
				items([{ phone: '447700910011' }, { phone: '4477009110O2' }]),
				send({ destinations: '={{ $json.phone }}', message: 'Reminder' }),
			),
		);
		expect(errorOf(result, 'Send')).toBeUndefined();
		expect(outputOf(result, 'Send').map((item) => item.json.send_outcome)).toEqual([
			'accepted',
			'skipped',
		]);
	});

	it('keeps a batch id above 2^53 exact in JSON and in XML', async () => {
		const ids: string[] = [];
		for (const format of ['json', 'xml']) {
			const result = await run(sendOne({ sendOptions: { format } }));
			const [batch] = outputOf(result, 'Send');
			expect(typeof batch.json.batch_id).toBe('string');
			expect(BigInt(batch.json.batch_id as string)).toBeGreaterThan(2n ** 53n);
			ids.push(batch.json.batch_id as string);
		}
		expect(sandbox.received().batches.map((b) => b.batch_id)).toEqual(ids);
		expect(sandbox.requests().map((r) => r.accept)).toEqual([
			'application/json',
			'application/xml',
		]);
	});

	it('counts parts and credits for a long Unicode message', async () => {
		const message = '😀'.repeat(40); // 80 UTF-16 units: two UCS-2 parts of up to 67
		const result = await run(
			line(trigger(), send({ destinations: '447700900120,447700900121', message })),
		);
		expect(outputOf(result, 'Send')[0].json).toMatchObject({
			encoding: 'UCS-2',
			characters: 40,
			parts: 2,
			credits_expected: 4,
			remaining_credits: 996,
		});
	});

	it('sends the validity in the service time zone', async () => {
		const result = await run(
			sendOne({ validity: 'until', validityUntil: '2099-01-02T03:04:05Z' }),
			credentialsFor(sandbox, { timeZone: 'Europe/Berlin' }),
		);
		expect(outputOf(result, 'Send')[0].json).toMatchObject({
			validity_period: '990102040405',
			valid_until: '2099-01-02T04:04:05.000+01:00',
		});
	});

	it('Valid Until {{ $now.plus({ days: 1 }) }}: every row valid a day from the run’s now', async () => {
		stopTheClock(Date.UTC(2026, 11, 31, 23, 59, 59, 500));
		try {
			const rows = [{ to: '447700900120' }, { to: '447700900121' }, { to: '447700900122' }];
			const result = await run(
				line(
					trigger(),
					items(rows),
					send({
						destinations: '={{ $json.to }}',
						message: 'Hi',
						validity: 'until',
						validityUntil: '={{ $now.plus({ days: 1 }) }}',
					}),
				),
			);
			expect(outputOf(result, 'Send').map((batch) => batch.json.valid_until)).toEqual(
				rows.map(() => '2027-01-01T23:59:59.000+00:00'),
			);
			expect(sandbox.requests().map((request) => request.form?.validity_period)).toEqual(
				rows.map(() => '270101235959'),
			);
		} finally {
			jest.useRealTimers();
		}
	});

	it('refuses a validity in the past before sending', async () => {
		const result = await run(sendOne({ validity: 'until', validityUntil: '2001-01-01T00:00:00Z' }));
		expect(errorOf(result, 'Send')?.message).toMatch(/validity ends in the past/);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('fails the item on invalid numbers when asked, sending nothing', async () => {
		const result = await run(
			line(
				trigger(),
				send({
					destinations: '447700900120, 12',
					message: 'Hi',
					sendOptions: { onInvalid: 'fail' },
				}),
			),
		);
		expect(errorOf(result, 'Send')?.message).toMatch(/1 destination\(s\) are not valid/);
		expect(sandbox.requests()).toHaveLength(0);
	});

	it('reports a batch the service did not accept as an error with its reason', async () => {
		await sandbox.upsertAccount({ username: 'demo', credits: 1 });
		const spec = line(
			trigger(),
			send({ destinations: '447700900120,447700900121', message: 'Hi' }),
		);
		const failed = await run(spec);
		expect(errorOf(failed, 'Send')?.message).toMatch(
			/^The service did not accept the batch: .*credit/i,
		);

		const continued = await run({
			...spec,
			nodes: [spec.nodes[0], { ...spec.nodes[1], onError: 'continueRegularOutput' }],
		});
		const [item] = outputOf(continued, 'Send');
		expect(item.json).toMatchObject({
			accepted: false,
			error: expect.stringMatching(/^The service did not accept the batch: .*credit/i),
			service_error: expect.stringMatching(/^(?!The service did not).*credit/i),
		});
		expect(item.json.batch_id).toBeNull();
		expect(sandbox.received().batches).toHaveLength(0);
	});

	it('says how many destinations the service dropped', async () => {
		// The sandbox drops numbers of unassigned country codes that look valid to the node.
		const result = await run(
			line(trigger(), send({ destinations: '447700900120, 999123456780', message: 'Hi' })),
		);
		expect(outputOf(result, 'Send')[0].json).toMatchObject({
			requested: 2,
			batch_size: 1,
			dropped_by_service: 1,
		});
	});

	it('reports refused credentials without leaking them', async () => {
		const result = await run(sendOne(), credentialsFor(sandbox, { password: 'not-the-password' }));
		const error = errorOf(result, 'Send');
		expect(error?.message).toBe('The service refused the credentials (HTTP 401)');
		expect(JSON.stringify(error)).not.toContain('not-the-password');
	});

	it('refuses a base URL that is not http(s)', async () => {
		const result = await run(sendOne(), credentialsFor(sandbox, { baseUrl: 'ftp://127.0.0.1' }));
		expect(errorOf(result, 'Send')?.message).toMatch(/Base URL .* not an http\(s\) address/);
	});

	it('combines many items into one send, split into chunks with their paired items', async () => {
		const rows = [0, 1, 2, 3, 4].map((row) => ({
			phones: [`44770090010${row}`, `44770090020${row}`],
		}));
		const result = await run(
			line(
				trigger(),
				items(rows),
				send({
					destinations: '={{ $json.phones }}',
					message: 'Sale starts now',
					sendOptions: { combineItems: true, maxPerRequest: 4 },
				}),
			),
		);
		const batches = outputOf(result, 'Send');
		expect(batches.map((b) => b.json.requested)).toEqual([4, 4, 2]);
		expect(batches.map((b) => b.pairedItem)).toEqual([
			[{ item: 0 }, { item: 1 }],
			[{ item: 2 }, { item: 3 }],
			[{ item: 4 }],
		]);
		expect(new Set(batches.map((b) => b.json.batch_id)).size).toBe(3);
		const received = sandbox.received().destinations;
		expect(received).toHaveLength(10);
		expect(received.every((d) => d.accepted === 1)).toBe(true);
	});

	it('reads national numbers with the default country code, and refuses a code that is not one', async () => {
		const withCode = (code: string) =>
			run(
				line(
					trigger(),
					send({
						destinations: '(07700) 900120',
						message: 'Hi',
						sendOptions: { defaultCountryCode: code },
					}),
				),
			);
		expect(outputOf(await withCode('+44'), 'Send')[0].json.destinations).toEqual(['447700900120']);
		expect(errorOf(await withCode('UK'), 'Send')?.message).toMatch(
			/"UK" is not a country calling code/,
		);
	});

	it('sends one batch per item by default', async () => {
		const result = await run(
			line(
				trigger(),
				items([{ to: '447700900120' }, { to: '447700900121' }]),
				send({ destinations: '={{ $json.to }}', message: 'Hi {{ $json.to }}' }),
			),
		);
		expect(outputOf(result, 'Send').map((b) => [b.json.destinations, b.pairedItem])).toEqual([
			[['447700900120'], [{ item: 0 }]],
			[['447700900121'], [{ item: 1 }]],
		]);
	});
});

describe('Send never sends twice', () => {
	it('retries when the service certainly did not take the send (429 with Retry-After)', async () => {
		sandbox.setFaults({ retryAfterSeconds: 0 });
		sandbox.queueFaults('error429');
		const result = await run(sendOne());
		expect(outputOf(result, 'Send')[0].json.accepted).toBe(true);
		expect(sandbox.received().destinations).toEqual([expect.objectContaining({ accepted: 1 })]);
	});

	it('reports an unknown outcome, without resending, when the connection drops after sending', async () => {
		sandbox.queueFaults('dropAfter');
		const result = await run(sendOne());
		const error = errorOf(result, 'Send');
		expect(error?.message).toMatch(/outcome is unknown/);
		expect(error?.description).toMatch(
			/ECONNRESET.*not sent again.*The outcome for this request's 1 destination\(s\) is unknown: 447700900120\./,
		);
		expect(sandbox.received().destinations).toEqual([expect.objectContaining({ accepted: 1 })]);
		expect(sandbox.requests()).toHaveLength(1);
	});

	it('does not retry a 500 on a send, whose outcome is unknown', async () => {
		sandbox.queueFaults('error500');
		const spec = sendOne({}, { onError: 'continueRegularOutput' });
		const [item] = outputOf(await run(spec), 'Send');
		expect(item.json).toMatchObject({
			error: 'The service failed (HTTP 500)',
			send_outcome: 'unknown',
			destinations: ['447700900120'],
		});
		expect(sandbox.requests()).toHaveLength(1);
	});

	it('retries a 503, answered before any work, and sends once', async () => {
		sandbox.setFaults({ retryAfterSeconds: 0 });
		sandbox.queueFaults('error503', 'error503');
		const result = await run(sendOne());
		expect(outputOf(result, 'Send')[0].json.send_outcome).toBe('accepted');
		expect(sandbox.requests()).toHaveLength(3);
		expect(sandbox.received().destinations).toEqual([expect.objectContaining({ accepted: 1 })]);
	});

	it('gives up on a 429 that lasts beyond the retries, saying so, with nothing sent', async () => {
		sandbox.setFaults({ error429Rate: 1, retryAfterSeconds: 0 });
		const error = errorOf(await run(sendOne()), 'Send');
		expect(error?.message).toBe('The service is rate limiting requests (HTTP 429)');
		expect(error?.description).toMatch(
			/This request's 1 destination\(s\) were not sent\. No batch was accepted\./,
		);
		expect(sandbox.requests().map((r) => [r.outcome, r.fault])).toEqual([
			[429, 'error429'],
			[429, 'error429'],
			[429, 'error429'],
		]);

		const spec = sendOne({}, { onError: 'continueRegularOutput' });
		const [item] = outputOf(await run(spec), 'Send');
		expect(item.json).toMatchObject({
			error: 'The service is rate limiting requests (HTTP 429)',
			send_outcome: 'not sent',
		});
		expect(sandbox.received().batches).toHaveLength(0);
	});

	it('asks once for a batch the service did not accept', async () => {
		await sandbox.upsertAccount({ username: 'demo', credits: 1 });
		const failed = await run(
			line(trigger(), send({ destinations: '447700900120,447700900121', message: 'Hi' })),
		);
		expect(errorOf(failed, 'Send')?.message).toMatch(/^The service did not accept the batch/);
		expect(sandbox.requests()).toEqual([
			expect.objectContaining({
				path: '/api/sms/send',
				outcome: 200,
				form: expect.objectContaining({ destination: '447700900120,447700900121' }),
			}),
		]);
	});

	it('says a send to an address where nothing listens was not sent', async () => {
		const stopped = sandbox.baseUrl;
		await sandbox.stop();
		const spec = sendOne({}, { onError: 'continueRegularOutput' });
		const [item] = outputOf(
			await runWorkflow({ ...spec, credentials: credentialsFor({ baseUrl: stopped } as Sandbox) }),
			'Send',
		);
		expect(item.json).toMatchObject({
			error: 'Cannot reach the Bulk SMS service',
			send_outcome: 'not sent',
		});
		sandbox = await startSandbox(); // afterEach stops it
	});

	it('checks every item before sending any, and names batches of earlier items on a failure', async () => {
		const twoItems = (second: string) =>
			line(
				trigger(),
				items([{ m: 'Hi' }, { m: second }]),
				send({ destinations: '447700900120', message: '={{ $json.m }}' }),
			);
		expect(errorOf(await run(twoItems(' ')), 'Send')?.message).toBe('The message is empty');
		expect(sandbox.requests()).toHaveLength(0);

		await sandbox.upsertAccount({ username: 'demo', credits: 1 });
		const failed = errorOf(await run(twoItems('Hello')), 'Send');
		expect(failed?.description).toContain(
			`Accepted: 1 destination(s) in 1 batch(es): ${sandbox.received().batches[0].batch_id}.`,
		);
	});

	it('names the batches sent before a request that failed, and what was never sent', async () => {
		await sandbox.upsertAccount({ username: 'demo', credits: 6 });
		const destinations = Array.from(
			{ length: 10 },
			(_, i) => `4477009001${String(i).padStart(2, '0')}`,
		).join(',');
		const spec = line(
			trigger(),
			send({ destinations, message: 'Hi', sendOptions: { maxPerRequest: 4, concurrency: 1 } }),
		);
		const failed = errorOf(await run(spec), 'Send');
		const [first] = sandbox.received().batches;
		expect(failed?.message).toMatch(/^The service did not accept the batch: insufficient credits/);
		expect(failed?.description).toBe(
			`This request's 4 destination(s) were not sent. Accepted: 4 destination(s) in 1 batch(es): ${first.batch_id}. Not sent (refused or failed): 4 destination(s) in 1 request(s). Not sent (no request starts after a failure): 2 destination(s) of 1 item(s): item 0.`,
		);

		await sandbox.upsertAccount({ username: 'demo', credits: 6 });
		const continued = await run({
			...spec,
			nodes: [spec.nodes[0], { ...spec.nodes[1], onError: 'continueRegularOutput' }],
		});
		expect(
			outputOf(continued, 'Send').map((item) => [
				item.json.send_outcome,
				item.json.requested,
				item.json.chunk,
			]),
		).toEqual([
			['accepted', 4, 1],
			['not accepted', 4, 2],
		]);
	});
});

describe('Send against a gateway that mislabels its answers or ignores Accept', () => {
	// int64's maximum: 19 digits, the seed's longest, which JSON.parse would round.
	const BATCH_ID = '9223372036854775807';

	it.each<[string, Partial<FaultOptions>, string, string]>([
		['JSON labelled text/plain', { mislabel: true }, 'json', 'application/json'],
		[
			'XML labelled text/plain to a JSON request',
			{ mislabel: true, answerFormat: 'xml' },
			'json',
			'application/json',
		],
		['JSON to an XML request', { answerFormat: 'json' }, 'xml', 'application/xml'],
	])('reads %s, keeping the batch id exact', async (_, faults, format, accept) => {
		await sandbox.stop();
		sandbox = await startSandbox({ firstBatchId: BATCH_ID, faults }); // afterEach stops it
		const result = await run(sendOne({ sendOptions: { format } }));
		expect(outputOf(result, 'Send')[0].json).toMatchObject({
			accepted: true,
			batch_id: BATCH_ID,
			batch_size: 1,
			remaining_credits: 999,
			send_outcome: 'accepted',
		});
		expect(sandbox.received().batches.map((b) => b.batch_id)).toEqual([BATCH_ID]);
		expect(sandbox.requests()).toEqual([
			expect.objectContaining({
				accept,
				outcome: 200,
				form: { destination: '447700900120', message: 'Hi' },
			}),
		]);
	});
});
