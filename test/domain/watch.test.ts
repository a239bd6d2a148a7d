import {
	advance,
	batchesToPoll,
	failureIsDue,
	MAX_WATCHED_BATCHES,
	type FailureKind,
	type StatusReport,
	type WatchOptions,
} from '../../nodes/shared/domain/watch';
import {
	decodeNumbers,
	decodeRuns,
	encodeNumbers,
	encodeRuns,
} from '../../nodes/shared/domain/watchCodec';
import {
	describeState,
	emptyState,
	knownCount,
	pendingOf,
	readState,
	type WatchState,
} from '../../nodes/shared/domain/watchState';
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
		state = step.state;
	}
	return { emitted, state };
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

describe('encodeRuns / decodeRuns', () => {
	it.each<[string, number[], string]>([
		['no flag', [], ''],
		['none set', [0, 0, 0], ''],
		['all set', [1, 1, 1], '0,3'],
		['alternating', [0, 1, 0, 1], '1,1,1,1'],
		['trailing zeros left out', [1, 0, 0], '0,1'],
		['long runs in base 36', [...Array<number>(40).fill(1), 0], '0,14'],
	])('%s', (_, flags, encoded) => {
		expect(encodeRuns(Uint8Array.from(flags))).toBe(encoded);
		expect([...decodeRuns(encoded, flags.length)]).toEqual(flags);
	});
});

describe('readState', () => {
	it.each<[string, unknown]>([
		['nothing stored', undefined],
		['another version', { v: 3, g: 1, b: {}, f: [] }],
		['not an object', 'watch'],
		['broken batches', { v: 2, g: 1, b: [], f: [] }],
	])('starts over for %s', (_, stored) => {
		expect(readState(stored)).toEqual(emptyState());
	});

	it('keeps a valid state and drops unreadable entries', () => {
		const stored = {
			v: 2,
			g: 7,
			b: {
				'1': { k: 'a,1', r: '0,1', o: ['07'], x: [['07', 'QUEUED'], 'junk'] },
				'2': { k: 'a,!', r: '' },
				'3': { k: 'a', r: '0,2' },
				'4': { k: 'a', r: '', d: 1 },
			},
			f: ['5', 4],
			e: { '6': 2, '7': 'x' },
			q: [['6', 'HTTP 500']],
		};
		expect(readState(stored)).toEqual({
			v: 2,
			g: 7,
			b: {
				'1': { k: 'a,1', r: '0,1', o: ['07'], x: [['07', 'QUEUED']] },
				'4': { k: 'a', r: '', d: 1 },
			},
			f: ['5'],
			e: { '6': 2 },
			q: [['6', 'HTTP 500']],
		});
	});

	it('carries the pending numbers of a first-version state over, taking its other reports as handled', () => {
		const A = '1000000000000000001';
		const old = {
			v: 1,
			b: { [A]: { n: 3, p: encodeNumbers([11]), x: [['012', 'QUEUED']] } },
			f: [],
		};
		const state = readState(old);
		expect(pendingOf(state.b[A])).toEqual(
			new Map([
				['11', 'ENROUTE'],
				['012', 'QUEUED'],
			]),
		);
		const result = run(
			{ mode: 'final' },
			[
				{ [A]: '10:DELIVRD 11:ENROUTE 012:QUEUED' },
				{ [A]: '10:DELIVRD 11:DELIVRD 012:UNDELIV 13:DELIVRD' },
			],
			undefined,
			state,
		);
		expect(result.emitted).toEqual([
			[],
			[`${A} 11 ENROUTE>DELIVRD`, `${A} 012 QUEUED>UNDELIV`, `${A} 13 ->DELIVRD`],
		]);
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
			'batchFinal: one summary once a second read finds every report final, then the batch is left alone',
			{ mode: 'batchFinal' },
			[
				{ [A]: '11:ENROUTE 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:UNDELIV' },
				{ [A]: '11:DELIVRD 12:UNDELIV' },
				{ [A]: '11:DELIVRD 12:UNDELIV' },
			],
			[[], [], [], [`${A} finished (2)`], []],
		],
		[
			'a batch finished before watching is reported by default, since it will never change',
			{ mode: 'final' },
			[{ [A]: '11:DELIVRD 12:UNDELIV' }, { [A]: '11:DELIVRD 12:UNDELIV' }, { [A]: '11:DELIVRD' }],
			[[`${A} 11 ->DELIVRD`, `${A} 12 ->UNDELIV`], [], []],
		],
		[
			'batchFinal: a batch finished before watching is summarised once, on the read that confirms it',
			{ mode: 'batchFinal' },
			[{ [A]: '11:DELIVRD' }, { [A]: '11:DELIVRD' }, { [A]: '11:DELIVRD' }],
			[[], [`${A} finished (1)`], []],
		],
		[
			'a batch in progress at the first poll is a baseline, its final reports too',
			{ mode: 'final' },
			[{ [A]: '11:DELIVRD 12:ENROUTE' }, { [A]: '11:DELIVRD 12:DELIVRD' }],
			[[], [`${A} 12 ENROUTE>DELIVRD`]],
		],
		[
			'batchFinal with emitExisting: a batch finished before watching is summarised once',
			{ mode: 'batchFinal', emitExisting: true },
			[{ [A]: '11:DELIVRD' }, { [A]: '11:DELIVRD' }, { [A]: '11:DELIVRD' }],
			[[], [`${A} finished (1)`], []],
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
			v: 2,
			g: state.g + 1,
			b: { '3': { k: (31).toString(36), r: '0,1' } },
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
		expect(next.state.b).toEqual(state.b);
		expect(next.changed).toBe(false);
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
		const options: WatchOptions = { mode: 'changes', statuses: [], emitExisting: false };
		// Final twice: finished on the second read.
		const first = advance(emptyState(), ids, fetched, options);
		const step = advance(first.state, ids, fetched, options);
		expect(step.state.f).toHaveLength(MAX_WATCHED_BATCHES);
	});
});

