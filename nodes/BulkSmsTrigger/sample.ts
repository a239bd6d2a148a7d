/** "Fetch test event" in the editor: a sample of what the trigger emits, no state read or written. */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { RawReport } from '../shared/domain/responses';
import { wanted } from '../shared/domain/watch';
import { restated, type Account } from '../shared/transport';
import { accountFailure } from './account';
import { namingBatch } from './failures';
import { reportItem, summaryItem, type Shape } from './output';
import type { Settings } from './parameters';
import { fetchAll } from './read';

/**
 * "Fetch test event" shows sample data from the first 20 watched batches, 5 reports of each at
 * most: every batch a user pasted shows up, and 10,000 batches or a 100,000-report batch cannot
 * stall the editor.
 */
const SAMPLE_BATCHES = 20;
const SAMPLE_PER_BATCH = 5;

/**
 * "Fetch test event" in the editor: what the trigger emits, built from the watched batches as
 * they are now (a few reports of each, see SAMPLE_BATCHES). It reads no state and writes none.
 */
export async function sample(
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
