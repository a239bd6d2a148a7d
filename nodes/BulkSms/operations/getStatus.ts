import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../../shared/domain/body';
import { readBatchIdList, summariseCampaign } from '../../shared/domain/campaign';
import { shapeReport, summariseReports, type DeliveryReport } from '../../shared/domain/reports';
import { formatOption, onlyStatusesOption } from '../../shared/descriptions';
import { passes, type ReportFilter } from '../../shared/domain/reportFilter';
import { asNodeError, errorItem, pairedWith } from '../../shared/items';
import {
	accountsOfRun,
	fetchMany,
	serviceSettings,
	type BatchRead,
	type NodeError,
} from '../../shared/transport';

const showForGetStatus = { show: { operation: ['getStatus'] } };

export const getStatusDescription: INodeProperties[] = [
	{
		displayName: 'Batch IDs',
		name: 'batchId',
		type: 'string',
		// Send's output as it is: each row's own batch. A saved workflow keeps the value it has.
		default: '={{ $json.batch_id }}',
		required: true,
		placeholder: 'e.g. 9007199254740993',
		description:
			"The batch_id that Send returned: by default each input item's own (after a Send, every batch it sent; a row Send did not send passes through, marked not sent), or one or several IDs separated by commas, or an expression giving a list. Pass IDs as text: they have up to 19 digits.",
		displayOptions: showForGetStatus,
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		// One choice for the whole run: a campaign summary gathers every item's batches.
		noDataExpression: true,
		default: 'reports',
		options: [
			{
				name: 'One Item per Report',
				value: 'reports',
				description: 'One item for each destination of each batch',
			},
			{
				name: 'One Item per Batch',
				value: 'batch',
				description: 'The reports of each batch as a list, with counts by status and outcome',
			},
			{
				name: 'One Campaign Summary',
				value: 'campaign',
				description:
					'One item for all the batches of all input items: counts by status and outcome, all_final, unfinished batches, and the numbers that failed',
			},
		],
		displayOptions: showForGetStatus,
	},
	{
		displayName: 'Options',
		name: 'statusOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: showForGetStatus,
		options: [
			onlyStatusesOption('A batch or campaign summary still counts every report.'),
			formatOption,
		],
	},
];

/** What one input item asks for. */
interface Request {
	itemIndex: number;
	batchIds: string[];
	filter: ReportFilter;
	format: WireFormat;
}

/**
 * A row of Send that was never sent (skipped, failed, refused; or unknown without a batch): no
 * batch to read, so it passes through, paired, saying so.
 */
interface NotSent {
	itemIndex: number;
	/** `unknown` when the service may have taken the send (it gave no batch to read). */
	outcome: 'not sent' | 'unknown';
	send_outcome: string;
	msisdn: string | null;
	reason: string | null;
}

/** A batch's reports, or why they could not be read. */
type Read = DeliveryReport[] | NodeError;
type Fetched = Map<string, Read>;

/**
 * Reads every input item's batch IDs first (a bad one is refused before any request), fetches
 * each distinct batch once with bounded concurrency, then builds the output in input order.
 */
export async function executeGetStatus(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
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

/** A row of Send that has no batch because it was not sent, as Send's send_outcome says. */
function notSentRow(json: IDataObject | undefined, itemIndex: number): NotSent | undefined {
	const sendOutcome = json?.send_outcome;
	if (typeof sendOutcome !== 'string' || sendOutcome === 'accepted') return undefined;
	const text = (value: unknown) => (typeof value === 'string' ? value : null);
	return {
		itemIndex,
		outcome: sendOutcome === 'unknown' ? 'unknown' : 'not sent',
		send_outcome: sendOutcome,
		msisdn: text(json?.msisdn),
		reason: text(json?.reason) ?? text(json?.error),
	};
}

/** The row never sent, in the columns of the chosen output, with Send's outcome and reason. */
function notSentItem(row: NotSent, output: string): INodeExecutionData {
	const said = { send_outcome: row.send_outcome, reason: row.reason };
	// Nothing will change for it: final, so that a loop waiting for every row does not wait on it.
	const json: IDataObject =
		output === 'batch'
			? {
					batch_id: null,
					total: 0,
					by_status: {},
					by_outcome: { delivered: 0, failed: 0, pending: 0 },
					all_final: true,
					reports: [],
					outcome: row.outcome,
					...said,
				}
			: {
					batch_id: null,
					msisdn: row.msisdn,
					status: null,
					outcome: row.outcome,
					final: true,
					network_id: null,
					gateway_session_id: null,
					delivery_date: null,
					delivery_date_raw: null,
					...said,
				};
	return { json, pairedItem: { item: row.itemIndex } };
}

const keyOf = (format: WireFormat, batchId: string) => `${format} ${batchId}`;

/** One input item's output: its reports, or one summary per batch. */
function itemsFor(
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
function campaignItem(
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

/** Once the run goes on past throwFirstFailure, every batch has its reports or its error. */
function readOf(fetched: Fetched, format: WireFormat, batchId: string): Read {
	return fetched.get(keyOf(format, batchId)) as Read;
}