// ---------------------------------------------------------------- incomplete and reordered answers

describe('answers that leave reports out, list them later, reorder or page them', () => {
	const A = '1000000000000000001';

	// Each of these lost a final status, or warned, with the first state version (count + order
	// fingerprint): a report not seen yet must be emitted when it appears, wherever it appears.
	it.each<[string, Partial<WatchOptions>, Poll[], string[][]]>([
		[
			'left out, then listed again already final, in its old place',
			{ mode: 'final' },
			[
				{ [A]: '11:ENROUTE 12:DELIVRD 13:ENROUTE' },
				{ [A]: '11:ENROUTE 13:ENROUTE 14:DELIVRD' },
				{ [A]: '11:DELIVRD 12:DELIVRD 13:ENROUTE 14:DELIVRD 15:UNDELIV' },
			],
			[[], [`${A} 14 ->DELIVRD`], [`${A} 11 ENROUTE>DELIVRD`, `${A} 15 ->UNDELIV`]],
		],
		[
			'never listed before, then final in the middle of a re-sorted answer',
			{ mode: 'final' },
			[
				{ [A]: '21:DELIVRD 22:ENROUTE' },
				{ [A]: '22:ENROUTE 21:DELIVRD' },
				{ [A]: '10:DELIVRD 21:DELIVRD 22:ENROUTE 23:REJECTD' },
			],
			[[], [], [`${A} 10 ->DELIVRD`, `${A} 23 ->REJECTD`]],
		],
		[
			'reversed, nothing added: only the real change',
			{ mode: 'final' },
			[{ [A]: '11:DELIVRD 12:ENROUTE 13:ENROUTE' }, { [A]: '13:ENROUTE 12:DELIVRD 11:DELIVRD' }],
			[[], [`${A} 12 ENROUTE>DELIVRD`]],
		],
		[
			'one handled and two new final ones in a new order: the two new ones, once',
			{ mode: 'final' },
			[
				{ [A]: '11:DELIVRD 13:ENROUTE' },
				{ [A]: '10:DELIVRD 11:DELIVRD 12:UNDELIV 13:ENROUTE' },
				{ [A]: '13:DELIVRD 12:UNDELIV 11:DELIVRD 10:DELIVRD' },
			],
			[[], [`${A} 10 ->DELIVRD`, `${A} 12 ->UNDELIV`], [`${A} 13 ENROUTE>DELIVRD`]],
		],
		[
			'paged: each answer lists another part of the batch',
			{ mode: 'changes' },
			[
				{ [A]: '11:ENROUTE 12:ENROUTE' },
				{ [A]: '13:ENROUTE 14:DELIVRD' },
				{ [A]: '11:DELIVRD 12:ENROUTE' },
				{ [A]: '13:UNDELIV 14:DELIVRD' },
			],
			[
				[],
				[`${A} 13 ->ENROUTE`, `${A} 14 ->DELIVRD`],
				[`${A} 11 ENROUTE>DELIVRD`],
				[`${A} 13 ENROUTE>UNDELIV`],
			],
		],
		[
			'an answer that lists every known report as final leaves one out: it still comes',
			{ mode: 'final' },
			[
				{ [A]: '11:ENROUTE 12:ENROUTE' },
				{ [A]: '11:DELIVRD' },
				{ [A]: '11:DELIVRD 12:ENROUTE' },
				{ [A]: '11:DELIVRD 12:UNDELIV' },
			],
			[[], [`${A} 11 ENROUTE>DELIVRD`], [], [`${A} 12 ENROUTE>UNDELIV`]],
		],
		[
			'all final on one read, and a new one on the next: the batch is not finished early',
			{ mode: 'final' },
			[{ [A]: '11:ENROUTE' }, { [A]: '11:DELIVRD' }, { [A]: '12:REJECTD 11:DELIVRD' }],
			[[], [`${A} 11 ENROUTE>DELIVRD`], [`${A} 12 ->REJECTD`]],
		],
	])('%s', (_, options, polls, emitted) => {
		expect(run(options, polls).emitted).toEqual(emitted);
	});

	it('remembers every destination while the batch is unfinished, and nothing once it is', () => {
		const first = run({ mode: 'final' }, [{ [A]: '11:DELIVRD 12:ENROUTE 012:ENROUTE' }]);
		expect(knownCount(first.state.b[A])).toBe(3);
		expect(pendingOf(first.state.b[A])).toEqual(
			new Map([
				['12', 'ENROUTE'],
				['012', 'ENROUTE'],
			]),
		);
		const done = run(
			{ mode: 'final' },
			[{ [A]: '11:DELIVRD 12:DELIVRD 012:DELIVRD' }, { [A]: '11:DELIVRD 12:DELIVRD 012:DELIVRD' }],
			undefined,
			first.state,
		);
		expect(done.state.b).toEqual({});
		expect(done.state.f).toEqual([A]);
	});
});

