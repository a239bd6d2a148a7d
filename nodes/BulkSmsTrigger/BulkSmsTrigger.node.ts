import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { triggerProperties } from './description';
import { pollBatches } from './poll';

export class BulkSmsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bulk SMS Trigger',
		name: 'bulkSmsTrigger',
		icon: { light: 'file:../BulkSms/bulkSms.svg', dark: 'file:../BulkSms/bulkSms.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ {"changes": "Every status change", "final": "Final statuses", "batchFinal": "Batch finished"}[$parameter["emit"]] }}',
		// n8n's node creator shows the trigger's description for the whole Bulk SMS entry (actions too).
		description:
			'Send SMS to many numbers, read their delivery reports, and start workflows when they are delivered or fail',
		defaults: { name: 'Bulk SMS Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bulkSmsApi', required: true }],
		properties: triggerProperties,
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollBatches.call(this);
	}
}
