/**
 * Change detection for the Bulk SMS Trigger, as plain functions: old state + the reports just
 * fetched → what to emit + the new state. No n8n imports; the node only fetches and stores.
 *
 * Why the state looks like this: the interface promises no order and no completeness of a
 * get_status answer (a service may build its list lazily, page it, or reorder it), so positions
 * and counts prove nothing. The state therefore remembers every destination seen per unfinished
 * batch, and which of them are still pending: a report whose destination was never seen is new,
 * wherever it appears and whatever its status, and a known final one was handled. Plain numbers
 * (almost all of them) are stored as one sorted, delta-encoded base-36 string plus run lengths
 * of the pending ones over that list, so a 100,000-destination batch takes a few hundred KB at
 * most, and a finished batch is reduced to its id.
 */
import { isFinal } from './status';
import { isRecord } from './values';

export type EmitMode = 'changes' | 'final' | 'batchFinal';

/** What change detection needs of a report; RawReport and DeliveryReport both fit. */
export interface StatusReport {
	msisdn: string;
	status: string;
}

export interface WatchOptions {
	mode: EmitMode;
	/** Emit only reports now in one of these statuses; empty emits all. */
	statuses: readonly string[];
	/**
	 * On the trigger's first poll, emit what is already there (else it is the baseline). A batch
	 * first read in a later poll, or already finished when first read, always emits what it finds.
	 */
	emitExisting: boolean;
}

/** Per unfinished batch. Field names are short on purpose: this is stored for every batch. */
export interface BatchState {
	/** Every plain-number destination seen: sorted, delta-encoded, base 36 (encodeNumbers). */
	k: string;
	/**
	 * Which of k are pending: run lengths over k in base 36, alternating not pending / pending,
	 * starting with not pending ('' when none is pending).
	 */
	r: string;
	/** Every other destination seen (leading zeros, '+', letters), sorted. */
	o?: string[];
	/** Pending destinations whose status is not ENROUTE, and pending ones of o: [msisdn, status]. */
	x?: Array<[string, string]>;
	/** 1 when the last read found every known destination final: a second such read finishes it. */
	d?: 1;
	/** 1 for a batch carried over from the first state version, which kept only pending numbers. */
	a?: 1;
}

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
}

export interface ReportEmission<R extends StatusReport> {
	batchId: string;
	report: R;
	/** The status this poll replaced, or null for a report seen for the first time. */
	previousStatus: string | null;
}

export interface BatchFinished<R extends StatusReport> {
	batchId: string;
	/** Every report of the batch as last fetched. */
	reports: R[];
}

export interface WatchResult<R extends StatusReport> {
	reports: Array<ReportEmission<R>>;
	finished: Array<BatchFinished<R>>;
	state: WatchState;
	/** Whether state differs from the one given (else the node need not store it). */
	changed: boolean;
	/** Failed batches that are due to be reported through n8n's error path now. */
	failing: string[];
}

/** How a batch failed to be read in one poll. */
export type FailureKind = 'failed' | 'unknown';

/**
 * A trigger watches at most this many batches (a campaign of one batch per contact). The
 * finished record only holds watched ids, so it never exceeds this either.
 */
export const MAX_WATCHED_BATCHES = 10_000;

/** A batch is reported after this many failed polls in a row, then after twice as many, and so on. */
const FAILURES_BEFORE_REPORT = 3;

const PLAIN_NUMBER = /^[1-9]\d{0,14}$/; // at most 15 digits: always below 2^53, so exact as a number
const PENDING = 'ENROUTE';
/** What lookups return for a destination seen before whose final status was handled. */
const HANDLED = '';
/** Positions of destinations that are not among the known plain numbers (see locateAll). */
const NEW_NUMBER = -1;
const OTHER = -2;
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
	return state;
}

/**
 * How many entries a list as encodeNumbers and encodeRuns write it holds (base-36 numbers
 * joined by commas), or undefined when it is not one. Checked and counted in one loop: a regular
 * expression runs out of backtracking stack on a batch of millions of numbers, and split would
 * build a string per entry only to count them.
 */