// ---------------------------------------------------------------- failures

describe('failed reads', () => {
	const A = '1000000000000000001';
	const B = '1000000000000000002';
	const options: WatchOptions = { mode: 'final', statuses: [], emitExisting: false };

	function failing(state: WatchState, kind: FailureKind = 'failed') {
		return advance(
			state,
			[A, B],
			new Map([[B, reportsOf('21:ENROUTE')]]),
			options,
			new Map([[A, kind]]),
		);
	}

	it('count per batch, leave its state as it was, and are due at 3, 6, 12… in a row', () => {
		let state = run({}, [{ [A]: '11:ENROUTE', [B]: '21:ENROUTE' }]).state;
		const before = state.b[A];
		const due: boolean[] = [];
		for (let poll = 1; poll <= 12; poll++) {
			const step = failing(state);
			due.push(step.failing.includes(A));
			state = step.state;
		}
		expect(state.b[A]).toBe(before);
		expect(state.e).toEqual({ [A]: 12 });
		expect(due.map((d, i) => (d ? i + 1 : 0)).filter(Boolean)).toEqual([3, 6, 12]);
		const read = advance(state, [A, B], new Map([[A, reportsOf('11:DELIVRD')]]), options);
		expect(read.state.e).toBeUndefined();
		expect(read.reports.map((e) => e.report.msisdn)).toEqual(['11']);
	});

	it('an unknown batch is due at once', () => {
		expect(failureIsDue(1, 'unknown')).toBe(true);
		expect(failureIsDue(1, 'failed')).toBe(false);
		expect(failing(run({}, [{ [B]: '21:ENROUTE' }], [A, B]).state, 'unknown').failing).toEqual([A]);
	});
});

