/** The trigger's memory of reports: repeats, late ones, its lifetime and size, and how it is stored. */
import fc from 'fast-check';
import { deepCopy } from 'n8n-workflow';

import {
	describeMemory,
	ENTRY_LENGTH,
	hourStamp,
	DEFAULT_MEMORY_SIZE,
	MEMORY_DAYS,
	MEMORY_KEY,
	readStored,
	reportId,
	sift,
	storedKnows,
	TriggerMemory,
} from '../../nodes/BulkSmsStatusTrigger/memory';
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

const message = (i: number) => ({ gateway_session_id: String(18014398509481985n + BigInt(i)) });

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 10, 20, 10);

/** Has the memory learn reports at `at`, as an execution that carried them does. */
function learn(memory: TriggerMemory, ids: string[], at: number): void {
	memory.keep(ids, {}, Number.MAX_SAFE_INTEGER, () => at);
}

/** A memory as a set: what sift is told is known, and what it adds. */
function memoryOf(ids: Iterable<string> = []) {
	const set = new Set(ids);
	return {
		set,
		sift: (reports: RawReport[]) => {
			const sifted = sift(reports, (id) => set.has(id));
			for (const id of sifted.ids) set.add(id);
			return sifted;
		},
	};
}

describe('sift', () => {
	it('lets each status of each message through once, within one callback and across callbacks', () => {
		const memory = memoryOf();
		const first = memory.sift([report('ENROUTE'), report('ENROUTE')]);
		expect([first.fresh.length, first.repeated]).toEqual([1, 1]);
		const second = memory.sift([report('ENROUTE'), report('DELIVRD')]);
		expect(second.fresh.map((r) => r.status)).toEqual(['DELIVRD']);
		expect(second.repeated).toBe(1);
	});

	it('holds back an ENROUTE (or any pending code) after a final status of its message', () => {
		const memory = memoryOf();
		memory.sift([report('DELIVRD')]);
		for (const pending of ['ENROUTE', 'SCHEDLD']) {
			const late = memory.sift([report(pending)]);
			expect([late.fresh.length, late.late]).toEqual([0, 1]);
		}
		// A later final status (DELETED after DELIVRD) is news, not a repeat.
		expect(memory.sift([report('DELETED')]).fresh).toHaveLength(1);
	});

	it('holds back an ENROUTE after its final status in the same callback', () => {
		const sifted = memoryOf().sift([report('EXPIRED'), report('ENROUTE')]);
		expect([sifted.fresh.map((r) => r.status), sifted.late]).toEqual([['EXPIRED'], 1]);
	});

	it('does not take two messages to the same number in one batch for repeats of each other', () => {
		expect(memoryOf().sift([report('DELIVRD'), report('DELIVRD', message(2))]).fresh).toHaveLength(
			2,
		);
	});

	it('tells codes the interface does not list apart from each other', () => {
		const memory = memoryOf();
		expect(
			memory.sift([report('SCHEDLD'), report('BUFFERD'), report('SCHEDLD')]).fresh,
		).toHaveLength(2);
	});

	it('names each fresh report once, by message and status: one entry a report', () => {
		const sifted = memoryOf().sift([report('ENROUTE'), report('DELIVRD'), report('DELIVRD')]);
		expect(sifted.ids).toEqual([reportId(report('ENROUTE')), reportId(report('DELIVRD'))]);
		expect(sifted.ids.every((id) => id.length === ENTRY_LENGTH - 4)).toBe(true);
	});
});

/** The memory one process would store at `now` after learning these reports, one hour apart. */
function storedAfter(reports: RawReport[], start = NOW, size = 100_000): string {
	const memory = new TriggerMemory();
	reports.forEach((r, i) => learn(memory, [reportId(r)], start + i * 3_600_000));
	return memory.merged('', start + reports.length * 3_600_000, size);
}

/** The reports of a stored memory, in order. */
const idsOf = (stored: string) =>
	Array.from({ length: stored.length / ENTRY_LENGTH }, (_, i) =>
		stored.slice(i * ENTRY_LENGTH, i * ENTRY_LENGTH + 12),
	);