function encodedListLength(text: string): number | undefined {
	if (text === '') return 0;
	let entries = 1;
	for (let at = 0; at < text.length; at++) {
		const code = text.charCodeAt(at);
		if (code === 44) {
			if (at === 0 || at === text.length - 1 || text.charCodeAt(at - 1) === 44) return undefined;
			entries++;
		} else if (!((code >= 48 && code <= 57) || (code >= 97 && code <= 122))) return undefined;
	}
	return entries;
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
		const known = new Known();
		for (const [msisdn, status] of pending) known.add(msisdn, status);
		state.b[batchId] = { ...known.encode(), a: 1 };
	}
	return state;
}

// ---------------------------------------------------------------- one poll

/** The watched batches that still need a request: finished ones are never asked for again. */
export function batchesToPoll(state: WatchState, watched: readonly string[]): string[] {
	const finished = new Set(state.f);
	return unique(watched).filter((batchId) => !finished.has(batchId));
}

/**
 * The whole step of one poll. `fetched` holds the reports of the batches that were read;
 * `failed` the ones that could not be: they keep their state and count one more failure. The
 * returned state is new (the old one is not touched), with the generation moved on.
 */
export function advance<R extends StatusReport>(
	state: WatchState,
	watched: readonly string[],
	fetched: ReadonlyMap<string, readonly R[]>,
	options: WatchOptions,
	failed: ReadonlyMap<string, FailureKind> = new Map(),
): WatchResult<R> {
	const watchedSet = new Set(watched);
	const next: WatchState = { ...emptyState(), g: state.g + 1 };
	const result: WatchResult<R> = {
		reports: [],
		finished: [],
		state: next,
		changed: false,
		failing: [],
	};
	// Ids no longer watched are forgotten: their state would only grow.
	const finished = state.f.filter((batchId) => watchedSet.has(batchId));
	let changed = finished.length !== state.f.length || state.g === 0;
	const firstPoll = state.g === 0;
	for (const batchId of batchesToPoll(state, watched)) {
		const reports = fetched.get(batchId);
		const old = state.b[batchId];
		if (!reports) {
			if (old) next.b[batchId] = old; // not read this time: unchanged
			continue;
		}
		const emitFirst =
			!firstPoll || options.emitExisting || (old === undefined && allFinal(reports));
		const step = advanceBatch(batchId, old, reports, options, emitFirst);
		result.reports.push(...step.emissions);
		changed ||= step.changed;
		if (step.next) {
			next.b[batchId] = step.next;
			continue;
		}
		changed = true;
		finished.push(batchId);
		if (emitFirst || old !== undefined) result.finished.push({ batchId, reports: [...reports] });
	}
	changed ||= Object.keys(state.b).some((batchId) => !watchedSet.has(batchId));
	next.f = finished.slice(-MAX_WATCHED_BATCHES);
	const failures = countFailures(state, watchedSet, fetched, failed);
	if (failures.counts) next.e = failures.counts;
	changed ||= failures.changed;
	result.failing = failures.due;
	if (options.mode === 'batchFinal') result.reports = [];
	else result.finished = [];
	result.changed = changed;
	return result;
}

/**
 * Failed polls in a row per batch: one more for each failed batch, cleared for each read one,
 * kept for the others. A batch is due to be reported at 3, 6, 12, 24… failures in a row, so a
 * batch that stays broken is named again and again, more and more rarely, and an unknown one
 * (404) at once as well: the user most likely pasted a wrong id.
 */
function countFailures(
	state: WatchState,
	watched: ReadonlySet<string>,
	fetched: ReadonlyMap<string, unknown>,
	failed: ReadonlyMap<string, FailureKind>,
): { counts?: Record<string, number>; due: string[]; changed: boolean } {
	const counts: Record<string, number> = {};
	let changed = false;
	for (const [batchId, count] of Object.entries(state.e ?? {})) {
		if (!watched.has(batchId) || fetched.has(batchId)) changed = true;
		else if (!failed.has(batchId)) counts[batchId] = count;
	}
	const due: string[] = [];
	for (const [batchId, kind] of failed) {
		const count = (state.e?.[batchId] ?? 0) + 1;
		counts[batchId] = count;
		changed = true;
		if (failureIsDue(count, kind)) due.push(batchId);
	}
	return { counts: Object.keys(counts).length > 0 ? counts : undefined, due, changed };
}

