import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { STATUSES, type Status } from './domain/status';

/** The Accept format option, shared by every operation and the polling trigger. */
export const formatOption: INodeProperties = {
	displayName: 'Response Format',
	name: 'format',
	type: 'options',
	default: 'json',
	description:
		'Format to ask the service for. Answers are read by their content, so a gateway that answers the other format still works.',
	options: [
		{ name: 'JSON', value: 'json' },
		{ name: 'XML', value: 'xml' },
	],
};

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

/** The interface's meaning of each status, shown beside the option. */
const STATUS_MEANINGS: Record<Status, string> = {
	ENROUTE: 'On its way; not final yet',
	DELIVRD: 'Delivered to the phone',
	EXPIRED: 'Validity period ran out',
	DELETED: 'Deleted',
	UNDELIV: 'Undeliverable',
	ACCEPTD: 'Read by the network for the user',
	UNKNOWN: 'In an invalid state',
	REJECTD: 'Rejected by the network',
};

/** Narrow the reports to some statuses; shared by Get Status and both triggers. */
export const statusFilterOption: INodeProperties = {
	displayName: 'Only Statuses',
	name: 'statuses',
	type: 'multiOptions',
	default: [],
	description: 'Keep only reports in these statuses. Empty keeps all.',
	options: STATUSES.map((status) => ({
		name: status,
		value: status,
		description: STATUS_MEANINGS[status],
	})),
};
