/**
 * Output items and their errors, the same in every node: pairing with the input, the item of
 * a failure under Continue On Fail, and n8n's error classes for anything thrown.
 */
import type { IExecuteFunctions, INodeExecutionData, IPairedItemData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** pairedItem for an output built from one or more input items. */
export function pairedWith(itemIndexes: readonly number[]): IPairedItemData[] {
	return [...new Set(itemIndexes)].sort((a, b) => a - b).map((item) => ({ item }));
}

/** The output item for a failure under Continue On Fail. */
export function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndexes: readonly number[],
): INodeExecutionData {
	const { message, description } = error;
	return {
		json: { error: message, ...(description ? { description } : {}) },
		pairedItem: pairedWith(itemIndexes),
	};
}

/** n8n's own errors pass through; anything else is wrapped so the UI shows it with its item. */
export function asNodeError(
	context: Pick<IExecuteFunctions, 'getNode'>,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}
