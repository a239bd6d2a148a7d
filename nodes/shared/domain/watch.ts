/**
 * Change detection for the Bulk SMS Trigger, as plain functions: old state + the reports just
 * fetched → what to emit + the new state. No n8n imports; the node only fetches and stores.
 *
 * Why the state looks like this: a final report never changes again (seed, section 3), so only
 * pending reports need remembering. A report that is final and not remembered as pending was
 * handled by an earlier poll. The state is therefore the set of pending MSISDNs per unfinished
 * batch, plus how many reports the batch had, so that reports the service adds later are seen as
 * new rather than as handled.
 */
import { isFinal } from './status';

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
	/** On the first poll of a batch, emit what is already there (else it is the baseline). */
	emitExisting: boolean;
}

/** Per unfinished batch. Field names are short on purpose: this is stored for every batch. */
export interface BatchState {
	/** Reports the batch had; those listed after this index next time are new. */
	n: number;
	/** ENROUTE reports whose MSISDN is a plain number: sorted, delta-encoded, base 36 (see encodeNumbers). */
	p: string;
	/** Every other pending report: [msisdn, status] (leading zeros, non-digits, other pending codes). */
	x?: Array<[string, string]>;
}

export interface WatchState {
	v: 1;
	/** Unfinished batches by batch id. */
	b: Record<string, BatchState>;
	/** Finished batches (all reports final): never requested again while watched. */
	f: string[];
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
}

/**
 * A trigger watches at most this many batches. The finished record only holds watched ids, so
 * it never exceeds this either, and no watched finished batch is ever forgotten and re-polled.
 */
export const MAX_WATCHED_BATCHES = 1000;

const PLAIN_NUMBER = /^[1-9]\d{0,14}$/; // at most 15 digits: always below 2^53, so exact as a number
const PENDING = 'ENROUTE';

export function emptyState(): WatchState {
	return { v: 1, b: {}, f: [] };
}

/**
 * Reads stored static data defensively: it may come from an older version or be hand-edited.
 * Anything unreadable starts over (a new baseline) rather than failing every poll.
 */
export function readState(stored: unknown): WatchState {
	if (!isRecord(stored) || stored.v !== 1 || !isRecord(stored.b) || !Array.isArray(stored.f)) {
		return emptyState();
	}
	const batches: Record<string, BatchState> = {};
	for (const [batchId, value] of Object.entries(stored.b)) {
		const batch = readBatchState(value);
		if (batch) batches[batchId] = batch;
	}
	const finished = stored.f.filter((id): id is string => typeof id === 'string');
	return { v: 1, b: batches, f: finished };
}

/** What encodeNumbers writes: base-36 gaps joined by commas. */
const ENCODED_NUMBERS = /^([0-9a-z]+(,[0-9a-z]+)*)?$/;

/** A damaged entry is dropped, so its batch starts over as new rather than losing reports. */
function readBatchState(value: unknown): BatchState | undefined {
	if (!isRecord(value) || !Number.isSafeInteger(value.n) || (value.n as number) < 0)
		return undefined;
	if (typeof value.p !== 'string' || !ENCODED_NUMBERS.test(value.p)) return undefined;
	const batch: BatchState = { n: value.n as number, p: value.p };
	if (Array.isArray(value.x)) {
		batch.x = value.x
			.filter((pair): pair is [string, string] => Array.isArray(pair) && pair.length === 2)
			.map(([msisdn, status]) => [String(msisdn), String(status)]);
	}
	return batch;
}

/** The watched batches that still need a request: finished ones are never asked for again. */
export function batchesToPoll(state: WatchState, watched: readonly string[]): string[] {
	const finished = new Set(state.f);
	return unique(watched).filter((batchId) => !finished.has(batchId));
}

/**
 * The whole step of one poll. `fetched` holds the reports of every batch batchesToPoll named;
 * the returned state is new (the old one is not touched), so the caller can store it only
 * once everything succeeded.
 */
export function advance<R extends StatusReport>(
	state: WatchState,
	watched: readonly string[],
	fetched: ReadonlyMap<string, readonly R[]>,
	options: WatchOptions,
): WatchResult<R> {
	const watchedSet = new Set(watched);
	const result: WatchResult<R> = { reports: [], finished: [], state: emptyState() };
	// Ids no longer watched are forgotten: their state would only grow.
	const finished = state.f.filter((batchId) => watchedSet.has(batchId));
	for (const batchId of batchesToPoll(state, watched)) {
		const reports = fetched.get(batchId);
		const old = state.b[batchId];
		if (!reports) {
			if (old) result.state.b[batchId] = old; // not fetched this time: unchanged
			continue;
		}
		const step = advanceBatch(batchId, old, reports, options);
		result.reports.push(...step.emissions);
		if (step.next) {
			result.state.b[batchId] = step.next;
			continue;
		}
		finished.push(batchId);
		if (!(old === undefined && !options.emitExisting))
			result.finished.push({ batchId, reports: [...reports] });
	}
	result.state.f = finished.slice(-MAX_WATCHED_BATCHES);
	if (options.mode === 'batchFinal') result.reports = [];
	else result.finished = [];
	return result;
}