describe('the stored memory', () => {
	const finals = (count: number) =>
		Array.from({ length: count }, (_, i) => report('DELIVRD', message(i)));

	it('is one entry of 16 characters a report, oldest first, read back as it is', () => {
		const stored = storedAfter(finals(3));
		expect(stored).toHaveLength(3 * ENTRY_LENGTH);
		expect(readStored(stored)).toBe(stored);
		expect(stored.slice(12, 16) < stored.slice(28, 32)).toBe(true);
		for (const other of [undefined, {}, 'not a memory!', 42, ['a']])
			expect(readStored(other)).toBe('');
	});

	it(`reads back a memory of the default size, ${DEFAULT_MEMORY_SIZE.toLocaleString('en-US')} reports`, () => {
		const memory = new TriggerMemory();
		learn(memory, finals(DEFAULT_MEMORY_SIZE).map(reportId), NOW);
		const stored = memory.merged('', NOW, DEFAULT_MEMORY_SIZE);
		expect(stored).toHaveLength(DEFAULT_MEMORY_SIZE * ENTRY_LENGTH);
		expect(readStored(stored)).toBe(stored);
		expect(storedKnows(stored, NOW, 1)(reportId(report('DELIVRD', message(7))))).toBe(true);
	});

	it('finds a report by search exactly as by an index, never across two entries', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 40 }), fc.nat(30), (count, lookups) => {
				const stored = storedAfter(finals(count));
				const later = NOW + count * 3_600_000;
				const searched = storedKnows(stored, later, 1);
				const indexed = storedKnows(stored, later, 1000);
				const ids = finals(count + 5).map(reportId);
				// Straddling two entries: the end of one and the start of the next.
				for (let at = 8; at + 12 < stored.length; at += ENTRY_LENGTH)
					ids.push(stored.slice(at, at + 12));
				for (const id of ids.slice(0, count + 5 + lookups))
					expect([id, searched(id)]).toEqual([id, indexed(id)]);
			}),
		);
	});

	it(`forgets a report ${MEMORY_DAYS} days after its first callback`, () => {
		const stored = storedAfter([report('DELIVRD')]);
		const id = reportId(report('DELIVRD'));
		const at = (days: number) => NOW + days * DAY_MS;
		expect(storedKnows(stored, at(MEMORY_DAYS - 0.1), 1)(id)).toBe(true);
		expect(storedKnows(stored, at(MEMORY_DAYS + 0.1), 1)(id)).toBe(false);
		expect(new TriggerMemory().merged(stored, at(MEMORY_DAYS + 0.1), 10)).toBe('');
	});

	it('keeps the stored reports that this process did not learn, then what it learned, the last `size` of them', () => {
		const [a, b, c, d] = finals(4).map(reportId);
		const stored = storedAfter(finals(3)); // a, b, c an hour apart
		const memory = new TriggerMemory();
		learn(memory, [d, b], NOW + 90 * 60_000);
		const merged = memory.merged(stored, NOW + 3 * 3_600_000, 3);
		expect(idsOf(merged)).toEqual([c, d, b]);
		expect(idsOf(merged)).not.toContain(a);
	});

	it('writes what the plain rule says: kept stored entries not learned, then the learned, the last `size`', () => {
		const ids = finals(30).map(reportId);
		fc.assert(
			fc.property(
				fc.array(fc.tuple(fc.nat(29), fc.nat(12)), { maxLength: 30 }),
				fc.array(fc.tuple(fc.nat(29), fc.nat(12)), { maxLength: 30 }),
				fc.integer({ min: 1, max: 40 }),
				(storedOnes, learnedOnes, size) => {
					const hour = (days: number) => NOW + days * DAY_MS;
					const stored = storedOnes.map(([i, days]) => ids[i] + hourStamp(hour(days))).join('');
					const memory = new TriggerMemory();
					for (const [i, days] of learnedOnes) learn(memory, [ids[i]], hour(days));
					const now = hour(12);
					const oldest = hourStamp(now - MEMORY_DAYS * DAY_MS);
					const learned = new Map<string, string>();
					for (const [i, days] of learnedOnes)
						if (!learned.has(ids[i])) learned.set(ids[i], hourStamp(hour(days)));
					const kept = [...learned].filter(([, h]) => h >= oldest);
					const keptLearned = kept.slice(Math.max(0, kept.length - size));
					const plain = [
						...storedOnes
							.map(([i, days]) => [ids[i], hourStamp(hour(days))])
							.filter(([id, h]) => h >= oldest && !keptLearned.some(([l]) => l === id)),
						...keptLearned,
					].map(([id, h]) => id + h);
					const expected = plain.slice(Math.max(0, plain.length - size)).join('');
					expect(memory.merged(stored, now, size)).toBe(expected);
				},
			),
		);
	});

	it('is written as it is when n8n writes the static data, not as it was when a step ran', () => {
		const [a, b] = finals(2).map(reportId);
		const memory = new TriggerMemory();
		const staticData: Record<string, unknown> = {};
		memory.keep([a], staticData, 10, () => NOW);
		learn(memory, [b], NOW); // a callback learned after this execution's step, before its end
		const written = JSON.parse(JSON.stringify(staticData)) as Record<string, string>;
		expect(written[MEMORY_KEY]).toBe(`${a}${hourStamp(NOW)}${b}${hourStamp(NOW)}`);
		expect(deepCopy(staticData)).toEqual(written); // n8n's copy
		expect(readStored(staticData[MEMORY_KEY])).toBe(written[MEMORY_KEY]);
	});

	it('says in words what it holds', () => {
		const stored = storedAfter([
			report('ENROUTE'),
			report('DELIVRD'),
			report('UNDELIV', message(3)),
		]);
		expect(describeMemory(stored, NOW + 5 * 3_600_000)).toBe(
			`Bulk SMS Status Trigger memory: 3 report(s) of 2 message(s) (1 ENROUTE, 1 DELIVRD, 1 UNDELIV), the oldest first heard 2026-11-20T10:00Z; each is kept ${MEMORY_DAYS} days from its first callback.`,
		);
		expect(describeMemory('garbage')).toMatch(/^Not a Bulk SMS Status Trigger memory/);
	});
});

