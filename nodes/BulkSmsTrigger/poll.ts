import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../shared/domain/body';
import { readBatchId } from '../shared/domain/batchId';
import { shapeReport, summariseReports, type DeliveryReport } from '../shared/domain/reports';
import type { RawReport } from '../shared/domain/responses';
import {
	advance,
	batchesToPoll,
	MAX_WATCHED_BATCHES,
	readState,
	type BatchFinished,
	type EmitMode,
	type ReportEmission,
	type WatchOptions,
	wanted,
} from '../shared/domain/watch';
import { asNodeError } from '../shared/items';
import { fetchReports, serviceSettings } from '../shared/transport';

/** Key of the trigger's memory in the node's static data. */
const STATE_KEY = 'watch';
/** Requests in flight at once: enough to watch many batches, gentle on the service. */
const CONCURRENCY = 4;
/** "Fetch test event" shows sample data; a 100,000-report batch would stall the editor. */
const SAMPLE_SIZE = 100;

interface Settings extends WatchOptions {
	format: WireFormat;
}

type Shape = (raw: RawReport) => DeliveryReport;

/**
 * One poll: fetch every unfinished watched batch, compare with the stored state, emit the
 * changes. The new state is stored only after every batch was fetched and every item built,
 * so a failed poll leaves the state as it was and the next one emits what this one missed.
 */
export async function pollBatches(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const watched = watchedBatchIds.call(this);
	const settings = readSettings.call(this);
	const { timeZone } = await serviceSettings.call(this);
	const shape: Shape = (raw) => shapeReport(raw, timeZone);
	if (this.getMode() === 'manual') return await sample.call(this, watched[0], settings, shape);

	const staticData = this.getWorkflowStaticData('node');
	const startedFrom = JSON.stringify(staticData[STATE_KEY] ?? null);
	const state = readState(staticData[STATE_KEY]);
	const fetched = await fetchAll.call(this, batchesToPoll(state, watched), settings.format);
	// n8n starts a poll on every tick even if the last one is still waiting on the service. If
	// another poll stored its result meanwhile, this one is stale: emitting it would repeat the
	// other's items, so it yields and the next poll goes on from the newer state.
	if (JSON.stringify(staticData[STATE_KEY] ?? null) !== startedFrom) return null;
	const step = advance(state, watched, fetched, settings);
	const items = [
		...step.reports.map((emission) => reportItem(emission, shape)),
		...step.finished.map((batch) => summaryItem(batch, settings, shape)),
	];
	// The domain module has no logger; what it could not decide safely is worth a line in n8n's log.
	for (const warning of step.warnings) this.logger.warn(warning);
	if (JSON.stringify(step.state) !== startedFrom) {
		staticData[STATE_KEY] = step.state as unknown as IDataObject;
	}
	return items.length > 0 ? [items] : null;
}

// ---------------------------------------------------------------- parameters

function readSettings(this: IPollFunctions): Settings {
	return {
		mode: this.getNodeParameter('emit', 'final') as EmitMode,
		emitExisting: this.getNodeParameter('emitExisting', false) as boolean,
		statuses: this.getNodeParameter('options.statuses', []) as string[],
		format: this.getNodeParameter('options.format', 'json') as WireFormat,
	};
}

/**
 * Text (commas, spaces, new lines) or an expression's list; each id read as exact digits, in
 * the service's form (readBatchId), so that "0123" and "123" are watched once.
 */
function watchedBatchIds(this: IPollFunctions): string[] {
	const value = this.getNodeParameter('batchIds', '') as unknown;
	const entries = (Array.isArray(value) ? value : [value]).flatMap((entry: unknown) =>
		typeof entry === 'string' ? entry.split(/[\s,;]+/).filter((part) => part !== '') : [entry],
	);
	const ids = new Set<string>();
	for (const entry of entries) {
		if (entry === null || entry === undefined || entry === '') continue;
		const read = readBatchId(entry);
		if ('problem' in read) {
			throw new NodeOperationError(this.getNode(), `Cannot watch batch: ${read.problem}`, {
				description: read.hint,
			});
		}
		ids.add(read.batchId);
	}
	if (ids.size === 0) {
		throw new NodeOperationError(this.getNode(), 'No batch ID to watch', {
			description: 'Enter the batch_id values that Send returned, separated by commas.',
		});
	}
	if (ids.size > MAX_WATCHED_BATCHES) {
		throw new NodeOperationError(this.getNode(), `Too many batches to watch: ${ids.size}`, {
			description: `One trigger watches at most ${MAX_WATCHED_BATCHES} batches. Remove finished ones, or split them over several triggers.`,
		});
	}
	return [...ids];
}

// ---------------------------------------------------------------- fetching

/**
 * Fetches batches a few at a time. After the first failure no new request starts; the
 * poll then fails as a whole, naming the batch, since a partial result cannot be emitted.
 */
async function fetchAll(
	this: IPollFunctions,
	batchIds: readonly string[],
	format: WireFormat,
): Promise<Map<string, RawReport[]>> {
	const fetched = new Map<string, RawReport[]>();
	const failures: unknown[] = [];
	let next = 0;
	const worker = async () => {
		while (failures.length === 0 && next < batchIds.length) {
			const batchId = batchIds[next++];
			try {
				fetched.set(batchId, await fetchReports.call(this, batchId, { format }));
			} catch (error) {
				failures.push(explainFailure.call(this, error, batchId, batchIds.length));
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(CONCURRENCY, batchIds.length) }, worker));
	if (failures.length > 0) throw failures[0];
	return fetched;
}

function explainFailure(
	this: IPollFunctions,
	error: unknown,
	batchId: string,
	polled: number,
): Error {
	const nodeError = asNodeError(this, error);
	if (!nodeError.message.includes(batchId)) {
		nodeError.message = `Checking batch ${batchId} failed: ${nodeError.message}`;
	}
	const others = polled > 1 ? ` (one of ${polled} batches checked in this poll)` : '';
	nodeError.description = [
		nodeError.description,
		`Batch ${batchId}${others}. Nothing was emitted and the trigger's memory is unchanged, so the next successful poll emits every change from where it left off.`,
	]
		.filter(Boolean)
		.join(' ');
	return nodeError;
}

// ---------------------------------------------------------------- output

function reportItem(emission: ReportEmission<RawReport>, shape: Shape): INodeExecutionData {
	const { batch_id, msisdn, status, ...rest } = shape(emission.report);
	return { json: { batch_id, msisdn, status, previous_status: emission.previousStatus, ...rest } };
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
 * "Fetch test event" in the editor: what the trigger emits, built from the first watched
 * batch as it is now. It reads no state and writes none.
 */
async function sample(
	this: IPollFunctions,
	batchId: string,
	settings: Settings,
	shape: Shape,
): Promise<INodeExecutionData[][] | null> {
	const raw = await fetchReports.call(this, batchId, { format: settings.format });
	if (settings.mode === 'batchFinal')
		return [[summaryItem({ batchId, reports: raw }, settings, shape)]];
	const matching = raw.filter((report) => wanted(report.status, settings));
	// With no report in the chosen statuses yet, any report still shows the fields to map.
	const shown = (matching.length > 0 ? matching : raw).slice(0, SAMPLE_SIZE);
	const items = shown.map((report) => reportItem({ batchId, report, previousStatus: null }, shape));
	return items.length > 0 ? [items] : null;
}
