/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The example workflows in examples/, as the demo, the editor and the e2e tests import them, and
 * the credential they refer to. One source for each workflow: what a user imports is what runs.
 * Type names are the package's as users see them: `<package name>.<node name>`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './package';
import type { JsonObject } from './runtime';

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

export type ExampleName = 'send-and-track' | 'watch-deliveries' | 'sheet-campaign';

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
