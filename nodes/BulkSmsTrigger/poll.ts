import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../shared/domain/body';
import { readBatchIdList } from '../shared/domain/campaign';
import type { TriggerOn } from '../shared/domain/reportFilter';
import { shapeReport, summariseReports, type DeliveryReport } from '../shared/domain/reports';
import type { RawReport } from '../shared/domain/responses';
import {
	advance,
	batchesToPoll,
	MAX_WATCHED_BATCHES,
	type BatchFinished,
	type FailureKind,
	type ReportEmission,
	type WatchOptions,
	wanted,
} from '../shared/domain/watch';
import { readState, type WatchState } from '../shared/domain/watchState';
import {
	fetchMany,
	readAccount,
	restated,
	serviceSettings,
	type Account,
	type NodeError,
} from '../shared/transport';
import { accountFailure } from './account';

/** Key of the trigger's memory in the node's static data. */
const STATE_KEY = 'watch';
/**
 * "Fetch test event" shows sample data from the first 20 watched batches, 5 reports of each at
 * most: every batch a user pasted shows up, and 10,000 batches or a 100,000-report batch cannot
 * stall the editor.
 */
const SAMPLE_BATCHES = 20;
const SAMPLE_PER_BATCH = 5;
/** Failing batches named one by one in an error; more are counted. */
const NAMED_IN_ERROR = 10;

interface Settings extends WatchOptions {
	format: WireFormat;
}

type Shape = (raw: RawReport) => DeliveryReport;

/**
 * One poll: read every unfinished watched batch, compare with the stored state, emit the
 * changes. What n8n does with a poll decides the design (docs/decisions.md, "Trigger: campaign scale"):
 * - items returned are emitted and the static data saved; a poll that throws emits nothing and
 *   saves nothing; a poll that returns nothing may not be saved either. So the state only moves
 *   past what is returned, and whatever a quiet poll changes is safe to compute again.
 * - a batch that cannot be read keeps its state and counts a failure; the batches that were
 *   read go on. A batch failing again and again (or unknown) is named by throwing, but only in
 *   a poll with nothing to emit: when the poll has items, it emits them and the next poll throws
 *   first thing, before reading anything.
 */
export async function pollBatches(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const watched = watchedBatchIds.call(this);
	const settings = readSettings.call(this);
	const account = await readAccount.call(this);
	const { timeZone } = await serviceSettings.call(this, 0, account);
	const shape: Shape = (raw) => shapeReport(raw, timeZone);
	if (this.getMode() === 'manual')
		return await sample.call(this, watched, settings, shape, account);

	const staticData = this.getWorkflowStaticData('node');
	const startedAt = generationOf(staticData[STATE_KEY]);
	const state = readState(staticData[STATE_KEY]);
	if (state.q) {
		// Named once: the names leave the state (in memory; a restart before the next save names
		// them again, which repeats an error, never an item).
		const { q: due, ...rest } = state;
		staticData[STATE_KEY] = { ...rest, g: state.g + 1 } as unknown as IDataObject;
		throw failingBatches.call(this, due, state, watched.length);
	}
	const read = await fetchAll.call(this, batchesToPoll(state, watched), settings.format, account);
	// n8n starts a poll on every tick even if the last one is still waiting on the service. If
	// another poll stored its result meanwhile, this one is stale: emitting it would repeat the
	// other's items, so it yields and the next poll goes on from the newer state.
	if (generationOf(staticData[STATE_KEY]) !== startedAt) return null;
	// The account or its address failing is said at once, every poll, leaving the state as it is.
	const accountError = accountFailure(read.errors, read.fetched.size);
	if (accountError) throw accountError;
	const step = advance(state, watched, read.fetched, settings, read.failed);
	const items = [
		...step.reports.map((emission) => reportItem(emission, shape)),
		...step.finished.map((batch) => summaryItem(batch, settings, shape)),
	];
	const failing = step.failing.map((batchId): [string, string] => [
		batchId,
		read.errors.get(batchId)?.message ?? 'could not be read',
	]);
	if (items.length > 0) {
		if (failing.length > 0) step.state.q = failing;
		staticData[STATE_KEY] = step.state as unknown as IDataObject;
		return [items];
	}
	if (step.changed) staticData[STATE_KEY] = step.state as unknown as IDataObject;
	if (failing.length === 0) return null;
	const [batchId] = failing[0];
	const error = read.errors.get(batchId);
	if (failing.length === 1 && error)
		throw explainFailure(error, batchId, step.state, watched.length);
	throw failingBatches.call(this, failing, step.state, watched.length);
}