describe('turns: a poll that stops before reading every batch', () => {
	const ids = ['b0', 'b1', 'b2', 'b3', 'b4'];
	const options: WatchOptions = { mode: 'final', statuses: [], emitExisting: true };
	/** One poll that reads only the first `reads` batches of its order, all final now. */
	function poll(state: WatchState, reads: number) {
		const order = batchesToPoll(state, ids);
		const fetched = new Map(
			order.slice(0, reads).map((id) => [id, reportsOf(`${id.slice(1)}1:DELIVRD`)]),
		);
		return { order, step: advance(state, ids, fetched, options) };
	}

	it('is carried on by the next poll from the first batch it did not read, then from the start', () => {
		const first = poll(emptyState(), 2);
		expect(first.order).toEqual(ids);
		expect(first.step.state.t).toBe(2);
		const second = poll(first.step.state, 2);
		expect(second.order).toEqual(['b2', 'b3', 'b4', 'b0', 'b1']);
		expect(second.step.state.t).toBe(4);
		const third = poll(second.step.state, 5);
		expect(third.order).toEqual(['b4', 'b0', 'b1', 'b2', 'b3']);
		expect(third.step.state.t).toBeUndefined();
		// Each final report was emitted once, whichever poll read its batch first.
		const emitted = [first, second, third].flatMap(({ step }) =>
			step.reports.map((e) => e.report.msisdn),
		);
		expect(emitted.sort()).toEqual(['01', '11', '21', '31', '41']);
	});

	it('skips finished batches, and starts from the start when its place is gone', () => {
		const state: WatchState = { ...emptyState(), g: 3, f: ['b1'], t: 3 };
		expect(batchesToPoll(state, ids)).toEqual(['b3', 'b4', 'b0', 'b2']);
		expect(batchesToPoll({ ...state, t: 9 }, ids)).toEqual(['b0', 'b2', 'b3', 'b4']);
	});

	it('is stored, read back, and said in words', () => {
		const { step } = poll(emptyState(), 2);
		const stored = JSON.parse(JSON.stringify(step.state)) as unknown;
		expect(readState(stored).t).toBe(2);
		expect(describeState(stored)).toContain(
			'The last poll stopped before reading every batch: the next one starts its reads at the 3rd of Batch IDs.',
		);
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

	it.each(runs)('seed %i, %s: every status change is emitted once, none lost', (seed, order) => {
		const next = seeded(seed);
		const arrange = <T>(list: T[]) => (order === 'shuffled' ? shuffle(list, next) : list);
		const batches = ['1', '2', '3'];
		// Each message moves ENROUTE → maybe QUEUED → a final status at random times.
		const timeline = new Map<string, Array<{ msisdn: string; at: number[]; statuses: string[] }>>();
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
			state = step.state;
		}
		expect(new Set(seen).size).toBe(seen.length);
		// Every final status was emitted (all messages are final by t = 30).
		for (const [batchId, messages] of timeline) {
			for (const m of messages)
				expect(seen).toContain(`${batchId}:${m.msisdn}:${m.statuses[m.statuses.length - 1]}`);
		}
		expect(state.f.sort()).toEqual(batches);
	});
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
		expect(pendingOf(step.state.b['1']).size).toBe(100_000);
	});
});
