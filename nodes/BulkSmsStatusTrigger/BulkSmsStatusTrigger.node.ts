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

import { StoreQueue } from '../shared/deduplicationStore';
import { statusTriggerProperties } from './description';
import { emitCallbacks, type ExecutionSide } from './execute';
import { Gathering } from './gathering';
import { TriggerMemory } from './memory';
import { triggerOf } from './parameters';
import {
	callbackBasicAuthTest,
	callbackSecretTest,
	checkCallbackSetup,
	RecentCredentials,
} from './setup';
import { receiveCallback, type CallbackSide } from './webhook';

export class BulkSmsStatusTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bulk SMS Status Trigger',
		name: 'bulkSmsStatusTrigger',
		icon: { light: 'file:../BulkSms/bulkSms.svg', dark: 'file:../BulkSms/bulkSms.dark.svg' },
		group: ['trigger'],
		// The one version. Not 1: n8n treats a webhook node of version 1 as its old Webhook node and
		// evaluates an expression for every call (webhook-helpers.js parseRequestBody).
		version: 1.1,
		subtitle:
			'={{ "Callbacks: " + {"final": "final statuses", "changes": "every status change"}[$parameter["emit"]] }}',
		description:
			"Receives the service's delivery callbacks at a public URL (a webhook, nothing polled) and starts a workflow for each report",
		defaults: { name: 'Bulk SMS Status Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Literal names: n8n's lint and scanner read them from the source.
		credentials: [
			{
				name: 'bulkSmsCallbackApi',
				displayName: 'Callback Credential (Secret)',
				required: true,
				testedBy: 'callbackSecretTest',
				displayOptions: { show: { authentication: ['secretCredential'] } },
			},
			{
				name: 'bulkSmsCallbackBasicAuthApi',
				displayName: 'Callback Credential (User and Password)',
				required: true,
				testedBy: 'callbackBasicAuthTest',
				displayOptions: { show: { authentication: ['basicAuthCredential'] } },
			},
			// Its only use here: the zone delivery dates are read in. Without it, UTC.
			{
				name: 'bulkSmsApi',
				displayName: 'Bulk SMS Account (Only for the Time Zone of Delivery Dates)',
				required: false,
			},
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

	/**
	 * What this n8n process keeps of each trigger between calls. The trigger's lasting memory is
	 * its workflow static data; n8n makes one instance of a node type per process, and both steps
	 * below close over this, for what calls in one process must share (see TriggerHere).
	 */
	private readonly triggers = new TriggersHere();

	/** Each callback: see webhook.ts. */
	webhook = receiverOf(this.triggers);

	/** Runs first in the execution a callback started: see execute.ts. */
	execute = executorOf(this.triggers);
}

function receiverOf(triggers: TriggersHere) {
	return async function (this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveCallback.call(this, triggers.of(triggerOf(this)));
	};
}

function executorOf(triggers: TriggersHere) {
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await emitCallbacks.call(this, triggers.of(triggerOf(this)));
	};
}

/** One trigger (workflow and node) in this process. */
class TriggerHere implements CallbackSide, ExecutionSide {
	/** What it learned lately and the reports it is handing over, added to every write (memory.ts). */
	readonly memory = new TriggerMemory();
	/** Callbacks waiting to go in the next execution (gathering.ts). */
	readonly gathering = new Gathering();
	/** Its credentials as read lately: a read costs n8n an expression isolate (setup.ts). */
	readonly credentials = new RecentCredentials();
	/** Its calls to n8n's deduplication store, one at a time (claims.ts). */
	readonly storeQueue = new StoreQueue();
}

/** Triggers kept at once per process; the least recently called is forgotten first. */
const TRIGGERS = 64;

class TriggersHere {
	private readonly triggers = new Map<string, TriggerHere>();

	of(trigger: string): TriggerHere {
		const here = this.triggers.get(trigger) ?? new TriggerHere();
		this.triggers.delete(trigger);
		this.triggers.set(trigger, here);
		if (this.triggers.size > TRIGGERS) this.triggers.delete(this.triggers.keys().next().value!);
		return here;
	}
}
