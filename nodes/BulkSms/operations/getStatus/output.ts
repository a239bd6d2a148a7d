/** Get Status's items: each item's reports or batch summaries, or one campaign summary. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { summariseCampaign } from '../../../shared/domain/campaign';
import { passes } from '../../../shared/domain/reportFilter';
import { summariseReports, type DeliveryReport } from '../../../shared/domain/reports';
import { errorItem, pairedWith } from '../../../shared/items';
import { keyOf, readOf, type Fetched, type NotSent, type Request } from './model';

/** One input item's output: its reports, or one summary per batch. */
export function itemsFor(
	request: Request,
	fetched: Fetched,
	perBatch: boolean,
	copied: Set<string>,
): INodeExecutionData[] {
	const { itemIndex, filter, format } = request;
	const pairedItem = { item: itemIndex };
	const output: INodeExecutionData[] = [];
	for (const batchId of request.batchIds) {
		const reports = readOf(fetched, format, batchId);
		if (!Array.isArray(reports)) {
			output.push(errorItem(reports, [itemIndex]));
			continue;
		}
		const shown =
			filter.statuses.length > 0
				? reports.filter((report) => passes(filter, report.status))
				: reports;
		if (perBatch) {
			// The summary counts the whole batch; the filter only narrows the list.
			const json = { ...summariseReports(batchId, reports), reports: shown };
			output.push({ json: json as unknown as IDataObject, pairedItem });
		} else {
			// Shaped for this run: the first item to use them takes them as they are, any other a copy.
			const own = !copied.has(keyOf(format, batchId));
			copied.add(keyOf(format, batchId));
			for (const report of shown) {
				const json = (own ? report : { ...report }) as unknown as IDataObject;
				output.push({ json, pairedItem });
			}
		}
	}
	return output;
}

/**
 * All batches of all items in one summary; a batch that could not be read is listed, and so is
 * each row of Send that was never sent.
 */
export function campaignItem(
	requests: readonly Request[],
	notSent: readonly NotSent[],
	fetched: Fetched,
): INodeExecutionData {
	const batches: Array<{ batchId: string; reports: DeliveryReport[] }> = [];
	const unread: Array<{ batch_id: string; error: string }> = [];
	const seen = new Set<string>();
	for (const { batchIds, format } of requests) {
		for (const batchId of batchIds) {
			if (seen.has(batchId)) continue;
			seen.add(batchId);
			const reports = readOf(fetched, format, batchId);
			if (Array.isArray(reports)) batches.push({ batchId, reports });
			else unread.push({ batch_id: batchId, error: reports.message });
		}
	}
	const summary = summariseCampaign(batches, unread);
	const json = summary as unknown as IDataObject;
	if (notSent.length > 0) {
		json.not_sent = notSent.map(({ itemIndex, send_outcome, reason }) => ({
			item: itemIndex,
			send_outcome,
			reason,
		}));
	}
	const items = [...requests, ...notSent].map((request) => request.itemIndex);
	return { json, pairedItem: pairedWith(items) };
}
