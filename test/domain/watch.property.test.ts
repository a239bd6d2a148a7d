/**
 * The trigger's change detection against any sequence of answers a service may give: reports
 * left out and listed again, in any order, batches that fail to be read, and n8n restarting
 * (in-memory static data dropped back to what was saved, which is only after a poll emitted).
 * Seeded and bounded, so that a failure is the same on every run.
 */
import fc from 'fast-check';

import {
	advance,
	batchesToPoll,
	type FailureKind,
	type StatusReport,
	type WatchOptions,
} from '../../nodes/shared/domain/watch';
import { emptyState, type WatchState } from '../../nodes/shared/domain/watchState';
import type { TriggerOn } from '../../nodes/shared/domain/reportFilter';

const FINALS = ['DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED', 'ACCEPTD', 'DELETED', 'UNKNOWN'];
const BATCHES = ['1000000000000000001', '9007199254740993'];
/** Plain numbers, and forms that are not (leading zero, '+', 16 digits): both encodings. */
const MSISDNS = [
	'447700900100',
	'447700900101',
	'447700900250',
	'447799999999',
	'33612345678',
	'0447700900100',
	'+447700900102',
	'4477009001234567',
	'1',
];

interface Message {
	batchId: string;
	msisdn: string;
	/** Statuses in order: ENROUTE, maybe another pending code, then one final status. */
	statuses: string[];
	/** When each status starts (non-decreasing poll numbers). */
	at: number[];
}

const message = (batchId: string, msisdn: string) =>
	fc
		.record({
			queued: fc.boolean(),
			final: fc.constantFrom(...FINALS),
			steps: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 3, maxLength: 3 }),
			// One in four messages was final before the trigger first looked (a pasted batch).
			before: fc.integer({ min: 0, max: 3 }),
		})
		.map(({ queued, final, steps, before }): Message => {
			const statuses = ['ENROUTE', ...(queued ? ['QUEUED'] : []), final];
			const at = steps.slice(0, statuses.length).sort((a, b) => a - b);
			if (before === 0) at.fill(0);
			at[0] = 0;
			return { batchId, msisdn, statuses, at };
		});

const campaign = fc.record({
	messages: fc
		.tuple(
			fc.subarray(MSISDNS, { minLength: 1 }),
			fc.subarray(MSISDNS, { minLength: 1, maxLength: 4 }),
		)
		.chain(([a, b]) =>
			fc.tuple(
				fc.tuple(...a.map((msisdn) => message(BATCHES[0], msisdn))),
				fc.tuple(...b.map((msisdn) => message(BATCHES[1], msisdn))),
			),
		)
		.map(([a, b]) => [...a, ...b]),
	polls: fc.array(
		fc.record({
			/** Which reports this answer leaves out (a bit per message). */
			omit: fc.integer({ min: 0, max: 2 ** 12 - 1 }),
			omitting: fc.boolean(),
			order: fc.integer({ min: 0, max: 1_000_000 }),
			fails: fc.constantFrom<FailureKind | 'none'>('none', 'none', 'none', 'failed', 'unknown'),
			restartBefore: fc.boolean(),
		}),
		{ minLength: 1, maxLength: 20 },
	),
	mode: fc.constantFrom<TriggerOn>('changes', 'final'),
	emitExisting: fc.boolean(),
});

function statusAt(m: Message, poll: number): string {
	let status = m.statuses[0];
	m.at.forEach((start, i) => {
		if (start <= poll) status = m.statuses[i];
	});
	return status;
}

/** A stable shuffle from a number, so that fast-check can shrink it. */
function reorder<T>(list: T[], seed: number): T[] {
	return list
		.map((item, i) => ({ item, key: (seed * 7919 + i * 104729) % 1000003 }))
		.sort((a, b) => a.key - b.key)
		.map(({ item }) => item);
}

describe('trigger state, any sequence of answers', () => {
	it('emits each observed status change once: none lost, none twice, across restarts', () => {
		fc.assert(
			fc.property(campaign, ({ messages, polls, mode, emitExisting }) => {
				const options: WatchOptions = { mode, statuses: [], emitExisting };
				let state: WatchState = emptyState();
				let saved: WatchState = state;
				const emitted = new Map<string, string[]>();
				/** What the answers the watcher consumed showed, per destination, collapsed. */
				const observed = new Map<string, string[]>();
				const baseline = new Set<string>();
				polls.forEach((poll, index) => {
					if (index > 0 && poll.restartBefore) state = saved;
					const fetched = new Map<string, StatusReport[]>();
					const failed = new Map<string, FailureKind>();
					for (const batchId of batchesToPoll(state, BATCHES)) {
						if (poll.fails !== 'none' && batchId === BATCHES[index % 2]) {
							failed.set(batchId, poll.fails);
							continue;
						}
						const listed = messages.filter(
							(m, i) => m.batchId === batchId && !(poll.omitting && (poll.omit >> i) & 1),
						);
						fetched.set(
							batchId,
							reorder(listed, poll.order).map((m) => ({
								msisdn: m.msisdn,
								status: statusAt(m, index),
							})),
						);
						// The trigger's first poll is its baseline, unless it emits what it finds, or
						// the batch is already finished (it would never be reported otherwise).
						const finished =
							listed.length > 0 && listed.every((m) => FINALS.includes(statusAt(m, index)));
						for (const m of listed) {
							const key = `${batchId} ${m.msisdn}`;
							const status = statusAt(m, index);
							if (state.g === 0 && !emitExisting && !finished) baseline.add(key);
							const seen = observed.get(key) ?? [];
							if (seen[seen.length - 1] !== status) observed.set(key, [...seen, status]);
						}
					}
					const step = advance(state, BATCHES, fetched, options, failed);
					for (const e of step.reports) {
						const key = `${e.batchId} ${e.report.msisdn}`;
						emitted.set(key, [...(emitted.get(key) ?? []), e.report.status]);
					}
					state = step.state;
					// n8n saves the static data when a poll emits, and after the activation poll.
					if (step.reports.length > 0 || index === 0) saved = state;
				});
				for (const [key, statuses] of observed) {
					const expected = baseline.has(key) ? statuses.slice(1) : statuses;
					const shown = mode === 'final' ? expected.filter((s) => FINALS.includes(s)) : expected;
					expect([key, emitted.get(key) ?? []]).toEqual([key, shown]);
				}
				for (const key of emitted.keys()) expect(observed.has(key)).toBe(true);
			}),
			{ seed: 20261123, numRuns: 400 },
		);
	});
});
