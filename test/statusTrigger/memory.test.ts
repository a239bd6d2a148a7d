/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** The trigger's memory of reports seen: repeats, late arrivals, how it is stored, and this process's part. */
import fc from 'fast-check';
import { deepCopy } from 'n8n-workflow';

import { KnownReports, TriggerMemory } from '../../nodes/BulkSmsStatusTrigger/knownReports';
import { KEY_LENGTH, sift, statusKey } from '../../nodes/BulkSmsStatusTrigger/memory';
import {
	mergedMemory,
	readStored,
	storedCount,
	storedKeys,
	storedLookup,
	storeMemory,
} from '../../nodes/BulkSmsStatusTrigger/storedMemory';
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

/** A memory as a set: what sift is told is known, and what it adds. */
function memoryOf(keys: Iterable<string> = []) {
	const set = new Set(keys);
	return {
		set,
		sift: (reports: RawReport[]) => {
			const sifted = sift(reports, (key) => set.has(key));
			for (const key of sifted.keys) set.add(key);
			return sifted;
		},
	};
}

describe('sift', () => {
	it('lets each (batch, message, status) through once, within one callback and across callbacks', () => {
		const memory = memoryOf();
		const first = memory.sift([report('ENROUTE'), report('ENROUTE')]);
		expect([first.fresh.length, first.repeated]).toEqual([1, 1]);
		const second = memory.sift([report('ENROUTE'), report('DELIVRD')]);
		expect(second.fresh.map((r) => r.status)).toEqual(['DELIVRD']);
		expect(second.repeated).toBe(1);
	});

	it('holds back an ENROUTE that arrives after the final status of its message', () => {
		const memory = memoryOf();
		memory.sift([report('DELIVRD')]);
		const late = memory.sift([report('ENROUTE')]);
		expect([late.fresh.length, late.late]).toEqual([0, 1]);
		// A later final status (DELETED after DELIVRD) is news, not a repeat.
		expect(memory.sift([report('DELETED')]).fresh).toHaveLength(1);
	});

	it('holds back an ENROUTE after its final status in the same callback', () => {
		const sifted = memoryOf().sift([report('EXPIRED'), report('ENROUTE')]);
		expect([sifted.fresh.map((r) => r.status), sifted.late]).toEqual([['EXPIRED'], 1]);
	});

	it('does not take two messages to the same number in one batch for repeats of each other', () => {
		const twice = [
			report('DELIVRD'),
			report('DELIVRD', { gateway_session_id: '18014398509481987' }),
		];
		expect(memoryOf().sift(twice).fresh).toHaveLength(2);
	});

	it('gives the keys it adds, each once: a status key, and a final key for a final status', () => {
		const sifted = memoryOf().sift([report('ENROUTE'), report('DELIVRD'), report('DELIVRD')]);
		expect(sifted.keys).toHaveLength(3);
		expect(new Set(sifted.keys).size).toBe(3);
		expect(sifted.keys.every((key) => key.length === KEY_LENGTH)).toBe(true);
		expect(memoryOf(sifted.keys).sift([report('DELIVRD')]).keys).toEqual([]);
	});
});