export function failureIsDue(count: number, kind: FailureKind): boolean {
	if (kind === 'unknown' && count === 1) return true;
	const ratio = count / FAILURES_BEFORE_REPORT;
	return Number.isInteger(ratio) && (ratio & (ratio - 1)) === 0;
}

interface BatchStep<R extends StatusReport> {
	emissions: Array<ReportEmission<R>>;
	/** undefined when the batch is finished. */
	next?: BatchState;
	changed: boolean;
}

function advanceBatch<R extends StatusReport>(
	batchId: string,
	old: BatchState | undefined,
	reports: readonly R[],
	options: WatchOptions,
	emitFirst: boolean,
): BatchStep<R> {
	const known = old ? Known.decode(old) : new Known();
	// A state carried over from version 1 knows only its pending numbers: the final reports it
	// does not know were handled by that version (or are lost to it), so they are not emitted.
	const adopting = old?.a === 1;
	const emissions: Array<ReportEmission<R>> = [];
	let added = 0;
	let changed = old === undefined || adopting;
	// Answers list each destination once; one that lists a number twice is read per destination.
	let listed: readonly R[] = reports;
	let positions = known.locateAll(listed);
	if (!positions) {
		listed = [...byDestination(reports).values()];
		positions = known.locateAll(listed) as Int32Array;
	}
	for (let i = 0; i < listed.length; i++) {
		const report = listed[i];
		const { msisdn, status } = report;
		const previous = known.statusAt(positions[i], msisdn);
		if (previous === status || (previous === HANDLED && isFinal(status))) continue;
		changed = true;
		if (previous === undefined) {
			known.add(msisdn, status);
			added++;
			if (!emitFirst || (adopting && isFinal(status))) continue;
		} else known.setAt(positions[i], msisdn, status);
		// A handled destination listed as pending again is followed quietly until it is final.
		if (previous === HANDLED) continue;
		if (wanted(status, options))
			emissions.push({ batchId, report, previousStatus: previous ?? null });
	}
	// A pending report missing from this answer stays pending: forgetting it would lose its outcome.
	const allFinal = known.size > 0 && known.pendingCount === 0;
	// One answer that lists everything as final may still leave out a destination it lists later
	// (a service that pages or builds its list lazily): the batch finishes on the second such read.
	if (allFinal && ((old?.d === 1 && added === 0) || (old === undefined && !emitFirst)))
		return { emissions, changed: true };
	const next = known.encode();
	if (allFinal) next.d = 1;
	if (Boolean(next.d) !== Boolean(old?.d)) changed = true;
	return { emissions, next, changed };
}

/**
 * A batch whose every report is final when the trigger first reads it (ids pasted from a campaign
 * that has ended) will never change again: as a baseline it would never be reported at all.
 */
function allFinal(reports: readonly StatusReport[]): boolean {
	return reports.length > 0 && reports.every((report) => isFinal(report.status));
}

/** Whether a report in this status is emitted under these options (also what the sample shows). */
export function wanted(status: string, options: WatchOptions): boolean {
	if (options.mode === 'final' && !isFinal(status)) return false;
	return options.statuses.length === 0 || options.statuses.includes(status);
}

/**
 * One entry per MSISDN, in the order each first appears. The Send node never repeats a
 * destination, but a service might list a number twice; the trigger then follows it as one
 * destination: pending while any of its reports is, afterwards the last report.
 */
function byDestination<R extends StatusReport>(reports: readonly R[]): Map<string, R> {
	const entries = new Map<string, R>();
	for (const report of reports) {
		const seen = entries.get(report.msisdn);
		if (!seen || isFinal(seen.status)) entries.set(report.msisdn, report);
	}
	return entries;
}

// ---------------------------------------------------------------- the known destinations

/**
 * The destinations of one batch, decoded for one poll: plain numbers in a sorted array with a
 * pending flag each (looked up by binary search, no map of 100,000 strings), the rest in a map.
 */
