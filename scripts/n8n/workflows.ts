/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The example workflows in examples/, as the demo, the editor and the e2e tests import them, and
 * the credential they refer to. One source for each workflow: what a user imports is what runs.
 * Type names are the package's as users see them: `<package name>.<node name>`.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './package';
import type { JsonObject } from './runData';

export const PACKAGE_NAME = 'n8n-nodes-bulk-sms';
export const SEND_NODE_TYPE = `${PACKAGE_NAME}.bulkSms`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.bulkSmsTrigger`;
export const STATUS_TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.bulkSmsStatusTrigger`;
export const CREDENTIAL_TYPE = 'bulkSmsApi';

// The examples refer to the credential by this id and name, so importing a credential with the
// same id wires every node to it; a user importing the file in the editor picks their own.
export const CREDENTIAL_ID = 'bulkSmsAccount01';
export const CREDENTIAL_NAME = 'Bulk SMS account';

// Node names in examples/send-and-track.json and examples/watch-deliveries.json.
export const START_NODE_NAME = 'Start';
export const SEND_NODE_NAME = 'Send SMS';
export const STATUS_NODE_NAME = 'Get Status';
export const DONE_NODE_NAME = 'Delivery Reports';
export const TRIGGER_NODE_NAME = 'Bulk SMS Trigger';

export type ExampleName =
	| 'send-and-track'
	| 'watch-deliveries'
	| 'sheet-campaign'
	| 'status-callbacks';

export interface ServiceAccount {
	baseUrl: string;
	username: string;
	password: string;
	timeZone?: string;
}

/** Plain `data`: `n8n import:credentials` encrypts it. */
export function credential(account: ServiceAccount): JsonObject {
	const { baseUrl, username, password, timeZone = 'UTC' } = account;
	return {
		id: CREDENTIAL_ID,
		name: CREDENTIAL_NAME,
		type: CREDENTIAL_TYPE,
		data: { baseUrl, username, password, timeZone },
	};
}

export function loadExample(name: ExampleName): JsonObject {
	const file = path.join(REPO_ROOT, 'examples', `${name}.json`);
	return JSON.parse(fs.readFileSync(file, 'utf8')) as JsonObject;
}

export function workflowId(workflow: JsonObject): string {
	return String(workflow.id);
}

function nodesOf(workflow: JsonObject): JsonObject[] {
	return workflow.nodes as JsonObject[];
}

/** A copy of the workflow with some parameters of one node replaced. */
export function withParameters(
	workflow: JsonObject,
	nodeName: string,
	parameters: JsonObject,
): JsonObject {
	if (!nodesOf(workflow).some((node) => node.name === nodeName)) {
		throw new Error(`workflow ${String(workflow.name)} has no node ${nodeName}`);
	}
	const nodes = nodesOf(workflow).map((node) =>
		node.name === nodeName
			? { ...node, parameters: { ...(node.parameters as JsonObject), ...parameters } }
			: node,
	);
	return { ...workflow, nodes };
}

/**
 * The send-and-track example cut after Send: a fresh batch without waiting for it to finish
 * (a test that drives the sandbox clock itself needs that).
 */
export function sendOnlyWorkflow(id: string): JsonObject {
	const example = loadExample('send-and-track');
	const kept = [START_NODE_NAME, SEND_NODE_NAME];
	const connections = example.connections as JsonObject;
	return {
		...example,
		id,
		name: 'Bulk SMS: send only',
		nodes: nodesOf(example).filter((node) => kept.includes(String(node.name))),
		connections: { [START_NODE_NAME]: connections[START_NODE_NAME] },
	};
}

export const TOOL_EXECUTOR_NODE_NAME = 'Tool Executor';

/** What an AI agent passes to the Send operation used as a tool (its `$fromAI` values). */
export interface ToolCall {
	destinations: string;
	message: string;
}

/**
 * Bulk SMS as an AI agent's tool, called as an agent calls it but without a model: n8n's Tool
 * Executor hands `call` to the tool (`<package>.bulkSmsTool`, the variant n8n makes of a node that
 * is `usableAsTool`), whose parameters read it with `$fromAI`. n8n 1.x hands the Executor's whole
 * query to the tool; 2.x the entry named after the tool (so that one query can serve several).
 */
