/**
 * The trigger's guarantees under failure and at scale, through n8n-core's real PollContext
 * against the sandbox: a failed poll changes nothing and the next good one emits what was
 * missed exactly once; requests are bounded; the static data stays small for a huge batch.
 */
import type { Sandbox } from '../../sandbox/server';
import { decodePending, readState } from '../../nodes/shared/domain/watch';
import {
	changes,
	FINAL_AFTER_MS,
	frozenSandbox,
	NUMBER,
	Proxy,
	sandboxWithBatch,
	sendBatch,
	Watcher,
	type Breakage,
} from './helpers';
import { seeded } from '../seeded';

let sb: Sandbox;
let proxy: Proxy | undefined;

beforeEach(async () => {
	sb = await frozenSandbox();
});

afterEach(async () => {
	await proxy?.stop();
	proxy = undefined;
	await sb.stop();
});

/** The in-memory and the saved static data, to compare before and after a failed poll. */
function snapshot(watcher: Watcher): string {
	return JSON.stringify([watcher.staticData, watcher.persisted]);
}

describe('a poll that fails part-way', () => {
	// The transport retries a read three times; every attempt must fail for the poll to fail.
	it.each<[string, 'error500' | 'dropBefore']>([
		['HTTP 500 from the sandbox', 'error500'],
		['a dropped connection', 'dropBefore'],
	])(
		'%s: throws, keeps the state, and the next poll emits what was missed once',
		async (_, fault) => {
			const batchId = await sendBatch(sb.baseUrl, [NUMBER.delivered(1), NUMBER.neverFinal(1)]);
			const watcher = new Watcher(sb.baseUrl, { batchIds: batchId, emit: 'changes' });
			await watcher.emitted();
			sb.advance(FINAL_AFTER_MS);
			const before = snapshot(watcher);
			sb.queueFaults(fault, fault, fault);
			const failed = await watcher.poll();
			expect(failed.error?.message).toMatch(
				fault === 'error500' ? /HTTP 500/ : /Cannot reach the Bulk SMS service/,
			);
			expect(failed.error?.message).toContain(batchId);
			expect(snapshot(watcher)).toBe(before);
			expect(changes(await watcher.emitted())).toEqual([`${NUMBER.delivered(1)} ENROUTE>DELIVRD`]);
			expect(await watcher.emitted()).toEqual([]);
		},
	);

	const goodBadBody: Array<[string, (batchId: string) => Breakage, RegExp]> = [
		[
			'an HTTP 500 on the second batch',
			() => ({ status: 500, body: '{"error":"boom"}' }),
			/HTTP 500/,
		],
		['a dropped connection on the second batch', () => 'drop', /Cannot reach/],
		[
			'a body that is not JSON or XML',
			() => ({ status: 200, body: 'Service Unavailable' }),
			/could not be read/,
		],
		[
			'a report with a date in no documented format',
			(batchId) => ({
				status: 200,
				body: `{"reports":[{"batch_id":${batchId},"network_id":1,"status":"DELIVRD","msisdn":"${NUMBER.delivered(7)}","gateway_session_id":1,"delivery_date":"yesterday"}]}`,
			}),
			/could not be read/,
		],
	];

	it.each(goodBadBody)(
		'%s, among three batches: nothing lost, nothing twice',
		async (_, breakage, message) => {
			proxy = await new Proxy(sb.baseUrl).start();
			const ids = [
				await sendBatch(sb.baseUrl, [NUMBER.delivered(1), NUMBER.neverFinal(1)]),
				await sendBatch(sb.baseUrl, [NUMBER.delivered(7), NUMBER.neverFinal(2)]),
				await sendBatch(sb.baseUrl, [NUMBER.undeliverable(3), NUMBER.neverFinal(3)]),
			];
			const watcher = new Watcher(proxy.baseUrl, { batchIds: ids.join(','), emit: 'final' });
			await watcher.emitted();
			sb.advance(FINAL_AFTER_MS);

			const before = snapshot(watcher);
			proxy.breakFor = (url) => (url.includes(`batch_id=${ids[1]}`) ? breakage(ids[1]) : undefined);
			const failed = await watcher.poll();
			expect(failed.error?.message).toMatch(message);
			expect(failed.error?.message).toContain(ids[1]);
			expect(failed.result).toBeNull();
			expect(snapshot(watcher)).toBe(before);

			proxy.breakFor = () => undefined;
			const items = await watcher.emitted();
			expect(
				items.map(
					(item) => `${String(item.batch_id)} ${String(item.msisdn)} ${String(item.status)}`,
				),
			).toEqual([
				`${ids[0]} ${NUMBER.delivered(1)} DELIVRD`,
				`${ids[1]} ${NUMBER.delivered(7)} DELIVRD`,
				`${ids[2]} ${NUMBER.undeliverable(3)} UNDELIV`,
			]);
			expect(await watcher.emitted()).toEqual([]);
		},
	);
});