describe('the stored memory', () => {
	const keysOf = (count: number) =>
		Array.from({ length: count }, (_, i) =>
			statusKey(report('DELIVRD', { gateway_session_id: String(18014398509481985n + BigInt(i)) })),
		);

	it('is the keys in one string, 16 bytes a key; the list 0.1.0 stored is read as it is', () => {
		const keys = keysOf(1000);
		const stored = mergedMemory('', new TriggerMemoryOf(keys), 10_000);
		expect(stored).toHaveLength(1000 * KEY_LENGTH);
		expect(storedCount(stored)).toBe(1000);
		expect(readStored(keys)).toBe(stored);
		expect(readStored(stored)).toBe(stored);
		expect([
			readStored(undefined),
			readStored({}),
			readStored('not a key!'),
			readStored(42),
		]).toEqual(['', '', '', '']);
	});

	it('finds a key by search exactly when a set of its keys has it (never across two keys)', () => {
		fc.assert(
			fc.property(
				fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_-]{16}$/), { maxLength: 40 }),
				fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{16}$/), { maxLength: 20 }),
				fc.nat(30),
				(stored, others, lookups) => {
					const text = stored.join('');
					const set = new Set(stored);
					// Keys straddling two stored ones must not be found.
					const straddling = stored.slice(1).map((key, i) => stored[i].slice(8) + key.slice(0, 8));
					const has = storedLookup(text, lookups);
					for (const key of [...stored, ...others, ...straddling])
						expect(has(key)).toBe(set.has(key));
				},
			),
		);
	});

	it('is written as it is when n8n writes the static data, not as it was when a step ran', () => {
		const [a, b, c] = keysOf(3);
		const memory = new TriggerMemoryOf([a]);
		const staticData: Record<string, unknown> = {};
		storeMemory(staticData as never, 'seen', '', memory, 10);
		memory.learn([b, c]); // a callback remembered after this execution's step, before its end
		expect(JSON.parse(JSON.stringify(staticData))).toEqual({ seen: [a, b, c].join('') });
		expect(deepCopy(staticData)).toEqual({ seen: [a, b, c].join('') }); // n8n's copy
		expect(readStored(staticData.seen)).toBe([a, b, c].join(''));
	});

	it('keeps what was stored behind what this process knows, the newest `limit` of them', () => {
		const [a, b, c, d] = keysOf(4);
		const stored = [a, b, c].join('');
		const merged = mergedMemory(stored, new TriggerMemoryOf([b, d]), 3);
		expect([...storedKeys(merged)]).toEqual([c, b, d]);
	});
});

/** A process memory that has learned `keys`, in that order. */
class TriggerMemoryOf extends TriggerMemory {
	constructor(keys: string[]) {
		super();
		this.learn(keys);
	}
}

describe("this process's memory", () => {
	it('knows held keys but stores them only once their callback was answered 2xx', () => {
		const memory = new TriggerMemory();
		memory.hold(['k1', 'k2']);
		expect([memory.knows('k1'), memory.has('k1')]).toEqual([true, false]);
		memory.release(['k1', 'k2'], true);
		expect([memory.knows('k1'), memory.has('k1'), [...memory.keys()]]).toEqual([
			true,
			true,
			['k1', 'k2'],
		]);
	});

	it('lets go of the keys of a callback whose execution did not start, unless another holds them', () => {
		const memory = new TriggerMemory();
		memory.hold(['k1']);
		memory.hold(['k1']);
		memory.release(['k1'], false);
		expect(memory.knows('k1')).toBe(true);
		memory.release(['k1'], false);
		expect(memory.knows('k1')).toBe(false);
	});

	it('forgets the least recently seen beyond its bound; a key seen again is recent', () => {
		const known = new KnownReports();
		const memory = known.of('w n', 3);
		memory.learn(['a', 'b', 'c']);
		memory.learn(['a']);
		memory.learn(['d']);
		expect([...memory.keys()]).toEqual(['c', 'a', 'd']);
		expect(known.of('w n', 2)).toBe(memory);
		expect([...memory.keys()]).toEqual(['a', 'd']);
	});

	it('keeps one memory per trigger, and runs its turns one at a time, in order', async () => {
		const known = new KnownReports();
		expect(known.of('w n1', 10)).not.toBe(known.of('w n2', 10));
		const memory = known.of('w n1', 10);
		const order: string[] = [];
		const step = (name: string, ms: number) => () =>
			new Promise<void>((resolve) =>
				setTimeout(() => {
					order.push(name);
					resolve();
				}, ms),
			);
		const failing = () => Promise.reject(new Error('no'));
		await Promise.allSettled([
			memory.inTurn(step('slow', 30)),
			memory.inTurn(failing),
			memory.inTurn(step('fast', 1)),
		]);
		expect(order).toEqual(['slow', 'fast']);
	});
});