export function toolWorkflow(
	id: string,
	call: ToolCall,
	n8nVersion: string,
	/** The tool's Message as saved, when it is not read from the call (`$fromAI`). */
	message = "={{ $fromAI('message', 'The text of the SMS', 'string') }}",
): JsonObject {
	const example = nodesOf(loadExample('send-and-track'));
	const [start, send] = [START_NODE_NAME, SEND_NODE_NAME].map((name) => {
		const node = example.find((candidate) => candidate.name === name);
		if (!node) throw new Error(`examples/send-and-track.json has no node ${name}`);
		return node;
	});
	const tool = {
		...send,
		type: `${SEND_NODE_TYPE}Tool`,
		position: [220, 200],
		parameters: {
			resource: 'sms',
			operation: 'send',
			destinations: "={{ $fromAI('destinations', 'Phone numbers, comma-separated', 'string') }}",
			message,
			sendOptions: {},
		},
	};
	const toolName = SEND_NODE_NAME.replace(/\W+/g, '_'); // n8n's name for the node as a tool
	const query = n8nVersion.startsWith('1.') ? call : { [toolName]: call };
	const executor = {
		id: '7d1e4b2a-3c5f-4e6a-9b8c-0d1e2f3a4b50',
		name: TOOL_EXECUTOR_NODE_NAME,
		type: '@n8n/n8n-nodes-langchain.toolExecutor',
		typeVersion: 1,
		position: [220, 0],
		parameters: { query: JSON.stringify(query), toolName: '' },
	};
	return {
		id,
		name: 'Bulk SMS: as an AI tool',
		nodes: [start, tool, executor],
		connections: {
			[START_NODE_NAME]: { main: [[{ node: TOOL_EXECUTOR_NODE_NAME, type: 'main', index: 0 }]] },
			[SEND_NODE_NAME]: {
				ai_tool: [[{ node: TOOL_EXECUTOR_NODE_NAME, type: 'ai_tool', index: 0 }]],
			},
		},
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

export const CONTACTS_NODE_NAME = 'Contacts';
export const WEBHOOK_NODE_NAME = 'Webhook';

/** Send's options and node settings (Continue On Fail: `onError`) of a workflow built here. */
export interface SendSetup {
	sendOptions?: JsonObject;
	settings?: JsonObject;
	/** Send's other parameters (Numbers In Doubt: `inDoubt`). */
	parameters?: JsonObject;
}

/**
 * How a workflow built here starts: the Manual Trigger "Start" (the editor, `n8n execute`), or
 * also a Webhook at /webhook/<path> that answers with Send's items once the run has ended.
 */
export interface Start {
	webhookPath?: string;
	/** Get Delivery Status after Send, reading each row's batch. */
	thenStatus?: boolean;
	/** The workflow n8n runs when this one fails (its Error Workflow setting). */
	errorWorkflow?: string;
}

/**
 * A personalised campaign as users build it: a trigger → a list of contacts (a Code node
 * standing in for a sheet) → Send SMS, one message per contact. The contacts' numbers are
 * `<prefix>` followed by a 5-digit index; `sendOptions` and the node's settings as given.
 */
export function contactsCampaign(
	id: string,
	contacts: { count: number; prefix: string },
	send: SendSetup = {},
	start: Start = {},
): JsonObject {
	const { count, prefix } = contacts;
	const jsCode = `return Array.from({ length: ${count} }, (_, i) => ({ json: { name: 'Contact ' + i, phone: '${prefix}' + String(i).padStart(5, '0') } }));`;
	const contactList = node(id, CONTACTS_NODE_NAME, 'n8n-nodes-base.code', 220, {
		typeVersion: 2,
		parameters: { jsCode },
	});
	const sms = sendNode(id, 440, send, {
		destinations: '={{ $json.phone }}',
		message: '=Hi {{ $json.name }}, your order is ready.',
	});
	const status = start.thenStatus ? [statusNode(id, 660)] : [];
	return workflowOf(id, `Campaign ${id}`, start, [contactList, sms, ...status]);
}

export const WAIT_NODE_NAME = 'Wait';
export const UNANSWERED_NODE_NAME = 'Not Acknowledged Yet';

/**
 * An escalation as users build it: the alert, a Wait, then the alert again while nobody has
 * acknowledged it (a Code node standing in for the check), `passes` alerts in one execution.
 */
export function escalationWorkflow(
	id: string,
	destinations: string,
	passes: number,
	start: Start = {},
): JsonObject {
	const sms = sendNode(id, 220, {}, { destinations, message: 'ALERT: the database is down.' });
	const wait = node(id, WAIT_NODE_NAME, 'n8n-nodes-base.wait', 440, {
		typeVersion: 1.1,
		parameters: { amount: 1, unit: 'seconds' },
		webhookId: randomUUID(),
	});
	const unanswered = node(id, UNANSWERED_NODE_NAME, 'n8n-nodes-base.code', 660, {
		typeVersion: 2,
		parameters: { jsCode: `return $runIndex < ${passes - 1} ? [{ json: {} }] : [];` },
	});
	const workflow = workflowOf(id, `Escalation ${id}`, start, [sms, wait, unanswered]);
	const connections = workflow.connections as JsonObject;
	connections[UNANSWERED_NODE_NAME] = {
		main: [[{ node: SEND_NODE_NAME, type: 'main', index: 0 }]],
	};
	return workflow;
}

/** A workflow n8n runs when another fails: Error Trigger → No Op, its runs counted. */
export function errorWorkflow(id: string): JsonObject {
	const trigger = node(id, 'Error Trigger', 'n8n-nodes-base.errorTrigger', 0, { parameters: {} });
	const noted = node(id, 'Noted', 'n8n-nodes-base.noOp', 220, { parameters: {} });
	return {
		id,
		name: `Errors ${id}`,
		nodes: [trigger, noted],
		connections: { 'Error Trigger': { main: [[{ node: 'Noted', type: 'main', index: 0 }]] } },
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

function statusNode(workflowId: string, x: number): JsonObject {
	return node(workflowId, STATUS_NODE_NAME, SEND_NODE_TYPE, x, {
		parameters: { resource: 'sms', operation: 'getStatus', statusOptions: {} },
		credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
	});
}

/**
 * An alert as users build it: a trigger → Send SMS of the same text to the same numbers each
 * time (`destinations` as the field holds them).
 */
export function alertWorkflow(
	id: string,
	destinations: string,
	send: SendSetup = {},
	start: Start = {},
): JsonObject {
	const sms = sendNode(id, 220, send, { destinations, message: 'ALERT: the database is down.' });
	return workflowOf(id, `Alert ${id}`, start, [sms]);
}

/** The triggers `start` asks for, each leading to the first of `chain`, which runs in order. */
function workflowOf(id: string, name: string, start: Start, chain: JsonObject[]): JsonObject {
	const triggers = [
		node(id, START_NODE_NAME, 'n8n-nodes-base.manualTrigger', 0, { parameters: {} }),
	];
	if (start.webhookPath !== undefined) triggers.push(webhookNode(id, start.webhookPath));
	const next = (to: JsonObject) => ({
		main: [[{ node: String(to.name), type: 'main', index: 0 }]],
	});
	const connections: JsonObject = {};
	for (const trigger of triggers) connections[String(trigger.name)] = next(chain[0]);
	chain.slice(1).forEach((to, index) => (connections[String(chain[index].name)] = next(to)));
	return {
		id,
		name,
		nodes: [...triggers, ...chain],
		connections,
		active: false,
		settings: {
			executionOrder: 'v1',
			...(start.errorWorkflow ? { errorWorkflow: start.errorWorkflow } : {}),
		},
		pinData: {},
	};
}

function node(
	workflowId: string,
	name: string,
	type: string,
	x: number,
	extra: JsonObject,
): JsonObject {
	const id = `${workflowId}-${name.replace(/\W/g, '')}`;
	return { id, name, type, typeVersion: 1, position: [x, 0], ...extra };
}

function sendNode(workflowId: string, x: number, send: SendSetup, fields: JsonObject): JsonObject {
	return node(workflowId, SEND_NODE_NAME, SEND_NODE_TYPE, x, {
		parameters: {
			resource: 'sms',
			operation: 'send',
			...fields,
			...(send.parameters ?? {}),
			sendOptions: send.sendOptions ?? {},
		},
		credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
		...(send.settings ?? {}),
	});
}

/** POST /webhook/<path>, as the editor adds a Webhook (with a webhookId of its own). */
function webhookNode(workflowId: string, path: string): JsonObject {
	return node(workflowId, WEBHOOK_NODE_NAME, 'n8n-nodes-base.webhook', 0, {
		typeVersion: 2,
		position: [0, 200],
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode: 'lastNode',
			responseData: 'allEntries',
			options: {},
		},
	});
}
