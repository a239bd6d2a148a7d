/**
 * Change detection for the Bulk SMS Trigger, as plain functions: old state + the reports just
 * fetched → what to emit + the new state. No n8n imports; the node only fetches and stores.
 *
 * Why the state looks like this: a final report never changes again (seed, section 3), so only
 * pending reports need remembering. A report that is final and not remembered as pending was
 * handled by an earlier poll, unless the service added it since. The state is therefore the set
 * of pending MSISDNs per unfinished batch, plus how many destinations the batch had and a
 * fingerprint of their order, so that reports the service adds later are seen as new rather than
 * as handled. The interface promises no order, so the order is checked, not assumed (see place).
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
	/** Destinations known so far: each is pending below, or final and handled by a poll. */
	n: number;
	/**
	 * Fingerprint of the first n MSISDNs as last listed: while an answer starts with them, the
	 * ones after are new. '' when no answer listed every known destination (nothing matches it).
	 * Absent in states stored before it existed: their order is trusted, as it was then.
	 */
	h?: string;
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
	/** What this poll could not decide safely, one line per batch, for the node to log. */
	warnings: string[];
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
/** What fingerprint writes (a 32-bit number in base 36), or '' for "no trusted order". */
const FINGERPRINT = /^[0-9a-z]{0,7}$/;

/** A damaged entry is dropped, so its batch starts over as new rather than losing reports. */
function readBatchState(value: unknown): BatchState | undefined {
	if (!isRecord(value) || !Number.isSafeInteger(value.n) || (value.n as number) < 0)
		return undefined;
	if (typeof value.p !== 'string' || !ENCODED_NUMBERS.test(value.p)) return undefined;
	if (value.h !== undefined && (typeof value.h !== 'string' || !FINGERPRINT.test(value.h)))
		return undefined;
	const batch: BatchState = { n: value.n as number, p: value.p };
	if (value.h !== undefined) batch.h = value.h;
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
	const result: WatchResult<R> = {
		reports: [],
		finished: [],
		state: emptyState(),
		warnings: [],
	};
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
		if (step.warning) result.warnings.push(step.warning);
		if (step.next) {
			result.state.b[batchId] = step.next;
			continue;
		}
		finished.push(batchId);
		if (!(old === undefined && !options.emitExisting))
			result.finished.push({ batchId, reports: [...reports] });
	}
	result.state.f = finished.slice(-MAX_WATCHED_BATCHES);
	if (options.mode === 'batchFinal') {
		// A summary lists every report, so an unplaced one is lost to no one.
		result.reports = [];
		result.warnings = [];
	} else result.finished = [];
	return result;
}

interface BatchStep<R extends StatusReport> {
	emissions: Array<ReportEmission<R>>;
	/** undefined when every report is final: the batch is finished. */
	next?: BatchState;
	warning?: string;
}

function advanceBatch<R extends StatusReport>(
	batchId: string,
	old: BatchState | undefined,
	reports: readonly R[],
	options: WatchOptions,
): BatchStep<R> {
	const destinations = byDestination(reports);
	const order = [...destinations.keys()];
	const before = old ? decodePending(old) : new Map<string, string>();
	const placement = old ? place(batchId, old, order, destinations, before, options) : FIRST_SIGHT;
	let added = placement.uncounted ?? 0;
	const pending = new Map<string, string>();
	const emissions: Array<ReportEmission<R>> = [];
	for (const [msisdn, report] of destinations) {
		const previous = before.get(msisdn);
		before.delete(msisdn);
		const status = report.status;
		if (!isFinal(status)) pending.set(msisdn, status);
		if (previous === undefined) {
			if (!placement.isNew(report)) continue; // its final status was handled by an earlier poll
			added++;
		}
		if (previous === status || (old === undefined && !options.emitExisting)) continue;
		if (wanted(status, options))
			emissions.push({ batchId, report, previousStatus: previous ?? null });
	}
	// A pending report missing from this answer is still pending: forgetting it would lose its outcome.
	for (const [msisdn, status] of before) pending.set(msisdn, status);
	const known = (old?.n ?? 0) + added;
	const warning = placement.warning;
	if (pending.size === 0 && known > 0) return { emissions, warning };
	const next: BatchState = { n: known, ...encodePending(pending) };
	const fingerprintNext = nextOrder(old, order, known, added);
	if (fingerprintNext !== undefined) next.h = fingerprintNext;
	return { emissions, next, warning };
}

