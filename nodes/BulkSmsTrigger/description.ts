import type { INodeProperties } from 'n8n-workflow';

import { formatOption, statusFilterOption } from '../shared/items';

export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Batch IDs',
		name: 'batchIds',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		required: true,
		placeholder: '1234567890123456789, 1234567890123456790',
		description:
			'The batch_id values Send returned, separated by commas, spaces or new lines, or an expression that returns a list. Pass them as text: IDs have up to 19 digits.',
	},
	{
		displayName: 'Trigger On',
		name: 'emit',
		type: 'options',
		noDataExpression: true,
		default: 'final',
		options: [
			{
				name: 'Every Status Change',
				value: 'changes',
				description: 'One item each time a report changes status, ENROUTE included',
			},
			{
				name: 'Final Statuses Only',
				value: 'final',
				description: 'One item per message when it is delivered or has failed',
			},
			{
				name: 'Batch Finished',
				value: 'batchFinal',
				description: 'One summary item per batch once every message in it has a final status',
			},
		],
	},
	{
		displayName: 'Include Statuses Found at Start',
		name: 'emitExisting',
		type: 'boolean',
		default: false,
		description:
			'Whether the first poll of a batch emits what it finds already there (reports, or a finished batch). Off: watching starts from the statuses at that moment, and only later changes trigger.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				...statusFilterOption,
				description:
					'Emit only reports that reach these statuses. With Batch Finished, the summary still counts every report and lists the reports in these statuses.',
			},
			formatOption,
		],
	},
];