describe('one callback, received', () => {
	const rules = (wanted: boolean) => ({ wanted: () => wanted, size: 10, clock: () => NOW });
	const statuses = (received: { news: Array<{ report: RawReport }> }) =>
		received.news.map(({ report: r }) => r.status);

	it('holds news the filters want until settled, and keeps it once its execution started', () => {
		const memory = new TriggerMemory();
		const staticData: Record<string, unknown> = {};
		const first = memory.receive([report('ENROUTE'), report('DELIVRD')], staticData, rules(true));
		expect([statuses(first), first.news.map((one) => one.wanted)]).toEqual([
			['ENROUTE', 'DELIVRD'],
			[true, true],
		]);
		// A copy arriving while the first is handed over is a repeat; nothing is stored yet.
		const copy = memory.receive([report('DELIVRD')], staticData, rules(true));
		expect([copy.news, copy.repeated, copy.settle, staticData]).toEqual([[], 1, undefined, {}]);
		first.settle!(true);
		expect(memory.merged('', NOW, 10)).toBe(
			[report('ENROUTE'), report('DELIVRD')].map((r) => reportId(r) + hourStamp(NOW)).join(''),
		);
	});

	it('lets the news go when its execution did not start, so that the next try is news', () => {
		const memory = new TriggerMemory();
		const first = memory.receive([report('DELIVRD')], {}, rules(true));
		first.settle!(false);
		first.settle!(true); // settled once: a second word changes nothing
		expect(statuses(memory.receive([report('DELIVRD')], {}, rules(true)))).toEqual(['DELIVRD']);
		expect(memory.merged('', NOW, 10)).toBe('');
	});

	it('remembers news no filter wants in the static data at once, and writes nothing for a mere repeat', () => {
		const memory = new TriggerMemory();
		const staticData: Record<string, unknown> = {};
		const received = memory.receive([report('DELIVRD')], staticData, rules(false));
		expect([statuses(received), received.settle]).toEqual([['DELIVRD'], undefined]);
		const written = JSON.parse(JSON.stringify(staticData)) as Record<string, string>;
		expect(written[MEMORY_KEY]).toBe(reportId(report('DELIVRD')) + hourStamp(NOW));
		const again: Record<string, unknown> = { [MEMORY_KEY]: written[MEMORY_KEY] };
		expect(new TriggerMemory().receive([report('DELIVRD')], again, rules(false)).repeated).toBe(1);
		expect(again[MEMORY_KEY]).toBe(written[MEMORY_KEY]);
	});

	it('forgets what this process learned by the same rules as the stored memory', () => {
		const memory = new TriggerMemory();
		const [r1, r2, r3] = [1, 2, 3].map((i) => report('DELIVRD', message(i)));
		learn(memory, [reportId(r1)], NOW);
		learn(memory, [r2, r3].map(reportId), NOW + DAY_MS);
		const later = NOW + MEMORY_DAYS * DAY_MS + 3_600_000;
		memory.merged('', later, 1);
		const received = memory.receive([r1, r2, r3], {}, { ...rules(false), clock: () => later });
		expect(statuses(received)).toHaveLength(2);
		expect(received.repeated).toBe(1);
	});
});
