import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../../shared/domain/body';
import { readBatchId } from '../../shared/domain/batchId';
import { shapeReport, summariseReports } from '../../shared/domain/reports';
import { forEachGroup, formatOption, statusFilterOption } from '../../shared/items';
import { fetchReports, serviceSettings } from '../../shared/transport';

const showForGetStatus = { show: { operation: ['getStatus'] } };

export const getStatusDescription: INodeProperties[] = [
	{
		displayName: 'Batch ID',
		name: 'batchId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 9007199254740993',
		description: 'The batch_id that Send returned. Pass it as text: IDs have up to 19 digits.',
		displayOptions: showForGetStatus,
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'reports',
		options: [
			{
				name: 'One Item per Report',
				value: 'reports',
				description: 'One item for each destination of the batch',
			},
			{
				name: 'One Item per Batch',
				value: 'batch',
				description: 'The reports as a list, with counts by status and outcome',
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
		options: [statusFilterOption, formatOption],
	},
];

export async function executeGetStatus(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const groups = this.getInputData().map((_, index) => [index]);
	return await forEachGroup(this, groups, async ([itemIndex]) => statusOf.call(this, itemIndex));
}

async function statusOf(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const batchId = batchIdOf.call(this, itemIndex);
	const option = <T>(name: string, fallback: T) =>
		this.getNodeParameter(`statusOptions.${name}`, itemIndex, fallback) as T;
	const statuses = option<string[]>('statuses', []);
	const { timeZone } = await serviceSettings.call(this, itemIndex);
	const raw = await fetchReports.call(this, batchId, {
		format: option<WireFormat>('format', 'json'),
		itemIndex,
	});
	const reports = raw.map((report) => shapeReport(report, timeZone));
	const shown = statuses.length
		? reports.filter((report) => statuses.includes(report.status))
		: reports;
	const pairedItem = { item: itemIndex };
	if (this.getNodeParameter('output', itemIndex) === 'batch') {
		// The summary counts the whole batch; the filter only narrows the list.
		const json = {
			...summariseReports(batchId, reports),
			reports: shown,
		} as unknown as IDataObject;
		return [{ json, pairedItem }];
	}
	return shown.map((report) => ({ json: { ...report }, pairedItem }));
}

function batchIdOf(this: IExecuteFunctions, itemIndex: number): string {
	const value = this.getNodeParameter('batchId', itemIndex) as unknown;
	const read = readBatchId(value);
	if ('batchId' in read) return read.batchId;
	throw new NodeOperationError(this.getNode(), read.problem, { description: read.hint, itemIndex });
}
