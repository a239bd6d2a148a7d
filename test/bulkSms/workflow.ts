/** Builds the workflows the BulkSms tests run: Manual Trigger → [items] → BulkSms nodes in a line. */
import type { IConnections, IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { BULK_SMS, MANUAL_TRIGGER, SET_ITEMS, WRITE_BACK } from '../engine/harness';
import type { Sandbox } from '../../sandbox/server';

let position = 0;

function node(
	name: string,
	type: string,
	parameters: INodeParameters,
	extra: Partial<INode> = {},
): INode {
	position += 200;
	return { id: name, name, type, typeVersion: 1, position: [position, 0], parameters, ...extra };
}

export const trigger = () => node('Start', MANUAL_TRIGGER, {});
export const items = (list: IDataObject[]) =>
	node('Items', SET_ITEMS, { items: JSON.stringify(list) });
export const send = (parameters: INodeParameters, extra?: Partial<INode>) =>
	node('Send', BULK_SMS, { operation: 'send', ...parameters }, extra);
/** A write-back evaluating `value` per item (a Set or Google Sheets node as users build it). */
export const writeBack = (value: string) => node('Write Back', WRITE_BACK, { value });
export const getStatus = (
	parameters: INodeParameters,
	extra?: Partial<INode>,
	name = 'Get Status',
) => node(name, BULK_SMS, { operation: 'getStatus', ...parameters }, extra);

/** Connects the nodes one after the other. */
export function line(...nodes: INode[]): { nodes: INode[]; connections: IConnections } {
	const connections: IConnections = {};
	nodes.slice(1).forEach((next, index) => {
		connections[nodes[index].name] = { main: [[{ node: next.name, type: 'main', index: 0 }]] };
	});
	return { nodes, connections };
}

export function credentialsFor(sandbox: Sandbox, overrides: IDataObject = {}) {
	return {
		bulkSmsApi: {
			baseUrl: sandbox.baseUrl,
			username: 'demo',
			password: 'demo-password',
			timeZone: 'UTC',
			...overrides,
		},
	};
}
