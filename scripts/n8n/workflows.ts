/**
 * Workflows and a credential as n8n's import commands take them. Type names are the package's
 * as users see them: `<package name>.<node name>`.
 */
import type { JsonObject } from './runtime';

export const PACKAGE_NAME = 'n8n-nodes-bulk-sms';
export const SEND_NODE_TYPE = `${PACKAGE_NAME}.bulkSms`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.bulkSmsTrigger`;
export const CREDENTIAL_TYPE = 'bulkSmsApi';
export const SEND_NODE_NAME = 'Bulk SMS';
export const TRIGGER_NODE_NAME = 'Bulk SMS Trigger';

export const CREDENTIAL_ID = 'bulkSmsE2eCred1';
const credentialRef = { bulkSmsApi: { id: CREDENTIAL_ID, name: 'Bulk SMS (sandbox)' } };

/** The sandbox's default account; plain `data` is encrypted by `n8n import:credentials`. */
export function credential(baseUrl: string): JsonObject {
	return {
		id: CREDENTIAL_ID,
		name: 'Bulk SMS (sandbox)',
		type: CREDENTIAL_TYPE,
		data: { baseUrl, username: 'demo', password: 'demo-password' },
	};
}

function workflow(
	id: string,
	name: string,
	nodes: JsonObject[],
	connections: JsonObject,
): JsonObject {
	return {
		id,
		name,
		nodes,
		connections,
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

function main(to: string): JsonObject {
	return { main: [[{ node: to, type: 'main', index: 0 }]] };
}

/** Sandbox numbers that the sandbox delivers (see sandbox/README.md, test numbers). */
export const SEND_PARAMETERS: JsonObject = {
	operation: 'send',
	destinations: '447700900001, 447700900002',
	message: 'Hello from the n8n e2e test',
};

/** Manual Trigger → Bulk SMS: what `n8n execute` can run headless. */
export function sendWorkflow(id: string, parameters: JsonObject = SEND_PARAMETERS): JsonObject {
	const nodes: JsonObject[] = [
		{
			id: 'e2e-manual',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'e2e-send',
			name: SEND_NODE_NAME,
			type: SEND_NODE_TYPE,
			typeVersion: 1,
			position: [240, 0],
			parameters,
			credentials: credentialRef,
		},
	];
	return workflow(id, 'E2E send', nodes, { Start: main(SEND_NODE_NAME) });
}

/**
 * Bulk SMS Trigger → No Op, watching the given batches: runs only when activated under
 * `n8n start`. n8n polls on activation, then at most once a minute (its minimum).
 */
export function triggerWorkflow(
	id: string,
	batchIds: string[],
	parameters: JsonObject = {},
): JsonObject {
	const nodes: JsonObject[] = [
		{
			id: 'e2e-trigger',
			name: TRIGGER_NODE_NAME,
			type: TRIGGER_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: {
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				batchIds: batchIds.join(', '),
				...parameters,
			},
			credentials: credentialRef,
		},
		{
			id: 'e2e-noop',
			name: 'Reports',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [240, 0],
			parameters: {},
		},
	];
	return workflow(id, 'E2E trigger', nodes, { [TRIGGER_NODE_NAME]: main('Reports') });
}

export const STATUS_NODE_NAME = 'Get Status';

/**
 * Manual Trigger → Send → Get Status of the batch just sent: the demo's workflow. The batch id
 * goes from one node to the next through an expression, as a string of digits.
 */
export function sendThenStatusWorkflow(
	id: string,
	parameters: JsonObject = SEND_PARAMETERS,
): JsonObject {
	const sent = sendWorkflow(id, parameters) as { nodes: JsonObject[]; connections: JsonObject };
	const status: JsonObject = {
		id: 'demo-status',
		name: STATUS_NODE_NAME,
		type: SEND_NODE_TYPE,
		typeVersion: 1,
		position: [480, 0],
		parameters: { operation: 'getStatus', batchId: '={{ $json.batch_id }}' },
		credentials: credentialRef,
	};
	return workflow(id, 'Send an SMS, then get its delivery status', [...sent.nodes, status], {
		...sent.connections,
		[SEND_NODE_NAME]: main(STATUS_NODE_NAME),
	});
}
