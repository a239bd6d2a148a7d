import type {
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { statusTriggerProperties } from './description';
import { emitHandedOver } from './execute';
import { KnownReports } from './knownReports';
import { receiveCallback } from './webhook';

export class BulkSmsStatusTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bulk SMS Status Trigger',
		name: 'bulkSmsStatusTrigger',
		icon: { light: 'file:../BulkSms/bulkSms.svg', dark: 'file:../BulkSms/bulkSms.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ "Callbacks: " + {"final": "final statuses", "all": "every status change", "statuses": "chosen statuses"}[$parameter["emit"]] }}',
		description:
			"Receives the service's delivery callbacks at a public URL (a webhook, nothing polled) and starts a workflow for each report",
		defaults: { name: 'Bulk SMS Status Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bulkSmsApi', required: false }],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'status' },
			{ name: 'default', httpMethod: 'GET', responseMode: 'onReceived', path: 'status' },
		],
		properties: statusTriggerProperties,
	};

	/**
	 * The interface has no request to register a callback URL (docs/interface.md, 6.2): the user gives the URL
	 * to the service, so activation has nothing to create or remove there.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	/**
	 * What this process knows of the callbacks it received and emitted (knownReports.ts): n8n
	 * makes one instance of a node type per process, and both steps below close over it.
	 */
	private readonly known = new KnownReports();

	webhook = receiverOf(this.known);

	/** Runs first in the execution a callback started: see execute.ts. */
	execute = executorOf(this.known);
}

function receiverOf(known: KnownReports) {
	return async function (this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveCallback.call(this, known);
	};
}

function executorOf(known: KnownReports) {
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await emitHandedOver.call(this, known);
	};
}
