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

import { callbackBasicAuthTest, callbackSecretTest, checkCallbackSetup } from './authentication';
import { statusTriggerProperties } from './description';
import { receiveCallback, rememberEmitted } from './webhook';

export class BulkSmsStatusTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bulk SMS Status Trigger',
		name: 'bulkSmsStatusTrigger',
		icon: { light: 'file:../BulkSms/bulkSms.svg', dark: 'file:../BulkSms/bulkSms.dark.svg' },
		group: ['trigger'],
		// 1.1 keeps the secret in a credential; version 1 (its node parameters) keeps working.
		version: [1, 1.1],
		subtitle:
			'={{ "Callbacks: " + {"final": "final statuses", "changes": "every status change", "all": "every status change", "statuses": "chosen statuses"}[$parameter["emit"]] }}',
		description:
			"Receives the service's delivery callbacks at a public URL (a webhook, nothing polled) and starts a workflow for each report",
		defaults: { name: 'Bulk SMS Status Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Literal names: n8n's lint and scanner read them from the source.
		credentials: [
			{
				name: 'bulkSmsCallbackApi',
				required: true,
				testedBy: 'callbackSecretTest',
				displayOptions: { show: { authentication: ['secretCredential'] } },
			},
			{
				name: 'bulkSmsCallbackBasicAuthApi',
				required: true,
				testedBy: 'callbackBasicAuthTest',
				displayOptions: { show: { authentication: ['basicAuthCredential'] } },
			},
			{ name: 'bulkSmsApi', required: false },
		],
		// responseData '': n8n then answers the webhookResponse that webhook() gives with the
		// execution it starts; left out, it would answer the literal text "firstEntryJson".
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: '',
				path: 'status',
			},
			{
				name: 'default',
				httpMethod: 'GET',
				responseMode: 'onReceived',
				responseData: '',
				path: 'status',
			},
		],
		properties: statusTriggerProperties,
	};

	methods = { credentialTest: { callbackSecretTest, callbackBasicAuthTest } };

	/**
	 * The interface has no request to register a callback URL (docs/interface.md, 6.2): the user gives the URL
	 * to the service, so activation has nothing to create or remove there. It checks the setup:
	 * n8n runs checkExists on activation and for "Test this trigger", and a throw refuses both
	 * with its message.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				await checkCallbackSetup.call(this);
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

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveCallback.call(this);
	}

	/** Runs first in the execution a callback started: it remembers what was emitted. */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await rememberEmitted.call(this);
	}
}