interface BatchStep<R extends StatusReport> {
	emissions: Array<ReportEmission<R>>;
	/** undefined when every report is final: the batch is finished. */
	next?: BatchState;
}

function advanceBatch<R extends StatusReport>(
	batchId: string,
	old: BatchState | undefined,
	reports: readonly R[],
	options: WatchOptions,
): BatchStep<R> {
	const baseline = old === undefined;
	const before = old ? decodePending(old) : new Map<string, string>();
	const known = old?.n ?? 0;
	const pending = new Map<string, string>();
	const emissions: Array<ReportEmission<R>> = [];
	for (const [msisdn, { report, first }] of byDestination(reports)) {
		const previous = before.get(msisdn);
		before.delete(msisdn);
		const status = report.status;
		if (!isFinal(status)) pending.set(msisdn, status);
		// Known, not pending before: its final status was handled by an earlier poll.
		if (previous === undefined && first < known) continue;
		if (previous === status || (baseline && !options.emitExisting)) continue;
		if (wanted(status, options))
			emissions.push({ batchId, report, previousStatus: previous ?? null });
	}
	// A pending report missing from this answer is still pending: forgetting it would lose its outcome.
	for (const [msisdn, status] of before) pending.set(msisdn, status);
	const count = Math.max(known, reports.length);
	if (pending.size === 0 && count > 0) return { emissions };
	return { emissions, next: { ...encodePending(pending), n: count } };
}

/** Whether a report in this status is emitted under these options (also what the sample shows). */
export function wanted(status: string, options: WatchOptions): boolean {
	if (options.mode === 'final' && !isFinal(status)) return false;
	return options.statuses.length === 0 || options.statuses.includes(status);
}

/**
 * One entry per MSISDN. The Send node never repeats a destination, but a service might list a
 * number twice; the trigger then follows it as one destination: pending while any of its
 * reports is, afterwards the last report. `first` is where it first appears in the list.
 */
function byDestination<R extends StatusReport>(
	reports: readonly R[],
): Map<string, { report: R; first: number }> {
	const entries = new Map<string, { report: R; first: number }>();
	reports.forEach((report, index) => {
		const seen = entries.get(report.msisdn);
		if (!seen) entries.set(report.msisdn, { report, first: index });
		else if (isFinal(seen.report.status)) seen.report = report;
	});
	return entries;
}

// ---------------------------------------------------------------- compact pending sets

export function encodePending(pending: ReadonlyMap<string, string>): Omit<BatchState, 'n'> {
	const plain: number[] = [];
	const other: Array<[string, string]> = [];
	for (const [msisdn, status] of pending) {
		if (status === PENDING && PLAIN_NUMBER.test(msisdn)) plain.push(Number(msisdn));
		else other.push([msisdn, status]);
	}
	const encoded: Omit<BatchState, 'n'> = { p: encodeNumbers(plain) };
	if (other.length > 0) encoded.x = other.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
	return encoded;
}

export function decodePending(batch: Pick<BatchState, 'p' | 'x'>): Map<string, string> {
	const pending = new Map<string, string>();
	for (const number of decodeNumbers(batch.p)) pending.set(String(number), PENDING);
	for (const [msisdn, status] of batch.x ?? []) pending.set(msisdn, status);
	return pending;
}

/**
 * Sorted, each written as its difference from the previous one in base 36, comma-separated:
 * a list of mobile numbers from one campaign is dense, so most gaps take 2 to 4 characters.
 */
export function encodeNumbers(numbers: readonly number[]): string {
	const sorted = [...new Set(numbers)].sort((a, b) => a - b);
	let previous = 0;
	return sorted
		.map((number) => {
			const gap = number - previous;
			previous = number;
			return gap.toString(36);
		})
		.join(',');
}

export function decodeNumbers(encoded: string): number[] {
	if (encoded === '') return [];
	let total = 0;
	return encoded.split(',').map((gap) => (total += parseInt(gap, 36)));
}

// ---------------------------------------------------------------- helpers

function unique(values: readonly string[]): string[] {
	return [...new Set(values)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
