/**
 * The trigger's guarantees under failure and at scale, through n8n-core's real PollContext
 * against the sandbox: a failed poll changes nothing and the next good one emits what was
 * missed exactly once; requests are bounded; the static data stays small for a huge batch.
 */
import { sendDirect } from '../../sandbox/client';
import type { Sandbox } from '../../sandbox/server';
import { knownCount, pendingOf, readState } from '../../nodes/shared/domain/watchState';
import { overrideTransportLimits } from '../../nodes/shared/transport';
import {
	changes,
	FINAL_AFTER_MS,
	frozenSandbox,
	NUMBER,
	Proxy,
	sandboxWithBatch,
	Watcher,
	type Breakage,
} from './helpers';
import { seeded } from '../seeded';

let sb: Sandbox;
let proxy: Proxy | undefined;
let restoreLimits: (() => void) | undefined;

beforeEach(async () => {
	sb = await frozenSandbox();
});

afterEach(async () => {
	restoreLimits?.();
	restoreLimits = undefined;
	await proxy?.stop();
	proxy = undefined;
	await sb.stop();
});

describe('a batch that cannot be read', () => {
	// The transport retries a read three times; every attempt must fail for the read to fail.
	it.each<[string, 'error500' | 'dropBefore', RegExp]>([
		['HTTP 500 from the sandbox', 'error500', /HTTP 500/],
		['a dropped connection', 'dropBefore', /Cannot reach the Bulk SMS service/],
	])(
		'%s: keeps its memory, is named on the third failed poll in a row, and the next good poll emits what was missed once',
		async (_, fault, message) => {
			restoreLimits = overrideTransportLimits({ firstRetryMs: 1 });
			const batchId = await sendDirect(sb.baseUrl, [NUMBER.delivered(1), NUMBER.neverFinal(1)]);
			const watcher = new Watcher(sb.baseUrl, { batchIds: batchId, emit: 'changes' });
			await watcher.emitted();
			sb.advance(FINAL_AFTER_MS);
			const memory = JSON.stringify(readState(watcher.state).b);
			const persisted = JSON.stringify(watcher.persisted);
			for (let poll = 1; poll <= 3; poll++) {
				sb.queueFaults(fault, fault, fault);
				const failed = await watcher.poll();
				expect(failed.result).toBeNull();
				if (poll < 3) expect(failed.error).toBeUndefined();
				else {
					expect(failed.error?.message).toMatch(message);
					expect(failed.error?.message).toContain(batchId);
					expect((failed.error as { description?: string }).description).toContain(
						'3 polls in a row',
					);
				}
				expect(JSON.stringify(readState(watcher.state).b)).toBe(memory);
				expect(readState(watcher.state).e).toEqual({ [batchId]: poll });
				expect(JSON.stringify(watcher.persisted)).toBe(persisted);
			}
			expect(changes(await watcher.emitted())).toEqual([`${NUMBER.delivered(1)} ENROUTE>DELIVRD`]);
			expect(readState(watcher.state).e).toBeUndefined();
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
		'%s, among three batches: the others emit, nothing lost, nothing twice, the broken one named',
		async (_, breakage, message) => {
			restoreLimits = overrideTransportLimits({ firstRetryMs: 1 });
			proxy = await new Proxy(sb.baseUrl).start();
			const ids = [
				await sendDirect(sb.baseUrl, [NUMBER.delivered(1), NUMBER.neverFinal(1)]),
				await sendDirect(sb.baseUrl, [NUMBER.delivered(7), NUMBER.neverFinal(2)]),
				await sendDirect(sb.baseUrl, [NUMBER.undeliverable(3), NUMBER.neverFinal(3)]),
			];
			const watcher = new Watcher(proxy.baseUrl, { batchIds: ids.join(','), emit: 'final' });
			await watcher.emitted();
			sb.advance(FINAL_AFTER_MS);

			const broken = JSON.stringify(readState(watcher.state).b[ids[1]]);
			proxy.breakFor = (url) => (url.includes(`batch_id=${ids[1]}`) ? breakage(ids[1]) : undefined);
			const first = await watcher.poll();
			expect(first.error).toBeUndefined();
			expect(
				first.result?.[0].map(
					(item) => `${String(item.json.batch_id)} ${String(item.json.status)}`,
				),
			).toEqual([`${ids[0]} DELIVRD`, `${ids[2]} UNDELIV`]);
			// Emitted, so saved: what the good batches emitted is not emitted again after a restart.
			expect(watcher.persisted).toEqual(watcher.staticData);
			expect(JSON.stringify(readState(watcher.state).b[ids[1]])).toBe(broken);

			// Two more failed polls with nothing else to emit: the third names the batch.
			expect((await watcher.poll()).error).toBeUndefined();
			const named = await watcher.poll();
			expect(named.error?.message).toMatch(message);
			expect(named.error?.message).toContain(ids[1]);

			proxy.breakFor = () => undefined;
			const items = await watcher.emitted();
			expect(
				items.map(
					(item) => `${String(item.batch_id)} ${String(item.msisdn)} ${String(item.status)}`,
				),
			).toEqual([`${ids[1]} ${NUMBER.delivered(7)} DELIVRD`]);
			expect(await watcher.emitted()).toEqual([]);
		},
	);

	it('keeps failing while the others emit: named by the next poll, first thing, then polling goes on', async () => {
		restoreLimits = overrideTransportLimits({ firstRetryMs: 1 });
		proxy = await new Proxy(sb.baseUrl).start();
		const bad = await sendDirect(sb.baseUrl, [NUMBER.neverFinal(1)]);
		const good: string[] = [];
		for (let i = 1; i <= 4; i++)
			good.push(await sendDirect(sb.baseUrl, [NUMBER.neverFinal(10 + i)]));
		const watcher = new Watcher(proxy.baseUrl, {
			batchIds: [bad, ...good].join(','),
			emit: 'final',
		});
		await watcher.emitted();
		proxy.breakFor = (url) =>
			url.includes(`batch_id=${bad}`) ? { status: 502, body: 'bad gateway' } : undefined;
		const sessions = sb
			.received()
			.batches.slice(1)
			.map((batch) => batch.messages[0].gateway_session_id);
		// Each poll, one good batch has a change: the poll has items, so it does not throw.
		for (let poll = 0; poll < 3; poll++) {
			await sb.forceStatus(sessions[poll], 'DELIVRD');
			const outcome = await watcher.poll();
			expect(outcome.error).toBeUndefined();
			expect(outcome.result?.[0]).toHaveLength(1);
		}
		const asked = proxy.statusRequests.length;
		const named = await watcher.poll();
		expect(named.error?.message).toBe(
			`Checking batch ${bad} keeps failing: The service failed (HTTP 502)`,
		);
		expect(proxy.statusRequests).toHaveLength(asked);
		await sb.forceStatus(sessions[3], 'UNDELIV');
		const after = await watcher.poll();
		expect(after.error).toBeUndefined();
		expect(after.result?.[0].map((item) => item.json.status)).toEqual(['UNDELIV']);
		expect(readState(watcher.state).e).toEqual({ [bad]: 4 });
	});
});

describe('n8n restarting between polls', () => {
	it('loses nothing and repeats nothing: the activation poll and every emit save the state', async () => {
		const id = await sendDirect(sb.baseUrl, [NUMBER.delivered(1), NUMBER.neverFinal(1)]);
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
		const id = await sendDirect(sb.baseUrl, [NUMBER.delivered(1), NUMBER.neverFinal(1)]);
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
	it('one get_status per unfinished batch per poll, at most eight at a time', async () => {
		proxy = await new Proxy(sb.baseUrl).start();
		const ids: string[] = [];
		for (let i = 0; i < 20; i++) ids.push(await sendDirect(sb.baseUrl, [NUMBER.neverFinal(i)]));
		const watcher = new Watcher(proxy.baseUrl, { batchIds: ids.join('\n') });
		await watcher.emitted();
		expect(proxy.batchesRequested().sort()).toEqual([...ids].sort());
		expect(proxy.maxInFlight).toBeGreaterThan(1);
		expect(proxy.maxInFlight).toBeLessThanOrEqual(8);
	});
});

describe('static data size', () => {
	const SIZE = 100_000;

	it(`a batch of ${SIZE.toLocaleString('en')} mobile numbers costs a few bytes per destination`, async () => {
		// Distinct 12-digit UK mobile numbers, random but seeded, spread over the whole 447 range
		// like a real customer list: half end in 9 and stay ENROUTE, half end in 0 and are
		// delivered after FINAL_AFTER_MS, interleaved at random in the sorted list (the worst
		// case for the run lengths of the pending ones).
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
			const allPending = storedBytes(watcher, batchId, SIZE);

			sandbox.advance(FINAL_AFTER_MS);
			expect(await watcher.emitted()).toEqual([]);
			const halfPending = storedBytes(watcher, batchId, SIZE / 2);

			expect(allPending / SIZE).toBeLessThan(4.5);
			expect(halfPending / SIZE).toBeLessThan(7);
			// eslint-disable-next-line no-console
			console.log(
				`static data: ${allPending} bytes for ${SIZE} destinations all pending (${(allPending / SIZE).toFixed(2)} B each), ${halfPending} bytes with half of them handled at random places (${(halfPending / SIZE).toFixed(2)} B each)`,
			);
		} finally {
			await stop();
		}
	}, 120_000);
});

/** Size of the trigger's stored state, after checking it holds every destination and the pending ones. */
function storedBytes(watcher: Watcher, batchId: string, pending: number): number {
	const state = readState(watcher.state);
	expect(knownCount(state.b[batchId])).toBe(100_000);
	expect(pendingOf(state.b[batchId]).size).toBe(pending);
	return Buffer.byteLength(JSON.stringify(watcher.state));
}
