import {
	advance,
	batchesToPoll,
	decodeNumbers,
	decodePending,
	emptyState,
	encodeNumbers,
	encodePending,
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
	state: WatchState;
}

/** Runs polls in order, each answering the batches the watcher asks for from the given fetches. */
function run(options: Partial<WatchOptions>, polls: Poll[], watched?: string[]): Run {
	const full: WatchOptions = { mode: 'changes', statuses: [], emitExisting: false, ...options };
	let state = emptyState();
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

describe('readState', () => {
	it.each<[string, unknown]>([
		['nothing stored', undefined],
		['another version', { v: 2, b: {}, f: [] }],
		['not an object', 'watch'],
		['broken batches', { v: 1, b: [], f: [] }],
		['a damaged pending list', { v: 1, b: { '1': { n: 2, p: 'a,!' } }, f: [] }],
		['a negative report count', { v: 1, b: { '1': { n: -1, p: 'a' } }, f: [] }],
		['a fractional report count', { v: 1, b: { '1': { n: 1.5, p: 'a' } }, f: [] }],
	])('starts over for %s', (_, stored) => {
		expect(readState(stored)).toEqual(emptyState());
	});

	it('keeps a valid state and drops unreadable entries', () => {
		const stored = {
			v: 1,
			b: { '1': { n: 2, p: 'a', x: [['07', 'QUEUED'], 'junk'] }, '2': { n: 'x' } },
			f: ['3', 4],
		};
		expect(readState(stored)).toEqual({
			v: 1,
			b: { '1': { n: 2, p: 'a', x: [['07', 'QUEUED']] } },
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
		expect(next.state).toEqual({ v: 1, b: { '3': { n: 1, p: (31).toString(36) } }, f: [] });
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

// ---------------------------------------------------------------- exactly once, generated

describe('exactly once over generated histories', () => {
	const FINALS = ['DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED', 'ACCEPTD'];

	it.each([1, 2, 3, 4, 5, 6, 7, 8])(
		'seed %i: every status change is emitted once, none lost',
		(seed) => {
			const next = seeded(seed);
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
			for (let t = 0; t <= 35; t += 1 + Math.floor(next() * 3)) {
				const fetched = new Map<string, StatusReport[]>();
				for (const batchId of batchesToPoll(state, batches)) {
					const failed = next() < 0.2; // a failed poll: no state change at all
					if (failed) continue;
					fetched.set(
						batchId,
						timeline.get(batchId)!.map((m) => ({ msisdn: m.msisdn, status: statusAt(m, t) })),
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
		},
	);
});

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