/** The stored generation, read without decoding the state: -1 when there is none. */
function generationOf(stored: unknown): number {
	const g = (stored as { g?: unknown } | null | undefined)?.g;
	return typeof g === 'number' ? g : -1;
}

// ---------------------------------------------------------------- parameters

function readSettings(this: IPollFunctions): Settings {
	return {
		mode: this.getNodeParameter('emit', 'final') as TriggerOn,
		emitExisting: this.getNodeParameter('emitExisting', false) as boolean,
		statuses: this.getNodeParameter('options.statuses', []) as string[],
		format: this.getNodeParameter('options.format', 'json') as WireFormat,
	};
}

/** Batch IDs as text or an expression's list, in the service's form (readBatchIdList). */
function watchedBatchIds(this: IPollFunctions): string[] {
	const read = readBatchIdList(this.getNodeParameter('batchIds', '') as unknown);
	if ('problem' in read) {
		throw new NodeOperationError(this.getNode(), `Cannot watch batch: ${read.problem}`, {
			description: read.hint,
		});
	}
	const count = read.batchIds.length;
	if (count === 0) {
		throw new NodeOperationError(this.getNode(), 'No batch ID to watch', {
			description: 'Enter the batch_id values that Send returned, separated by commas.',
		});
	}
	if (count > MAX_WATCHED_BATCHES) {
		throw new NodeOperationError(this.getNode(), `Too many batches to watch: ${count}`, {
			description: `One trigger watches at most ${MAX_WATCHED_BATCHES} batches. Remove finished ones, or split them over several triggers.`,
		});
	}
	return read.batchIds;
}

// ---------------------------------------------------------------- fetching

interface Read {
	fetched: Map<string, RawReport[]>;
	failed: Map<string, FailureKind>;
	errors: Map<string, NodeError>;
}

/**
 * Reads the batches (fetchMany: a few at a time, one pace for the poll). A batch that fails is
 * set aside with its error; the others are read all the same, unless a failure concerns the
 * account and no batch was read yet: every request would fail alike.
 */
async function fetchAll(
	this: IPollFunctions,
	batchIds: readonly string[],
	format: WireFormat,
	account: Account,
): Promise<Read> {
	const reads = new Map(batchIds.map((batchId) => [batchId, { batchId, format }]));
	const results = await fetchMany.call(
		this,
		reads,
		async () => account,
		({ accountFailed, read }) => accountFailed && read === 0,
	);
	const read: Read = { fetched: new Map(), failed: new Map(), errors: new Map() };
	for (const [batchId, result] of results) {
		if (Array.isArray(result)) {
			read.fetched.set(batchId, result);
			continue;
		}
		read.errors.set(batchId, result);
		read.failed.set(batchId, isNotFound(result) ? 'unknown' : 'failed');
	}
	return read;
}

function isNotFound(error: NodeError): boolean {
	return error instanceof NodeApiError && String(error.httpCode) === '404';
}

/** What the trigger does about a failing batch, for every error it throws. */
function carryOn(state: WatchState, batchId: string, watched: number): string {
	const count = state.e?.[batchId] ?? 1;
	const times = count === 1 ? 'this poll' : `${count} polls in a row`;
	const others = watched > 1 ? ' The other batches are read and emitted as usual.' : '';
	return `Batch ${batchId} could not be read in ${times}. Its memory is unchanged, so it is read again next poll and nothing of it is lost or emitted twice.${others}`;
}

/** One failing batch read in this poll: its own error (HTTP code kept), naming the batch. */
function explainFailure(
	error: NodeError,
	batchId: string,
	state: WatchState,
	watched: number,
): Error {
	return restated(error, {
		message: namingBatch(error.message, batchId),
		description: [error.description, carryOn(state, batchId, watched)].filter(Boolean).join(' '),
	});
}

/** The message of one batch's failure, naming the batch. */
function namingBatch(message: string, batchId: string): string {
	return message.includes(batchId) ? message : `Checking batch ${batchId} failed: ${message}`;
}

const WRONG_ID_HINT =
	'A batch the service does not know (HTTP 404) is most likely a wrong id: remove it from Batch IDs.';

