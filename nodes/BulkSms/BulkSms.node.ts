import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { operationOptions, route } from './actions/router';
import { getStatusDescription } from './operations/getStatus';
import { SendProcess, sendDescription } from './operations/send';

export class BulkSms implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bulk SMS',
		name: 'bulkSms',
		icon: { light: 'file:bulkSms.svg', dark: 'file:bulkSms.dark.svg' },
		group: ['output'],
		version: 1,
		// The chosen operation's action (see OPERATIONS in actions/router.ts; a test keeps the two
		// in step). A literal: n8n's lint and verification scanner accept no other subtitle.
		subtitle:
			'={{ ({"send": "Send SMS", "getStatus": "Get Delivery Status"})[$parameter["operation"]] }}',
		description: 'Send SMS to many numbers and get their delivery status',
		defaults: { name: 'Bulk SMS' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		// Send has a second output, Needs Action, with the items a person must look at (numbers not
		// valid, in doubt, not sent): the canvas counts its items where the user looks first.
		outputs:
			'={{ $parameter.operation === "getStatus" ? ["main"] : [{ "type": "main", "displayName": "All" }, { "type": "main", "displayName": "Needs Action" }] }}',
		credentials: [{ name: 'bulkSmsApi', required: true }],
		properties: [
			{
				// One resource, so that n8n names a node after its action ("Send SMS") and gives
				// the AI Agent tool an operation's own name and description.
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [{ name: 'SMS', value: 'sms' }],
				default: 'sms',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['sms'] } },
				default: 'send',
				options: operationOptions(),
			},
			...sendDescription,
			...getStatusDescription,
		],
	};

	/**
	 * What this n8n process keeps for Send's records, for the executions it runs (n8n makes one
	 * node type instance per process): operations/send/record.
	 */
	private readonly process = new SendProcess();

	execute = executorOf(this.process);
}

function executorOf(process: SendProcess) {
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await route.call(this, process);
	};
}
