/**
 * What the Bulk SMS Trigger stores in the workflow's static data (key `watch` of the node's
 * static data), how it is read back, carried over from the first version, and described in words
 * (describeState: `npx tsx scripts/describe-state.ts < state.json`, docs/trigger-state.md).
 *
 * Why the state looks like this: the interface promises no order and no completeness of a
 * get_status answer (a service may build its list lazily, page it, or reorder it), so positions
 * and counts prove nothing. The state therefore remembers every destination seen per unfinished
 * batch, and which of them are still pending: a report whose destination was never seen is new,
 * wherever it appears and whatever its status, and a known final one was handled. Plain numbers
 * (almost all of them) are stored as one sorted, delta-encoded base-36 string plus run lengths
 * of the pending ones over that list (watchCodec.ts), so a 100,000-destination batch takes a few
 * hundred KB at most, and a finished batch is reduced to its id.
 */
import {
	decodeNumbers,
	decodeRuns,
	encodedListLength,
	SeenDestinations,
	PENDING,
	runsLength,
	type BatchState,
} from './watchCodec';
import { isRecord } from './values';

export interface WatchState {
	v: 2;
	/**
	 * Generation: one more each time a poll stores a new state. A poll that finds it moved while
	 * it was fetching is stale (another poll stored its result meanwhile), without comparing states.
	 */
	g: number;
	/** Unfinished batches by batch id. */
	b: Record<string, BatchState>;
	/** Finished batches (all reports final, twice): never requested again while watched. */
	f: string[];
	/** Batches whose last reads failed: how many polls in a row (see failureIsDue). */
	e?: Record<string, number>;
	/**
	 * Failing batches due to be reported ([batch id, last error]) by the next poll, first thing,
	 * because the poll that found them had items to emit (a poll that throws emits nothing).
	 */
	q?: Array<[string, string]>;
	/**
	 * Turn: where in Batch IDs (an index) the next poll starts reading, when the last one stopped
	 * before reading every unfinished batch (one poll reads a bounded number of reports).
	 */
	t?: number;
}

export function emptyState(): WatchState {
	return { v: 2, g: 0, b: {}, f: [] };
}

// ---------------------------------------------------------------- reading stored data

/**
 * Reads stored static data defensively: it may come from an older version or be hand-edited.
 * Anything unreadable starts over (a new baseline) rather than failing every poll.
 */
export function readState(stored: unknown): WatchState {
	if (!isRecord(stored) || !isRecord(stored.b) || !Array.isArray(stored.f)) return emptyState();
	if (stored.v === 1) return fromVersion1(stored.b, stored.f);
	if (stored.v !== 2) return emptyState();
	const state: WatchState = {
		v: 2,
		g: Number.isSafeInteger(stored.g) ? (stored.g as number) : 0,
		b: {},
		f: strings(stored.f),
	};
	for (const [batchId, value] of Object.entries(stored.b)) {
		const batch = readBatchState(value);
		if (batch) state.b[batchId] = batch;
	}
	if (isRecord(stored.e)) {
		const counts = Object.entries(stored.e).filter(([, n]) => Number.isSafeInteger(n));
		if (counts.length > 0) state.e = Object.fromEntries(counts) as Record<string, number>;
	}
	if (Array.isArray(stored.q) && stored.q.length > 0) state.q = pairs(stored.q);
	if (Number.isSafeInteger(stored.t) && (stored.t as number) > 0) state.t = stored.t as number;
	return state;
}

/** A damaged entry is dropped, so its batch starts over as new rather than losing reports. */
function readBatchState(value: unknown): BatchState | undefined {
	if (!isRecord(value) || typeof value.k !== 'string' || typeof value.r !== 'string')
		return undefined;
	const count = encodedListLength(value.k);
	if (count === undefined || encodedListLength(value.r) === undefined) return undefined;
	if (runsLength(value.r) > count) return undefined;
	const batch: BatchState = { k: value.k, r: value.r };
	if (Array.isArray(value.o)) batch.o = strings(value.o);
	if (Array.isArray(value.x)) batch.x = pairs(value.x);
	if (value.d === 1) batch.d = 1;
	if (value.a === 1) batch.a = 1;
	return batch;
}

/**
 * The first version kept only pending numbers (p, x) and trusted positions for the rest. Its
 * pending numbers carry over; the other destinations of the next answer are taken as handled
 * (a = 1), as that version would have judged them, and from then on every destination is known.
 */
