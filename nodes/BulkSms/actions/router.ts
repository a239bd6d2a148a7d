/**
 * The Bulk SMS node's operations, in one table: the Operation options and the dispatch are read
 * from it (the node's subtitle, which must be a literal, is checked against it by a test). An
 * operation the table does not have (a workflow written for a later version, or edited by hand)
 * is refused with a sentence, never a TypeError.
 */
import type { IExecuteFunctions, INodeExecutionData, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { executeGetStatus } from '../operations/getStatus';
import { executeSend, type SendProcess } from '../operations/send';

interface Operation extends INodePropertyOptions {
	value: string;
	/** also the name n8n gives a node added from this action, and the node's subtitle */
	action: string;
	/** `process`: what this n8n process keeps for Send's records (operations/send/record). */
	/** The items of each of the operation's outputs. */
	execute: (this: IExecuteFunctions, process: SendProcess) => Promise<INodeExecutionData[][]>;
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

export async function route(
	this: IExecuteFunctions,
	process: SendProcess,
): Promise<INodeExecutionData[][]> {
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
	return await operation.execute.call(this, process);
}
