import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { executeGetStatus, getStatusDescription } from './operations/getStatus';
import { executeSend, sendDescription } from './operations/send';

const operations = {
	send: executeSend,
	getStatus: executeGetStatus,
};

export class BulkSms implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bulk SMS',
		name: 'bulkSms',
		icon: { light: 'file:bulkSms.svg', dark: 'file:bulkSms.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{ $parameter["operation"] === "send" ? "Send" : "Get Status" }}',
		description: 'Send SMS to many numbers and read their delivery reports',
		defaults: { name: 'Bulk SMS' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bulkSmsApi', required: true }],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				default: 'send',
				options: [
					{
						name: 'Send',
						value: 'send',
						description: 'Send one message to many mobile numbers',
						action: 'Send an SMS',
					},
					{
						name: 'Get Status',
						value: 'getStatus',
						description: 'Get the delivery report of every destination of a batch',
						action: 'Get the delivery status of a batch',
					},
				],
			},
			...sendDescription,
			...getStatusDescription,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const operation = this.getNodeParameter('operation', 0) as keyof typeof operations;
		return [await operations[operation].call(this)];
	}
}