class Known {
	private numbers: number[] = [];
	private pending: Uint8Array = new Uint8Array(0);
	/** Plain numbers seen for the first time in this poll, packed with their flag (see pack). */
	private addedNumbers: number[] = [];
	/** Status of each pending destination whose status is not ENROUTE, and each non-plain one. */
	private statuses = new Map<string, string>();
	/** Non-plain destinations: the status while pending, HANDLED when final. */
	private others = new Map<string, string>();
	private encodedNumbers: string | undefined;
	pendingCount = 0;

	static decode(batch: BatchState): Known {
		const known = new Known();
		known.numbers = decodeNumbers(batch.k);
		known.encodedNumbers = batch.k;
		known.pending = decodeRuns(batch.r, known.numbers.length);
		for (const flag of known.pending) known.pendingCount += flag;
		for (const msisdn of batch.o ?? []) known.others.set(msisdn, HANDLED);
		for (const [msisdn, status] of batch.x ?? []) {
			if (known.others.has(msisdn)) {
				known.others.set(msisdn, status);
				known.pendingCount++;
			} else known.statuses.set(msisdn, status);
		}
		return known;
	}

	get size(): number {
		return this.numbers.length + this.addedNumbers.length + this.others.size;
	}

	/**
	 * Where each report's destination is: its index among the known plain numbers, NEW_NUMBER,
	 * or OTHER (not a plain number). undefined when the answer lists a destination twice.
	 */
	locateAll(reports: readonly StatusReport[]): Int32Array | undefined {
		const positions = new Int32Array(reports.length);
		const listed = new Uint8Array(this.numbers.length);
		const newNumbers = new Set<number>();
		const others = new Set<string>();
		for (let i = 0; i < reports.length; i++) {
			const msisdn = reports[i].msisdn;
			if (!PLAIN_NUMBER.test(msisdn)) {
				if (others.has(msisdn)) return undefined;
				others.add(msisdn);
				positions[i] = OTHER;
				continue;
			}
			const number = Number(msisdn);
			const index = this.indexOf(number);
			if (index >= 0) {
				if (listed[index] === 1) return undefined;
				listed[index] = 1;
				positions[i] = index;
			} else {
				if (newNumbers.has(number)) return undefined;
				newNumbers.add(number);
				positions[i] = NEW_NUMBER;
			}
		}
		return positions;
	}

	/** The pending status, HANDLED for a known final destination, undefined for an unknown one. */
	statusAt(position: number, msisdn: string): string | undefined {
		if (position === OTHER) return this.others.get(msisdn);
		if (position === NEW_NUMBER) return undefined;
		if (this.pending[position] === 0) return HANDLED;
		return this.statuses.size === 0 ? PENDING : (this.statuses.get(msisdn) ?? PENDING);
	}

	add(msisdn: string, status: string): void {
		const pending = isFinal(status) ? 0 : 1;
		this.pendingCount += pending;
		if (PLAIN_NUMBER.test(msisdn)) {
			this.addedNumbers.push(pack(Number(msisdn), pending));
			this.encodedNumbers = undefined;
			if (pending && status !== PENDING) this.statuses.set(msisdn, status);
		} else this.others.set(msisdn, pending ? status : HANDLED);
	}

	/** A known destination's new status, at the position locateAll gave. */
	setAt(position: number, msisdn: string, status: string): void {
		const pending = isFinal(status) ? 0 : 1;
		if (position === OTHER) {
			this.pendingCount += pending - (this.others.get(msisdn) === HANDLED ? 0 : 1);
			this.others.set(msisdn, pending ? status : HANDLED);
			return;
		}
		this.pendingCount += pending - this.pending[position];
		this.pending[position] = pending;
		if (pending && status !== PENDING) this.statuses.set(msisdn, status);
		else this.statuses.delete(msisdn);
	}

	encode(): BatchState {
		this.mergeAdded();
		// numbers is sorted and without repeats: encodeNumbers' own sort would be wasted on it.
		const k = this.encodedNumbers ?? encodeSorted(this.numbers);
		const batch: BatchState = { k, r: encodeRuns(this.pending) };
		const x: Array<[string, string]> = [...this.statuses];
		for (const [msisdn, status] of this.others) if (status !== HANDLED) x.push([msisdn, status]);
		if (this.others.size > 0) batch.o = [...this.others.keys()].sort(byText);
		if (x.length > 0) batch.x = x.sort(([a], [b]) => byText(a, b));
		return batch;
	}

