/**
 * The trigger's compact codec (nodes/shared/domain/watchCodec.ts) against the plain form it
 * stands for, a map from each destination to its status: destinations of every form, added and
 * changed over several polls, each poll's state stored as JSON and decoded by the next, read
 * back the same. Seeded and bounded.
 */
import fc from 'fast-check';

import { isFinal } from '../../nodes/shared/domain/status';
import {
	decodeNumbers,
	decodeRuns,
	encodeNumbers,
	encodeRuns,
	HANDLED,
	SeenDestinations,
	type BatchState,
} from '../../nodes/shared/domain/watchCodec';
import { knownCount, pendingOf } from '../../nodes/shared/domain/watchState';

const SEED = 20261125;

/** Dense numbers of one campaign, far ones, the extremes of 15 digits, and other forms. */
const destination = fc.oneof(
	fc.integer({ min: 0, max: 300 }).map((n) => String(447700900000 + n)),
	fc.integer({ min: 1, max: 999_999_999_999_999 }).map(String),
	fc.constantFrom('1', '999999999999999', '100000000000000'),
	fc.constantFrom('0447700900100', '+447700900101', '4477009001234567', '44 7700', 'abc'),
);
const status = fc.constantFrom('ENROUTE', 'ENROUTE', 'QUEUED', 'DELIVRD', 'UNDELIV', 'ACCEPTD');
const poll = fc.array(fc.tuple(destination, status), { maxLength: 40 });

/** One poll through the codec, as change detection drives it: decode, look up, update, encode. */
function throughCodec(stored: BatchState | undefined, reports: Map<string, string>): BatchState {
	const known = stored ? SeenDestinations.decode(stored) : new SeenDestinations();
	const listed = [...reports].map(([msisdn, s]) => ({ msisdn, status: s }));
	const positions = known.locateAll(listed) as Int32Array;
	listed.forEach(({ msisdn, status: s }, i) => {
		if (known.statusAt(positions[i], msisdn) === undefined) known.add(msisdn, s);
		else known.setAt(positions[i], msisdn, s);
	});
	// Stored in n8n's database as JSON, and read back by the next poll.
	return JSON.parse(JSON.stringify(known.encode())) as BatchState;
}

describe('the compact codec reads back as the plain map it stands for', () => {
	it('destinations of every form over several polls: known, pending, and their statuses', () => {
		fc.assert(
			fc.property(fc.array(poll, { minLength: 1, maxLength: 4 }), (polls) => {
				const plain = new Map<string, string>();
				let stored: BatchState | undefined;
				for (const updates of polls) {
					// An answer lists each destination once (change detection makes it so).
					const reports = new Map(updates);
					stored = throughCodec(stored, reports);
					for (const [msisdn, s] of reports) plain.set(msisdn, s);

					const pending = [...plain].filter(([, s]) => !isFinal(s));
					expect(pendingOf(stored)).toEqual(new Map(pending));
					expect(knownCount(stored)).toBe(plain.size);
					const known = SeenDestinations.decode(stored);
					expect(known.pendingCount).toBe(pending.length);
					const all = [...plain.keys()].map((msisdn) => ({ msisdn }));
					const positions = known.locateAll(all) as Int32Array;
					all.forEach(({ msisdn }, i) => {
						const s = plain.get(msisdn) as string;
						expect([msisdn, known.statusAt(positions[i], msisdn)]).toEqual([
							msisdn,
							isFinal(s) ? HANDLED : s,
						]);
					});
				}
			}),
			{ seed: SEED, numRuns: 1500 },
		);
	});

	it('numbers and flags round trip', () => {
		fc.assert(
			fc.property(
				fc.array(fc.integer({ min: 1, max: 999_999_999_999_999 }), { maxLength: 60 }),
				fc.array(fc.constantFrom(0, 1), { maxLength: 60 }),
				(numbers, flags) => {
					expect(decodeNumbers(encodeNumbers(numbers))).toEqual(
						[...new Set(numbers)].sort((a, b) => a - b),
					);
					expect([...decodeRuns(encodeRuns(Uint8Array.from(flags)), flags.length)]).toEqual(flags);
				},
			),
			{ seed: SEED, numRuns: 2000 },
		);
	});
});
