import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { triggerHints, triggerProperties } from './description';
import { pollBatches } from './poll';

export class BulkSmsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bulk SMS Trigger',
		name: 'bulkSmsTrigger',
		icon: { light: 'file:../BulkSms/bulkSms.svg', dark: 'file:../BulkSms/bulkSms.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ "Polls: " + {"changes": "every status change", "final": "final statuses", "batchFinal": "batch finished"}[$parameter["emit"]] }}',
		// n8n's node creator shows the trigger's description for the whole Bulk SMS entry (actions
		// too), so it speaks for the node and says how this trigger works beside the Status Trigger.
		description:
			'Send SMS to many numbers and get their delivery status. The trigger polls the batches you list (no public URL needed) and starts a workflow when messages are delivered or fail',
		defaults: { name: 'Bulk SMS Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bulkSmsApi', required: true }],
		properties: triggerProperties,
		hints: triggerHints,
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollBatches.call(this);
	}
}
