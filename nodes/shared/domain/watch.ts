/**
 * Change detection for the Bulk SMS Trigger, as plain functions: old state + the reports just
 * fetched → what to emit + the new state. No n8n imports; the node only fetches and stores.
 * The state and why it looks as it does: watchState.ts; its compact encoding: watchCodec.ts.
 */
import { passes, triggerFilter, type TriggerOn } from './reportFilter';
import { isFinal } from './status';
import { HANDLED, SeenDestinations, type BatchState } from './watchCodec';
import { emptyState, type WatchState } from './watchState';

/** What change detection needs of a report; RawReport and DeliveryReport both fit. */
export interface StatusReport {
	msisdn: string;
	status: string;
}

export interface WatchOptions {
	mode: TriggerOn;
	/** Emit only reports now in one of these statuses; empty emits all. */
	statuses: readonly string[];
	/**
	 * On the trigger's first poll, emit what is already there (else it is the baseline). A batch
	 * first read in a later poll, or already finished when first read, always emits what it finds.
	 */
	emitExisting: boolean;
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

// ---------------------------------------------------------------- one poll

/**
 * The watched batches that still need a request, in the order a poll reads them: from where the
 * last poll stopped (its turn, `t`), then from the start of Batch IDs. A poll may stop before the
 * end (it reads a bounded number of reports); the next one carries on from there, so that every
 * batch is read in its turn. Finished batches are never asked for again.
 */
export function batchesToPoll(state: WatchState, watched: readonly string[]): string[] {
	const finished = new Set(state.f);
	const list = unique(watched);
	const from = Math.min(state.t ?? 0, list.length);
	return [...list.slice(from), ...list.slice(0, from)].filter((batchId) => !finished.has(batchId));
}

/** Where the next poll starts: the first batch of this poll's order it did not read, if any. */
function nextTurn(
	order: readonly string[],
	watched: readonly string[],
	read: (batchId: string) => boolean,
): number | undefined {
	const first = order.find((batchId) => !read(batchId));
	return first === undefined ? undefined : unique(watched).indexOf(first);
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
	const order = batchesToPoll(state, watched);
	const turn = nextTurn(order, watched, (batchId) => fetched.has(batchId) || failed.has(batchId));
	if (turn) next.t = turn;
	if ((turn || undefined) !== state.t) changed = true;
	for (const batchId of order) {
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
	const known = old ? SeenDestinations.decode(old) : new SeenDestinations();
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
	return passes(triggerFilter(options.mode, options.statuses), status);
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

// ---------------------------------------------------------------- helpers

function unique(values: readonly string[]): string[] {
	return [...new Set(values)];
}
