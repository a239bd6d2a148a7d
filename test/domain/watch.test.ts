import {
	advance,
	batchesToPoll,
	decodeNumbers,
	decodePending,
	emptyState,
	encodeNumbers,
	encodePending,
	fingerprint,
	MAX_WATCHED_BATCHES,
	readState,
	type StatusReport,
	type WatchOptions,
	type WatchState,
} from '../../nodes/shared/domain/watch';
import { seeded } from '../seeded';

// ---------------------------------------------------------------- helpers

/** "111:ENROUTE 222:DELIVRD" → reports of one batch, in that order. */
function reportsOf(text: string): StatusReport[] {
	return text
		.split(/\s+/)
		.filter(Boolean)
		.map((entry) => {
			const [msisdn, status] = entry.split(':');
			return { msisdn, status };
		});
}

type Poll = Record<string, string>;

interface Run {
	/** Per poll: "batch msisdn previous>status" for reports, "batch finished (n)" for summaries. */
	emitted: string[][];
	/** Per poll: the warnings returned. */
	warnings: string[][];
	state: WatchState;
}

/** Runs polls in order, each answering the batches the watcher asks for from the given fetches. */
function run(
	options: Partial<WatchOptions>,
	polls: Poll[],
	watched?: string[],
	from: WatchState = emptyState(),
): Run {
	const full: WatchOptions = { mode: 'changes', statuses: [], emitExisting: false, ...options };
	let state = from;
	const emitted: string[][] = [];
	const warnings: string[][] = [];
	for (const poll of polls) {
		const ids = watched ?? Object.keys(poll);
		const fetched = new Map<string, StatusReport[]>();
		for (const batchId of batchesToPoll(state, ids)) {
			if (poll[batchId] !== undefined) fetched.set(batchId, reportsOf(poll[batchId]));
		}
		const step = advance(state, ids, fetched, full);
		emitted.push([
			...step.reports.map(
				(e) => `${e.batchId} ${e.report.msisdn} ${e.previousStatus ?? '-'}>${e.report.status}`,
			),
			...step.finished.map((f) => `${f.batchId} finished (${f.reports.length})`),
		]);
		warnings.push(step.warnings);
		state = step.state;
	}
	return { emitted, warnings, state };
}

// ---------------------------------------------------------------- compact encoding

describe('encodeNumbers / decodeNumbers', () => {
	it.each<[string, number[], string]>([
		['nothing', [], ''],
		['one number, base 36', [447700900123], (447700900123).toString(36)],
		[
			'sorted gaps',
			[447700900125, 447700900123, 447700900124],
			`${(447700900123).toString(36)},1,1`,
		],
		['duplicates once', [20, 10, 20], 'a,a'],
		[
			'the largest 15-digit number stays exact',
			[999999999999999, 100000000],
			`${(100000000).toString(36)},${(999999899999999).toString(36)}`,
		],
	])('%s', (_, numbers, encoded) => {
		expect(encodeNumbers(numbers)).toBe(encoded);
		expect(decodeNumbers(encoded)).toEqual([...new Set(numbers)].sort((a, b) => a - b));
	});
});

describe('encodePending / decodePending', () => {
	it.each<[string, Array<[string, string]>, { p: string; x?: Array<[string, string]> }]>([
		[
			'ENROUTE plain numbers go into p',
			[['447700900123', 'ENROUTE']],
			{ p: (447700900123).toString(36) },
		],
		[
			'a leading zero is kept in x',
			[['0447700900123', 'ENROUTE']],
			{ p: '', x: [['0447700900123', 'ENROUTE']] },
		],
		[
			'16 digits would not be exact as a number',
			[['4477009001234567', 'ENROUTE']],
			{ p: '', x: [['4477009001234567', 'ENROUTE']] },
		],
		[
			'other pending codes keep their code',
			[['447700900123', 'QUEUED']],
			{ p: '', x: [['447700900123', 'QUEUED']] },
		],
		['non-digits', [['__proto__', 'ENROUTE']], { p: '', x: [['__proto__', 'ENROUTE']] }],
	])('%s', (_, entries, encoded) => {
		expect(encodePending(new Map(entries))).toEqual(encoded);
		expect(decodePending(encoded)).toEqual(new Map(entries));
	});
});

