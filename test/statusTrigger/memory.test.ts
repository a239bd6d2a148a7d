/** The trigger's memory of reports seen: repeats, late arrivals, its bound. */
import { remember, sift } from '../../nodes/BulkSmsStatusTrigger/memory';
import type { RawReport } from '../../nodes/shared/domain/responses';

const report = (status: string, over: Partial<RawReport> = {}): RawReport => ({
	batch_id: '9007199254740993',
	msisdn: '447700900001',
	status,
	network_id: 23410,
	gateway_session_id: '18014398509481985',
	delivery_date: '',
	delivery_wall: null,
	...over,
});

it('lets each (batch, message, status) through once, within one callback and across callbacks', () => {
	const first = sift(undefined, [report('ENROUTE'), report('ENROUTE')], 100);
	expect([first.fresh.length, first.repeated]).toEqual([1, 1]);
	const second = sift(first.memory, [report('ENROUTE'), report('DELIVRD')], 100);
	expect(second.fresh.map((r) => r.status)).toEqual(['DELIVRD']);
	expect(second.repeated).toBe(1);
});

it('holds back an ENROUTE that arrives after the final status of its message', () => {
	const final = sift(undefined, [report('DELIVRD')], 100);
	const late = sift(final.memory, [report('ENROUTE')], 100);
	expect([late.fresh.length, late.late]).toEqual([0, 1]);
	// A later final status (DELETED after DELIVRD) is news, not a repeat.
	expect(sift(late.memory, [report('DELETED')], 100).fresh).toHaveLength(1);
});

it('does not take two messages to the same number in one batch for repeats of each other', () => {
	const twice = [report('DELIVRD'), report('DELIVRD', { gateway_session_id: '18014398509481987' })];
	expect(sift(undefined, twice, 100).fresh).toHaveLength(2);
});

it('forgets the least recently seen beyond its bound, and stays within it', () => {
	const numbers = Array.from({ length: 150 }, (_, i) =>
		report('ENROUTE', { msisdn: `4477009${String(i).padStart(5, '0')}` }),
	);
	let memory: string[] | undefined;
	memory = sift(memory, numbers.slice(0, 100), 100).memory;
	memory = sift(memory, [numbers[0]], 100).memory; // seen again: now the most recent
	memory = sift(memory, numbers.slice(100, 150), 100).memory;
	expect(memory).toHaveLength(100);
	expect(sift(memory, [numbers[0]], 100).repeated).toBe(1); // kept: it was refreshed
	expect(sift(memory, [numbers[1]], 100).fresh).toHaveLength(1); // forgotten: the oldest
});

it('stores under 40 bytes per final message remembered (two keys of about 19)', () => {
	const reports = Array.from({ length: 10_000 }, (_, i) =>
		report('DELIVRD', { gateway_session_id: String(18014398509481985n + 2n * BigInt(i)) }),
	);
	const { memory } = sift(undefined, reports, 20_000);
	// Each final report is two keys (its status and "final"): 38 bytes a message.
	expect(JSON.stringify(memory).length / reports.length).toBeLessThan(40);
});

it('remembers what an execution emitted as sift would have: repeats and late ones are held back', () => {
	const emitted = [report('ENROUTE'), report('DELIVRD', { msisdn: '447700900002' })];
	const memory = remember(['kept'], emitted, 100);
	expect(memory).toEqual(sift(['kept'], emitted, 100).memory);
	expect(memory).toHaveLength(4); // 'kept', ENROUTE, DELIVRD and its "final"
	const again = sift(memory, [...emitted, report('ENROUTE', { msisdn: '447700900002' })], 100);
	expect([again.fresh.length, again.repeated, again.late]).toEqual([0, 2, 1]);
});
