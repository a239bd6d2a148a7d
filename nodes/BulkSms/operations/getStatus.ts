import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../../shared/domain/body';
import { readBatchId } from '../../shared/domain/batchId';
import { readBatchIdList, summariseCampaign } from '../../shared/domain/campaign';
import { shapeReport, summariseReports, type DeliveryReport } from '../../shared/domain/reports';
import {
	asNodeError,
	errorItem,
	formatOption,
	pairedWith,
	statusFilterOption,
} from '../../shared/items';
import {
	fetchReports,
	forEachConcurrently,
	RequestPace,
	serviceSettings,
	accountsOfRun,
	type AccountOf,
} from '../../shared/transport';

const showForGetStatus = { show: { operation: ['getStatus'] } };

/** Requests in flight at once: a campaign of thousands of batches, gently. */
const CONCURRENCY = 8;

export const getStatusDescription: INodeProperties[] = [
	{
		displayName: 'Batch IDs',
		name: 'batchId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 9007199254740993',
		description:
			"The batch_id that Send returned: one, several separated by commas, or an expression giving each input item's batch_id (read for every item: after a Send, every batch it sent). Pass IDs as text: they have up to 19 digits.",
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
			{
				...statusFilterOption,
				description:
					'Keep only reports in these statuses. Empty keeps all. A batch or campaign summary still counts every report.',
			},
			formatOption,
		],
	},
];

/** What one input item asks for. */
interface Request {
	itemIndex: number;
	batchIds: string[];
	statuses: string[];
	format: WireFormat;
}

/** A batch's reports, or why they could not be read. */
type Read = DeliveryReport[] | NodeApiError | NodeOperationError;
type Fetched = Map<string, Read>;

/**
 * Reads every input item's batch IDs first (a bad one is refused before any request), fetches
 * each distinct batch once with bounded concurrency, then builds the output in input order.
 */
export async function executeGetStatus(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const requests: Request[] = [];
	/** Error items of input items whose ids were refused (Continue On Fail), by item index. */
	const refused = new Map<number, INodeExecutionData>();
	const inputCount = this.getInputData().length;
	for (let itemIndex = 0; itemIndex < inputCount; itemIndex++) {
		try {
			requests.push(requestOf.call(this, itemIndex));
		} catch (error) {
			const nodeError = asNodeError(this, error, itemIndex);
			if (!this.continueOnFail()) throw nodeError;
			refused.set(itemIndex, errorItem(nodeError, [itemIndex]));
		}
	}
	if (requests.length === 0) return [...refused.values()];
	// One credential read per item for the settings and all that item's requests.
	const accountOf = accountsOfRun.call(this);
	const first = requests[0].itemIndex;
	const { timeZone } = await serviceSettings.call(this, first, await accountOf(first));
	const fetched = await fetchAll.call(this, requests, timeZone, accountOf);
	// Past this point every batch was read or failed (under Continue On Fail none is left out).
	if (!this.continueOnFail()) throwFirstFailure(requests, fetched);
	const output = this.getNodeParameter('output', first) as string;
	if (output === 'campaign') return [...refused.values(), campaignItem(requests, fetched)];
	// In input order; items pushed one by one (a spread of 100,000 arguments would overflow).
	const items: INodeExecutionData[] = [];
	const perBatch = output === 'batch';
	const used = new Set<string>();
	let next = 0;
	for (let itemIndex = 0; itemIndex < inputCount; itemIndex++) {
		const error = refused.get(itemIndex);
		if (error) items.push(error);
		else for (const item of itemsFor(requests[next++], fetched, perBatch, used)) items.push(item);
	}
	return items;
}