describe('fingerprint', () => {
	// Published FNV-1a 32-bit test vectors, and the joining comma.
	it.each<[string, string[], number | undefined, number]>([
		['no MSISDN', [], undefined, 0x811c9dc5],
		['"a"', ['a'], undefined, 0xe40c292c],
		['"foobar"', ['foobar'], undefined, 0xbf9cf968],
		['only the first count', ['foobar', '447700900123'], 1, 0xbf9cf968],
		['MSISDNs joined by commas', ['fo', 'bar'], undefined, fnv1a('fo,bar')],
	])('%s', (_, msisdns, count, hash) => {
		expect(fingerprint(msisdns, count)).toBe(hash.toString(36));
	});

	it('differs when the order differs', () => {
		expect(fingerprint(['447700900123', '447700900124'])).not.toBe(
			fingerprint(['447700900124', '447700900123']),
		);
	});
});

/** A plain FNV-1a over a string, to check the comma in between. */
function fnv1a(text: string): number {
	let hash = 0x811c9dc5;
	for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
	return hash;
}

describe('readState', () => {
	it.each<[string, unknown]>([
		['nothing stored', undefined],
		['another version', { v: 2, b: {}, f: [] }],
		['not an object', 'watch'],
		['broken batches', { v: 1, b: [], f: [] }],
		['a damaged pending list', { v: 1, b: { '1': { n: 2, p: 'a,!' } }, f: [] }],
		['a negative report count', { v: 1, b: { '1': { n: -1, p: 'a' } }, f: [] }],
		['a fractional report count', { v: 1, b: { '1': { n: 1.5, p: 'a' } }, f: [] }],
		['a damaged order fingerprint', { v: 1, b: { '1': { n: 2, p: 'a', h: 'A!' } }, f: [] }],
		['an order fingerprint that is not text', { v: 1, b: { '1': { n: 2, p: 'a', h: 7 } }, f: [] }],
	])('starts over for %s', (_, stored) => {
		expect(readState(stored)).toEqual(emptyState());
	});

	it('keeps a valid state and drops unreadable entries', () => {
		const stored = {
			v: 1,
			b: {
				'1': { n: 2, p: 'a', x: [['07', 'QUEUED'], 'junk'] },
				'2': { n: 'x' },
				'4': { n: 1, p: '', h: 'zik0zj' },
				'5': { n: 1, p: '', h: '' },
			},
			f: ['3', 4],
		};
		expect(readState(stored)).toEqual({
			v: 1,
			b: {
				'1': { n: 2, p: 'a', x: [['07', 'QUEUED']] },
				'4': { n: 1, p: '', h: 'zik0zj' },
				'5': { n: 1, p: '', h: '' },
			},
			f: ['3'],
		});
	});
});

// ---------------------------------------------------------------- change detection