	private indexOf(number: number): number {
		let low = 0;
		let high = this.numbers.length - 1;
		while (low <= high) {
			const middle = (low + high) >>> 1;
			const value = this.numbers[middle];
			if (value === number) return middle;
			if (value < number) low = middle + 1;
			else high = middle - 1;
		}
		return -1;
	}

	/** Puts this poll's new numbers into the sorted list, flags moving with their numbers. */
	private mergeAdded(): void {
		if (this.addedNumbers.length === 0) return;
		const all = new Float64Array(this.numbers.length + this.addedNumbers.length);
		this.numbers.forEach((number, i) => (all[i] = pack(number, this.pending[i])));
		all.set(this.addedNumbers, this.numbers.length);
		all.sort(); // a typed array sorts numerically, natively: 100,000 numbers in a few ms
		this.numbers = Array.from(all, (packed) => Math.floor(packed / 2));
		this.pending = Uint8Array.from(all, (packed) => packed % 2);
		this.addedNumbers = [];
	}
}

/** A plain number (below 10^15) and its pending flag as one exact double: number × 2 + flag. */
function pack(number: number, flag: number): number {
	return number * 2 + flag;
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

// ---------------------------------------------------------------- compact encodings

/**
 * Sorted, each written as its difference from the previous one in base 36, comma-separated:
 * a list of mobile numbers from one campaign is dense, so most gaps take 2 to 4 characters.
 */
export function encodeNumbers(numbers: readonly number[]): string {
	return encodeSorted([...new Set(numbers)].sort((a, b) => a - b));
}

/** encodeNumbers on numbers already sorted, each once. */
function encodeSorted(sorted: readonly number[]): string {
	let previous = 0;
	let text = '';
	for (const number of sorted) {
		text += (text === '' ? '' : ',') + (number - previous).toString(36);
		previous = number;
	}
	return text;
}

export function decodeNumbers(encoded: string): number[] {
	if (encoded === '') return [];
	let total = 0;
	return encoded.split(',').map((gap) => (total += parseInt(gap, 36)));
}

/**
 * Flags as run lengths in base 36, alternating 0-runs and 1-runs, starting with a 0-run (0 when
 * the first flag is set); trailing 0s are left out. All pending is "0,<n>"; none is ''.
 */
export function encodeRuns(flags: Uint8Array): string {
	const runs: string[] = [];
	let current = 0;
	let length = 0;
	let end = flags.length;
	while (end > 0 && flags[end - 1] === 0) end--;
	for (let i = 0; i < end; i++) {
		if (flags[i] === current) length++;
		else {
			runs.push(length.toString(36));
			current = flags[i];
			length = 1;
		}
	}
	if (end > 0) runs.push(length.toString(36));
	return runs.join(',');
}

/** How many destinations the runs cover, without building them (a damaged one may claim billions). */
function runsLength(encoded: string): number {
	if (encoded === '') return 0;
	return encoded.split(',').reduce((sum, run) => sum + parseInt(run, 36), 0);
}

/** The flags of `size` destinations; runs past the end are cut off (fill stops at the length). */
export function decodeRuns(encoded: string, size: number): Uint8Array {
	const flags = new Uint8Array(size);
	if (encoded === '') return flags;
	let position = 0;
	encoded.split(',').forEach((text, i) => {
		const run = parseInt(text, 36);
		if (i % 2 === 1) flags.fill(1, position, position + run);
		position += run;
	});
	return flags;
}

// ---------------------------------------------------------------- helpers

function unique(values: readonly string[]): string[] {
	return [...new Set(values)];
}

function strings(values: unknown[]): string[] {
	return values.filter((value): value is string => typeof value === 'string');
}

function pairs(values: unknown[]): Array<[string, string]> {
	return values
		.filter((pair): pair is [unknown, unknown] => Array.isArray(pair) && pair.length === 2)
		.map(([msisdn, status]) => [String(msisdn), String(status)]);
}

function byText(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}
