/**
 * Get Status's run: what each item asks for, the reads, the order of the output. The items
 * themselves are built in output.ts; rows of Send that were never sent, in notSent.ts.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readBatchIdList } from '../../../shared/domain/campaign';
import { shapeReport } from '../../../shared/domain/reports';
import type { WireFormat } from '../../../shared/domain/body';
import { asNodeError, errorItem } from '../../../shared/items';
import {
	accountsOfRun,
	fetchMany,
	serviceSettings,
	type BatchRead,
} from '../../../shared/transport';
import { keyOf, type Fetched, type NotSent, type Request } from './model';
import { notSentItem, notSentRow } from './notSent';
import { campaignItem, itemsFor } from './output';

/**
 * Reads every input item's batch IDs first (a bad one is refused before any request), fetches
 * each distinct batch once with bounded concurrency, then builds the output in input order.
 */
export async function executeGetStatus(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return [await getStatusItems.call(this)];
}

async function getStatusItems(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const requests: Request[] = [];
	const notSent: NotSent[] = [];
	/** Error items of input items whose ids were refused (Continue On Fail), by item index. */
	const refused = new Map<number, INodeExecutionData>();
	const inputCount = this.getInputData().length;
	for (let itemIndex = 0; itemIndex < inputCount; itemIndex++) {
		try {
			const request = requestOf.call(this, itemIndex);
			if ('batchIds' in request) requests.push(request);
			else notSent.push(request);
		} catch (error) {
			const nodeError = asNodeError(this, error, itemIndex);
			if (!this.continueOnFail()) throw nodeError;
			refused.set(itemIndex, errorItem(nodeError, [itemIndex]));
		}
	}
	if (requests.length + notSent.length === 0) return [...refused.values()];
	const fetched = await fetchAllOf.call(this, requests);
	const output = this.getNodeParameter('output', 0) as string;
	if (output === 'campaign') return [...refused.values(), campaignItem(requests, notSent, fetched)];
	// Items that read no batch, each in its place among the others.
	const unread = new Map(refused);
	for (const row of notSent) unread.set(row.itemIndex, notSentItem(row, output));
	// In input order; items pushed one by one (a spread of 100,000 arguments would overflow).
	const items: INodeExecutionData[] = [];
	const perBatch = output === 'batch';
	const used = new Set<string>();
	let next = 0;
	for (let itemIndex = 0; itemIndex < inputCount; itemIndex++) {
		const passed = unread.get(itemIndex);
		if (passed) items.push(passed);
		else for (const item of itemsFor(requests[next++], fetched, perBatch, used)) items.push(item);
	}
	return items;
}

/**
 * Every distinct (batch, format) of the requests read once, by the first item that asks for it;
 * without Continue On Fail the first failure stops the reads and the run.
 */
async function fetchAllOf(this: IExecuteFunctions, requests: readonly Request[]): Promise<Fetched> {
	if (requests.length === 0) return new Map();
	// One credential read per item for the settings and all that item's requests.
	const accountOf = accountsOfRun.call(this);
	const first = requests[0].itemIndex;
	const { timeZone } = await serviceSettings.call(this, first, await accountOf(first));
	const reads = new Map<string, BatchRead>();
	for (const { batchIds, format, itemIndex } of requests) {
		for (const batchId of batchIds) {
			const key = keyOf(format, batchId);
			if (!reads.has(key)) reads.set(key, { batchId, format, itemIndex });
		}
	}
	const goOn = this.continueOnFail();
	const raw = await fetchMany.call(this, reads, accountOf, ({ failed }) => failed > 0 && !goOn);
	const fetched: Fetched = new Map();
	for (const [key, read] of raw) {
		fetched.set(
			key,
			Array.isArray(read) ? read.map((report) => shapeReport(report, timeZone)) : read,
		);
	}
	// Past this point every batch was read or failed (under Continue On Fail none is left out).
	if (!goOn) throwFirstFailure(requests, fetched);
	return fetched;
}

function requestOf(this: IExecuteFunctions, itemIndex: number): Request | NotSent {
	const value = this.getNodeParameter('batchId', itemIndex) as unknown;
	const listed = readBatchIdList(value);
	if ('batchIds' in listed && listed.batchIds.length === 0) {
		const row = notSentRow(this.getInputData()[itemIndex]?.json, itemIndex);
		if (row) return row;
		throw new NodeOperationError(this.getNode(), 'No batch ID to read for this item', {
			description:
				"Batch IDs gave nothing, and the item has no batch_id (it is not a row of Send's output). Put Get Status after Send, whose rows carry their batch_id, or give the batch IDs to read.",
			itemIndex,
		});
	}
	if ('problem' in listed) {
		throw new NodeOperationError(this.getNode(), listed.problem, {
			description: listed.hint,
			itemIndex,
		});
	}
	const option = <T>(name: string, fallback: T) =>
		this.getNodeParameter(`statusOptions.${name}`, itemIndex, fallback) as T;
	return {
		itemIndex,
		batchIds: listed.batchIds,
		filter: { finalOnly: false, statuses: option<string[]>('statuses', []) },
		format: option<WireFormat>('format', 'json'),
	};
}

/**
 * Without Continue On Fail, the node fails with the first batch (in input order) that did. Its
 * error is already the item's: a batch is read for the first item that asks for it.
 */
function throwFirstFailure(requests: readonly Request[], fetched: Fetched): void {
	for (const { batchIds, format } of requests) {
		for (const batchId of batchIds) {
			const reports = fetched.get(keyOf(format, batchId));
			if (reports !== undefined && !Array.isArray(reports)) throw reports;
		}
	}
}