describe('advance', () => {
	const A = '1000000000000000001';
	const B = '1000000000000000002';

	it.each<[string, Partial<WatchOptions>, Poll[], string[][]]>([
		[
			'first poll is the baseline; later changes are emitted once',
			{},
			[
				{ [A]: '11:ENROUTE 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:UNDELIV' },
			],
			[[], [`${A} 11 ENROUTE>DELIVRD`], [], [`${A} 12 ENROUTE>UNDELIV`]],
		],
		[
			'baseline ignores reports already final',
			{ mode: 'final' },
			[{ [A]: '11:DELIVRD 12:ENROUTE' }, { [A]: '11:DELIVRD 12:REJECTD' }],
			[[], [`${A} 12 ENROUTE>REJECTD`]],
		],
		[
			'emitExisting: every report on the first poll, ENROUTE included',
			{ emitExisting: true },
			[{ [A]: '11:DELIVRD 12:ENROUTE' }, { [A]: '11:DELIVRD 12:ENROUTE' }],
			[[`${A} 11 ->DELIVRD`, `${A} 12 ->ENROUTE`], []],
		],
		[
			'emitExisting in final mode: only the final ones',
			{ emitExisting: true, mode: 'final' },
			[{ [A]: '11:DELIVRD 12:ENROUTE' }, { [A]: '11:DELIVRD 12:EXPIRED' }],
			[[`${A} 11 ->DELIVRD`], [`${A} 12 ENROUTE>EXPIRED`]],
		],
		[
			'changes mode sees pending-to-pending changes',
			{},
			[{ [A]: '11:ENROUTE' }, { [A]: '11:QUEUED' }, { [A]: '11:DELIVRD' }],
			[[], [`${A} 11 ENROUTE>QUEUED`], [`${A} 11 QUEUED>DELIVRD`]],
		],
		[
			'final mode skips them but reports the last pending status as previous',
			{ mode: 'final' },
			[{ [A]: '11:ENROUTE' }, { [A]: '11:QUEUED' }, { [A]: '11:DELIVRD' }],
			[[], [], [`${A} 11 QUEUED>DELIVRD`]],
		],
		[
			'the status filter narrows what is emitted, not what is remembered',
			{ statuses: ['UNDELIV'] },
			[
				{ [A]: '11:ENROUTE 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:UNDELIV' },
				{ [A]: '11:DELIVRD 12:UNDELIV' },
			],
			[[], [], [`${A} 12 ENROUTE>UNDELIV`], []],
		],
		[
			'batchFinal: one summary when the last report is final, then the batch is left alone',
			{ mode: 'batchFinal' },
			[
				{ [A]: '11:ENROUTE 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:UNDELIV' },
				{ [A]: '11:DELIVRD 12:UNDELIV' },
			],
			[[], [], [`${A} finished (2)`], []],
		],
		[
			'batchFinal: a batch finished before watching is silent by default',
			{ mode: 'batchFinal' },
			[{ [A]: '11:DELIVRD' }, { [A]: '11:DELIVRD' }],
			[[], []],
		],
		[
			'batchFinal with emitExisting: a batch finished before watching is summarised once',
			{ mode: 'batchFinal', emitExisting: true },
			[{ [A]: '11:DELIVRD' }, { [A]: '11:DELIVRD' }],
			[[`${A} finished (1)`], []],
		],
		[
			'a batch without reports yet is not finished; its reports are new when they come',
			{ mode: 'final' },
			[{ [A]: '' }, { [A]: '11:DELIVRD 12:ENROUTE' }, { [A]: '11:DELIVRD 12:DELIVRD' }],
			[[], [`${A} 11 ->DELIVRD`], [`${A} 12 ENROUTE>DELIVRD`]],
		],
		[
			'reports added after the baseline are new, earlier ones are not',
			{ mode: 'final' },
			[{ [A]: '11:ENROUTE' }, { [A]: '11:ENROUTE 12:DELIVRD' }, { [A]: '11:DELIVRD 12:DELIVRD' }],
			[[], [`${A} 12 ->DELIVRD`], [`${A} 11 ENROUTE>DELIVRD`]],
		],
		[
			'a pending report missing from one answer is still followed',
			{ mode: 'final' },
			[{ [A]: '11:ENROUTE 12:ENROUTE' }, { [A]: '11:DELIVRD' }, { [A]: '11:DELIVRD 12:UNDELIV' }],
			[[], [`${A} 11 ENROUTE>DELIVRD`], [`${A} 12 ENROUTE>UNDELIV`]],
		],
		[
			'a number listed twice is one destination: pending while either is',
			{ mode: 'final' },
			[
				{ [A]: '11:ENROUTE 11:ENROUTE' },
				{ [A]: '11:DELIVRD 11:ENROUTE' },
				{ [A]: '11:DELIVRD 11:UNDELIV' },
				{ [A]: '11:DELIVRD 11:UNDELIV' },
			],
			[[], [], [`${A} 11 ENROUTE>UNDELIV`], []],
		],
		[
			'a final report that goes back to pending is followed again quietly',
			{ mode: 'final' },
			[
				{ [A]: '11:ENROUTE 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:ENROUTE' },
				{ [A]: '11:ENROUTE 12:ENROUTE' },
				{ [A]: '11:UNDELIV 12:ENROUTE' },
			],
			[[], [`${A} 11 ENROUTE>DELIVRD`], [], [`${A} 11 ENROUTE>UNDELIV`]],
		],
		[
			'batches are independent and emitted in the order watched',
			{ mode: 'final' },
			[
				{ [A]: '11:ENROUTE', [B]: '21:ENROUTE' },
				{ [A]: '11:DELIVRD', [B]: '21:REJECTD' },
			],
			[[], [`${A} 11 ENROUTE>DELIVRD`, `${B} 21 ENROUTE>REJECTD`]],
		],
	])('%s', (_, options, polls, expected) => {
		expect(run(options, polls).emitted).toEqual(expected);
	});

	it('stops asking for a batch once all its reports are final', () => {
		const { state } = run({}, [
			{ [A]: '11:ENROUTE', [B]: '21:ENROUTE' },
			{ [A]: '11:DELIVRD', [B]: '21:ENROUTE' },
		]);
		expect(state.f).toEqual([A]);
		expect(Object.keys(state.b)).toEqual([B]);
		expect(batchesToPoll(state, [A, B])).toEqual([B]);
	});

	it('forgets batches that are no longer watched', () => {
		const { state } = run({}, [{ [A]: '11:DELIVRD', [B]: '21:ENROUTE' }, {}], [A, B]);
		const next = advance(state, ['3'], new Map([['3', reportsOf('31:ENROUTE')]]), {
			mode: 'changes',
			statuses: [],
			emitExisting: false,
		});
		expect(next.state).toEqual({
			v: 1,
			b: { '3': { n: 1, p: (31).toString(36), h: fingerprint(['31']) } },
			f: [],
		});
	});

	it('keeps the state of a batch that was not fetched as it was', () => {
		const { state } = run({}, [{ [A]: '11:ENROUTE' }]);
		const next = advance(state, [A], new Map(), {
			mode: 'changes',
			statuses: [],
			emitExisting: false,
		});
		expect(next.state).toEqual(state);
		expect(next.reports).toEqual([]);
	});

	it('does not change the state it was given', () => {
		const { state } = run({}, [{ [A]: '11:ENROUTE' }]);
		const before = JSON.stringify(state);
		advance(state, [A], new Map([[A, reportsOf('11:DELIVRD')]]), {
			mode: 'changes',
			statuses: [],
			emitExisting: false,
		});
		expect(JSON.stringify(state)).toBe(before);
	});

	it(`caps the finished record at ${MAX_WATCHED_BATCHES} ids`, () => {
		const ids = Array.from({ length: MAX_WATCHED_BATCHES + 5 }, (_, i) => String(i + 1));
		const fetched = new Map(ids.map((id) => [id, reportsOf('11:DELIVRD')]));
		const step = advance(emptyState(), ids, fetched, {
			mode: 'changes',
			statuses: [],
			emitExisting: false,
		});
		expect(step.state.f).toHaveLength(MAX_WATCHED_BATCHES);
	});
});

