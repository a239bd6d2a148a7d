/**
 * The status callbacks wired end to end, as `npm run editor` and the e2e set them up:
 * examples/status-callbacks.json (a Bulk SMS Status Trigger) with its callback credential holding
 * a fresh secret, the workflow activated, and the sandbox's callbacks pointed at its Production
 * URL, so that every send of the sandbox's demo account starts callback executions.
 */
import { randomBytes } from 'node:crypto';

import type { Sandbox } from '../../sandbox/server';
import type { N8nInstance } from './instance';
import type { JsonObject } from './runData';
import type { N8nServer } from './server';
import { loadExample, STATUS_TRIGGER_NODE_TYPE, workflowId } from './workflows';

export const CALLBACK_CREDENTIAL_ID = 'bulkSmsCallback01';
export const CALLBACK_CREDENTIAL_NAME = 'Bulk SMS callback secret';

export interface StatusCallbacks {
	workflow: JsonObject;
	secret: string;
}

/**
 * Before n8n starts: the example and its credential (n8n encrypts the secret on import). The
 * example keeps only its failed executions, as a user's should; a test that reads what each
 * callback execution did asks to keep every one.
 */
export async function importStatusCallbacks(
	n8n: N8nInstance,
	{ keepEveryExecution = false } = {},
): Promise<StatusCallbacks> {
	const secret = randomBytes(24).toString('hex');
	const example = loadExample('status-callbacks');
	const workflow = keepEveryExecution ? everyExecutionKept(example) : example;
	await n8n.importCredential({
		id: CALLBACK_CREDENTIAL_ID,
		name: CALLBACK_CREDENTIAL_NAME,
		type: 'bulkSmsCallbackApi',
		data: { secret },
	});
	await n8n.importWorkflow(workflow);
	return { workflow, secret };
}

function everyExecutionKept(workflow: JsonObject): JsonObject {
	const settings = { ...(workflow.settings as JsonObject), saveDataSuccessExecution: 'all' };
	return { ...workflow, settings };
}

/** The Production URL with the secret: what a provider is given as its callback URL. */
export function callbackUrl(server: N8nServer, { workflow, secret }: StatusCallbacks): string {
	const trigger = (workflow.nodes as JsonObject[]).find(
		(node) => node.type === STATUS_TRIGGER_NODE_TYPE,
	);
	if (!trigger) throw new Error(`${String(workflow.name)} has no Bulk SMS Status Trigger`);
	return `${server.baseUrl}/webhook/${String(trigger.webhookId)}/status?token=${secret}`;
}

/**
 * Once n8n runs (with an API key): the workflow activated, and, when there is a sandbox, its
 * demo account's callbacks sent to it. Returns the callback URL.
 */
export async function connectStatusCallbacks(
	server: N8nServer,
	callbacks: StatusCallbacks,
	sandbox: Sandbox | undefined,
	username = 'demo',
): Promise<string> {
	await server.activateWorkflow(workflowId(callbacks.workflow));
	const url = callbackUrl(server, callbacks);
	await sandbox?.upsertAccount({ username, callbackUrl: url });
	return url;
}