/** Which reports not remembered as pending are new; the rest were handled by an earlier poll. */
interface Placement {
	isNew(report: StatusReport): boolean;
	/** New destinations among those not treated as new (when they cannot be told apart). */
	uncounted?: number;
	warning?: string;
}

const FIRST_SIGHT: Placement = { isNew: () => true };

/**
 * While the answer starts with the known destinations in their known order, anything after them
 * is new. When the order changed, positions say nothing, and counting decides (byCounting).
 */
function place(
	batchId: string,
	old: BatchState,
	order: readonly string[],
	destinations: ReadonlyMap<string, StatusReport>,
	before: ReadonlyMap<string, string>,
	options: WatchOptions,
): Placement {
	const sameOrder =
		old.h === undefined || (order.length >= old.n && fingerprint(order, old.n) === old.h);
	if (!sameOrder) return byCounting(batchId, old, destinations, before, options);
	const added = new Set(order.slice(old.n));
	return { isNew: (report) => added.has(report.msisdn) };
}

/**
 * The known destinations that are not pending (n minus the pending count) were final and
 * handled, and stay final, so they are among the final reports not remembered now: if there
 * are exactly that many, none is new; if none was handled, all are. Otherwise some are new and
 * which cannot be told: none is emitted (a repeat would be worse than a gap the log names).
 * A pending report not remembered cannot be a handled one, so it is new. This assumes that an
 * answer in a new order still lists every destination that was final before.
 */
function byCounting(
	batchId: string,
	old: BatchState,
	destinations: ReadonlyMap<string, StatusReport>,
	before: ReadonlyMap<string, string>,
	options: WatchOptions,
): Placement {
	const handled = Math.max(0, old.n - before.size);
	if (handled === 0) return FIRST_SIGHT;
	const candidates = [...destinations.values()].filter(
		(report) => !before.has(report.msisdn) && isFinal(report.status),
	);
	const pendingOnly: Placement = { isNew: (report) => !isFinal(report.status) };
	if (candidates.length === handled) return pendingOnly;
	const uncounted = Math.max(0, candidates.length - handled);
	if (!candidates.some((report) => wanted(report.status, options)))
		return { ...pendingOnly, uncounted };
	const warning = `Batch ${batchId}: the service listed its reports in a new order, so ${candidates.length} final reports could not be placed as new or already emitted. None of them was emitted, so that none is emitted twice.`;
	return { ...pendingOnly, uncounted, warning };
}

/**
 * The order to trust next time: this answer's, when it lists every known destination (then the
 * known ones are exactly these); else the old one while nothing was added; else none ('').
 */
function nextOrder(
	old: BatchState | undefined,
	order: readonly string[],
	known: number,
	added: number,
): string | undefined {
	if (order.length === known) return fingerprint(order);
	return added === 0 ? old?.h : '';
}

/**
 * 32-bit FNV-1a over the first `count` MSISDNs joined by ',' (UTF-16 code units, which are the
 * bytes for digits), in base 36: at most 7 characters per batch, and an order that changed is
 * missed only by a 1-in-4-billion collision.
 */
export function fingerprint(msisdns: readonly string[], count = msisdns.length): string {
	let hash = 0x811c9dc5;
	const mix = (code: number) => (hash = Math.imul(hash ^ code, 0x01000193));
	for (let i = 0; i < count; i++) {
		if (i > 0) mix(44); // ','
		const msisdn = msisdns[i];
		for (let c = 0; c < msisdn.length; c++) mix(msisdn.charCodeAt(c));
	}
	return (hash >>> 0).toString(36);
}

/** Whether a report in this status is emitted under these options (also what the sample shows). */
export function wanted(status: string, options: WatchOptions): boolean {
	if (options.mode === 'final' && !isFinal(status)) return false;
	return options.statuses.length === 0 || options.statuses.includes(status);
}

/**
 * One entry per MSISDN, in the order each first appears: positions count destinations, not
 * reports. The Send node never repeats a destination, but a service might list a number twice;
 * the trigger then follows it as one destination: pending while any of its reports is,
 * afterwards the last report.
 */
function byDestination<R extends StatusReport>(reports: readonly R[]): Map<string, R> {
	const entries = new Map<string, R>();
	for (const report of reports) {
		const seen = entries.get(report.msisdn);
		if (!seen || isFinal(seen.status)) entries.set(report.msisdn, report);
	}
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