// ---------------------------------------------------------------- order of the reports

describe('advance when the service changes the order of its reports', () => {
	const A = '1000000000000000001';
	const unplaced = (count: number) =>
		expect.stringMatching(
			new RegExp(`^Batch ${A}: .*new order.* ${count} final reports could not be placed`),
		);

	it.each<[string, Partial<WatchOptions>, Poll[], string[][], unknown[][]]>([
		[
			're-sorted with new pending numbers in front: a report handled earlier is not emitted again',
			{ mode: 'final' },
			[
				{ [A]: '21:DELIVRD 22:ENROUTE' },
				{ [A]: '10:ENROUTE 11:ENROUTE 21:DELIVRD 22:ENROUTE' },
				{ [A]: '10:DELIVRD 11:ENROUTE 21:DELIVRD 22:DELIVRD' },
			],
			[[], [], [`${A} 10 ENROUTE>DELIVRD`, `${A} 22 ENROUTE>DELIVRD`]],
			[[], [], []],
		],
		[
			'reversed, nothing added: only the real change',
			{ mode: 'final' },
			[{ [A]: '11:DELIVRD 12:ENROUTE 13:ENROUTE' }, { [A]: '13:ENROUTE 12:DELIVRD 11:DELIVRD' }],
			[[], [`${A} 12 ENROUTE>DELIVRD`]],
			[[], []],
		],
		[
			'inserted in the middle of a sorted list while nothing was final: emitted as new',
			{ mode: 'final' },
			[{ [A]: '11:ENROUTE 13:ENROUTE' }, { [A]: '11:ENROUTE 12:DELIVRD 13:ENROUTE' }],
			[[], [`${A} 12 ->DELIVRD`]],
			[[], []],
		],
		[
			'after a new order, reports appended to it are placed by position again',
			{ mode: 'final' },
			[
				{ [A]: '11:DELIVRD 13:ENROUTE' },
				{ [A]: '13:ENROUTE 11:DELIVRD' },
				{ [A]: '13:ENROUTE 11:DELIVRD 12:DELIVRD' },
			],
			[[], [], [`${A} 12 ->DELIVRD`]],
			[[], [], []],
		],
		[
			'ambiguous (one was handled, two are final now): none emitted, none twice, a warning',
			{ mode: 'final' },
			[
				{ [A]: '11:DELIVRD 13:ENROUTE' },
				{ [A]: '10:DELIVRD 11:DELIVRD 13:ENROUTE' },
				{ [A]: '10:DELIVRD 11:DELIVRD 13:DELIVRD' },
			],
			[[], [], [`${A} 13 ENROUTE>DELIVRD`]],
			[[], [unplaced(2)], []],
		],
		[
			'ambiguous, but the status filter wants none of them: no warning',
			{ mode: 'final', statuses: ['UNDELIV'] },
			[{ [A]: '11:DELIVRD 13:ENROUTE' }, { [A]: '10:DELIVRD 11:DELIVRD 13:ENROUTE' }],
			[[], []],
			[[], []],
		],
		[
			'ambiguous under Batch Finished: the summary lists every report, no warning',
			{ mode: 'batchFinal' },
			[
				{ [A]: '11:DELIVRD 13:ENROUTE' },
				{ [A]: '10:DELIVRD 11:DELIVRD 13:ENROUTE' },
				{ [A]: '10:DELIVRD 11:DELIVRD 13:DELIVRD' },
			],
			[[], [], [`${A} finished (3)`]],
			[[], [], []],
		],
	])('%s', (_, options, polls, emitted, warnings) => {
		const result = run(options, polls);
		expect(result.emitted).toEqual(emitted);
		expect(result.warnings).toEqual(warnings);
	});

	it('a state stored before the fingerprint existed trusts positions, as it did, then gains one', () => {
		const old: WatchState = { v: 1, b: { [A]: { n: 2, p: encodeNumbers([11]) } }, f: [] };
		const result = run(
			{ mode: 'final' },
			[{ [A]: '12:DELIVRD 11:ENROUTE 13:DELIVRD' }, { [A]: '12:DELIVRD 11:DELIVRD 13:DELIVRD' }],
			undefined,
			old,
		);
		// 12 is within the first n = 2: handled before; 13 is after them: new.
		expect(result.emitted).toEqual([[`${A} 13 ->DELIVRD`], [`${A} 11 ENROUTE>DELIVRD`]]);
		const afterFirst = run(
			{ mode: 'final' },
			[{ [A]: '12:DELIVRD 11:ENROUTE 13:DELIVRD' }],
			[A],
			old,
		);
		expect(afterFirst.state.b[A]).toEqual({
			n: 3,
			p: encodeNumbers([11]),
			h: fingerprint(['12', '11', '13']),
		});
	});

	it('an answer missing a known number keeps the known order until it is complete again', () => {
		const { state } = run({ mode: 'final' }, [
			{ [A]: '11:ENROUTE 12:ENROUTE' },
			{ [A]: '11:DELIVRD' },
		]);
		expect(state.b[A]).toEqual({ n: 2, p: encodeNumbers([12]), h: fingerprint(['11', '12']) });
	});
});

