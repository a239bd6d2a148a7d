/**
 * What earlier runs of a campaign settled, read by a run that continues it, in a few calls at its
 * start: the checkpoint they reached (`at`, then `through` for this run's own first requests),
 * the exception facts behind it (only in segments marked `dirty`), and the facts of the requests
 * after it. A fact holds only for a run whose requests up to it are the same (positions.ts): when
 * the earlier run got further than this run's requests match, nothing is guessed (RowsDiffer).
 */
import {
	accepted,
	at,
	claim,
	complete,
	dirty,
	exceptionsOf,
	family,
	opened,
	pos,
	released,
	STEP,
	through,
	unknown,
	UNKNOWN_CAUSES,
	type UnknownCause,
} from './facts';
import type { Positions } from './positions';
import type { RecordStore } from './store';

/** What the record says of a request an earlier run handled. */
export type Settled =
	| { outcome: 'accepted' }
	| { outcome: 'unknown'; cause: UnknownCause }
	| { outcome: 'released' };

export interface Earlier {
	/** Every request before this position is settled: accepted, unless `states` says otherwise. */
	through: number;
	/** Requests the earlier runs settled otherwise than accepted, and those after `through`. */
	states: Map<number, Settled>;
	/** The facts the record holds of each request in `states`, to be rewritten or taken away. */
	facts: Map<number, string[]>;
	/** The checkpoints whose segment is marked dirty. */
	dirtySegments: Set<number>;
	complete: boolean;
}

/** The earlier run got further than this run's requests are the same as its own. */
export class RowsDiffer {
	constructor(
		/** The first position whose request this run cannot match, as far as the record tells. */
		readonly position: number,
	) {}
}

/** Undefined: the record holds nothing of the campaign. */
export async function readEarlier(
	store: RecordStore,
	c: string,
	positions: Positions,
): Promise<Earlier | RowsDiffer | undefined> {
	const checkpoints = Array.from(
		{ length: Math.floor(positions.length / STEP) + 1 },
		(_, j) => j * STEP,
	);
	const first = positions.length > 0 ? positions.hash(0) : '';
	const heads = await store.hasNow([
		opened(c),
		family(c, first),
		complete(c),
		...checkpoints.map((k) => at(c, k)),
	]);
	if (!heads.has(opened(c))) return undefined;
	const reached = checkpoints.filter((k) => heads.has(at(c, k))).at(-1);
	if (!heads.has(family(c, first))) return new RowsDiffer(0);
	// The earlier run got past every checkpoint of these requests: they are fewer than its own.
	if (reached === undefined) return new RowsDiffer(positions.length);
	const earlier: Earlier = {
		through: reached,
		states: new Map(),
		facts: new Map(),
		dirtySegments: new Set(),
		complete: heads.has(complete(c)),
	};
	const differ = await readWindow(store, c, positions, earlier);
	if (differ) return differ;
	await readExceptions(store, c, positions, earlier);
	return earlier;
}

/** The checkpoint's own `through`, the dirty segments behind it, the requests after it. */
async function readWindow(
	store: RecordStore,
	c: string,
	positions: Positions,
	earlier: Earlier,
): Promise<RowsDiffer | undefined> {
	const k = earlier.through;
	const segmentEnds = Array.from({ length: k / STEP }, (_, j) => (j + 1) * STEP);
	const window = Array.from(
		{ length: Math.max(0, Math.min(positions.length, k + 2 * STEP) - k) },
		(_, n) => k + n,
	);
	const asked = [
		through(c, positions.prefix(k)),
		...segmentEnds.map((end) => dirty(c, positions.prefix(end))),
		...window.flatMap((i) => [pos(c, i), ...factsOf(c, positions.hash(i))]),
	];
	const found = await store.hasNow(asked);
	if (!found.has(through(c, positions.prefix(k)))) return new RowsDiffer(Math.max(0, k - STEP));
	for (const end of segmentEnds) {
		if (found.has(dirty(c, positions.prefix(end)))) earlier.dirtySegments.add(end);
	}
	for (const i of window) {
		const facts = factsOf(c, positions.hash(i)).filter((fact) => found.has(fact));
		if (found.has(pos(c, i)) && !facts.includes(claim(c, positions.hash(i)))) {
			return new RowsDiffer(i);
		}
		if (found.has(pos(c, i))) facts.push(pos(c, i));
		note(earlier, i, facts, c, positions.hash(i));
	}
	return undefined;
}

/** The exception facts of the dirty segments behind the checkpoint, request by request. */
async function readExceptions(
	store: RecordStore,
	c: string,
	positions: Positions,
	earlier: Earlier,
): Promise<void> {
	const requests = [...earlier.dirtySegments].flatMap((end) =>
		Array.from({ length: STEP }, (_, n) => end - STEP + n),
	);
	if (requests.length === 0) return;
	const found = await store.hasNow(requests.flatMap((i) => exceptionsOf(c, positions.hash(i))));
	for (const i of requests) {
		const facts = exceptionsOf(c, positions.hash(i)).filter((fact) => found.has(fact));
		note(earlier, i, facts, c, positions.hash(i));
	}
}

/** What a request's facts say: accepted first, then in doubt, then certainly not sent. */
export function settledBy(facts: readonly string[], c: string, h: string): Settled | undefined {
	if (facts.includes(accepted(c, h))) return { outcome: 'accepted' };
	const cause = UNKNOWN_CAUSES.find((why) => facts.includes(unknown(why, c, h)));
	if (cause) return { outcome: 'unknown', cause };
	if (facts.includes(released(c, h))) return { outcome: 'released' };
	if (facts.includes(claim(c, h))) return { outcome: 'unknown', cause: 'unanswered' };
	return undefined;
}

function note(earlier: Earlier, i: number, facts: string[], c: string, h: string): void {
	const settled = settledBy(facts, c, h);
	if (facts.length > 0) earlier.facts.set(i, facts);
	if (settled) earlier.states.set(i, settled);
}

/** Every fact a request may have, in the order settledBy reads them. */
function factsOf(c: string, h: string): string[] {
	return [claim(c, h), accepted(c, h), ...exceptionsOf(c, h)];
}