describe('n8n restarting between polls', () => {
	it('loses nothing and repeats nothing: the activation poll and every emit save the state', async () => {
		const id = await sendBatch(sb.baseUrl, [NUMBER.delivered(1), NUMBER.neverFinal(1)]);
		const watcher = new Watcher(sb.baseUrl, { batchIds: id, emit: 'final' });
		expect(await watcher.emitted()).toEqual([]); // activation: baseline, saved
		watcher.restart();
		sb.advance(FINAL_AFTER_MS);
		expect(changes(await watcher.emitted())).toEqual([`${NUMBER.delivered(1)} ENROUTE>DELIVRD`]);
		watcher.restart();
		expect(await watcher.emitted()).toEqual([]);
	});
});

describe('overlapping polls', () => {
	it('emit a change once when a slow poll outlives the interval', async () => {
		proxy = await new Proxy(sb.baseUrl).start();
		const id = await sendBatch(sb.baseUrl, [NUMBER.delivered(1), NUMBER.neverFinal(1)]);
		const watcher = new Watcher(proxy.baseUrl, { batchIds: id, emit: 'final' });
		await watcher.emitted();
		sb.advance(FINAL_AFTER_MS);
		const [a, b] = await Promise.all([watcher.poll(), watcher.poll()]);
		const items = [...(a.result?.[0] ?? []), ...(b.result?.[0] ?? [])].map((item) => item.json);
		expect(changes(items)).toEqual([`${NUMBER.delivered(1)} ENROUTE>DELIVRD`]);
		expect(await watcher.emitted()).toEqual([]);
	});
});

describe('requests', () => {
	it('one get_status per unfinished batch per poll, at most four at a time', async () => {
		proxy = await new Proxy(sb.baseUrl).start();
		const ids: string[] = [];
		for (let i = 0; i < 10; i++) ids.push(await sendBatch(sb.baseUrl, [NUMBER.neverFinal(i)]));
		const watcher = new Watcher(proxy.baseUrl, { batchIds: ids.join('\n') });
		await watcher.emitted();
		expect(proxy.batchesRequested().sort()).toEqual([...ids].sort());
		expect(proxy.maxInFlight).toBeGreaterThan(1);
		expect(proxy.maxInFlight).toBeLessThanOrEqual(4);
	});
});

describe('static data size', () => {
	const SIZE = 100_000;

	it(`a batch of ${SIZE.toLocaleString('en')} mobile numbers costs a few bytes per pending report`, async () => {
		// Distinct 12-digit UK mobile numbers, random but seeded, spread over the whole 447 range
		// like a real customer list: half end in 9 and stay ENROUTE, half end in 0 and are
		// delivered after FINAL_AFTER_MS.
		const next = seeded(7);
		const numbers = new Set<string>();
		while (numbers.size < SIZE) {
			const middle = String(Math.floor(next() * 1e8)).padStart(8, '0');
			numbers.add(`447${middle}${numbers.size % 2 === 0 ? 9 : 0}`);
		}
		const { sandbox, batchId, stop } = await sandboxWithBatch([...numbers]);
		try {
			const watcher = new Watcher(sandbox.baseUrl, { batchIds: batchId, emit: 'batchFinal' });
			expect(await watcher.emitted()).toEqual([]);
			const baseline = storedBytes(watcher, batchId, SIZE);

			sandbox.advance(FINAL_AFTER_MS);
			expect(await watcher.emitted()).toEqual([]);
			const half = storedBytes(watcher, batchId, SIZE / 2);

			expect(baseline / SIZE).toBeLessThan(4.5);
			expect(half / (SIZE / 2)).toBeLessThan(4.5);
			// eslint-disable-next-line no-console
			console.log(
				`static data: ${baseline} bytes for ${SIZE} pending (${(baseline / SIZE).toFixed(2)} B each), ${half} bytes for ${SIZE / 2} pending (${(half / (SIZE / 2)).toFixed(2)} B each)`,
			);
		} finally {
			await stop();
		}
	}, 120_000);
});

/** Size of the trigger's stored state, after checking it holds the expected pending reports. */
function storedBytes(watcher: Watcher, batchId: string, pending: number): number {
	const state = readState(watcher.state);
	expect(decodePending(state.b[batchId]).size).toBe(pending);
	return Buffer.byteLength(JSON.stringify(watcher.state));
}
