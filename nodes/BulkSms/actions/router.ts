/**
 * The Bulk SMS node's operations, in one table: the Operation options, the subtitle and the
 * dispatch are all read from it, so a new operation is one row here and nothing else to keep
 * in step. An operation the table does not have (a workflow written for a later version, or
 * edited by hand) is refused with a sentence, never a TypeError.
 */
import type { IExecuteFunctions, INodeExecutionData, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { executeGetStatus } from '../operations/getStatus';
import { executeSend } from '../operations/send';

interface Operation extends INodePropertyOptions {
	value: string;
	/** also the name n8n gives a node added from this action, and the node's subtitle */
	action: string;
	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[]>;
}

export const OPERATIONS: Operation[] = [
	{
		name: 'Send',
		value: 'send',
		action: 'Send SMS',
		description: 'Send one message to many mobile numbers',
		execute: executeSend,
	},
	{
		name: 'Get Status',
		value: 'getStatus',
		action: 'Get Delivery Status',
		description: 'Get the delivery report of every number a batch was sent to',
		execute: executeGetStatus,
	},
];

/** The Operation parameter's options, without the code. */
export function operationOptions(): INodePropertyOptions[] {
	return OPERATIONS.map(({ name, value, action, description }) => ({
		name,
		value,
		action,
		description,
	}));
}

/**
 * The canvas subtitle: the chosen operation's action, looked up in a table written out from
 * OPERATIONS. n8n evaluates it in the editor, where the node's code does not run, so the table
 * travels inside the expression.
 */
export function subtitleExpression(): string {
	const actions = Object.fromEntries(OPERATIONS.map(({ value, action }) => [value, action]));
	return `={{ (${JSON.stringify(actions)})[$parameter["operation"]] }}`;
}

export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const value = this.getNodeParameter('operation', 0) as string;
	const operation = OPERATIONS.find((candidate) => candidate.value === value);
	if (!operation) {
		const known = OPERATIONS.map(({ action, value: v }) => `${action} (${v})`).join(', ');
		throw new NodeOperationError(
			this.getNode(),
			`The Bulk SMS node has no operation "${String(value)}"`,
			{
				description: `This version knows ${known}. The workflow may come from a newer version of the package: update it, or choose one of these operations.`,
			},
		);
	}
	return [await operation.execute.call(this)];
}