function fromVersion1(batches: Record<string, unknown>, finished: unknown[]): WatchState {
	const state: WatchState = { v: 2, g: 1, b: {}, f: strings(finished) };
	for (const [batchId, value] of Object.entries(batches)) {
		if (!isRecord(value) || typeof value.p !== 'string' || encodedListLength(value.p) === undefined)
			continue;
		const pending = new Map<string, string>();
		for (const number of decodeNumbers(value.p)) pending.set(String(number), PENDING);
		for (const [msisdn, status] of Array.isArray(value.x) ? pairs(value.x) : [])
			pending.set(msisdn, status);
		const known = new SeenDestinations();
		for (const [msisdn, status] of pending) known.add(msisdn, status);
		state.b[batchId] = { ...known.encode(), a: 1 };
	}
	return state;
}

/** Pending destinations of a stored batch with their statuses (for tests and measurements). */
export function pendingOf(batch: BatchState): Map<string, string> {
	const pending = new Map<string, string>();
	const numbers = decodeNumbers(batch.k);
	const flags = decodeRuns(batch.r, numbers.length);
	numbers.forEach((number, i) => {
		if (flags[i] === 1) pending.set(String(number), PENDING);
	});
	for (const [msisdn, status] of batch.x ?? []) pending.set(msisdn, status);
	return pending;
}

/** How many destinations a stored batch knows (for tests and measurements). */
export function knownCount(batch: BatchState): number {
	return (encodedListLength(batch.k) ?? 0) + (batch.o?.length ?? 0);
}

function strings(values: unknown[]): string[] {
	return values.filter((value): value is string => typeof value === 'string');
}

function pairs(values: unknown[]): Array<[string, string]> {
	return values
		.filter((pair): pair is [unknown, unknown] => Array.isArray(pair) && pair.length === 2)
		.map(([msisdn, status]) => [String(msisdn), String(status)]);
}

// ---------------------------------------------------------------- in words

const FEW = 10;

/**
 * A stored state in words, for a person reading n8n's database (docs/trigger-state.md): what
 * the next poll starts from, as readState reads it. `stored` is the `watch` entry of the node's
 * static data.
 */
export function describeState(stored: unknown): string {
	const readable = isRecord(stored) && isRecord(stored.b) && Array.isArray(stored.f);
	if (!readable || (stored.v !== 1 && stored.v !== 2)) {
		return 'Not a Bulk SMS Trigger state that can be read: the next poll starts over with nothing known, as a first poll does (what it finds then is its baseline).';
	}
	const state = readState(stored);
	const batches = Object.entries(state.b);
	const dropped = Object.keys(stored.b as object).filter((batchId) => !(batchId in state.b));
	return [
		`Bulk SMS Trigger state, version 2${stored.v === 1 ? ' (stored by the first version, which kept only pending numbers; carried over)' : ''}, generation ${state.g} (one more for each state a poll stored).`,
		`Unfinished batches: ${batches.length}.`,
		...batches.map(([batchId, batch]) => `- ${describeBatch(batchId, batch)}`),
		`Finished batches (not asked for again while watched): ${state.f.length}${state.f.length > 0 ? `: ${few(state.f)}` : ''}.`,
		...Object.entries(state.e ?? {}).map(
			([batchId, count]) =>
				`Failing: batch ${batchId} could not be read in ${count} poll(s) in a row.`,
		),
		...(state.q ?? []).map(
			([batchId, error]) =>
				`To be reported first thing by the next poll: batch ${batchId} (${error}).`,
		),
		state.t
			? `The last poll stopped before reading every batch: the next one starts its reads at the ${ordinal(state.t + 1)} of Batch IDs.`
			: '',
		dropped.length > 0
			? `Damaged entries left out (those batches start over, as if never read): ${few(dropped)}.`
			: '',
	]
		.filter(Boolean)
		.join('\n');
}

function describeBatch(batchId: string, batch: BatchState): string {
	const pending = pendingOf(batch);
	const known = knownCount(batch);
	const byStatus = new Map<string, number>();
	for (const status of pending.values()) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
	const statuses = [...byStatus].map(([status, n]) => `${count(n)} ${status}`).join(', ');
	return [
		`batch ${batchId}: ${count(known)} destination(s) seen, ${count(pending.size)} pending${statuses ? ` (${statuses})` : ''}, ${count(known - pending.size)} final (handled: emitted, filtered out, or part of the first poll's baseline).`,
		batch.d === 1
			? 'The last read found every destination final: the next read that finds them all final again, with none new, finishes the batch.'
			: '',
		batch.a === 1
			? 'Carried over from the first version: a final report of a destination it does not know is taken as handled, not emitted.'
			: '',
	]
		.filter(Boolean)
		.join(' ');
}

const count = (n: number) => n.toLocaleString('en-US');

function ordinal(n: number): string {
	const tens = n % 100;
	const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
	return `${count(n)}${suffix}`;
}

function few(values: readonly string[]): string {
	const more = values.length - FEW;
	return values.slice(0, FEW).join(', ') + (more > 0 ? ` and ${count(more)} more` : '');
}