// ---------------------------------------------------------------- exactly once, generated

describe('exactly once over generated histories', () => {
	const FINALS = ['DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED', 'ACCEPTD'];

	// Shuffled: the service lists the reports in a new order every poll (the interface promises
	// none); every destination is there from the start, so counting always decides.
	const runs = [1, 2, 3, 4, 5, 6, 7, 8].flatMap((seed) => [
		[seed, 'in send order'] as const,
		[seed, 'shuffled'] as const,
	]);

	it.each(runs)(
		'seed %i, %s: every status change is emitted once, none lost, no warning',
		(seed, order) => {
			const next = seeded(seed);
			const arrange = <T>(list: T[]) => (order === 'shuffled' ? shuffle(list, next) : list);
			const batches = ['1', '2', '3'];
			// Each message moves ENROUTE → maybe QUEUED → a final status at random times.
			const timeline = new Map<
				string,
				Array<{ msisdn: string; at: number[]; statuses: string[] }>
			>();
			for (const batchId of batches) {
				const messages = Array.from({ length: 20 }, (_, i) => {
					const statuses = [
						'ENROUTE',
						...(next() < 0.3 ? ['QUEUED'] : []),
						FINALS[Math.floor(next() * FINALS.length)],
					];
					const at = statuses.map((_, step) => (step === 0 ? 0 : Math.floor(next() * 30)));
					at.sort((x, y) => x - y);
					return { msisdn: String(447700900000 + i * 7), at, statuses };
				});
				timeline.set(batchId, messages);
			}
			const statusAt = (m: { at: number[]; statuses: string[] }, t: number) =>
				m.statuses[m.at.filter((when) => when <= t).length - 1];
			const options: WatchOptions = { mode: 'changes', statuses: [], emitExisting: true };
			let state = emptyState();
			const seen: string[] = [];
			const warnings: string[] = [];
			for (let t = 0; t <= 35; t += 1 + Math.floor(next() * 3)) {
				const fetched = new Map<string, StatusReport[]>();
				for (const batchId of batchesToPoll(state, batches)) {
					// A failed poll: no state change at all. From t = 30 on, when every message is
					// final, polls succeed, so that the last outcome is seen.
					const failed = next() < 0.2 && t < 30;
					if (failed) continue;
					fetched.set(
						batchId,
						arrange(
							timeline.get(batchId)!.map((m) => ({ msisdn: m.msisdn, status: statusAt(m, t) })),
						),
					);
				}
				if (fetched.size < batchesToPoll(state, batches).length) continue;
				const step = advance(state, batches, fetched, options);
				seen.push(...step.reports.map((e) => `${e.batchId}:${e.report.msisdn}:${e.report.status}`));
				warnings.push(...step.warnings);
				state = step.state;
			}
			expect(new Set(seen).size).toBe(seen.length);
			expect(warnings).toEqual([]);
			// Every final status was emitted (all messages are final by t = 30).
			for (const [batchId, messages] of timeline) {
				for (const m of messages)
					expect(seen).toContain(`${batchId}:${m.msisdn}:${m.statuses[m.statuses.length - 1]}`);
			}
			expect(state.f.sort()).toEqual(batches);
		},
	);
});

/** Fisher-Yates with the test's seeded random numbers. */
function shuffle<T>(list: T[], next: () => number): T[] {
	for (let i = list.length - 1; i > 0; i--) {
		const j = Math.floor(next() * (i + 1));
		[list[i], list[j]] = [list[j], list[i]];
	}
	return list;
}

// ---------------------------------------------------------------- size

describe('static data size', () => {
	it('a 100,000-destination batch costs a few bytes per pending report', () => {
		const next = seeded(42);
		// Numbers of one country, spread over 10^8 like a real customer list.
		const numbers = new Set<number>();
		while (numbers.size < 100_000) numbers.add(447700000000 + Math.floor(next() * 1e8));
		const reports = [...numbers].map((n) => ({ msisdn: String(n), status: 'ENROUTE' }));
		const step = advance(emptyState(), ['1'], new Map([['1', reports]]), {
			mode: 'final',
			statuses: [],
			emitExisting: false,
		});
		const bytes = Buffer.byteLength(JSON.stringify(step.state));
		expect(bytes / reports.length).toBeLessThan(5);
		expect(decodePending(step.state.b['1']).size).toBe(100_000);
	});
});