/** Several failing batches, or ones that failed in the last poll: each named with its error. */
function failingBatches(
	this: IPollFunctions,
	failing: ReadonlyArray<[string, string]>,
	state: WatchState,
	watched: number,
): NodeOperationError {
	if (failing.length === 1) {
		const [[batchId, message]] = failing;
		return new NodeOperationError(
			this.getNode(),
			`Checking batch ${batchId} keeps failing: ${message}`,
			{ description: `${carryOn(state, batchId, watched)} ${WRONG_ID_HINT}` },
		);
	}
	const named = failing
		.slice(0, NAMED_IN_ERROR)
		.map(([batchId, message]) => `${batchId}: ${message}`);
	if (failing.length > NAMED_IN_ERROR) named.push(`and ${failing.length - NAMED_IN_ERROR} more`);
	return new NodeOperationError(this.getNode(), `${failing.length} watched batches keep failing`, {
		description: `${named.join('; ')} Their memory is unchanged, so each is read again next poll and nothing of it is lost or emitted twice. The other batches are read and emitted as usual. ${WRONG_ID_HINT}`,
	});
}

// ---------------------------------------------------------------- output

/**
 * The Get Status report with previous_status after status, written as one literal: a poll may
 * emit 100,000 items, and a literal is ~3× faster than copying keys. The type lists every field
 * of DeliveryReport, so a field added there fails to compile here until it is added.
 */
function reportItem(emission: ReportEmission<RawReport>, shape: Shape): INodeExecutionData {
	const r = shape(emission.report);
	const json: Record<keyof DeliveryReport | 'previous_status', IDataObject[string]> = {
		batch_id: r.batch_id,
		msisdn: r.msisdn,
		status: r.status,
		previous_status: emission.previousStatus,
		outcome: r.outcome,
		final: r.final,
		network_id: r.network_id,
		gateway_session_id: r.gateway_session_id,
		delivery_date: r.delivery_date,
		delivery_date_raw: r.delivery_date_raw,
	};
	return { json };
}

/** The Get Status batch summary; lists reports only when a status filter says which. */
function summaryItem(
	batch: BatchFinished<RawReport>,
	settings: Settings,
	shape: Shape,
): INodeExecutionData {
	const reports = batch.reports.map(shape);
	const json: IDataObject = { ...summariseReports(batch.batchId, reports) };
	if (settings.statuses.length > 0) {
		json.reports = reports.filter((report) =>
			wanted(report.status, settings),
		) as unknown as IDataObject[];
	}
	return { json };
}

/**
 * "Fetch test event" in the editor: what the trigger emits, built from the watched batches as
 * they are now (a few reports of each, see SAMPLE_BATCHES). It reads no state and writes none.
 */
async function sample(
	this: IPollFunctions,
	watched: readonly string[],
	settings: Settings,
	shape: Shape,
	account: Account,
): Promise<INodeExecutionData[][] | null> {
	const batchIds = watched.slice(0, SAMPLE_BATCHES);
	const read = await fetchAll.call(this, batchIds, settings.format, account);
	const accountError = accountFailure(read.errors, read.fetched.size);
	if (accountError) throw accountError;
	// A batch the sample cannot show is named (the first in the list): most likely a wrong id.
	const failed = batchIds.find((batchId) => read.errors.has(batchId));
	const error = failed && read.errors.get(failed);
	if (error) throw restated(error, { message: namingBatch(error.message, failed) });
	const items = batchIds.flatMap((batchId) =>
		sampleOf(batchId, read.fetched.get(batchId) ?? [], settings, shape),
	);
	return items.length > 0 ? [items] : null;
}

function sampleOf(
	batchId: string,
	raw: RawReport[],
	settings: Settings,
	shape: Shape,
): INodeExecutionData[] {
	if (settings.mode === 'batchFinal') {
		const summary = summaryItem({ batchId, reports: raw }, settings, shape);
		const reports = summary.json.reports;
		if (Array.isArray(reports)) summary.json.reports = reports.slice(0, SAMPLE_PER_BATCH);
		return [summary];
	}
	const matching = raw.filter((report) => wanted(report.status, settings));
	// With no report in the chosen statuses yet, any report still shows the fields to map.
	const shown = (matching.length > 0 ? matching : raw).slice(0, SAMPLE_PER_BATCH);
	return shown.map((report) => reportItem({ batchId, report, previousStatus: null }, shape));
}
