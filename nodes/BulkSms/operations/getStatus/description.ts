import type { INodeProperties } from 'n8n-workflow';

import { formatOption, onlyStatusesOption } from '../../../shared/descriptions';

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