function requestOf(this: IExecuteFunctions, itemIndex: number): Request {
	const value = this.getNodeParameter('batchId', itemIndex) as unknown;
	const listed = readBatchIdList(value);
	// Nothing at all: readBatchId says so in the words it uses for one empty id.
	const read = 'batchIds' in listed && listed.batchIds.length === 0 ? readBatchId('') : listed;
	if ('problem' in read) {
		throw new NodeOperationError(this.getNode(), read.problem, {
			description: read.hint,
			itemIndex,
		});
	}
	const option = <T>(name: string, fallback: T) =>
		this.getNodeParameter(`statusOptions.${name}`, itemIndex, fallback) as T;
	return {
		itemIndex,
		batchIds: (read as { batchIds: string[] }).batchIds,
		statuses: option<string[]>('statuses', []),
		format: option<WireFormat>('format', 'json'),
	};
}

interface Work {
	batchId: string;
	format: WireFormat;
	itemIndex: number;
}

const keyOf = (format: WireFormat, batchId: string) => `${format} ${batchId}`;

/**
 * Each distinct (batch, format) once, a few at a time, sharing one pace so that a 429 holds
 * them all. After a failure no new request starts, unless Continue On Fail wants the rest.
 */
async function fetchAll(
	this: IExecuteFunctions,
	requests: readonly Request[],
	timeZone: string,
	accountOf: AccountOf,
): Promise<Fetched> {
	const work = new Map<string, Work>();
	for (const { batchIds, format, itemIndex } of requests) {
		for (const batchId of batchIds) {
			const key = keyOf(format, batchId);
			if (!work.has(key)) work.set(key, { batchId, format, itemIndex });
		}
	}
	const fetched: Fetched = new Map();
	const pace = new RequestPace();
	let failed = false;
	const fetchOne = async ([key, { batchId, format, itemIndex }]: [string, Work]) => {
		try {
			const account = await accountOf(itemIndex);
			const raw = await fetchReports.call(this, batchId, { format, itemIndex, pace, account });
			fetched.set(
				key,
				raw.map((report) => shapeReport(report, timeZone)),
			);
		} catch (error) {
			failed = true;
			fetched.set(key, asNodeError(this, error, itemIndex));
		}
	};
	const stop = () => failed && !this.continueOnFail();
	await forEachConcurrently([...work], CONCURRENCY, fetchOne, stop);
	return fetched;
}

/** One input item's output: its reports, or one summary per batch. */
function itemsFor(
	request: Request,
	fetched: Fetched,
	perBatch: boolean,
	copied: Set<string>,
): INodeExecutionData[] {
	const { itemIndex, statuses, format } = request;
	const pairedItem = { item: itemIndex };
	const output: INodeExecutionData[] = [];
	for (const batchId of request.batchIds) {
		const reports = readOf(fetched, format, batchId);
		if (!Array.isArray(reports)) {
			output.push(errorItem(reports, [itemIndex]));
			continue;
		}
		const shown = statuses.length
			? reports.filter((report) => statuses.includes(report.status))
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

/** All batches of all items in one summary; a batch that could not be read is listed. */
function campaignItem(requests: readonly Request[], fetched: Fetched): INodeExecutionData {
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
	const json = summariseCampaign(batches, unread) as unknown as IDataObject;
	return { json, pairedItem: pairedWith(requests.map((request) => request.itemIndex)) };
}

/** Without Continue On Fail, the node fails with the first batch (in input order) that did. */
function throwFirstFailure(requests: readonly Request[], fetched: Fetched): void {
	for (const { batchIds, format, itemIndex } of requests) {
		for (const batchId of batchIds) {
			const reports = fetched.get(keyOf(format, batchId));
			if (reports !== undefined && !Array.isArray(reports)) throw withItem(reports, itemIndex);
		}
	}
}

/** Once the run goes on past throwFirstFailure, every batch has its reports or its error. */
function readOf(fetched: Fetched, format: WireFormat, batchId: string): Read {
	return fetched.get(keyOf(format, batchId)) as Read;
}

/** The error as n8n shows it for the item that asked for the batch. */
function withItem<E extends NodeApiError | NodeOperationError>(error: E, itemIndex: number): E {
	if (error.context) error.context.itemIndex = itemIndex;
	return error;
}
