import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { shapeReport } from '../shared/domain/reports';
import { advance, batchesToPoll } from '../shared/domain/watch';
import { knownCount, readState, type WatchState } from '../shared/domain/watchState';
import { readAccount, serviceSettings } from '../shared/transport';
import { accountFailure } from './account';
import { explainFailure, failingBatches } from './failures';
import { reportItem, summaryItem, type Shape } from './output';
import { readSettings, watchedBatchIds } from './parameters';
import { fetchAll, type KnownSize } from './read';
import { sample } from './sample';

/** Key of the trigger's memory in the node's static data. */
const STATE_KEY = 'watch';

/**
 * One poll: read the unfinished watched batches, in turn, up to the poll's bounds (read.ts),
 * compare with the stored state, emit the changes. What n8n does with a poll decides the design
 * (docs/decisions.md, "What n8n saves of a poll"):
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
	const order = batchesToPoll(state, watched);
	const read = await fetchAll.call(this, order, settings.format, account, knownSizes(state));
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

/** The destinations the trigger knows of a batch, before reading it again. */
function knownSizes(state: WatchState): KnownSize {
	return (batchId) => {
		const batch = state.b[batchId];
		return batch ? knownCount(batch) : undefined;
	};
}

/** The stored generation, read without decoding the state: -1 when there is none. */
function generationOf(stored: unknown): number {
	const g = (stored as { g?: unknown } | null | undefined)?.g;
	return typeof g === 'number' ? g : -1;
}

// ---------------------------------------------------------------- parameters
